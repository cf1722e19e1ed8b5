"""The citation checker (legalnav.answers.citations) and the sentence splitter it and the
offline answerer use: every quotation style and position, typographic normalisation and
nothing more, the verdicts, and the adversarial corpus of answers built from real provisions."""

from __future__ import annotations

import pytest

from legalnav.answers.citations import extract, quote_in, validate
from legalnav.answers.sentences import sentences

NY = (
    "This Agreement shall be governed by the laws of the State of New York, without regard to "
    "its conflict of laws principles."
)
FORUM = "Each party submits to the exclusive jurisdiction of the courts of New York County."
PROVISIONS = {("D1", "s9"): NY, ("D1", "s10"): FORUM}


def lookup(doc: str, node: str) -> str | None:
    return PROVISIONS.get((doc, node))


def verdicts(answer: str) -> list[tuple[str, str]]:
    return [(c.node_id, c.verdict) for c in validate(answer, lookup).checks]


# The ten invented quotations tried by hand against the old checker; five passed as verified.
INVENTED = {
    "after the marker": "[D1:s9] provides that “the laws of Delaware apply”.",
    "single quotes": "The clause reads 'the laws of Delaware apply' [D1:s9].",
    "guillemets": "The clause reads «the laws of Delaware apply» [D1:s9].",
    "on the line before": "The governing law clause says “the laws of Delaware apply”\n[D1:s9]",
    "block quote": "Section 9 provides:\n> The laws of Delaware apply.\n[D1:s9]",
    "straight before": 'It reads "the laws of Delaware apply" [D1:s9].',
    "curly before": "It reads “the laws of Delaware apply” [D1:s9].",
    "German quotes": "It reads „the laws of Delaware apply“ [D1:s9].",
    "block quote with marks": "> “The laws of Delaware apply.” [D1:s9]",
    "across a line break": "It reads “the laws of\nDelaware apply” [D1:s9].",
}


@pytest.mark.parametrize("answer", INVENTED.values(), ids=INVENTED.keys())
def test_an_invented_quotation_is_caught_in_every_style_and_position(answer):
    assert verdicts(answer) == [("s9", "quote_not_found")]
    assert not validate(answer, lookup).ok


GENUINE = {
    "curly before": "“This Agreement shall be governed by the laws of the State of New York” [D1:s9].",
    "after, bracketed capital": "[D1:s9] provides that “[t]his Agreement shall be governed by the laws of the State of New York.”",
    "lower-cased first letter": "The clause says “this Agreement shall be governed by the laws” [D1:s9].",
    "ellipsis as a gap": "“This Agreement shall be governed … the laws of the State of New York” [D1:s9]",
    "apostrophes around": "The parties' choice: 'governed by the laws of the State of New York' [D1:s9], the Buyer's forum.",
    "hyphenated at a line break": "“the State of New York, without regard to its con-\nflict of laws principles” [D1:s9]",
    "dash and spacing": "“New   York,  without regard” [D1:s9]",
    "block quote then marker": "Section 9 provides:\n> This Agreement shall be governed by the laws of the State of New York\n— [D1:s9]",
}


@pytest.mark.parametrize("answer", GENUINE.values(), ids=GENUINE.keys())
def test_a_genuine_quotation_is_verified_in_every_style(answer):
    result = validate(answer, lookup)
    assert [(c.node_id, c.verdict) for c in result.checks] == [("s9", "verified")]
    assert result.ok and not result.uncited


def test_only_typography_is_normalised_never_words_case_or_order():
    assert quote_in("THIS AGREEMENT SHALL BE GOVERNED", NY) is False  # case is not typographic
    assert quote_in("governed by the law of the State", NY) is False  # one letter
    assert quote_in("conflict of laws principles … governed by", NY) is False  # order
    assert quote_in("the State of New York … the laws", NY) is False
    assert quote_in("State of New York, without regard", NY) is True
    assert quote_in("…", NY) is None  # nothing to check


