"""LLM providers: Claude through the ``anthropic`` SDK, and the offline ledger.

Every Claude call writes exactly one ``LLMCall`` row where it happens, from the response's
``usage``: a success after retries is one row with its ``attempts``, and a call that fails for
good is one error row. The SDK is imported lazily, so the web process does not load it to
render a page (tests/test_lazy_imports.py).

Callers keep these calls out of database transactions (STYLE.md rule 3): a call can take
minutes with retries, and the ledger row is written in autocommit.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from legalnav.llm.models import LLMCall
from legalnav.llm.prices import PriceCard, Usage
from legalnav.llm.services import llm_call_record
from legalnav.llm.tokens import count_tokens

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

__all__ = [
    "ClaudeProvider",
    "Completion",
    "LLMError",
    "LLMProvider",
    "LLMRequestError",
    "LLMUnavailable",
    "OfflineProvider",
    "Usage",
    "get_provider",
]


class LLMError(Exception):
    """An LLM call did not produce an answer. Callers fall back to the offline path."""


class LLMUnavailable(LLMError):
    """The provider kept failing with transient errors (rate limit, overload, 5xx, timeout)
    until the attempts ran out."""


class LLMRequestError(LLMError):
    """The provider refused the request itself (bad request, bad key, …): retrying won't help."""


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: Usage
    model: str
    latency_ms: int
    provider: str
    estimated: bool = False
    attempts: int = 1
    stop_reason: str | None = None
    call_id: int | None = None  # the LLMCall row written for this call
    dollars: Decimal = Decimal(0)  # what that row charged


class LLMProvider(Protocol):
    name: str

    def complete(
        self,
        *,
        system: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        max_tokens: int,
        purpose: str,
        matter_id: int | None = None,
        query_id: int | None = None,
        user_id: int | None = None,
    ) -> Completion: ...


# Statuses worth another try: request timeout, rate limit, and every server-side error,
# 529 "overloaded" included. 4xx other than these mean the request itself is wrong.
RETRYABLE_STATUS = frozenset({408, 429})


def _is_transient(exc: Exception) -> bool:
    import anthropic

    if isinstance(exc, anthropic.APIConnectionError):  # APITimeoutError is a subclass
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    return False


def _retry_after(exc: Exception) -> float | None:
    """The server's Retry-After, in seconds, when it sent a usable one."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    raw = response.headers.get("retry-after")
    try:
        return max(0.0, float(raw)) if raw is not None else None
    except ValueError:  # the HTTP-date form: fall back to our own schedule
        return None


def backoff_delay(
    attempt: int,
    *,
    base: float,
    cap: float,
    retry_after: float | None = None,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait after failed try number ``attempt`` (1-based).

    Exponential (base, 2·base, 4·base, …) with "equal jitter": half the step is fixed and
    half random, so workers that failed together do not retry together. A server's
    Retry-After is honoured as a floor. Everything is capped at ``cap``.
    """
    step = min(cap, base * 2 ** (attempt - 1))
    delay = step / 2 + rand() * step / 2
    if retry_after is not None:
        delay = max(delay, retry_after)
    return max(0.0, min(cap, delay))


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    return f"{name} (HTTP {status}): {exc}" if status else f"{name}: {exc}"


