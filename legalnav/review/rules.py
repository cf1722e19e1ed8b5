"""Playbook rules: a firm's position on one grid column, and the verdict a cell gets against it.

Pure functions, no ORM: the measurement door (``manage.py extract --json``, RETRIEVE-PROTOCOL.md
"Playbook rules"), the playbook services and the tests all decide verdicts here, so a cell gets
the same verdict through every door.

A rule is one of (the protocol's JSON forms, plus ``words`` for what no typed rule expresses):

    {"allowed": ["New York", "Delaware"]}   text, party, jurisdiction: the value names one of them
    {"required": true} / {"forbidden": true} clause and yes/no columns: the provision is there
    {"min": "60 days"} / {"max": "1 year"}   duration and amount columns, with units or currency
    {"after": "2015-01-01"} / {"before": ...} date columns, ISO dates
    {"words": "the cap is at least twelve months of fees"}  read by Claude, else "review"

The verdict is ``meets``, ``deviates``, ``missing`` (nothing found for an allowed, min, max,
after or before rule; a required provision not found deviates, a forbidden one not found
meets) or ``review`` (the value cannot be read for the rule: a term stated as a period with no
start, a date without its day on the limit's month, an amount in another currency, a position
in words with no language model). Each verdict comes with its reason in words.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from legalnav.documents.parsing.values import (
    YEAR_ONLY,
    Amount,
    Duration,
    date_precision,
    extract_amount,
    extract_date,
    extract_duration,
)

MEETS, DEVIATES, MISSING, REVIEW = "meets", "deviates", "missing", "review"
VERDICTS = (MEETS, DEVIATES, MISSING, REVIEW)
VERDICT_LABELS = {
    MEETS: "Meets",
    DEVIATES: "Deviates",
    MISSING: "Missing",
    REVIEW: "Needs review",
}
KINDS = ("allowed", "required", "forbidden", "min", "max", "after", "before", "words")
KIND_LABELS = {
    "allowed": "must be one of",
    "required": "is required",
    "forbidden": "is not allowed",
    "min": "at least",
    "max": "at most",
    "after": "on or after",
    "before": "on or before",
    "words": "position in words",
}
# Which rule kinds fit which answer types (columns.ANSWER_TYPES). A yes/no or clause column is
# about whether a provision is there; a typed column about its value.
KINDS_FOR_TYPE = {
    "clause": ("required", "forbidden", "words"),
    "yes_no": ("required", "forbidden", "words"),
    "text": ("allowed", "required", "forbidden", "words"),
    "party": ("allowed", "required", "words"),
    "date": ("after", "before", "required", "words"),
    "duration": ("min", "max", "required", "forbidden", "words"),
    "amount": ("min", "max", "required", "forbidden", "words"),
}
SEVERITIES = ("high", "medium", "low")

# Days per unit, to compare periods written in different units ("12 months" is "1 year").
_DAYS = {"day": 1.0, "business day": 1.4, "week": 7.0, "month": 365.25 / 12, "year": 365.25}
_SAME = 0.02  # periods within 2% are the same length (12 months, 52 weeks, 365 days, 1 year)


class RuleError(ValueError):
    """A rule that cannot be applied as written; the message says what to change."""


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    values: tuple[str, ...] = ()  # allowed
    limit: str = ""  # min, max, after, before: as written; words: the position itself

    def as_json(self) -> dict[str, Any]:
        if self.kind == "allowed":
            return {"allowed": list(self.values)}
        if self.kind in ("required", "forbidden"):
            return {self.kind: True}
        return {self.kind: self.limit}

    def describe(self) -> str:
        """The rule in words, for pages and memos: 'must be one of New York, Delaware'."""
        if self.kind == "allowed":
            return f"must be one of {', '.join(self.values)}"
        if self.kind in ("required", "forbidden"):
            return KIND_LABELS[self.kind]
        if self.kind == "words":
            return self.limit
        return f"{KIND_LABELS[self.kind]} {self.limit}"


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: str
    reason: str


@dataclass(frozen=True, slots=True)
class CellFacts:
    """What a verdict reads of a cell: the value as shown (a reviewer's correction included),
    whether a provision was found, and the typed value when the filler read one and nobody
    corrected it (a date, Duration, Amount, "perpetual", a bool for yes/no, or their JSON)."""

    type: str
    value: str
    found: bool
    typed: object = None
    # Who gave the value: "" (the offline filler), "claude" (Claude, its quotation verified) or
    # "reviewer" (confirmed or corrected). A position in words is decided only by the last two.
    decided_by: str = ""


# --- reading rules ----------------------------------------------------------------------------


def parse_duration(text: str) -> Duration | None:
    got = extract_duration(text)
    return got.value if got is not None else None  # type: ignore[return-value]


def parse_amount(text: str) -> Amount | None:
    got = extract_amount(text)
    if got is not None:
        return got.value  # type: ignore[return-value]
    try:  # a bare number: "1000000", "1,000,000"
        return Amount(Decimal(text.strip().replace(",", "")), "")
    except InvalidOperation:
        return None


def parse_iso_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        return None


def parse_rule(raw: object, column_type: str, *, strict: bool = True) -> Rule:
    """A rule from its JSON form, checked against the column's answer type (``strict``: the
    playbook editor refuses a rule that does not fit its column; the measurement door applies
    it as well as the value allows)."""
    if not isinstance(raw, dict) or len(raw) != 1:
        raise RuleError(
            "a rule is one of {allowed: [...]}, {required: true}, {forbidden: true}, "
            "{min: ...}, {max: ...}, {after: ...}, {before: ...}, {words: ...}"
        )
    ((kind, arg),) = raw.items()
    if kind not in KINDS:
        raise RuleError(f"unknown rule {kind!r}; use one of {', '.join(KINDS)}")
    allowed_kinds = KINDS_FOR_TYPE.get(column_type, KINDS)
    if strict and kind not in allowed_kinds:
        raise RuleError(
            f"a {kind!r} rule does not fit a {column_type} column; use one of "
            f"{', '.join(allowed_kinds)}"
        )
    if kind == "allowed":
        if isinstance(arg, str):
            arg = [arg]
        if not isinstance(arg, list) or not arg or not all(isinstance(a, str) for a in arg):
            raise RuleError("'allowed' takes a non-empty list of values")
        values = tuple(a.strip() for a in arg if a.strip())
        if not values or any(len(a) > 200 for a in values) or len(values) > 50:
            raise RuleError("'allowed' takes 1 to 50 values of at most 200 characters")
        return Rule(kind, values=values)
    if kind in ("required", "forbidden"):
        if arg is not True:
            raise RuleError(f"'{kind}' takes true")
        return Rule(kind)
    if not isinstance(arg, str | int | float) or isinstance(arg, bool) or not str(arg).strip():
        raise RuleError(f"'{kind}' takes a value, written as text")
    limit = str(arg).strip()
    if len(limit) > 1000:
        raise RuleError(f"'{kind}' is at most 1000 characters")
    if kind == "words":
        return Rule(kind, limit=limit)
    if kind in ("after", "before"):
        if parse_iso_date(limit) is None:
            raise RuleError(f"'{kind}' takes an ISO date (2015-01-01), not {limit!r}")
        return Rule(kind, limit=limit)
    amount = parse_amount(limit)
    is_amount = amount is not None and amount.value is not None
    if column_type == "amount":
        if not is_amount:
            raise RuleError(
                f"'{kind}' takes an amount ('USD 1,000,000', '$5 million'), not {limit!r}"
            )
    elif parse_duration(limit) is None and (strict or not is_amount):
        raise RuleError(
            f"'{kind}' takes a period with its unit ('60 days', '1 year'), not {limit!r}"
        )
    return Rule(kind, limit=limit)


# --- reading cells ------------------------------------------------------------------------------

_PERPETUAL_RX = re.compile(r"\b(?:perpetu\w*|until terminated|indefinite\w*|no fixed term)\b", re.I)
_YES_NO_RX = re.compile(r"^\s*(yes|no)\b", re.I)
_ABSENT_RX = re.compile(r"^\s*(?:not found|none|n/?a|-+)?\s*$", re.I)


def _days(d: Duration) -> float:
    return d.number * _DAYS.get(d.unit, 1.0)


def _is_yes(facts: CellFacts) -> bool:
    """Whether the cell says the provision is there: a cell whose value answers yes or no (the
    filler writes "No" with its closest quotation under a yes/no column's threshold) by that
    answer, any other found cell by being found."""
    if not facts.found:
        return False
    answer = _YES_NO_RX.match(facts.value)
    if answer is not None:
        return answer.group(1).lower() == "yes"
    if facts.type == "yes_no" and isinstance(facts.typed, bool):
        return facts.typed
    return not _ABSENT_RX.match(facts.value)


def _typed_duration(facts: CellFacts) -> Duration | None:
    t = facts.typed
    if isinstance(t, Duration):
        return t
    if isinstance(t, dict) and {"number", "unit"} <= t.keys():
        try:
            return Duration(int(t["number"]), str(t["unit"]), bool(t.get("renews")))
        except (TypeError, ValueError):
            return None
    return parse_duration(facts.value)


def _typed_amount(facts: CellFacts) -> Amount | None:
    t = facts.typed
    if isinstance(t, Amount):
        return t
    if isinstance(t, dict) and "currency" in t:
        try:
            value = None if t.get("value") in (None, "") else Decimal(str(t["value"]))
        except InvalidOperation:
            value = None
        return Amount(value, str(t.get("currency") or ""), str(t.get("basis") or ""))
    got = extract_amount(facts.value)
    return got.value if got is not None else None  # type: ignore[return-value]


def _typed_date(facts: CellFacts) -> tuple[dt.date | None, str]:
    """(the date, how much of it is known: "day", "month" or "year"). The shown value says how
    much ("July 2017" has no day, "2000 (day and month left blank)" only a year) even where the
    typed value, a calendar date, holds the first day of that month or year."""
    if m := re.fullmatch(r"\s*(\d{4})" + re.escape(YEAR_ONLY) + r"\s*", facts.value):
        return dt.date(int(m[1]), 1, 1), "year"
    got = extract_date(facts.value)
    shown = date_precision(got.display) if got is not None else "day"
    t = facts.typed
    if isinstance(t, dt.date):
        return t, shown
    if isinstance(t, str) and (d := parse_iso_date(t)) is not None:
        return d, shown
    if got is None:
        return None, "day"
    return got.value, shown  # type: ignore[return-value]


def _perpetual(facts: CellFacts) -> bool:
    return facts.typed == "perpetual" or bool(_PERPETUAL_RX.search(facts.value))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def names(value: str, allowed: str) -> bool:
    """Whether ``value`` names ``allowed``: its words appear in order ('Delaware' in 'the State
    of Delaware', 'New York' in 'New York, USA'; 'York' alone does not name 'New York')."""
    a, v = _words(allowed), _words(value)
    if not a:
        return False
    return any(v[i : i + len(a)] == a for i in range(len(v) - len(a) + 1))


# --- deciding -----------------------------------------------------------------------------------


def decide(rule: Rule, facts: CellFacts, *, column: str = "the column") -> Decision:
    """The verdict of a cell against a rule, with its reason in words."""
    shown = facts.value.strip() or "not found"
    if rule.kind == "words":
        if facts.decided_by in ("claude", "reviewer") and _YES_NO_RX.match(facts.value):
            who = "Claude reads" if facts.decided_by == "claude" else "A reviewer reads"
            if _is_yes(facts):
                return Decision(MEETS, f"{who} the provision as meeting: {rule.limit}")
            return Decision(DEVIATES, f"{who} the agreement as not meeting: {rule.limit}")
        return Decision(
            REVIEW,
            "a position in words: Claude reads it in a grid it fills; offline a reviewer "
            "decides (correct its cell to Yes or No)",
        )
    if rule.kind in ("required", "forbidden"):
        present = _is_yes(facts)
        if rule.kind == "required":
            if present:
                return Decision(MEETS, f"{column} is there, as required")
            return Decision(DEVIATES, f"{column} is required and was not found")
        if present:
            return Decision(DEVIATES, f"{column} is there, and the playbook does not allow it")
        return Decision(MEETS, f"{column} was not found, as the playbook wants")
    if not facts.found or _ABSENT_RX.match(facts.value):
        return Decision(MISSING, f"nothing was found for {column}, so the rule cannot be checked")
    if rule.kind == "allowed":
        hit = next((a for a in rule.values if names(facts.value, a)), None)
        if hit is not None:
            return Decision(MEETS, f"{shown[:200]} is {hit}, which the playbook allows")
        return Decision(DEVIATES, f"{shown[:200]} is none of the allowed: {', '.join(rule.values)}")
    if rule.kind in ("after", "before"):
        return _decide_date(rule, facts, shown)
    if facts.type == "amount" or parse_duration(rule.limit) is None:
        return _decide_amount(rule, facts, shown)
    return _decide_duration(rule, facts, shown)


def _decide_date(rule: Rule, facts: CellFacts, shown: str) -> Decision:
    limit = parse_iso_date(rule.limit)
    assert limit is not None  # parse_rule checked it
    if _perpetual(facts):
        if rule.kind == "after":
            return Decision(MEETS, f"it runs until terminated, past {limit.isoformat()}")
        return Decision(DEVIATES, f"it runs until terminated, not ending by {limit.isoformat()}")
    date, known = _typed_date(facts)
    if date is None:
        if _typed_duration(facts) is None:
            # A provision was found but it states no date, nor a period to count one from: no
            # date was found for the rule to check, as when nothing was found.
            return Decision(
                MISSING, f"'{shown[:200]}' states no date, so the rule cannot be checked"
            )
        # A period with no start, or a date given only by a period ("six months after ..."):
        # a reviewer reads it.
        return Decision(REVIEW, f"'{shown[:200]}' is not a date that can be compared")
    if known == "year":
        # Only its year: compared by year, which lies wholly on one side of the limit or not.
        if date.year == limit.year:
            return Decision(REVIEW, f"'{shown[:200]}' has only its year, that of the limit")
        ok = date.year > limit.year if rule.kind == "after" else date.year < limit.year
    elif known == "month":
        # Without its day, a date is compared by its month, which lies wholly on one side.
        if (date.year, date.month) == (limit.year, limit.month):
            return Decision(
                REVIEW, f"'{shown[:200]}' has no day, and the limit falls in that month"
            )
        month, at = (date.year, date.month), (limit.year, limit.month)
        ok = month > at if rule.kind == "after" else month < at
    else:
        ok = date >= limit if rule.kind == "after" else date <= limit
    word = "on or after" if rule.kind == "after" else "on or before"
    if ok:
        return Decision(MEETS, f"{shown[:60]} is {word} {limit.isoformat()}")
    return Decision(DEVIATES, f"{shown[:60]} is not {word} {limit.isoformat()}")


def _decide_duration(rule: Rule, facts: CellFacts, shown: str) -> Decision:
    limit = parse_duration(rule.limit)
    assert limit is not None
    want = "at least" if rule.kind == "min" else "at most"
    if _perpetual(facts):
        if rule.kind == "min":
            return Decision(MEETS, f"it runs until terminated: {want} {rule.limit}")
        return Decision(DEVIATES, f"it runs until terminated, longer than {rule.limit}")
    got = _typed_duration(facts)
    if got is None:
        return Decision(REVIEW, f"'{shown[:200]}' is not a period that can be compared")
    have, need = _days(got), _days(limit)
    same = abs(have - need) <= _SAME * need
    ok = same or (have > need if rule.kind == "min" else have < need)
    plain = str(Duration(got.number, got.unit))
    if ok:
        return Decision(MEETS, f"{plain} is {want} {rule.limit}")
    return Decision(DEVIATES, f"{plain} is not {want} {rule.limit}")


def _decide_amount(rule: Rule, facts: CellFacts, shown: str) -> Decision:
    limit = parse_amount(rule.limit)
    assert limit is not None and limit.value is not None
    want = "at least" if rule.kind == "min" else "at most"
    got = _typed_amount(facts)
    if got is None:
        return Decision(REVIEW, f"'{shown[:200]}' is not an amount that can be compared")
    if got.value is None:
        return Decision(
            REVIEW,
            f"the amount is stated relative to another ({got.basis[:120]}): a reviewer decides",
        )
    if limit.currency and got.currency and limit.currency != got.currency:
        return Decision(REVIEW, f"{got} is in another currency than {rule.limit}")
    ok = got.value >= limit.value if rule.kind == "min" else got.value <= limit.value
    if ok:
        return Decision(MEETS, f"{got} is {want} {rule.limit}")
    return Decision(DEVIATES, f"{got} is not {want} {rule.limit}")
