"""Gold sets: loaders for the public benchmarks in ../shared/data and for our own QA format.

Every loader returns ``GoldItem`` records: a question asked of a list of documents (absolute
paths of UTF-8 text files, the measurement door's convention), with what counts as finding the
answer: gold character spans (CUAD, ContractNLI, our QA quotes), gold node ids (our QA), relevant
documents (AILA), and for answer sets a reference answer with must-contain / must-not-claim
phrases and an out-of-scope flag for the controls whose answer is in no document.

Samples are deterministic (a fixed stride over a sorted list), so two runs of the same gold set
ask the same questions. Nothing here indexes or embeds; it only reads files.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from legalnav.evaluation import splits

QA_DEFAULT = Path(__file__).resolve().parent / "gold" / "demo_qa.jsonl"

# CUAD's answers that are short facts (a law, a date, a period), scored by key facts.
CUAD_FACT_CATEGORIES = (
    "Governing Law",
    "Agreement Date",
    "Effective Date",
    "Expiration Date",
    "Renewal Term",
    "Notice Period To Terminate Renewal",
)
# spans.jsonl spells some categories differently from CUAD's README, where the descriptions are.
_CUAD_ALIASES = {
    "notice period to terminate renewal": "notice to terminate renewal",
    "rofr/rofo/rofn": "right of first refusal, offer or negotiation (rofr/rofo/rofn)",
    "price restrictions": "price restriction",
    "affiliate license-licensor": "affiliate ip license-licensor",
    "affiliate license-licensee": "affiliate ip license-licensee",
    "unlimited/all-you-can-eat-license": "unlimited/all-you-can-eat license",
}


class GoldError(ValueError):
    """A gold file that cannot be used: the message names the file, line and field."""


def data_dir() -> Path:
    """The shared data folder: ``settings.DATA_DIR`` (``LEGALNAV_DATA_DIR``, else
    ../shared/data beside the repo), read at each call so that a test may override it."""
    return Path(settings.DATA_DIR)


@dataclass(slots=True)
class GoldItem:
    id: str
    dataset: str
    question: str
    documents: list[str]
    spans: list[tuple[int, int, int]] = field(default_factory=list)  # (document, start, end)
    nodes: list[tuple[int, str]] = field(default_factory=list)  # (document, node id)
    relevant: dict[int, int] = field(default_factory=dict)  # document -> grade (unit=document)
    reference: str = ""
    must_contain: list[str] = field(default_factory=list)
    must_not_claim: list[str] = field(default_factory=list)
    out_of_scope: bool = False
    unit: str = "span"
    meta: dict[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _stride_sample(items: list, n: int | None) -> list:  # type: ignore[type-arg]
    """At most n items spread evenly over the list (all of them when n is None or larger)."""
    if n is None or n >= len(items):
        return items
    if n <= 0:
        return []
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


# --- CUAD ------------------------------------------------------------------------------------


def cuad_descriptions(folder: Path | None = None) -> dict[str, str]:
    """Category (lower case) -> CUAD's own description of it, from its README."""
    readme = ((folder or data_dir()) / "cuad" / "CUAD_v1_README.txt").read_text(encoding="utf-8")
    return {
        m.group(1).strip().lower(): m.group(2).strip()
        for m in re.finditer(r"Category:\s*(.+?)\r?\n\s*Description:\s*(.+?)\r?\n", readme)
    }


