"""The parties of a Court of Appeal (England and Wales) transcript on its case card: who appeals,
what each side was below, which is a public body, and what the text calls each side; and the
stance for a side read from a UK brief."""

from __future__ import annotations

import pytest

from legalnav.research.judgments.card import case_card
from legalnav.research.judgments.header import is_uk_transcript
from legalnav.research.judgments.uk_sides import uk_parties_of, uk_title
from legalnav.research.reading import read_side
from legalnav.research.stance import ADVERSE, SUPPORTING, CardFacts, outcome_stance
from tests.research.conftest import UK, shared

RULE = "- - - - - - - - - - - - - - - - - - - - -"


def transcript(parties: str, body: str, counsel: str = "") -> str:
    """A transcript in the layout of the Court of Appeal's approved judgments."""
    return "\n".join(
        [
            "Neutral Citation Number: [2021] EWCA Civ 9999",
            "Case No: A2/2021/0001",
            "IN THE COURT OF APPEAL (CIVIL DIVISION)",
            "ON APPEAL FROM THE HIGH COURT OF JUSTICE",
            "Royal Courts of Justice",
            "Strand, London, WC2A 2LL",
            "Date: 14/05/2021",
            "Before :",
            "LORD JUSTICE ALDER",
            "LADY JUSTICE BRAMLEY",
            "and",
            "LORD JUSTICE COPPARD",
            RULE,
            "Between :",
            parties,
            RULE,
            counsel
            or "Ann Foster (instructed by Foster LLP) for the Appellant\n"
            "Ben Grey (instructed by Grey & Co) for the Respondent",
            "Hearing date: 3 March 2021",
            RULE,
            "Approved Judgment",
            "Lady Justice Bramley:",
            body,
        ]
    )


def test_brackets_give_what_each_side_was_below():
    text = transcript(
        "MR OWEN PRICE\nAppellant\n \n (Defendant)\n- and -\nMS RUTH ELLIS\nRespondent (Claimant)",
        "1. The respondent was hurt when the appellant's car struck hers.\n"
        "2. For these reasons I would dismiss the appeal.",
    )
    card = case_card(text)
    assert card.appellants == ["MR OWEN PRICE"] and card.respondents == ["MS RUTH ELLIS"]
    assert card.case_name == "MR OWEN PRICE v MS RUTH ELLIS"
    assert (card.appellant_label, card.respondent_label) == ("defendant", "claimant")
    assert (card.appellant_role, card.respondent_role) == ("private", "private")


def test_a_name_broken_over_lines_by_its_role_is_one_public_body():
    text = transcript(
        "DT (GHANA)\nAppellant\n- and -\nTHE SECRETARY OF STATE FOR THE HOME\n \n Respondent\n"
        " DEPARTMENT",
        "1. The appellant is a citizen of Ghana facing deportation.\n2. I would allow the appeal.",
    )
    card = case_card(text)
    assert card.respondents == ["THE SECRETARY OF STATE FOR THE HOME DEPARTMENT"]
    assert (card.appellant_role, card.respondent_role) == ("private", "state")
    # An "and –" with an en dash still divides the parties: HMRC is one side only.
    hmrc = case_card(
        transcript(
            "THE COMMISSIONERS FOR HER MAJESTY’S\n \n Appellants\n REVENUE AND CUSTOMS\n"
            "and –\nHOLLYBANK TRADING LIMITED\nRespondent",
            "1. The respondent (the taxpayer) appealed against a closure notice.\n"
            "2. I would dismiss the appeal.",
        )
    )
    assert hmrc.appellants == ["THE COMMISSIONERS FOR HER MAJESTY’S REVENUE AND CUSTOMS"]
    assert hmrc.respondents == ["HOLLYBANK TRADING LIMITED"]
    assert (hmrc.appellant_label, hmrc.respondent_label) == ("revenue", "assessee")


def test_the_defendant_appeals_when_the_claimant_is_the_respondent():
    text = transcript(
        "ASHWORTH & KEMP (A FIRM)\nClaimant and Respondent\n- and -\nLEE\nDefendant",
        "1. This is an appeal by the defendant, Mr Daniel Lee, against an order of committal "
        "made in the County Court at Leeds.\n2. The appeal is dismissed.",
        counsel="MR LEE appeared in person\nMS HART (instructed by Ashworth & Kemp) appeared on "
        "behalf of the Claimant/Respondent",
    )
    assert is_uk_transcript(text[:1200])
    card = case_card(text)
    assert card.appellants == ["LEE"] and card.respondents == ["ASHWORTH & KEMP (A FIRM)"]
    assert card.case_name == "ASHWORTH & KEMP (A FIRM) v LEE"  # the header's order
    assert card.appellant_label == "defendant contemnor"
    assert card.respondent_label == "claimant"


