"""Typed extractors: the forms contracts write values in, then their hit rate and accuracy on the
gold spans of the CUAD dev contracts (read from the shared data at test time)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from legalnav.documents.parsing import values as X
from tests.review.cuad import contract_text, dev_gold


@pytest.mark.parametrize(
    "text, expected",
    [
        ("made as of the 1st day of January, 2020 by", dt.date(2020, 1, 1)),
        ("dated January 1, 2020", dt.date(2020, 1, 1)),
        ("signed 1/1/2020 at", dt.date(2020, 1, 1)),
        ("effective 15 March 2019", dt.date(2019, 3, 15)),
        ("this 20t h day of November, 2018", dt.date(2018, 11, 20)),
        ("on Sept. 3, 2004", dt.date(2004, 9, 3)),
        # CUAD: a space before the comma, and a day that cannot be a month comes first
        ("THIS AGREEMENT IS MADE ON THE 19 DAY OF MAY , 2010 PARTIES", dt.date(2010, 5, 19)),
        ("executed on the 1st day of JUNE , 2006 , but", dt.date(2006, 6, 1)),
        ("EXHIBIT 10.43 Dated 29/3/18 Distributorship agreement", dt.date(2018, 3, 29)),
        ("Hosting Agreement between ELEPHANT TALK and T-Mobile, 18/9/2008", dt.date(2008, 9, 18)),
        ("signed 3/4/11", dt.date(2011, 3, 4)),  # both could be months: US order
    ],
)
def test_dates(text, expected):
    found = X.extract_date(text)
    assert found is not None and found.value == expected
    assert found.display == expected.isoformat()


def test_no_date_in_a_blank_or_a_bare_number():
    assert X.extract_date("this ____ day of ________, 20__") is None
    assert X.extract_date("Section 12.3 of the agreement") is None
    assert X.extract_date("a fee of [* * *] 2010 units") is None  # a redaction, not a blank date


@pytest.mark.parametrize(
    "text, shown, known",
    [
        ("entered into on this ____ day of ___________, 2000, by", "2000", "year"),
        ("dated as of ___________, 2015 (the", "2015", "year"),
        ("effective as of [•], 2019", "2019", "year"),
        ("effective January ___, 2015", "January 2015", "month"),
        ("as of July 2017", "July 2017", "month"),
        ("on July 4, 2017", "2017-07-04", "day"),
    ],
)
def test_a_form_left_blank_gives_only_what_it_states(text, shown, known):
    found = X.extract_date(text)
    assert found is not None and found.display.startswith(shown)
    assert X.date_precision(found.display) == known


@pytest.mark.parametrize(
    "text, number, unit, renews",
    [
        ("for a term of three (3) years", 3, "year", False),
        ("upon ninety (90) days' notice", 90, "day", False),
        ("within 30 business days", 30, "business day", False),
        ("renews automatically for successive one-year periods", 1, "year", True),
        ("and continues on a year-to-year basis thereafter", 1, "year", True),
        ("a period of twenty-four months", 24, "month", False),
    ],
)
def test_durations(text, number, unit, renews):
    found = X.extract_duration(text)
    assert found is not None
    assert (found.value.number, found.value.unit, found.value.renews) == (number, unit, renews)


def test_a_rate_is_not_a_period_and_perpetual_terms():
    assert X.extract_duration("fees payable once a year") is None
    found = X.extract_term_end("shall continue until terminated as provided herein")
    assert found is not None and found.value == "perpetual"
    found = X.extract_term_end("shall expire on July 22, 2016 unless renewed")
    assert found is not None and found.value == dt.date(2016, 7, 22)


@pytest.mark.parametrize(
    "text, value, currency",
    [
        ("shall not exceed $5,000,000 in the aggregate", Decimal(5_000_000), "USD"),
        ("a cap of USD 1 million", Decimal(1_000_000), "USD"),
        ("liability limited to EUR 250,000.50", Decimal("250000.50"), "EUR"),
        ("up to 2.5 million dollars", Decimal(2_500_000), "USD"),
    ],
)
def test_amounts(text, value, currency):
    found = X.extract_amount(text)
    assert found is not None and found.value.value == value and found.value.currency == currency


def test_relative_amounts_and_the_largest_sum():
    found = X.extract_amount("shall not exceed twice the fees paid by Customer in the prior year")
    assert found is not None and found.value.value is None
    assert found.display.startswith("twice the fees paid")
    found = X.extract_amount("$10,000 per claim and $1,000,000 in the aggregate")
    assert found is not None and found.value.value == Decimal(1_000_000)


def test_parties_from_a_preamble():
    text = (
        "This Supply Agreement is made by and between Acme Widgets, Inc., a Delaware corporation "
        '("Company"), and Globex Ltd. ("Supplier").'
    )
    found = X.extract_parties(text)
    assert found is not None
    assert [(p.name, p.role) for p in found.value] == [
        ("Acme Widgets, Inc.", "Company"),
        ("Globex Ltd.", "Supplier"),
    ]


@pytest.mark.parametrize(
    "text, place",
    [
        ("governed by the laws of the State of New York, without regard", "New York"),
        ("THE INTERNAL LAWS OF THE STATE OF DELAWARE", "Delaware"),
        ("construed under the laws of England and Wales", "England and Wales"),
        ("governed by Swiss law", "Switzerland"),
        ("the laws of the Commonwealth of Massachusetts", "Massachusetts"),
    ],
)
def test_jurisdictions(text, place):
    found = X.extract_jurisdiction(text)
    assert found is not None and found.value == place


def test_no_jurisdiction_without_one():
    assert X.extract_jurisdiction("Notices shall be sent by registered mail.") is None


# --- on the dev gold spans -------------------------------------------------------------------


def _rate(category: str, extractor) -> tuple[float, list]:  # type: ignore[no-untyped-def]
    rows = dev_gold(category)
    assert rows, category
    results = [(r, extractor(" ".join(texts))) for r, texts in rows]
    return sum(1 for _, e in results if e is not None) / len(results), results


def _gold_date(answer: str) -> dt.date | None:
    try:
        month, day, year = (int(x) for x in answer.split("/"))
    except ValueError:
        return None
    return dt.date(year + (2000 if year < 50 else 1900), month, day)


@pytest.mark.parametrize("category", ["Agreement Date", "Effective Date"])
def test_dates_on_dev_gold(category):
    """Most gold date spans yield a date (the rest are blanks such as '____, 2015'), and every
    date read agrees with CUAD's normalised answer."""
    rate, results = _rate(category, X.extract_date)
    assert rate >= 0.8, rate
    judged = [
        (e.value, _gold_date(r["answer"])) for r, e in results if e and _gold_date(r["answer"])
    ]
    assert len(judged) >= 20
    assert sum(a == b for a, b in judged) / len(judged) >= 0.95


