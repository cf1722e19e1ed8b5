"""The embedded default on a fresh checkout: no var/ folder yet, no services, no key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_migrate_creates_the_sqlite_database_in_a_missing_folder(tmp_path: Path):
    var = tmp_path / "fresh" / "var"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "ANTHROPIC_API_KEY", "QDRANT_URL")
    }
    env["LEGALNAV_VAR_DIR"] = str(var)
    proc = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (var / "legalnav.sqlite3").stat().st_size > 0
