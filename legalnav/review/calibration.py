"""Fitted constants of the offline cell filler (fill.py). Generated: do not edit by hand.

Written by ``scripts/eval_extract.py --fit --write`` (legalnav/review/fitting.py): logistic
models fitted on the 40 CUAD dev contracts (every tenth contract in name order) x the
41 preset columns, with L2 penalty 1.0 on standardised features. Held-out figures, by
5-fold cross-validation by contract (fit on the other folds, score the held-out one):
    cross-validated (5 folds by contract): typed_right 0.836, dates_right 0.736, parties_right 0.846, durations_right 0.911, jurisdiction_right 0.950, yes_no_accuracy 0.873, yes_f1_pooled 0.766, yes_f1_mean 0.608, aupr_mean 0.555, aupr_pooled 0.700
    in-sample (fitted and scored on the same contracts): typed_right 0.866, dates_right 0.773, parties_right 0.846, durations_right 0.962, jurisdiction_right 0.950, yes_no_accuracy 0.911, yes_f1_pooled 0.832, yes_f1_mean 0.666, aupr_mean 0.601, aupr_pooled 0.734
"""

from __future__ import annotations

# Unit model: one weight per fill.FEATURES name, in order.
UNIT_WEIGHTS: tuple[float, ...] = (
    -6.5604,  # bias
    0.8637,  # cos
    -4.3452,  # cos_gap
    -0.2454,  # lex_rel
    0.2929,  # fused_rank
    0.2137,  # unit_lex
    0.3678,  # unit_lex_rel
    0.8553,  # cues
    0.5817,  # cue_any
    1.2945,  # extracted
    0.5074,  # opening
    0.0000,  # cued_column
    0.7276,  # first_units
    1.6644,  # unit_cos
    4.0861,  # unit_cos_gap
    4.1145,  # topic
)
# Per preset column, one weight per cue pattern, in the column's order.
CUE_WEIGHTS: dict[str, tuple[float, ...]] = {
    "Document Name": (
        -1.2797,
        -0.9230,
    ),
    "Parties": (
        0.9302,
        -2.1782,
        -0.0339,
    ),
    "Agreement Date": (
        -0.9470,
        0.1501,
    ),
    "Effective Date": (
        -1.5014,
        0.0910,
        -1.5729,
    ),
    "Expiration Date": (
        -0.9734,
        -0.5277,
        0.2103,
        -1.7778,
    ),
    "Renewal Term": (
        -0.0587,
        0.3056,
        -0.5287,
        0.5811,
    ),
    "Notice Period To Terminate Renewal": (
        0.4965,
        0.9987,
        -0.3388,
    ),
    "Governing Law": (
        -0.4714,
        -0.1535,
        -1.6833,
        -0.5981,
    ),
    "Most Favored Nation": (
        -0.0160,
        -0.0675,
        0.0000,
    ),
    "Competitive Restriction Exception": (
        0.6812,
        1.1209,
    ),
    "Non-Compete": (
        1.2902,
        1.1652,
        -0.0710,
    ),
    "Exclusivity": (
        -0.2666,
        0.0000,
        -0.6140,
    ),
    "No-Solicit Of Customers": (
        1.4712,
        0.0000,
    ),
    "No-Solicit Of Employees": (
        -0.6275,
        0.2852,
    ),
    "Non-Disparagement": (
        0.2691,
        0.0000,
    ),
    "Termination For Convenience": (
        -0.0202,
        -0.5204,
        -0.6687,
        -0.1251,
    ),
    "Rofr/Rofo/Rofn": (
        0.2344,
        0.7733,
        -0.0214,
    ),
    "Change Of Control": (
        0.2422,
        0.4390,
        -1.1577,
    ),
    "Anti-Assignment": (
        0.0829,
        0.4801,
        -0.5995,
    ),
    "Revenue/Profit Sharing": (
        -0.9096,
        0.2708,
        0.0000,
        -1.1436,
    ),
    "Price Restrictions": (
        -0.0542,
        0.0000,
    ),
    "Minimum Commitment": (
        0.8989,
        0.0000,
    ),
    "Volume Restriction": (
        -0.0292,
        0.0000,
    ),
    "Ip Ownership Assignment": (
        0.4361,
        -0.1627,
        0.4106,
    ),
    "Joint Ip Ownership": (
        0.7028,
        0.4673,
        -0.0678,
    ),
    "License Grant": (
        0.3922,
        0.0587,
    ),
    "Non-Transferable License": (
        0.9445,
        0.1151,
        0.0843,
    ),
    "Affiliate License-Licensor": (
        0.6058,
        0.0000,
    ),
    "Affiliate License-Licensee": (
        0.3270,
        0.0000,
    ),
    "Unlimited/All-You-Can-Eat-License": (
        0.7471,
        0.0000,
        -0.1399,
    ),
    "Irrevocable Or Perpetual License": (
        1.2247,
        0.7013,
    ),
    "Source Code Escrow": (
        -0.1477,
        -0.5142,
    ),
    "Post-Termination Services": (
        -0.8557,
        -1.6606,
        0.4517,
        0.3554,
    ),
    "Audit Rights": (
        0.1916,
        -0.2496,
        0.1867,
    ),
    "Uncapped Liability": (
        0.2674,
        -0.5770,
        -0.0245,
    ),
    "Cap On Liability": (
        1.1057,
        0.1903,
        0.0345,
        -0.4193,
    ),
    "Liquidated Damages": (
        0.0000,
        0.9968,
        0.0000,
    ),
    "Warranty Duration": (
        1.1940,
        0.0000,
    ),
    "Insurance": (
        -0.1116,
        0.2092,
        0.0654,
    ),
    "Covenant Not To Sue": (
        0.6876,
        0.0000,
        -0.0349,
    ),
    "Third Party Beneficiary": (
        1.1423,
        0.0000,
        -0.2276,
    ),
}
# Cell model over fill.cell_features: (bias, best unit's log-odds, column prior log-odds).
CELL_WEIGHTS: tuple[float, ...] = (0.4789, 0.9202, 0.1407)
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
    "Agreement Date (no value)": 0.0000,
    "Effective Date": 0.0000,
    "Effective Date (no value)": 0.0833,
    "Expiration Date": 0.7469,
    "Expiration Date (no value)": 0.7066,
    "Governing Law": 0.0000,
    "Governing Law (no value)": 0.0602,
    "Notice Period To Terminate Renewal": 0.0720,
    "Notice Period To Terminate Renewal (no value)": 0.0000,
    "Parties": 0.0000,
    "Parties (no value)": 0.0000,
    "Renewal Term": 0.1335,
    "Renewal Term (no value)": 0.0000,
}
# Per yes/no preset column, the confidence below which its cell says "No" (its
# quotation still shown): the best F1 of "Yes" on the fitting contracts.
YES_THRESHOLDS: dict[str, float] = {
    "Affiliate License-Licensee": 0.1100,
    "Affiliate License-Licensor": 0.1100,
    "Anti-Assignment": 0.1100,
    "Audit Rights": 0.1100,
    "Cap On Liability": 0.1100,
    "Change Of Control": 0.2176,
    "Competitive Restriction Exception": 0.1100,
    "Covenant Not To Sue": 0.1374,
    "Exclusivity": 0.1415,
    "Insurance": 0.4289,
    "Ip Ownership Assignment": 0.0786,
    "Irrevocable Or Perpetual License": 0.2179,
    "Joint Ip Ownership": 0.0486,
    "License Grant": 0.2434,
    "Liquidated Damages": 0.1100,
    "Minimum Commitment": 0.0426,
    "Most Favored Nation": 0.1100,
    "No-Solicit Of Customers": 0.1100,
    "No-Solicit Of Employees": 0.0413,
    "Non-Compete": 0.1045,
    "Non-Disparagement": 0.1100,
    "Non-Transferable License": 0.1322,
    "Post-Termination Services": 0.1100,
    "Price Restrictions": 0.1100,
    "Revenue/Profit Sharing": 0.1100,
    "Rofr/Rofo/Rofn": 0.0543,
    "Source Code Escrow": 0.1100,
    "Termination For Convenience": 0.2654,
    "Third Party Beneficiary": 0.2741,
    "Uncapped Liability": 0.2346,
    "Unlimited/All-You-Can-Eat-License": 0.1100,
    "Volume Restriction": 0.1100,
    "Warranty Duration": 0.1100,
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
