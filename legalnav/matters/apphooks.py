"""What an app hooks into the matter's life from its ``AppConfig.ready()``, in one call.

``matters`` and ``core`` cannot import the apps above them (the layer contract in
pyproject.toml), so each app registers what it owns: its kinds of job (core/jobs/), its audit
verbs (matters/audit.py), its part of a matter's purge (matters/signals.py) and of the handover
zip (matters/handover.py). ``hook_app`` does the four the same way for every app::

    hook_app("answers", jobs=JOBS, verbs=Verb.choices, purge=purge_matter_answers, handover=PART)

where the app's ``handover.py`` declares its ``PART = HandoverPart(20, "answers/: ...",
answers_part)`` beside the function that writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from legalnav.core.jobs import register_job
from legalnav.matters.audit import register_verbs
from legalnav.matters.handover import Part, register
from legalnav.matters.signals import matter_purging

if TYPE_CHECKING:
    from legalnav.core.jobs import JobSpec


@dataclass(frozen=True)
class HandoverPart:
    """The app's part of the handover zip: its place in the zip's README (``order``), the line
    there that ``describes`` it, and the function that yields its entries."""

    order: int
    describes: str
    entries: Part


def hook_app(
    app: str,
    *,
    jobs: Iterable[JobSpec] = (),
    verbs: Iterable[tuple[str, str]] = (),
    in_matter: bool = True,
    purge: Callable[..., object] | None = None,
    handover: HandoverPart | None = None,
) -> None:
    """Register the app's jobs and audit verbs (``in_matter``: see ``register_verbs``), connect
    its ``purge`` receiver to ``matter_purging`` (dispatch uid ``legalnav-<app>-purge``) and
    register its handover part under the app's name."""
    for spec in jobs:
        register_job(spec)
    register_verbs(verbs, in_matter=in_matter)
    if purge is not None:
        matter_purging.connect(purge, dispatch_uid=f"legalnav-{app}-purge")
    if handover is not None:
        register(app, order=handover.order, describes=handover.describes)(handover.entries)
