"""Case cards, paragraphs and parent chunks from real judgments (AILA 2019 Indian Supreme Court
reports and 2020 Court of Appeal transcripts, read from ../shared/data)."""

from __future__ import annotations

from datetime import date

from legalnav.research.judgments import (
    case_card,
    closing_outcome,
    looks_like_judgment,
    names_match,
    operative_result,
    paragraph_at,
    paragraphs,
    parent_chunks,
    treatment_of,
)
from tests.conftest import demo_bytes
from tests.research.conftest import aila_text, uk_text


def test_aila_header_gives_court_date_parties_judge_and_outcome():
    card = case_card(aila_text("C100"))
    assert card.case_name == "Hiten P. Dalal v Bratindranath Banerjee"
    assert card.court == "Supreme Court of India"
    assert card.decided == date(2001, 7, 11)
    assert card.case_number == "Appeal (Cr.) 688 of 1995"
    assert card.judges == ["Ruma Pal"]
    assert card.appellants == ["Hiten P. Dalal"] and card.respondents == ["Bratindranath Banerjee"]
    assert card.criminal and card.proceeding == "criminal appeal"
    assert (card.outcome, card.winner) == ("dismissed", "respondent")
    assert card.outcome_text == "Appeal dismissed"
    names = {s.name: s.sections for s in card.statutes}
    assert names["Negotiable Instruments Act, 1881"][:3] == ["138", "118", "139"]


def test_state_appellant_and_negative_treatment_flag_are_read():
    card = case_card(aila_text("C2215"))
    assert card.appellants == ["State of Madhya Pradesh"] and card.appellant_role == "state"
    assert card.respondent_role == "private"
    assert card.judicial_treatment == "Negative Judicial Treatment"
    assert card.outcome == "dismissed" and card.winner == "respondent"
    articles = next(s for s in card.statutes if s.name == "Constitution of India").sections
    assert "Article 226" in articles


def test_cited_cases_keep_names_reports_and_paragraphs():
    text = aila_text("C100")
    card = case_card(text)
    by_name = {c.name: c for c in card.cases_cited}
    minoo = by_name["Minoo Mehta v. Sharak D. Mehta"]
    assert minoo.citation == "(1998) 2 SCC 418"
    assert minoo.paragraphs and all(p > 0 for p in minoo.paragraphs)
    assert "State of Madras v. A. Vaidyanatha Iyer" in by_name
    # A bare report citation attached to a named case is not listed a second time.
    assert "(1998) 2 SCC 418" not in by_name


def test_court_of_appeal_transcript_card():
    card = case_card(uk_text("2020-ewca-1004-civ"))
    assert card.neutral_citation == "[2020] EWCA Civ 1004"
    assert card.court == "Court of Appeal (Civil Division)"
    assert card.decided == date(2020, 7, 31)
    assert card.judges == [
        "Lord Justice Lindblom",
        "Lord Justice Haddon-Cave",
        "Lord Justice Green",
    ]
    assert card.appellants == ["R. (on the application of Christopher Packham)"]
    assert card.respondents[0] == "Secretary of State for Transport"
    assert card.outcome == "dismissed" and "refuse permission" in card.outcome_text
    assert card.outcome_paragraph == 105
    assert any(s.name == "Climate Change Act, 2008" for s in card.statutes)


def test_paragraphs_follow_the_printed_numbers_and_headings():
    text = uk_text("2020-ewca-1004-civ")
    paras = paragraphs(text)
    numbered = [p for p in paras if p.numbered]
    assert [p.number for p in numbered] == list(range(1, 106))
    assert text[numbered[0].start :].startswith("1. This is the judgment of the court.")
    conclusion = next(p for p in numbered if p.number == 105)
    assert conclusion.heading == "Conclusion"
    assert "Conclusion" not in text[numbered[-2].start : numbered[-2].end]
    inside = text.index("legally impeccable")
    assert paragraph_at(paras, inside).number == 103 or paragraph_at(paras, inside).number == 104


def test_a_numbered_line_out_of_sequence_stays_inside_its_paragraph():
    text = (
        "A v B\nSupreme Court of India\n\n1 January 2000\n"
        "1. The first paragraph lists:\n2. a quoted clause\n3. another one\n"
        "2. The second paragraph.\n5. A skipped number is tolerated.\n"
    )
    paras = [p for p in paragraphs(text) if p.numbered]
    # A "2." after paragraph 3 would take the numbering backwards: it is text of paragraph 3.
    assert [p.number for p in paras] == [1, 2, 3, 5]
    assert "2. The second paragraph." in text[paras[2].start : paras[2].end]


def test_parent_chunks_keep_whole_paragraphs_and_cover_the_body():
    text = aila_text("C2000")
    paras = paragraphs(text)
    parents = parent_chunks(text, paras)
    assert parents[0].id == "P0" and parents[0].label == "header"
    body = [p for p in parents if p.id != "P0"]
    assert [p.id for p in body] == [f"P{i}" for i in range(1, len(body) + 1)]
    starts = {p.start for p in paras}
    ends = {p.end for p in paras}
    for chunk in body:
        assert chunk.start in starts and chunk.end in ends  # never inside a paragraph
        assert chunk.end - chunk.start <= 6000 or chunk.first == chunk.last
    # consecutive and complete: every numbered paragraph is in exactly one parent
    covered = [n for p in body for n in range(p.first, p.last + 1)]
    assert covered == [p.number for p in paras if p.numbered]


