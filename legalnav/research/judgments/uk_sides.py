"""The sides of a Court of Appeal (England and Wales) transcript: who appeals and who answers,
what each side was below ("Appellant (Defendant)", "Claimant/Respondent", "for the
Appellants/Defendants"), whether it is a public body, and what the text calls it ("an appeal by
the defendant", "the claimant and appellant", "committing Mr X to prison")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from legalnav.research.judgments.parties import APPEAL_BY_LABEL, STATE_PARTY, label_of

# --- the "Between:" block ------------------------------------------------------------------------

# A role word of the header: where a party stands in the appeal or stood below.
_ROLE_WORD = (
    r"appellant(?:\s?s)?|respondent(?:\s?s)?|claimants?|defendants?|applicants?|petitioners?|"
    r"interested\s+part(?:y|ies)|interested|part(?:y|ies)|interveners?|intervenors?|"
    r"third\s+part(?:y|ies)|part\s+20\s+defendants?|additional\s+part(?:y|ies)|"
    r"proposed\s+interveners?|appellants?\s*/\s*applicants?"
)
_ORDINAL = r"(?:\d+\s?(?:st|nd|rd|th)\b|first|second|third|fourth|fifth|sixth|seventh|eighth)"
_ROLE_PIECE = rf"\(?\s*(?:{_ORDINAL}\s+)?(?:{_ROLE_WORD})\s*\)?"
# A line that is only role words: "Respondent (Claimant)", "Claimant/", "Defendant/ Respondent",
# "Claimant and Respondent", "Second", "1st Respondent and", "Respondents/".
_ROLE_LINE = re.compile(
    rf"^(?:{_ROLE_PIECE}|{_ORDINAL})(?:\s*(?:/|,|&|\band\b)?\s*(?:{_ROLE_PIECE}|{_ORDINAL}))*"
    # what the parties are to each other, after the roles: "Claimant/Appellant/Tenant"
    r"(?:\s*/\s*[A-Za-z][A-Za-z-]{2,24}s?)?"
    r"\s*(?:/|\band\b)?\s*(?:[-–—]\s*)*$",
    re.I,
)
# A name line with its role at the end ("XDE Appellant", "Secretary of State … Respondent - - -").
_TRAILING_ROLE = re.compile(
    rf"^(?P<name>.*?\S)\s+(?P<role>(?:{_ORDINAL}\s+)?(?:appellants?|respondents?|claimants?|"
    rf"defendants?|applicants?|interveners?|interested\s+part(?:y|ies))(?:\s*(?:/|\band\b)\s*"
    rf"(?:{_ROLE_PIECE}))*)\s*(?:/|\band\b)?\s*(?:[-–—]\s*)*$",
    re.I,
)
# "- and -", "-and-", "and", "- v –", "- and – Shelter": the next party group.
_AND_LINE = re.compile(
    r"^\s*(?:[-–—]+\s*(?:and|v|vs)\b\.?|(?:and|v|vs)\.?\s*(?:[-–—]|$))\s*[-–—]*\s*(?P<rest>.*)$",
    re.I,
)
_INLINE_AND = re.compile(r"\s+[-–—]+\s*and\s*[-–—]+\s+", re.I)
# "Between:", also printed letter-spaced ("B E T W E E N:").
_BETWEEN = re.compile(r"\b(?:Between|B E T W E E N)\s*:?[ \t]*\n", re.I)
_RULE = re.compile(r"^[ \t]*-\s*-\s*-[-\s]*$", re.M)
# Where the parties end: a rule of dashes, counsel's appearances, the hearing date.
_BLOCK_END = re.compile(
    r"^\s*(?:-\s*-\s*-|(?:And|and)\s+between\b|Between\b|BETWEEN\b|B E T W E E N\b|Case No|Claim No|Hearing\b|"
    r"Approved Judgment|APPROVED JUDGMENT|Judgment\b|JUDGMENT\b|Before\b|IN THE COURT OF|"
    r"ON APPEAL FROM)|"
    r".*(?:\(instructed\b|\bappeared\b|\bin person\b|\bQC\b(?:\s*,|.*\band\b)|"
    r"\bfor the (?:Appellant|Respondent|Claimant|Defendant|Applicant)s?\b)",
    re.M,
)
# A name continues on the next line: "THE SECRETARY OF STATE FOR THE HOME / DEPARTMENT",
# "THE COMMISSIONERS FOR / HER MAJESTY'S REVENUE AND CUSTOMS", "… Local / Government".
_ENDS_OPEN = re.compile(r"(?:\b(?:of|for|the|and|on|in|to|de|du|la|le)|[&,(/-])\s*$", re.I)
_TAIL_START = re.compile(
    r"^(?:\(?(?i:Ltd|Limited|plc|LLP|LP|Inc|GmbH|AG|SA|S\.?A\.?|BV|NV|SpA|S\.?L\.?|Corporation|"
    r"Company|Department|Government|Revenue|Customs|Trust|Services|Group|Holdings|"
    r"Championships|Borough|Council|Authority|Commission|Agency)\b\)?|[a-z]|\((?!\s*\d))|"
    r"^(?i:of|for|and|&|on the application of)\b"
)
_NUMBERED = re.compile(r"^\(\s*\d+\s*\)\s*")
_TRAILING_ORDINAL = re.compile(rf"\s+(?:{_ORDINAL}|\d\s*(?:st|nd|rd|th))$", re.I)


@dataclass(slots=True)
class UkSide:
    """One party group of the header: its names, where it stands in the appeal ("appellant",
    "respondent", "other" for an intervener or interested party, "" when not said) and what it
    was below ("claimant", "defendant", "applicant", "petitioner", "third party", …)."""

    names: list[str] = field(default_factory=list)
    position: str = ""
    below: str = ""


Tokens = list[tuple[str, bool]]


def _role_tokens(line: str) -> Tokens:
    """("appellant", False), ("defendant", True): each role word of a role line, and whether it
    is in brackets (what the party was below)."""
    out: Tokens = []
    depth = 0
    for m in re.finditer(rf"\(|\)|{_ROLE_WORD}", line, re.I):
        word = m.group(0).lower()
        if word == "(":
            depth += 1
            continue
        if word == ")":
            depth = max(0, depth - 1)
            continue
        word = " ".join(word.split())
        if word.startswith("interested") or word in ("party", "parties"):
            word = "interested party"
        elif word.startswith(("intervener", "intervenor", "proposed")):
            word = "intervener"
        elif word.startswith(("third part", "part 20", "additional")):
            word = "third party"
        elif "/" in word:
            word = "appellant"
        else:
            word = word.replace(" ", "")
            word = word[:-1] if word.endswith("s") else word
        out.append((word, depth > 0))
    return out


def _below_judges(header: str) -> tuple[str, str | None] | None:
    """(the header after the rule of dashes below the judges, the lines up to the next rule:
    None when there is none), or None without such a rule."""
    before = re.search(r"\bBefore\s*:?", header, re.I)
    rule = _RULE.search(header, before.end() if before else 0)
    if not rule:
        return None
    rest = header[rule.end() :]
    following = _RULE.search(rest)
    return rest, rest[: following.start()] if following else None


def _block(header: str) -> str:
    """The lines naming the parties: after "Between:", or (a header without it) between the
    rules of dashes below the judges when they hold an "-and-" or "- v -" line."""
    m = _BETWEEN.search(header)
    if m:
        rest = header[m.end() :]
    else:
        below = _below_judges(header)
        if below is None:
            return ""
        rest, piece = below
        piece = rest[:1500] if piece is None else piece
        if not any(_AND_LINE.match(" ".join(ln.split())) for ln in piece.split("\n")):
            return ""
    # "Between: / Case No. A2/2019/0240 / THE FOREIGN AND COMMONWEALTH OFFICE …"
    rest = re.sub(r"^\s*Case No\.?:?[^\n]*\n", "", rest, flags=re.I)
    # "Claimants/Respondents -and-": the "-and-" on a line of its own
    rest = re.sub(r"(?<=\S)[ \t]+([-–]\s*and\s*[-–])[ \t]*$", r"\n\1", rest, flags=re.M | re.I)
    end = _BLOCK_END.search(rest)
    return rest[: end.start()] if end else rest[:2000]


def _is_role_line(line: str) -> bool:
    line = line.lstrip("/ ")
    return bool(_ROLE_LINE.match(line)) and bool(re.search(rf"{_ROLE_WORD}|{_ORDINAL}", line, re.I))


def _ends_open(line: str) -> bool:
    return bool(re.search(r"(?:/|\band)\s*(?:[-–—]\s*)*$", line, re.I))


# One group of the block, in order: ("name", "KB (JAMAICA)") and ("role", tokens) items.
Item = tuple[str, "str | Tokens"]


def _groups(block: str) -> list[list[Item]]:
    groups: list[list[Item]] = [[]]
    pending_open = False
    lines: list[str] = []
    for raw in block.split("\n"):
        lines.extend(_INLINE_AND.sub("\n- and -\n", raw).split("\n"))
    for raw in lines:
        line = " ".join(raw.split()).strip()
        if not line or re.fullmatch(r"[-–—\s]+|\(\s*\d+\s*\)|\[\d+\]|s", line):
            continue  # a rule, a bare "(2)", the "s" of a broken "Respondent s"
        joined = _AND_LINE.match(line)
        if joined and not _is_role_line(line):
            groups.append([])
            pending_open = False
            line = joined.group("rest").strip(" -–—")
            if not line:
                continue
        items = groups[-1]
        if _is_role_line(line):
            tokens = _role_tokens(line)
            last = items[-1] if items else None
            if pending_open and last is not None and last[0] == "role":
                last[1].extend(tokens)  # type: ignore[union-attr]
            elif tokens:
                items.append(("role", tokens))
            pending_open = _ends_open(line)
            continue
        trailing = _TRAILING_ROLE.match(line)
        role_after: Tokens = []
        if trailing:
            line = trailing.group("name").strip()
            role_after = _role_tokens(trailing.group("role"))
        line = _TRAILING_ORDINAL.sub("", line).strip()
        names = [i for i in items if i[0] == "name"]
        if line:
            last_name = str(names[-1][1]) if names else ""
            if last_name and (
                last_name.count("(") > last_name.count(")")
                or _ENDS_OPEN.search(last_name)
                or _TAIL_START.match(line)
            ):
                at = max(i for i, it in enumerate(items) if it[0] == "name")
                items[at] = ("name", f"{last_name} {line}")
            else:
                items.append(("name", line))
        if role_after:
            items.append(("role", role_after))
            pending_open = _ends_open(raw.strip())
    return [g for g in groups if g]


def _names(items: list[Item]) -> list[str]:
    names = (_NUMBERED.sub("", str(v)).strip(" ;") for k, v in items if k == "name")
    return [n for n in names if n]


def _roles(items: list[Item]) -> list[Tokens]:
    return [v for k, v in items if k == "role"]  # type: ignore[misc]


def uk_sides(header: str) -> list[UkSide]:
    """The party groups of the first case in the "Between:" block, in the header's order."""
    block = _block(header)
    if not block:
        return []
    groups = _groups(block)
    # A second case listed straight after the first ("… Respondent / MOHAMMED ABDUL MUBARAK /
    # Appellant"): names after the respondents' role that end in an appellant's role start it.
    for gi, items in enumerate(groups):
        at_kinds = [
            (i, _kind(v))  # type: ignore[arg-type]
            for i, (k, v) in enumerate(items)
            if k == "role"
        ]
        for (i, kind), (_j, later) in zip(at_kinds, at_kinds[1:], strict=False):
            prior = any(_kind(r) == "appellant" for g in groups[:gi] for r in _roles(g))
            if kind == "respondent" and later == "appellant" and prior:
                groups = [*groups[:gi], items[: i + 1]]
                break
        else:
            continue
        break
    # Role lines printed together at the end of a later group belong, in order, to the groups
    # above that have none ("SSAFA / MoD -and- AKV  Respondents/Defendants  Appellant/Third Party").
    for gi, items in enumerate(groups):
        bare = [j for j in range(gi) if not _roles(groups[j]) and _names(groups[j])]
        roles = _roles(items)
        while len(roles) > 1 and bare and len({_kind(r) for r in roles}) > 1:
            moved = roles.pop(0)
            items.remove(("role", moved))
            groups[bare.pop(0)].append(("role", moved))
    sides: list[UkSide] = []
    for items in groups:
        names, roles = _names(items), _roles(items)
        kinds = [_kind(r) for r in roles]
        paired = set(kinds) & {"interested party", "intervener"} or {
            "appellant",
            "respondent",
        } <= set(kinds)
        if len(roles) > 1 and paired and len(names) == len(roles):
            # One name to each role: "MENDIP DISTRICT COUNCIL / NORTON ST PHILIP PARISH COUNCIL
            # / Respondent / Interested Party".
            for name, role in zip(names, roles, strict=True):
                sides.append(_side([name], [role]))
            continue
        sides.append(_side(names, roles))
    return [s for s in sides if s.names]