def test_role_lines_printed_together_go_to_the_groups_above_them():
    text = transcript(
        "MISS ELLA WARD (by her mother and litigation friend)\nClaimant\n- and -\n"
        "(1) NORTHFIELD CARE TRUST\n(2) MINISTRY OF DEFENCE\n-and-\nKLINIKUM SUD GMBH\n"
        "Respondents/\nDefendants\nAppellant/\nThird Party",
        "1. The third party appeals against the refusal to strike out the contribution claim.\n"
        "2. I would dismiss the appeal.",
    )
    card = case_card(text)
    assert card.appellants == ["KLINIKUM SUD GMBH"]
    assert card.respondents == ["NORTHFIELD CARE TRUST", "MINISTRY OF DEFENCE"]
    assert card.respondent_label == "defendant" and card.appellant_label == ""
    assert card.respondent_role == "state"  # the Ministry of Defence


def test_the_text_says_what_each_side_was_below():
    text = transcript(
        "LONDON BOROUGH OF NORTHBRIDGE\nAppellant\n- and -\nGHJ\nRespondent",
        "1. This is the appeal of the London Borough of Northbridge (“the Appellant”) (the Second "
        "Defendant to the proceedings) from the order of Mr Justice Dale.\n"
        "2. I would dismiss the appeal.",
    )
    card = case_card(text)
    assert (card.appellant_role, card.respondent_role) == ("state", "private")
    assert (card.appellant_label, card.respondent_label) == ("defendant", "claimant")


def test_who_sued_whom_is_read_from_the_names_the_judgment_uses():
    text = transcript(
        "NORA JANE CARTER\nAppellant\n- and -\nPENROSE & WEBB SOLICITORS (A Firm)\nRespondent",
        "1. This is the appeal of Ms Nora Carter (“Ms Carter”) from an order striking out her "
        "claim. The respondent, Penrose & Webb Solicitors (“the Firm”), acted for her in a "
        "boundary dispute.\n"
        "2. Ms Carter’s claim for professional negligence against the Firm was issued in 2019.\n"
        "3. I would dismiss the appeal.",
    )
    card = case_card(text)
    assert (card.appellant_label, card.respondent_label) == ("claimant", "defendant")


def test_a_text_that_contradicts_itself_says_nothing():
    parties = uk_parties_of(
        "Between :\nP\nAppellant\n- and -\nQ\nRespondent\n" + RULE + "\n",
        "1. The claimant and appellant says one thing. Elsewhere the appellant and defendant "
        "says another.",
    )
    assert (parties.appellant_below, parties.respondent_below) == ("", "")


