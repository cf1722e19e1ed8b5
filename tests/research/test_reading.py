"""Reading a research question: the side, the proposition, fact patterns and the choices offered
when the side cannot be read; and the stance each judgment then takes for that side."""

from __future__ import annotations

import json

import pytest

from legalnav.bench import research_eval as evaluate
from legalnav.research.reading import (
    Side,
    is_fact_pattern,
    read_proposition,
    read_question,
    read_side,
    side_choices,
)
from legalnav.research.router import CLARIFY, DEEP, route_offline
from legalnav.research.stance import ADVERSE, SUPPORTING, CardFacts, judgment_stance

# The two questions of issue 17, as a new user asked them.
BRIEF_FOR_APPELLANT = (
    "Prepare a research brief for the appellant: can a conviction for murder rest on a dying "
    "declaration alone, without corroboration? Give authorities for and against."
)
FACT_PATTERN = (
    "The accused was convicted of murder on the basis of a dying declaration recorded by a "
    "magistrate without corroboration. Can the conviction stand?"
)


def test_a_brief_for_the_appellant_reads_the_side_and_the_proposition():
    reading = read_question(BRIEF_FOR_APPELLANT)
    assert reading.side.role == "accused" and reading.side.position == "appellant"
    assert reading.side.describe() == "an accused appellant"
    assert reading.proposition == (
        "a conviction for murder cannot rest on a dying declaration alone, without corroboration"
    )
    route = route_offline(BRIEF_FOR_APPELLANT)
    assert route.route == DEEP and route.side == "accused"
    assert "authorities for and against" not in route.proposition.lower()


def test_a_fact_pattern_without_a_side_is_asked_back_with_the_likely_sides():
    assert is_fact_pattern(FACT_PATTERN)
    route = route_offline(FACT_PATTERN)
    assert route.route == CLARIFY
    assert "whose side" in route.reason
    assert route.options == [
        f"I act for the accused. {FACT_PATTERN}",
        f"I act for the prosecution. {FACT_PATTERN}",
    ]
    assert route.proposition == "whether the conviction can stand"
    # Picking a choice gives a question that is researched as a brief for that side.
    chosen = route_offline(route.options[0])
    assert chosen.route == DEEP and chosen.side == "accused"
    assert route_offline(route.options[1]).side == "state"