def test_governing_law_on_dev_gold():
    rate, results = _rate("Governing Law", X.extract_jurisdiction)
    assert rate >= 0.9, rate
    named = [(e.value, r["answer"]) for r, e in results if e]
    right = sum(1 for place, answer in named if place.split(" and ")[0].lower() in answer.lower())
    assert right / len(named) >= 0.9


@pytest.mark.parametrize(
    "category, extractor, floor",
    [
        ("Renewal Term", X.extract_duration, 0.7),
        ("Notice Period To Terminate Renewal", X.extract_duration, 0.7),
    ],
)
def test_periods_on_dev_gold(category, extractor, floor):
    rate, _ = _rate(category, extractor)
    assert rate >= floor, rate


def test_parties_on_dev_gold():
    """The preamble up to the last gold party name yields parties, and at least one of the names
    read is one of CUAD's for most contracts."""
    rows = dev_gold("Parties")
    right = read = 0
    for r, _ in rows:
        text = contract_text(r["doc"])
        ends = [s["end"] for s in r["spans"] if s.get("end") and s["end"] < 4000]
        found = X.extract_parties(text[: max(ends) + 200] if ends else text[:3000])
        if found is None:
            continue
        read += 1
        answer = r["answer"].lower()
        right += any(p.name.lower()[:12] in answer for p in found.value)
    assert read / len(rows) >= 0.9 and right / read >= 0.85


def test_where_a_party_was_formed_is_not_the_governing_law():
    text = (
        "Acme, a corporation organized under the laws of the State of Colorado, and Beta, a "
        "company existing under the laws of Nevada. This Agreement shall be interpreted "
        "according to the laws of the State of Texas."
    )
    found = X.extract_jurisdiction(text)
    assert found is not None and found.value == "Texas"
    assert (
        X.extract_jurisdiction("Acme, a corporation incorporated under the laws of Delaware")
        is None
    )


