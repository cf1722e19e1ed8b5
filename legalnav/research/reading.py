"""Reading a research question the way a lawyer writes it: whose side it argues, the proposition
that side needs, whether it is a fact pattern asking if a result holds, and, when the side cannot
be read, the sides it most likely means (for the clarify route to offer).

Everything here is rules over the wording, each reading carries the words it was read from, and
nothing here touches the database. With Claude, the router's reply may fill in what the rules
could not (``legalnav.research.pipeline``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --- sides --------------------------------------------------------------------------------------

# Roles a side can have, with the words questions use for them. The role is what stance needs
# (who that party is in a precedent); the label keeps the word the question used.
# Public bodies as a UK question names them ("the local housing authority", "the Council", "the
# Secretary of State", "the Home Office"): the State's side in civil and public-law disputes.
PUBLIC_BODY = (
    r"local (?:housing |planning |education )?authorit(?:y|ies)|"
    r"(?:housing|planning|licensing|public|education|highway|highways) authorit(?:y|ies)|"
    r"(?:borough|district|county|city|parish|town|local) council|(?:the )?council|"
    r"london borough(?: of [A-Z]\w+(?: [A-Z]\w+)?)?|secretary of state(?: for (?:the )?"
    r"(?:home department|justice|education|transport|health(?: and social care)?|work and "
    r"pensions|housing,? communities and local government|environment,? food and rural affairs|"
    r"foreign(?:,)? (?:and )?commonwealth(?: and development)? affairs|defence))?|"
    r"home office|home secretary|government department|the minister|ministry|"
    r"public bod(?:y|ies)|(?:statutory |public |independent |financial )?regulators?|"
    r"nhs (?:foundation )?trusts?|(?:nhs )?clinical commissioning groups?|health authorit(?:y|ies)"
)
_ROLE_WORDS: list[tuple[str, str]] = [
    ("accused", r"accused|convicts?|detenu|prisoner|under-?trial|the defence|defence"),
    # Before "respondent": the respondent to a committal application is the one said to be in
    # contempt, whichever side of the appeal it is on.
    (
        "contemnor",
        r"(?:alleged |putative )?contemnors?|respondents? to (?:a|an|the) (?:committal|contempt) "
        r"applications?|respondents? to (?:a|an|the) applications? (?:for committal|to commit)|"
        r"(?:person|party|defendant) (?:found|held) (?:to be )?in contempt",
    ),
    # A private party against the State: objectors and residents challenging a public decision,
    # a foreign national facing deportation.
    (
        "private",
        r"(?:local )?objectors?|local residents|residents'? (?:group|association)|campaigners|"
        r"campaign group|foreign (?:national )?(?:offenders?|criminals?)|(?:illegal )?migrants?|"
        r"asylum[- ]seekers?|deportees?|refugees?|"
        r"(?:potential |possible |alleged )?victims? of (?:human )?(?:trafficking|modern slavery)",
    ),
    (
        "state",
        rf"{PUBLIC_BODY}|"
        r"prosecution|public prosecutor(?:'s office)?|prosecutors?|the state\b(?!\s+of\s+mind)|"
        r"state\b(?!\s+of\s+mind)|government|union of india|the crown|crown|cbi",
    ),
    (
        "revenue",
        r"revenue and customs|hmrc|hm revenue|inland revenue|revenue|tax department|"
        r"income[- ]tax department|sales tax officer",
    ),
    (
        "employee",
        r"employees?|workm[ae]n|workers?|staff member|clerk|lineman|dismissed (?:employee|officer)|"
        r"whistle-?blowers?|(?:bank |government |police )?officer",
    ),
    ("employer", r"employers?|management|employing (?:company|firm|body|organisation|entity)"),
    ("tenant", r"tenants?|lessees?|leaseholders?"),
    (
        "landlord",
        r"landlords?|landlady|lessors?|freeholders?|owner of the (?:premises|building|flat|shop)",
    ),
    ("assessee", r"assessees?|taxpayers?|tax-payers?|dealers?"),
    ("insurer", r"insurers?|insurance company"),
    # A parent in a family case ("the left-behind father", "the mother").
    ("father", r"fathers?"),
    ("mother", r"mothers?"),
    ("debtor", r"(?:judgment |individual )?debtors?|bankrupts?"),
    ("lender", r"lenders?|mortgagees?"),
    ("borrower", r"borrowers?|mortgagors?"),
    # The children's guardian in public or private law children proceedings.
    ("guardian", r"(?:children's |child's )guardian|guardian ad litem"),
    ("creditor", r"(?:petitioning |judgment )?creditors?"),
    ("claimant", r"claimants?"),
    ("complainant", r"complainants?"),
    ("plaintiff", r"plaintiffs?"),
    ("defendant", r"defendants?"),
    ("petitioner", r"petitioners?|writ petitioner"),
    ("appellant", r"appellants?|applicants?"),
    ("respondent", r"respondents?"),
]
_ROLE_RX = [(role, re.compile(rf"\b(?:{words})\b", re.I)) for role, words in _ROLE_WORDS]
POSITIONS = ("appellant", "respondent", "petitioner")
# Sides opposed to each other (the other party in the same kind of dispute).
OPPONENT = {
    "accused": "state",
    "state": "accused",
    "employee": "employer",
    "employer": "employee",
    "tenant": "landlord",
    "landlord": "tenant",
    "assessee": "revenue",
    "revenue": "assessee",
    "appellant": "respondent",
    "petitioner": "respondent",
    "respondent": "appellant",
    "insurer": "claimant",
    "claimant": "defendant",
    "complainant": "accused",
    "plaintiff": "defendant",
    "defendant": "plaintiff",
    "private": "state",
    "father": "mother",
    "mother": "father",
    "debtor": "creditor",
    "creditor": "debtor",
    "lender": "borrower",
    "borrower": "lender",
}
# What a role is called in a sentence ("an accused appellant", "the prosecution").
_ROLE_NAMES = {"state": "State", "revenue": "Revenue", "private": "private party"}
_PUBLIC_BODY_RX = re.compile(rf"^(?:the )?(?:{PUBLIC_BODY})$", re.I)


def is_public_body(label: str) -> bool:
    """Whether a side's own word names a public body ("local housing authority", "council",
    "secretary of state", "home office", "hmrc"), not the State as prosecutor."""
    return bool(_PUBLIC_BODY_RX.match(label.strip())) or label.strip().lower() in (
        "hmrc",
        "hm revenue",
        "revenue and customs",
        "inland revenue",
    )


@dataclass(frozen=True, slots=True)
class Side:
    """The side a question argues. ``role`` is what stance compares with a precedent's parties
    (a key of OPPONENT, ``party`` for a named party, or "" when the question does not say)."""

    role: str
    evidence: str = ""  # the words it was read from
    label: str = ""  # the question's own word for it ("prosecution", "landlady", "petitioner")
    position: str = ""  # appellant | respondent | petitioner: where it sits in its own case
    party: str = ""  # a named party ("Northgate Logistics Ltd")

    @property
    def known(self) -> bool:
        return bool(self.role)

    def describe(self) -> str:
        """In words: "an accused appellant", "the respondent State", "Northgate Logistics Ltd"."""
        if not self.role:
            return "a side the question does not state"
        if self.party:
            return self.party
        name = _ROLE_NAMES.get(self.role, self.role)
        if self.label and self.label not in POSITIONS and self.label != "named party":
            name = _ROLE_NAMES.get(self.label, self.label)  # the question's own word
        if self.position and self.position != self.role:
            if self.role == "state" and is_public_body(self.label):
                return f"the {self.position} {self.label}"  # "the respondent council"
            if self.role == "state":
                return f"the {self.position} State"
            return f"{_article(name)} {name} {self.position}"
        return f"the {name}"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


# Words that say for whom the question is asked; the side follows them (or, for a pronoun,
# comes before them).
_CLIENT_AFTER = re.compile(
    r"\b(?:my client|our client|our clients|we (?:act|appear|are acting|are appearing|are) for|"
    r"(?:we|i) (?:advise|are advising|am advising|are instructed by|am instructed by)|"
    r"i (?:act|appear|am acting|am appearing|am) for|we represent|i represent|representing|"
    r"on behalf of|acting for|(?:brief|research|memo|note|submissions?|arguments?) for|"
    r"we are (?:defending|the)|i am (?:defending|the)|defending|we are for)\b|"
    r"(?:^|[.:;!?]\s+)for\b",
    re.I,
)
_CLIENT_BEFORE = re.compile(
    r"(?P<who>[A-Z][\w.&'/-]*(?:\s+[A-Z][\w.&'/-]*){0,5}|the \w+|[A-Z]\w+)\s+"
    r"(?:is|are) (?:my|our) clients?\b|"
    r"\b(?:i'?m|i am|we are|we're) on (?P<who2>[A-Z][\w.&'-]*(?:\s+[A-Z][\w.&'-]*){0,3})'s side\b|"
    r"^(?P<who3>\w+(?:\s+\w+)?)\s+here\b",
    re.I,
)
# "our client, the husband, is charged with …": a person named by relation, then what happened
# to them, which says which side they are on.
_RELATION = re.compile(
    r"^\s*(?:,\s*(?:(?:the|a|an)\s+)?|(?:the|a|an)\s+)(?P<who>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s*,?\s+"
    r"(?:(?:who\s+)?(?:is|was|has\s+been|had\s+been|stands|were|are|have\s+been)\s+)?"
    r"(?P<what>charged|accused|prosecuted|convicted|tried|arrested|booked|sued|dismissed|"
    r"terminated|evicted|assessed|detained|brings?|bringing|brought)\b",
    re.I,
)
_RELATION_ROLE = {
    "charged": "accused",
    "accused": "accused",
    "prosecuted": "accused",
    "convicted": "accused",
    "tried": "accused",
    "arrested": "accused",
    "booked": "accused",
    "detained": "accused",
    "sued": "defendant",
    "dismissed": "employee",
    "terminated": "employee",
    "evicted": "tenant",
    "assessed": "assessee",
    # "our clients, truck purchasers, bring follow-on damages claims": they sue.
    "bring": "claimant",
    "brings": "claimant",
    "bringing": "claimant",
    "brought": "claimant",
}
_OPENING_ROLE = re.compile(
    r"^(?:(?P<who>prosecution|defence|defense)\s+(?:brief|note|research|memo|submissions?)\b)",
    re.I,
)
# "claimant side", "Tenant's side", "Employee-side brief", "our claimant".
_ROLE_ALTERNATION = "|".join(words for _, words in _ROLE_WORDS)
_SIDE_TAG = re.compile(
    rf"\b(?P<who>(?:{_ROLE_ALTERNATION}))(?:'s)?[- ]side\b|\b(?:our|my) (?P<who2>(?:{_ROLE_ALTERNATION}))\b",
    re.I,
)
_BARE_OPENING = re.compile(
    r"^(?P<who>Appellants?|Petitioners?|Respondents?|Accused|Claimants?|Plaintiffs?|Defendants?|"
    r"Tenants?|Landlords?|Employees?|Employers?|Complainants?)\b(?=[,:]|\s+(?:a|an|is|was|"
    r"were|has|had|convicted|charged|dismissed|evicted)\b)"
)
_PRONOUN = re.compile(r"^\s*(?:it|him|her|them|us|the same)\b", re.I)
_PARTY_NAME = re.compile(
    r"^\s*(?:M/s\.?\s+)?(?P<name>(?:Mrs?|Ms|Dr|Shri|Smt)\.?\s+[A-Z]\w+|"
    r"[A-Z][\w&'.-]*(?:\s+(?:[A-Z][\w&'.-]*|of|and|&)){0,5})"
)
_NOT_NAMES = re.compile(
    r"^(?:The|A|An|This|That|Our|My|Us|Him|Her|It|Them|In|On|At|Research|Brief|Authorities|"
    r"Find|Cases|Case|Memo|Whether|Can|Is|Are|Will|Should|Does)\b"
)
# A side read from what the question wants to happen.
_WANTS_ACQUITTAL = re.compile(
    r"\b(?:acquit|acquittal should (?:stand|be upheld)|set aside the conviction|"
    r"conviction (?:cannot|can ?not|should not|must not) (?:stand|rest|be sustained)|quash|bail|"
    r"(?:should|shall|can|could) we appeal (?:the|his|her|a|this) conviction|"
    r"appeal against (?:his|her|my|our|the) conviction)\b",
    re.I,
)
_WANTS_CONVICTION = re.compile(
    r"\b(?:reverse the acquittal|reversing (?:an|the) acquittal|against (?:an|the) acquittal|"
    r"uphold the conviction|sustain (?:a|the) conviction|restore the conviction|"
    r"the state (?:wants|seeks|intends|proposes) to)\b",
    re.I,
)
# "What would the employer argue?": the question argues against that party.
_OPPONENT_VOICE = re.compile(
    r"\b(?:what|how) (?:would|will|might|could|can) the (?P<who>\w+) (?:argue|say|reply|cite|"
    r"rely on|answer)|\bthe (?P<who2>\w+) will (?:argue|say|cite|rely)\b",
    re.I,
)
# "our client's writ petition": the client brought it.
_OWN_PROCEEDING = {
    "petition": "petitioner",
    "appeal": "appellant",
    "suit": "plaintiff",
    "claim": "claimant",
    "complaint": "complainant",
    "application": "appellant",
}
_CLIENTS_OWN = re.compile(
    r"\b(?:my|our) client'?s'? (?P<what>(?:writ |special leave |review )?(?:petition|appeal|suit|"
    r"claim|complaint|application))\b",
    re.I,
)
_CHALLENGING = re.compile(
    r"\b(?:risk|prospects?|chances?|merits?) (?:of success )?(?:of|in) (?:challenging|appealing|"
    r"contesting|suing|filing a (?:writ|suit|claim|petition))\b|\bif we (?:file|appeal|sue|challenge)\b",
    re.I,
)
_CRIMINAL = re.compile(
    r"\b(?:convict\w*|acquit\w*|accused|murder|IPC|Penal Code|NDPS|offen[cs]es?|bail|"
    r"sentenced?|prosecution|FIR|charge-?sheet|dying declaration|culpable homicide|"
    r"Cr\.?\s?P\.?\s?C|rape|dacoity|robbery|kidnapping|dowry)\b",
    re.I,
)
_POSITION_CRIMINAL = re.compile(
    r"\b(?:appellants?|petitioners?)\b(?:\s+\w+){0,3}?\s+(?:(?:was|were|has been|have been|stands?|"
    r"had been)\s+)?(?:convicted|sentenced|charged|arrested|found guilty|tried|prosecuted)\b|"
    r"\bconviction of the (?:appellants?|petitioners?)\b|appeal against (?:his|their|the) conviction|"
    # "the appeal preferred by the appellants was dismissed and their conviction … affirmed"
    r"\b(?:appellants?|petitioners?)\b[^.]{0,80}?\b(?:his|her|their) conviction\b|"
    # "the accused-appellant", "appellant/accused", "the appellant (accused)"
    r"\baccused[-/ ](?:appellants?|petitioners?)\b|"
    r"\b(?:appellants?|petitioners?)(?:[-/ ]|\s*\(\s*)accused\b|"
    # "a charge-sheet … against the Petitioner and his father", "the FIR against the appellant"
    r"\b(?:charge-?sheet|FIR|first information report|criminal complaint|prosecution)\b"
    r"(?:[^.]|\.(?=\S)){0,100}?\bagainst the (?:appellants?|petitioners?)\b",
    re.I,
)
# Words that say what an employer did to the appellant. "Dismissed", "removed", "terminated" and
# "suspended" count only with the service they ended ("dismissed from service"): "the appeal
# preferred by the appellants was dismissed" is about their appeal, not their job.
_POSITION_EMPLOYEE = re.compile(
    r"\b(?:appellants?|petitioners?)\b[^.]{0,40}?\b(?:was|were|had been|has been)\s+"
    r"(?:appointed|employed|retired|compulsorily retired|promoted|working|"
    r"(?:dismissed|removed|terminated|suspended)\s+(?:from|by (?:the|his|her) employer)\b)",
    re.I,
)
_RESPONDENT_CONVICTED = re.compile(
    r"\bconviction (?:against|of) the (?:first |second |\w+ )?respondents?\b|"
    r"\b(?:first |second )?respondents?\b(?:\s+\w+){0,3}?\s+(?:was|were|had been|has been)\s+"
    r"(?:convicted|found guilty)\b",
    re.I,
)
# "the complainant P1 (appellant)", "the appellant-complainant", "complainant/appellant"
_COMPLAINANT_APPEALS = re.compile(
    r"\bcomplainant\b[^.()]{0,30}\((?:the )?(?:appellant|petitioner)\)|"
    r"\b(?:appellant|petitioner)[-/ ]complainant\b|\bcomplainant[-/ ](?:appellant|petitioner)\b",
    re.I,
)
_AGAINST_ACQUITTAL = re.compile(r"\bappeal against (?:the|an|his|their) acquittal\b", re.I)


def _role_at(text: str) -> tuple[int, str, str] | None:
    """The first role word in ``text``: (offset, role, words)."""
    best: tuple[int, str, str] | None = None
    for role, rx in _ROLE_RX:
        hit = rx.search(text)
        if hit and (best is None or hit.start() < best[0]):
            best = (hit.start(), role, hit.group(0))
    return best


def _role_mentions(text: str) -> list[tuple[int, str, str]]:
    hits = [(m.start(), role, m.group(0)) for role, rx in _ROLE_RX for m in rx.finditer(text)]
    return sorted(hits)


def _label(role: str, words: str) -> str:
    w = words.lower().strip()
    if role == "state" and _PUBLIC_BODY_RX.match(w):
        return w.removeprefix("the ")  # "local housing authority", "council", "home office"
    if role == "state":
        return "prosecution" if "prosecut" in w else "state"
    if role == "revenue" and w in ("hmrc", "hm revenue"):
        return w.upper() if w == "hmrc" else "HM Revenue"
    if role in ("private", "contemnor"):
        return w.removeprefix("the ")
    if role == "accused" and "defen" in w:
        return "defence"
    return w.removeprefix("the ").rstrip("s") if role in POSITIONS else w


def _with_position(question: str, at: int, role: str, words: str) -> str:
    """Where the side sits in its own case, from the words next to its role ("respondent State",
    "accused appellant", "the State has filed an appeal")."""
    if role in POSITIONS:
        return role
    # The words around the role, not the role's own ("the respondent to a committal application"
    # is the alleged contemnor, not the respondent of an appeal).
    near = f"{question[max(0, at - 25) : at]} {question[at + len(words) : at + len(words) + 25]}"
    for position in POSITIONS:
        if re.search(rf"\b{position}s?\b", near, re.I):
            return position
    after = question[at + len(words) : at + len(words) + 60]
    if re.match(
        r"\s+(?:has|have|had)\s+(?:filed an appeal|appealed|preferred an appeal)", after, re.I
    ):
        return "appellant"
    return ""


def _substantive(question: str, role: str) -> str:
    """The party a positional side stands for in its dispute (an appellant convicted of murder
    is an accused), so that precedents can be compared by who won."""
    if role not in POSITIONS:
        return role
    if role in ("appellant", "petitioner"):
        # What the question says happened to the appellant decides first ("the appellant was
        # convicted", "the appellant was appointed"), then what kind of case it is.
        if _AGAINST_ACQUITTAL.search(question):
            return "state"
        if _POSITION_CRIMINAL.search(question):
            return "accused"
        if _POSITION_EMPLOYEE.search(question):
            return "employee"
    if _AGAINST_ACQUITTAL.search(question):
        return "accused" if role == "respondent" else role
    if role in ("appellant", "petitioner") and _COMPLAINANT_APPEALS.search(question):
        return "complainant"
    if _RESPONDENT_CONVICTED.search(question):
        # The respondent is the one convicted: the appellant is the complainant (or the State).
        return "complainant" if role in ("appellant", "petitioner") else "accused"
    if re.search(r"\bconvict(?:ion|ed)\b", question, re.I) and _CRIMINAL.search(question):
        # In a criminal appeal about a conviction, the accused appeals and the State answers.
        return "accused" if role in ("appellant", "petitioner") else "state"
    return role


# Roles that only say where a party stands in a suit; a word after one ("the defendant insurer",
# "the claimant employee") says who the party is.
_GENERIC = frozenset({"plaintiff", "defendant", "claimant"})


def _side(question: str, at: int, role: str, words: str, evidence: str) -> Side:
    position = _with_position(question, at, role, words)
    substantive = _substantive(question, role)
    label = _label(role, words)
    if role in _GENERIC:
        beside = _role_at(question[at + len(words) : at + len(words) + 20])
        if (
            beside is not None
            and beside[0] <= 2
            and beside[1] not in _GENERIC
            and beside[1] not in POSITIONS
        ):
            # The specific word names the side; the generic one stays in its label.
            return Side(
                beside[1], evidence, label=f"{label} {beside[2].lower()}", position=position
            )
    if substantive in POSITIONS:
        # "the respondent State", "Respondent employer", "the appellant foreign national
        # offender": the word beside the position says who.
        beside = _role_at(question[at + len(words) : at + len(words) + 40])
        if beside is not None and beside[1] not in POSITIONS and beside[0] <= 2:
            substantive = beside[1]
            named = _label(beside[1], beside[2])
            if beside[1] in ("private", "contemnor") or (
                beside[1] == "state" and named not in ("state", "prosecution")
            ):
                label = named  # "foreign national offender", "council"
    elif role not in _GENERIC:
        # "the landlord-claimant", "the tenant/defendant": where the party stood in its suit.
        suit = re.match(
            r"[-/ ](claimant|defendant|plaintiff)s?\b", question[at + len(words) :], re.I
        )
        if suit:
            label = f"{label}-{suit.group(1).lower()}"
    return Side(
        substantive,
        evidence,
        label=label,
        position=position if position else (role if role in POSITIONS else ""),
    )


def read_side(question: str) -> Side:
    """The side the question argues for: "my client, the tenant", "we act for the State",
    "Defendant here", "Brief for Northgate Logistics Ltd", "I'm on Kumar's side", "I act for
    him" (the last party named), or a wanted outcome ("the conviction cannot stand")."""
    q = " ".join(question.split())
    opening = _OPENING_ROLE.search(q)
    if opening:
        found = _role_at(opening.group("who"))
        if found:
            return _side(q, 0, found[1], opening.group("who"), opening.group(0))
    tag = _SIDE_TAG.search(q)
    if tag:
        who = "who" if tag.group("who") else "who2"
        found = _role_at(tag.group(who))
        if found:
            return _side(q, tag.start(who), found[1], found[2], tag.group(0))
    for m in _CLIENT_AFTER.finditer(q):
        rest = q[m.end() :]
        clause = re.split(r"[.:;?!]|\s[-–—]\s", rest, maxsplit=1)[0][:60]
        if _PRONOUN.match(clause):
            pronoun = _PRONOUN.match(clause).group(0).strip().lower()  # type: ignore[union-attr]
            earlier = _role_mentions(q[: m.start()])
            if earlier:
                at, role, words = earlier[0] if pronoun == "us" else earlier[-1]
                return _side(q, at, role, words, f"{words} … {m.group(0).strip()} {pronoun}")
            continue
        related = _RELATION.match(clause)
        if related and m.group(0).strip().lower() in ("my client", "our client", "our clients"):
            role = _RELATION_ROLE[related.group("what").lower()]
            who = related.group("who").lower()
            named = _role_at(who)
            if named is not None and named[1] not in POSITIONS and named[1] not in _GENERIC:
                role = named[1]  # "our client, a taxpayer, was charged a penalty": a taxpayer
            return Side(
                role,
                f"{m.group(0).strip()}, the {who}, … {related.group('what')}",
                label=who,
                position=_with_position(q, m.end(), role, related.group(0)),
            )
        found = _role_at(clause)
        if found is not None and _AGAINST.search(clause[: found[0]]):
            # "an individual in proceedings against the state", "a party that has won its case
            # against a public body": the role named is the other side's.
            against = _opposite(found[1])
            if against:
                someone = re.match(r"\s*(?:an?|the)\s+(?P<who>[a-z][\w-]+)", clause)
                return Side(
                    against,
                    f"{m.group(0).strip()} … against … {found[2]}",
                    label=someone.group("who").lower() if someone else against,
                )
        if found is not None and found[1] == "state" and _CHALLENGES.match(clause[found[0] :]):
            # "a local authority and residents' groups challenging government decisions": the
            # challenger stands where a private party stands against the public body it sues.
            return Side(
                "private",
                f"{m.group(0).strip()} … {found[2]} … challenging",
                label=_label("state", found[2]),
            )
        if found is not None:
            at = m.end() + found[0]
            side = _side(q, at, found[1], found[2], f"{m.group(0).strip()} … {found[2]}")
            name = _PARTY_NAME.match(clause)
            if name and not _NOT_NAMES.match(name.group("name")) and name.start("name") < found[0]:
                return Side(
                    side.role,
                    side.evidence,
                    label=side.label,
                    position=side.position,
                    party=name.group("name").rstrip(",. "),
                )
            return side
        someone = re.match(r"\s*an? (?P<who>[a-z][\w-]+(?: [a-z][\w-]+)?)\b", clause)
        if someone and m.group(0).strip().lower() not in ("for", "defending"):
            who = someone.group("who").split()[0]
            role = "accused" if _CRIMINAL.search(q) else "party"
            sentence = re.split(r"[.;?!]", rest, maxsplit=1)[0]
            if role == "party" and _ANSWERS.search(sentence):
                # "an overseas company that has been served with English proceedings": it answers.
                role = "defendant"
            return Side(
                role,
                f"{m.group(0).strip()} {someone.group(0).strip()}",
                label=who,
                party=f"a {who}" if role == "party" else "",
            )
        name = _PARTY_NAME.match(clause)
        if (
            name
            and not _NOT_NAMES.match(name.group("name"))
            and m.group(0).strip().lower() != "for"
        ):
            return _named(q, name.group("name").rstrip(",. "), m.group(0).strip())
        if (
            name
            and not _NOT_NAMES.match(name.group("name"))
            and re.match(r"\s*(?:M/s|[A-Z]\w+\s+(?:Ltd|Limited|plc|LLP|Inc|Co)\b)", clause)
        ):
            return _named(q, name.group("name").rstrip(",. "), m.group(0).strip())
    before = _CLIENT_BEFORE.search(q)
    if before:
        who = before.group("who") or before.group("who2") or before.group("who3") or ""
        found = _role_at(who)
        if found is not None:
            return _side(q, before.start() + found[0], found[1], found[2], before.group(0))
        if who and not _NOT_NAMES.match(who):
            return _named(q, who.removeprefix("M/s ").strip(), before.group(0))
    sued = _AGAINST_CLIENT.search(q)
    if sued:
        # "The other side has applied for summary judgment against our client": it is answering.
        role = "accused" if _CRIMINAL.search(q) else "defendant"
        return Side(role, sued.group(0), label=role)
    refused = _CLIENT_REFUSED.search(q)
    if refused:
        # "Our client was refused leave to remain": a private party against the body that refused.
        return Side("private", refused.group(0), label="applicant refused")
    mine = re.search(r"\b(?:my|our) client'?s\b", q, re.I)
    if mine and _CRIMINAL.search(q) and not _CLIENTS_OWN.search(q):
        # "a pistol recovered from behind my client's house": in a criminal case, the accused.
        return Side("accused", mine.group(0), label="accused")
    own = _CLIENTS_OWN.search(q)
    if own:
        role = _OWN_PROCEEDING[own.group("what").lower().split()[-1]]
        return Side(_substantive(q, role), own.group(0), label=role, position=_position_of(role))
    challenge = _CHALLENGING.search(q)
    if challenge:
        role = side_choices(q)[0]
        return Side(role, challenge.group(0), label=role, position=_position_of(role))
    bare = _BARE_OPENING.match(q)
    if bare:
        # "Petitioner, a prisoner under sentence of death, …": a lawyer's shorthand for the client.
        found = _role_at(bare.group("who"))
        if found:
            return _side(q, 0, found[1], found[2], bare.group(0))
    voice = _OPPONENT_VOICE.search(q)
    wanted = _wanted(_WANTS_CONVICTION, q)
    if wanted:
        return Side("state", wanted.group(0), label="state")
    wanted = _wanted(_WANTS_ACQUITTAL, q)
    if wanted:
        return Side("accused", wanted.group(0), label="accused")
    if voice:
        found = _role_at(voice.group("who") or voice.group("who2") or "")
        if found is not None and found[1] in OPPONENT:
            ours = OPPONENT[found[1]]
            if found[1] == "state" and is_public_body(_label("state", found[2])):
                ours = "private"  # against a council or a minister: the private party
            return Side(ours, voice.group(0), label=ours)
    return Side("")