@pytest.mark.parametrize(
    ("question", "role", "label", "position", "party"),
    [
        (
            "Defendant here. The bank's suit was filed in 2016. Is the suit barred?",
            "defendant",
            "defendant",
            "",
            "",
        ),
        (
            "We represent the respondent State in the accused's appeal against his conviction.",
            "state",
            "respondent",
            "respondent",
            "",
        ),
        (
            "Respondent employer (the bank) in an SLP by a clerk. Brief for us: must he show "
            "prejudice?",
            "employer",
            "respondent",
            "respondent",
            "",
        ),
        (
            "The State has filed an appeal and we appear for it. Can the acquittal be reversed?",
            "state",
            "state",
            "appellant",
            "",
        ),
        (
            "Appellant convicted u/s 307 IPC. I act for him - can the conviction be sustained?",
            "accused",
            "appellant",
            "appellant",
            "",
        ),
        (
            "Prosecution brief: a dying declaration may be the sole basis of conviction.",
            "state",
            "prosecution",
            "",
            "",
        ),
        (
            "I act for Mrs Kapoor, the landlady. Can she get him evicted?",
            "landlord",
            "landlady",
            "",
            "Mrs Kapoor",
        ),
        (
            "Brief for Northgate Logistics Ltd: Atlas Freight says our clause does not apply.",
            "party",
            "named party",
            "",
            "Northgate Logistics Ltd",
        ),
        (
            "Kumar v Mehta - I'm on Kumar's side. Find cases for and against.",
            "party",
            "named party",
            "",
            "Kumar",
        ),
        (
            "Compare the decisions and what that means for our client's writ petition.",
            "petitioner",
            "petitioner",
            "petitioner",
            "",
        ),
        (
            "Is there a strong argument that a dismissed employee must be reinstated? What would "
            "the employer argue?",
            "employee",
            "employee",
            "",
            "",
        ),
        # Issue 32: a role with a qualifier, and a client named by relation in the facts.
        (
            "Acting for the defendant insurer, find authority on whether a claim can be refused "
            "for late notification of a loss.",
            "insurer",
            "defendant insurer",
            "",
            "",
        ),
        (
            "Our client, the husband, is charged with cruelty under section 498A IPC. Find "
            "judgments on whether the charge can stand without medical evidence.",
            "accused",
            "husband",
            "",
            "",
        ),
        (
            "My client, the wife, was dismissed from the bank after twenty years of service.",
            "employee",
            "wife",
            "",
            "",
        ),
        # England and Wales: public bodies, the private parties against them, the contemnor.
        (
            "We represent neighbouring objectors who say the grant of permission was unlawful.",
            "private",
            "objectors",
            "",
            "",
        ),
        (
            "Acting for the district council: can a late review request be refused?",
            "state",
            "district council",
            "",
            "",
        ),
        (
            "We act for the respondent council in a homelessness appeal.",
            "state",
            "council",
            "respondent",
            "",
        ),
        (
            "For HMRC. Was the letter an assessment?",
            "revenue",
            "HMRC",
            "",
            "",
        ),
        (
            "We act for the appellant asylum seeker refused leave to remain.",
            "private",
            "asylum seeker",
            "appellant",
            "",
        ),
        (
            "We are acting for the respondent to the committal application; the judge found "
            "the breaches proved.",
            "contemnor",
            "respondent to the committal application",
            "",
            "",
        ),
        (
            "We act for the landlord-claimant in a possession claim under Ground 8.",
            "landlord",
            "landlord-claimant",
            "",
            "",
        ),
        (
            "We act for the left-behind father applying for the summary return of his child.",
            "father",
            "father",
            "",
            "",
        ),
        (
            "I act for the taxpayer. Was the discovery assessment out of time?",
            "assessee",
            "taxpayer",
            "",
            "",
        ),
        # The client's own word wins over what was done to it ("charged a penalty").
        (
            "Our client, a taxpayer, was charged a penalty for a late return.",
            "assessee",
            "taxpayer",
            "",
            "",
        ),
        # The opponent named after "against": the client is the other side.
        (
            "I act for a person in proceedings against the Home Office about detention.",
            "private",
            "person",
            "",
            "",
        ),
        (
            "We represent a company that won its case against a public body. Costs?",
            "private",
            "company",
            "",
            "",
        ),
        # A public body of the health service, and a client that is advised.
        ("Our client, an NHS Trust, seeks a declaration.", "state", "nhs trust", "", ""),
        (
            "We advise a local authority facing a claim about school transport.",
            "state",
            "local authority",
            "",
            "",
        ),
        # A public body challenging another's decision stands where a challenger stands.
        (
            "We represent a district council challenging the minister's decision to approve "
            "the scheme.",
            "private",
            "district council",
            "",
            "",
        ),
        # Claimants named by what they do: they bring the claims.
        (
            "Our clients, fuel buyers, bring damages claims against the cartel.",
            "claimant",
            "fuel buyers",
            "",
            "",
        ),
        (
            "I act for an individual debtor facing a bankruptcy petition.",
            "debtor",
            "individual debtor",
            "",
            "",
        ),
        # A client read from what is done to it or asked of it.
        (
            "Short point. The other side has applied for summary judgment against our client.",
            "defendant",
            "defendant",
            "",
            "",
        ),
        (
            "I advise an overseas company that has been served with English proceedings.",
            "defendant",
            "overseas",
            "",
            "",
        ),
        ("Our client was refused leave to remain.", "private", "applicant refused", "", ""),
        (
            "My client is a potential victim of trafficking whose support will end.",
            "private",
            "potential victim of trafficking",
            "",
            "",
        ),
        ("We act for the lender. The borrower has stopped paying.", "lender", "lender", "", ""),
        ("I act for the children's guardian.", "guardian", "children's guardian", "", ""),
    ],
)
def test_sides_as_lawyers_write_them(question, role, label, position, party):
    side = read_side(question)
    assert (side.role, side.label, side.position, side.party) == (role, label, position, party)
    assert side.evidence  # the words it was read from


