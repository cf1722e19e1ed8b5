"""Cross-references, defined terms, flags, summaries and keywords."""

from __future__ import annotations

import pytest

from legalnav.documents.parsing import guess_kind, parse_document
from legalnav.documents.parsing.trie import phrase_regex
from tests.conftest import demo_bytes

AGREEMENT = """CREDIT AGREEMENT dated as of April 6, 2020 among ACME CORP. (the “Borrower”), the lenders
party hereto (each, a “Lender” and, collectively, the “Lenders”) and BIG BANK, N.A., as agent
(in such capacity, the “Agent”).

ARTICLE I
DEFINITIONS

Section 1.01. Defined Terms.
“Business Day” means any day other than a Saturday or Sunday.
“Commitment” means, for each Lender, the amount set out on Schedule 1.1, as reduced under
Section 2.05 and Sections 2.06 and 2.07.
“Loan” has the meaning set forth in Section 2.01.

ARTICLE II
THE CREDITS

Section 2.01. Loans. Each Lender agrees to make a loan (a “Loan”) to the Borrower on any
Business Day in an amount not to exceed its Commitment, subject to clause (b) of Section 2.07.
Section 2.05. Reduction. The Borrower may reduce the Commitments upon three Business Days’
notice; provided that no reduction shall be less than $5,000,000.
Section 2.06. Interest. Loans bear interest at 2.5% per annum above the Base Rate.
Section 2.07. Conditions.
(a) The Agent shall have received the documents listed in Exhibit A.
(b) No Default shall have occurred, and clause (a) above shall have been satisfied.
Section 2.08. Limitation of Liability. In no event shall the Agent be liable for any
consequential damages. See also Article VII and Section 10 of the Securities Act.

ARTICLE III
MISCELLANEOUS

Section 3.01. Amendments. Section 9.02 of the Existing Credit Agreement is superseded.

IN WITNESS WHEREOF, the parties have executed this Agreement.

SCHEDULE 1.1
COMMITMENTS

EXHIBIT A
FORM OF NOTICE
"""


@pytest.fixture(scope="module")
def parsed():
    return parse_document(AGREEMENT)


def node(parsed, node_id):
    return next(n for n in parsed.nodes if n.node_id == node_id)


def refs_from(parsed, node_id):
    idx = parsed.nodes.index(node(parsed, node_id))
    return [
        (
            r.text.replace("\n", " "),
            r.target_ref,
            parsed.nodes[r.target].node_id if r.target is not None else None,
        )
        for r in parsed.refs
        if r.source == idx
    ]


def test_reference_lists_ranges_and_attachments_resolve(parsed):
    refs = refs_from(parsed, "def:commitment")
    assert ("Schedule 1.1", "1.1", "sch1.1") in refs
    assert ("Section 2.05", "2.05", "s2.05") in refs
    targets = {t for _, _, t in refs}
    assert {"s2.06", "s2.07"} <= targets  # "Sections 2.06 and 2.07"


def test_clause_of_section_resolves_to_the_sub_clause(parsed):
    refs = refs_from(parsed, "s2.01")
    assert ("clause (b) of Section 2.07", "2.07(b)", "s2.07(b)") in refs


def test_relative_clause_reference_resolves_to_a_sibling(parsed):
    refs = refs_from(parsed, "s2.07(b)")
    assert ("clause (a)", "(a)", "s2.07(a)") in refs


def test_exhibits_articles_and_statutes(parsed):
    assert ("Exhibit A", "A", "exA") in refs_from(parsed, "s2.07(a)")
    refs = {r.text: r for r in parsed.refs if parsed.nodes[r.source].node_id == "s2.08"}
    assert (
        refs["Article VII"].target is None and not refs["Article VII"].external
    )  # no such article
    assert refs["Section 10"].external and refs["Section 10"].qualifier == "Securities Act"


def test_reference_to_another_instrument_is_kept_with_its_name(parsed):
    (ref,) = [r for r in parsed.refs if parsed.nodes[r.source].node_id == "s3.01"]
    assert ref.qualifier == "Existing Credit Agreement" and ref.target is None and not ref.external
    assert AGREEMENT[ref.start : ref.end] == "Section 9.02"


def test_defined_terms_in_both_forms_with_their_uses(parsed):
    terms = {t.term: t for t in parsed.terms}
    assert {"Borrower", "Lender", "Lenders", "Agent", "Business Day", "Commitment", "Loan"} <= set(
        terms
    )
    # "Loan" is defined twice; the "means"-style or parenthetical wins over "has the meaning".
    assert parsed.nodes[terms["Loan"].node].node_id == "s2.01"
    assert parsed.nodes[terms["Borrower"].node].kind == "preamble"
    uses = {parsed.nodes[i].node_id for i in terms["Business Day"].uses}
    assert {"s2.01", "s2.05"} <= uses and "def:business-day" not in uses


def test_flags(parsed):
    assert node(parsed, "s2.05").flags["hasMoney"]
    assert node(parsed, "s2.05").flags["hasCondition"]  # "provided that"
    assert node(parsed, "s2.06").flags["hasPercentage"]
    assert not node(parsed, "s2.06").flags["hasMoney"]
    assert node(parsed, "s2.08").flags["hasLiabilityLimit"]
    assert (
        node(parsed, "preamble").flags["hasDate"] and node(parsed, "preamble").flags["isDefinition"]
    )
    assert node(parsed, "def:business-day").flags["isDefinition"]
    assert node(parsed, "s2.01").flags["hasParty"]
    assert not node(parsed, "s2.06").flags["isTocEntry"]


