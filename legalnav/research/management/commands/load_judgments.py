"""Load a folder of judgments into a research matter: manage.py load_judgments FOLDER --matter NAME.

Each file is added as a judgment and indexed here (text, paragraph tree, case card); cited
cases are linked to judgments of the matter once, at the end. Loading the same files again is a
no-op (documents are keyed by content hash). For a large corpus, run with EMBED_ON_INDEX=0 and
let the first question embed (or reuse an index cache that already holds the vectors:
INDEX_CACHE_DIR), e.g. the 2,914 AILA 2019 judgments:

    INDEX_CACHE_DIR=var/retrieve-cache EMBED_ON_INDEX=0 manage.py load_judgments \
        ../shared/data/judgments/aila2019/casedocs --matter "AILA 2019"
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.documents.actions import DocumentRejected, document_upload
from legalnav.documents.models import Document
from legalnav.documents.parsing.extract import SUPPORTED_EXTENSIONS
from legalnav.matters.management.options import add_matter_options, matter_from_options
from legalnav.matters.models import Matter
from legalnav.research.actions import (
    case_card_enrich,
    case_cards_link,
    case_cards_refresh,
    deferred_linking,
)
from legalnav.research.models import CaseCard


def _natural(path: Path) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path.name))


class Command(BaseCommand):
    help = "Add a folder (or list) of judgments to a research matter and index them now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help="Folders of judgments, or files.")
        add_matter_options(parser)
        parser.add_argument("--limit", type=int, default=0, help="Load at most this many files.")
        parser.add_argument(
            "--names", default="", help="Only these file stems, comma-separated (e.g. C1,C14)."
        )
        parser.add_argument(
            "--enrich",
            action="store_true",
            help="Also ask Claude for issues, holdings and outcome, each quoted (needs a key).",
        )

    def handle(self, *args: object, **opts: object) -> None:
        matter, opened = matter_from_options(opts, kind=Matter.Kind.RESEARCH)
        if opened:
            self.stdout.write(f"Created research matter “{matter.name}” (id {matter.pk}).")
        if matter.kind != Matter.Kind.RESEARCH:
            raise CommandError(
                f"Matter “{matter.name}” is a {matter.get_kind_display().lower()}, not a research "
                "matter; load judgments into a research matter."
            )
        files: list[Path] = []
        for raw in opts["paths"]:  # type: ignore[attr-defined]
            path = Path(str(raw))
            if path.is_dir():
                files += sorted(
                    (p for p in path.iterdir() if p.suffix.lower() in SUPPORTED_EXTENSIONS),
                    key=_natural,
                )
            elif path.is_file():
                files.append(path)
            else:
                raise CommandError(f"{path}: no such file or folder.")
        names = {n.strip() for n in str(opts["names"]).split(",") if n.strip()}
        if names:
            files = [f for f in files if f.stem in names]
            missing = names - {f.stem for f in files}
            if missing:
                raise CommandError(f"Not found: {', '.join(sorted(missing))}.")
        if opts["limit"]:
            files = files[: int(opts["limit"])]  # type: ignore[call-overload]
        if not files:
            raise CommandError("No judgment files to load.")
        if opts["enrich"] and not settings.ANTHROPIC_API_KEY:
            raise CommandError("--enrich needs ANTHROPIC_API_KEY (Claude).")
        started = time.perf_counter()
        counts = {"indexed": 0, "unchanged": 0, "failed": 0, "enriched": 0}
        with deferred_linking():
            for n, path in enumerate(files, 1):
                try:
                    outcome = document_upload(
                        matter=matter,
                        user=None,
                        filename=path.name,
                        data=path.read_bytes(),
                        via="command",
                        here=True,
                        kind=Document.Kind.JUDGMENT,
                    )
                except (OSError, DocumentRejected) as exc:
                    counts["failed"] += 1
                    self.stderr.write(f"{path}: {getattr(exc, 'message', exc)}")
                    continue
                doc, index = outcome.document, outcome.index
                assert doc is not None and index is not None  # accepted and indexed here
                if index.status == "failed":
                    counts["failed"] += 1
                    self.stderr.write(f"{path}: {index.message}")
                else:
                    counts["indexed" if index.status == "indexed" else "unchanged"] += 1
                    if opts["enrich"] and not settings.LLM_ENRICH_ON_INDEX:
                        enrichment = case_card_enrich(document=doc)
                        counts["enriched"] += 1 if enrichment and "error" not in enrichment else 0
                if n % 100 == 0:
                    self.stdout.write(
                        f"{n}/{len(files)} files, {time.perf_counter() - started:.0f} s"
                    )
            reread = case_cards_refresh(matter=matter)  # linked with the rest, below
        if reread:
            self.stdout.write(f"{reread} case cards built by an older reader were read again.")
        linked = case_cards_link(matter=matter)
        cards = CaseCard.objects.filter(document__matter=matter).count()
        self.stdout.write(
            f"{counts['indexed']} indexed, {counts['unchanged']} unchanged, {counts['failed']} "
            f"failed in {time.perf_counter() - started:.0f} s; {cards} case cards in “{matter.name}”, "
            f"{linked} citations linked to judgments of the matter"
            + (f"; {counts['enriched']} enriched by Claude." if opts["enrich"] else ".")
        )
        if counts["failed"]:
            raise CommandError(f"{counts['failed']} of {len(files)} file(s) could not be loaded.")
