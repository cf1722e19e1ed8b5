"""The filler's model pieces: the fitted constants match the features, and the logistic fit
used to produce them recovers known weights."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from legalnav.evaluation.fitting import logistic
from legalnav.retrieval import topics
from legalnav.review import calibration, fill
from legalnav.review.columns import CUAD_COLUMNS, Column


def test_calibration_matches_the_features_and_the_columns():
    """A feature added to fill.py without refitting would silently mis-score every cell."""
    assert len(calibration.UNIT_WEIGHTS) == len(fill.FEATURES)
    assert len(calibration.CELL_WEIGHTS) == len(fill.cell_features(0.0, 0.0))
    cued = {c.key: len(c.cues) for c in CUAD_COLUMNS if c.cues}
    assert {k: len(v) for k, v in calibration.CUE_WEIGHTS.items()} == cued
    assert set(calibration.COLUMN_PRIORS) == {c.key for c in CUAD_COLUMNS}
    assert 0.0 <= calibration.NOT_FOUND_BELOW < 1.0


def test_logistic_recovers_known_weights():
    rng = np.random.default_rng(7)
    x = np.column_stack([np.ones(4000), rng.normal(size=4000), rng.normal(3.0, 2.0, size=4000)])
    true = np.array([-1.0, 2.0, -0.5])
    y = (rng.random(4000) < 1 / (1 + np.exp(-(x @ true)))).astype(float)
    w = logistic(x, y, l2=1e-6)
    assert np.allclose(w, true, atol=0.15), w


def test_thresholds_name_preset_columns_and_the_fit_says_what_it_saw():
    """A threshold keyed by a misspelt column would silently never apply."""
    from legalnav.review.columns import TYPED_KEYS, YES_NO_KEYS

    typed = set(TYPED_KEYS) | {f"{k} (no value)" for k in TYPED_KEYS}
    assert set(calibration.COLUMN_THRESHOLDS) <= typed and calibration.COLUMN_THRESHOLDS
    # Every yes/no column has one way to say Yes: the clause-topic model's vote, else a
    # threshold on the cell's confidence.
    voted = fill.voted_columns()
    assert voted and not voted & set(calibration.YES_THRESHOLDS)
    assert voted | set(calibration.YES_THRESHOLDS) == set(YES_NO_KEYS)
    assert all(0.0 <= t <= 1.0 for t in calibration.YES_THRESHOLDS.values())
    assert len(calibration.FITTED_ON) == 40 and all(
        n.endswith(".txt") for n in calibration.FITTED_ON
    )


def test_the_topic_vote_is_fitted_outside_the_dev_contracts_and_decides_yes_or_no(tmp_path):
    """The vote's thresholds say what they saw (not the dev contracts the grid is scored on),
    each names a yes/no column with a clause-topic model; on a real agreement a column says Yes
    exactly when the document's best passage reaches the threshold, quoting that passage."""
    import json

    from legalnav.retrieval.adhoc import AdHocCorpora
    from legalnav.review.columns import YES_NO_KEYS, preset_column
    from tests.conftest import REPO

    data = json.loads(fill.TOPIC_YES_FILE.read_text(encoding="utf-8"))
    assert data["fitted_on"].startswith("368 CUAD contracts outside the 40-contract dev sample")
    book = {t.key for t in topics.load(topics.MODEL_DIR / "cuad.json")}
    assert set(data["thresholds"]) <= set(YES_NO_KEYS) & book

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    column = preset_column("Anti-Assignment")
    assert column is not None
    text, retriever = corpora.text(path), corpora.retriever([path])

    def cell(at: float) -> fill.Cell:
        (got,) = fill.fill_document(
            text=text, retriever=retriever, columns=[column],
            constants=fill.Constants(yes_thresholds={}),
        )  # fmt: skip
        return got

    view = fill.DocumentView(text, retriever)
    topic = fill.column_topic(column)
    assert topic is not None
    p = view.topic_probabilities(topic)
    best_row = view.rows[int(np.argmax(p))]
    passage = retriever.corpus.passage(best_row)
    original, models = fill.topic_yes_thresholds, fill.doc_yes_models
    try:
        fill.doc_yes_models = lambda: {}  # type: ignore[assignment]  # the single threshold alone
        fill.topic_yes_thresholds = lambda: {"Anti-Assignment": float(p.max())}  # type: ignore[assignment]
        yes = cell(float(p.max()))
        fill.topic_yes_thresholds = lambda: {"Anti-Assignment": float(p.max()) + 0.01}  # type: ignore[assignment]
        no = cell(float(p.max()) + 0.01)
    finally:
        fill.topic_yes_thresholds, fill.doc_yes_models = original, models  # type: ignore[assignment]
    assert yes.value.startswith("Yes") and "clause model gives it" in yes.reason
    ((start, end),) = yes.spans
    assert passage.start <= start < end <= passage.end  # quoted from the passage it voted on
    assert not no.value.startswith("Yes")