def _kind(tokens: Tokens) -> str:
    words = [w for w, below in tokens if not below]
    for w in ("appellant", "respondent", "interested party", "intervener"):
        if w in words:
            return w
    return words[0] if words else (tokens[0][0] if tokens else "")


_POSITION_OF = {"appellant": "appellant", "respondent": "respondent"}
_BELOW = ("claimant", "defendant", "applicant", "petitioner", "third party")


def _side(names: list[str], roles: list[Tokens]) -> UkSide:
    side = UkSide(names=names)
    flat = [t for r in roles for t in r]
    unbracketed = [w for w, below in flat if not below]
    for w in unbracketed:
        if w in _POSITION_OF:
            side.position = _POSITION_OF[w]
            break
        if w in ("interested party", "intervener"):
            side.position = "other"
            break
    for w, bracketed in flat:
        if bracketed and w in (*_BELOW, "respondent", "appellant"):
            side.below = w  # "Respondent (Claimant)", "Respondent (Respondent)" below
            break
    if not side.below:
        side.below = next((w for w in unbracketed if w in _BELOW), "")
    return side


def uk_parties(header: str) -> tuple[list[str], list[str]]:
    """(appellants, respondents) from the "Between:" block of a Court of Appeal transcript."""
    parties = uk_parties_of(header)
    return parties.appellants, parties.respondents


