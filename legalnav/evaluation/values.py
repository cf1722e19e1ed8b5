"""Scoring a review-grid cell's *value* against CUAD's normalised answer.

RETRIEVE-PROTOCOL.md, "How values are scored": beside its spans, a cell's value is compared with
the ``answer`` field of ``cuad/spans.jsonl`` ("New York", "5/8/14", "perpetual", "successive 1
year", "30 days", "Yes"/"No", the parties with their roles). A cell with no spans is "not found";
where the answer is empty, "not found" is right.

This module is the project's own check of that rule, written from the protocol and independent
of the product's extractors (it parses values with its own small readers), so a change to an
extractor cannot quietly change how it is judged. ``judge_value`` returns True (right), False
(wrong) or None (not scored: an answer that is no date, "[]/[]/2013", a duration answer that is
a date).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

DATE_KEYS = ("Agreement Date", "Effective Date", "Expiration Date")
DURATION_KEYS = ("Renewal Term", "Notice Period To Terminate Renewal")
PARTY_KEYS = ("Parties",)
LAW_KEYS = ("Governing Law",)
TYPED_KEYS = DATE_KEYS + PARTY_KEYS + DURATION_KEYS + LAW_KEYS
KIND_OF = {
    **{k: "dates" for k in DATE_KEYS},
    **{k: "durations" for k in DURATION_KEYS},
    **{k: "parties" for k in PARTY_KEYS},
    **{k: "jurisdiction" for k in LAW_KEYS},
}
NOT_FOUND = "not found"

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = r"(?P<month>" + "|".join(m[:3] + r"[a-z]*" for m in _MONTHS) + r")\.?"


def _year(raw: str) -> int:
    y = int(raw)
    return y + (2000 if y < 50 else 1900) if y < 100 else y


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def dates_in(text: str) -> set[dt.date]:
    """Every full calendar date written in the text: ISO, m/d/y, 'May 8, 2014', '8 May 2014'."""
    out: set[dt.date] = set()
    for m in re.finditer(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", text):
        d = _date(int(m[1]), int(m[2]), int(m[3]))
        if d:
            out.add(d)
    for m in re.finditer(r"\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b", text):
        d = _date(_year(m[3]), int(m[1]), int(m[2]))
        if d:
            out.add(d)
    month_names = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)}
    for rx in (
        _MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})",
        r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?" + _MONTH + r",?\s+(?P<year>\d{4})",
    ):
        for m in re.finditer(rx, text, re.I):
            month = month_names.get(m["month"][:3].lower())
            d = _date(int(m["year"]), month, int(m["day"])) if month else None
            if d:
                out.add(d)
    return out


def answer_date(answer: str) -> dt.date | None:
    """CUAD's 'm/d/yy' answer as a date; None for '[]/[]/2013' and anything else."""
    m = re.fullmatch(r"\s*(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\s*", answer)
    return _date(_year(m[3]), int(m[1]), int(m[2])) if m else None


_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_WORDS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}


def lengths_in(text: str) -> set[int]:
    """Every length of time written in the text, in days (a month is 30, a year 365), so that
    '12 months' and '1 year' are told apart only by a few days: both are kept as written and
    compared with a tolerance."""
    return {n for _, n in _length_matches(text)}


def _length_matches(text: str) -> list[tuple[re.Match[str], int]]:
    out = []
    rx = (
        r"\b(\d{1,4}|"
        + "|".join(_WORDS)
        + r"|a|an|one)[\s\-]+(?:\(\d+\)\s*)?(?:business\s+|calendar\s+)?(day|week|month|year)s?\b"
    )
    for m in re.finditer(rx, text, re.I):
        raw = m[1].lower()
        n = int(raw) if raw.isdigit() else _WORDS.get(raw, 1)
        out.append((m, n * _UNIT_DAYS[m[2].lower()]))
    return out


def _first_length(text: str) -> int | None:
    found = sorted((m.start(), n) for m, n in _length_matches(text))
    return found[0][1] if found else None


def _same_length(a: int, b: int) -> bool:
    # 12 months (360) is a year (365); 52 weeks (364) too.
    return abs(a - b) <= max(6, 0.02 * max(a, b))


_SUFFIXES = {
    "inc", "incorporated", "corp", "corporation", "co", "company", "llc", "l", "c", "ltd",
    "limited", "lp", "p", "llp", "plc", "gmbh", "ag", "sa", "s", "a", "nv", "bv", "ab", "the",
    "pte", "pty", "and", "of", "d", "b", "inc.", "de", "cv",
}  # fmt: skip


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower().replace("’", "'").replace("'", ""))


def answer_parties(answer: str) -> list[str]:
    """The party names of CUAD's answer 'X ("Role"); Y ("Role")': collective entries ('Lender,
    Endorser and Fitness ("AS Parties")', '(each a "Party")') and blanks ('[]') are left out."""
    names: list[str] = []
    roles: set[str] = set()
    for part in answer.split(";"):
        part = part.strip().lstrip("(").strip()
        name = re.split(r"[(“”\"]", part, maxsplit=1)[0].strip(" ,.")
        if "[" in name or re.search(r"\b(?:collectively|each|individually|together)\b", part, re.I):
            continue
        # 'Lender, Endorser and Fitness ("AS Parties")' gathers parties already named.
        if {t for t in _tokens(name) if t != "and"} <= roles:
            continue
        roles.update(_tokens(" ".join(re.findall(r"[“\"]([^”\"]+)[”\"]", part))))
        names.append(name)
    return [n for n in names if [t for t in _tokens(n) if t not in _SUFFIXES]]


