from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "legalnav.core"
    label = "core"

    def ready(self) -> None:
        from django.core.signals import request_started
        from django.db.backends.signals import connection_created

        from legalnav.core.sqlite import install_like

        # On the embedded default, background work runs in the web process: start its queues
        # and sweeper with the first request, so that jobs a previous process left queued or
        # half done are picked up after a restart without anyone having to poll them.
        request_started.connect(_start_local_runner, dispatch_uid="legalnav-local-runner")
        # SQLite's LIKE folds ASCII case only: searches and name clashes fold every script
        connection_created.connect(install_like, dispatch_uid="legalnav-sqlite-like")


def _start_local_runner(sender: Any, **kwargs: Any) -> None:
    from django.conf import settings

    if settings.TASK_RUNNER != "thread":
        return
    from legalnav.core.runner import local_runner

    local_runner().start()
