"""Fitted constants of the offline cell filler (fill.py). Generated: do not edit by hand.

Written by ``scripts/eval_extract.py --fit --write`` (legalnav/review/fitting.py): logistic
models fitted on the 40 CUAD dev contracts (every tenth contract in name order) x the
41 preset columns, with L2 penalty 1.0 on standardised features. Held-out figures, by
5-fold cross-validation by contract (fit on the other folds, score the held-out one):
    cross-validated (5 folds by contract): typed_right 0.802, dates_right 0.700, parties_right 0.846, durations_right 0.861, jurisdiction_right 0.925, yes_no_accuracy 0.874, yes_f1_pooled 0.765, yes_f1_mean 0.605, aupr_mean 0.532, aupr_pooled 0.672
    in-sample (fitted and scored on the same contracts): typed_right 0.862, dates_right 0.773, parties_right 0.846, durations_right 0.949, jurisdiction_right 0.950, yes_no_accuracy 0.911, yes_f1_pooled 0.834, yes_f1_mean 0.695, aupr_mean 0.600, aupr_pooled 0.727
"""

from __future__ import annotations

# Unit model: one weight per fill.FEATURES name, in order.
UNIT_WEIGHTS: tuple[float, ...] = (
    -6.7513,  # bias
    1.1218,  # cos
    -4.6693,  # cos_gap
    -0.2530,  # lex_rel
    0.3094,  # fused_rank
    0.1996,  # unit_lex
    0.3972,  # unit_lex_rel
    0.1587,  # cues
    0.2723,  # cue_any
    1.3523,  # extracted
    0.5100,  # opening
    0.0000,  # cued_column
    0.7350,  # first_units
    1.6958,  # unit_cos
    4.1237,  # unit_cos_gap
    4.1666,  # topic
)
# Per preset column, one weight per cue pattern, in the column's order.
CUE_WEIGHTS: dict[str, tuple[float, ...]] = {
    "Document Name": (
        -0.4934,
        -0.1988,
    ),
    "Parties": (
        2.4368,
        -1.7810,
        0.9389,
    ),
    "Agreement Date": (
        -0.1667,
        1.1736,
    ),
    "Effective Date": (
        -0.6194,
        1.0831,
        -6.3097,
    ),
    "Expiration Date": (
        -0.3530,
        0.3864,
        6.6983,
        -1.4441,
    ),
    "Renewal Term": (
        0.7602,
        1.3660,
        -0.6842,
        2.1557,
    ),
    "Notice Period To Terminate Renewal": (
        8.9378,
        9.7316,
        -0.2495,
    ),
    "Governing Law": (
        0.5404,
        0.9138,
        -1.6525,
        0.2082,
    ),
    "Most Favored Nation": (
        -3.8684,
        -4.2148,
        0.0000,
    ),
    "Competitive Restriction Exception": (
        2.0392,
        3.1818,
    ),
    "Non-Compete": (
        3.0971,
        10.2545,
        0.9245,
    ),
    "Exclusivity": (
        0.7252,
        0.0000,
        -7.3139,
    ),
    "No-Solicit Of Customers": (
        3.6550,
        0.0000,
    ),
    "No-Solicit Of Employees": (
        0.1447,
        2.3663,
    ),
    "Non-Disparagement": (
        1.8371,
        0.0000,
    ),
    "Termination For Convenience": (
        0.9280,
        0.1646,
        0.0028,
        0.7352,
    ),
    "Rofr/Rofo/Rofn": (
        1.3686,
        3.6168,
        -4.1092,
    ),
    "Change Of Control": (
        1.3293,
        1.6760,
        -7.7397,
    ),
    "Anti-Assignment": (
        0.9147,
        1.6221,
        0.2736,
    ),
    "Revenue/Profit Sharing": (
        -0.0010,
        2.5599,
        0.0000,
        -0.9059,
    ),
    "Price Restrictions": (
        -3.7733,
        0.0000,
    ),
    "Minimum Commitment": (
        2.6544,
        0.0000,
    ),
    "Volume Restriction": (
        -4.3876,
        0.0000,
    ),
    "Ip Ownership Assignment": (
        1.6503,
        -4.4592,
        8.3187,
    ),
    "Joint Ip Ownership": (
        9.4737,
        2.1378,
        -4.2449,
    ),
    "License Grant": (
        1.3961,
        0.9229,
    ),
    "Non-Transferable License": (
        3.8516,
        3.9065,
        2.2755,
    ),
    "Affiliate License-Licensor": (
        1.8490,
        0.0000,
    ),
    "Affiliate License-Licensee": (
        2.0332,
        0.0000,
    ),
    "Unlimited/All-You-Can-Eat-License": (
        3.3829,
        0.0000,
        -4.1562,
    ),
    "Irrevocable Or Perpetual License": (
        2.7042,
        2.0353,
    ),
    "Source Code Escrow": (
        0.9490,
        -0.0910,
    ),
    "Post-Termination Services": (
        0.0145,
        -1.7988,
        2.6085,
        1.4293,
    ),
    "Audit Rights": (
        1.2084,
        0.5882,
        1.2223,
    ),
    "Uncapped Liability": (
        1.7894,
        -0.6596,
        -4.2282,
    ),
    "Cap On Liability": (
        2.5847,
        11.1155,
        -3.6301,
        0.3384,
    ),
    "Liquidated Damages": (
        0.0000,
        4.1138,
        0.0000,
    ),
    "Warranty Duration": (
        3.6453,
        0.0000,
    ),
    "Insurance": (
        0.8811,
        1.2113,
        0.8758,
    ),
    "Covenant Not To Sue": (
        8.7331,
        0.0000,
        -4.5752,
    ),
    "Third Party Beneficiary": (
        2.8801,
        0.0000,
        -6.6722,
    ),
}
# Cell model over fill.cell_features: (bias, best unit's log-odds, column prior log-odds).
CELL_WEIGHTS: tuple[float, ...] = (0.3641, 0.8583, 0.2050)
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
# Per typed preset column, the confidence below which its cell says "not found": the one
# that makes most values right on the fitting contracts (evaluation/grid_fit.py).
COLUMN_THRESHOLDS: dict[str, float] = {
    "Agreement Date": 0.0000,
    "Effective Date": 0.0952,
    "Expiration Date": 0.8534,
    "Governing Law": 0.0772,
    "Notice Period To Terminate Renewal": 0.3406,
    "Parties": 0.0000,
    "Renewal Term": 0.1336,
}
# Per yes/no preset column, the confidence below which its cell says "No" (its
# quotation still shown): the best F1 of "Yes" on the fitting contracts.
YES_THRESHOLDS: dict[str, float] = {
    "Affiliate License-Licensee": 0.1300,
    "Affiliate License-Licensor": 0.1300,
    "Anti-Assignment": 0.1300,
    "Audit Rights": 0.1300,
    "Cap On Liability": 0.0720,
    "Change Of Control": 0.2343,
    "Competitive Restriction Exception": 0.0452,
    "Covenant Not To Sue": 0.1300,
    "Exclusivity": 0.1347,
    "Insurance": 0.2388,
    "Ip Ownership Assignment": 0.0792,
    "Irrevocable Or Perpetual License": 0.8325,
    "Joint Ip Ownership": 0.0301,
    "License Grant": 0.0382,
    "Liquidated Damages": 0.1300,
    "Minimum Commitment": 0.0411,
    "Most Favored Nation": 0.1300,
    "No-Solicit Of Customers": 0.1300,
    "No-Solicit Of Employees": 0.0337,
    "Non-Compete": 0.3303,
    "Non-Disparagement": 0.1300,
    "Non-Transferable License": 0.1300,
    "Post-Termination Services": 0.1158,
    "Price Restrictions": 0.1300,
    "Revenue/Profit Sharing": 0.0669,
    "Rofr/Rofo/Rofn": 0.0529,
    "Source Code Escrow": 0.1300,
    "Termination For Convenience": 0.2935,
    "Third Party Beneficiary": 0.2743,
    "Uncapped Liability": 0.2197,
    "Unlimited/All-You-Can-Eat-License": 0.1300,
    "Volume Restriction": 0.1300,
    "Warranty Duration": 0.1300,
}
# The contracts these constants saw: an evaluation that scores any of them is in-sample.
FITTED_ON: tuple[str, ...] = (
    "ABILITYINC_06_15_2020-EX-4.25-SERVICES AGREEMENT.txt",
    "AIRTECHINTERNATIONALGROUPINC_05_08_2000-EX-10.4-FRANCHISE AGREEMENT.txt",
    "ASPIRITYHOLDINGSLLC_05_07_2012-EX-10.6-OUTSOURCING AGREEMENT.txt",
    "Array BioPharma Inc. - LICENSE, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT.txt",
    "BIOAMBERINC_04_10_2013-EX-10.34-DEVELOPMENT AGREEMENT (1).txt",
    "BNCMORTGAGEINC_05_17_1999-EX-10.4-LICENSING AND WEB SITE HOSTING AGREEMENT.txt",
    "BravatekSolutionsInc_20170418_8-K_EX-10.1_10205739_EX-10.1_Reseller Agreement.txt",
    "CHIPMOSTECHNOLOGIESBERMUDALTD_04_18_2016-EX-4.72-Strategic Alliance Agreement.txt",
    "CerenceInc_20191002_8-K_EX-10.4_11827494_EX-10.4_Intellectual Property Agreement.txt",
    "DRIVENDELIVERIES,INC_05_22_2020-EX-10.4-CONSULTING AGREEMENT.txt",
    "EMERALDHEALTHTHERAPEUTICSINC_06_10_2020-EX-4.5-CONSULTING AGREEMENT - DR. GAETANO MORELLO N.D. INC..txt",
    "EhaveInc_20190515_20-F_EX-4.44_11678816_EX-4.44_License Agreement_ Reseller Agreement.txt",
    "FIBROGENINC_10_01_2014-EX-10.11-COLLABORATION AGREEMENT.txt",
    "GAINSCOINC_01_21_2010-EX-10.41-SPONSORSHIP AGREEMENT.txt",
    "GlobalTechnologiesGroupInc_20050928_10KSB_EX-10.9_4148808_EX-10.9_Content License Agreement.txt",
    "HC2HOLDINGS,INC_05_14_2020-EX-10.1-COOPERATION AGREEMENT.txt",
    "HarpoonTherapeuticsInc_20200312_10-K_EX-10.18_12051356_EX-10.18_Development Agreement.txt",
    "INKTOMICORP_06_08_1998-EX-10.14-SOFTWARE HOSTING AGREEMENT.txt",
    "IdeanomicsInc_20151124_8-K_EX-10.2_9354744_EX-10.2_Content License Agreement.txt",
    "JINGWEIINTERNATIONALLTD_10_04_2007-EX-10.7-INTELLECTUAL PROPERTY AGREEMENT.txt",
    "LECLANCHÉ S.A. - JOINT DEVELOPMENT AND MARKETING AGREEMENT.txt",
    "LegacyEducationAllianceInc_20141110_8-K_EX-10.9_8828866_EX-10.9_Endorsement Agreement.txt",
    "MANUFACTURERSSERVICESLTD_06_05_2000-EX-10.14-OUTSOURCING AGREEMENT.txt",
    "MOELIS_CO_03_24_2014-EX-10.19-STRATEGIC ALLIANCE AGREEMENT.txt",
    "MusclepharmCorp_20170208_10-KA_EX-10.38_9893581_EX-10.38_Co-Branding Agreement.txt",
    "NEXSTARFINANCEHOLDINGSINC_03_27_2002-EX-10.26-OUTSOURCING AGREEMENT.txt",
    "OAKTREECAPITALGROUP,LLC_03_02_2020-EX-10.8-Services Agreement.txt",
    "PACIRA PHARMACEUTICALS, INC. - A_R STRATEGIC LICENSING, DISTRIBUTION AND MARKETING AGREEMENT .txt",
    "ParatekPharmaceuticalsInc_20170505_10-KA_EX-10.29_10323872_EX-10.29_Outsourcing Agreement.txt",
    "PfHospitalityGroupInc_20150923_10-12G_EX-10.1_9266710_EX-10.1_Franchise Agreement3.txt",
    "REGANHOLDINGCORP_03_31_2008-EX-10-LICENSE AND HOSTING AGREEMENT.txt",
    "ReynoldsConsumerProductsInc_20191115_S-1_EX-10.18_11896469_EX-10.18_Supply Agreement.txt",
    "SIBANNAC,INC_12_04_2017-EX-2.1-Strategic Alliance Agreement.txt",
    "STAMPSCOMINC_06_24_1999-EX-10.18-SPONSORSHIP AGREEMENT.txt",
    "SimplicityEsportsGamingCompany_20181130_8-K_EX-10.1_11444071_EX-10.1_Franchise Agreement.txt",
    "TELEGLOBEINTERNATIONALHOLDINGSLTD_03_29_2004-EX-10.10-CONSTRUCTION AND MAINTENANCE AGREEMENT.txt",
    "TomOnlineInc_20060501_20-F_EX-4.46_749700_EX-4.46_Co-Branding Agreement.txt",
    "VEONEER,INC_02_21_2020-EX-10.11-JOINT VENTURE AGREEMENT.txt",
    "VerizonAbsLlc_20200123_8-K_EX-10.4_11952335_EX-10.4_Service Agreement.txt",
    "WESTERN COPPER - NON-COMPETITION AGREEMENT.txt",
)