def _positioned(sides: list[UkSide]) -> tuple[UkSide | None, UkSide | None]:
    """The appellants' and the respondents' groups: those the header says; when it names only
    one of them, the other party to the appeal takes the other place; when it names neither,
    the header's order stands (the first group appeals)."""
    parties = [s for s in sides if s.position != "other"]
    appellant = next((s for s in parties if s.position == "appellant"), None)
    respondent = next((s for s in parties if s.position == "respondent"), None)
    if appellant is None:
        # "Claimant and Respondent" / "Defendant": the other party to the appeal appeals; an
        # applicant or petitioner (for permission, to reopen) stands where an appellant does.
        rest = [s for s in parties if s is not respondent]
        appellant = next((s for s in rest if s.below in ("applicant", "petitioner")), None) or (
            rest[0] if rest else None
        )
    if respondent is None:
        rest = [s for s in parties if s is not appellant]
        respondent = rest[0] if rest else None
    return appellant, respondent


_COUNSEL = re.compile(r"\b(?:for the|instructed by|appeared|in person)\b", re.I)


def uk_title(header: str) -> str:
    """A transcript's title where its header names no parties ("Re M (Declaration of Death of
    Child)", "B (A Child) (Abduction: Article 13(b))", "Cases A, B and C (Adoption: …)"): the
    lines between the rule below the judges and the next rule, when they hold no "-and-" line
    and no counsel's appearance; "" otherwise."""
    below = _below_judges(header)
    if below is None or not below[1]:
        return ""
    lines = [" ".join(ln.split()) for ln in below[1].split("\n")]
    lines = [ln for ln in lines if ln]
    if lines and re.fullmatch(r"Between\s*:?", lines[0], re.I):
        lines = lines[1:]
    title = " ".join(lines)
    if (
        not title
        or len(title) > 200
        or any(_AND_LINE.match(ln) for ln in lines)
        or _COUNSEL.search(title)
    ):
        return ""
    return re.sub(r"^Re\s*:\s*", "Re ", title, flags=re.I)


