"""The apps are layers (core < matters < llm < documents < retrieval < answers < evaluation < api <
mcp < bench < urls): a module imports only from its own app and the apps below it, inside functions too.
The contract is in pyproject.toml ([tool.importlinter]); this runs it as ``make lint`` does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_no_app_imports_a_higher_one() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), (
        f"{lint_imports} is missing: install the dev dependencies (scripts/bootstrap.sh)"
    )
    out = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, f"the layer contract is broken:\n{out.stdout}\n{out.stderr}"
    assert "0 broken" in out.stdout, out.stdout
