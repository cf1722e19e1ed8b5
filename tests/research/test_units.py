"""Pure parts of research: routing rules against the gold file, the user's side and the offline
stance of real judgments, the overruling classifier on LegalBench's sentences, validation."""

from __future__ import annotations

from legalnav.bench.research_eval import (
    label_scores,
    overruling_rows,
    retrieval_metrics,
    routing_gold,
)
from legalnav.research.judgments import case_card
from legalnav.research.listing import CardView, card_passes, read_filters
from legalnav.research.router import CLARIFY, DEEP, SIMPLE, route_offline
from legalnav.research.stance import (
    ADVERSE,
    NEUTRAL,
    SUPPORTING,
    CardFacts,
    Side,
    judgment_stance,
    overrules,
    user_side,
)
from legalnav.research.validate import REMOVED_QUOTE, clean_answer
from tests.research.conftest import SHARED_DATA, aila_text, shared


def test_rules_route_the_gold_questions():
    gold = routing_gold()
    assert len(gold) >= 25
    assert {g["route"] for g in gold} == {SIMPLE, CLARIFY, DEEP}
    right = [g for g in gold if route_offline(g["question"]).route == g["route"]]
    assert len(right) / len(gold) >= 0.9


def test_every_route_says_why_and_clarify_offers_options():
    deep = route_offline(
        "We act for the tenant facing eviction for the landlord's own need; find precedent "
        "for and against."
    )
    assert deep.route == DEEP and "brief" in deep.reason
    clarify = route_offline("Is it valid?")
    assert clarify.route == CLARIFY and len(clarify.options) >= 2
    assert route_offline("Which cases involve commercial vehicles?").route == SIMPLE


def test_user_side_from_the_question():
    assert user_side("My client, the accused, was convicted of murder").role == "accused"
    assert user_side("We act for the State in an appeal against acquittal").role == "state"
    assert user_side("Our client is a tenant facing eviction").role == "tenant"
    assert user_side("Can the conviction be set aside? The conviction cannot stand.").role == (
        "accused"
    )
    assert not user_side("Which cases involve commercial vehicles?").known


def _facts(case: str) -> CardFacts:
    return CardFacts.of(case_card(aila_text(case)))


def test_outcome_stance_follows_the_side_that_won():
    accused, state = Side("accused"), Side("state")
    state_appeal_allowed = _facts("C1010")  # State of Rajasthan v Parmendra Singh
    accused_appeal_allowed = _facts("C1252")  # Gopal v State of M.P.
    assert judgment_stance(accused, state_appeal_allowed).bucket == ADVERSE
    assert judgment_stance(state, state_appeal_allowed).bucket == SUPPORTING
    assert judgment_stance(accused, accused_appeal_allowed).bucket == SUPPORTING
    stance = judgment_stance(accused, accused_appeal_allowed)
    assert stance.source == "outcome" and stance.quote in aila_text("C1252")
    # A civil judgment has no accused: no stance for that side.
    assert judgment_stance(accused, _facts("C2215")).bucket == NEUTRAL
    assert judgment_stance(Side(""), accused_appeal_allowed).bucket == NEUTRAL


def test_a_public_body_in_a_service_dispute_is_the_employer():
    # C9: a State electricity board's appeal against its employees was dismissed.
    board_lost = _facts("C9")
    assert (board_lost.appellant_role, board_lost.respondent_role) == ("state", "private")
    stance = judgment_stance(Side("employee", position="appellant"), board_lost)
    assert stance.bucket == SUPPORTING and "the employee answered the appeal" in stance.reason
    assert judgment_stance(Side("employer"), board_lost).bucket == ADVERSE


def test_the_reason_says_how_the_appeal_ended_in_plain_words():
    from dataclasses import replace

    # C1862: an appeal "disposed of" after the High Court's judgment was set aside and remitted.
    disposed = _facts("C1862")
    assert disposed.outcome == "disposed" and disposed.winner == "appellant"
    stance = judgment_stance(Side("appellant"), disposed)
    assert "the appeal was disposed of, so the appellant won" in stance.reason
    # No closing words at all, but an operative order: "decided", never "unknown".
    unread = replace(disposed, outcome="unknown")
    assert (
        "the appeal was decided, so the appellant won"
        in judgment_stance(Side("appellant"), unread).reason
    )


