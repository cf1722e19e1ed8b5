#!/usr/bin/env python
"""Write legalnav/evaluation/gold/citation_corpus.jsonl: answers built from real provisions of the
demo agreements and of CUAD contracts, half genuine and half tampered, each with the verdicts
the citation checker must give.

The expected verdicts come from how each answer was built, never from running the checker: a
genuine quotation is an exact run of the provision's words (checked here by plain substring
search); a tampered one is checked, here, to be absent from the cited provision even under the
loosest comparison (letters and digits only, any case).

    .venv/bin/python scripts/build_citation_corpus.py [--per-kind N] [--seed 2026]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")

import django  # noqa: E402

django.setup()

from legalnav.answers.sentences import sentences as split_sentences  # noqa: E402
from legalnav.evaluation import citation_corpus  # noqa: E402
from legalnav.evaluation.gold import data_dir  # noqa: E402

DEMO = sorted(p.name for p in (REPO / "demo" / "documents").glob("*.txt"))
QUOTE_CHARS = set("\"'“”‘’«»„‹›[]…\u241e")

GENUINE_STYLES = [
    "curly-before", "straight-before", "single-before", "guillemet-before", "german-before",
    "curly-after", "single-after", "block", "block-quoted", "line-before", "across-line-break",
    "ellipsis", "capital-first", "hyphen-line-break", "trailing-period", "unquoted",
    "two-citations",
]  # fmt: skip
TAMPER_KINDS = [
    "word-changed", "moved", "invented-id", "other-matter", "spliced", "reordered-ellipsis",
    "unbound-quote", "uncited-fact", "number-changed",
]  # fmt: skip
TAMPER_STYLES = [s for s in GENUINE_STYLES if s not in ("unquoted", "two-citations", "ellipsis")]


def loose(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def flat(text: str) -> str:
    return " ".join(text.split())


class Source:
    def __init__(self, key: str, ref: str) -> None:
        self.key, self.ref = key, ref
        self.provisions = citation_corpus.provisions(ref)
        self.good = [
            (node_id, text)
            for node_id, text in self.provisions.items()
            if 120 <= len(text) <= 4000 and len(self.sentences(text)) >= 1
        ]

    @staticmethod
    def sentences(text: str) -> list[str]:
        return [
            s
            for s in split_sentences(flat(text))
            if len(s.split()) >= 8 and not (set(s) & QUOTE_CHARS)
        ]


def run_of_words(rng: random.Random, sentence: str, lo: int = 5, hi: int = 12) -> str:
    words = sentence.split()
    n = rng.randint(lo, min(hi, len(words)))
    i = rng.randint(0, len(words) - n)
    return " ".join(words[i : i + n]).strip(",;:")


def render(style: str, quote: str, marker: str, rng: random.Random) -> str:
    lead = rng.choice(["Under the agreement", "The provision is clear", "On this point", "Here"])
    if style == "curly-before":
        return f"{lead}: “{quote}” {marker}."
    if style == "straight-before":
        return f'{lead}: "{quote}" {marker}.'
    if style == "single-before":
        return f"{lead}: '{quote}' {marker}."
    if style == "guillemet-before":
        return f"{lead}: «{quote}» {marker}."
    if style == "german-before":
        return f"{lead}: „{quote}“ {marker}."
    if style == "curly-after":
        return f"{marker} provides that “{quote}”."
    if style == "single-after":
        return f"{marker} provides that ‘{quote}’."
    if style == "block":
        return f"{lead}, it reads:\n> {quote}\n{marker}"
    if style == "block-quoted":
        return f"{lead}, it reads:\n> “{quote}” {marker}"
    if style == "line-before":
        return f"{lead}, the text says “{quote}”\n{marker}"
    if style == "across-line-break":
        words = quote.split()
        cut = max(1, len(words) // 2)
        return f"{lead}: “{' '.join(words[:cut])}\n{' '.join(words[cut:])}” {marker}."
    if style == "capital-first":
        return f"“{quote[0].upper()}{quote[1:]}” {marker}."
    if style == "hyphen-line-break":
        words = quote.split()
        long = max(range(len(words)), key=lambda i: len(words[i]))
        w = words[long]
        if len(w) >= 8 and w.isalpha():
            words[long] = f"{w[: len(w) // 2]}-\n{w[len(w) // 2 :]}"
        return f"{lead}: “{' '.join(words)}” {marker}."
    if style == "trailing-period":
        return f"{lead}: “{quote}.” {marker}"
    raise ValueError(style)


def genuine_case(rng: random.Random, sources: list[Source], style: str, n: int) -> dict | None:
    src = rng.choice(sources)
    node_id, text = rng.choice(src.good)
    sentences = src.sentences(text)
    if not sentences:
        return None
    marker = f"[{src.key}:{node_id}]"
    sentence = rng.choice(sentences)
    base = {"id": f"g{n:03d}", "kind": "genuine", "tamper": "", "style": style,
            "sources": {s.key: s.ref for s in sources}, "uncited": 0, "unbound": 0}  # fmt: skip
    if style == "unquoted":
        return {**base, "answer": f"The matter is dealt with in {marker}.",
                "expected": [[src.key, node_id, "unquoted"]]}  # fmt: skip
    if style == "two-citations":
        other = rng.choice([s for s in sources if s.good])
        node2, text2 = rng.choice(other.good)
        s2 = other.sentences(text2)
        if not s2 or (other.key, node2) == (src.key, node_id):
            return None
        q1, q2 = run_of_words(rng, sentence), run_of_words(rng, rng.choice(s2))
        if q1 not in flat(text) or q2 not in flat(text2):
            return None
        answer = f"[{src.key}:{node_id}] provides “{q1}”, while [{other.key}:{node2}] adds “{q2}”."
        return {**base, "answer": answer,
                "expected": [[src.key, node_id, "verified"], [other.key, node2, "verified"]]}  # fmt: skip
    if style == "ellipsis":
        words = sentence.split()
        if len(words) < 14:
            return None
        a, b = " ".join(words[:5]).strip(",;:"), " ".join(words[-5:]).strip(",;:.")
        if a not in flat(text) or b not in flat(text):
            return None
        return {**base, "answer": f"The provision: “{a} … {b}” {marker}.",
                "expected": [[src.key, node_id, "verified"]]}  # fmt: skip
    quote = run_of_words(rng, sentence)
    if style == "capital-first" and not quote[:1].islower():
        return None
    if style in ("single-before", "single-after") and ("'" in quote or "’" in quote):
        return None
    if quote not in flat(text):
        return None
    return {**base, "answer": render(style, quote, marker, rng),
            "expected": [[src.key, node_id, "verified"]]}  # fmt: skip


def changed_word(rng: random.Random, quote: str) -> str | None:
    words = quote.split()
    swaps = {"shall": "may", "may": "shall", "not": "also", "any": "no", "all": "some",
             "Agreement": "Amendment", "Company": "Purchaser", "written": "oral",
             "days": "months", "prior": "later", "exclusive": "non-exclusive"}  # fmt: skip
    options = [i for i, w in enumerate(words) if w.strip(",.;:") in swaps]
    if options:
        i = rng.choice(options)
        core = words[i].strip(",.;:")
        words[i] = words[i].replace(core, swaps[core])
    else:
        i = rng.randrange(len(words))
        words[i] = "expressly" if words[i] != "expressly" else "never"
    return " ".join(words)


def tampered_case(rng: random.Random, sources: list[Source], kind: str, n: int) -> dict | None:
    src = rng.choice(sources)
    node_id, text = rng.choice(src.good)
    sentences = src.sentences(text)
    if not sentences:
        return None
    style = rng.choice(TAMPER_STYLES)
    base = {"id": f"t{n:03d}", "kind": "tampered", "tamper": kind, "style": style,
            "sources": {s.key: s.ref for s in sources}, "uncited": 0, "unbound": 0}  # fmt: skip
    quote = run_of_words(rng, rng.choice(sentences))
    if quote not in flat(text):
        return None
    marker = f"[{src.key}:{node_id}]"
    absent = lambda q: loose(q) not in loose(text)  # noqa: E731
    if kind == "word-changed":
        bad = changed_word(rng, quote)
        if not bad or not absent(bad):
            return None
        return {**base, "answer": render(style, bad, marker, rng),
                "expected": [[src.key, node_id, "quote_not_found"]]}  # fmt: skip
    if kind == "number-changed":
        numbers = re.findall(r"\d+", quote)
        if not numbers:
            sentence = next((s for s in sentences if re.search(r"\d", s)), "")
            if not sentence:
                return None
            words = sentence.split()
            idx = next(i for i, w in enumerate(words) if re.search(r"\d", w))
            lo = max(0, idx - 4)
            quote = " ".join(words[lo : lo + 9]).strip(",;:")
            if quote not in flat(text):
                return None
        bad = re.sub(r"\d+", lambda m: str(int(m.group(0)) + 7), quote, count=1)
        if not absent(bad):
            return None
        return {**base, "answer": render(style, bad, marker, rng),
                "expected": [[src.key, node_id, "quote_not_found"]]}  # fmt: skip
    if kind == "moved":
        other_id, other_text = rng.choice(src.good)
        other_sentences = src.sentences(other_text)
        if other_id == node_id or not other_sentences:
            return None
        moved = run_of_words(rng, rng.choice(other_sentences), 6, 12)
        if moved not in flat(other_text) or not absent(moved):
            return None
        return {**base, "answer": render(style, moved, marker, rng),
                "expected": [[src.key, node_id, "quote_not_found"]]}  # fmt: skip
    if kind == "spliced":
        other_id, other_text = rng.choice(src.good)
        if other_id == node_id:
            return None
        tail = " ".join(flat(text).split()[-5:]).strip(",;:")
        head = " ".join(flat(other_text).split()[:5]).strip(",;:")
        spliced = f"{tail} {head}"
        if not absent(spliced):
            return None
        return {**base, "answer": render(style, spliced, marker, rng),
                "expected": [[src.key, node_id, "quote_not_found"]]}  # fmt: skip
    if kind == "reordered-ellipsis":
        words = rng.choice(sentences).split()
        if len(words) < 14:
            return None
        a, b = " ".join(words[:5]).strip(",;:"), " ".join(words[-5:]).strip(",;:.")
        if loose(b) + loose(a) in loose(text) or not (a in flat(text) and b in flat(text)):
            return None
        if flat(text).find(b) < flat(text).find(a):  # b before a in the text: not reordered
            return None
        return {**base, "style": "ellipsis", "answer": f"The provision: “{b} … {a}” {marker}.",
                "expected": [[src.key, node_id, "quote_not_found"]]}  # fmt: skip
    if kind == "invented-id":
        fake = f"s{rng.randint(40, 99)}.{rng.randint(10, 99)}"
        if fake in src.provisions:
            return None
        return {**base, "answer": render(style, quote, f"[{src.key}:{fake}]", rng),
                "expected": [[src.key, fake, "no_such_provision"]]}  # fmt: skip
    if kind == "other-matter":
        # A real provision of a document that is not in this matter (a key the matter lacks).
        return {**base, "answer": render(style, quote, f"[D9:{node_id}]", rng),
                "expected": [["D9", node_id, "no_such_provision"]]}  # fmt: skip
    if kind == "unbound-quote":
        return {**base, "style": "no-citation",
                "answer": f"The agreement says “{quote}”.", "expected": [], "unbound": 1}  # fmt: skip
    if kind == "uncited-fact":
        good = render("curly-before", quote, marker, rng)
        fact = rng.choice([
            f"The fee payable is ${rng.randint(2, 90) * 1000:,}.",
            f"Notice must be given within {rng.randint(5, 90)} days.",
            f"The cap is {rng.randint(5, 60)}% of the fees paid.",
        ])  # fmt: skip
        return {**base, "style": "no-citation", "answer": f"{good}\n{fact}",
                "expected": [[src.key, node_id, "verified"]], "uncited": 1}  # fmt: skip
    raise ValueError(kind)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-kind", type=int, default=11)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default=str(citation_corpus.CORPUS))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cuad = sorted(p.name for p in (data_dir() / "cuad" / "contracts").glob("*.txt"))[::34]
    refs = [f"demo:{n}" for n in DEMO] + [f"cuad:{n}" for n in cuad]
    sources_all = [Source(f"D{i + 1}", ref) for i, ref in enumerate(refs)]
    sources_all = [s for s in sources_all if s.good]
    cases: list[dict] = []

    # Each answer is set in a matter of three of the documents (the others are not in it).
    def matter() -> list[Source]:  # noqa: E306
        return rng.sample(sources_all, 3)

    n = 0
    for style in GENUINE_STYLES:
        made = 0
        while made < max(6, args.per_kind * len(TAMPER_KINDS) // len(GENUINE_STYLES)):
            case = genuine_case(rng, matter(), style, n)
            if case:
                cases.append(case)
                made += 1
                n += 1
    n = 0
    for kind in TAMPER_KINDS:
        made = 0
        while made < args.per_kind:
            sources = matter()
            case = tampered_case(rng, sources, kind, n)
            if case and (kind != "other-matter" or "D9" not in case["sources"]):
                cases.append(case)
                made += 1
                n += 1
    out = Path(args.out)
    out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), "utf-8")
    genuine = sum(c["kind"] == "genuine" for c in cases)
    print(f"{len(cases)} answers ({genuine} genuine, {len(cases) - genuine} tampered) -> {out}")


if __name__ == "__main__":
    main()
