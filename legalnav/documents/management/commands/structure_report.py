"""Parse a folder of real agreements and report structure recall and cross-reference resolution."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from legalnav.documents.parsing import parse_document
from legalnav.documents.parsing.extract import ExtractionError, extract_text
from legalnav.documents.quality import QualityTotals, add_document

DEFAULT = settings.DATA_DIR / "agreements" / "edgar2020"


class Command(BaseCommand):
    help = "Structure recall against each document's own table of contents, and xref resolution."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folders", nargs="*", default=[str(DEFAULT)])
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        totals = QualityTotals()
        for folder in opts["folders"]:  # type: ignore[attr-defined]
            for path in sorted(Path(folder).glob("*.txt")):
                try:
                    text = extract_text(path.read_bytes(), path.name, max_bytes=1 << 30).text
                    parsed = parse_document(text)
                except (ExtractionError, Exception) as exc:  # report every failure, keep going
                    totals.failures.append((path.name, repr(exc)))
                    continue
                add_document(totals, path.name, text, parsed)
        report = {
            "documents": totals.documents,
            "failures": totals.failures,
            "toc": {
                "documents_with_toc": totals.toc_documents,
                "entries": totals.toc_entries,
                "found_as_nodes": totals.toc_found,
                "recall": round(totals.toc_recall, 4),
                "worst": [
                    {"document": n, "recall": round(r, 3), "entries": e}
                    for r, n, e in sorted(totals.worst_toc)[:8]
                ],
            },
            "cross_references": {
                "counts": dict(totals.refs),
                "resolution_where_target_exists": round(totals.xref_resolution, 4),
                "unresolved_examples": totals.unresolved_examples,
            },
        }
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        w = self.stdout.write
        w(f"documents parsed           {totals.documents} ({len(totals.failures)} failed)")
        for name, err in totals.failures:
            w(f"  FAILED {name}: {err}")
        w(
            f"structure recall (TOC)     {totals.toc_found}/{totals.toc_entries} = {totals.toc_recall:.1%} "
            f"over {totals.toc_documents} documents with a table of contents"
        )
        for item in report["toc"]["worst"]:  # type: ignore[index]
            w(f"  lowest: {item['document']} {item['recall']:.0%} of {item['entries']}")
        c = totals.refs
        w(
            f"section/article references resolved {c['resolved']}, target exists but unresolved "
            f"{c['unresolved_target_exists']} -> {totals.xref_resolution:.1%}"
        )
        w(
            f"  not counted: other instrument {c['other_instrument']}, statute {c['external_statute']}, "
            f"target absent from text {c['missing_target']}"
        )
        for kind in ("schedule", "exhibit", "annex", "appendix", "clause"):
            r, u = c[f"{kind}_resolved"], c[f"{kind}_unresolved"]
            if r or u:
                w(f"  {kind} references: {r} resolved, {u} unresolved")
        for bucket, examples in totals.unresolved_examples.items():
            w(f"  examples, {bucket}: " + "; ".join(examples[:6]))