def uk_case_name(sides: list[UkSide]) -> str:
    """ "X v Y": the first two groups in the header's order."""
    parties = [s for s in sides if s.position != "other"]
    if len(parties) < 2:
        return ""
    return f"{parties[0].names[0]} v {parties[1].names[0]}"[:300]


# --- who each side is ----------------------------------------------------------------------------

# Public bodies as UK headers name them (the general list, STATE_PARTY, is in parties.py).
UK_PUBLIC_BODY = re.compile(
    r"\b(?:Secretary of State|Home Office|Home Department|Commissioners for (?:Her|His) Majesty|"
    r"Revenue and Customs|HMRC|London Borough|Royal Borough|Borough of|Mayor and (?:Burgesses|"
    r"Commonalty)|(?:City|County|District|Borough|Parish|Town|Metropolitan|Unitary)\s+Council|"
    r"Council of the|Chief Constable|Commissioner of Police|Governor of|Lord Chancellor|"
    r"Attorney General|Director of Public Prosecutions|Crown Prosecution|HM Treasury|Treasury|"
    r"Upper Tribunal|First-tier Tribunal|Ministry of|Department (?:for|of)|Environment Agency|"
    r"Legal Aid Agency|National Crime Agency|Financial Conduct Authority|Prudential Regulation|"
    r"Information Commissioner|Health and Safety Executive|Welsh Ministers|Scottish Ministers|"
    r"Council\b)",
    re.I,
)
REVENUE_BODY = re.compile(
    r"\b(?:Revenue and Customs|HMRC|Inland Revenue|Commissioners of (?:Customs|Inland Revenue)|"
    r"Commissioners for (?:Her|His) Majesty)",
    re.I,
)


