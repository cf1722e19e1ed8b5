"""The parties: the two sides of a case name, who each party is (the state or a private party),
what the judgment calls each side, and the parties of a Court of Appeal transcript."""

from __future__ import annotations

import re

VERSUS = re.compile(r"\s+(?:v\.?|vs\.?|versus)\s+", re.I)


def split_case_name(name: str) -> tuple[str, str]:
    """ "Masud Khan v State Of Uttar Pradesh" -> ("Masud Khan", "State Of Uttar Pradesh")."""
    parts = VERSUS.split(name, maxsplit=1)
    if len(parts) == 2:
        return parts[0].strip(" ,."), parts[1].strip(" ,.")
    return name.strip(), ""


# Who a party is, from its name: the state's side (prosecution, government, public bodies) or
# a private party.
STATE_PARTY = re.compile(
    r"\b(?:State of|State\b|Union of India|Government|Govt\.?|Commissioner|Collector|Director|"
    r"Secretary of State|Secretary|Municipal|Municipality|Corporation of|Development Authority|"
    r"Superintendent|Supdt\.?|Remembrancer|Public Prosecutor|Central Bureau|C\.?B\.?I|Delhi Administration|"
    r"N\.?C\.?T\.? of Delhi|Regina|\bR\b(?!\.?\s*\(on the application)|Crown|Attorney General|Advocate General|"
    r"Income[- ]Tax Officer|Revenue|Customs|Excise|Enforcement|Inspector|Officer|Board of|Chief Minister|"
    r"Home Office|Ministry|Department|Council\b|Authority\b|Police)",
    re.I,
)


_PARTY_SPLIT = re.compile(r"\s*(?:,|&|\band\b)\s*(?=[A-Z])")
_PARTY_TAIL = re.compile(
    r"[\s,]*(?:&|and)?\s*(?:Ors?\.?|Others?|Anr\.?|Another|Etc\.?|etc\.?)\s*\.?\s*$", re.I
)


def party_list(side: str) -> list[str]:
    side = side.strip()
    if not side:
        return []
    tail = _PARTY_TAIL.search(side)
    core = side[: tail.start()] if tail else side
    core = core.strip(" ,.")
    if not core:
        return [side]
    # "State of Jammu and Kashmir" must stay whole: split on "and" only between two names
    # that each look like a person or body, not inside a place name.
    if STATE_PARTY.search(core) and " and " in core and "," not in core and "&" not in core:
        return [core] + (["others"] if tail else [])
    parts = [p.strip(" ,.") for p in _PARTY_SPLIT.split(core) if p.strip(" ,.")]
    return parts + (["others"] if tail else [])


def party_role(parties: list[str]) -> str:
    """ "state" when the first named party is the state or a public body, else "private"."""
    if not parties:
        return ""
    return "state" if STATE_PARTY.search(parties[0]) else "private"


# What a judgment calls the parties: "the appellant-accused", "respondent/tenant", "the
# accused-appellants", "the respondent Bank". Each label maps to a side a user may argue for.
PARTY_LABELS = {
    "accused": "accused",
    "convict": "accused",
    "state": "state",
    "prosecution": "state",
    "company": "company",
    "bank": "bank",
    "corporation": "corporation",
    "management": "employer",
    "employer": "employer",
    "employee": "employee",
    "workman": "employee",
    "workmen": "employee",
    "tenant": "tenant",
    "landlord": "landlord",
    "landlady": "landlord",
    "assessee": "assessee",
    "taxpayer": "assessee",
    "revenue": "revenue",
    "detenu": "detenu",
    "complainant": "complainant",
    "plaintiff": "plaintiff",
    "defendant": "defendant",
    "insurer": "insurer",
    "claimant": "claimant",
    "husband": "husband",
    "wife": "wife",
    "owner": "owner",
    "purchaser": "purchaser",
    "vendor": "vendor",
    "union": "union",
    "father": "father",
    "mother": "mother",
}
_LABEL_WORDS = (
    r"accused|convicts?|state|prosecution|company|bank|corporation|management|employers?|"
    r"employees?|workm[ae]n|tenants?|landlords?|landlady|assessees?|taxpayers?|revenue|detenus?|"
    r"complainants?|plaintiffs?|defendants?|insurers?|claimants?|husband|wife|owners?|"
    r"purchasers?|vendors?|union|father|mother"
)
_ROLE_WORDS = r"appellants?|respondents?|petitioners?|applicants?"
_ROLE_THEN_LABEL = re.compile(rf"\b({_ROLE_WORDS})[-/ ]({_LABEL_WORDS})\b", re.I)
_LABEL_THEN_ROLE = re.compile(rf"\b({_LABEL_WORDS})[-/ ]({_ROLE_WORDS})\b", re.I)
# "The respondents (the taxpayers)", "the Respondent (“the Landlord”)"
_ROLE_PAREN_LABEL = re.compile(
    rf"(?<!\bof )\bthe ({_ROLE_WORDS})\s*\(\s*[“\"']?(?:the )?({_LABEL_WORDS})[”\"']?\s*\)", re.I
)