def test_outcome_prefers_the_reports_closing_line():
    assert closing_outcome("… we allow the appeal to the extent indicated.\nAppeal dismissed.\n")[
        0
    ] == ("dismissed")
    assert closing_outcome("Some text.\nAppeals partly allowed\n")[0] == "partly_allowed"
    assert closing_outcome("For these reasons I would allow the appeal.\n\nLord X:\nI agree.")[
        0
    ] == ("allowed")
    assert closing_outcome("Nothing decided here.")[0] == "unknown"


def test_an_appeal_disposed_of_is_won_by_whom_its_operative_order_favours():
    # C19: the State appealed an acquittal; "We restore the conviction … We also convict".
    card = case_card(aila_text("C19"))
    assert (card.outcome, card.appellant_role) == ("disposed", "state")
    assert card.winner == "appellant" and "convict" in card.outcome_text
    # C128: the accused engineers appealed; "Consequent upon their acquittal …".
    card = case_card(aila_text("C128"))
    assert card.winner == "appellant" and "acquittal" in card.outcome_text
    # C121: the order below "modified only to the extent of compensation", else kept.
    assert case_card(aila_text("C121")).winner == "mixed"


def test_the_operative_order_is_read_from_the_courts_own_words():
    acquitted = (
        "The appeal has to succeed, the conviction as recorded by the High Court is set aside."
    )
    assert operative_result(acquitted)[0] == "accused"
    both = "We set aside the conviction under Section 302 and instead convict them under 304."
    assert operative_result(both)[0] == "mixed"
    assert operative_result("We set aside the impugned order and remit the matter.")[0] == (
        "appellant"
    )
    # A court below's order, quoted, is not this court's order.
    quoted = 'The trial court said: "A-5 shall be released forthwith if not required."\n2. Facts.'
    assert operative_result(quoted) == ("", "", -1)
    assert operative_result("Order accordingly.") == ("", "", -1)


def test_treatment_reads_negations_before_plain_cues():
    assert treatment_of("That decision was not followed in later cases.").cue == "not followed"
    assert treatment_of("The case cannot be distinguished on facts.").polarity == "supporting"
    assert treatment_of("Smith v Jones is distinguishable on its facts.").polarity == "adverse"
    assert treatment_of("We hereby overrule Clark v. Barney.").cue == "overruled"
    assert (
        treatment_of("The principle was applied in Roberts v Johnstone.").polarity == "supporting"
    )
    assert treatment_of("The hearing was followed by a short adjournment.").polarity == "neutral"
    # Praise is not treatment; a distinguished decision still is.
    praise = "Both usages derive from the writings of distinguished scholars of international law."
    assert treatment_of(praise).polarity == "neutral"
    assert treatment_of("Re B was distinguished: the facts differ.").cue == "distinguished"


def test_names_match_needs_both_sides():
    assert names_match(
        "State of Bombay v. Kathi Kalu Oghad", "State Of Bombay v Kathi Kalu Oghad & Ors"
    )
    assert not names_match("Kathi Kalu Oghad", "State Of Bombay v Kathi Kalu Oghad")
    assert not names_match("State of Bihar v. Ram Naresh", "State of Bihar v. Kalika Tuleshwar")


def test_judgments_are_recognised_and_agreements_are_not():
    assert looks_like_judgment(aila_text("C1"))
    assert looks_like_judgment(uk_text("2020-ewca-1004-civ"))
    assert not looks_like_judgment(demo_bytes(_first_demo()).decode("utf-8", "replace"))


def _first_demo() -> str:
    from tests.conftest import DEMO

    return sorted(p.name for p in DEMO.iterdir() if p.suffix in (".txt", ".htm", ".html"))[0]


def test_an_order_of_the_court_reads_as_a_judgment():
    # Madhu Mehta v Union of India: "JUDGMENT:" and the court line, few party words.
    assert looks_like_judgment(aila_text("C1781"))
    assert looks_like_judgment(aila_text("C2342"))


def test_transcript_with_a_numeric_date_and_spaced_colons():
    card = case_card(uk_text("2020-ewca-1058-civ"))  # "Date: 11/08/2020", "Between :"
    assert card.decided == date(2020, 8, 11)
    assert card.case_name.startswith("R (on the application of Edward BRIDGES) v ")
    assert card.judges[-1] == "LORD JUSTICE SINGH"
    hoareau = case_card(uk_text("2020-ewca-1010-civ"))
    assert hoareau.decided == date(2020, 7, 30)  # not the hearing date


def test_a_civil_division_transcript_is_not_criminal():
    # A claim for malicious prosecution speaks of convictions throughout; it is still civil.
    text = (
        "Neutral Citation Number: [2021] EWCA Civ 9998\n"
        "IN THE COURT OF APPEAL (CIVIL DIVISION)\nBetween :\nROSS QUINN\nAppellant\n- and -\n"
        "THE CHIEF CONSTABLE OF WESSEX POLICE\nRespondent\n- - - - - -\n"
        "1. The appellant was convicted, and his conviction was quashed; the accused then sued. "
        "The prosecution, the conviction and the acquittal are the background. The accused "
        "says the prosecution was malicious; the conviction and acquittal are not in issue.\n"
        "2. I would allow the appeal.\n"
    )
    card = case_card(text)
    assert card.criminal is False and card.proceeding == "civil appeal"
    assert "accused" not in (card.appellant_label, card.respondent_label)
