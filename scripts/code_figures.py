"""Code-health figures for a checkout: lines of code by app, functions over N lines, modules over 800 lines.

Usage: python scripts/code_figures.py [ROOT] [--long 80]
Lines of code count non-blank, non-comment lines of .py files under legalnav/ (migrations excluded).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path


def code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    long = 80
    if "--long" in argv:
        long = int(argv[argv.index("--long") + 1])
        args = [a for a in args if a != str(long)]
    root = Path(args[0] if args else ".").resolve()
    package = root / "legalnav"
    by_app: Counter[str] = Counter()
    long_functions: list[tuple[int, str]] = []
    big_modules: list[tuple[int, str]] = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if "migrations" in rel.parts:
            continue
        text = path.read_text(encoding="utf-8")
        app = rel.parts[0] if len(rel.parts) > 1 else "(project)"
        by_app[app] += code_lines(text)
        total = len(text.splitlines())
        if total > 800:
            big_modules.append((total, str(rel)))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > long:
                    long_functions.append((length, f"{rel}:{node.lineno} {node.name}"))
    print("lines of code by app (non-blank, non-comment, migrations excluded)")
    for app, n in sorted(by_app.items()):
        print(f"  {app:<12} {n:>6}")
    print(f"  {'total':<12} {sum(by_app.values()):>6}")
    print(f"modules over 800 lines: {len(big_modules)}")
    for n, name in sorted(big_modules, reverse=True):
        print(f"  {n:>5}  {name}")
    print(f"functions over {long} lines: {len(long_functions)}")
    for n, name in sorted(long_functions, reverse=True):
        print(f"  {n:>5}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