# A claim, an application or proceedings brought against the client; the client refused
# something by a public body; the client served with proceedings.
_AGAINST_CLIENT = re.compile(
    r"\b(?:claims?|applied|applications?|proceedings|petitions?|action|suit|sued|judgment)\b"
    r"[^.;?!]{0,60}?\bagainst (?:my|our) clients?\b(?![’'])|"
    r"\b(?:my|our) clients?,?[^.;?!]{0,60}?\b(?:has|have|had) been served with\b[^.;?!]{0,30}?"
    r"\b(?:proceedings|claim|petition)",
    re.I,
)
_ANSWERS = re.compile(
    r"\b(?:has|have|had|was|were|is|are) (?:been )?(?:served with|sued\b)|\bfacing (?:a |an )?"
    r"(?:claim|suit|action|petition|application for)\b",
    re.I,
)
_CLIENT_REFUSED = re.compile(
    r"\b(?:my|our) clients?,?[^.;?!]{0,40}?\b(?:was|were|has been|have been|had been) refused\b",
    re.I,
)
# "… against the state", "… against a public body": what follows names the client's opponent.
_AGAINST = re.compile(r"\bagainst\s+(?:the\s+|a\s+|an\s+)?$", re.I)
# A public body that is itself challenging a decision (within 60 characters of its role word).
_CHALLENGES = re.compile(r"[\w' -]{0,60}?\bchalleng(?:e|es|ing)\b", re.I)


