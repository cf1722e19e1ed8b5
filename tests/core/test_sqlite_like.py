"""SQLite's LIKE replaced on the embedded default: case folded in every script, wildcards and the
ESCAPE character read as SQLite reads them."""

from __future__ import annotations

import sqlite3

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from legalnav.core.sqlite import like


@pytest.mark.parametrize(
    ("pattern", "value", "escape", "expected"),
    [
        ("%société%", "SOCIÉTÉ GÉNÉRALE", None, True),
        ("%SOCIÉTÉ%", "une société", None, True),
        ("straße", "STRASSE", None, True),  # casefolded, as Python folds
        ("%societe%", "SOCIÉTÉ", None, False),  # accents are letters, not case
        ("a_c", "ABC", None, True),
        ("a_c", "abbc", None, False),
        ("100\\%", "100%", "\\", True),
        ("100\\%", "1000", "\\", False),
        ("a\\_c", "a_c", "\\", True),
        ("a\\_c", "abc", "\\", False),
        ("%.*%", "a.*b", None, True),  # regular-expression characters are only characters
        ("%.*%", "ab", None, False),
        ("%x%", "line one\nline x", None, True),
        (None, "x", None, None),
        ("x", None, None, None),
    ],
)
def test_like_folds_case_and_reads_wildcards(pattern, value, escape, expected) -> None:
    assert like(pattern, value, escape) is expected


def test_an_escape_of_more_than_one_character_is_refused() -> None:
    with pytest.raises(ValueError, match="single character"):
        like("a", "a", "ab")


@pytest.mark.django_db
def test_the_databases_lookups_fold_every_script() -> None:
    users = get_user_model().objects
    users.create_user(username="ÉLODIE", password="x")
    users.create_user(username="zoë", password="x")
    assert list(users.filter(username__iexact="élodie").values_list("username", flat=True)) == [
        "ÉLODIE"
    ]
    assert users.filter(username__icontains="ZOË").count() == 1
    assert users.filter(username__istartswith="éLo").count() == 1
    assert users.filter(username__icontains="zoe").count() == 0
    if connection.vendor == "sqlite":
        # what the embedded default's own LIKE did: ASCII letters only
        raw = sqlite3.connect(":memory:")
        assert raw.execute("select 'ÉLODIE' like 'élodie'").fetchone() == (0,)
        assert connection.cursor().execute("select 'ÉLODIE' like 'élodie'").fetchone() == (1,)
