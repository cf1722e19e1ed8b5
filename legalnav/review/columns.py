"""Review grid columns, and the CUAD preset: 41 clause categories as questions with answer types.

A column is a question put to every document of a grid, with the type its answer takes in a
cell (a verbatim clause, yes/no, a date, a duration, an amount, a party, free text). The preset's
keys are CUAD's category names exactly as its gold spans spell them, so a grid filled with the
preset can be scored against CUAD; the questions and descriptions are written here for lawyers
reading the grid, not copied from CUAD.

Each preset column also carries ``cues``: regular expressions for the wording such a clause is
usually drafted in ("governed by ... laws of", "source code ... escrow"). The offline filler reads
them beside retrieval (see fill.py); a user's own column has none and is filled by retrieval
alone. A yes/no column may also carry ``document_cues``: more wording that the document model
(docvote.py) counts, beside ``cues``, when it decides whether a contract has such a clause at all.
They are kept apart because the filler weighs every cue of every column in one unit model over
sentences: wording that says a contract has the clause, but is too loose to pick its sentence,
moved that model's shared weights and cost the typed columns' values (a Volume Restriction's "up
to three (3)", a Minimum Commitment's "shortfall").

Some yes/no columns carry ``operative_cues`` as well: wording of a provision that does what the
column asks, where the column's other wording mostly speaks of it. "No third party
beneficiaries" is on the topic of Third Party Beneficiary and nearly always means "No"; "X is an
intended third-party beneficiary of this Agreement" names one. The document model reads whether
any passage has such wording as an input of its own, beside the cue count, so that a few precise
patterns are not drowned among the column's broad ones. They were written from the gold spans of
the 368 CUAD training contracts and kept per column where the model's cross-validated F1 there
rose by 0.005 or more (scripts/fit_yes_docs.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

ANSWER_TYPES = ("clause", "yes_no", "date", "duration", "amount", "party", "text")


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    question: str
    type: str
    description: str = ""
    cues: tuple[str, ...] = field(default=(), compare=False)
    document_cues: tuple[str, ...] = field(default=(), compare=False)
    operative_cues: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if self.type not in ANSWER_TYPES:
            raise ValueError(
                f"column {self.key!r}: type {self.type!r} is not one of {', '.join(ANSWER_TYPES)}"
            )
        if not self.key.strip() or not self.question.strip():
            raise ValueError("a column needs a key and a question")

    @property
    def search_text(self) -> str:
        """What retrieval is asked: the question, and the description when there is one (the
        description names the words a clause of this kind is drafted in)."""
        return f"{self.question} {self.description}".strip()


def _c(
    key: str,
    type_: str,
    question: str,
    description: str,
    *cues: str,
    document_cues: tuple[str, ...] = (),
    operative_cues: tuple[str, ...] = (),
) -> Column:
    return Column(key, question, type_, description, tuple(cues), document_cues, operative_cues)


# Shared wording: a licence (US or UK spelling) and its grant.
_LICENSE = r"licen[cs]e"

CUAD_COLUMNS: tuple[Column, ...] = (
    _c(
        "Document Name",
        "text",
        "What is this agreement called?",
        "The title the instrument gives itself, usually in capitals at the top of its first page.",
        # A title line in capitals ("(?-i:" keeps it case-sensitive), or the preamble's "This
        # Supply Agreement (the "Agreement")".
        r"(?m)^[ \t]*(?-i:[A-Z][A-Z0-9 ,.&'\-]{0,80}?(?:AGREEMENT|CONTRACT|LICENSE|AMENDMENT|"
        r"LEASE|ARRANGEMENT|PLAN)\b)",
        r"\bthis\b.{0,80}\b(?:agreement|contract)\b.{0,10}\(\s*(?:the|this)?\s*[\"“]agreement",
    ),
    _c(
        "Parties",
        "party",
        "Who are the parties to this agreement?",
        "The persons or companies that enter into the agreement, as named in its opening "
        "paragraph, with the short names they are given.",
        r"\bby and between\b",
        r"\bbetween\b.{0,200}\band\b",
        r"\b(?:hereinafter|referred to as)\b",
    ),
    _c(
        "Agreement Date",
        "date",
        "On what date was this agreement made?",
        "The date the agreement bears as of its signing, usually in the opening paragraph.",
        r"\b(?:dated|made|entered into)\b.{0,60}\b(?:as of|on|this)\b",
        r"\bday of\b",
    ),
    _c(
        "Effective Date",
        "date",
        "From what date does this agreement take effect?",
        "The date on which the agreement's obligations begin, which may differ from the signing "
        "date.",
        r"\beffective (?:date|as of)\b",
        r"\bshall (?:become|be) effective\b",
        r"\bcommenc\w+ on\b",
    ),
    _c(
        "Expiration Date",
        "date",
        "When does the initial term of this agreement end?",
        "The date, or the period from a start date, at which the first term runs out; or that "
        "it lasts until terminated.",
        r"\b(?:initial )?term of this agreement\b",
        r"\bshall (?:expire|continue|remain in (?:full )?(?:force|effect))\b",
        r"\bunless (?:sooner|earlier) terminated\b",
        r"\bperiod of .{0,30}\b(?:years?|months?)\b",
    ),
    _c(
        "Renewal Term",
        "duration",
        "For how long does the agreement renew after its initial term?",
        "Automatic or optional extensions of the term once the first term ends, and their length.",
        r"\b(?:automatically|auto-?) ?(?:renew|extend)",
        r"\brenew(?:al|ed)? (?:term|period)s?\b",
        r"\bsuccessive\b.{0,40}\b(?:year|month|period|term)",
        r"\badditional (?:term|period)s?\b",
    ),
    _c(
        "Notice Period To Terminate Renewal",
        "duration",
        "How much notice must a party give to stop the agreement from renewing?",
        "The advance notice, in days or months before the term ends, needed to prevent an "
        "automatic renewal.",
        r"\b(?:notice|notif\w+)\b.{0,80}\b(?:not to renew|non-?renewal|intention not|intent not)",
        r"\bunless (?:either|a|one) party\b.{0,80}\bnotice\b",
        r"\bprior to the (?:end|expiration) of (?:the|any|such) (?:then[- ]current|initial|renewal)",
    ),
    _c(
        "Governing Law",
        "text",
        "Which jurisdiction's law governs this agreement?",
        "The state, province or country whose law the agreement chooses for its interpretation "
        "and enforcement.",
        r"\bgoverned by\b",
        r"\b(?:construed|interpreted|enforced) (?:in accordance with|under)\b",
        r"\bgoverning law\b",
        r"\blaws of the (?:state|commonwealth|province|republic)\b",
    ),
    _c(
        "Most Favored Nation",
        "yes_no",
        "Must one party get terms at least as good as those given to any third party?",
        "A most-favoured-customer promise: if better prices or terms are offered to someone "
        "else, they must be offered to the counterparty too.",
        r"\bmost[- ]favou?red\b",
        r"\b(?:no|not(?: be)?) less favou?rabl[ey]\b",
        r"\bat least as favou?rabl[ey]\b",
        r"\bmost favou?rable\b",
        r"\bmore favou?rable\b.{0,80}\bthan\b",
        r"\b(?:higher|greater) (?:fees?|prices?|rates?) than\b",
        r"\bpreferred pricing\b",
        r"\b(?:lower|better|more favou?rable) (?:price|terms?)\b.{0,80}\b(?:third part|other customer|any other)",
    ),
    _c(
        "Competitive Restriction Exception",
        "clause",
        "What exceptions are carved out of the non-compete, exclusivity or non-solicitation "
        "duties?",
        "Activities that stay allowed despite a restriction on competing, dealing with others or "
        "soliciting customers.",
        r"\b(?:notwithstanding|except|provided,? however)\b.{0,120}\b(?:compet|exclusiv|solicit)",
        r"\b(?:shall not (?:be deemed to )?(?:restrict|prevent|prohibit|preclude))\b",
        document_cues=(
            r"\bnot (?:be )?(?:deemed|considered) (?:to be )?(?:prohibited|a violation|a breach|competition|competitive)",
        ),
        operative_cues=(
            r"^(?=.*(?:compet|exclusiv|solicit)).*\b(?:foregoing|such|these|this|above) (?:restrictions?|exclusivity|covenants?|obligations?|non-?competition|provisions?|section[\d. ()a-z]{0,12})(?: obligations?)? (?:shall|will|do|does) not (?:apply|limit|prevent|prohibit|restrict|preclude|be deemed)",
            r"^(?=.*(?:compet|exclusiv|solicit)).*\bnothing (?:in|contained in|herein)[^.]{0,60}(?:shall|will) (?:be (?:deemed|construed) to )?(?:limit|prevent|prohibit|restrict|preclude)",
            r"^(?=.*(?:compet|exclusiv|solicit)).*\bnotwithstanding (?:the foregoing|anything)[^.]{0,100}\b(?:may|shall be (?:entitled|permitted|free)|is (?:entitled|permitted|free)|will be (?:entitled|permitted|free)|retains?)",
        ),
    ),
    _c(
        "Non-Compete",
        "yes_no",
        "Is a party barred from competing with the other, or from a business, product line or "
        "territory?",
        "A restriction on a party carrying on a competing business or selling competing goods, "
        "during the agreement or after it.",
        r"\bnon-?compet",
        r"\b(?:shall|will) not\b.{0,80}\bcompet",
        r"\bcompeting (?:product|business|service)s?\b",
        r"\b(?:shall|will) not\b.{0,60}\b(?:participate|engage|research|develop|commerciali[sz]e|carry on|be engaged)\b.{0,80}\b(?:similar|compet|any other (?:trade|business))",
        r"\bnot (?:to )?(?:represent|sell|distribute|carry)\b.{0,60}\bcompetitive\b",
        document_cues=(
            r"\b(?:which|that) (?:directly or indirectly )?competes?\b",
            r"\b(?:shall|will) not\b.{0,100}\b(?:develop|manufactur|commerciali|market|sell|distribut|promote)\w*\b.{0,100}\b(?:compet|similar)",
            r"\bcompetitive (?:products?|services?|business|with)\b",
        ),
    ),
    _c(
        "Exclusivity",
        "yes_no",
        "Does the agreement give exclusive rights or require dealing only with the counterparty?",
        "Exclusive appointments, sole-supplier or all-requirements commitments, or a bar on "
        "dealing with third parties in the same field.",
        r"\bexclusive(?:ly)?\b",
        r"\bsole (?:and exclusive )?(?:supplier|distributor|source|provider)\b",
        r"\ball (?:of its )?requirements\b",
    ),
    _c(
        "No-Solicit Of Customers",
        "yes_no",
        "Is a party barred from soliciting or taking the counterparty's customers?",
        "A promise not to approach, solicit or deal with the other party's customers, clients "
        "or partners.",
        r"\bsolicit\w*\b.{0,120}\b(?:customers?|clients?|accounts?)\b",
        r"\b(?:customers?|clients?)\b.{0,80}\bsolicit",
        operative_cues=(
            r"\bnot\b[^.;]{0,80}\b(?:solicit|market|divert|entice|induce|call on|interfere)\w*[^.;]{0,80}\b(?:customers?|clients?|accounts?)\b",
            r"\b(?:solicit|divert|entice|induce|call (?:on|upon))\w*[^.;]{0,40}\b(?:any |an )?(?:existing |current |former )?(?:customers?|clients?|accounts?) of\b",
        ),
    ),
    _c(
        "No-Solicit Of Employees",
        "yes_no",
        "Is a party barred from hiring or soliciting the counterparty's employees?",
        "A promise not to recruit, solicit or employ the other party's staff or contractors.",
        r"\b(?:solicit|hire|employ|recruit)\w*\b.{0,120}\b(?:employees?|personnel|staff)\b",
        r"\bnon-?solicit",
    ),
    _c(
        "Non-Disparagement",
        "yes_no",
        "Must a party refrain from disparaging the other?",
        "A promise not to make negative or damaging statements about the counterparty or its "
        "products.",
        r"\bdisparag",
        r"\b(?:derogatory|negative|damaging) (?:statements?|comments?|remarks?)\b",
        document_cues=(
            r"\b(?:harmful|detrimental|prejudicial|injurious)\b.{0,60}\b(?:reputation|goodwill|image)\b",
        ),
        operative_cues=(
            r"\bnot\b[^.;]{0,80}\bdisparag",
            r"\b(?:make|issue|publish)\w*\b[^.;]{0,60}\b(?:statements?|remarks?|comments?)\b[^.;]{0,80}\b(?:disparag|derogatory|defamatory|negative|critical)",
        ),
    ),
    _c(
        "Termination For Convenience",
        "yes_no",
        "Can a party end the agreement without cause, on notice alone?",
        "A right to terminate for any reason or no reason by giving notice, without a breach by "
        "the other side.",
        r"\bfor convenience\b",
        r"\b(?:without|with or without) cause\b",
        r"\bfor any (?:reason|or no reason)\b",
        r"\bterminate\b.{0,100}\bupon\b.{0,40}\b(?:days?|months?)\W{0,3} (?:prior )?(?:written )?notice\b",
        operative_cues=(
            r"\bterminate (?:this|the) agreement\b[^.;]{0,60}\b(?:without cause|for (?:its |their )?convenience|for any reason|for no reason|at any time)",
        ),
    ),
    _c(
        "Rofr/Rofo/Rofn",
        "yes_no",
        "Does a party hold a right of first refusal, first offer or first negotiation?",
        "A right to be offered, or to match, a deal before the other party may make it with "
        "someone else.",
        r"\bright of first (?:refusal|offer|negotiation)\b",
        r"\bfirst (?:right|option) to\b",
        r"\b(?:right|option) to (?:match|negotiate)\b",
        r"\bfirst (?:right|option) of (?:refusal|offer|negotiation)\b",
        r"\bright of (?:first )?negotiation\b",
        document_cues=(
            r"\b(?:first|prior|preferential) (?:right|opportunity|consideration)\b",
            r"\b(?:offer|contact|notify)\b.{0,40}\bfirst\b",
            r"\bfirst offer\b",
            r"\bopportunity to (?:purchase|acquire|negotiate|become)\b",
        ),
    ),
    _c(
        "Change Of Control",
        "yes_no",
        "Does a change of control of a party give the other rights, or need its consent or notice?",
        "What a merger, acquisition or sale of substantially all of a party's business or assets "
        "triggers: termination rights, consent or notice.",
        r"\bchange (?:of|in) control\b",
        r"\b(?:merger|consolidation|acquisition)\b",
        r"\b(?:all or )?substantially all of (?:its|the) (?:assets|business|stock)\b",
        operative_cues=(
            r"\bterminat\w*\b[^.;]{0,120}\b(?:change (?:of|in) (?:control|ownership)|acquired by|acquisition of (?:all|a majority|control))",
            r"\b(?:change (?:of|in) (?:control|ownership))\b[^.;]{0,120}\b(?:may|right to|shall be entitled to)\b[^.;]{0,40}terminat",
            r"\b(?:change (?:of|in) (?:control|ownership)|merger|consolidation)\b[^.;]{0,120}\b(?:deemed|constitutes?|considered) (?:to be )?an? (?:assignment|transfer)",
            r"\b(?:notify|notice)\b[^.;]{0,60}\bchange (?:of|in) (?:control|ownership)",
        ),
    ),
    _c(
        "Anti-Assignment",
        "yes_no",
        "Does assigning the agreement need the other party's consent or notice?",
        "Limits on transferring the agreement or its rights and duties to someone else without "
        "the counterparty's agreement.",
        r"\bassign\w*\b.{0,120}\b(?:consent|approval)\b",
        r"\b(?:may|shall) not (?:be )?assign",
        r"\bassignment\b",
    ),
    _c(
        "Revenue/Profit Sharing",
        "yes_no",
        "Must a party share revenue, profits or royalties with the other?",
        "Royalties, commissions, revenue shares or profit splits paid out of what a party earns.",
        r"\broyalt(?:y|ies)\b",
        r"\b(?:revenue|profit)s? (?:share|sharing|split)\b",
        r"\bpercent(?:age)? of (?:the )?(?:net |gross )?(?:sales|revenues?|profits?|receipts)\b",
        r"\bcommissions?\b",
    ),
    _c(
        "Price Restrictions",
        "yes_no",
        "Is a party restricted in raising or lowering its prices?",
        "Limits on price changes: caps on increases, fixed prices, or prices that may not "
        "change for a period.",
        r"\bprice (?:increase|change|adjustment)s?\b",
        r"\b(?:shall|may) not (?:increase|raise|reduce|change) (?:the )?price",
        r"\b(?:may|shall|will) not (?:be )?(?:increase|raise|adjust)\w*\b.{0,60}\b(?:more (?:than|often)|by more|in excess)",
        r"\b(?:rate|price|fee)s? (?:may|shall|will) not increase\b",
        operative_cues=(
            r"\b(?:increase|adjust|change)\w*\b[^.;]{0,80}\b(?:not (?:to )?exceed|by more than|more than)\b[^.;]{0,30}(?:%|percent)",
            r"\b(?:price|fee|rate)s?\b[^.;]{0,60}\bnot more (?:often|frequently) than\b",
        ),
    ),
    _c(
        "Minimum Commitment",
        "yes_no",
        "Must a party buy, sell or pay a minimum amount or quantity?",
        "Minimum order quantities, purchase commitments or minimum payments per period.",
        r"\bminimum (?:purchase|order|quantit|volume|annual|commitment|royalt|payment|sales)",
        r"\b(?:purchase|order) (?:at least|no less than|not less than)\b",
        r"\bminimum (?:\w+ ){1,2}(?:purchase|order|quantit|volume|commitment|royalt|payment|sales|fees?|amount|number|requirement|target|guarantee)",
        r"\b(?:guaranteed minimum|annual (?:minimum|guarantee))\b",
        document_cues=(
            r"\bminimum (?:fee|requirements?|details|efficiency|charge)s?\b",
            r"\bshortfall\b",
            r"\bguarantee[sd]? (?:a minimum|to purchase)\b",
        ),
    ),
    _c(
        "Volume Restriction",
        "yes_no",
        "Do limits or extra charges apply when use or volume passes a threshold?",
        "Caps on quantities, users or usage, or fees or consent required above a set volume.",
        r"\b(?:exceed|in excess of)\b.{0,80}\b(?:units?|volume|quantit|users?|forecast)",
        r"\b(?:maximum|up to) (?:quantit|volume|number of units)",
        document_cues=(
            r"\bup to \w+ \(\d+\)",
            r"\bexceed(?:s|ing)?\b.{0,60}\b(?:forecast|hours|per (?:month|year|day|week))\b",
            r"\b(?:up to|not (?:to )?exceed|maximum of|no more than)\b.{0,60}\b(?:per|each|a) (?:contract |calendar )?(?:year|month|week|day)\b",
        ),
        operative_cues=(
            r"\b(?:no more than|not more than|up to a maximum of|a maximum of|shall not exceed|in excess of)\b[^.;]{0,20}(?:\(\d|\d)[^.;]{0,40}\b(?:units?|hours?|copies|pieces|tons?|barrels?|percent|%|per (?:year|month|week|day|calendar))",
        ),
    ),
    _c(
        "Ip Ownership Assignment",
        "yes_no",
        "Does intellectual property created by one party belong to, or pass to, the other?",
        "Assignment of inventions, works or other intellectual property, or ownership vesting "
        "in the counterparty.",
        r"\b(?:hereby )?assigns?\b.{0,120}\b(?:right, title and interest|intellectual property|inventions?)\b",
        r"\b(?:shall|will) (?:be|become|remain) the (?:sole and )?(?:exclusive )?property of\b",
        r"\bwork(?:s)? made for hire\b",
        document_cues=(
            r"\b(?:hereby )?(?:assigns?|transfers?)\b.{0,60}\ball (?:of its |such )?rights?\b",
        ),
        operative_cues=(
            r"\bhereby (?:irrevocably )?(?:assigns?|transfers?|conveys?)\b",
            r"\bworks? made for hire\b",
        ),
    ),
    _c(
        "Joint Ip Ownership",
        "yes_no",
        "Do the parties own any intellectual property jointly?",
        "Inventions, works or other intellectual property owned together by both parties.",
        r"\bjoint(?:ly)? own",
        r"\bjoint (?:inventions?|intellectual property|works?|technology)\b",
        r"\bco-?own",
    ),
    _c(
        "License Grant",
        "clause",
        "What licence does one party grant the other?",
        f"A grant of rights to use intellectual property, and its scope: {_LICENSE}, sublicence, "
        "territory, field.",
        rf"\b(?:hereby )?grants?\b.{{0,120}}\b{_LICENSE}\b",
        rf"\b{_LICENSE} to\b",
    ),
    _c(
        "Non-Transferable License",
        "yes_no",
        "Is a licensee barred from transferring or sublicensing the licence granted?",
        "A licence stated to be non-transferable or non-assignable, or whose transfer needs "
        "consent.",
        r"\bnon-?transferr?able\b",
        r"\bnon-?assignable\b",
        r"\bnon-?sublicens",
        r"\b(?:no|not have any|no other) right to (?:grant )?sub-?licen[cs]",
        r"\bwithout the right to (?:grant )?sub-?licen",
        r"\bmay not be sold or transferred\b",
        r"\bpersonal, non-?exclusive\b",
    ),
    _c(
        "Affiliate License-Licensor",
        "yes_no",
        "Does the licence cover intellectual property of the licensor's affiliates, or come "
        "from them?",
        "A grant made by, or including the intellectual property of, the licensor's affiliated "
        "companies.",
        rf"\baffiliates?\b.{{0,120}}\b(?:grants?|{_LICENSE})",
        r"\b(?:its|their) affiliates'? (?:intellectual property|patents|technology)\b",
        operative_cues=(
            r"\bon behalf of (?:itself|themselves) and (?:its|their|the other)[^.]{0,40}(?:affil|afflia|group)[^.]{0,80}\b(?:hereby )?(?:grants?|licen[cs]es?)",
            r"\bgrants?,? and (?:shall|will|agrees to|hereby agrees to) cause (?:its|each of its|the|each)[^.]{0,40}(?:affil|group|subsidiar)[^.]{0,30} to (?:hereby )?grant",
            r"\b(?:which|that) [A-Z]?\w+ or (?:any of )?its affiliates (?:own|control|owns|controls)",
        ),
    ),
    _c(
        "Affiliate License-Licensee",
        "yes_no",
        "Does the licence extend to the licensee's affiliates?",
        "A grant to the licensee and its affiliated companies, or a right to sublicense to them.",
        rf"\b{_LICENSE}\w*\b.{{0,120}}\b(?:and|to) (?:its|their) affiliates\b",
        r"\baffiliates of (?:the )?licensee\b",
        document_cues=(
            r"\bgrants?\b.{0,80}\b(?:and|to) (?:its|their|each of its) (?:affiliates|subsidiaries)\b",
            r"\b(?:and|to) the (?:other )?members of the \w+ group\b",
            r"\bsub-?licen[cs]\w*\b.{0,80}\b(?:affiliates?|subsidiar\w+|related compan\w+)\b",
            r"\b(?:exercised|used) by or through\b.{0,60}\baffiliates\b",
        ),
        operative_cues=(
            r"\bgrants?\b[^.;]{0,40}\bto\b[^.;]{0,30}\band (?:to )?(?:each of )?its (?:affiliates|subsidiaries)\b",
            r"\b(?:extend|apply) to\b[^.;]{0,30}\b(?:its|licensee.s) (?:affiliates|subsidiaries)\b",
        ),
    ),
    _c(
        "Unlimited/All-You-Can-Eat-License",
        "yes_no",
        "Is any licence unlimited in the number of users, copies or uses?",
        "An enterprise-wide or unlimited-use licence, not counted per seat, copy or unit.",
        r"\bunlimited\b",
        r"\benterprise[- ]wide\b",
    ),
    _c(
        "Irrevocable Or Perpetual License",
        "yes_no",
        "Is any licence granted irrevocable or perpetual?",
        "A licence that cannot be withdrawn or that has no end date.",
        r"\birrevocabl",
        r"\bperpetu",
        operative_cues=(
            r"\b(?:irrevocable|perpetual)\b[^.;]{0,80}\blicen[cs]e\b",
            r"\blicen[cs]e\b[^.;]{0,40}\b(?:shall (?:survive|be perpetual|be irrevocable)|in perpetuity)",
        ),
    ),
    _c(
        "Source Code Escrow",
        "yes_no",
        "Must source code be placed in escrow for the other party?",
        "Deposit of source code with an escrow agent, released on events such as insolvency.",
        r"\bescrow\b",
        r"\bsource code\b",
    ),
    _c(
        "Post-Termination Services",
        "yes_no",
        "Do obligations continue after the agreement ends?",
        "Duties that survive termination or expiry: transition help, final orders, sell-off "
        "periods, returning materials, payments due.",
        r"\b(?:upon|after|following|on) (?:the )?(?:termination|expiration|expiry)\b",
        r"\bsurviv\w+\b",
        r"\bsell[- ]off\b",
        r"\btransition\w*\b",
    ),
    _c(
        "Audit Rights",
        "yes_no",
        "May a party inspect or audit the other's books, records or premises?",
        "A right to examine accounts, records or facilities to check compliance or payments.",
        r"\baudit",
        r"\binspect\w*\b.{0,80}\b(?:books|records|facilit|premises)",
        r"\b(?:books|records)\b.{0,80}\b(?:inspect|examin)",
    ),
    _c(
        "Uncapped Liability",
        "yes_no",
        "Is any liability excluded from the limits, and so unlimited?",
        "Carve-outs from a limitation of liability (for indemnities, confidentiality, wilful "
        "misconduct, infringement) that leave liability uncapped.",
        r"\b(?:shall not apply|does not apply|not be limited|no limitation)\b.{0,160}\b(?:indemn|confidential|gross negligence|wil+ful|infring)",
        r"\b(?:except|excluding|other than)\b.{0,160}\b(?:limitation of liability|liable)\b",
        r"\bunlimited liability\b",
        document_cues=(
            r"\bexcept (?:for|in|with respect to|to the extent|as)\b.{0,250}\b(?:indemnif|confidential|gross negligence|wil+ful|infring|breach)\w*\b.{0,250}\b(?:in no event|liable|liability)\b",
            r"\b(?:waives?|waived)\b.{0,60}\b(?:limitations?|caps?)\b",
        ),
    ),
    _c(
        "Cap On Liability",
        "amount",
        "Is either party's liability limited, and to how much?",
        "A ceiling on damages or on total liability, an exclusion of kinds of damages, or a time "
        "limit on bringing claims.",
        r"\bin no event\b.{0,120}\b(?:liab|exceed)",
        r"\b(?:aggregate|total|maximum) liability\b",
        r"\bliab\w+\b.{0,120}\b(?:shall not exceed|limited to|in excess of)\b",
        r"\b(?:consequential|incidental|indirect|special|punitive) damages\b",
    ),
    _c(
        "Liquidated Damages",
        "amount",
        "Does the agreement fix damages or a termination fee in advance?",
        "Liquidated damages, break fees or termination payments set by the agreement rather than "
        "proved.",
        r"\bliquidated damages\b",
        r"\b(?:termination|break(?:-up)?|cancell?ation) fee\b",
        r"\bas a penalty\b",
        document_cues=(r"\b(?:termination|buyout|break-?up|cancellation) (?:fee|payment|penalt)",),
    ),
    _c(
        "Warranty Duration",
        "duration",
        "How long does a warranty last?",
        "The period during which goods, services or work are warranted against defects.",
        r"\bwarrant\w*\b.{0,160}\b(?:days?|months?|years?|period)\b",
        r"\bwarranty period\b",
    ),
    _c(
        "Insurance",
        "clause",
        "Must a party carry insurance, and what cover?",
        "Insurance a party must maintain (liability, product, property cover), its amounts, and "
        "naming the other as insured.",
        r"\binsurance\b",
        r"\binsured\b",
        r"\bpolic(?:y|ies) of\b",
    ),
    _c(
        "Covenant Not To Sue",
        "yes_no",
        "Is a party barred from challenging the other's intellectual property or suing it?",
        "A promise not to contest the validity or ownership of the counterparty's rights, or "
        "not to bring certain claims.",
        r"\b(?:not|never)\b.{0,60}\b(?:contest|challenge|dispute)\b.{0,80}\b(?:validity|ownership|title)",
        r"\bcovenant not to sue\b",
        r"\b(?:shall|will) not (?:sue|bring (?:any )?(?:action|claim))",
        r"\b(?:acknowledges?|admits?|recogni[sz]es?)\b.{0,60}\b(?:exclusive )?(?:right, title|ownership|owns)\b",
        r"\bnot\b.{0,80}\b(?:attack|contest|challenge|impair|adversely affect)\b.{0,60}\b(?:validity|title|rights?|ownership)",
        r"\bshall not (?:in any manner )?represent that it (?:has|owns)\b",
        document_cues=(
            r"\bchallenge\b.{0,60}\b(?:marks?|intellectual property|patents?|validity)\b",
        ),
    ),
    _c(
        "Third Party Beneficiary",
        "yes_no",
        "Can anyone who is not a party enforce the agreement?",
        "A person outside the agreement who benefits from it and may enforce it, or a statement "
        "that nobody else may.",
        r"\bthird[- ]party beneficiar",
        r"\bintended beneficiar",
        r"\b(?:confer|give)\b.{0,80}\b(?:upon|to) any (?:person|third party)\b",
        operative_cues=(
            r"\b(?:is|are|shall be|be deemed|will be)(?: an?)? (?:express |intended |specific )*(?:third[- ]party )?(?:creditor )?beneficiar",
            r"\bshall (?:also )?(?:be deemed to )?(?:be )?for the benefit of\b",
            r"\b(?:is|are|be|been)\b(?: deemed to be| intended to be)?(?: an?| the)? (?:(?:express|expressed|intended|specific|direct|creditor)(?:,| and)? )*third[- ]party (?:creditor )?beneficiar",
            r"\b(?:except|other than|with the exception)\b[^.;]{0,120}\b(?:no|not)\b[^.;]{0,100}\b(?:third[- ]party beneficiar|confer|inure)",
            r"\b(?:no|not)\b[^.;]{0,60}\bthird[- ]party beneficiar\w*[^.;]{0,40}\b(?:except|other than|provided)",
        ),
    ),
)

# The preset columns whose CUAD answer is "Yes" or "No" (every category after the eight that
# name a value: document name, parties, three dates, two periods, governing law). Their cells say
# "Yes" first, whatever type a caller asks them in.
YES_NO_KEYS = frozenset(c.key for c in CUAD_COLUMNS[8:])
# The preset columns whose cell is a typed value (dates, parties, periods, governing law).
TYPED_KEYS = frozenset(c.key for c in CUAD_COLUMNS[1:8])

# CUAD's README spells some categories differently from its gold spans; a request may use either.
_ALIASES = {
    "notice to terminate renewal": "notice period to terminate renewal",
    "right of first refusal, offer or negotiation (rofr/rofo/rofn)": "rofr/rofo/rofn",
    "price restriction": "price restrictions",
    "affiliate ip license-licensor": "affiliate license-licensor",
    "affiliate ip license-licensee": "affiliate license-licensee",
    "unlimited/all-you-can-eat license": "unlimited/all-you-can-eat-license",
}
_BY_KEY = {c.key.lower(): c for c in CUAD_COLUMNS}


def preset_column(key: str) -> Column | None:
    """The CUAD preset column of that name (any case, README or gold spelling), if any."""
    k = " ".join(key.lower().split())
    return _BY_KEY.get(_ALIASES.get(k, k))


def column_from_request(key: str, question: str, type_: str) -> Column:
    """A column as a caller sends it. Its question and type are the caller's; when its key names a
    preset column, that column's description and cues come with it (the caller's question still
    leads the search)."""
    preset = preset_column(key)
    if preset is None:
        return Column(key, question, type_)
    return Column(
        key,
        question or preset.question,
        type_,
        preset.description,
        preset.cues,
        preset.document_cues,
        preset.operative_cues,
    )


def compiled_cues(column: Column) -> list[re.Pattern[str]]:
    """The column's cue patterns, case-insensitive, ``.`` crossing line ends (compiled once)."""
    return [_compiled(c) for c in column.cues]


def compiled_document_cues(column: Column) -> list[re.Pattern[str]]:
    """What the document model counts passages by: the column's cues and its document cues."""
    return [_compiled(c) for c in (*column.cues, *column.document_cues)]


def compiled_operative_cues(column: Column) -> list[re.Pattern[str]]:
    """The column's operative wording: a provision that does what the column asks, not one that
    only speaks of it (the document model reads whether any passage has it)."""
    return [_compiled(c) for c in column.operative_cues]


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I | re.S)
