"""The ledger's part in what happens elsewhere, connected in ``LLMConfig.ready()``.

- A matter is purged (``matters.signals.matter_purging``): its LLM calls keep their tokens and
  dollars (what was spent stays accounted for) and lose the one field that can hold words from
  the provider (``error_message``).
"""

from __future__ import annotations

from typing import Any


def purge_matter_ledger(sender: Any, *, matter: Any, **kwargs: Any) -> dict[str, int]:
    from legalnav.llm.models import LLMCall

    cleared = LLMCall.objects.filter(matter_id=matter.pk).exclude(error_message="")
    return {"ledger_messages_cleared": cleared.update(error_message="")}