@pytest.mark.parametrize(
    ("brief", "parties", "body", "bucket", "position"),
    [
        # Objectors against the council that granted permission: they answered and lost.
        (
            "We act for local residents challenging the grant of planning permission.",
            "MORLAND DISTRICT COUNCIL\nAppellant\n- and -\nTHE QUEEN (ON THE APPLICATION OF "
            "SAVE MORLAND\nRespondent\nMEADOWS LIMITED)",
            "1. The council appeals against the quashing of a planning permission.\n"
            "2. For these reasons I would allow the appeal.",
            ADVERSE,
            "respondent",
        ),
        # The housing authority answered a homelessness appeal and won.
        (
            "Brief for the local housing authority on s.204 appeals.",
            "MS TARA OKAFOR\nAppellant\n- and -\nTHE MAYOR AND BURGESSES OF\nTHE LONDON BOROUGH "
            "OF NORTHBRIDGE\nRespondent",
            "1. This is a second appeal in a homelessness case.\n2. I would dismiss the appeal.",
            SUPPORTING,
            "respondent",
        ),
        # The insurer stands behind the defendant, who appealed and won.
        (
            "Acting for the defendant insurer on QOCS set-off.",
            "MR OWEN PRICE\nAppellant\n \n (Defendant)\n- and -\nMS RUTH ELLIS\n"
            "Respondent (Claimant)",
            "1. The question is whether costs may be set off.\n"
            "2. For these reasons I would allow the appeal.",
            SUPPORTING,
            "appellant",
        ),
        # The contemnor appealed against committal and lost.
        (
            "I act for the alleged contemnor: can a defective committal application be cured?",
            "ASHWORTH & KEMP (A FIRM)\nClaimant and Respondent\n- and -\nLEE\nDefendant",
            "1. This is an appeal by the defendant, Mr Daniel Lee, against an order of committal "
            "made in the County Court at Leeds.\n2. The appeal is dismissed.",
            ADVERSE,
            "appellant",
        ),
        # HMRC answered the taxpayer's appeal and won.
        (
            "For HMRC: is a letter that records the tax due an assessment?",
            "HOLLYBANK TRADING LIMITED\nAppellant\n- and -\nTHE COMMISSIONERS FOR HER "
            "MAJESTY’S\nREVENUE AND CUSTOMS\nRespondents",
            "1. The appellant says no assessment was ever made.\n2. I would dismiss the appeal.",
            SUPPORTING,
            "respondent",
        ),
        # A regulator whose name says nothing public is the defendant to a judicial review: the
        # college that brought it answered the regulator's appeal and lost.
        (
            "We represent a regulator whose registration decision was quashed.",
            "THE OFFICE FOR COLLEGES\nAppellant\n- and -\nTHE QUEEN (ON THE APPLICATION OF "
            "NORTHFIELD COLLEGE LIMITED)\nRespondent",
            "1. The regulator appeals against the quashing of its decision.\n"
            "2. For these reasons I would allow the appeal.",
            SUPPORTING,
            "appellant",
        ),
        # A private client against a public body, said as "against the state": it appealed and won.
        (
            "I act for an individual in proceedings against the state who was refused a hearing.",
            "MR TOMAS VALE\nAppellant\n- and -\nSECRETARY OF STATE FOR JUSTICE\nRespondent",
            "1. The appellant says he was denied a fair hearing.\n2. I would allow the appeal.",
            SUPPORTING,
            "appellant",
        ),
        # The text calls the respondent "the mother": she answered the father's appeal and won.
        (
            "We act for a mother whose children were taken abroad by their father.",
            "RE K (CHILDREN)\nAppellant\n- and -\nRespondent",
            "1. The father appeals against the return order. The respondent mother opposes the "
            "appeal.\n2. The mother (the respondent) lives in England.\n"
            "3. I would dismiss the appeal.",
            SUPPORTING,
            "respondent",
        ),
        # An individual debtor against a bank: the person, not the organisation, owes the debt.
        (
            "I act for an individual debtor served with a statutory demand.",
            "NORDHAVN BANK HF\nAppellant\n- and -\nMR PETER GALE\nRespondent",
            "1. The bank appeals against the setting aside of its statutory demand.\n"
            "2. I would allow the appeal.",
            ADVERSE,
            "respondent",
        ),
        # A claimant against an insurer that the card names: the claimant stands opposite it.
        (
            "We act for the claimant whose claim was struck out for a late reply.",
            "MR ALAN CROSS\nAppellant\n- and -\nBRIDGEWAY INSURANCE COMPANY LIMITED\nRespondent",
            "1. The respondent insurer relies on the unless order. The insurer says the claim "
            "was rightly struck out.\n2. I would allow the appeal.",
            SUPPORTING,
            "appellant",
        ),
    ],
)
def test_a_uk_brief_takes_its_stance_from_where_its_side_sat(
    brief, parties, body, bucket, position
):
    from legalnav.research.stance import side_in_case

    side = read_side(brief)
    facts = CardFacts.of(case_card(transcript(parties, body)))
    assert side_in_case(side, facts) == position
    assert outcome_stance(side, facts).bucket == bucket


def test_a_judicial_review_claimant_is_the_claimant_and_the_text_says_whose_appeal_it_is():
    review = case_card(
        transcript(
            "THE QUEEN ON THE APPLICATION OF RS\nAppellant\n- and -\n"
            "LONDON BOROUGH OF NORTHBRIDGE\nRespondent",
            "1. The appellant sought judicial review of the refusal of a parking badge.\n"
            "2. I would allow the appeal.",
        )
    )
    assert (review.appellant_label, review.respondent_label) == ("claimant", "defendant")
    below = case_card(
        transcript(
            "MS ANNA HOLT\nAppellant\n- and -\nMR DAVID MOSS\nRespondent",
            "1. The appellant, the claimant in the court below, contends that the judge erred.\n"
            "2. I would dismiss the appeal.",
        )
    )
    assert below.appellant_label.split()[0] == "claimant"
    tenant = case_card(
        transcript(
            "MS CYNTHIA PRICE\nAppellant\n- and -\nMRS FARAH LAKE\nRespondent",
            "1. This appeal concerns a notice served under the Housing Act 1988.\n"
            "2. The appeal is brought by the tenant against the order for possession.\n"
            "3. I would dismiss the appeal.",
        )
    )
    assert "tenant" in tenant.appellant_label.split()
    # A landlord is placed opposite the tenant who appealed, and won.
    landlord = read_side("We act for the landlord-claimant in a possession claim.")
    stance = outcome_stance(landlord, CardFacts.of(tenant))
    assert stance.bucket == SUPPORTING


