"""The table of Django's database cache (``CACHES["default"]`` when no ``REDIS_URL`` is set),
which holds the rate-limit counters. Created here, rather than by ``createcachetable``, so that
``migrate`` alone readies a fresh machine, a test database, or a later switch away from Redis."""

from __future__ import annotations

from typing import Any

from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations

CACHE_TABLE = "legalnav_cache"  # settings.CACHES names the same table


def create(apps: Any, schema_editor: Any) -> None:
    # Skips a table that exists (one made by hand with createcachetable, say).
    command = CreateCacheTable()
    command.verbosity = 0
    command.create_table(schema_editor.connection.alias, CACHE_TABLE, dry_run=False)


def drop(apps: Any, schema_editor: Any) -> None:
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(CACHE_TABLE)}")


class Migration(migrations.Migration):
    initial = True
    dependencies: list[tuple[str, str]] = []
    operations = [migrations.RunPython(create, drop, elidable=False)]
