"""PostgreSQL connections pooled per process when DB_POOL_SIZE is set (psycopg's pool): a
process started so pools its connections and serves queries through them; without it, none."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.db import connection

from tests.conftest import REPO
from tests.procs import child_env

SCRIPT = (
    "import django; django.setup();"
    "from django.db import connection;"
    "from django.contrib.auth import get_user_model;"
    "get_user_model().objects.count();"
    "print(connection.settings_dict.get('OPTIONS', {}).get('pool'), connection.pool is not None"
    " if connection.vendor == 'postgresql' else None)"
)


@pytest.mark.django_db(transaction=True)
def test_a_process_with_db_pool_size_pools_its_postgresql_connections():
    def run(**extra: str) -> str:
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT], cwd=REPO, env=child_env(**extra),
            capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        return out.stdout.strip()

    pooled, plain = run(DB_POOL_SIZE="4"), run(DB_POOL_SIZE="0")
    if connection.vendor == "postgresql":
        assert "'max_size': 4" in pooled and pooled.endswith("True")
        assert plain == "None False"
    else:  # SQLite has no pool: the setting is left alone
        assert pooled == plain == "None None"
