"""The Claude path runs the real ``anthropic`` client against a local replay server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.llm.replay import ReplayServer

API_KEY = "sk-ant-test-replay-0001"


@pytest.fixture
def replay(settings) -> Iterator[ReplayServer]:
    """A Messages API server on a free port of 127.0.0.1, with the settings pointing at it and
    back-off shrunk to milliseconds so retry tests run fast."""
    server = ReplayServer().start()
    settings.ANTHROPIC_API_KEY = API_KEY
    settings.ANTHROPIC_BASE_URL = server.url
    settings.ANTHROPIC_MODEL = "claude-sonnet-4-6"
    settings.LLM_MAX_ATTEMPTS = 4
    settings.LLM_BACKOFF_BASE = 0.01
    settings.LLM_BACKOFF_MAX = 0.05
    settings.LLM_TIMEOUT = 5.0
    try:
        yield server
    finally:
        server.stop()