def cuad_items(
    *,
    contracts: int | None = 40,
    categories: Iterable[str] | None = None,
    folder: Path | None = None,
) -> list[GoldItem]:
    """CUAD clause questions: one per (contract, category) with a located gold span.

    The question is the category with CUAD's description of it ("Governing Law: Which
    state/country's law governs the interpretation of the contract?"); the sample is every
    tenth contract in name order, the first ``contracts`` of them (the data README's 40-contract
    sample). ``categories`` keeps only those (e.g. ``CUAD_FACT_CATEGORIES``).
    """
    base = folder or data_dir()
    desc = cuad_descriptions(base)
    wanted = {c.lower() for c in categories} if categories else None
    rows = [
        json.loads(line)
        for line in (base / "cuad" / "spans.jsonl").open(encoding="utf-8")
        if line.strip()
    ]
    names = sorted({r["doc"] for r in rows})
    sample = set(splits.cuad_dev(names, contracts) if contracts is not None else names)
    items = []
    for r in rows:
        category = r["category"]
        key = category.lower()
        if r["doc"] not in sample or (wanted is not None and key not in wanted):
            continue
        description = desc.get(_CUAD_ALIASES.get(key, key))
        spans = [(0, s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None]
        if not spans or description is None:
            continue
        items.append(
            GoldItem(
                id=f"cuad:{r['doc']}:{category}",
                dataset="cuad",
                question=f"{category}: {description}",
                documents=[str(base / "cuad" / "contracts" / r["doc"])],
                spans=spans,
                reference=r.get("answer", ""),
                meta={"category": category},
            )
        )
    return items


# --- ContractNLI -----------------------------------------------------------------------------


def contractnli_items(
    *, limit: int | None = 300, folder: Path | None = None, texts_dir: Path | None = None
) -> list[GoldItem]:
    """ContractNLI dev hypotheses that have evidence spans (Entailment or Contradiction), the
    hypothesis as the question. The NDAs live inside dev.json; each is written once to
    ``texts_dir`` (default var/evaluation/contractnli) so that it has a path like any document.
    """
    base = folder or data_dir()
    out_dir = texts_dir or Path(settings.VAR_DIR) / "evaluation" / "contractnli"
    out_dir.mkdir(parents=True, exist_ok=True)
    dev = json.loads((base / "contractnli" / "dev.json").read_text(encoding="utf-8"))
    paths: dict[int, str] = {}
    for doc in dev["documents"]:
        path = out_dir / f"{doc['id']}.txt"
        data = doc["text"].encode("utf-8")
        if not path.exists() or path.read_bytes() != data:
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        paths[doc["id"]] = str(path)
    items = []
    for line in (base / "contractnli" / "dev_flat.jsonl").open(encoding="utf-8"):
        if not line.strip():
            continue
        r = json.loads(line)
        if not r["evidence_char_spans"]:
            continue
        items.append(
            GoldItem(
                id=f"cnli:{r['doc_id']}:{r['hypothesis_id']}",
                dataset="contractnli",
                question=r["hypothesis"],
                documents=[paths[r["doc_id"]]],
                spans=[(0, int(s), int(e)) for s, e in r["evidence_char_spans"]],
                meta={"label": r["label"], "hypothesis_id": r["hypothesis_id"]},
            )
        )
    items.sort(key=lambda i: i.id)
    return _stride_sample(items, limit)


# --- AILA ------------------------------------------------------------------------------------


def aila_items(*, folder: Path | None = None, statutes: bool = False) -> list[GoldItem]:
    """AILA 2019 dev (Q1–Q10): rank the prior-case judgments (or the statutes) for a fact
    situation; the qrels' relevant documents (grade > 0) are the gold. Every query is asked of
    the whole collection, so each item lists all its documents."""
    base = (folder or data_dir()) / "judgments" / "aila2019"
    sub, qrels = (
        ("statutes", "qrels_statutes_dev.txt")
        if statutes
        else ("casedocs", "qrels_priorcases_dev.txt")
    )
    docs = sorted((base / sub).glob("*.txt"), key=lambda p: (len(p.stem), p.stem))
    position = {p.stem: i for i, p in enumerate(docs)}
    relevant: dict[str, dict[int, int]] = {}
    for n, line in enumerate((base / qrels).open(encoding="utf-8"), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            raise GoldError(f"{qrels} line {n}: expected 'query Q0 doc relevance'")
        query, _, doc, grade = parts
        if int(grade) > 0 and doc in position:
            relevant.setdefault(query, {})[position[doc]] = int(grade)
    paths = [str(p) for p in docs]
    items = []
    for line in (base / "queries_dev.txt").open(encoding="utf-8"):
        if "||" not in line:
            continue
        query, text = line.split("||", 1)
        items.append(
            GoldItem(
                id=f"aila:{'statutes' if statutes else 'cases'}:{query.strip()}",
                dataset="aila",
                question=text.strip(),
                documents=paths,
                relevant=relevant.get(query.strip(), {}),
                unit="document",
                meta={"query": query.strip()},
            )
        )
    return items


# --- Overruling ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LabelledSentence:
    text: str
    overrules: bool


def overruling_items(*, folder: Path | None = None) -> list[LabelledSentence]:
    """LegalBench "overruling": sentences of US opinions, labelled Yes when the sentence
    overrules an earlier case (the adverse-treatment signal a research answer must not miss)."""
    path = (folder or data_dir()) / "overruling" / "train.tsv"
    out = []
    for n, line in enumerate(path.open(encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if n == 1 or not line:
            continue  # the header
        label, _, text = line.partition("\t")
        if label not in ("Yes", "No") or not text:
            raise GoldError(f"{path.name} line {n}: expected 'Yes|No<TAB>sentence'")
        out.append(LabelledSentence(text=text, overrules=label == "Yes"))
    return out


# --- our QA format ---------------------------------------------------------------------------

QA_FIELDS = {
    "id": str,
    "question": str,
    "documents": list,
    "reference": str,
    "gold_nodes": list,
    "gold_quotes": list,
    "must_contain": list,
    "must_not_claim": list,
    "out_of_scope": bool,
    "category": str,
    "note": str,
}
QA_REQUIRED = ("id", "question", "documents", "reference")


def _resolve(document: str, root: Path) -> Path:
    path = Path(document)
    return path if path.is_absolute() else root / path


def _read_text(path: Path) -> str:
    with path.open("rb") as fh:
        return fh.read().decode("utf-8")


def _locate(quote: str, text: str) -> tuple[int, int] | None:
    """Where a verbatim quote sits in the text; runs of white space may differ (hard wraps)."""
    at = text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    pattern = r"\s+".join(re.escape(w) for w in quote.split())
    m = re.search(pattern, text) if pattern else None
    return (m.start(), m.end()) if m else None


def _doc_of(entry: object, what: str, where: str, index: dict[str, int], root: Path) -> int:
    """The position, among the question's documents, of the document a gold entry names."""
    if not isinstance(entry, dict) or not isinstance(entry.get("document"), str):
        raise GoldError(f"{where}: each of '{what}' needs a 'document'")
    resolved = str(_resolve(entry["document"], root))
    if resolved not in index:
        raise GoldError(f"{where}: {what} names {entry['document']}, not a document of it")
    return index[resolved]


def qa_items(path: Path | None = None, *, root: Path | None = None) -> list[GoldItem]:
    """Our QA gold set, JSON lines:

    ``{"id", "question", "documents": ["demo/documents/x.txt", ...], "reference",
    "gold_nodes": [{"document": "demo/documents/x.txt", "node": "s9.10"}],
    "gold_quotes": [{"document": "...", "text": "verbatim text of the governing provision"}],
    "must_contain": [...], "must_not_claim": [...], "out_of_scope": false, "category", "note"}``

    Document paths are relative to the repository (or absolute). Every quote must be found in
    its document: it becomes a gold span, so the set still scores when the parser's node ids
    change. A bad line raises ``GoldError`` naming the line and the field.
    """
    path = path or QA_DEFAULT
    root = root or Path(settings.BASE_DIR)
    items, seen = [], set()
    texts: dict[Path, str] = {}
    for n, line in enumerate(path.open(encoding="utf-8"), 1):
        if not line.strip():
            continue
        where = f"{path.name} line {n}"
        row = _qa_row(line, where)
        if row["id"] in seen:
            raise GoldError(f"{where}: id '{row['id']}' is used twice")
        seen.add(row["id"])
        items.append(_qa_item(row, where=where, root=root, texts=texts))
    return items


def _qa_row(line: str, where: str) -> dict[str, Any]:
    """One line of the QA set, checked against QA_FIELDS and QA_REQUIRED."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise GoldError(f"{where}: not JSON ({exc.msg})") from exc
    if not isinstance(row, dict):
        raise GoldError(f"{where}: each line must be a JSON object")
    for name in QA_REQUIRED:
        if name not in row:
            raise GoldError(f"{where}: '{name}' is required")
    for name, value in row.items():
        kind = QA_FIELDS.get(name)
        if kind is None:
            raise GoldError(f"{where}: unknown field '{name}'")
        if not isinstance(value, kind):
            raise GoldError(f"{where}: '{name}' must be a {kind.__name__}")
    return row


def _qa_item(row: dict[str, Any], *, where: str, root: Path, texts: dict[Path, str]) -> GoldItem:
    """The gold item of a checked row: its documents must exist, its quotes be found in
    them. ``texts`` keeps the documents' texts across rows."""
    if not row["documents"]:
        raise GoldError(f"{where}: 'documents' is empty")
    documents = [_resolve(name, root) for name in row["documents"]]
    for path_ in documents:
        if not path_.is_file():
            raise GoldError(f"{where}: document {path_} does not exist")
    index = {str(path_): i for i, path_ in enumerate(documents)}
    spans = _qa_spans(row, where=where, root=root, documents=documents, index=index, texts=texts)
    nodes: list[tuple[int, str]] = []
    for entry in row.get("gold_nodes", []):
        d = _doc_of(entry, "gold_nodes", where, index, root)
        if not isinstance(entry.get("node"), str):
            raise GoldError(f"{where}: a gold node needs its 'node' id")
        nodes.append((d, entry["node"]))
    out_of_scope = bool(row.get("out_of_scope", False))
    if not out_of_scope and not (spans or nodes):
        raise GoldError(f"{where}: a question in scope needs gold_quotes or gold_nodes")
    return GoldItem(
        id=row["id"],
        dataset="qa",
        question=row["question"],
        documents=[str(d) for d in documents],
        spans=spans,
        nodes=nodes,
        reference=row["reference"],
        must_contain=list(row.get("must_contain", [])),
        must_not_claim=list(row.get("must_not_claim", [])),
        out_of_scope=out_of_scope,
        meta={"category": row.get("category", ""), "note": row.get("note", "")},
    )


def _qa_spans(
    row: dict[str, Any],
    *,
    where: str,
    root: Path,
    documents: list[Path],
    index: dict[str, int],
    texts: dict[Path, str],
) -> list[tuple[int, int, int]]:
    """The row's gold quotes as (document, start, end) spans of its documents' texts."""
    spans: list[tuple[int, int, int]] = []
    for quote in row.get("gold_quotes", []):
        d = _doc_of(quote, "gold_quotes", where, index, root)
        if not isinstance(quote.get("text"), str) or not quote["text"].strip():
            raise GoldError(f"{where}: a gold quote needs its 'text'")
        text = texts.setdefault(documents[d], _read_text(documents[d]))
        found = _locate(quote["text"], text)
        if found is None:
            raise GoldError(
                f"{where}: quote not found in {row['documents'][d]}: {quote['text'][:80]!r}"
            )
        spans.append((d, *found))
    return spans


GOLD_SETS = ("cuad", "cuad-facts", "contractnli", "qa", "aila")


def load(
    name: str,
    *,
    contracts: int | None = 40,
    limit: int | None = None,
    path: Path | None = None,
) -> list[GoldItem]:
    """A gold set by name: cuad, cuad-facts (CUAD's short-fact categories, with references),
    contractnli, qa (our JSONL; ``path`` for another file) or aila (prior cases)."""
    if name == "cuad":
        items = cuad_items(contracts=contracts)
    elif name == "cuad-facts":
        items = cuad_items(contracts=contracts, categories=CUAD_FACT_CATEGORIES)
    elif name == "contractnli":
        return contractnli_items(limit=limit if limit is not None else 300)
    elif name == "qa":
        items = qa_items(path)
    elif name == "aila":
        items = aila_items()
    else:
        raise GoldError(f"unknown gold set '{name}'; use one of {', '.join(GOLD_SETS)}")
    return _stride_sample(items, limit)
