"""Fitted constants of the offline cell filler (fill.py). Generated: do not edit by hand.

Written by ``scripts/eval_extract.py --fit --write`` (legalnav/review/fitting.py): logistic
models fitted on the 40 CUAD dev contracts (every tenth contract in name order) x the
41 preset columns, with L2 penalty 1.0 on standardised features. Held-out figures, by
5-fold cross-validation by contract (fit on the other folds, score the held-out one):
    with the threshold: aupr_mean 0.398, p@80r_mean 0.163, aupr_pooled 0.556, precision 0.415, recall 0.649, accuracy 0.642
    without it: aupr_mean 0.414, p@80r_mean 0.176, aupr_pooled 0.563, precision 0.239, recall 0.671, accuracy 0.239
"""

from __future__ import annotations

# Unit model: one weight per fill.FEATURES name, in order.
UNIT_WEIGHTS: tuple[float, ...] = (
    -9.0174,  # bias
    3.2324,  # cos
    -0.5424,  # cos_gap
    1.9029,  # lex_rel
    0.0450,  # fused_rank
    0.4250,  # unit_lex
    -0.7438,  # unit_lex_rel
    0.2206,  # cues
    1.2500,  # cue_any
    1.3125,  # extracted
    2.0492,  # opening
    0.0000,  # cued_column
    2.8969,  # first_units
    4.4600,  # unit_cos
    -0.4974,  # unit_cos_gap
)
# Per preset column, one weight per cue pattern, in the column's order.
CUE_WEIGHTS: dict[str, tuple[float, ...]] = {
    "Document Name": (
        0.9570,
        0.8799,
    ),
    "Parties": (
        2.7548,
        -1.8959,
        0.2207,
    ),
    "Agreement Date": (
        -0.4402,
        0.4721,
    ),
    "Effective Date": (
        -1.0621,
        0.6600,
        -6.4892,
    ),
    "Expiration Date": (
        -0.2603,
        0.5819,
        7.4697,
        -1.5948,
    ),
    "Renewal Term": (
        2.0692,
        0.7676,
        -0.4057,
        1.7880,
    ),
    "Notice Period To Terminate Renewal": (
        9.0494,
        9.1481,
        0.0254,
    ),
    "Governing Law": (
        1.3217,
        1.4948,
        -1.4414,
        0.6923,
    ),
    "Most Favored Nation": (
        -4.8603,
        -5.7616,
        0.0000,
    ),
    "Competitive Restriction Exception": (
        0.0517,
        2.1798,
    ),
    "Non-Compete": (
        2.7316,
        10.6872,
        1.2763,
    ),
    "Exclusivity": (
        1.1641,
        0.0000,
        -6.4266,
    ),
    "No-Solicit Of Customers": (
        1.9832,
        0.0000,
    ),
    "No-Solicit Of Employees": (
        0.5218,
        3.0075,
    ),
    "Non-Disparagement": (
        2.4855,
        0.0000,
    ),
    "Termination For Convenience": (
        1.7432,
        0.7761,
        -0.3413,
        0.8035,
    ),
    "Rofr/Rofo/Rofn": (
        1.8024,
        3.6435,
        -3.8237,
    ),
    "Change Of Control": (
        1.1594,
        0.7239,
        -8.7824,
    ),
    "Anti-Assignment": (
        1.8151,
        2.3662,
        0.5970,
    ),
    "Revenue/Profit Sharing": (
        0.6664,
        2.3877,
        0.0000,
        -0.6693,
    ),
    "Price Restrictions": (
        -4.6965,
        0.0000,
    ),
    "Minimum Commitment": (
        2.5757,
        0.0000,
    ),
    "Volume Restriction": (
        -4.3046,
        0.0000,
    ),
    "Ip Ownership Assignment": (
        2.2459,
        -5.1888,
        9.0694,
    ),
    "Joint Ip Ownership": (
        9.5362,
        1.0075,
        -5.4536,
    ),
    "License Grant": (
        2.1077,
        1.5387,
    ),
    "Non-Transferable License": (
        4.3536,
        4.2545,
        2.6928,
    ),
    "Affiliate License-Licensor": (
        0.5913,
        0.0000,
    ),
    "Affiliate License-Licensee": (
        1.5433,
        0.0000,
    ),
    "Unlimited/All-You-Can-Eat-License": (
        2.4859,
        0.0000,
        -4.3017,
    ),
    "Irrevocable Or Perpetual License": (
        2.6469,
        2.6653,
    ),
    "Source Code Escrow": (
        1.2147,
        -0.2508,
    ),
    "Post-Termination Services": (
        0.0684,
        -2.8007,
        1.9492,
        1.1822,
    ),
    "Audit Rights": (
        2.3576,
        1.6695,
        1.9786,
    ),
    "Uncapped Liability": (
        0.7389,
        -0.4150,
        -4.7415,
    ),
    "Cap On Liability": (
        2.2140,
        12.4069,
        -4.0511,
        1.3794,
    ),
    "Liquidated Damages": (
        0.0000,
        2.3942,
        0.0000,
    ),
    "Warranty Duration": (
        3.1493,
        0.0000,
    ),
    "Insurance": (
        1.9949,
        1.5502,
        1.0517,
    ),
    "Covenant Not To Sue": (
        10.7298,
        0.0000,
        -5.7461,
    ),
    "Third Party Beneficiary": (
        1.4911,
        0.0000,
        -7.2772,
    ),
}
# Cell model over fill.cell_features: (bias, best unit's log-odds, column prior log-odds).
CELL_WEIGHTS: tuple[float, ...] = (-0.0228, 0.9019, 0.2684)
# Below this confidence a cell says "not found": the most accurate threshold costing at most
# 0.01 of mean per-column AUPR on the fitting contracts.
NOT_FOUND_BELOW = 0.03
# Log-odds that a contract has gold for the column (+1/+2 smoothing).
COLUMN_PRIORS: dict[str, float] = {
    "Affiliate License-Licensee": -2.0015,
    "Affiliate License-Licensor": -2.0015,
    "Agreement Date": 2.9957,
    "Anti-Assignment": 2.0015,
    "Audit Rights": 0.0953,
    "Cap On Liability": 0.4463,
    "Change Of Control": -0.8473,
    "Competitive Restriction Exception": -1.1632,
    "Covenant Not To Sue": -1.7918,
    "Document Name": 3.7136,
    "Effective Date": 1.6422,
    "Exclusivity": -0.9163,
    "Expiration Date": 2.0015,
    "Governing Law": 2.5390,
    "Insurance": -0.4463,
    "Ip Ownership Assignment": -0.5878,
    "Irrevocable Or Perpetual License": -1.1632,
    "Joint Ip Ownership": -1.6094,
    "License Grant": 0.3448,
    "Liquidated Damages": -1.9741,
    "Minimum Commitment": -0.8824,
    "Most Favored Nation": -2.2513,
    "No-Solicit Of Customers": -2.5123,
    "No-Solicit Of Employees": -1.9459,
    "Non-Compete": -0.6190,
    "Non-Disparagement": -2.9444,
    "Non-Transferable License": -0.8824,
    "Notice Period To Terminate Renewal": -1.5805,
    "Parties": 3.7136,
    "Post-Termination Services": 0.2451,
    "Price Restrictions": -2.9957,
    "Renewal Term": -0.7673,
    "Revenue/Profit Sharing": -0.4855,
    "Rofr/Rofo/Rofn": -1.1632,
    "Source Code Escrow": -2.5649,
    "Termination For Convenience": 0.0953,
    "Third Party Beneficiary": -1.6094,
    "Uncapped Liability": -1.1314,
    "Unlimited/All-You-Can-Eat-License": -2.9957,
    "Volume Restriction": -2.0015,
    "Warranty Duration": -2.0015,
}