def test_each_quotation_binds_to_the_marker_it_supports():
    answer = (
        "Section 9 [D1:s9] provides “the laws of the State of New York” govern, while "
        "Section 10 [D1:s10] gives “exclusive jurisdiction”."
    )
    assert verdicts(answer) == [("s9", "verified"), ("s10", "verified")]
    # The same quotations swapped between the two markers are both caught.
    swapped = "“exclusive jurisdiction” [D1:s9] and “the laws of the State of New York” [D1:s10]."
    assert verdicts(swapped) == [("s9", "quote_not_found"), ("s10", "quote_not_found")]
    # Two quotations before one marker both belong to it.
    both = "“governed by the laws” and “exclusive jurisdiction” [D1:s9]."
    assert verdicts(both) == [("s9", "verified"), ("s9", "quote_not_found")]
    assert extract(both) == [("D1", "s9", ["governed by the laws", "exclusive jurisdiction"])]


def test_the_other_verdicts():
    assert verdicts("Delaware law governs [D1:s9].") == [("s9", "unquoted")]
    assert verdicts("“anything at all” [D1:s99]") == [("s99", "no_such_provision")]
    assert verdicts("“anything at all” [D7:s9]") == [("s9", "no_such_provision")]
    unbound = validate("It says “the laws of Delaware apply”.", lookup)
    assert unbound.checks == [] and unbound.unbound == ["the laws of Delaware apply"]
    assert not unbound.ok
    uncited = validate("New York law governs [D1:s9].\nThe cap is 15% of the fees.", lookup)
    assert uncited.uncited == ["The cap is 15% of the fees."] and not uncited.ok
    assert uncited.levels()["unquoted"] == 1 and uncited.levels()["uncited"] == 1


def test_sentences_know_abbreviations_initials_and_clause_numbers():
    text = (
        "The Seller is Acme Inc., a corporation of the U.S. State of Delaware, and Beta Corp. "
        "The term is 5 years, e.g. until 2030, i.e. five renewals. See Sec. 4 and No. 7. "
        "John A. Smith signed. Section 2.01. Term. The parties agree."
    )
    assert sentences(text) == [
        "The Seller is Acme Inc., a corporation of the U.S. State of Delaware, and Beta Corp.",
        "The term is 5 years, e.g. until 2030, i.e. five renewals.",
        "See Sec. 4 and No. 7.",
        "John A. Smith signed.",
        "Section 2.01. Term.",
        "The parties agree.",
    ]
    assert sentences("1. Definitions. In this Agreement: (a) terms apply.") == [
        "1. Definitions.",
        "In this Agreement:",
        "(a) terms apply.",
    ]
    assert sentences("It is governed by the laws of the U.S. This is final.") == [
        "It is governed by the laws of the U.S.",
        "This is final.",
    ]


def test_the_adversarial_corpus_every_tampered_citation_caught_no_genuine_one_flagged():
    from legalnav.evaluation import citation_corpus

    cases = citation_corpus.load()
    report = citation_corpus.run(cases)
    summary = report.summary()
    wrong = [
        (o.case["id"], o.case["tamper"], o.got, o.expected)
        for o in report.outcomes
        if not o.as_expected
    ]
    assert wrong == []
    assert summary["cases"] >= 150
    assert summary["tampered"] >= 75 and summary["genuine"] >= 75
    assert summary["tampered_caught"] == summary["tampered"]
    assert summary["genuine_flagged"] == 0
    # Built from real provisions of the demo and of CUAD contracts, in every style.
    refs = {ref.split(":")[0] for c in cases for ref in c["sources"].values()}
    assert refs == {"demo", "cuad"}
    for style in ("single-before", "guillemet-before", "curly-after", "block", "line-before",
                  "across-line-break", "ellipsis", "hyphen-line-break"):  # fmt: skip
        assert style in summary["styles"]
    assert set(summary["by_kind"]) >= {
        "genuine", "word-changed", "moved", "invented-id", "other-matter", "spliced",
    }  # fmt: skip