# --- issue 26: the values a reviewer signs off ----------------------------------------------


def test_a_comma_without_a_space_before_the_year():
    assert X.extract_date("THIS AGREEMENT is dated May 3,2006. BETWEEN:").value == dt.date(
        2006, 5, 3
    )


def test_a_month_without_a_day_never_invents_one():
    found = X.extract_date("effective as of July 2017")
    assert found is not None and found.display == "July 2017"


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "The Term shall commence on July 23, 2013 and shall expire on July 22, 2016, unless "
            "otherwise terminated earlier",
            dt.date(2016, 7, 22),
        ),
        (
            "shall commence on January 1, 2010 and extend through December 31, 2010.",
            dt.date(2010, 12, 31),
        ),
        (
            "the term of this Agreement shall end on the seventh anniversary of the date hereof.",
            X.Duration(7, "year"),
        ),
        ("shall continue for four (4) years unless earlier terminated", X.Duration(4, "year")),
        ('shall continue in perpetuity (the "Term"), unless terminated earlier', "perpetual"),
        (
            "shall continue in full force and effect until terminated as provided below.",
            "perpetual",
        ),
    ],
)
def test_term_end(text, expected):
    found = X.extract_term_end(text)
    assert found is not None and found.value == expected


def test_the_renewal_term_is_told_apart_from_the_notice_to_stop_it():
    text = (
        "This Agreement shall automatically renew for successive one (1) year periods unless "
        "either party gives sixty (60) days' written notice of non-renewal."
    )
    renewal, notice = X.extract_renewal(text), X.extract_notice_period(text)
    assert renewal.value == X.Duration(1, "year", True)
    assert renewal.display == "successive 1-year terms"
    assert notice.value == X.Duration(60, "day")
    assert notice.display.startswith("60 days' notice")


def test_no_renewal_term_without_renewal_wording():
    assert X.extract_renewal("Payment is due within thirty (30) days of invoice.") is None
    assert X.extract_notice_period("Payment is due within thirty (30) days of invoice.") is None