def _opposite(role: str) -> str:
    """The client's role when ``role`` is the other side's: against the State or a public body,
    a private party (not an accused: the phrase is civil); else the role's opponent, if any."""
    if role == "state":
        return "private"
    return "" if role in POSITIONS else OPPONENT.get(role, "")


def _wanted(rx: re.Pattern[str], question: str) -> re.Match[str] | None:
    """A wanted outcome, unless it is only asked about ("whether … can sustain a conviction")."""
    for m in rx.finditer(question):
        start = max(question.rfind(".", 0, m.start()), question.rfind("?", 0, m.start())) + 1
        before = question[start : m.start()]
        if re.search(r"\bwhether\b", before, re.I):
            continue
        if re.match(rf"\s*(?:{_AUX})\b", before, re.I) and "?" in question[m.end() : m.end() + 200]:
            continue
        return m
    return None


def _position_of(role: str) -> str:
    return role if role in POSITIONS else ""


def _named(question: str, name: str, evidence: str) -> Side:
    """A named client: its role is read from how the question describes it, when it does."""
    pattern = re.escape(name.split()[0])
    role = ""
    near = re.search(rf"\b{pattern}\b[^.]{{0,30}}", question)
    if near:
        found = _role_at(near.group(0)[len(name) :])
        role = found[1] if found else ""
    return Side(role or "party", evidence, label=role or "named party", party=name)