def test_the_users_own_words_echoed_in_an_answer_are_no_uncited_claim():
    question = "My client paid “a fee of $5,000” on 3 May 2019. Was that due under the agreement?"
    answer = (
        "Proposition: My client paid “a fee of $5,000” on 3 May 2019.\n"
        "New York law governs [D1:s9]."
    )
    result = validate(answer, lookup, known=[question])
    assert result.ok and not result.uncited and not result.unbound
    # Without the question, the same line quotes the documents with no citation.
    bare = validate(answer, lookup)
    assert bare.unbound == ["a fee of $5,000"] and not bare.ok
    assert validate("I paid on 3 May 2019.\nNew York law governs [D1:s9].", lookup).uncited


def test_gaps_cannot_stitch_single_words_into_a_new_sentence():
    # Every word is in the provision, in this order; with gaps they say something it does not.
    assert quote_in("This … shall … not be governed", NY) is False
    assert verdicts("“This Agreement … laws … York” [D1:s9]") == [("s9", "quote_not_found")]
    # Gaps between real runs of words are how lawyers quote.
    assert quote_in("shall be governed by … conflict of laws principles", NY) is True


def test_full_width_and_corner_quotation_marks_are_quotations_too():
    assert verdicts("It reads ＂the laws of Delaware apply＂ [D1:s9].") == [
        ("s9", "quote_not_found")
    ]
    assert verdicts("It reads 「the laws of Delaware apply」 [D1:s9].") == [
        ("s9", "quote_not_found")
    ]
    assert verdicts("It reads 「governed by the laws of the State」 [D1:s9].") == [
        ("s9", "verified")
    ]


# --- issue 32: quotations bound to the marker that closes their clause; ellipses that reverse --


def test_a_quotation_binds_to_the_marker_that_closes_its_clause():
    answer = (
        "The agreement is governed by the law of “the State of New York” [D1:s9]; the parties "
        "submit to “the exclusive jurisdiction” of the courts there [D1:s10]."
    )
    assert verdicts(answer) == [("s9", "verified"), ("s10", "verified")]
    # Markers on both sides, no punctuation between: the nearer one after it.
    both = "Clause [D1:s9] sits beside “the exclusive jurisdiction of the courts” [D1:s10]."
    assert verdicts(both) == [("s9", "unquoted"), ("s10", "verified")]
    # The marker before it still holds a quotation its clause gives it, when its words are there
    # and not in the one after.
    before = "Section 9 [D1:s9] provides that “the laws of the State of New York” govern [D1:s10]."
    assert verdicts(before) == [("s9", "verified"), ("s10", "unquoted")]
    # A quotation in neither is caught, against the marker that closes its clause.
    neither = "Section 9 [D1:s9] provides that “the laws of Delaware apply” here [D1:s10]."
    assert verdicts(neither) == [("s9", "unquoted"), ("s10", "quote_not_found")]


@pytest.mark.parametrize(
    ("quoted", "left_out"),
    [
        (
            "governed by the laws of the State of New York … conflict of laws principles",
            "without regard to its",
        ),
    ],
)
def test_an_ellipsis_that_drops_what_reverses_the_meaning_is_flagged(quoted, left_out):
    result = validate(f"It says “{quoted}” [D1:s9].", lookup)
    assert [(c.node_id, c.verdict) for c in result.checks] == [("s9", "quote_elided")]
    assert not result.ok and f"“{left_out}”" in result.checks[0].problem


def test_elided_negations_exceptions_and_conditions_are_named():
    text = (
        "The Supplier shall not assign this Agreement except with the prior written consent of "
        "the Buyer, provided that such consent shall not be unreasonably withheld."
    )
    lookup_one = {("D1", "s4"): text}.get
    cases = {
        "“The Supplier shall … assign this Agreement” [D1:s4]": "not",
        "“shall not assign this Agreement … the prior written consent of the Buyer” [D1:s4]": "except with",
        "“the prior written consent of the Buyer … such consent shall not be unreasonably withheld” [D1:s4]": "provided that",
    }
    for answer, word in cases.items():
        check = validate(answer, lambda d, n: lookup_one((d, n))).checks[0]
        assert check.verdict == "quote_elided" and word in check.problem, (answer, check.problem)
    harmless = (
        "“The Supplier shall not assign … Agreement except with the prior written consent” [D1:s4]"
    )
    assert validate(harmless, lambda d, n: lookup_one((d, n))).checks[0].verdict == "verified"