def party_named(name: str, value: str) -> bool:
    """The party's distinctive words all appear in the value (entity suffixes aside)."""
    want = [t for t in _tokens(name) if t not in _SUFFIXES]
    have = set(_tokens(value))
    return bool(want) and all(t in have for t in want)


def judge_value(key: str, answer: str, value: str, found: bool) -> bool | None:
    """Whether a cell's value is right for CUAD's answer (see the module docstring)."""
    answer = answer.strip()
    value = value if found else NOT_FOUND
    if not answer:
        return not found
    if key in DATE_KEYS:
        if answer.lower() == "perpetual":
            return found and bool(re.search(r"\bperpetu", value, re.I))
        gold = answer_date(answer)
        if gold is None:
            return None
        return found and gold in dates_in(value)
    if key in DURATION_KEYS:
        first = _first_length(answer.split(";")[0])
        if first is None:
            return None
        return found and any(_same_length(first, n) for n in lengths_in(value))
    if key in PARTY_KEYS:
        names = answer_parties(answer)
        if not names:
            return None
        return found and all(party_named(n, value) for n in names)
    if key in LAW_KEYS:
        place = answer.split(";")[0].split(",")[0].strip()
        return found and place.lower() in value.lower()
    if answer in ("Yes", "No"):
        return value.startswith("Yes") == (answer == "Yes")
    return None


@dataclass(slots=True)
class ValueJudged:
    doc: str
    key: str
    answer: str
    value: str
    right: bool | None


def judge_cells(
    answers: Mapping[tuple[str, str], str],
    cells_by_doc: Mapping[str, Sequence[Mapping[str, object]]],
    docs: Iterable[str],
) -> list[ValueJudged]:
    """Every (document, category) with an answer row, judged; a missing cell is 'not found'."""
    out = []
    for doc in docs:
        cells = {str(c["key"]): c for c in cells_by_doc.get(doc, [])}
        for (d, key), answer in answers.items():
            if d != doc:
                continue
            cell = cells.get(key, {})
            found = bool(cell.get("spans"))
            value = str(cell.get("value", NOT_FOUND))
            out.append(ValueJudged(doc, key, answer, value, judge_value(key, answer, value, found)))
    return out


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else (1.0 if not (fp or fn) else 0.0)


def value_figures(judged: Sequence[ValueJudged]) -> dict[str, object]:
    """The figures of the issue's table: share right per typed kind and overall, and for yes/no
    columns accuracy and F1 of 'Yes' pooled and averaged over columns (columns with no 'Yes' in
    the answers and none predicted count as F1 1.0 only when nothing was said Yes; a column with
    neither gold nor predicted Yes is left out of the average)."""
    kinds: dict[str, list[bool]] = defaultdict(list)
    per_key: dict[str, list[bool]] = defaultdict(list)
    yn: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for j in judged:
        if j.key in KIND_OF:
            if j.right is not None:
                kinds[KIND_OF[j.key]].append(j.right)
                per_key[j.key].append(j.right)
        elif j.answer in ("Yes", "No"):
            yn[j.key].append((j.answer == "Yes", j.value.startswith("Yes")))
    typed = [r for rs in kinds.values() for r in rs]
    out: dict[str, object] = {
        "typed_right": sum(typed) / len(typed) if typed else float("nan"),
        "typed_n": len(typed),
        **{f"{k}_right": sum(v) / len(v) for k, v in sorted(kinds.items())},
        "per_key": {k: round(sum(v) / len(v), 3) for k, v in sorted(per_key.items())},
    }
    tp = fp = fn = right = total = 0
    f1s: dict[str, float] = {}
    for key, pairs in sorted(yn.items()):
        ktp = sum(g and p for g, p in pairs)
        kfp = sum(p and not g for g, p in pairs)
        kfn = sum(g and not p for g, p in pairs)
        tp, fp, fn = tp + ktp, fp + kfp, fn + kfn
        right += sum(g == p for g, p in pairs)
        total += len(pairs)
        if ktp or kfp or kfn:
            f1s[key] = _f1(ktp, kfp, kfn)
    out["yes_no_accuracy"] = right / total if total else float("nan")
    out["yes_no_all_no_accuracy"] = (
        sum(not g for pairs in yn.values() for g, _ in pairs) / total if total else float("nan")
    )
    out["yes_f1_pooled"] = _f1(tp, fp, fn)
    out["yes_f1_mean"] = sum(f1s.values()) / len(f1s) if f1s else float("nan")
    out["yes_f1_per_key"] = {k: round(v, 3) for k, v in f1s.items()}
    return out


def cuad_answers(
    rows: Iterable[Mapping[str, object]], docs: set[str]
) -> dict[tuple[str, str], str]:
    """(document, category) -> CUAD's normalised answer, for the given documents."""
    return {
        (str(r["doc"]), str(r["category"])): str(r.get("answer") or "")
        for r in rows
        if r["doc"] in docs
    }
