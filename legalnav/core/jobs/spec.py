"""What the job lifecycle knows about each kind of job: its ``JobSpec``, the registry the apps
add theirs to, and the settings every part of the lifecycle reads (see ``legalnav.core.jobs``)."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

from django.apps import apps
from django.conf import settings
from django.db import OperationalError
from django.db.models import Model

# Errors that say "try the same thing again in a moment", not "this job is broken".
TRANSIENT: tuple[type[BaseException], ...] = (OperationalError,)


@dataclass(frozen=True)
class JobSpec:
    """What the lifecycle needs to know about one kind of job."""

    kind: str  # "document" | "question" | "grid" | "evaluation": the name in URLs, API and MCP
    model: str  # app_label.ModelName
    task: str  # the Celery task that runs it (takes the row id)
    execute: str  # dotted path of ``fn(pk, owner) -> str``: claims, works, finishes
    noun: str  # "indexing", "answering", "the evaluation run": for messages
    queued: str = "queued"
    running: str = "running"
    done: str = "done"
    failed: str = "failed"
    cancelled: str = "cancelled"
    # What an expired lease becomes when the attempts are spent ("failed", or "interrupted" for
    # an evaluation run that can be resumed from where it stopped).
    abandoned: str = "failed"
    # Whether the sweeper restarts a job whose worker died (attempts permitting), or ends it as
    # ``abandoned`` at once for a person to resume (an evaluation run can take hours).
    requeue_abandoned: bool = True
    # Dotted path of ``fn(row) -> bool``: whether a running job whose own lease has lapsed is
    # still being worked on elsewhere (a grid whose chunks, jobs of their own, are filling it).
    alive: str = ""

    def model_class(self) -> type[Model]:
        return apps.get_model(self.model)

    @property
    def open_statuses(self) -> tuple[str, str]:
        return (self.queued, self.running)


# Every kind of job, registered by the app that owns it (in its AppConfig.ready(), from its own
# jobs.py), so this module names no app above it.
SPECS: dict[str, JobSpec] = {}


def register_job(spec: JobSpec) -> None:
    """Add a kind of job to the lifecycle (idempotent for the same spec; a second, different
    spec of the same kind is a programming error)."""
    known = SPECS.get(spec.kind)
    if known is not None and known != spec:
        raise ValueError(f"job kind {spec.kind!r} is already registered as {known!r}")
    SPECS[spec.kind] = spec


def spec_for(kind: str) -> JobSpec:
    try:
        return SPECS[kind]
    except KeyError:
        raise ValueError(f"unknown job kind {kind!r}") from None


def lease_seconds() -> int:
    return int(settings.JOB_LEASE_SECONDS)


def max_attempts() -> int:
    return int(settings.JOB_MAX_ATTEMPTS)


def new_owner(prefix: str = "inline") -> str:
    """A holder name for work not run by a Celery task: where it runs, and a fresh id."""
    return f"{prefix}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def has_field(spec: JobSpec, name: str) -> bool:
    try:
        spec.model_class()._meta.get_field(name)
    except Exception:
        return False
    return True