def _anti_assignment_view(tmp_path):  # type: ignore[no-untyped-def]
    """The demo development agreement, indexed ad hoc, its view and the Anti-Assignment column."""
    from legalnav.retrieval.adhoc import AdHocCorpora
    from legalnav.review.columns import preset_column
    from tests.conftest import REPO

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    column = preset_column("Anti-Assignment")
    assert column is not None
    text, retriever = corpora.text(path), corpora.retriever([path])
    return text, retriever, fill.DocumentView(text, retriever), column


def _voted_cell(monkeypatch, text, retriever, column, floor=None, **models) -> fill.Cell:  # type: ignore[no-untyped-def]
    """The column's one cell with the fill's model loaders replaced (``doc_yes_models=…``,
    ``topic_yes_thresholds=…``, ``unit_models=…``: the values they return), the cell's own
    confidence threshold for a Yes left out (``floor``: the "not found" threshold instead of
    the fitted one)."""
    constants = fill.Constants(yes_thresholds={})
    if floor is not None:
        constants = fill.Constants(yes_thresholds={}, threshold=floor)
    with monkeypatch.context() as m:
        for name, value in models.items():
            m.setattr(fill, name, lambda value=value: value)
        (got,) = fill.fill_document(
            text=text, retriever=retriever, columns=[column], constants=constants
        )
    return got