# --- choices when the side cannot be read --------------------------------------------------

_DISPUTES: list[tuple[re.Pattern[str], tuple[str, str]]] = [
    (
        re.compile(r"\b(?:detenu|detention|habeas corpus|writ|article 226|article 32)\b", re.I),
        ("petitioner", "respondent"),
    ),
    (
        re.compile(
            r"\b(?:dismiss(?:ed|al) (?:from service|after)|dismissed after|employee|workm[ae]n|"
            r"inquiry officer|enquiry|disciplinary|retrench\w*|regularis\w*|reinstat\w*|"
            r"manager was|officer was|clerk)\b",
            re.I,
        ),
        ("employee", "employer"),
    ),
    (
        re.compile(r"\b(?:tenant|landlord|evict\w*|rent control|lease)\b", re.I),
        ("tenant", "landlord"),
    ),
    (
        re.compile(
            r"\b(?:assessee|assessment|income tax|sales tax|excise|customs duty|GST)\b", re.I
        ),
        ("assessee", "revenue"),
    ),
    (_CRIMINAL, ("accused", "prosecution")),
    (
        re.compile(
            r"\b(?:claim(?:s|ant)?|negligence|personal injury|psychiatric injury|compensation|"
            r"damages|tribunal)\b",
            re.I,
        ),
        ("claimant", "defendant"),
    ),
    (
        re.compile(r"\b(?:suit|plaintiff|specific performance|decree)\b", re.I),
        ("plaintiff", "defendant"),
    ),
]


