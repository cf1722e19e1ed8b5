"""Fitted constants of the offline cell filler (fill.py). Generated: do not edit by hand.

Written by ``scripts/eval_extract.py --fit --write`` (legalnav/review/fitting.py): logistic
models fitted on the 40 CUAD dev contracts (every tenth contract in name order) x the
41 preset columns, with L2 penalty 1.0 on standardised features. Held-out figures, by
5-fold cross-validation by contract (fit on the other folds, score the held-out one):
    with the threshold: aupr_mean 0.536, p@80r_mean 0.354, aupr_pooled 0.667, precision 0.538, recall 0.758, accuracy 0.748
    without it: aupr_mean 0.546, p@80r_mean 0.375, aupr_pooled 0.673, precision 0.276, recall 0.774, accuracy 0.276
"""

from __future__ import annotations

# Unit model: one weight per fill.FEATURES name, in order.
UNIT_WEIGHTS: tuple[float, ...] = (
    -6.7186,  # bias
    1.0893,  # cos
    -4.6695,  # cos_gap
    -0.3042,  # lex_rel
    0.2741,  # fused_rank
    0.1696,  # unit_lex
    0.4839,  # unit_lex_rel
    0.1394,  # cues
    0.3973,  # cue_any
    0.9642,  # extracted
    0.4795,  # opening
    0.0000,  # cued_column
    1.0444,  # first_units
    1.7678,  # unit_cos
    4.1175,  # unit_cos_gap
    4.1939,  # topic
)
# Per preset column, one weight per cue pattern, in the column's order.
CUE_WEIGHTS: dict[str, tuple[float, ...]] = {
    "Document Name": (
        0.4888,
        0.1281,
    ),
    "Parties": (
        2.4499,
        -1.6864,
        0.7245,
    ),
    "Agreement Date": (
        -0.1369,
        1.1032,
    ),
    "Effective Date": (
        -0.5766,
        1.0837,
        -6.1631,
    ),
    "Expiration Date": (
        -0.2626,
        0.3864,
        7.0745,
        -1.1812,
    ),
    "Renewal Term": (
        0.8376,
        1.1147,
        -0.5804,
        2.2001,
    ),
    "Notice Period To Terminate Renewal": (
        8.1099,
        9.9828,
        0.0475,
    ),
    "Governing Law": (
        0.6892,
        0.9951,
        -1.6389,
        0.3946,
    ),
    "Most Favored Nation": (
        -3.9516,
        -4.2906,
        0.0000,
    ),
    "Competitive Restriction Exception": (
        1.9617,
        3.0836,
    ),
    "Non-Compete": (
        2.9647,
        10.1581,
        0.8489,
    ),
    "Exclusivity": (
        0.6093,
        0.0000,
        -7.3846,
    ),
    "No-Solicit Of Customers": (
        3.5746,
        0.0000,
    ),
    "No-Solicit Of Employees": (
        0.0533,
        2.2697,
    ),
    "Non-Disparagement": (
        1.7114,
        0.0000,
    ),
    "Termination For Convenience": (
        0.7937,
        0.0733,
        -0.0856,
        0.6816,
    ),
    "Rofr/Rofo/Rofn": (
        1.2670,
        3.5042,
        -4.2041,
    ),
    "Change Of Control": (
        1.2530,
        1.5856,
        -7.6884,
    ),
    "Anti-Assignment": (
        0.8856,
        1.5722,
        0.1863,
    ),
    "Revenue/Profit Sharing": (
        -0.1346,
        2.4633,
        0.0000,
        -1.0171,
    ),
    "Price Restrictions": (
        -3.8560,
        0.0000,
    ),
    "Minimum Commitment": (
        2.5653,
        0.0000,
    ),
    "Volume Restriction": (
        -4.4883,
        0.0000,
    ),
    "Ip Ownership Assignment": (
        1.5323,
        -4.5419,
        8.2090,
    ),
    "Joint Ip Ownership": (
        9.3988,
        2.0405,
        -4.3480,
    ),
    "License Grant": (
        1.3014,
        0.8688,
    ),
    "Non-Transferable License": (
        3.7569,
        3.9094,
        2.2874,
    ),
    "Affiliate License-Licensor": (
        1.7402,
        0.0000,
    ),
    "Affiliate License-Licensee": (
        1.9166,
        0.0000,
    ),
    "Unlimited/All-You-Can-Eat-License": (
        3.2768,
        0.0000,
        -4.2640,
    ),
    "Irrevocable Or Perpetual License": (
        2.5830,
        1.9635,
    ),
    "Source Code Escrow": (
        0.8664,
        -0.1019,
    ),
    "Post-Termination Services": (
        -0.0994,
        -1.8996,
        2.5319,
        1.3255,
    ),
    "Audit Rights": (
        1.1082,
        0.5080,
        1.1550,
    ),
    "Uncapped Liability": (
        1.6980,
        -0.7573,
        -4.2931,
    ),
    "Cap On Liability": (
        2.4905,
        11.1386,
        -3.7359,
        0.2399,
    ),
    "Liquidated Damages": (
        0.0000,
        4.0296,
        0.0000,
    ),
    "Warranty Duration": (
        3.7142,
        0.0000,
    ),
    "Insurance": (
        0.7810,
        1.1576,
        0.8750,
    ),
    "Covenant Not To Sue": (
        8.6227,
        0.0000,
        -4.6735,
    ),
    "Third Party Beneficiary": (
        2.7792,
        0.0000,
        -6.6460,
    ),
}
# Cell model over fill.cell_features: (bias, best unit's log-odds, column prior log-odds).
CELL_WEIGHTS: tuple[float, ...] = (0.3567, 0.8712, 0.1887)
# Below this confidence a cell says "not found": the most accurate threshold costing at most
# 0.01 of mean per-column AUPR on the fitting contracts.
NOT_FOUND_BELOW = 0.04
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
# Per preset column, the confidence below which its cell says "not found" (else NOT_FOUND_BELOW).
COLUMN_THRESHOLDS: dict[str, float] = {}
