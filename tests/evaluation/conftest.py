"""The Claude judge runs through the real ``anthropic`` client against the local replay server."""

from __future__ import annotations

from tests.llm.conftest import replay  # noqa: F401 (the fixture, shared with tests/llm)