def test_a_document_model_decides_its_column_from_every_topic_and_the_wording(
    tmp_path, monkeypatch
):
    """The shipped document models say what they were fitted on and have one weight per input;
    on a real agreement a column with a document model says Yes exactly when the model's
    probability reaches its threshold, whatever the single topic threshold says, and the panel's
    reason names the document model and how many passages use the column's wording."""
    import json

    from legalnav.review import docvote
    from legalnav.review.columns import YES_NO_KEYS, compiled_cues, preset_column

    data = json.loads(fill.TOPIC_YES_FILE.read_text(encoding="utf-8"))
    assert data["doc_models_fitted_on"].startswith("368 CUAD contracts outside the 40-contract")
    shipped = fill.doc_yes_models()
    assert shipped and set(shipped) <= set(YES_NO_KEYS)
    assert all(0.0 < m.threshold < 1.0 for m in shipped.values())

    text, retriever, view, column = _anti_assignment_view(tmp_path)
    cued = sum(1 for t in view.passage_texts() if any(rx.search(t) for rx in compiled_cues(column)))
    assert cued > 0  # the development agreement restricts assignment in words

    def model(threshold: float) -> docvote.DocModel:
        # one input that matters: log(1 + passages using the wording), weight 1
        return docvote.DocModel(
            "Anti-Assignment", ("Anti-Assignment",), np.zeros(3), np.ones(3),
            np.array([0.0, 1.0, 0.0]), 0.0, threshold,
        )  # fmt: skip

    p = 1 / (1 + np.exp(-np.log1p(cued)))

    def cell(threshold: float) -> fill.Cell:
        return _voted_cell(
            monkeypatch, text, retriever, column,
            doc_yes_models={"Anti-Assignment": model(threshold)},
            topic_yes_thresholds={"Anti-Assignment": 0.0},  # always Yes alone
        )  # fmt: skip

    yes, no = cell(p - 1e-6), cell(p + 1e-6)
    assert yes.value.startswith("Yes") and "the document model" in yes.reason
    assert f"{cued} passage" in yes.reason and f"{p:.2f}" in yes.reason
    assert yes.reason.count("(") == yes.reason.count(")") == 1  # no parentheses within parentheses
    assert no.value == "No" and "the document model" in no.reason
    # the value's own confidence is the model's chance of it: P(Yes) for a Yes, P(No) for a No,
    # beside the quotation's; a single threshold on one passage gives none
    assert yes.value_confidence == pytest.approx(p) and no.value_confidence == pytest.approx(1 - p)
    assert yes.confidence == no.confidence != yes.value_confidence
    alone = _voted_cell(
        monkeypatch, text, retriever, column,
        doc_yes_models={}, topic_yes_thresholds={"Anti-Assignment": 0.0},
    )  # fmt: skip
    assert alone.value.startswith("Yes") and alone.value_confidence is None
    # "Searched" counts the wording the fill read: a document model's cues and operative
    # wording too (a shipped one that reads both), the column's own cues alone without one
    tpb = preset_column("Third Party Beneficiary")
    assert tpb is not None and fill.doc_yes_models()[tpb.key].operative
    read = len(tpb.cues) + len(tpb.document_cues) + len(tpb.operative_cues)
    assert fill.wording_cues_read(tpb) == read > len(tpb.cues)
    # a shipped document model missing one of its inputs is not used (the single threshold
    # decides), so the line does not count the cues only that model reads
    assert fill.doc_yes_models()[tpb.key].units
    with monkeypatch.context() as m:
        m.setattr(fill, "unit_models", lambda: {})
        assert fill.usable_doc_model(tpb) is None
        assert fill.wording_cues_read(tpb) == len(tpb.cues)
    with monkeypatch.context() as m:
        m.setattr(fill, "compiled_operative_cues", lambda _c: [])
        assert fill.wording_cues_read(tpb) == len(tpb.cues)
    assert fill.usable_doc_model(tpb) is fill.doc_yes_models()[tpb.key]
    assert f", {fill.wording_cues_read(column)} wording cues)" in yes.searched
    assert f", {len(column.cues)} wording cues)" in alone.searched

    # Nothing near enough to quote (every quotation under the "not found" floor): a No of the
    # document model is still the column's No, with P(No) and why, and no quotation; the
    # measurement door reads it "not found" as ever (no spans). A Yes still quotes.
    unquoted = _voted_cell(
        monkeypatch, text, retriever, column, floor=1.01,
        doc_yes_models={"Anti-Assignment": model(p + 1e-6)},
        topic_yes_thresholds={"Anti-Assignment": 0.0},
    )  # fmt: skip
    assert unquoted.value == "No" and not unquoted.spans and not unquoted.found
    assert unquoted.value_confidence == pytest.approx(1 - p)
    assert "the document model" in unquoted.reason and "near enough to quote" in unquoted.reason
    assert unquoted.as_json()["value"] == fill.NOT_FOUND and unquoted.as_json()["spans"] == []
    quoted = _voted_cell(
        monkeypatch, text, retriever, column, floor=1.01,
        doc_yes_models={"Anti-Assignment": model(p - 1e-6)},
        topic_yes_thresholds={"Anti-Assignment": 0.0},
    )  # fmt: skip
    assert quoted.value.startswith("Yes") and quoted.spans
    # A column no clause model decides stays "not found" with nothing to quote.
    other = preset_column("Governing Law")
    assert other is not None
    (plain,) = fill.fill_document(
        text=text, retriever=retriever, columns=[other],
        constants=fill.Constants(threshold=1.01),
    )  # fmt: skip
    assert plain.value == fill.NOT_FOUND and plain.value_confidence is None and not plain.reason
    # Left unquoted for want of confidence: what a quotation needed, beside what the closest had.
    assert unquoted.needed == plain.needed == 1.01 and plain.candidates
    assert plain.confidence < plain.needed and quoted.needed is None