# "The appeal is brought by the tenant", "an appeal by the landlord", "the insurer's appeal":
# the party word of the side that appeals (read in an English transcript's opening, where the
# appeal is introduced; an Indian judgment speaks so of the appeals below as well).
APPEAL_BY_LABEL = re.compile(
    rf"\b(?:appeals?\s+(?:is\s+|was\s+)?(?:brought\s+)?by\s+the\s+({_LABEL_WORDS})\b|"
    rf"\bthe\s+({_LABEL_WORDS})[’']s?[’']?\s+appeal\b)",
    re.I,
)


def label_of(word: str) -> str:
    """The side a party word stands for ("landlady" → "landlord", "taxpayers" → "assessee")."""
    w = word.lower().strip()
    if w not in PARTY_LABELS and w.endswith("s") and w[:-1] in PARTY_LABELS:
        w = w[:-1]
    return PARTY_LABELS.get(w, "")


_label = label_of


def party_labels(text: str, *, criminal: bool = False, appellant_role: str = "") -> tuple[str, str]:
    """(appellant label, respondent label): what the judgment mostly calls each side, from
    compounds such as "appellant-accused" or "tenant/respondent"; in a criminal case without
    such words, the private side is the accused and the public side the state."""
    counts: dict[str, dict[str, int]] = {"appellant": {}, "respondent": {}}
    for rx, role_group, label_group in (
        (_ROLE_THEN_LABEL, 1, 2),
        (_LABEL_THEN_ROLE, 2, 1),
        (_ROLE_PAREN_LABEL, 1, 2),
    ):
        for m in rx.finditer(text):
            role = m.group(role_group).lower()
            side = "respondent" if role.startswith("respondent") else "appellant"
            label = _label(m.group(label_group))
            if label:
                counts[side][label] = counts[side].get(label, 0) + 1
    out = []
    for side in ("appellant", "respondent"):
        found = sorted(counts[side].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(found[0][0] if found else "")
    appellant, respondent = out
    if appellant and appellant == respondent:  # "respondent-accused" in a co-accused's appeal
        respondent = "" if appellant == "accused" else respondent
    if criminal and appellant_role:
        default_appellant, default_respondent = (
            ("state", "accused") if appellant_role == "state" else ("accused", "state")
        )
        appellant = appellant or (default_appellant if respondent != default_appellant else "")
        respondent = respondent or (default_respondent if appellant != default_respondent else "")
    return appellant, respondent


_UK_ROLE = re.compile(
    r"^(Appellants?|Respondents?|Claimants?|Defendants?|Applicants?|Petitioners?|Interested\s+Part(?:y|ies)|Intervener?s?)\b",
    re.I,
)


def uk_parties(header: str) -> tuple[list[str], list[str]]:
    """(appellants, respondents) from the "Between:" block of a Court of Appeal transcript."""
    m = re.search(
        r"Between\s*:?\s*\n(.*?)(?:\n\s*-\s*-\s*-|\n\s*Mr\s|\n\s*Ms\s|\nHearing)", header, re.S
    )
    block = m.group(1) if m else ""
    groups = re.split(r"\n\s*-?\s*and\s*-?\s*\n", block)
    sides: list[tuple[list[str], str]] = []
    for g in groups:
        names: list[str] = []
        role = ""
        for line in g.split("\n"):
            line = " ".join(line.split())
            if not line:
                continue
            rm = _UK_ROLE.match(line)
            if rm:
                role = rm.group(1).lower()
                continue
            if re.fullmatch(r"Part(?:y|ies)|\(.*\)", line) and role:
                continue
            names.append(re.sub(r"^\(\d+\)\s*", "", line))
        if names:
            sides.append((names, role))
    appellants: list[str] = []
    respondents: list[str] = []
    for names, role in sides:
        if role.startswith(("appellant", "applicant", "claimant", "petitioner")) and not appellants:
            appellants = names
        elif role.startswith(("respondent", "defendant")) and not respondents:
            respondents = names
    if not appellants and sides:
        appellants = sides[0][0]
    if not respondents and len(sides) > 1:
        respondents = sides[1][0]
    return appellants, respondents
