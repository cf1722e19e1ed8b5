"""Fitted constants of the offline cell filler (fill.py). Generated: do not edit by hand.

Written by ``scripts/eval_extract.py --fit --write`` (legalnav/review/fitting.py): logistic
models fitted on the 40 CUAD dev contracts (every tenth contract in name order) x the
41 preset columns, with L2 penalty 1.0 on standardised features. Held-out figures, by
5-fold cross-validation by contract (fit on the other folds, score the held-out one):
    cross-validated (5 folds by contract): typed_right 0.843, dates_right 0.755, parties_right 0.846, durations_right 0.911, jurisdiction_right 0.950, yes_no_accuracy 0.875, yes_f1_pooled 0.765, yes_f1_mean 0.603, aupr_mean 0.547, aupr_pooled 0.696
    in-sample (fitted and scored on the same contracts): typed_right 0.877, dates_right 0.809, parties_right 0.846, durations_right 0.949, jurisdiction_right 0.950, yes_no_accuracy 0.907, yes_f1_pooled 0.827, yes_f1_mean 0.664, aupr_mean 0.598, aupr_pooled 0.732
"""

from __future__ import annotations

# Unit model: one weight per fill.FEATURES name, in order.
UNIT_WEIGHTS: tuple[float, ...] = (
    -6.5614,  # bias
    0.8591,  # cos
    -4.3379,  # cos_gap
    -0.2469,  # lex_rel
    0.2917,  # fused_rank
    0.2125,  # unit_lex
    0.3705,  # unit_lex_rel
    0.8538,  # cues
    0.5855,  # cue_any
    1.2837,  # extracted
    0.5092,  # opening
    0.0000,  # cued_column
    0.7257,  # first_units
    1.6793,  # unit_cos
    4.0712,  # unit_cos_gap
    4.1127,  # topic
)
# Per preset column, one weight per cue pattern, in the column's order.
CUE_WEIGHTS: dict[str, tuple[float, ...]] = {
    "Document Name": (
        -1.2739,
        -0.9211,
    ),
    "Parties": (
        0.9323,
        -2.1732,
        -0.0355,
    ),
    "Agreement Date": (
        -0.8926,
        0.1336,
    ),
    "Effective Date": (
        -1.4990,
        0.0905,
        -1.5715,
    ),
    "Expiration Date": (
        -0.9706,
        -0.5281,
        0.2108,
        -1.7725,
    ),
    "Renewal Term": (
        -0.0585,
        0.3036,
        -0.5281,
        0.5805,
    ),
    "Notice Period To Terminate Renewal": (
        0.4964,
        1.0013,
        -0.3364,
    ),
    "Governing Law": (
        -0.4673,
        -0.1507,
        -1.6816,
        -0.5933,
    ),
    "Most Favored Nation": (
        -0.0161,
        -0.0677,
        0.0000,
    ),
    "Competitive Restriction Exception": (
        0.6795,
        1.1196,
    ),
    "Non-Compete": (
        1.2877,
        1.1642,
        -0.0718,
    ),
    "Exclusivity": (
        -0.2693,
        0.0000,
        -0.6143,
    ),
    "No-Solicit Of Customers": (
        1.4698,
        0.0000,
    ),
    "No-Solicit Of Employees": (
        -0.6289,
        0.2850,
    ),
    "Non-Disparagement": (
        0.2682,
        0.0000,
    ),
    "Termination For Convenience": (
        -0.0212,
        -0.5220,
        -0.6707,
        -0.1260,
    ),
    "Rofr/Rofo/Rofn": (
        0.2326,
        0.7730,
        -0.0214,
    ),
    "Change Of Control": (
        0.2408,
        0.4365,
        -1.1569,
    ),
    "Anti-Assignment": (
        0.0831,
        0.4797,
        -0.6018,
    ),
    "Revenue/Profit Sharing": (
        -0.9123,
        0.2705,
        0.0000,
        -1.1454,
    ),
    "Price Restrictions": (
        -0.0543,
        0.0000,
    ),
    "Minimum Commitment": (
        0.8981,
        0.0000,
    ),
    "Volume Restriction": (
        -0.0292,
        0.0000,
    ),
    "Ip Ownership Assignment": (
        0.4339,
        -0.1631,
        0.4097,
    ),
    "Joint Ip Ownership": (
        0.7018,
        0.4656,
        -0.0682,
    ),
    "License Grant": (
        0.3903,
        0.0580,
    ),
    "Non-Transferable License": (
        0.9439,
        0.1151,
        0.0844,
    ),
    "Affiliate License-Licensor": (
        0.6029,
        0.0000,
    ),
    "Affiliate License-Licensee": (
        0.3257,
        0.0000,
    ),
    "Unlimited/All-You-Can-Eat-License": (
        0.7466,
        0.0000,
        -0.1403,
    ),
    "Irrevocable Or Perpetual License": (
        1.2225,
        0.7005,
    ),
    "Source Code Escrow": (
        -0.1492,
        -0.5147,
    ),
    "Post-Termination Services": (
        -0.8589,
        -1.6631,
        0.4510,
        0.3524,
    ),
    "Audit Rights": (
        0.1896,
        -0.2508,
        0.1861,
    ),
    "Uncapped Liability": (
        0.2663,
        -0.5781,
        -0.0246,
    ),
    "Cap On Liability": (
        1.1036,
        0.1903,
        0.0340,
        -0.4212,
    ),
    "Liquidated Damages": (
        0.0000,
        0.9961,
        0.0000,
    ),
    "Warranty Duration": (
        1.1949,
        0.0000,
    ),
    "Insurance": (
        -0.1135,
        0.2086,
        0.0659,
    ),
    "Covenant Not To Sue": (
        0.6867,
        0.0000,
        -0.0350,
    ),
    "Third Party Beneficiary": (
        1.1399,
        0.0000,
        -0.2275,
    ),
}
# Cell model over fill.cell_features: (bias, best unit's log-odds, column prior log-odds).
CELL_WEIGHTS: tuple[float, ...] = (0.4790, 0.9205, 0.1404)
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
    "Agreement Date (no value)": 0.7646,
    "Effective Date": 0.0000,
    "Effective Date (no value)": 0.2888,
    "Expiration Date": 0.7361,
    "Expiration Date (no value)": 0.7070,
    "Governing Law": 0.0000,
    "Governing Law (no value)": 0.0602,
    "Notice Period To Terminate Renewal": 0.6986,
    "Notice Period To Terminate Renewal (no value)": 0.0000,
    "Parties": 0.0000,
    "Parties (no value)": 0.0000,
    "Renewal Term": 0.1327,
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
    "Change Of Control": 0.2174,
    "Competitive Restriction Exception": 0.0465,
    "Covenant Not To Sue": 0.1373,
    "Exclusivity": 0.3861,
    "Insurance": 0.6493,
    "Ip Ownership Assignment": 0.0856,
    "Irrevocable Or Perpetual License": 0.2179,
    "Joint Ip Ownership": 0.0283,
    "License Grant": 0.0400,
    "Liquidated Damages": 0.1100,
    "Minimum Commitment": 0.0412,
    "Most Favored Nation": 0.1100,
    "No-Solicit Of Customers": 0.1100,
    "No-Solicit Of Employees": 0.0413,
    "Non-Compete": 0.0889,
    "Non-Disparagement": 0.1100,
    "Non-Transferable License": 0.0683,
    "Post-Termination Services": 0.1100,
    "Price Restrictions": 0.1100,
    "Revenue/Profit Sharing": 0.1100,
    "Rofr/Rofo/Rofn": 0.0543,
    "Source Code Escrow": 0.1100,
    "Termination For Convenience": 0.2657,
    "Third Party Beneficiary": 0.2611,
    "Uncapped Liability": 0.3231,
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
