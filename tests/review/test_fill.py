"""The filler's model pieces: the fitted constants match the features, and the logistic fit
used to produce them recovers known weights."""

from __future__ import annotations

import numpy as np

from legalnav.review import calibration, fill
from legalnav.review.columns import CUAD_COLUMNS
from legalnav.review.fitting import logistic


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
    assert set(calibration.YES_THRESHOLDS) == set(YES_NO_KEYS)
    assert all(0.0 <= t <= 1.0 for t in calibration.YES_THRESHOLDS.values())
    assert len(calibration.FITTED_ON) == 40 and all(
        n.endswith(".txt") for n in calibration.FITTED_ON
    )