def uk_party_role(names: list[str]) -> str:
    """ "state" when a party of the side is a public body (a council, a Secretary of State,
    HMRC, a tribunal whose decision is under review), else "private"; "" with no names."""
    if not names:
        return ""
    for name in names:
        if re.search(r"\bon the application of\b", name, re.I):
            continue  # "R (on the application of X)": the claimant, a private party
        if UK_PUBLIC_BODY.search(name) or STATE_PARTY.search(name):
            return "state"
    return "private"


def judicial_review_roles(
    appellants: list[str], respondents: list[str], roles: tuple[str, str]
) -> tuple[str, str]:
    """(appellant's, respondent's) role in a claim for judicial review ("R (on the application
    of X) v Y"): only a public body's decision can be reviewed, so the side that is not the
    applicant is the State's, whatever its name ("the Office for Students"); other cases as
    ``roles`` gives them."""
    a = any(_JUDICIAL_REVIEW.search(n) for n in appellants)
    r = any(_JUDICIAL_REVIEW.search(n) for n in respondents)
    if a and not r and respondents:
        return "private", "state"
    if r and not a and appellants:
        return "state", "private"
    return roles


# --- what each side was below, from the header's counsel lines and the text ------------------------

_POS = r"(?P<pos>appellants?|respondents?)"
_BELOW_WORD = r"(?P<below>claimants?|defendants?)"
_COUNSEL_ROLES = [
    # "for the Appellants/Defendants", "for the Respondent/Claimant"
    re.compile(rf"\bfor the {_POS}\s*/\s*{_BELOW_WORD}\b", re.I),
    # "for the Claimants/Appellants", "on behalf of the Claimant/Respondent"
    re.compile(rf"\b(?:for|of) the {_BELOW_WORD}\s*(?:/|and)\s*{_POS}\b", re.I),
]
_Q = r"[“”\"']?"
_ORD = r"(?:first |second |third |fourth |\d\w* )?"
_TEXT_ROLES = [
    # "the claimant and appellant, Ms O'Neill", "The claimants, and respondents to the appeal"
    # (no article after "and": "the Respondent and the First Defendant" are two parties)
    re.compile(rf"\bthe {_ORD}{_BELOW_WORD},? and {_POS}\b", re.I),
    # "the appellant and defendant"
    re.compile(rf"\bthe {_POS},? and {_BELOW_WORD}\b", re.I),
    # "the Appellant”) (the Second Defendant to the proceedings)", "the respondent (claimant)"
    re.compile(rf"\bthe {_POS}{_Q}\)?,?\s*\(\s*(?:the )?{_ORD}{_BELOW_WORD}\b", re.I),
    # "the defendant (the appellant)", "the Claimant (“the Respondent”)"
    re.compile(rf"\bthe {_ORD}{_BELOW_WORD}\s*\(\s*{_Q}(?:the )?{_POS}{_Q}\s*\)", re.I),
    # "The appellant, the claimant in the court below, contends", "the respondent, who was the
    # defendant below"
    re.compile(
        rf"\bthe {_POS},\s+(?:who\s+was\s+)?the {_ORD}{_BELOW_WORD}\s+"
        r"(?:in\s+the\s+court\s+below|below|at\s+(?:first\s+instance|trial))\b",
        re.I,
    ),
]
# "The Queen on the application of RS", "R (on the application of X)": a claim for judicial
# review, whose applicant is the claimant.
_JUDICIAL_REVIEW = re.compile(r"\bon\s+the\s+application\s+of\b", re.I)
# "This is an appeal by the defendant", "the claimant's appeal", "the Defendants appeal".
_APPEAL_BY = re.compile(
    rf"\b(?:appeals?|application for permission to appeal)\s+(?:is\s+)?(?:brought\s+)?by the "
    rf"(?:first |second |third |\w+ )?{_BELOW_WORD}\b|"
    r"\bthe (?:first |second )?(?P<below2>claimants?|defendants?)[’']?s?[’']? "
    r"(?:appeal|appeals (?:against|from))\b",
    re.I,
)
# "proceedings brought by the respondent", "a claim by the appellant against the respondent",
# "the respondent issued proceedings", "the appellant's claim against the respondent".
_CLAIM_BY = re.compile(
    r"\b(?:claims?|proceedings|action|suit)(?:\s+(?:for|of|in)\s+[\w-]+(?:\s+[\w-]+)?)?\s+"
    r"(?:(?:was|were|had been|has been)\s+)?(?:brought|issued|commenced|started)?\s*"
    r"by the (?P<who>appellants?|respondents?)"
    r"(?:\s+against the (?P<whom>appellants?|respondents?))?\b|"
    r"\bthe (?P<who2>appellants?|respondents?) (?:issued|brought|commenced|started) "
    r"(?:the |these |her |his |its |their )?(?:proceedings|a claim|the claim|an action|the action)"
    r"(?: against the (?P<whom2>appellants?|respondents?))?\b|"
    r"\bthe (?P<who3>appellants?|respondents?)[’']s?[’']? claim (?:\w+ ){0,3}?against the "
    r"(?P<whom3>appellants?|respondents?)\b",
    re.I,
)


