#!/bin/sh
# Entry point of the legalnav image: optionally migrate, then run the given command
# (uvicorn by default, `celery -A legalnav worker ...` for the worker).
set -eu

if [ "${RUN_MIGRATIONS:-0}" = "1" ]; then
    echo "legalnav: applying database migrations" >&2
    python manage.py migrate --noinput
fi

exec "$@"
