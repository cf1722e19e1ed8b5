"""The offline research note: no model, only what selection and stance found, laid out under
the same headings as Claude's note (Answer, Supporting authority, Adverse authority, Legal
risk, Strategy), with every judgment cited and quoted verbatim."""

from __future__ import annotations

from dataclasses import dataclass

from legalnav.answers.offline import best_sentences

SUPPORTING, ADVERSE, NEUTRAL = "supporting", "adverse", "neutral"


@dataclass(frozen=True, slots=True)
class Item:
    bucket: str
    doc_key: str
    node_id: str
    case_name: str
    decided: str
    outcome: str
    reason: str
    quote: str  # the stance's own words, when they lie in this passage
    passage: str
    flagged: bool = False  # the report flags negative judicial treatment


def _quote(item: Item, question: str) -> str:
    text = item.quote or (best_sentences(question, item.passage, limit=1) or [""])[0]
    words = text.split()
    if len(words) > 60:
        text = " ".join(words[:60])
    return text.replace("“", "‘").replace("”", "’").replace('"', "'").strip()


def _grouped(items: list[Item], bucket: str) -> list[list[Item]]:
    groups: dict[str, list[Item]] = {}
    for item in items:
        if item.bucket == bucket:
            groups.setdefault(item.doc_key, []).append(item)
    return list(groups.values())


def _entry(n: int, group: list[Item], question: str) -> str:
    first = group[0]
    dated = f", {first.decided}" if first.decided else ""
    outcome = f"; outcome: {first.outcome}" if first.outcome else ""
    # A judgment is quoted by the passage that carries its stance (its holding on the issue)
    # where there is one, not by a passage that only ranked well: that one may state the
    # general rule the judgment goes on to apply the other way.
    cites = []
    for item in [i for i in group if i.quote] or group:
        q = _quote(item, question)
        cites.append(
            f"“{q}” [{item.doc_key}:{item.node_id}]" if q else f"[{item.doc_key}:{item.node_id}]"
        )
    why = f" {first.reason[0].upper()}{first.reason[1:]}." if first.reason else ""
    return f"{n}. {first.case_name}{dated}{outcome}.{why} " + " ".join(cites)


def write(*, proposition: str, side: str, items: list[Item], question: str) -> str:
    supporting = _grouped(items, SUPPORTING)
    adverse = _grouped(items, ADVERSE)
    neutral = _grouped(items, NEUTRAL)
    acting = side or "a side the question does not state"
    lines = [
        "Research note (offline: no language model was used; stance is read from each "
        "judgment's holding on the issue, its outcome and treatment language).",
        f"Proposition: {proposition}",
        f"Acting for: {acting}.",
        "",
        "Answer",
    ]
    if not side:
        lines.append(
            f"{len(supporting) + len(adverse) + len(neutral)} relevant judgments were found, but "
            "without knowing which side you act for their outcomes cannot be sorted into support "
            "and adverse authority; they are listed as neutral. Say which party you act for."
        )
    elif not supporting and not adverse:
        lines.append("No judgment of this matter was found to decide the point either way.")
    else:
        balance = (
            "favours the proposition"
            if len(supporting) > len(adverse)
            else "cuts against the proposition"
            if len(adverse) > len(supporting)
            else "is evenly divided"
        )
        lines.append(
            f"{len(supporting)} judgment{'s' if len(supporting) != 1 else ''} of this matter support "
            f"the position of {acting} and {len(adverse)} cut{'s' if len(adverse) == 1 else ''} "
            f"against it: the authority found here {balance}."
        )
    lines += ["", "Supporting authority"]
    lines += [_entry(n, g, question) for n, g in enumerate(supporting, 1)] or [
        "None found in this matter."
    ]
    lines += ["", "Adverse authority"]
    lines += [_entry(n, g, question) for n, g in enumerate(adverse, 1)] or [
        "None found in this matter."
    ]
    if neutral:
        lines += ["", "Relevant, stance unclear"]
        lines += [_entry(n, g, question) for n, g in enumerate(neutral, 1)]
    lines += ["", "Legal risk"]
    if adverse:
        lines.append(
            f"{len(adverse)} adverse judgment{'s' if len(adverse) != 1 else ''}; the first to answer "
            f"is {adverse[0][0].case_name} ({adverse[0][0].reason})."
        )
    else:
        lines.append(
            "No adverse judgment was found in this matter; that is not proof that none exists."
        )
    flagged = [g[0].case_name for g in supporting + adverse if g[0].flagged]
    if flagged:
        lines.append(
            "Flagged by the law report for negative judicial treatment: " + "; ".join(flagged) + "."
        )
    lines += ["", "Strategy"]
    if supporting:
        lines.append(
            f"Lead with {supporting[0][0].case_name}"
            + (f" and {supporting[1][0].case_name}" if len(supporting) > 1 else "")
            + "."
        )
    else:
        lines.append(
            "No supporting authority was found here: the argument must rest on other sources."
        )
    if adverse:
        lines.append(
            "Meet the adverse authority head on: distinguish "
            + "; ".join(g[0].case_name for g in adverse[:3])
            + " on their facts or on the point actually decided."
        )
    return "\n".join(lines)