def test_negative_judicial_treatment_turns_support_into_risk():
    flagged = _facts("C2215")  # State of M.P. v Bhailal Bhai: flagged, the State's appeal failed
    assert flagged.judicial_treatment
    stance = judgment_stance(Side("respondent"), flagged)
    assert stance.bucket == ADVERSE and stance.source == "treatment"
    assert judgment_stance(Side("appellant"), flagged).bucket == ADVERSE


def test_overruling_classifier_on_legalbench_sentences():
    rows = overruling_rows(shared(SHARED_DATA / "overruling" / "train.tsv"))
    assert len(rows) >= 6
    predicted = ["Yes" if overrules(text) else "No" for _, text in rows]
    scores = label_scores([label for label, _ in rows], predicted, ["Yes", "No"])
    assert scores.accuracy >= 0.8
    assert not overrules("The objection was overruled and the witness answered.")


def test_metrics_follow_trec_definitions():
    qrels = {"q1": {"a", "b"}, "q2": {"c"}}
    rankings = {"q1": ["a", "x", "b"], "q2": ["x", "y"]}
    m = retrieval_metrics(rankings, qrels)
    assert m["MAP"] == round(((1 + 2 / 3) / 2 + 0) / 2, 4)
    assert m["MRR"] == 0.5 and m["Recall@100"] == 0.5 and m["P@10"] == 0.1


PARAGRAPH = "12. The appeal is dismissed because the dying declaration was truthful and voluntary."


def _lookup(doc_key: str, node_id: str) -> str | None:
    return PARAGRAPH if (doc_key, node_id) == ("D3", "s12") else None


def test_validation_removes_invented_citations_and_their_quotes():
    text = (
        "Supporting: “the dying declaration was truthful and voluntary” [D3:s12]\n"
        "Adverse: “a dying declaration needs corroboration” [D99:s4] and see [D3:s99]."
    )
    cleaned = clean_answer(text, _lookup)
    assert "[D3:s12]" in cleaned.text and "truthful and voluntary" in cleaned.text
    assert "[D99:s4]" not in cleaned.text and "[D3:s99]" not in cleaned.text
    assert "needs corroboration" not in cleaned.text
    problems = {r["citation"]: r["problem"] for r in cleaned.removed}
    assert set(problems) == {"[D99:s4]", "[D3:s99]"}
    assert cleaned.validation.ok


def test_validation_removes_quotes_that_are_not_verbatim():
    text = (
        "The court held “the dying declaration was wholly reliable” [D3:s12]. "
        "It also said “truthful and voluntary” [D3:s12].\n"
        "Elsewhere it is said that “no corroboration is ever needed at all” without a citation."
    )
    cleaned = clean_answer(text, _lookup, sources=[PARAGRAPH])
    assert "wholly reliable" not in cleaned.text and REMOVED_QUOTE in cleaned.text
    assert "“truthful and voluntary” [D3:s12]" in cleaned.text
    assert "no corroboration" not in cleaned.text
    assert len(cleaned.removed) == 2 and cleaned.validation.ok
    kept = clean_answer("“truthful and voluntary” as the court said.", _lookup, sources=[PARAGRAPH])
    assert not kept.removed


def test_listing_filters_are_read_against_the_matters_cards():
    cards = [
        CardView(
            doc=0,
            case_name="State of Rajasthan v Parmendra Singh",
            appellant_label="state",
            criminal=True,
            outcome="allowed",
            statutes=({"name": "Indian Penal Code", "sections": ["302", "304B"]},),
        ),
        CardView(
            doc=1, case_name="Gopal v State Of M.P.", appellant_label="accused", outcome="allowed"
        ),
    ]
    f = read_filters("How many appeals by the State were allowed under section 302 IPC?", cards)
    assert (f.outcome, f.appellant_label, f.sections) == ("allowed", "state", ["302"])
    assert card_passes(cards[0], f) and not card_passes(cards[1], f)
    lookup = read_filters("Who delivered the judgment in Gopal v State of M.P.?", cards)
    assert lookup.case_doc == 1 and lookup.fact == "judges"
    topic = read_filters("Which cases involve commercial vehicles?", cards)
    assert topic.phrase == ["commercial", "vehicl"] or topic.phrase[0] == "commercial"
    # A transcript's label may hold a few words: the tenant who was the defendant below.
    tenant = CardView(doc=2, case_name="Lowe v Marsh", appellant_label="defendant tenant")
    by_tenants = read_filters("Appeals brought by the tenant", [tenant])
    assert by_tenants.appellant_label == "tenant" and card_passes(tenant, by_tenants)


