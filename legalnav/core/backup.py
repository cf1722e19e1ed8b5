"""Backups of a whole deployment, and restoring one into an empty deployment.

A backup is one ``.tar.gz``:

- ``manifest.json``: when, from which database engine, the latest migration of each app and the
  row count of every model (what a restore checks it got back);
- ``database.sqlite3`` (SQLite's online backup: a consistent copy while the site runs) or
  ``database.pgdump`` (``pg_dump --format=custom``: one consistent snapshot);
- ``media/``: the uploaded source files; ``navindex/``: the navindex files; ``index-cache/``: the
  parsed indexes and the embedding cache (``passage-vectors.sqlite3``), so that nothing has to be
  embedded again.

The database is copied first and the folders after it, so a backup taken while people work may
hold a file uploaded after the copy (harmless) but never a row whose file is missing.

Vectors are not copied from the store: a restore puts every indexed document's vectors back
into whichever store the new deployment uses (the in-process engine or a Qdrant server), from the
embedding cache, through ``restored`` (retrieval connects it). So a backup taken on one store
restores onto the other, and a Qdrant server needs no snapshot of its own.

A restore refuses a deployment that already holds data, and a backup from another engine.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import django.dispatch
from django.apps import apps
from django.conf import settings
from django.db import connection, connections
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

FORMAT = 1
MANIFEST = "manifest.json"

# Sent after a restore has put the database and the folders back; receivers rebuild what lives
# outside them (the retrieval app re-stores vectors) and return a line for the report.
restored = django.dispatch.Signal()


class BackupError(RuntimeError):
    """The backup or restore could not be made; the message says why and what to do."""


def _folders() -> dict[str, Path]:
    return {
        "media": Path(settings.MEDIA_ROOT),
        "navindex": Path(settings.NAVINDEX_DIR),
        "index-cache": Path(settings.INDEX_CACHE_DIR),
    }


def _engine() -> str:
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        raise BackupError(f"Backups cover SQLite and PostgreSQL, not {vendor}.")
    return vendor


def row_counts() -> dict[str, int]:
    """Rows of every model of the project's apps (and users), by ``app_label.Model``."""
    counts = {}
    for model in apps.get_models():
        label = model._meta.label
        if model.__module__.startswith("legalnav.") or label == settings.AUTH_USER_MODEL:
            counts[label] = model._default_manager.count()
    return counts


def label_now(label: str) -> str:
    """The label a backup's ``app_label.Model`` has in this version: a model that moved to another
    app with its table (``documents.CaseCard``, now ``research.CaseCard`` on the same
    ``documents_casecard``) is found by the table its old label gave it; any other is unchanged."""
    try:
        apps.get_model(label)
        return label
    except (LookupError, ValueError):
        pass
    app, _, name = label.partition(".")
    table = f"{app}_{name.lower()}"
    for model in apps.get_models():
        if model._meta.db_table == table:
            return model._meta.label
    return label


def _migrations() -> dict[str, str]:
    latest: dict[str, str] = {}
    for app, name in MigrationRecorder(connection).applied_migrations():
        latest[app] = max(latest.get(app, ""), name)
    return latest


def _pg_env() -> tuple[list[str], dict[str, str]]:
    db = connection.settings_dict
    args = ["--dbname", db["NAME"]]
    if db.get("HOST"):
        args += ["--host", str(db["HOST"])]
    if db.get("PORT"):
        args += ["--port", str(db["PORT"])]
    if db.get("USER"):
        args += ["--username", str(db["USER"])]
    env = {**os.environ, "PGPASSWORD": str(db.get("PASSWORD") or "")}
    return args, env


def _run(command: list[str], env: dict[str, str]) -> None:
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    except FileNotFoundError:
        raise BackupError(
            f"{command[0]} is not installed (Debian: apt-get install postgresql-client)."
        ) from None
    if done.returncode != 0:
        raise BackupError(f"{command[0]} failed: {done.stderr.strip()[-500:]}")


def _sqlite_copy(source_path: Path, target_path: Path) -> None:
    """SQLite's online backup: a consistent copy even while another connection writes."""
    source = sqlite3.connect(source_path)
    target = sqlite3.connect(target_path)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


@dataclass
class BackupReport:
    path: Path
    counts: dict[str, int]
    files: int = 0
    bytes: int = 0


