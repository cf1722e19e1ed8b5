"""The loading commands' shared options: ``--matter`` (an id, or a name that opens a new matter)
and ``--owner``, and the matter they name (``matters.actions.matter_for_command``, with a
``CommandError`` for what it cannot find)."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.management.base import CommandError, CommandParser

from legalnav.matters.actions import matter_for_command
from legalnav.matters.models import Matter


def add_matter_options(parser: CommandParser) -> None:
    """The loading commands' ``--matter`` (an id, or a name: a new name opens the matter) and
    ``--owner``, read back by ``matter_from_options``."""
    parser.add_argument(
        "--matter", required=True, help="Matter id or name (a new name creates it)."
    )
    parser.add_argument(
        "--owner",
        default="",
        help="Make this user an owner of the matter, so it is on their list of matters.",
    )


def matter_from_options(opts: Mapping[str, object], *, kind: str = "") -> tuple[Matter, bool]:
    """``matter_for_command`` for the options of ``add_matter_options``: the matter and whether
    it was opened just now; CommandError for an unknown id or owner."""
    try:
        return matter_for_command(ref=str(opts["matter"]), kind=kind, owner=str(opts["owner"]))
    except LookupError as exc:
        raise CommandError(str(exc)) from None