def test_a_document_model_reads_whether_the_column_s_operative_wording_is_there(
    tmp_path, monkeypatch
):
    """A model fitted with the column's operative wording (a provision that does what the column
    asks) reads whether any passage has it, as one input of its own: on a real agreement the
    same model says Yes where the wording is there and No where it is not, and the panel says
    which. The shipped models that read it belong to columns that have such wording."""
    import re

    from legalnav.review import docvote
    from legalnav.review.columns import preset_column

    shipped = fill.doc_yes_models()
    readers = {k for k, m in shipped.items() if m.operative}
    assert readers and "Third Party Beneficiary" in readers
    assert all(preset_column(k).operative_cues for k in readers)  # type: ignore[union-attr]

    text, retriever, _view, column = _anti_assignment_view(tmp_path)
    # inputs: the Anti-Assignment topic, the two cue features, the operative flag (weight 1)
    model = docvote.DocModel(
        "Anti-Assignment", ("Anti-Assignment",), np.zeros(4), np.ones(4),
        np.array([0.0, 0.0, 0.0, 1.0]), 0.0, 0.6, operative=True,
    )  # fmt: skip

    def cell(pattern: str) -> fill.Cell:
        with monkeypatch.context() as m:
            m.setattr(fill, "compiled_operative_cues", lambda _c: [re.compile(pattern, re.I)])
            return _voted_cell(
                monkeypatch, text, retriever, column,
                doc_yes_models={"Anti-Assignment": model},
                topic_yes_thresholds={"Anti-Assignment": 1.01},  # never Yes alone
            )  # fmt: skip

    has, lacks = cell(r"\bassign"), cell(r"\bno such wording anywhere\b")
    assert has.value.startswith("Yes") and "and a passage that does what it asks" in has.reason
    assert has.value_confidence == pytest.approx(1 / (1 + np.exp(-1.0)))
    assert lacks.value == "No" and "and no passage that does what it asks" in lacks.reason
    assert lacks.value_confidence == pytest.approx(0.5)
    # fitted with operative wording the column no longer carries: no input, so the single
    # threshold (never Yes) decides, as for a unit model that is not shipped
    gone = _voted_cell(
        monkeypatch, text, retriever, column,
        doc_yes_models={"Anti-Assignment": model},
        topic_yes_thresholds={"Anti-Assignment": 1.01},
    )  # fmt: skip
    assert gone.value == "No" and "the document model" not in gone.reason


def test_a_document_model_reads_the_best_sentence_of_the_column_s_unit_model(tmp_path, monkeypatch):
    """The sentence-level clause models ship with what they were fitted on; a unit model reads
    each unit under its passage's heading path; a document model fitted with one says Yes
    exactly when its probability, from the document's best unit, reaches its threshold, and the
    panel names the best sentence's probability. A model fitted with a unit model that is not
    shipped gives no input: the column falls back to its single threshold."""
    import json

    from legalnav.retrieval.topics import Topic
    from legalnav.review import docvote, unitclauses
    from legalnav.review.columns import YES_NO_KEYS

    data = json.loads(unitclauses.UNIT_MODELS_FILE.read_text(encoding="utf-8"))
    assert data["fitted_on"].startswith("368 CUAD contracts outside the 40-contract")
    shipped = unitclauses.unit_models()
    assert shipped and set(shipped) <= set(YES_NO_KEYS)
    assert any(m.units for m in fill.doc_yes_models().values())
    assert all(m.key in shipped for m in fill.doc_yes_models().values() if m.units)
    assert unitclauses.unit_model_text("7. Assignment", " Neither  party\nmay ") == (
        "7. Assignment\nNeither party may"
    )

    text, retriever, view, column = _anti_assignment_view(tmp_path)
    # a model that knows one word, "assign": a unit using it (or under a heading that does)
    # reads above every other unit
    probe = Topic("Anti-Assignment", "", -2.0, {"assign": 4.0})
    p_units = view.unit_topic_probabilities(probe)
    assert p_units.shape == (len(view.units),)
    hits = [
        i for i, u in enumerate(view.units)
        if "assign" in topics.features(
            unitclauses.unit_model_text(view.corpus.passage(u.row).context, u.text)
        )
    ]  # fmt: skip
    assert hits and len(hits) < len(view.units)
    others = [i for i in range(len(view.units)) if i not in set(hits)]
    assert np.allclose(p_units[hits], 1 / (1 + np.exp(-2.0)))
    assert np.allclose(p_units[others], 1 / (1 + np.exp(2.0)))
    best = float(p_units.max())

    def model(threshold: float) -> docvote.DocModel:
        # inputs: no topics, the best unit's logit (weight 1), the two cue features (weight 0)
        return docvote.DocModel(
            "Anti-Assignment", (), np.zeros(3), np.ones(3),
            np.array([1.0, 0.0, 0.0]), 0.0, threshold, units=True,
        )  # fmt: skip

    def cell(threshold: float, units: dict[str, Topic]) -> fill.Cell:
        return _voted_cell(
            monkeypatch, text, retriever, column,
            doc_yes_models={"Anti-Assignment": model(threshold)},
            topic_yes_thresholds={"Anti-Assignment": 1.01},  # never Yes alone
            unit_models=units,
        )  # fmt: skip

    yes, no = (
        cell(best - 1e-6, {"Anti-Assignment": probe}),
        cell(best + 1e-6, {"Anti-Assignment": probe}),
    )
    assert yes.value.startswith("Yes") and f"its best sentence {best:.2f}" in yes.reason
    assert no.value == "No" and "the document model" in no.reason
    fallback = cell(0.0, {})  # no unit model shipped: the single threshold (never Yes) decides
    assert fallback.value == "No" and "the document model" not in fallback.reason


