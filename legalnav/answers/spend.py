"""Spending caps on the LLM: dollars per user and per matter, per day and per calendar month
(``LEGALNAV_SPEND_CAP_USER_DAY`` and the like; 0 is no cap), read from the call ledger.

A matter's spend is every ledger row charged to it (answers, planner scans, enrichment while
indexing its documents, review grids); a user's is the rows of the questions they asked and of
the review grids they made, wherever. Days and
months are those of ``TIME_ZONE`` (UTC by default). The check runs before a question is saved, so
a capped question costs nothing; a question already running when a cap is crossed finishes (a
cap bounds what is started, by at most the cost of the questions in flight).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import DecimalField, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from legalnav.answers.models import Question
from legalnav.llm.models import LLMCall
from legalnav.matters.models import Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ZERO = Decimal(0)
_MONEY = DecimalField(max_digits=16, decimal_places=8)


def _dollars(value: Decimal) -> str:
    return f"${value.quantize(Decimal('0.01')):,}"


@dataclass(frozen=True, slots=True)
class SpendLine:
    """One cap: whose (``user`` or ``matter``), which period, spent so far and the cap."""

    scope: str
    period: str  # "day" or "month"
    spent: Decimal
    cap: Decimal  # 0: no cap
    resets_at: datetime

    @property
    def capped(self) -> bool:
        return self.cap > 0 and self.spent >= self.cap

    @property
    def label(self) -> str:
        return "daily" if self.period == "day" else "monthly"

    @property
    def resets(self) -> str:
        at = timezone.localtime(self.resets_at)
        return f"{at:%H:%M} {at.tzname()} on {at.day} {at:%B %Y}"

    @property
    def message(self) -> str:
        spent, cap = _dollars(self.spent), _dollars(self.cap)
        if self.scope == "matter":
            head = f"This matter has spent {spent} of its {cap} {self.label} cap"
        else:
            head = f"You have spent {spent} of your {cap} {self.label} cap"
        return f"{head}; it resets at {self.resets}. Nothing you typed has been lost."


@dataclass(frozen=True, slots=True)
class SpendDecision:
    """A question refused by a cap, shaped like a rate-limit refusal so that every door answers
    it the same way (429 with Retry-After until the cap resets)."""

    line: SpendLine
    now: datetime
    allowed: bool = False
    code: str = "spend_capped"

    @property
    def message(self) -> str:
        return self.line.message

    @property
    def retry_after(self) -> int:
        return max(1, int((self.line.resets_at - self.now).total_seconds()))


def _periods(now: datetime) -> dict[str, tuple[datetime, datetime]]:
    local = timezone.localtime(now)
    day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    month = day.replace(day=1)
    next_month = (month + timedelta(days=32)).replace(day=1)
    return {"day": (day, day + timedelta(days=1)), "month": (month, next_month)}


def _cap(scope: str, period: str) -> Decimal:
    raw = getattr(settings, f"LEGALNAV_SPEND_CAP_{scope.upper()}_{period.upper()}", 0) or 0
    return max(ZERO, Decimal(str(raw)))


def _sums(calls: Any, periods: dict[str, tuple[datetime, datetime]]) -> dict[str, Decimal]:
    day_start, month_start = periods["day"][0], periods["month"][0]
    sums = calls.filter(created_at__gte=month_start).aggregate(
        day=Sum("dollars", filter=Q(created_at__gte=day_start)), month=Sum("dollars")
    )
    return {k: Decimal(v or 0) for k, v in sums.items()}


def _asked_by(user: User) -> Any:
    return Question.objects.filter(asked_by_id=getattr(user, "pk", None)).values("pk")


def spend_status(
    *, matter: Matter, user: User | None, now: datetime | None = None, capped_only: bool = False
) -> list[SpendLine]:
    """The spend against each cap that is set (the matter's, then the user's), today and this
    month. ``capped_only``: skip the sums whose caps are all off (the check before asking)."""
    now = now or timezone.now()
    periods = _periods(now)
    scopes: list[tuple[str, Any]] = [("matter", LLMCall.objects.filter(matter_id=matter.pk))]
    if getattr(user, "pk", None) is not None:
        mine = Q(query_id__in=_asked_by(user)) | Q(user_id=user.pk)  # type: ignore[attr-defined]
        scopes.append(("user", LLMCall.objects.filter(mine)))
    lines = []
    for scope, calls in scopes:
        caps = {period: _cap(scope, period) for period in periods}
        if capped_only and not any(caps.values()):
            continue
        sums = _sums(calls, periods)
        for period, (_, end) in periods.items():
            if caps[period] or not capped_only:
                lines.append(SpendLine(scope, period, sums[period], caps[period], end))
    return lines


def spend_check(
    *, matter: Matter, user: User | None, now: datetime | None = None
) -> SpendDecision | None:
    """The first cap this matter or user has reached, or None when a question may be asked."""
    now = now or timezone.now()
    for line in spend_status(matter=matter, user=user, now=now, capped_only=True):
        if line.capped:
            return SpendDecision(line, now)
    return None


def spend_overview(*, now: datetime | None = None) -> dict[str, Any]:
    """What the LLM cost today and this month, by matter and by the user who asked or made the
    grid (staff)."""
    now = now or timezone.now()
    periods = _periods(now)
    day_start, month_start = periods["day"][0], periods["month"][0]
    month = LLMCall.objects.filter(created_at__gte=month_start)
    day = Coalesce(
        Sum("dollars", filter=Q(created_at__gte=day_start)), Value(ZERO), output_field=_MONEY
    )
    total = Coalesce(Sum("dollars"), Value(ZERO), output_field=_MONEY)
    matters = month.values("matter_id").annotate(day=day, month=total)
    by_matter: list[dict[str, Any]] = [dict(r) for r in matters.order_by("-month", "matter_id")]
    names = dict(
        Matter.objects.filter(pk__in=[r["matter_id"] for r in by_matter]).values_list("pk", "name")
    )
    for row in by_matter:
        row["name"] = names.get(row["matter_id"], "") if row["matter_id"] else ""
    asker = Question.objects.filter(pk=OuterRef("query_id")).values("asked_by__username")[:1]
    maker = get_user_model().objects.filter(pk=OuterRef("user_id")).values("username")[:1]
    users = (
        month.exclude(query_id=None, user_id=None)
        .annotate(username=Coalesce(Subquery(asker), Subquery(maker)))
        .values("username")
        .annotate(day=day, month=total)
    )
    by_user: list[dict[str, Any]] = [dict(r) for r in users.order_by("-month", "username")]
    return {
        "day_start": day_start,
        "month_start": month_start,
        "by_matter": by_matter,
        "by_user": by_user,
        "total": _sums(LLMCall.objects.all(), periods),
        "caps": {f"{s}_{p}": _cap(s, p) for s in ("user", "matter") for p in ("day", "month")},
    }
