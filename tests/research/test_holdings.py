"""Holdings and the stance on the issue: the court's reasoning is told apart from what a judgment
only reports; a judgment whose holdings are off the question's issue is neutral, "does not
decide the issue", whoever won; a decided one is quoted by its holding; the offline brief quotes
the passage that carries the stance."""

from __future__ import annotations

import hashlib

import numpy as np

from legalnav.research import offline_brief
from legalnav.research.holding import (
    Issue,
    distinctive_tokens,
    issue_of,
    match_holdings,
)
from legalnav.research.judgments.findings import findings
from legalnav.research.reading import read_side
from legalnav.research.stance import ADVERSE, NEUTRAL, SUPPORTING, CardFacts, holding_stance

JUDGMENT = """IN THE SUPREME COURT OF INDIA

1. The appellant was convicted of murder by the Sessions Court. The prosecution case rested on a
statement of the deceased recorded by the Magistrate shortly before her death.

2. Learned counsel for the appellant submitted that a dying declaration cannot form the sole
basis of a conviction without corroboration.

3. In Ram v. State (supra) it was held that such a statement must be tested with care.

4. We have considered the submissions. We are of the opinion that a dying declaration which is
true and voluntary can by itself form the basis of a conviction without corroboration. The
Magistrate recorded it after the doctor certified that the deceased was fit to speak, and
therefore there is no infirmity in it.

5. The appeal is accordingly dismissed.
"""


def test_holdings_are_the_courts_reasoning_not_the_submissions_or_a_quoted_authority() -> None:
    _issues, holdings = findings(JUDGMENT)
    texts = [h.text for h in holdings]
    assert any(t.startswith("We are of the opinion that a dying declaration") for t in texts)
    assert not any("Learned counsel" in t for t in texts)  # a submission, recited
    assert not any("Ram v. State" in t for t in texts)  # an earlier decision, quoted
    for h in holdings:  # each one verbatim, with where it lies
        assert " ".join(JUDGMENT[h.start : h.end].split()).startswith(h.text.rstrip("…"))


class WordVectors:
    """A deterministic stand-in embedder: a bag of hashed words, normalised (cosine is the
    overlap of the two texts' words). Only for the matching logic; the real model is measured
    by research_eval."""

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace("?", " ").split():
                out[i, int(hashlib.sha1(word.encode()).hexdigest(), 16) % 256] += 1
            out[i] /= max(1e-9, float(np.linalg.norm(out[i])))
        return out


OFF_ISSUE = """1. The appellant was convicted under section 302 and sentenced to imprisonment for life.

2. We are of the opinion that the plea of private defence was rightly rejected, since the
appellant was the aggressor and the injuries on his side were trivial.

3. The appeal is accordingly dismissed.
"""


def test_a_judgment_whose_holdings_are_off_the_issue_does_not_decide_it() -> None:
    question = (
        "I act for the accused. The accused was convicted of murder on a dying declaration "
        "without corroboration. Can the conviction stand?"
    )
    issue = issue_of(question, "the conviction cannot stand", "question, for the side")
    assert issue.text.startswith("The accused was convicted")  # the side sentence is not the issue
    on, off = (JUDGMENT, OFF_ISSUE)
    share = {"dying": 0.1, "declaration": 0.1, "corroboration": 0.1}.get
    matches = match_holdings(
        issue.text,
        [(on, findings(on)[1]), (off, findings(off)[1])],
        WordVectors(),
        lambda token: share(token, 0.9),
        judgments_in_matter=100,
    )
    assert matches[0] is not None and matches[1] is not None
    assert matches[0].on_issue and matches[0].quote.startswith("We are of the opinion")
    assert matches[0].quote in " ".join(on.split())
    # Its sentences sound near ("the appellant was convicted …"), but none of its holdings
    # uses the issue's own words.
    assert not matches[1].on_issue

    side = read_side(question)
    lost = CardFacts(
        case_name="X v State",
        outcome="dismissed",
        winner="respondent",
        appellant_label="accused",
        respondent_label="state",
        criminal=True,
    )
    decided = holding_stance(side, lost, matches[0], issue)
    assert decided.bucket == ADVERSE and decided.source == "holding"
    assert decided.quote == matches[0].quote and decided.at == matches[0].start
    not_deciding = holding_stance(side, lost, matches[1], issue)
    assert not_deciding.bucket == NEUTRAL and not_deciding.source == "holding"
    assert not_deciding.reason.startswith("does not decide the issue (The accused was convicted")
    # Without an issue to match, the outcome decides as before.
    assert holding_stance(side, lost, None, Issue("", "")).bucket == ADVERSE