def side_choices(question: str) -> list[str]:
    """The two sides a question most likely means, from the kind of dispute it describes."""
    for rx, pair in _DISPUTES:
        if rx.search(question):
            return list(pair)
    return ["appellant", "respondent"]


# --- the proposition ------------------------------------------------------------------------

_THAT_CLAUSE = re.compile(
    r"\b(?:argument that|arguing that|argue that|argues that|proposition that|position that|"
    r"authority (?:for the proposition )?that|authorities that(?! support)|cases that hold that|"
    r"supporting (?:the view|an argument|the argument) that|establish that|show that|"
    r"(?:our|the) case that|arguments? that|contends? that|contending that)\s+"
    r"(?P<p>.+?)(?:,\s*(?:and|with|including|citing)\b|[.?!](?:\s|$)|$)",
    re.I,
)
# Words that put an argument in the other side's mouth.
_OTHER_SIDE = re.compile(
    r"\b(?:other side|opponents?|opposing|they|the (?:prosecution|defence|state|claimants?|"
    r"defendants?|plaintiffs?|respondents?|appellants?|landlord|tenant|employer|employee|insurer|"
    r"revenue|department)) (?:will|would|may|might|could|is going to|are going to)?\s*"
    r"(?:argue|say|contend|submit|rely|claim)",
    re.I,
)
_COLON_CLAIM = re.compile(
    r"^(?:(?:prosecution|defence|defense)\s+)?(?:brief|note|research|memo|submissions?)\s*:\s*"
    r"(?P<p>[^.?!]{20,}?)(?:[.?!](?:\s|$)|$)",
    re.I,
)
_WHETHER = re.compile(
    r"\bwhether\s+(?P<p>.+?)(?:,\s*(?:and|with|including|citing|cases|authorities)\b|\s[-–—]\s|[.?!](?:\s|$)|$)",
    re.I,
)
_STANCE_ON = re.compile(
    r"\b(?:brief|note|memo|submissions?|arguments?)\s+(?P<how>defending|supporting|upholding|"
    r"challenging|opposing|attacking)\s+(?P<x>[^:.;?!]+?)(?::\s*(?P<on>.+?))?(?:[.?!](?:\s|$)|$)",
    re.I,
)
_TOPIC = re.compile(
    r"\b(?:brief|note|memo|research|authorities|cases|argue)\s+(?:on|about|for and against|"
    r"both ways on|as to)?\s*(?P<p>(?!the test\b|for and against|both ways|for the\b)[^?!:]{12,}?)(?:,\s*(?:authorities|cases)\b|"
    r"[.?!](?:\s|$)|$)",
    re.I,
)
_THEIR_CASE = re.compile(
    r"(?P<who>\b(?:the|our)\s+[\w' -]{2,40}?|\b[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})\s+"
    r"(?:says|argues|contends|claims|pleads|alleges)\s+(?:that\s+)?(?P<p>[^?!]{12,}?)(?:[.?!](?:\s|$)|$)"
)
_LEADING_SIDE = re.compile(
    r"^(?:(?:prepare|draft|write)\s+(?:a|the|me a)?\s*(?:research\s+)?(?:brief|note|memo)\s+for\s+"
    r"(?:the|my|our)\s+\w+\s+|(?:brief|research|memo|note)\s+)?(?:for|acting for|we act for|i act for)\s+(?:the\s+|my\s+|our\s+)?"
    r"[\w' -]{2,40}?(?::\s*|\.\s*$|$)",
    re.I,
)
_SIDE_SENTENCE = re.compile(
    r"\b(?:on \w+'s side|is (?:my|our) client|here\.$|we (?:act|appear) for|i (?:act|appear) for)",
    re.I,
)
_AUX = "can|could|is|are|was|were|will|would|should|shall|does|do|did|must|may|has|have|had"
# After "is/was X …": what X is said to be. After "can/will/does X …": what X may do.
_STATES = (
    r"barred|valid|invalid|admissible|inadmissible|sustainable|maintainable|enough|too|entitled|"
    r"liable|lawful|unlawful|legal|illegal|good law|still|void|voidable|enforceable|binding|"
    r"available|applicable|justified|proper|right|wrong|correct|likely|unlikely|bound|able|"
    r"undone|reversed|sustained|upheld|set aside|quashed|vitiated|time-barred|out of time|"
    r"within time|a (?:valid|good|sufficient)"
)
_ACTS = (
    r"be|have|get|hold|stand|survive|escape|rely|acquire|apply|succeed|fall|fail|vitiate|"
    r"cover|amount|attract|require|need|protect|bar|defeat|override|prevail|extend|include|"
    r"exclude|show|prove|automatically|necessarily|rest|found|support|lie|continue|recover|"
    r"seek|proceed|count|qualify|justify|sustain|maintain|claim damages|sue|evict|recover"
)
_YES_NO = re.compile(
    rf"^(?P<aux>is|are|was|were)\s+(?P<np>.+?)\s+(?P<rest>(?:{_STATES})\b.*?)\??$|"
    rf"^(?P<aux2>can|could|will|would|should|shall|must|may|does|do|did)\s+(?P<np2>.+?)\s+"
    rf"(?P<rest2>(?:{_ACTS})\b.*?)\??$",
    re.I,
)
_DIRECTIVE = re.compile(
    r"^(?:find|give me|give|please give|prepare|draft|build|advise|set out|collect|research|brief|memo|include|"
    r"identify|assess|compare|tell us|list|cite|authorities|cases)\b",
    re.I,
)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.?!])\s+(?=[A-Z\"'“])", " ".join(text.split()))
    return [p.strip() for p in parts if p.strip()]


def issue_of(sentence: str) -> str:
    """A yes/no question as the issue it raises: "Can his conviction be sustained?" → "whether
    his conviction can be sustained"."""
    s = sentence.strip().rstrip("?").strip()
    s = re.sub(r"^(?:and|so|but|then|now)\s+", "", s, flags=re.I)
    m = _YES_NO.match(s)
    if not m:
        return ""
    aux = (m.group("aux") or m.group("aux2")).lower()
    np, rest = m.group("np") or m.group("np2"), m.group("rest") or m.group("rest2")
    if aux in ("does", "do", "did"):
        words = rest.split()
        at = 0
        while at < len(words) - 1 and words[at].lower().endswith("ly"):
            at += 1  # "does X automatically vitiate": the verb is after the adverb
        verb = words[at]
        if aux == "does" and not verb.endswith("s"):
            words[at] = verb + ("es" if verb.endswith(("sh", "ch", "x", "o")) else "s")
        return f"whether {np} {' '.join(words)}"
    return f"whether {np} {aux} {rest}"


def is_fact_pattern(question: str) -> re.Match[str] | None:
    """Facts followed by a question whether a result holds ("… Can the conviction stand?"): a
    brief, not a search. Returns the closing question when it is one."""
    sentences = _sentences(question)
    if len(sentences) < 2 or len(question.split()) < 18:
        return None
    last = sentences[-1]
    for sentence in reversed(sentences[1:]):
        if sentence.endswith("?"):
            last = sentence
            break
    tail = re.split(r"\s[-–—]\s", last)[-1]
    return re.match(rf"^(?:(?:and|so|but)\s+)?(?:{_AUX})\b.+\?$", tail, re.I)


@dataclass(slots=True)
class Reading:
    side: Side
    proposition: str
    proposition_from: str  # which rule gave it ("that-clause", "whether", "question", …)
    fact_pattern: bool = False
    choices: list[str] = field(default_factory=list)


def read_proposition(question: str) -> tuple[str, str]:
    """The proposition the user needs supported (or, failing that, the issue), and the rule that
    gave it."""
    q = " ".join(question.split())
    theirs = None
    for m in _THAT_CLAUSE.finditer(q):
        start = max(q.rfind(".", 0, m.start()), q.rfind(":", 0, m.start())) + 1
        if _OTHER_SIDE.search(q[start : m.end()]):
            theirs = theirs or m  # what the other side will argue: the proposition to meet
            continue
        return _tidy(m.group("p")), "that-clause"
    if theirs is not None:
        return f"against the other side's argument that {_tidy(theirs.group('p'))}", "their case"
    m = _COLON_CLAIM.search(q)
    if m and not _DIRECTIVE.match(m.group("p")):
        return _tidy(m.group("p")), "stated"
    m = _STANCE_ON.search(q)
    if m:
        wants = {
            "defending": "should stand",
            "supporting": "should stand",
            "upholding": "should stand",
        }
        said = f"{_tidy(m.group('x'))} {wants.get(m.group('how').lower(), 'cannot stand')}"
        on = _tidy(m.group("on") or "")
        return (f"{said}, on {on}" if on else said), "stated"
    m = _WHETHER.search(q)
    if m:
        return "whether " + _tidy(m.group("p")), "whether"
    asked = [s for s in _sentences(q) if s.endswith("?")]
    for sentence in reversed(asked):
        tail = re.split(r"\s[-–—]\s|:\s+", sentence)[-1]
        issue = issue_of(tail)
        if issue:
            return _tidy(issue), "question"
        if re.match(rf"^(?:{_AUX})\s", tail, re.I):
            return _tidy(tail), "question"
    m = _THEIR_CASE.search(q)
    if m:
        who = _tidy(m.group("who"))
        return f"against what {who} says: {_tidy(m.group('p'))}", "their case"
    m = _TOPIC.search(q)
    if m:
        return _tidy(m.group("p")), "topic"
    # Otherwise the question less its instructions ("Find authorities …", "Brief.").
    kept = [
        _LEADING_SIDE.sub("", s)
        for s in _sentences(q)
        if not _DIRECTIVE.match(_LEADING_SIDE.sub("", s))
        and _LEADING_SIDE.sub("", s)
        and not _SIDE_SENTENCE.search(s)
    ]
    return _tidy(" ".join(kept) or q), "question"


_COMMON_OPENERS = frozenset(
    "the a an this that these those our my we it its his her their no non where whether for "
    "there each every any all some one what when if".split()
)


def _tidy(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:-–—")
    first = re.split(r"[\s'-]", text, maxsplit=1)[0].lower()
    return text[:1].lower() + text[1:] if first in _COMMON_OPENERS else text


# --- the issue as the side's proposition ------------------------------------------------------
#
# "whether the conviction can stand", asked for the accused, is the proposition "the conviction
# cannot stand". What each side wants done to each kind of result: kept ("keep") or undone.
_RESULTS: list[tuple[str, str]] = [
    ("conviction", r"convictions?|sentences?|death sentence|order of conviction"),
    ("acquittal", r"acquittals?|order of acquittal"),
    ("bail", r"(?:anticipatory )?bail"),
    ("detention", r"detention(?: order)?|preventive detention"),
    (
        "dismissal",
        r"dismissal|termination|removal(?: from service)?|compulsory retirement|discharge|"
        r"reversion|punishment|penalty of dismissal",
    ),
    ("eviction", r"eviction(?: order| petition| decree)?|decree of eviction"),
    ("tax", r"re-?assessment(?: notice| order)?|assessment order|tax demand|demand notice"),
    ("penalty", r"penalty"),
    ("liability", r"(?:finding of )?liability|finding of negligence"),
    ("suit", r"suit|claim|plaint"),
]
_WANTS: dict[str, dict[str, str]] = {
    "conviction": {"accused": "undo", "state": "keep", "complainant": "keep"},
    "acquittal": {"accused": "keep", "state": "undo", "complainant": "undo"},
    "bail": {"accused": "keep", "state": "undo", "complainant": "undo"},
    "detention": {"accused": "undo", "state": "keep"},
    "dismissal": {"employee": "undo", "employer": "keep"},
    "eviction": {"tenant": "undo", "landlord": "keep"},
    "tax": {"assessee": "undo", "revenue": "keep"},
    "penalty": {"assessee": "undo", "revenue": "keep", "employee": "undo", "employer": "keep"},
    "liability": {"defendant": "undo", "insurer": "undo", "claimant": "keep", "plaintiff": "keep"},
    "suit": {"plaintiff": "keep", "claimant": "keep", "defendant": "undo", "insurer": "undo"},
}
# Results that are, in the proceedings that ask about them, the order under challenge.
_CHALLENGED = frozenset(
    {"conviction", "acquittal", "bail", "detention", "dismissal", "eviction", "tax", "penalty"}
)
_RESULT_RX = re.compile(
    r"^whether (?P<np>(?:(?!\b(?:can|could|will|would|should|is|are|was|were|must|may)\b)[^,;])"
    r"{0,80}?\b(?P<head>" + "|".join(f"(?:{w})" for _, w in _RESULTS) + r")\b"
    r"(?:(?!\b(?:can|could|will|would|should|is|are|was|were|must|may)\b)[^,;]){0,60}?)\s+"
    r"(?P<aux>can|could|will|would|should|is|are|was|were|must|may)\s+(?P<pred>.+)$",
    re.I,
)
# Predicates that keep a result, and those that undo it.
_KEEPS = re.compile(
    r"^(?:(?:still|likely to|able to|be able to)\s+)?(?:be\s+)?(?:stand|rest|sustain(?:ed|able)|"
    r"upheld|maintain(?:ed|able)|hold|survive|valid|lawful|legal|justified|succeed|based|enforced|"
    r"enforceable|proper|correct|granted|decreed|available|confirmed|restored|good)\b",
    re.I,
)
_UNDOES = re.compile(
    r"^(?:(?:still|likely to|able to|be able to)\s+)?(?:be\s+)?(?:reversed|disturbed|set aside|"
    r"quashed|undone|interfered with|overturned|struck down|cancell?ed|barred|void|invalid|"
    r"illegal|unlawful|vitiated|revoked|withdrawn)\b",
    re.I,
)
_NOT = {
    "can": "cannot",
    "could": "could not",
    "will": "will not",
    "would": "would not",
    "should": "should not",
    "is": "is not",
    "are": "are not",
    "was": "was not",
    "were": "were not",
    "must": "need not",
    "may": "may not",
}


def for_side(proposition: str, side: Side) -> str:
    """An issue put as "whether <a result> <can stand | be reversed …>" restated as what
    ``side`` must show ("a conviction for murder cannot rest on a dying declaration alone");
    "" when the result, the predicate or what the side wants of it is not known."""
    m = _RESULT_RX.match(proposition.strip())
    if not m or not side.known:
        return ""
    group = next(g for g, w in _RESULTS if re.fullmatch(w, m.group("head"), re.I))
    wish = _WANTS[group].get(side.role)
    if wish is None and side.role in POSITIONS and group in _CHALLENGED:
        # Only a position is known: a detention, conviction or dismissal is what the appellant
        # or petitioner challenges, and what the respondent defends.
        wish = "keep" if side.role == "respondent" else "undo"
    # "… can be sustained or should it be altered to 324": the first alternative is the issue.
    pred = re.split(
        r",?\s+or\s+(?:should|must|can|could|is|are|will|would|whether|does)\b", m.group("pred")
    )[0]
    pred = pred.strip()
    keeps = _KEEPS.match(pred)
    undoes = _UNDOES.match(pred)
    if not wish or bool(keeps) == bool(undoes):
        return ""
    yes = (wish == "keep") == bool(keeps)
    aux = m.group("aux").lower()
    said = aux if yes else _NOT[aux]
    return f"{m.group('np').strip()} {said} {pred}"


_UNTIL_VERB = r"(?=\s*(?:[.;:?!,]|$)|\s+(?:was|were|is|are|has|have|had|and|but|which|that)\b)"
_CHARGED_WITH = re.compile(rf"\bcharged with (?P<what>[^.;:?!]{{3,120}}?){_UNTIL_VERB}", re.I)
_CLAIM_FOR = re.compile(
    rf"\b(?:a|the|his|her|their|its|our) claim for (?P<what>[^.;:?!]{{3,120}}?){_UNTIL_VERB}", re.I
)


def _name_the_charge(proposition: str, question: str) -> str:
    """ "whether the charge can stand …" says which charge when the facts do ("charged with
    cruelty under section 498A IPC"): the charge or claim is the issue."""
    for rx, word in ((_CHARGED_WITH, "charge"), (_CLAIM_FOR, "claim")):
        hit = rx.search(question)
        if hit and re.search(rf"\bthe {word}\b", proposition, re.I):
            what = hit.group("what").strip()
            joiner = "of" if word == "charge" else "for"
            return re.sub(
                rf"\bthe {word}\b", f"the {word} {joiner} {what}", proposition, count=1, flags=re.I
            )
    return proposition


def read_question(question: str) -> Reading:
    side = read_side(question)
    proposition, how = read_proposition(question)
    proposition = _name_the_charge(proposition, " ".join(question.split()))
    if how in ("whether", "question"):
        mine = for_side(proposition, side)
        if mine:
            proposition, how = mine, f"{how}, for the side"
    return Reading(
        side=side,
        proposition=proposition,
        proposition_from=how,
        fact_pattern=bool(is_fact_pattern(question)),
        choices=[] if side.known else side_choices(question),
    )
