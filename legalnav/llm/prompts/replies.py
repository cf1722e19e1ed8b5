"""Reading a model's reply: the JSON it holds, wherever the model put it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def json_candidates(text: str) -> Iterable[Any]:
    """Every JSON value the reply could mean: the fenced blocks, the whole reply, then each
    object or array that starts somewhere in the prose around it."""
    decoder = json.JSONDecoder()
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for source in sources:
        source = source.strip()
        try:
            yield json.loads(source)
            continue
        except ValueError:
            pass
        for match in re.finditer(r"[\[{]", source):
            try:
                value, _ = decoder.raw_decode(source, match.start())
            except ValueError:
                continue
            yield value


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (code fences and prose around it tolerated), or None."""
    for candidate in json_candidates(text or ""):
        if isinstance(candidate, dict):
            return candidate
    return None