@pytest.mark.parametrize(
    "text, title",
    [
        (
            "Exhibit 10.34 *** Text Omitted and Filed Separately Confidential Treatment "
            'Requested  DEVELOPMENT AGREEMENT This Development Agreement (the "Agreement")',
            "DEVELOPMENT AGREEMENT",
        ),
        (
            "EXHIBIT 10.14 SOFTWARE HOSTING AGREEMENT This Software Hosting",
            "SOFTWARE HOSTING AGREEMENT",
        ),
        ('This Supply Agreement (the "Agreement") is made by', "Supply Agreement"),
        # EDGAR 2020 (ud82): a title broken after "TO", not the amended agreement's name
        (
            "Exhibit 10.1\n\n\xa0\n\nAMENDMENT NO. 2 TO\nFOURTH AMENDED AND RESTATED RECEIVABLES "
            "PURCHASE AGREEMENT\n\n\xa0\n\nThis Amendment No.\xa02 to the Fourth Amended and "
            "Restated Receivables Purchase\nAgreement (this \u201cAmendment\u201d) is dated",
            "AMENDMENT NO. 2 TO FOURTH AMENDED AND RESTATED RECEIVABLES PURCHASE AGREEMENT",
        ),
        # CUAD (Glu Mobile, Amendment No. 1): a numbered amendment's title
        (
            "AMENDMENT NO. 1\n\nDated as of November 11, 2005\n\nReference is hereby made to that "
            'certain fully executed Wireless Content License Agreement Number 12965 ("Agreement")',
            "AMENDMENT NO. 1",
        ),
        # CUAD (Reseller Agreement): a title in title case on a line of its own
        (
            "Exhibit 10.5\n\nReseller Agreement\n\nThis Agreement is made and entered into by",
            "Reseller Agreement",
        ),
        # CUAD: a title on its own line past a confidential-treatment legend of 300 characters
        (
            "Certain information has been excluded pursuant to Regulation S-K, Item 601(b)(10). "
            "Such excluded information is not material and would likely cause competitive harm "
            "to the registrant if publicly disclosed. Certain information has been excluded "
            "pursuant to Regulation S-K, Item 601(b)(10).\n\nExecution Copy\n\n1. Definitions"
            "\n\nLICENSE, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT\n\nDATED AS OF FEBRUARY 4",
            "LICENSE, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT",
        ),
        # the preamble's name for itself without "the" in its parentheses
        (
            'Exhibit 4\n\nThis Multiple LINAC and Multi-Modality Distributor Agreement ("Agreement")',
            "Multiple LINAC and Multi-Modality Distributor Agreement",
        ),
        # CUAD (Columbia Laboratories, Amendment No. 2): a legend of two sentences, in capitals
        (
            "Exhibit 10.1 CERTAIN CONFIDENTIAL PORTIONS OF THIS EXHIBIT WERE OMITTED AND REPLACED "
            'WITH "[***]". A COMPLETE VERSION OF THIS EXHIBIT HAS BEEN FILED SEPARATELY WITH THE '
            "SECRETARY OF THE SECURITIES AND EXCHANGE COMMISSION PURSUANT TO AN APPLICATION "
            "REQUESTING CONFIDENTIAL TREATMENT PURSUANT TO RULE 24B-2 PROMULGATED UNDER THE "
            "SECURITIES EXCHANGE ACT OF 1934, AS AMENDED. AMENDMENT NO. 2 TO MANUFACTURING AND "
            'SUPPLY AGREEMENT THIS AMENDMENT NO. 2 (this "Amendment") to the Manufacturing',
            "AMENDMENT NO. 2 TO MANUFACTURING AND SUPPLY AGREEMENT",
        ),
        # CUAD (Artara): "INC." does not end the legend's sentence
        (
            "Exhibit 10.5 CERTAIN CONFIDENTIAL INFORMATION CONTAINED IN THIS DOCUMENT, MARKED BY "
            "[…***…], HAS BEEN OMITTED BECAUSE ARTARA THERAPEUTICS, INC. HAS DETERMINED THE "
            "INFORMATION (I) IS NOT MATERIAL AND (II) WOULD LIKELY CAUSE COMPETITIVE HARM TO "
            "ARTARA THERAPEUTICS, INC. IF PUBLICLY DISCLOSED. SPONSORED RESEARCH AND LICENSE "
            'AGREEMENT This Sponsored Research and License Agreement (this "Agreement")',
            "SPONSORED RESEARCH AND LICENSE AGREEMENT",
        ),
        # CUAD (PC Quote): a rule drawn before the title line
        (
            "EXHIBIT 10.11\n\n"
            + " " * 52
            + "CONFIDENTIAL TREATMENT\n\n"
            + " " * 51
            + "Portions indicated by a"
            + " " * 53
            + "[***] have been omitted"
            + " " * 53
            + "and filed separately"
            + " " * 53
            + "with the Commission\n\nPCQUOTE\n\n- "
            + "-" * 76
            + " CO-BRANDING AGREEMENT\n\nThis agreement is made effective   Oct. 11, 1996 by",
            "CO-BRANDING AGREEMENT",
        ),
    ],
)
def test_the_title_past_every_banner_and_legend_anywhere_on_the_cover(text, title):
    assert X.extract_title(text).value == title


def test_every_party_and_no_defined_term_of_the_recitals():
    text = (
        "THIS AGREEMENT is dated May 3,2006.\n\nBETWEEN:\n\nGLAMIS GOLD LTD., a company "
        'incorporated under the laws of British Columbia\n\n("Glamis")\n\nAND:\n\nWESTERN '
        "COPPER CORPORATION, a company incorporated under the laws of British Columbia\n\n"
        '("Western Copper")\n\nWHEREAS:\n\n(A) Glamis and Western Silver Corporation ("Western '
        'Silver") are parties to an arrangement agreement dated as of February 23, 2006 (the '
        '"Arrangement Agreement")'
    )
    found = X.extract_parties(text)
    assert [p.name for p in found.value] == ["GLAMIS GOLD LTD.", "WESTERN COPPER CORPORATION"]