def test_a_holding_near_enough_is_on_the_issue_whatever_rare_words_the_story_has() -> None:
    """A brief that tells its client's story first has rare words of its own (names, places)
    that no holding repeats; a holding at or above OWN_WORDS_WAIVED_AT is on the issue anyway,
    one under it still needs the issue's own words."""
    from legalnav.research.holding import OWN_WORDS_WAIVED_AT

    issue = "is a notice invalid where it gives the wrong date for possession Okafor Harrowby"
    near = (
        "1. The facts are set out above.\n\n2. We are of the opinion that a notice is not "
        "invalid where it gives the wrong date for possession.\n\n3. The appeal is dismissed.\n"
    )
    far = (
        "1. The facts are set out above.\n\n2. We are of the opinion that a notice may be "
        "served by post on the tenant at the premises.\n\n3. The appeal is dismissed.\n"
    )
    rare = {"okafor": 0.01, "harrowby": 0.01}.get
    matches = match_holdings(
        issue,
        [(near, findings(near)[1]), (far, findings(far)[1])],
        WordVectors(),
        lambda token: rare(token, 0.9),
        judgments_in_matter=100,
    )
    assert matches[0] is not None and matches[1] is not None
    assert matches[0].score >= OWN_WORDS_WAIVED_AT and matches[0].on_issue
    assert matches[1].score < OWN_WORDS_WAIVED_AT and not matches[1].on_issue


def test_a_long_statement_of_facts_states_no_issue_unless_it_states_a_proposition() -> None:
    facts = "The appellant was appointed in 1961. " * 40
    assert issue_of(facts, "brief for the appellant", "topic") == Issue("", "")
    asked = facts + "Find authorities that a stigmatic termination is void."
    stated = issue_of(asked, "a stigmatic termination is void", "that-clause")
    assert stated.text == "a stigmatic termination is void"
    # A "that" of the story is not the lawyer's proposition.
    told = facts + "The High Court held that the termination was simpliciter."
    assert issue_of(told, "the termination was simpliciter", "that-clause") == Issue("", "")


def test_the_issues_own_words_are_those_few_judgments_use() -> None:
    share = {"dying": 0.05, "declar": 0.05, "convict": 0.8, "accus": 0.9}
    own = distinctive_tokens(
        "Was the accused convicted on a dying declaration?", lambda t: share.get(t, 0.5)
    )
    assert own and all(share[t] < 0.25 for t in own)
    assert not own & {"convict", "accus"}


def test_without_an_embedder_holdings_are_matched_by_shared_words() -> None:
    issue = "a dying declaration can form the sole basis of a conviction without corroboration"
    on, off = match_holdings(
        issue, [(JUDGMENT, findings(JUDGMENT)[1]), (OFF_ISSUE, findings(OFF_ISSUE)[1])]
    )
    assert on is not None and on.by == "words" and on.on_issue
    assert off is not None and not off.on_issue


def test_the_offline_brief_quotes_the_passage_that_carries_the_stance() -> None:
    def item(quote: str, passage: str, node: str) -> offline_brief.Item:
        return offline_brief.Item(
            bucket=SUPPORTING,
            doc_key="D1",
            node_id=node,
            case_name="Gopal v State",
            decided="",
            outcome="allowed",
            reason="the accused's appeal was allowed: supports the accused",
            quote=quote,
            passage=passage,
        )

    holding = "the dying declaration could not be acted upon without corroboration"
    items = [
        item("", "As a general rule a dying declaration may be acted upon alone.", "s3"),
        item(holding, f"On these facts {holding}.", "s9"),
    ]
    note = offline_brief.write(
        proposition="the conviction cannot stand", side="the accused", items=items, question="q"
    )
    assert f"“{holding}” [D1:s9]" in note
    assert "[D1:s3]" not in note  # the general-rule passage that reads the other way


def test_a_brief_that_asks_whether_names_its_issue_by_the_question() -> None:
    """The whole brief is matched against the holdings, but "does not decide …" names the
    question it asks, not the story before it."""
    brief = (
        "I advise an individual debtor served with a statutory demand by a bank. Prepare a brief "
        "on whether the demand can be set aside, with authorities for and against."
    )
    issue = issue_of(brief, "whether the demand can be set aside", "whether")
    assert issue.text.startswith("I advise an individual debtor")
    assert issue.words == "whether the demand can be set aside"