class ClaudeProvider:
    """Claude through the real ``anthropic`` SDK, with our own retries and ledger rows.

    The SDK's retries are switched off (``max_retries=0``): we retry here so that a call is
    one ledger row with its attempt count, the schedule is configurable, and the final
    failure is a clear ``LLMUnavailable``.
    """

    name = LLMCall.Provider.CLAUDE.value

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        model: str | None = None,
        max_attempts: int | None = None,
        backoff_base: float | None = None,
        backoff_max: float | None = None,
        timeout: float | None = None,
        card: PriceCard | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.api_key = api_key if api_key is not None else settings.ANTHROPIC_API_KEY
        if not self.api_key:
            raise ImproperlyConfigured("ClaudeProvider needs ANTHROPIC_API_KEY")
        self.base_url = (base_url if base_url is not None else settings.ANTHROPIC_BASE_URL) or None
        self.model = model or settings.ANTHROPIC_MODEL
        self.max_attempts = max_attempts if max_attempts is not None else settings.LLM_MAX_ATTEMPTS
        self.backoff_base = max(
            0.0, backoff_base if backoff_base is not None else settings.LLM_BACKOFF_BASE
        )
        self.backoff_max = max(
            0.0, backoff_max if backoff_max is not None else settings.LLM_BACKOFF_MAX
        )
        self.timeout = timeout if timeout is not None else settings.LLM_TIMEOUT
        if self.max_attempts < 1:
            raise ImproperlyConfigured("LLM_MAX_ATTEMPTS must be at least 1")
        if self.timeout <= 0:
            raise ImproperlyConfigured("LLM_TIMEOUT must be a positive number of seconds")
        self.card = card or PriceCard.from_settings()
        self._sleep = sleep
        self._client: anthropic.Anthropic | None = None

    @property
    def client(self) -> anthropic.Anthropic:
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                api_key=self.api_key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout,
            )
        return self._client

    def complete(
        self,
        *,
        system: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        max_tokens: int,
        purpose: str,
        matter_id: int | None = None,
        query_id: int | None = None,
        user_id: int | None = None,
    ) -> Completion:
        """Send one Messages API request (retrying transient failures) and record it.

        ``system`` is passed through as given, ``cache_control`` markers included. Raises
        ``LLMUnavailable`` when transient errors outlast ``max_attempts`` and
        ``LLMRequestError`` on a request the API rejects; both after writing an error row.
        """
        client = self.client
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                response = client.messages.create(
                    model=self.model,
                    system=system,  # type: ignore[arg-type]
                    messages=messages,  # type: ignore[arg-type]
                    max_tokens=max_tokens,
                )
                break
            except Exception as exc:
                transient = _is_transient(exc)
                if transient and attempt < self.max_attempts:
                    self._wait_to_retry(exc, attempt=attempt, purpose=purpose)
                    continue
                error = self._record_failure(
                    exc,
                    transient=transient,
                    attempt=attempt,
                    started=started,
                    purpose=purpose,
                    matter_id=matter_id,
                    query_id=query_id,
                    user_id=user_id,
                )
                if error is None:
                    # Not a provider failure (a bug on our side): recorded, then surfaced as is.
                    raise
                raise error from exc
        return self._record_success(
            response,
            attempt=attempt,
            started=started,
            purpose=purpose,
            matter_id=matter_id,
            query_id=query_id,
            user_id=user_id,
        )

    def _wait_to_retry(self, exc: Exception, *, attempt: int, purpose: str) -> None:
        """Log a transient failure and sleep out its backoff before the next try."""
        delay = backoff_delay(
            attempt,
            base=self.backoff_base,
            cap=self.backoff_max,
            retry_after=_retry_after(exc),
        )
        log.warning(
            "Claude %s call failed (try %d of %d), retrying in %.2fs: %s",
            purpose,
            attempt,
            self.max_attempts,
            delay,
            _describe(exc),
        )
        self._sleep(delay)

    def _record_failure(
        self,
        exc: Exception,
        *,
        transient: bool,
        attempt: int,
        started: float,
        purpose: str,
        matter_id: int | None,
        query_id: int | None,
        user_id: int | None,
    ) -> LLMError | None:
        """Write the error row of a call that failed for good; return the error to raise in
        its place, or None when ``exc`` is not a provider failure and should surface as is."""
        if transient:
            message = (
                f"Claude did not answer the {purpose} call after {attempt} "
                f"attempt{'s' if attempt > 1 else ''}: {_describe(exc)}"
            )
        else:
            message = f"Claude rejected the {purpose} call: {_describe(exc)}"
        llm_call_record(
            provider=self.name,
            model=self.model,
            purpose=purpose,
            usage=Usage(),
            card=self.card,
            latency_ms=_elapsed_ms(started),
            status=LLMCall.Status.ERROR,
            error_message=message,
            attempts=attempt,
            matter_id=matter_id,
            query_id=query_id,
            user_id=user_id,
        )
        if transient:
            return LLMUnavailable(message)
        if _is_sdk_error(exc):
            return LLMRequestError(message)
        return None

    def _record_success(
        self,
        response: anthropic.types.Message,
        *,
        attempt: int,
        started: float,
        purpose: str,
        matter_id: int | None,
        query_id: int | None,
        user_id: int | None,
    ) -> Completion:
        """Write the ledger row of an answered call from its ``usage``; the Completion."""
        latency_ms = _elapsed_ms(started)
        raw = response.usage
        usage = Usage(
            input_tokens=raw.input_tokens or 0,
            cache_write_tokens=raw.cache_creation_input_tokens or 0,
            cache_read_tokens=raw.cache_read_input_tokens or 0,
            output_tokens=raw.output_tokens or 0,
        )
        # Only text blocks make the answer (no tools are offered, so there are no others today).
        text = "".join(block.text for block in response.content if block.type == "text")
        row = llm_call_record(
            provider=self.name,
            model=response.model or self.model,
            purpose=purpose,
            usage=usage,
            card=self.card,
            latency_ms=latency_ms,
            attempts=attempt,
            response_id=response.id or "",
            matter_id=matter_id,
            query_id=query_id,
            user_id=user_id,
        )
        return Completion(
            text=text,
            usage=usage,
            model=row.model,
            latency_ms=latency_ms,
            provider=self.name,
            estimated=False,
            attempts=attempt,
            stop_reason=response.stop_reason,
            call_id=row.pk,
            dollars=row.dollars,
        )


def _is_sdk_error(exc: Exception) -> bool:
    import anthropic

    return isinstance(exc, anthropic.AnthropicError)


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


class OfflineProvider:
    """Not an LLM: the ledger side of the offline answerer.

    The offline path (an extractive answerer, a deterministic planner) makes no billed call,
    but its rows keep the cost panel's token footprint comparable across modes. Tokens are
    estimated with the offline tokenizer; the dollars are zero, priced by a zero card so that
    every row still reconciles as ``dollars == cost(usage, price_card)``.
    """

    name = LLMCall.Provider.OFFLINE.value
    model = "offline"

    def record(
        self,
        *,
        purpose: str,
        prompt_text: str,
        output_text: str,
        matter_id: int | None = None,
        query_id: int | None = None,
        latency_ms: int = 0,
    ) -> LLMCall:
        """Write the ledger row of one offline step from its input and output text."""
        usage = Usage(
            input_tokens=count_tokens(prompt_text), output_tokens=count_tokens(output_text)
        )
        return llm_call_record(
            provider=self.name,
            model=self.model,
            purpose=purpose,
            usage=usage,
            card=PriceCard.zero(),
            latency_ms=latency_ms,
            estimated=True,
            matter_id=matter_id,
            query_id=query_id,
        )


def get_provider() -> ClaudeProvider | None:
    """Claude when ``ANTHROPIC_API_KEY`` is set; otherwise None, and callers use the offline
    path (answering offline and recording with ``OfflineProvider``)."""
    if not settings.ANTHROPIC_API_KEY:
        return None
    return ClaudeProvider()