@pytest.mark.parametrize(
    ("question", "role"),
    [
        # A dismissed appeal is not a dismissed employee; the conviction says who they are.
        (
            "Brief for the appellants. The appeal preferred by the appellants was dismissed and "
            "their conviction and sentence affirmed by the High Court.",
            "accused",
        ),
        (
            "Brief for the petitioner. The petition filed by the petitioner herein was dismissed "
            "by the High Court.",
            "petitioner",
        ),
        (
            "Brief for the appellant. The appellant was dismissed from service after an inquiry.",
            "employee",
        ),
        # The one convicted is the respondent: the appellant complained of the crime.
        (
            "Brief for the appellant, a witness at the trial. The trial ended in conviction "
            "against the first respondent for taking a bribe.",
            "complainant",
        ),
        (
            "Brief for the appellant. The complainant P1 (appellant) says the accused killed his "
            "son; the High Court acquitted them.",
            "complainant",
        ),
        # The label the facts give the appellant, and a prosecution brought against them.
        (
            "Brief for the appellant. Charges were framed against the accused-appellant, who "
            "pleaded not guilty.",
            "accused",
        ),
        (
            "Brief for the petitioner. The Inspector filed a charge-sheet in CC No.307 before "
            "the Magistrate against the Petitioner and his father.",
            "accused",
        ),
        (
            "Brief for the petitioner. The petitioner's brother filed a charge-sheet appeal "
            "against the State before the tribunal.",
            "petitioner",
        ),
    ],
)
def test_who_the_appellant_is_in_the_dispute(question, role):
    assert read_side(question).role == role


def test_an_outcome_only_asked_about_is_not_a_side():
    asked = (
        "Draft a brief on whether circumstantial evidence alone can sustain a conviction under "
        "section 302 when the motive is not proved."
    )
    assert not read_side(asked).known
    assert read_side("Can the conviction be set aside? The conviction cannot stand.").role == (
        "accused"
    )


def test_choices_follow_the_kind_of_dispute():
    assert side_choices("A bank manager was dismissed after an inquiry.") == [
        "employee",
        "employer",
    ]
    assert side_choices("delay in disposing of a detenu's representation") == [
        "petitioner",
        "respondent",
    ]
    assert side_choices("the tenant was evicted") == ["tenant", "landlord"]
    assert side_choices("condonation of a 400-day delay") == ["appellant", "respondent"]


def test_propositions_drop_the_instructions():
    assert read_proposition(
        "Defending an accused under s.304B. Find authority that the presumption needs proof of "
        "cruelty soon before death, and the cases against us."
    ) == ("the presumption needs proof of cruelty soon before death", "that-clause")
    assert (
        read_proposition(
            "Prepare a brief defending the conviction: chain of circumstances, last seen together."
        )[0]
        == "the conviction should stand, on chain of circumstances, last seen together"
    )
    said, how = read_proposition(
        "Brief for the plaintiff: the vendor says we were not ready and willing. Authorities for "
        "and against."
    )
    assert how == "their case" and said.startswith("against what the vendor says: we were not")
    assert read_proposition("We act for the employer. Is the dismissal sustainable?")[0] == (
        "whether the dismissal is sustainable"
    )


@pytest.mark.parametrize(
    ("question", "proposition"),
    [
        # The issue in the study's own example, for the accused: the point they must make.
        (
            "Prepare a research brief for the appellant: can a conviction for murder rest on a "
            "dying declaration alone, without corroboration? Give authorities for and against.",
            "a conviction for murder cannot rest on a dying declaration alone, without "
            "corroboration",
        ),
        ("We act for the employer. Is the dismissal sustainable?", "the dismissal is sustainable"),
        (
            "We act for the employee. Is the dismissal sustainable?",
            "the dismissal is not sustainable",
        ),
        (
            "Brief for the State: the High Court acquitted. Can the acquittal be reversed?",
            "the acquittal can be reversed",
        ),
        (
            "I act for the tenant, evicted last year. Can the eviction be undone?",
            "the eviction can be undone",
        ),
        # Only a position: a detention is what the petitioner challenges.
        (
            "Brief for the petitioner, detained under the preventive detention law. Is the "
            "detention sustainable?",
            "the detention is not sustainable",
        ),
        # The first of two alternatives is the issue.
        (
            "Brief for the accused appellant. Can the 307 conviction be sustained or should it be "
            "altered to 324?",
            "the 307 conviction cannot be sustained",
        ),
        # A result nobody in particular wants kept or undone stays an issue.
        (
            "We act for Northgate Ltd. Can the order stand?",
            "whether the order can stand",
        ),
    ],
)
def test_an_issue_is_restated_as_what_the_side_must_show(question, proposition):
    reading = read_question(question)
    assert reading.proposition == proposition
    assert reading.proposition_from.endswith("for the side") == (
        not proposition.startswith("whether")
    )