def test_parties_listed_with_as_and_labels():
    text = (
        "FORM OF TRANSFER AND SERVICING AGREEMENT\n\namong\n\nVERIZON OWNER TRUST 2020-A, as "
        "Issuer,\n\nVERIZON ABS LLC, as Depositor\n\nand\n\nCELLCO PARTNERSHIP d/b/a VERIZON "
        "WIRELESS, as Servicer\n\nDated as of January 29, 2020"
    )
    roles = [p.role for p in X.extract_parties(text).value]
    assert roles == ["Issuer", "Depositor", "Servicer"]
    text = (
        "entered into on February 08, 2007 between the following two parties:\n\nParty A: "
        "JingWei HengTong Technology (ShenZhen) Co., Ltd.\n\nParty B: ShenZhen JingWei "
        "Communication Co., Ltd.\n\nWHEREAS:"
    )
    names = [p.name for p in X.extract_parties(text).value]
    assert names[1].startswith("ShenZhen JingWei Communication")
    assert "Party" not in names[0]


@pytest.mark.parametrize(
    "text, parties",
    [
        # CUAD (Great Lakes): the filing lost the quotation marks around the short names
        (
            "This Transportation Service Agreement (Agreement) is entered into by Great Lakes Gas "
            "Transmission Limited Partnership (Transporter) and ANR PIPELINE COMPANY (Shipper).",
            "Great Lakes Gas Transmission Limited Partnership (Transporter); ANR PIPELINE COMPANY "
            "(Shipper)",
        ),
        # CUAD (Snap, United Airlines): "and," before the second party
        (
            "is made by and between Snap Technologies, Inc. a California corporation having its "
            'principal place of business at 111 Townsend St., San Francisco, CA 94107 ("Snap"), '
            'and, United Airlines, Inc., a Delaware corporation ("Sponsor").',
            "Snap Technologies, Inc. (Snap); United Airlines, Inc. (Sponsor)",
        ),
    ],
)
def test_parties_in_the_forms_filings_write_them(text, parties):
    assert X.extract_parties(text).display == parties


def test_a_salutation_is_not_part_of_a_name():
    found = X.extract_parties(
        'between Gentlemen: Acme Widgets, Inc. ("Acme") and Beta LLC ("Beta")'
    )
    assert found.value[0].name == "Acme Widgets, Inc."


def test_a_filing_stamp_is_not_a_date_of_the_agreement():
    text = "effective as of the last date signed below. Source: GLOBAL TECH INC., 10KSB, 9/28/2005"
    assert X.extract_dates(text) == []
    assert X.extract_date(
        "Source: ACME CORP, 10-K/A, 12/2/2019 dated May 1, 2019"
    ).value == dt.date(2019, 5, 1)


def test_the_effective_date_is_the_one_said_to_be_effective():
    text = (
        "This Services Agreement is entered into on October 1, 2019 and is made effective as of "
        'November 1, 2019 (the "Effective Date"), by and between'
    )
    assert X.extract_effective_date(text).value == dt.date(2019, 11, 1)
    # A date the agreement is only made or dated on is its Agreement Date, not an effective date.
    assert X.extract_effective_date("dated as of May 13, 2020") is None
    assert X.extract_effective_date("made and entered into this 30th day of November, 2017") is None
    commences = X.extract_effective_date("The term shall commence on May 13, 2020.")
    assert commences is not None and commences.value == dt.date(2020, 5, 13)


def test_an_amendment_bears_its_own_date_not_the_amended_agreements():
    text = (
        'This is the First Amendment ("First Amendment") to the Development Agreement '
        '("Development Agreement") entered into on April 15, 2010, by and between Cargill and '
        "BioAmber. This First Amendment will be effective as of July 5, 2011."
    )
    assert X.extract_agreement_date(text).value == dt.date(2011, 7, 5)
    assert X.extract_effective_date(text).value == dt.date(2011, 7, 5)
    own = "This Development Agreement is entered into on April 15, 2010 by and between"
    assert X.extract_agreement_date(own).value == dt.date(2010, 4, 15)
    # CUAD (Azul, an amendment): "ref." ends no sentence, so what follows is still the date of
    # the agreement it amends
    azul = (
        "Amendment n° 01 to the Global Maintenance Agreement ref. DS/C-3957/14 Issue 7 dated "
        "March 9t h , 2015 BETWEEN AZUL and AVIONS. This amendment is entered into on January "
        "6th, 2016."
    )
    assert X.extract_agreement_date(azul).value == dt.date(2016, 1, 6)


