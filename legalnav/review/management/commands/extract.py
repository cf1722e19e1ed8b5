"""The review grid's measurement door: ``manage.py extract --json`` (RETRIEVE-PROTOCOL.md, second
half).

Reads one JSON request a line on stdin (a document and the grid's columns), writes one JSON
response a line on stdout (one cell per column), in the same order; logs go to stderr; exit
status 0 whatever the lines hold. Documents are indexed ad hoc into the same content-hash cache
as ``retrieve --json`` (``retrieval.adhoc``), never into a user's matter. No network and no API
key: the only mode is the offline filler (fill.py).

A column may carry a playbook ``rule`` (RETRIEVE-PROTOCOL.md, "Playbook rules"); its cell then
carries the ``verdict`` that review/rules.py gives it, the same as the grid's deviations view;
a rule that cannot be read gives its cell "review" and a ``rule_error`` saying why.
"""

from __future__ import annotations

import time

from legalnav.retrieval.adhoc import DoorCommand, RequestError
from legalnav.review.columns import ANSWER_TYPES, Column, column_from_request
from legalnav.review.fill import fill_document
from legalnav.review.rules import CellFacts, Rule, RuleError, decide, parse_rule

MODES = ("offline",)


def parse_columns(raw: object) -> tuple[list[Column], dict[str, Rule | str]]:
    """The request's columns, checked: each needs a key, a question and a known type, and keys
    are unique (a grid has one cell per column); and the playbook rule of each column that
    carries one, by key, or why it cannot be read (that cell's verdict is then "review": one
    unreadable rule does not cost the line its other cells)."""
    if not isinstance(raw, list) or not raw:
        raise RequestError("'columns' must be a non-empty list of {key, question, type}")
    columns: list[Column] = []
    rules: dict[str, Rule | str] = {}
    seen: set[str] = set()
    for n, item in enumerate(raw):
        if not isinstance(item, dict):
            raise RequestError(f"column {n}: must be an object with key, question and type")
        key, question, type_ = item.get("key"), item.get("question", ""), item.get("type", "clause")
        if not isinstance(key, str) or not key.strip():
            raise RequestError(f"column {n}: 'key' must be a non-empty string")
        if not isinstance(question, str):
            raise RequestError(f"column {key!r}: 'question' must be a string")
        if type_ not in ANSWER_TYPES:
            raise RequestError(
                f"column {key!r}: 'type' {type_!r} is not one of {', '.join(ANSWER_TYPES)}"
            )
        if key in seen:
            raise RequestError(f"column {key!r} appears twice")
        seen.add(key)
        if not question.strip():
            question = key  # a bare key ("Governing Law") is a question of sorts
        column = column_from_request(key, question, type_)
        columns.append(column)
        if item.get("rule") is not None:
            try:
                # A preset column is read as its own type whatever the request says, and so
                # is its rule, applied as well as the value allows.
                rules[key] = parse_rule(item["rule"], column.type, strict=False)
            except RuleError as exc:
                rules[key] = str(exc)
    return columns, rules


class Command(DoorCommand):
    help = "Fill review-grid cells (JSON lines on stdin) with typed, quoted, scored answers."
    cache_help = (
        "Folder for the per-document indexes, shared with `retrieve --json` (default "
        "settings.LEGALNAV_RETRIEVE_CACHE, var/retrieve-cache)."
    )
    # Each document's index and vectors are written as soon as they exist, so a batch cut
    # short still leaves the documents it read indexed for the next one.
    flush_every = 1

    door = "extract"
    empty = {"cells": []}

    def respond(self, request: dict[str, object], started: float) -> dict[str, object]:
        ident = request.get("id")
        path = request.get("document")
        if not isinstance(path, str) or not path:
            raise RequestError("'document' must be the path of a UTF-8 text file")
        mode = request.get("mode", "offline")
        if mode not in MODES:
            raise RequestError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        columns, rules = parse_columns(request.get("columns"))
        retriever = self.adhoc.retriever([path])
        cells = fill_document(text=self.adhoc.text(path), retriever=retriever, columns=columns)
        out = []
        for column, cell in zip(columns, cells, strict=True):
            row = cell.as_json()
            rule = rules.get(column.key)
            if isinstance(rule, str):
                row["verdict"], row["rule_error"] = "review", rule
            elif rule is not None:
                facts = CellFacts(column.type, cell.value, cell.found, cell.typed)
                row["verdict"] = decide(rule, facts, column=column.key).verdict
            out.append(row)
        return {
            "id": ident,
            "cells": out,
            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
        }
