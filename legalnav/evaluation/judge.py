"""The study's judged paired comparison: two answers to one question, judged against the
verified reference in both orders by Claude.

A pair is judged twice with the same system prompt, once with mode A's answer in position A
and once swapped. A mode wins only when both orders prefer it and neither preference is hedged
("slight", "effectively tied"); everything else is a tie. That rule controls the position
bias LLM judges are known for: a judge that always prefers the first answer produces ties, not
wins. Each call writes its ledger row (purpose "judge"); the verdict keeps both rationales and
what the two calls cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import Decimal

from legalnav.llm import prompts
from legalnav.llm.models import LLMCall
from legalnav.llm.providers import LLMProvider

JUDGE_MAX_TOKENS = 400


@dataclass(frozen=True, slots=True)
class OrderVerdict:
    """One order's verdict, translated back to the modes: "a", "b" or "tie"."""

    pick: str
    raw: str  # the verdict as the judge placed the answers ("A", "B", "tie")
    hedged: bool
    readable: bool
    rationale: str
    call_id: int | None
    dollars: str
    model: str


@dataclass(frozen=True, slots=True)
class PairVerdict:
    outcome: str  # "a" (mode A preferred in both orders), "b", or "tie"
    forward: OrderVerdict  # A's answer shown first
    reverse: OrderVerdict  # B's answer shown first
    reason: str  # why the outcome is what it is (agreement, disagreement, hedge)

    @property
    def dollars(self) -> Decimal:
        return Decimal(self.forward.dollars) + Decimal(self.reverse.dollars)

    def as_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome,
            "reason": self.reason,
            "forward": asdict(self.forward),
            "reverse": asdict(self.reverse),
            "dollars": str(self.dollars),
        }


def combine(forward: OrderVerdict, reverse: OrderVerdict) -> tuple[str, str]:
    """The outcome of a pair from its two orders, and the reason."""
    if not (forward.readable and reverse.readable):
        return "tie", "a verdict could not be read"
    if forward.hedged or reverse.hedged:
        return "tie", "a hedged preference counts as a tie"
    if forward.pick == reverse.pick and forward.pick in ("a", "b"):
        return forward.pick, "both orders agree"
    if forward.pick == reverse.pick == "tie":
        return "tie", "both orders found a tie"
    return "tie", "the orders disagree (position bias), so neither wins"


def _judge_once(
    provider: LLMProvider, *, question: str, reference: str, first: str, second: str, swapped: bool
) -> OrderVerdict:
    prompt = prompts.judge_prompt(
        question=question, reference=reference, answer_a=first, answer_b=second
    )
    completion = provider.complete(
        system=prompt.system,
        messages=prompt.messages,
        max_tokens=JUDGE_MAX_TOKENS,
        purpose=LLMCall.Purpose.JUDGE,
    )
    parsed = prompts.parse_verdict(completion.text)
    if parsed.verdict == "tie":
        pick = "tie"
    elif swapped:
        pick = "b" if parsed.verdict == "A" else "a"
    else:
        pick = "a" if parsed.verdict == "A" else "b"
    dollars = (
        LLMCall.objects.filter(pk=completion.call_id).values_list("dollars", flat=True).first()
        if completion.call_id
        else None
    )
    return OrderVerdict(
        pick=pick,
        raw=parsed.verdict,
        hedged=parsed.hedged,
        readable=parsed.readable,
        rationale=parsed.rationale[:2000],
        call_id=completion.call_id,
        dollars=str(dollars if dollars is not None else Decimal(0)),
        model=completion.model,
    )


def judge_pair(
    *, provider: LLMProvider, question: str, reference: str, answer_a: str, answer_b: str
) -> PairVerdict:
    """Judge mode A's answer against mode B's in both orders and combine the two verdicts.

    The calls are made outside any transaction (each writes its own ledger row); a call that
    fails raises ``LLMError`` and the pair is left unjudged, to be retried on the next run.
    """
    forward = _judge_once(
        provider, question=question, reference=reference, first=answer_a, second=answer_b,
        swapped=False,
    )  # fmt: skip
    reverse = _judge_once(
        provider, question=question, reference=reference, first=answer_b, second=answer_a,
        swapped=True,
    )  # fmt: skip
    outcome, reason = combine(forward, reverse)
    return PairVerdict(outcome, forward, reverse, reason)