def backup(out: Path) -> BackupReport:
    """Write the backup to ``out`` (a ``.tar.gz``; written beside it and moved into place)."""
    engine = _engine()
    out = Path(out)
    partial = out.with_name(out.name + ".part")
    with tempfile.TemporaryDirectory(prefix="legalnav-backup-") as scratch:
        work = Path(scratch)
        counts = row_counts()
        if engine == "sqlite":
            database = work / "database.sqlite3"
            _sqlite_copy(Path(connection.settings_dict["NAME"]), database)
        else:
            database = work / "database.pgdump"
            args, env = _pg_env()
            _run(["pg_dump", "--format=custom", "--no-owner", "--file", str(database), *args], env)
        manifest = {
            "format": FORMAT,
            "created_at": timezone.now().isoformat(),
            "engine": engine,
            "database": database.name,
            "migrations": _migrations(),
            "counts": counts,
            "folders": sorted(_folders()),
        }
        (work / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        report = BackupReport(path=out, counts=counts)
        try:
            with tarfile.open(partial, "w:gz") as tar:
                tar.add(work / MANIFEST, arcname=MANIFEST)
                tar.add(database, arcname=database.name)
                for name, folder in _folders().items():
                    if not folder.exists():
                        continue
                    for path in sorted(folder.rglob("*")):
                        if path.is_file() and not path.name.endswith((".tmp", ".part")):
                            tar.add(path, arcname=f"{name}/{path.relative_to(folder)}")
                            report.files += 1
                            report.bytes += path.stat().st_size
            os.replace(partial, out)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise BackupError(f"Cannot write {out}: {exc.strerror or exc}") from None
    return report


@dataclass
class RestoreReport:
    counts: dict[str, int]
    files: int = 0
    notes: list[str] = field(default_factory=list)


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        with tarfile.open(path, "r:gz") as tar:
            member = tar.extractfile(MANIFEST)
            if member is None:
                raise KeyError(MANIFEST)
            manifest = json.loads(member.read().decode("utf-8"))
    except (OSError, tarfile.TarError, KeyError, ValueError) as exc:
        raise BackupError(f"{path} is not a legalnav backup ({exc}).") from None
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{path} is a backup of format {manifest.get('format')}, not {FORMAT}.")
    return manifest


def deployment_is_empty() -> list[str]:
    """What the deployment already holds (empty list: nothing), so a restore never overwrites."""
    held = []
    tables = set(connection.introspection.table_names())
    for model in apps.get_models():
        if not model.__module__.startswith("legalnav."):
            continue
        if model._meta.db_table in tables and model._default_manager.exists():
            held.append(model._meta.label)
    for name, folder in _folders().items():
        if name != "index-cache" and folder.exists() and any(folder.rglob("*.*")):
            held.append(f"{name} folder ({folder})")
    return held


def restore(path: Path, *, migrate: Callable[[], None]) -> RestoreReport:
    """Restore the backup into this (empty) deployment: the database, then the folders, then
    ``migrate`` (a backup from an older version), then what the apps rebuild (``restored``);
    finally check every model's row count against the manifest."""
    path = Path(path)
    manifest = read_manifest(path)
    engine = _engine()
    if manifest["engine"] != engine:
        raise BackupError(
            f"This backup is of a {manifest['engine']} database; this deployment uses {engine}. "
            "Restore it onto the same engine."
        )
    held = deployment_is_empty()
    if held:
        raise BackupError(
            "This deployment is not empty (it holds " + ", ".join(held[:5]) + "). Restore into "
            "a new database and empty data folders."
        )
    report = RestoreReport(counts={})
    with tempfile.TemporaryDirectory(prefix="legalnav-restore-") as scratch:
        work = Path(scratch)
        with tarfile.open(path, "r:gz") as tar:
            tar.extractall(work, filter="data")  # no absolute paths, no "..", no devices
        database = work / manifest["database"]
        connections.close_all()
        if engine == "sqlite":
            target_path = Path(connection.settings_dict["NAME"])
            for suffix in ("-wal", "-shm"):
                Path(f"{target_path}{suffix}").unlink(missing_ok=True)
            _sqlite_copy(database, target_path)
        else:
            args, env = _pg_env()
            _run(
                ["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", *args]
                + [str(database)],
                env,
            )
        for name, folder in _folders().items():
            unpacked = work / name
            if not unpacked.exists():
                continue
            for source_file in sorted(p for p in unpacked.rglob("*") if p.is_file()):
                target_file = folder / source_file.relative_to(unpacked)
                target_file.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source_file, target_file)
                report.files += 1
    migrate()
    for _, note in restored.send(sender=None):
        if note:
            report.notes.append(str(note))
    report.counts = row_counts()
    missing = {
        label: (count, report.counts.get(label_now(label), 0))
        for label, count in manifest["counts"].items()
        if report.counts.get(label_now(label), 0) < count
    }
    if missing:
        lines = ", ".join(
            f"{k}: {had} in the backup, {got} now" for k, (had, got) in missing.items()
        )
        raise BackupError(f"The restore is incomplete: {lines}.")
    return report
