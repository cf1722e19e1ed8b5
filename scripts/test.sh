#!/usr/bin/env bash
# Install everything and run the whole test suite, on SQLite and then on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
# System packages the tests use: docker-compose (validates the compose file), chromium (the
# browser tests), tesseract-ocr (OCR of scans; bootstrap installs it too) and postgresql-client
# (pg_dump and pg_restore, for the backup test on PostgreSQL). Installed on Debian
# when running as root; otherwise the tests say what is missing.
missing=()
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
[ -x "${LEGALNAV_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr tesseract-ocr-eng)
command -v pg_dump >/dev/null 2>&1 || missing+=(postgresql-client)  # manage.py backup on PostgreSQL
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }
fi
eval "$(scripts/services.sh)"
export TEST_REDIS_URL
mkdir -p var
# Two processes (one per core on the reference machine), a test file kept in one process: the
# worker and browser tests start services of their own and must not interleave within a file.
PYTEST=(.venv/bin/python -m pytest tests -q -p no:cacheprovider -n "${LEGALNAV_TEST_PROCESSES:-2}" --dist loadfile)

echo "== tests on SQLite"
env -u DATABASE_URL "${PYTEST[@]}" "$@"

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "== tests on PostgreSQL ($TEST_DATABASE_URL)"
  DATABASE_URL="$TEST_DATABASE_URL" "${PYTEST[@]}" "$@"
elif [ "${CI:-}" = "true" ]; then
  echo "PostgreSQL is required in CI but is not reachable (set TEST_DATABASE_URL)." >&2
  exit 1
else
  echo "== PostgreSQL not reachable: the PostgreSQL pass did not run (set TEST_DATABASE_URL to run it)." >&2
fi