# Words of a party's name that say nothing of who it is.
_NAME_NOISE = frozenset(
    "the of and for in on at by mr ms mrs miss dr sir dame lord lady limited ltd plc llp inc "
    "company co group holdings a an as firm trustees trustee joint estate deceased council "
    "borough london secretary state home department commissioners majesty revenue customs "
    "queen application by his her their litigation friend child children ors others another "
    "anr".split()
)
_ALIAS = re.compile(
    r"(?P<before>[^()\n]{0,80}?)\(\s*[“\"](?P<alias>(?:the )?[A-Z][^”\"]{1,30})[”\"]\s*\)"
)


def name_keys(appellants: list[str], respondents: list[str], text: str) -> dict[str, set[str]]:
    """Words that name each side in the text: the distinctive words of its names ("Holt",
    "Andrew") and the short names the judgment defines for them ("the Firm", "the Council")."""

    def words(names: list[str]) -> set[str]:
        out = set()
        for name in names:
            name = re.sub(r"\(.*?\)", " ", name)
            for w in re.findall(r"[A-Za-z][\w’'-]{2,}", name):
                if w.lower() not in _NAME_NOISE:
                    out.add(w[:1].upper() + w[1:].lower())
        return out

    a, r = words(appellants), words(respondents)
    keys = {"appellant": a - r, "respondent": r - a}
    for m in _ALIAS.finditer(text[:20000]):
        alias = m.group("alias").strip()
        if re.fullmatch(
            r"(?:the )?(?:appellants?|respondents?|judge|court|act|rules?)", alias, re.I
        ):
            continue
        before = set(re.findall(r"[A-Za-z][\w’'-]{2,}", m.group("before")))
        before = {w[:1].upper() + w[1:].lower() for w in before}
        owners = [k for k in keys if before & keys[k]]
        if len(owners) == 1:
            keys[owners[0]].add(alias)
    return keys


def _named_claims(keys: dict[str, set[str]], body: str) -> list[tuple[str, str]]:
    """(claimant's side, defendant's side) for each sentence that says who sued whom by name:
    "Ms Holt’s claim for professional negligence against the Firm", "Andrew brought these
    proceedings against David and Josephine"."""
    if not keys["appellant"] or not keys["respondent"]:
        return []
    title = r"(?:(?:Mr|Ms|Mrs|Miss|Dr|Sir|Dame)\.?\s+)?"

    def alt(side: str) -> str:
        return "|".join(re.escape(k) for k in sorted(keys[side], key=len, reverse=True))

    out: list[tuple[str, str]] = []
    for x, y in (("appellant", "respondent"), ("respondent", "appellant")):
        X, Y = rf"{title}(?:{alt(x)})\b", rf"{title}(?:{alt(y)})\b"
        rx = re.compile(
            rf"{X}[’']s? claims? (?:[\w-]+ ){{0,6}}?against {Y}|"
            rf"{X} (?:brought|issued|commenced|started|began) (?:[\w-]+ ){{0,3}}?(?:proceedings|"
            rf"claims?|an action|action|suit) against {Y}|"
            rf"\bclaims? (?:brought |made )?by {X} against {Y}|{Y} (?:was|were) sued by {X}|"
            rf"{X} sued {Y}"
        )
        out.extend((x, y) for _ in rx.finditer(body))
    return out


def _norm(word: str) -> str:
    w = word.lower()
    return w[:-1] if w.endswith("s") else w