def test_an_amendment_that_names_itself_keeps_its_own_date():
    # EDGAR 2020 (ud82: Avnet, Amendment No. 2 to a receivables purchase agreement)
    text = (
        "This Amendment No. 2 to the Fourth Amended and Restated Receivables Purchase Agreement "
        "(this \u201cAmendment\u201d) is dated as of July 31, 2020, among Avnet Receivables "
        "Corporation, amending the Fourth Amended and Restated Receivables Purchase Agreement, "
        "dated as of August 16, 2018 (as amended by Amendment No. 1 thereto, dated February 28, "
        "2020, the \u201cExisting Agreement\u201d)"
    )
    assert X.extract_agreement_date(text).value == dt.date(2020, 7, 31)
    # what it amends, and the amendment before it, are other instruments' dates
    later = text[text.index("amending") :]
    assert X.extract_agreement_date(later) is None


def test_a_date_something_falls_due_on_is_not_the_agreements():
    # EDGAR 2020 (ud23: Oil-Dri, a note purchase agreement's cover)
    cover = (
        "OIL-DRI CORPORATION OF AMERICA $18,500,000 3.96% SERIES A SENIOR NOTES DUE AUGUST 1, "
        "2020 $10,000,000 3.95% SERIES B SENIOR NOTES DUE MAY 15, 2030 AMENDED AND RESTATED "
        "NOTE PURCHASE AND PRIVATE SHELF AGREEMENT Dated as of May 15, 2020"
    )
    assert X.extract_agreement_date(cover).value == dt.date(2020, 5, 15)


def test_a_province_is_shown_with_its_country():
    found = X.extract_jurisdiction("governed by the laws of the Province of Ontario")
    assert found.value == "Ontario" and found.display == "Ontario, Canada"
    assert X.extract_jurisdiction("governed by the laws of the State of Texas").display == "Texas"


def test_an_ocr_ordinal_does_not_hide_the_end_of_a_term():
    found = X.extract_term_end(
        '"Term" means: 1.5t January 2013 to 315t December 2013 or until terminated'
    )
    assert found.value == dt.date(2013, 12, 31)


def test_a_term_that_ends_on_the_earlier_of_events_has_no_computed_end():
    text = (
        "The initial term of this Agreement shall be the sooner of six (6) months from the "
        "Effective Date, or replacement of this Agreement with a subsequent agreement."
    )
    assert X.extract_term_end(text) is None
    assert X.extract_term_end("shall continue for three (3) years").value == X.Duration(3, "year")


def test_term_ends_on_dev_gold():
    """Where CUAD gives an expiration (a date or 'perpetual'), its gold span yields a term end;
    where it gives none, a computed date is rarer (terms that end on events)."""
    rows = dev_gold("Expiration Date")
    stated = [(r, t) for r, t in rows if r["answer"].strip()]
    blank = [(r, t) for r, t in rows if not r["answer"].strip()]
    read = sum(X.extract_term_end(" ".join(t)) is not None for _, t in stated) / len(stated)
    assert read >= 0.8, read
    if blank:
        read_blank = sum(X.extract_term_end(" ".join(t)) is not None for _, t in blank) / len(blank)
        assert read_blank < read


@pytest.mark.parametrize(
    "text, title",
    [
        (
            "Exhibit 4.44 THIS LICENSE AND RESELLER AGREEMENT dated as of the October 30",
            "LICENSE AND RESELLER AGREEMENT",
        ),
        (
            "FORM OF CONTENT LICENSE AGREEMENT THIS CONTENT LICENSE AGREEMENT (this",
            "FORM OF CONTENT LICENSE AGREEMENT",
        ),
    ],
)
def test_the_whole_title_and_not_the_preamble_after_it(text, title):
    assert X.extract_title(text).value == title