def _card(**kw: object) -> CardFacts:
    base: dict[str, object] = {
        "case_name": "X v State",
        "outcome": "dismissed",
        "winner": "respondent",
        "appellant_label": "accused",
        "respondent_label": "state",
        "criminal": True,
    }
    return CardFacts(**(base | kw))  # type: ignore[arg-type]


def test_stance_is_taken_for_the_side_with_the_reason_in_words():
    accused_appellant = read_side(BRIEF_FOR_APPELLANT)
    upheld = judgment_stance(accused_appellant, _card())
    assert upheld.bucket == ADVERSE
    assert upheld.reason == (
        "the accused's appeal was dismissed and the conviction stood: adverse to an accused "
        "appellant"
    )
    acquitted = judgment_stance(accused_appellant, _card(outcome="allowed", winner="appellant"))
    assert acquitted.bucket == SUPPORTING
    # The same judgment read for the prosecution cuts the other way.
    prosecution = read_side("Prosecution brief: a dying declaration alone can found a conviction.")
    assert judgment_stance(prosecution, _card()).bucket == SUPPORTING
    # A named party with no role read is never forced into a bucket.
    named = Side("party", "brief for", label="named party", party="Northgate Logistics Ltd")
    stance = judgment_stance(named, _card())
    assert stance.bucket == "neutral" and "Northgate Logistics Ltd" in stance.reason


def test_a_uk_side_is_placed_by_the_cards_words_and_the_public_body():
    from legalnav.research.stance import side_in_case

    civil = {"criminal": False, "appellant_label": "", "respondent_label": ""}
    council = read_side("I act for the local housing authority.")
    objectors = read_side("Acting for local objectors to the scheme.")
    by_names = _card(**civil, appellant_role="private", respondent_role="state")
    assert side_in_case(council, by_names) == "respondent"
    assert side_in_case(objectors, by_names) == "appellant"
    # Two public bodies (or none): nobody stands where the council does.
    assert not side_in_case(
        council, _card(**civil, appellant_role="state", respondent_role="state")
    )
    assert not side_in_case(objectors, _card(**civil))
    # The State as prosecutor still has no place in a civil case.
    assert not side_in_case(read_side("Prosecution brief."), by_names)
    # A label of a few words: the defendant who was found in contempt appealed.
    contempt = _card(**civil | {"appellant_label": "defendant contemnor"})
    assert side_in_case(read_side("I act for the alleged contemnor."), contempt) == "appellant"
    assert side_in_case(read_side("Defendant here."), contempt) == "appellant"
    # "The defendant insurer" stands with the defendant; a claimant is an old plaintiff.
    insurer = read_side("Acting for the defendant insurer.")
    assert side_in_case(insurer, _card(**civil | {"respondent_label": "defendant"})) == "respondent"
    landlord = read_side("We act for the landlord-claimant.")
    assert side_in_case(landlord, _card(**civil | {"appellant_label": "claimant"})) == "appellant"
    plaintiff = _card(**civil | {"appellant_label": "plaintiff"})
    assert side_in_case(read_side("For the claimant."), plaintiff) == "appellant"
    assert not side_in_case(Side(""), _card())


def test_the_tuning_half_of_the_gold_questions():
    scores = evaluate.reading_scores("tune")
    assert scores["n"] == 48
    assert scores["route_accuracy"] >= 0.9, scores["misses"]
    assert scores["side_accuracy"] >= 0.9, scores["misses"]
    assert scores["side_missing_offered_the_right_choices"] == "4/4"
    assert all(p["read"] for p in scores["propositions"])


def test_side_scoring_accepts_the_role_or_the_position_but_not_another_side():
    gold = {"side": "respondent"}
    assert evaluate.side_is_right(gold, Side("state", label="respondent", position="respondent"))
    assert not evaluate.side_is_right(gold, Side("accused", label="accused"))
    assert evaluate.side_is_right({"side": None}, Side(""))
    assert not evaluate.side_is_right({"side": None}, Side("tenant"))
    assert evaluate.side_is_right({"side": "prosecution"}, Side("state", label="state"))