def test_research_eval_reports_routing_and_stance(capsys):
    import json

    from django.core.management import call_command

    call_command("research_eval", "routing", json=True)
    routing = json.loads(capsys.readouterr().out)
    gold = routing["routing.jsonl"]
    assert gold["n"] >= 25 and set(gold["by_route"]) == {"simple", "clarify", "deep"}
    assert gold["accuracy"] == round(1 - len(gold["wrong"]) / gold["n"], 4)
    call_command("research_eval", "stance", json=True)
    stance = json.loads(capsys.readouterr().out)
    assert stance["overruling_train_tsv"]["n"] == len(
        overruling_rows(SHARED_DATA / "overruling" / "train.tsv")
    )
    assert stance["silver_uk_vs_silver_labels"]["n"] > 400
    sample = stance["hand_checked_sample"]
    assert sample["n"] >= 40 and 0 < sample["silver_agrees_with_hand"] < 1


def test_long_questions_are_embedded_in_windows():
    from legalnav.research.search import WINDOW_WORDS, query_windows

    words = [f"w{i}" for i in range(400)]
    windows = query_windows(" ".join(words))
    assert len(windows) > 1 and all(len(w.split()) <= WINDOW_WORDS for w in windows)
    covered = {w for window in windows for w in window.split()}
    assert covered == set(words)  # nothing of the question is left out
    assert query_windows("a short question") == ["a short question"]


def test_a_statement_of_facts_ranks_whole_judgments_and_a_short_question_best_passages(tmp_path):
    from legalnav.research.search import FACTS_WORDS, JudgmentSearch
    from legalnav.retrieval.engine import Corpus
    from legalnav.retrieval.index import IndexCache

    names = ["C1", "C9", "C14", "C19", "C42", "C51", "C86", "C99", "C121", "C128"]
    cache = IndexCache(tmp_path)
    corpus = Corpus([cache.get(aila_text(n)) for n in names], embedder=None, cache=cache)
    facts = shared(SHARED_DATA / "judgments/aila2019/queries_dev.txt").read_text(encoding="utf-8")
    question = next(line for line in facts.splitlines() if line.startswith("AILA_Q1||"))
    question = question.split("||", 1)[1]
    assert len(question.split()) >= FACTS_WORDS

    search, by_passage = JudgmentSearch(corpus), JudgmentSearch(corpus, facts=False)
    ranked = [h.doc for h in search.judgments(question, mode="bm25", k=len(names))]
    before = [h.doc for h in by_passage.judgments(question, mode="bm25", k=len(names))]
    assert ranked == search.judgment_ranking(question, before)[: len(names)]
    assert ranked != before  # the two orders differ on these facts
    assert sorted(ranked) == sorted(before)  # the same judgments, every one listed
    # The qrels' two relevant judgments for AILA_Q1 lead (the gain on the whole AILA corpus is
    # measured by research_eval aila, not here).
    assert {names[d] for d in ranked[:3]} >= {"C9", "C14"}
    short = "Can a dying declaration alone support a conviction?"
    assert [h.doc for h in search.judgments(short, mode="bm25", k=5)] == [
        h.doc for h in by_passage.judgments(short, mode="bm25", k=5)
    ]


def test_cite_questions_list_the_citing_judgments_and_frame_words_are_not_topics():
    cards = [
        CardView(
            doc=0,
            case_name="Balasaheb v State Of Maharashtra",
            cases_cited=({"name": "State of Bombay v. Kathi Kalu Oghad", "paragraphs": [9]},),
        ),
        CardView(doc=1, case_name="State of Bombay v Rusy Mistry"),
    ]
    f = read_filters("Which cases cite State of Bombay v. Kathi Kalu Oghad?", cards)
    assert f.case_doc is None and f.cites == "State of Bombay v. Kathi Kalu Oghad"
    assert card_passes(cards[0], f) and not card_passes(cards[1], f)
    assert not f.phrase
    dated = read_filters("Which judgments were decided before 1955?", cards)
    assert dated.year_to == 1954 and not dated.phrase
    flagged = read_filters(
        "Which judgments have been flagged with negative judicial treatment?", cards
    )
    assert flagged.negative_treatment and not flagged.phrase


def test_validation_checks_long_quotations_too():
    invented = "the dying declaration was truthful and voluntary " * 20  # far over 600 characters
    cleaned = clean_answer(f"“{invented.strip()}” [D3:s12]", _lookup)
    assert REMOVED_QUOTE in cleaned.text and cleaned.removed
