#!/usr/bin/env bash
# Make sure the services the tests talk to are up: Redis (the Celery broker of the worker test)
# and, when it can be had, PostgreSQL (the second database the suite runs against).
# Prints "export ..." lines for the test script to eval.
set -euo pipefail
cd "$(dirname "$0")/.."

can_install() { command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; }
apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 \
  || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }; }

redis_url=${TEST_REDIS_URL:-redis://127.0.0.1:6379/15}
if ! .venv/bin/python - "$redis_url" <<'PY' >/dev/null 2>&1
import sys, redis
redis.Redis.from_url(sys.argv[1], socket_connect_timeout=2).ping()
PY
then
  if ! command -v redis-server >/dev/null 2>&1 && can_install; then
    apt_install redis-server >&2
  fi
  if command -v redis-server >/dev/null 2>&1; then
    mkdir -p var
    redis-server --daemonize yes --bind 127.0.0.1 --port 6391 --save "" --appendonly no \
      --dir "$PWD/var" --logfile "$PWD/var/redis-test.log" --pidfile "$PWD/var/redis-test.pid" >&2
    redis_url=redis://127.0.0.1:6391/15
    sleep 0.5
  else
    echo "Redis is needed by the worker test: install redis-server or set TEST_REDIS_URL." >&2
  fi
fi
echo "export TEST_REDIS_URL=$redis_url"

pg_url=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/legalnav}
pg_up() { .venv/bin/python - "$pg_url" <<'PY' >/dev/null 2>&1
import sys, psycopg
from urllib.parse import urlparse
u = urlparse(sys.argv[1])
psycopg.connect(host=u.hostname, port=u.port or 5432, user=u.username, password=u.password or None, dbname="postgres", connect_timeout=3).close()
PY
}
if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && ls /etc/postgresql >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start >&2 || true
    sleep 1
  fi
fi
if pg_up; then
  echo "export TEST_DATABASE_URL=$pg_url"
else
  echo "export TEST_DATABASE_URL="
fi