def _votes(
    header: str, text: str, appellants: list[str], respondents: list[str]
) -> dict[str, dict[str, int]]:
    """What counsel's lines and the text say each appeal side was below: {"appellant":
    {"defendant": 3}, "respondent": {"claimant": 1}}."""
    votes: dict[str, dict[str, int]] = {"appellant": {}, "respondent": {}}

    def vote(pos: str, below: str, weight: int = 1) -> None:
        pos, below = _norm(pos), _norm(below)
        votes[pos][below] = votes[pos].get(below, 0) + weight

    for rx in _COUNSEL_ROLES:
        for m in rx.finditer(header):
            vote(m.group("pos"), m.group("below"), 3)
    for pos, names in (("appellant", appellants), ("respondent", respondents)):
        if any(_JUDICIAL_REVIEW.search(n) for n in names):
            vote(pos, "claimant", 3)
    body = _body(header, text)[:30000]
    for rx in _TEXT_ROLES:
        for m in rx.finditer(body):
            vote(m.group("pos"), m.group("below"))
    for m in _CLAIM_BY.finditer(body):
        who = m.group("who") or m.group("who2") or m.group("who3")
        whom = m.group("whom") or m.group("whom2") or m.group("whom3")
        vote(who, "claimant")
        if whom and _norm(whom) != _norm(who):
            vote(whom, "defendant")
    for m in _APPEAL_BY.finditer(body[:8000]):
        vote("appellant", m.group("below") or m.group("below2") or "", 2)
    for claimant, defendant in _named_claims(name_keys(appellants, respondents, body), body):
        vote(claimant, "claimant")
        vote(defendant, "defendant")
    return votes


def _body(header: str, text: str) -> str:
    """The text below the header (all of it when the text is given without its header)."""
    return text[len(header) :] if header and text.startswith(header) else text


def _winner(tally: dict[str, int]) -> str:
    ranked = sorted(tally.items(), key=lambda kv: -kv[1])
    if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        return ranked[0][0]
    return ""


@dataclass(slots=True)
class UkParties:
    """The parties of a transcript: who appeals, who answers, and what each was below."""

    appellants: list[str] = field(default_factory=list)
    respondents: list[str] = field(default_factory=list)
    appellant_below: str = ""  # "claimant" | "defendant" | ""
    respondent_below: str = ""
    case_name: str = ""


def uk_parties_of(header: str, text: str = "") -> UkParties:
    """The header's parties, placed in the appeal, with what each side was below: the
    header's own words first ("Appellant (Defendant)", "Claimant/Respondent"), then counsel's
    lines ("for the Appellants/Defendants"), then the text ("an appeal by the defendant", "the
    claimant and appellant", "proceedings brought by the respondent"). A side found leaves the
    other side the opposite role; when the text contradicts itself nothing is said."""
    sides = uk_sides(header)
    appellant, respondent = _positioned(sides)
    explicit = any(s.position in ("appellant", "respondent") for s in sides)
    votes = _votes(
        header, text, appellant.names if appellant else [], respondent.names if respondent else []
    )
    said = {"appellant": _winner(votes["appellant"]), "respondent": _winner(votes["respondent"])}
    trust_below = True
    if not explicit:
        # "Claimants / Defendant" only: the text says who appeals ("an appeal by the
        # defendant"); the group that was that party below is the appellant. Otherwise the
        # header's order stands, and its "Claimant" says nothing of who appealed.
        groups = [s for s in sides if s.position != "other"]
        by_below = {s.below: s for s in groups if s.below in ("claimant", "defendant")}
        mover = said["appellant"] or _OPPOSITE.get(said["respondent"], "")
        if mover in by_below and _OPPOSITE[mover] in by_below:
            appellant, respondent = by_below[mover], by_below[_OPPOSITE[mover]]
        else:
            trust_below = False
    header_below = {
        "appellant": appellant.below if appellant and trust_below else "",
        "respondent": respondent.below if respondent and trust_below else "",
    }
    found = {k: v if v in ("claimant", "defendant") else "" for k, v in header_below.items()}
    for pos in ("appellant", "respondent"):
        if not header_below[pos] and said[pos]:
            found[pos] = said[pos]
    a, r = found["appellant"], found["respondent"]
    if a and a == r:
        a = r = ""  # the text contradicts itself: say nothing
    two = len([x for x in sides if x.position != "other"]) == 2
    if two and a and not r and not votes["respondent"] and not header_below["respondent"]:
        r = _OPPOSITE[a]
    if two and r and not a and not votes["appellant"] and not header_below["appellant"]:
        a = _OPPOSITE[r]
    return UkParties(
        appellants=appellant.names if appellant else [],
        respondents=respondent.names if respondent else [],
        appellant_below=a,
        respondent_below=r,
        case_name=uk_case_name(sides),
    )