@pytest.mark.parametrize("reads", ["units", "operative"])
def test_a_document_model_with_a_weight_short_for_what_it_reads_is_refused(reads):
    """A model that reads the best unit, or the operative wording, has one input more than the
    two cue features: shipped with only those two weights, it is refused when loaded."""
    from legalnav.review import docvote

    with pytest.raises(ValueError, match="weights"):
        docvote.DocModel.of(
            "Anti-Assignment",
            {"topics": [], reads: True, "mean": [0, 0], "scale": [1, 1], "coef": [1, 0],
             "intercept": 0, "threshold": 0.5},
        )  # fmt: skip


def test_typed_thresholds_apply_after_the_dates_are_read_together(tmp_path):
    """A typed column's cell is held to the threshold of a cell that read a value once
    dates_resolve has read its date (an Effective Date "as of the date first written above" is
    the Agreement Date), and to the higher one of a cell that found only a sentence otherwise;
    every cell of a real agreement keeps to them."""
    from legalnav.retrieval.adhoc import AdHocCorpora
    from legalnav.review.columns import CUAD_COLUMNS, TYPED_KEYS
    from tests.conftest import REPO

    limits = {"Effective Date": 0.3, "Effective Date (no value)": 0.6}
    sentence = fill.Cell("Effective Date", "as of the date first written above", [(0, 9)], 0.45)
    assert fill.typed_cut(sentence, limits).value == fill.NOT_FOUND
    dated = fill.Cell("Effective Date", "2010-04-15", [(0, 9)], 0.45, typed=dt.date(2010, 4, 15))
    assert fill.typed_cut(dated, limits) is dated
    assert fill.typed_cut(dated, {"Effective Date": 0.5}).value == fill.NOT_FOUND

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    text, retriever = corpora.text(path), corpora.retriever([path])
    cells = fill.fill_document(text=text, retriever=retriever, columns=CUAD_COLUMNS)
    typed = [c for c in cells if c.key in TYPED_KEYS and c.found]
    assert typed
    for c in typed:
        name = c.key if c.typed is not None else f"{c.key} (no value)"
        assert c.confidence >= calibration.COLUMN_THRESHOLDS.get(name, 0.0), c.key


def test_a_typed_cell_that_read_no_value_is_marked_for_review(tmp_path):
    """A date column whose nearest provision holds no date says "no date read" with no certainty
    of its own (0.0), so the grid's low-confidence filter shows it whatever the quotation's
    confidence; a cell that read its date keeps the quotation's."""
    from legalnav.retrieval.adhoc import AdHocCorpora
    from legalnav.review.columns import preset_column
    from legalnav.review.models import LOW_CONFIDENCE
    from legalnav.review.models import Cell as GridCell
    from tests.conftest import REPO

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    text, retriever = corpora.text(path), corpora.retriever([path])
    dateless = Column("Law date", "Which law governs this agreement and its disputes?", "date")
    agreement = preset_column("Agreement Date")
    assert agreement is not None
    unread, dated = fill.fill_document(
        text=text, retriever=retriever, columns=[dateless, agreement],
        constants=fill.Constants(threshold=0.0),
    )  # fmt: skip
    assert unread.found and unread.value == "no date read" and unread.typed is None
    assert unread.unread and not dated.unread
    assert unread.value_confidence == 0.0
    assert GridCell(found=True, confidence=max(unread.confidence, LOW_CONFIDENCE),
                    value_confidence=unread.value_confidence).low_confidence  # fmt: skip
    assert dated.typed is not None and dated.value_confidence is None