def test_counsels_lines_and_who_appeals_say_what_a_side_is_called():
    """ "for the Appellant mother" among counsel's lines and "The mother appeals …" in the text
    call the appellant the mother; one mention alone is not enough."""
    from legalnav.research.judgments.described import described

    header = (
        "Mr A Bell (instructed by Kay & Co) for the Appellant mother\n"
        "Ms C Dale (instructed by Lee LLP) for the Respondent Father\n"
    )
    body = "1. The mother appeals from a return order made under the 1980 Convention.\n"
    said = described([], [], header + body)
    assert said == {"appellant": ["mother"], "respondent": []}
    assert described([], [], body) == {"appellant": [], "respondent": []}


@pytest.mark.parametrize(
    "doc, name",
    [
        ("2020-ewca-164-civ", "Re M (Declaration of Death of Child)"),
        ("2020-ewca-922-civ", "Re M (A Child)"),  # printed "RE: M (A Child)" after "Between:"
        (
            "2020-ewca-1105-civ",
            "M (Children) (Habitual Residence: 1980 Hague Child Abduction Convention)",
        ),
        ("2020-ewca-41-civ", "Cases A, B and C (Adoption: Notification of Fathers and Relatives)"),
    ],
)
def test_a_transcript_that_names_no_parties_is_called_by_its_title(doc, name):
    """A family or child case's header has a title between its rules instead of parties: the
    card is named by it, and the header's first line is not taken for an appellant."""
    card = case_card(shared(UK / "txt" / f"{doc}.txt").read_text(encoding="utf-8"))
    assert card.case_name == name
    assert not any("Neutral Citation" in p for p in card.appellants + card.respondents)


def test_a_title_is_not_read_where_the_header_names_its_parties():
    text = transcript("ACME LIMITED\nAppellant\n- and -\nBETA LIMITED\nRespondent", "1. An appeal.")
    assert uk_title(text) == ""
    assert case_card(text).case_name == "ACME LIMITED v BETA LIMITED"
    counsel = "\n".join(
        [
            "Before :",
            "LORD JUSTICE ALDER",
            RULE,
            "Ann Foster (instructed by Foster LLP) for the Appellant",
            RULE,
        ]
    )
    assert uk_title(counsel) == ""  # counsel's appearances between the rules are no title
    titled = counsel.replace(
        "Ann Foster (instructed by Foster LLP) for the Appellant", "Re X (A Child)"
    )
    assert uk_title(titled) == "Re X (A Child)"


def test_a_letter_spaced_between_and_an_and_at_the_end_of_a_role_line_are_read():
    """Headers printed "B E T W E E N:", with "Claimants/Respondents -and-" on one line, and
    role lines that end in what the parties are to each other ("Claimant/Appellant/Tenant")."""

    def card(n: int):  # type: ignore[no-untyped-def]
        return case_card(shared(UK / "txt" / f"2020-ewca-{n}-civ.txt").read_text(encoding="utf-8"))

    dsg = card(671)
    assert dsg.case_name == "DSG RETAIL LIMITED v MASTERCARD INCORPORATED"
    assert (
        dsg.appellants[0] == "MASTERCARD INCORPORATED" and "DSG RETAIL LIMITED" in dsg.respondents
    )
    bank = card(408)
    assert bank.case_name == "BANK ST PETERSBURG PJSC v VITALY ARKHANGELSKY"
    assert bank.appellants[:2] == ["VITALY ARKHANGELSKY", "JULIA ARKHANGELSKAYA"]
    assert bank.respondents == ["BANK ST PETERSBURG PJSC", "ALEXANDER SAVELYEV"]
    tfs = card(833)  # the first of the two claims the header lists
    assert tfs.appellants == ["TFS STORES LIMITED"]
    assert not any("/" in name for name in tfs.appellants + tfs.respondents)
    assert tfs.appellant_label == "claimant tenant" and tfs.respondent_label == "defendant landlord"