def test_aila_stance_gold_is_hand_labelled_and_scored(capsys):
    rows = [
        json.loads(line)
        for line in evaluate.GOLD_AILA_STANCE.read_text(encoding="utf-8").splitlines()
        if line
    ]
    assert len(rows) >= 60 and {r["stance"] for r in rows} == {"supporting", "adverse", "neutral"}
    from django.core.management import call_command

    call_command("research_eval", "aila-stance", json=True)
    out = json.loads(capsys.readouterr().out)
    assert out["pairs"] == len(rows)
    confusion = out["vs_hand_stance"]["confusion"]
    adverse_found = confusion["adverse"]["adverse"]
    assert out["adverse_recall_vs_hand"] == round(
        adverse_found / sum(confusion["adverse"].values()), 4
    )
    assert out["adverse_recall_vs_hand"] > 0.5  # an unread side puts every judgment in neutral
    assert all(side != "not read" for side in out["sides_read"].values())


@pytest.mark.parametrize(
    ("question", "role"),
    [
        ("Tenant's side: the landlord says the building is new. Brief please.", "tenant"),
        ("Employee-side brief. The other side will argue that a probationer can go.", "employee"),
        ("claimant side, MACT: the insurer says it is not liable.", "claimant"),
        ("Our claimant was injured by a falling branch. Was the trial judge right?", "claimant"),
        (
            "Petitioner, a prisoner under sentence of death, is kept alone. Is this lawful?",
            "petitioner",
        ),
        (
            "A pistol was found behind my client's house. Will the Arms Act conviction hold?",
            "accused",
        ),
    ],
)
def test_side_shorthand(question, role):
    assert read_side(question).role == role


def test_the_other_sides_argument_is_not_the_proposition():
    said, how = read_proposition(
        "I am for the defendant trust. The other side will argue that the surgeon was negligent. "
        "Build our case that causation is not made out."
    )
    assert (said, how) == ("causation is not made out", "that-clause")
    said, how = read_proposition(
        "For the employee. The other side will argue that a probationer can be discharged."
    )
    assert said == "against the other side's argument that a probationer can be discharged"
    assert read_proposition("Does non-supply automatically vitiate the dismissal?")[0] == (
        "whether non-supply automatically vitiates the dismissal"
    )
    assert read_proposition("Was the trial judge right to dismiss the claim?")[0] == (
        "whether the trial judge was right to dismiss the claim"
    )


def test_a_request_for_law_needs_a_subject():
    assert route_offline("Need case law asap, hearing tomorrow.").route == CLARIFY
    assert route_offline("Judgments on anticipatory bail").route == "simple"
    assert route_offline("cases where the High Court's acquittal was reversed").route == "simple"


def test_a_side_and_a_contested_proposition_are_researched_as_a_brief():
    from legalnav.research.router import route_offline

    route = route_offline(
        "Acting for the defendant insurer, find authority on whether a claim can be refused for "
        "late notification of a loss."
    )
    assert (route.route, route.side) == ("deep", "insurer")
    assert route.proposition == "whether a claim can be refused for late notification of a loss"
    facts = route_offline(
        "Our client, the husband, is charged with cruelty under section 498A IPC. Find judgments "
        "on whether the charge can stand without medical evidence."
    )
    assert (facts.route, facts.side) == ("deep", "accused")  # not asked back for the side


def test_the_charge_or_claim_is_the_issue_when_the_question_asks_whether_it_stands():
    from legalnav.research.reading import read_question

    charged = read_question(
        "Our client, the husband, is charged with cruelty under section 498A IPC. Find judgments "
        "on whether the charge can stand without medical evidence."
    )
    assert charged.proposition == (
        "whether the charge of cruelty under section 498A IPC can stand without medical evidence"
    )
    claim = read_question(
        "We act for the claimant. Her claim for loss of earnings was struck out. Advise whether "
        "the claim can be reinstated."
    )
    assert claim.proposition == "whether the claim for loss of earnings can be reinstated"


def test_a_side_the_judgment_does_not_name_is_placed_by_its_position_in_the_brief():
    from legalnav.research.stance import side_in_case

    unnamed = _card(criminal=False, appellant_label="", respondent_label="")
    # The brief says where its side stands: the judgment's appellant stands there.
    assert side_in_case(read_side("We act for the claimant-appellant."), unnamed) == "appellant"
    assert side_in_case(read_side("We act for the landlord-appellants."), unnamed) == "appellant"
    # The brief names only the kind of party: nothing to place it by.
    assert side_in_case(read_side("We act for the claimant."), unnamed) == ""
    # A parent is placed by the card's words for the parents.
    father = read_side("We act for the father in private law Children Act proceedings.")
    parents = _card(criminal=False, appellant_label="mother", respondent_label="father")
    assert side_in_case(father, parents) == "respondent"
