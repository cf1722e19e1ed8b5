"""The outcome of a Court of Appeal transcript, read from the lead judgment's conclusion."""

from __future__ import annotations

from legalnav.research.judgments import case_card, uk_outcome

HEADER = """Neutral Citation Number: [2020] EWCA Civ 901
Case No: A3/2019/1234
IN THE COURT OF APPEAL (CIVIL DIVISION)
Royal Courts of Justice
Strand, London, WC2A 2LL
Before:
LORD JUSTICE HALE
LADY JUSTICE MORTON
and
LORD JUSTICE PIKE
- - - - - - - - - - - - - - - - - - - -
Between:
ALDER HOMES LIMITED
Appellant
- and -
THE MAYOR AND BURGESSES OF THE LONDON BOROUGH OF FENWICK
Respondent
- - - - - - - - - - - - - - - - - - - -
Approved Judgment
Lord Justice Hale:
"""

REASONS = "".join(
    f"{n}. The judge considered the covenant and the evidence of the surveyor at some length, "
    "and the parties made careful submissions about the meaning of the lease.\n"
    for n in range(1, 30)
)


def _judgment(conclusion: str, after: str = "") -> str:
    return HEADER + REASONS + conclusion + after


CONCUR = "Lady Justice Morton:\n41. I agree.\nLord Justice Pike:\n42. I also agree.\n"


def test_lead_conclusion_is_read_and_concurrences_do_not_override():
    text = _judgment(
        "Conclusion\n40. For these reasons I would dismiss this appeal.\n",
        "Lady Justice Morton:\n41. I agree.\nLord Justice Pike:\n42. I agree. The appeal "
        "against the costs order made below, which was never pursued, would have been allowed "
        "had it been argued.\n",
    )
    outcome, words, at = uk_outcome(text)
    assert outcome == "dismissed"
    assert words == "For these reasons I would dismiss this appeal."
    assert text[at:].startswith(words)
    card = case_card(text)
    assert (card.outcome, card.winner) == ("dismissed", "respondent")
    assert text.rfind(card.outcome_text) >= 0


def test_a_dissent_does_not_count():
    text = _judgment(
        "40. For these reasons I would allow the appeal and set aside the order of the judge.\n",
        "Lady Justice Morton:\n41. I agree.\nLord Justice Pike:\n42. I respectfully disagree "
        "with Hale LJ. The judge was entitled to reach the view she did, and I would dismiss the "
        "appeal.\n",
    )
    assert uk_outcome(text)[:2] == (
        "allowed",
        "For these reasons I would allow the appeal and set aside the order of the judge.",
    )


def test_would_have_and_submissions_are_no_order():
    text = _judgment(
        "40. Mr Grant submitted that the appeal should be allowed. Had the point been open, I "
        "would have allowed the appeal. In the result the appeal must be dismissed.\n",
        CONCUR,
    )
    assert uk_outcome(text)[:2] == ("dismissed", "In the result the appeal must be dismissed.")


def test_allowed_on_one_ground_and_dismissed_on_another_is_a_part_win():
    text = _judgment(
        "Disposal\n40. I would therefore allow the appeal on ground 1 but dismiss it on "
        "ground 2.\n",
        CONCUR,
    )
    card = case_card(text)
    assert (card.outcome, card.winner) == ("partly_allowed", "mixed")
    assert card.outcome_text.startswith("I would therefore allow the appeal on ground 1")


def test_the_appeal_is_allowed_to_the_extent_is_a_part_win():
    text = _judgment(
        "40. The appeal is allowed to the extent that paragraph 3 of the order is varied.\n",
        CONCUR,
    )
    assert uk_outcome(text)[0] == "partly_allowed"


def test_a_cross_appeal_dismissed_beside_an_appeal_allowed_is_the_appellants_win():
    text = _judgment(
        "40. For those reasons, I would allow the appeal, and dismiss the respondent's cross\n"
        "appeal.\n",
        CONCUR,
    )
    outcome, words, _ = uk_outcome(text)
    assert outcome == "allowed" and "cross\nappeal" in words and text.rfind(words) >= 0


def test_permission_refused_is_the_applicants_loss():
    text = _judgment(
        "40. The proposed grounds have no real prospect of success and I would refuse "
        "permission to appeal.\n",
        CONCUR,
    )
    card = case_card(text)
    assert (card.outcome, card.winner) == ("dismissed", "respondent")
    assert card.outcome_text.endswith("I would refuse permission to appeal.")


def test_permission_granted_but_appeal_dismissed():
    text = _judgment("40. I would grant permission but dismiss the appeal.\n", CONCUR)
    assert uk_outcome(text)[0] == "dismissed"


def test_remitted_to_the_tribunal_is_remanded():
    text = _judgment(
        "40. I would therefore allow the appeal and remit the matter to the Upper Tribunal for "
        "a fresh hearing.\n",
        CONCUR,
    )
    card = case_card(text)
    assert (card.outcome, card.winner) == ("remanded", "appellant")


def test_dismissed_at_the_hearing_and_reasons_given_later():
    text = _judgment(
        "40. At the end of the hearing we announced that the appeal would be dismissed, for "
        "reasons to be given later. These are those reasons.\n",
        CONCUR,
    )
    assert uk_outcome(text)[0] == "dismissed"


def test_a_conclusion_reporting_another_courts_decision_is_no_order():
    text = _judgment(
        "40. Lord Reed agreed with Lord Carnwath that the appeal should be dismissed. The "
        "reasoning does not touch the present case, which turns on its own lease.\n",
        CONCUR,
    )
    assert uk_outcome(text)[0] == "unknown"


def test_only_concurrences_say_it_when_the_lead_does_not():
    text = _judgment(
        "40. The judge was right about the covenant.\n",
        "Lady Justice Morton:\n41. I agree that the appeal should be dismissed.\n",
    )
    assert uk_outcome(text)[0] == "dismissed"