def test_summary_and_keywords_are_deterministic(parsed):
    s205 = node(parsed, "s2.05")
    assert s205.summary.startswith("Reduction: The Borrower may reduce the Commitments")
    assert s205.keywords and all(k == k.lower() for k in s205.keywords)
    again = parse_document(AGREEMENT)
    assert [n.keywords for n in again.nodes] == [n.keywords for n in parsed.nodes]


def test_document_metadata(parsed):
    assert parsed.title == "CREDIT AGREEMENT"
    assert parsed.effective_date.isoformat() == "2020-04-06"
    assert parsed.kind == "agreement"


def test_an_amendment_is_dated_by_its_own_date_not_the_agreements():
    # "… to the Development Agreement ("Development Agreement") entered into on April 15, 2010
    # … This First Amendment will be effective as of July 5, 2011": the old guess took 2010
    text = demo_bytes("bioamber-development-agreement-first-amendment.txt").decode("utf-8")
    parsed = parse_document(text)
    assert parsed.kind == "amendment"
    assert parsed.effective_date.isoformat() == "2011-07-05"


FILLER = "1. Services. The Distributor shall resell the Products in the Territory.\n\n" * 30


@pytest.mark.parametrize(
    "text, dated",
    [
        # no date in the opening: the day the last party signed (CUAD, Gridiron)
        (
            "SUPPLY AGREEMENT\n\n" + FILLER + "BY: /s/ Thomas A. Gallo BY: /s/ Timothy S Orr\n"
            "Date: 1/26/2020 Date: 1/27/2020\nTermination Date: 12/31/2023",
            "2020-01-27",
        ),
        # a short agreement whose opening ends in its signatures (CUAD, Etelos)
        (
            "DISTRIBUTOR AGREEMENT\n\n" + FILLER[:1500] + "Title: President Date: 7/1/98\n"
            "Title: Vice President Date: 7/7/98",
            "1998-07-07",
        ),
        # an amendment's opening names only the amended agreement's date and the date its term
        # is extended to (CUAD, Cisco Amendment): its signatures date it
        (
            "AMENDMENT\n\nWHEREAS, Cisco and Distributor have previously entered into the "
            "Agreement dated January 22, 2007, and\n\n1. The Term of the Agreement is hereby "
            "extended to January 20, 2012.\n\n" + FILLER + "DATE: 8/4/10 DATE: 7-29-10",
            "2010-08-04",
        ),
        # a form's blank date, then the day it takes effect (CUAD, Pharmagen)
        (
            'ENDORSEMENT AGREEMENT\n\nThis Agreement (the "Agreement") is dated as of this ____day '
            "of ____________, 2012, but made effective as of February 20, 2012\n\n"
            + FILLER
            + "Date: March 8, 2012",
            "2012-02-20",
        ),
        # a "Date:" under the title is the document's own (CUAD, TriZetto)
        (
            "TECHNICAL INFRASTRUCTURE MAINTENANCE AGREEMENT\n\nDate:      March 1, 1998\n\n"
            + FILLER
            + "Date: March 4, 1998      Date: March 5, 1998",
            "1998-03-01",
        ),
    ],
)
def test_a_document_is_dated_by_its_opening_else_its_last_signature(text, dated):
    parsed = parse_document(text)
    assert parsed.effective_date is not None and parsed.effective_date.isoformat() == dated


@pytest.mark.parametrize(
    "title, kind",
    [
        (
            "AMENDMENT NO. 2 TO FOURTH AMENDED AND RESTATED RECEIVABLES PURCHASE AGREEMENT",
            "amendment",
        ),
        ("SECOND AMENDMENT TO GOLF COURSE USE AGREEMENT", "amendment"),
        ("AMENDMENT NO. 1", "amendment"),
        ("AMENDED AND RESTATED CREDIT AGREEMENT", "agreement"),
        ("Amended and Restated LLC Agreement", "agreement"),
        ("NON-COMPETITION AGREEMENT AMENDMENT NO. 1", "amendment"),
    ],
)
def test_the_kind_read_from_the_title(title, kind):
    assert guess_kind(title) == kind


def test_real_agreement_references_resolve():
    text = demo_bytes("coned-credit-agreement-2020.txt").decode("utf-8")
    parsed = parse_document(text)
    local = [r for r in parsed.refs if r.kind == "section" and not r.qualifier and not r.external]
    resolved = [r for r in local if r.target is not None]
    assert len(resolved) / len(local) > 0.85
    assert parsed.tags["jurisdiction"] == "New York"
    lender = next(t for t in parsed.terms if t.term == "Lender")
    assert len(lender.uses) > 50


def test_phrase_regex_prefers_the_longest_term():
    rx = phrase_regex(["Base Rate", "Base Rate Loan", "Loan"])
    assert rx.findall("a Base Rate Loan and Loans at the Base Rate") == [
        "Base Rate Loan",
        "Loan",
        "Base Rate",
    ]
    assert phrase_regex([]) is None