@pytest.mark.parametrize(
    "text, title",
    [
        # CUAD covers: the company's name before the title on its line, the preamble naming the
        # instrument by the words after it, or a wide gap after the name on a cover of parties
        (
            "EXHIBIT 10.9     GLOBAL MUSIC INTERNATIONAL, INC. DBA IMNTV CONTENT LICENSE AGREEMENT"
            '\n\nThis Content License Agreement ("Agreement") is between Global Music',
            "CONTENT LICENSE AGREEMENT",
        ),
        (
            "DATED: OCTOBER 15, 2009\n\nPACIRA PHARMACEUTICALS, INC.\n\nand\n\nEKR THERAPEUTICS, "
            "INC.        AMENDED AND RESTATED   STRATEGIC LICENSING, DISTRIBUTION AND MARKETING "
            "AGREEMENT\n\n\n\nTHIS AMENDED AND RESTATED",
            "AMENDED AND RESTATED STRATEGIC LICENSING, DISTRIBUTION AND MARKETING AGREEMENT",
        ),
        # a name that is part of the title stays: no preamble names it otherwise, no gap
        (
            "CISCO SYSTEMS, INC. RESELLER AGREEMENT\n\nThis Agreement is made by",
            "CISCO SYSTEMS, INC. RESELLER AGREEMENT",
        ),
        # the SEC's legend of 2019 on, its "(I)" and "(II)" included
        (
            "EXHIBIT 4.25 INFORMATION IN THIS EXHIBIT IDENTIFIED BY [ * * * ] IS CONFIDENTIAL AND "
            "HAS BEEN EXCLUDED BECAUSE IT IS BOTH (I) NOT MATERIAL AND (II) WOULD LIKELY CAUSE "
            "COMPETITIVE HARM TO THE REGISTRANT IF PUBLICLY DISCLOSED. SERVICES AGREEMENT This "
            'Services Agreement (this "Agreement") is entered into',
            "SERVICES AGREEMENT",
        ),
        # a title set out over lines of its own (CUAD, Veoneer; EDGAR 2020, ud30)
        (
            "Exhibit 10.11\n\nAMENDMENT AND TERMINATION\n\nOF\n\nJOINT VENTURE AGREEMENT\n\nThis "
            "AMENDMENT AND TERMINATION",
            "AMENDMENT AND TERMINATION OF JOINT VENTURE AGREEMENT",
        ),
        (
            "Exhibit 10.1\n\nEXECUTION VERSION\n\nAMENDED AND RESTATED\n\nLIMITED LIABILITY COMPANY "
            "AGREEMENT\n\nOF\n\nMGP BREIT VENTURE 1 LLC\n\na Delaware limited liability company",
            "AMENDED AND RESTATED LIMITED LIABILITY COMPANY AGREEMENT OF MGP BREIT VENTURE 1 LLC",
        ),
    ],
)
def test_a_title_set_out_on_a_cover(text, title):
    found = X.extract_title(text)
    assert found is not None and found.value == title
    # the offsets are the title's own, in the text as given
    assert " ".join(text[found.start : found.end].split()) == title


def test_a_numbered_amendment_at_the_head_of_a_passage():
    # CUAD (Glu Mobile, Amendment No. 1): the grid reads the preamble as one passage
    text = (
        "AMENDMENT NO. 1 Dated as of November 11, 2005 Reference is hereby made to that certain "
        "fully executed Wireless Content License Agreement Number 12965"
    )
    assert X.extract_title(text).value == "AMENDMENT NO. 1"
    amends = 'Amendment No. 4 to the Supply Agreement (this "Amendment") is made on'
    assert X.extract_title(amends).value == "Amendment No. 4 to the Supply Agreement"


def test_a_title_run_into_the_preamble_it_heads():
    # CUAD (Sibannac, Strategic Alliance Agreement), as the grid reads its first passage
    text = (
        "Exhibit 2.01   Strategic Alliance Agreement   This agreement is made and entered into "
        "this 30th day of November, 2017 by and between Bravatek Solutions, Inc."
    )
    assert X.extract_title(text).value == "Strategic Alliance Agreement"
    dated = "May 04, 2017 Strategic Alliance Agreement\n\nThis agreement is made"
    assert X.extract_title(dated).value == "Strategic Alliance Agreement"
    assert X.extract_title("The Company shall pay. This Agreement is binding") is None


def test_a_title_case_title_that_ends_in_licence():
    # the title-case words were once written as "LICEN[CS]E".title(): "Licen[Cs]E" matched no
    # "License"
    assert X.extract_title("Exhibit 10.5\n\nSoftware License\n\nThis licence is").value == (
        "Software License"
    )
    assert X.extract_title("Amendment No. 2 to the Software Licence (this").value == (
        "Amendment No. 2 to the Software Licence"
    )


def test_a_bare_agreement_is_no_title():
    assert X.extract_title('This Agreement ("Agreement") is made on 1 May 2020 by') is None
    assert X.extract_title("Exhibit 10.1\n\n2. AMENDMENT\n\nThe parties agree") is None
