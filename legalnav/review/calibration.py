"""Fitted constants of the offline cell filler (fill.py). Generated: do not edit by hand.

Written by ``scripts/eval_extract.py --fit --write`` (legalnav/evaluation/fitting.py): logistic
models fitted on the 40 CUAD dev contracts (every tenth contract in name order) x the
41 preset columns, with L2 penalty 3.0 on standardised features (cue patterns on their
own scale). Held-out figures, by
5-fold cross-validation by contract (fit on the other folds, score the held-out one):
    cross-validated (5 folds by contract): typed_right 0.884, dates_right 0.845, parties_right 0.846, durations_right 0.924, jurisdiction_right 0.950, yes_no_accuracy 0.898, yes_f1_pooled 0.813, yes_f1_mean 0.730, aupr_mean 0.587, aupr_pooled 0.707
    in-sample (fitted and scored on the same contracts): typed_right 0.899, dates_right 0.864, parties_right 0.846, durations_right 0.937, jurisdiction_right 0.975, yes_no_accuracy 0.898, yes_f1_pooled 0.813, yes_f1_mean 0.730, aupr_mean 0.614, aupr_pooled 0.732
"""

from __future__ import annotations

# Unit model: one weight per fill.FEATURES name, in order.
UNIT_WEIGHTS: tuple[float, ...] = (
    -6.5374,  # bias
    0.7240,  # cos
    -4.1387,  # cos_gap
    -0.2232,  # lex_rel
    0.2788,  # fused_rank
    0.2359,  # unit_lex
    0.2937,  # unit_lex_rel
    0.7745,  # cues
    0.5385,  # cue_any
    1.1929,  # extracted
    0.5356,  # opening
    0.0000,  # cued_column
    0.7134,  # first_units
    1.8315,  # unit_cos
    3.9355,  # unit_cos_gap
    4.0627,  # topic
)
# Per preset column, one weight per cue pattern, in the column's order.
CUE_WEIGHTS: dict[str, tuple[float, ...]] = {
    "Document Name": (
        -0.7707,
        -0.8003,
    ),
    "Parties": (
        0.4948,
        -1.5558,
        0.0274,
    ),
    "Agreement Date": (
        -0.6137,
        0.0547,
    ),
    "Effective Date": (
        -1.1627,
        0.0473,
        -0.8557,
    ),
    "Expiration Date": (
        -0.5479,
        -0.3507,
        0.0812,
        -1.1689,
    ),
    "Renewal Term": (
        -0.0031,
        0.2331,
        -0.2039,
        0.3414,
    ),
    "Notice Period To Terminate Renewal": (
        0.2090,
        0.4572,
        -0.1089,
    ),
    "Governing Law": (
        -0.3693,
        -0.1883,
        -1.0554,
        -0.3972,
    ),
    "Most Favored Nation": (
        -0.0050,
        -0.0215,
        0.0000,
        0.2804,
        0.2795,
        0.0000,
        0.0000,
        0.0000,
    ),
    "Competitive Restriction Exception": (
        0.3876,
        0.5213,
    ),
    "Non-Compete": (
        0.7197,
        0.5066,
        0.0104,
        0.0000,
        0.0000,
    ),
    "Exclusivity": (
        -0.1294,
        0.0000,
        -0.2286,
    ),
    "No-Solicit Of Customers": (
        0.7339,
        0.0000,
    ),
    "No-Solicit Of Employees": (
        -0.3541,
        0.1213,
    ),
    "Non-Disparagement": (
        0.1356,
        0.0000,
    ),
    "Termination For Convenience": (
        0.0058,
        -0.2587,
        -0.3681,
        -0.0524,
    ),
    "Rofr/Rofo/Rofn": (
        0.1733,
        0.2903,
        -0.0066,
        0.1300,
        -0.1055,
    ),
    "Change Of Control": (
        0.2066,
        0.3852,
        -0.4976,
    ),
    "Anti-Assignment": (
        0.1385,
        0.3343,
        -0.4005,
    ),
    "Revenue/Profit Sharing": (
        -0.6587,
        0.1135,
        0.0000,
        -0.6660,
    ),
    "Price Restrictions": (
        -0.0173,
        0.0000,
        0.0000,
        0.0000,
    ),
    "Minimum Commitment": (
        0.2939,
        0.0000,
        -0.1688,
        0.4259,
    ),
    "Volume Restriction": (
        -0.0090,
        0.0000,
    ),
    "Ip Ownership Assignment": (
        0.3175,
        -0.0550,
        0.1830,
    ),
    "Joint Ip Ownership": (
        0.3021,
        0.2343,
        -0.0220,
    ),
    "License Grant": (
        0.4324,
        0.1473,
    ),
    "Non-Transferable License": (
        0.5033,
        0.0791,
        0.0597,
        0.0000,
        0.3088,
        0.0000,
        0.0000,
    ),
    "Affiliate License-Licensor": (
        0.4341,
        0.0000,
    ),
    "Affiliate License-Licensee": (
        0.1562,
        0.0000,
    ),
    "Unlimited/All-You-Can-Eat-License": (
        0.2850,
        0.0000,
    ),
    "Irrevocable Or Perpetual License": (
        0.8223,
        0.4881,
    ),
    "Source Code Escrow": (
        -0.0902,
        -0.2614,
    ),
    "Post-Termination Services": (
        -0.6298,
        -1.0247,
        0.2065,
        0.3181,
    ),
    "Audit Rights": (
        0.2746,
        -0.1010,
        0.1495,
    ),
    "Uncapped Liability": (
        0.1312,
        -0.2308,
        -0.0075,
    ),
    "Cap On Liability": (
        0.7376,
        0.0900,
        0.0297,
        -0.1840,
    ),
    "Liquidated Damages": (
        0.0000,
        0.4203,
        0.0000,
    ),
    "Warranty Duration": (
        0.5327,
        0.0000,
    ),
    "Insurance": (
        0.0129,
        0.1795,
        0.0715,
    ),
    "Covenant Not To Sue": (
        0.1921,
        0.0000,
        -0.0106,
        -0.1434,
        0.0990,
        0.0000,
    ),
    "Third Party Beneficiary": (
        0.6803,
        0.0000,
        -0.0557,
    ),
}
# Cell model over fill.cell_features: (bias, best unit's log-odds, column prior log-odds).
CELL_WEIGHTS: tuple[float, ...] = (0.4814, 0.9510, 0.0440)
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
    "Agreement Date (no value)": 1.0100,
    "Effective Date": 0.0000,
    "Effective Date (no value)": 1.0100,
    "Expiration Date": 0.7196,
    "Expiration Date (no value)": 1.0100,
    "Governing Law": 0.0000,
    "Governing Law (no value)": 1.0100,
    "Notice Period To Terminate Renewal": 0.4401,
    "Notice Period To Terminate Renewal (no value)": 0.0000,
    "Parties": 0.0000,
    "Parties (no value)": 0.0000,
    "Renewal Term": 0.1255,
    "Renewal Term (no value)": 0.0000,
}
# Per yes/no preset column, the confidence below which its cell says "No" (its
# quotation still shown): the best F1 of "Yes" on the fitting contracts.
YES_THRESHOLDS: dict[str, float] = {}
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