def test_the_document_name_is_the_title_at_the_documents_head(tmp_path):
    """The Document Name cell shows and quotes the title the matter page shows (read over the
    whole cover), not the words of the passage the column found."""
    from legalnav.documents.parsing.values import extract_title
    from legalnav.retrieval.adhoc import AdHocCorpora
    from legalnav.review.columns import preset_column
    from tests.conftest import REPO

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    text, retriever = corpora.text(path), corpora.retriever([path])
    column = preset_column("Document Name")
    assert column is not None
    (cell,) = fill.fill_document(
        text=text, retriever=retriever, columns=[column], constants=fill.Constants(threshold=0.0)
    )
    title = extract_title(text)
    assert title is not None and title.value == "DEVELOPMENT AGREEMENT"
    assert cell.value == title.value
    assert any(a <= title.start and title.end <= b for a, b in cell.spans)
    assert text[title.start : title.end] == "DEVELOPMENT AGREEMENT"
    # a found cell of a text with no title on its cover keeps what its passage gave
    found = fill.Cell("Document Name", "no title read", [(0, 5)], 0.9, "text", unread=True)
    fill.title_resolve([found], "1. Definitions. Words have meanings.")
    assert found.value == "no title read" and found.spans == [(0, 5)] and found.unread
    supply = "SUPPLY AGREEMENT\n\nThis Supply Agreement is made"
    heading = fill.Cell("Document Name", "no title read", [(0, 30)], 0.9, "text", unread=True)
    fill.title_resolve([heading], supply)
    assert heading.value == "SUPPLY AGREEMENT" and heading.spans == [(0, 30)]  # quoted already
    assert not heading.unread  # a title read after all
    preamble = fill.Cell("Document Name", "Supply Agreement", [(18, 40)], 0.9, "text")
    fill.title_resolve([preamble], supply)
    assert preamble.value == "SUPPLY AGREEMENT" and preamble.spans == [(0, 16), (18, 40)]


def test_a_sentence_whose_words_every_passage_uses_scores_no_match_not_an_error(
    tmp_path, monkeypatch
):
    """BM25 is negative for a sentence made only of words most of a document's passages use (a
    negative idf in a one-document corpus); seen at data-room scale as a grid chunk failing with
    "math domain error". The sentence counts as no lexical match and the cell is filled."""
    from legalnav.retrieval.adhoc import AdHocCorpora
    from legalnav.review.columns import preset_column
    from tests.conftest import REPO

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    text, retriever = corpora.text(path), corpora.retriever([path])
    monkeypatch.setattr(
        fill, "lexical_scores", lambda corpus, tokens, units: np.full(len(units), -3.0)
    )
    column = preset_column("Governing Law")
    assert column is not None
    (cell,) = fill.fill_document(text=text, retriever=retriever, columns=[column])
    assert cell.key == "Governing Law" and 0.0 <= cell.confidence <= 1.0


def test_a_cold_fill_embeds_only_the_few_units_each_column_rescores_and_reads_as_with_all(
    tmp_path,
):
    """With nothing kept from indexing (a document indexed before units were kept), a fill
    reads every candidate off one pass of the candidates' passages (one call, and one more for
    the rest of any passage past the model's window), then embeds alone only the units the
    columns rescore, in one call for all the columns; the cells are the ones a view with every
    unit already embedded gives."""
    from legalnav.retrieval.adhoc import AdHocCorpora
    from tests.conftest import REPO

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    text, retriever = corpora.text(path), corpora.retriever([path])
    columns = CUAD_COLUMNS[:12]
    embedder = retriever.corpus.embedder
    view = fill.DocumentView(text, retriever)
    qvecs = view.question_vectors([c.search_text for c in columns])
    picked = {u for i, c in enumerate(columns) for u in fill.pick_units(view, c, qvecs[i]).picked}
    w = np.asarray(fill.UNIT_WEIGHTS)
    rescored = {
        u
        for i, c in enumerate(columns)
        for u in fill.rescored_units(view, c, qvecs[i], w, fill.CUE_WEIGHTS)[1]
    }
    assert 0 < len(rescored) <= fill.RESCORED * len(columns) and len(rescored) < len(picked) / 2
    retriever.corpus.unit_memo.clear()
    retriever.corpus.cache = None  # nothing kept: every vector is computed here
    calls: list[tuple[str, int]] = []
    real_encode, real_tokens = embedder.encode, embedder.encode_tokens

    def encode(texts, *args, **kw):  # type: ignore[no-untyped-def]
        calls.append(("sentences", len(texts)))
        return real_encode(texts, *args, **kw)

    def tokens(texts, *args, **kw):  # type: ignore[no-untyped-def]
        calls.append(("passages", len(texts)))
        return real_tokens(texts, *args, **kw)

    embedder.encode, embedder.encode_tokens = encode, tokens  # type: ignore[method-assign]
    try:
        cells = fill.fill_document(text=text, retriever=retriever, columns=columns)
    finally:
        del embedder.encode, embedder.encode_tokens
    rows = {view.units[u].row for u in picked}
    assert calls[0][0] == "passages" and calls[0][1] >= len(rows)  # (+ units read alone)
    sentences = [n for kind, n in calls if kind == "sentences"]
    # one batch of the rescored units, less those that are whole passages (their vector is
    # the passage's)
    assert len(sentences) == 1 and 0 < sentences[0] <= len(rescored)
    assert len(calls) <= 3
    view = fill.DocumentView(text, retriever)
    view.embed_units(range(len(view.units)))  # every unit, as the fill did before
    warm = fill.fill_document(text=text, retriever=retriever, columns=columns)

    def read(cs: list[fill.Cell]) -> list[tuple[str, list[tuple[int, int]], float]]:
        return [(c.value, c.spans, round(c.confidence, 3)) for c in cs]

    assert read(cells) == read(warm)
    assert sum(c.found for c in cells) >= 6