_OPPOSITE = {"claimant": "defendant", "defendant": "claimant"}


# --- the alleged contemnor -------------------------------------------------------------------------

_CONTEMPT = re.compile(
    r"\b(?:contempt|committal|commit(?:ted|ting)? (?:\w+ ){1,3}to prison)\b", re.I
)
_CONTEMNOR_APPEALS = re.compile(
    # "an appeal by Rizwan Hussain against an order … committing Mr Hussain to prison", "appeals by
    # Mr McKay from two orders … in proceedings for civil contempt of court brought against him",
    # "an appeal by the defendant … against an order of committal"
    r"\bappeals?\s+(?:is\s+)?(?:brought\s+)?by\b[^.]{0,100}?\b(?:against|from)\b[^.]{0,160}?"
    r"(?:\bcommittal\b|\bcommitting\b|\bcontempt\b)|"
    r"\b(?:the )?appellants?\b[^.]{0,40}?\b(?:was|were|had been|has been|is)\s+(?:found|held)\s+"
    r"(?:to (?:be|have been) )?(?:guilty of |in )?contempt\b|"
    r"\bcommit(?:ted|ting)? the appellants? to prison\b|\bthe appellant'?s'? committal\b|"
    r"\bthe (?:appellant[- ]contemnor|contemnor[- ]appellant|"
    r"appellants?,? the (?:alleged )?contemnors?)\b",
    re.I,
)
_CONTEMNOR_ANSWERS = re.compile(
    r"\b(?:the )?respondents?\b[^.]{0,40}?\b(?:was|were|had been|has been|is)\s+(?:found|held)\s+"
    r"(?:to (?:be|have been) )?(?:guilty of |in )?contempt\b|"
    r"\b(?:committal application|application (?:for committal|to commit))\s+(?:\w+\s+){0,3}?"
    r"against the respondents?\b|\bcommit(?:ted|ting)? the respondents? to prison\b|"
    # the applicant appeals against a refusal to commit
    r"\b(?:refus\w+|declin\w+|dismiss\w+) (?:to commit|to (?:find|hold)\b[^.]{0,40}?\bcontempt|"
    r"(?:the|an|its|his|her|their) (?:committal )?application (?:for committal|to commit)|"
    r"(?:the|an|its|his|her|their) committal application)\b",
    re.I,
)


def contemnor_position(text: str) -> str:
    """Where the party said to be in contempt sits on a committal appeal: "appellant",
    "respondent" or "" (no committal, or the text says both)."""
    opening = text[:12000]
    if not _CONTEMPT.search(opening):
        return ""
    appeals = bool(_CONTEMNOR_APPEALS.search(opening))
    answers = bool(_CONTEMNOR_ANSWERS.search(opening))
    if appeals == answers:
        return ""
    return "appellant" if appeals else "respondent"


# --- what the text calls each side -----------------------------------------------------------------


# The opening of a judgment's body, where it says whose appeal it is.
_OPENING_CHARS = 8000


def uk_labels(header: str, text: str, parties: UkParties) -> tuple[list[str], list[str]]:
    """Words for each side beyond the general ones (see parties.party_labels): what it was
    below, "contemnor" on a committal appeal, "revenue" for HMRC, and the short name the
    judgment gives it when that is a party word ("the Landlord", "the taxpayers")."""
    body = _body(header, text)
    out: dict[str, list[str]] = {"appellant": [], "respondent": []}
    out["appellant"].append(parties.appellant_below)
    out["respondent"].append(parties.respondent_below)
    contemnor = contemnor_position(body)
    if contemnor:
        out[contemnor].append("contemnor")
    for side, names in (("appellant", parties.appellants), ("respondent", parties.respondents)):
        if any(REVENUE_BODY.search(n) for n in names):
            out[side].append("revenue")
    for m in APPEAL_BY_LABEL.finditer(body[:_OPENING_CHARS]):
        out["appellant"].append(label_of(m.group(1) or m.group(2)))  # "brought by the tenant"
    keys = name_keys(parties.appellants, parties.respondents, body)
    for side in out:
        for key in sorted(keys[side]):
            if key[:4].lower() == "the " and label_of(key[4:].strip()):
                out[side].append(label_of(key[4:].strip()))  # "(“the Landlord”)"
    return (
        [w for w in dict.fromkeys(out["appellant"]) if w],
        [w for w in dict.fromkeys(out["respondent"]) if w],
    )