def test_the_units_a_column_rescores_hold_the_one_every_own_vector_would_choose(tmp_path):
    """The passage-pass vectors only choose which units get their own vector: the unit the model
    ranks best when every candidate has its own vector is among those chosen."""
    from legalnav.retrieval.adhoc import AdHocCorpora
    from tests.conftest import REPO

    path = str(REPO / "demo" / "documents" / "bioamber-development-agreement.txt")
    corpora = AdHocCorpora(tmp_path)
    text, retriever = corpora.text(path), corpora.retriever([path])
    view = fill.DocumentView(text, retriever)
    columns = list(CUAD_COLUMNS)
    qvecs = view.question_vectors([c.search_text for c in columns])
    w = np.asarray(fill.UNIT_WEIGHTS)
    held = asked = 0
    for column, qvec in zip(columns, qvecs, strict=True):
        everyone = set(fill.pick_units(view, column, qvec).picked)
        if not everyone:
            continue
        full = fill._score(
            fill.candidates(view, column, qvec, own=everyone), column, w, fill.CUE_WEIGHTS
        )
        _, chosen = fill.rescored_units(view, column, qvec, w, fill.CUE_WEIGHTS)
        asked += 1
        held += full[0].unit in chosen
    assert asked >= 35 and held / asked >= 0.9, (held, asked)


@pytest.mark.parametrize(
    ("key", "type_", "text", "value"),
    [
        # CUAD (PC Quote, an amendment of one paragraph): the quotation nearest an Agreement
        # Date is a filing stamp, whose date is the filing's
        (
            "Agreement Date",
            "date",
            "Source: PCQUOTE COM INC, S-1/A, 7/21/1999 AGREED TO BY:",
            "no date read",
        ),
        (
            "Renewal Term",
            "duration",
            "This Amendment shall apply to said PCQ and ABW.",
            "no period read",
        ),
        ("Fee", "amount", "The fees are set out in Schedule B.", "no amount read"),
        ("Agreement Date", "date", "made effective December 9, 1996 by and between", "1996-12-09"),
        # a Document Name is a title, not the sentence it was looked for in (CUAD, Paratek)
        (
            "Document Name",
            "text",
            "REDACTED MATERIAL IS MARKED WITH [* * *] AND HAS BEEN FILED SEPARATELY WITH THE "
            "SECURITIES AND EXCHANGE COMMISSION.",
            "no title read",
        ),
        (
            "Document Name",
            "text",
            "EXHIBIT 10.1 OUTSOURCING AGREEMENT This",
            "OUTSOURCING AGREEMENT",
        ),
        # a text column still shows what it quotes
        (
            "Counterparty bank",
            "text",
            "Wells Fargo Bank, N.A., as agent",
            "Wells Fargo Bank, N.A., as agent",
        ),
    ],
)
def test_a_typed_cell_shows_a_value_of_its_type_or_says_it_read_none(key, type_, text, value):
    column = Column(key, f"What is the {key}?", type_)
    extractor = fill.column_extractor(column)
    found = fill.Candidate(0, len(text), text, 0, np.zeros(1), np.zeros(0))
    found.extracted = extractor(text) if extractor else None
    shown, typed, reason, unread = fill._value(column, [found])
    assert shown == value
    assert unread is value.startswith("no ")
    if unread:
        assert typed is None and reason.startswith(value) and "could be read" in reason
