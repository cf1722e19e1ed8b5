"""The outcome: how the judgment disposed of the appeal or petition, read from its closing order."""

from __future__ import annotations

import re

OUTCOMES = ("allowed", "dismissed", "partly_allowed", "remanded", "disposed", "unknown")

# The closing order. Each pattern maps to an outcome; the last decisive statement in the text
# (the report's closing line, where there is one) wins.
_OUTCOME_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "partly_allowed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?)\s+(?:is\s+|are\s+)?(?:partly|partially)\s+allowed\b|"
            r"\b(?:allowed|allow\s+(?:the|these|this)\s+(?:appeals?|petitions?))\s+(?:in\s+part|partly|partially|to\s+(?:the|a)\s+(?:limited\s+)?extent)\b|"
            r"\b(?:appeals?|petitions?)\s+(?:succeeds?|succeed)\s+in\s+part\b",
            re.I,
        ),
    ),
    (
        "remanded",
        re.compile(
            r"\b(?:remit(?:ted)?|remand(?:ed)?|sent\s+back)\b[^.]{0,120}\b(?:for\s+(?:fresh|de\s+novo|re-?)(?:\s*\w+)?|to\s+the\s+(?:High\s+Court|Tribunal|trial\s+court))",
            re.I,
        ),
    ),
    (
        "allowed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?|writ\s+petitions?|special\s+leave\s+petitions?|reference)\s+(?:is\s+|are\s+|stands?\s+|must\s+be\s+|should\s+be\s+|is\s+accordingly\s+|are\s+accordingly\s+)?allowed\b|"
            r"\b(?:we|i|court)\s+(?:would\s+|therefore\s+|accordingly\s+|must\s+|shall\s+)?allow\s+(?:the|these|this|both)\s+(?:appeals?|petitions?|applications?)\b|"
            r"\b(?:appeals?|petitions?)\s+(?:succeeds?|succeed|must\s+succeed)\b|\brule\s+(?:is\s+)?made\s+absolute\b|"
            r"\bI\s+would\s+allow\s+(?:the|this)\s+appeal\b",
            re.I,
        ),
    ),
    (
        "dismissed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?|writ\s+petitions?|special\s+leave\s+petitions?)\s+(?:is\s+|are\s+|stands?\s+|must\s+be\s+|should\s+be\s+|is\s+accordingly\s+|are\s+accordingly\s+|being\s+devoid\s+of\s+merit,?\s+(?:is|are)\s+)?dismissed\b|"
            r"\b(?:we|i|court)\s+(?:would\s+|therefore\s+|accordingly\s+|must\s+|shall\s+)?dismiss\s+(?:the|these|this|both)\s+(?:appeals?|petitions?|applications?)\b|"
            r"\b(?:appeals?|petitions?)\s+(?:fails?|must\s+fail)\b|\brule\s+(?:is\s+)?discharged\b|"
            r"\brefuse\s+permission\s+to\s+appeal\b|\bpermission\s+to\s+appeal\s+is\s+refused\b|"
            r"\bI\s+would\s+dismiss\s+(?:the|this)\s+appeal\b",
            re.I,
        ),
    ),
    (
        "disposed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?|matters?)\s+(?:is\s+|are\s+|stands?\s+)?disposed\s+of\b|\border\s+accordingly\b",
            re.I,
        ),
    ),
]


_CLOSING_LINE = re.compile(
    r"(?:^|\n)[ \t]*((?:(?:Civil|Criminal|Writ|Special\s+Leave|Transfer|Review|Contempt)\s+)?"
    r"(?:Appeals?|Petitions?|Applications?|Matters?|Reference|Suits?)\s+(?:is\s+|are\s+)?"
    r"(?:partly\s+allowed|partially\s+allowed|allowed\s+in\s+part|allowed|dismissed|disposed\s+of|remanded|remitted)"
    r"|Order\s+accordingly)[ \t.]*\s*$",
    re.I,
)


def closing_outcome(text: str) -> tuple[str, str, int]:
    """(outcome, the words it was read from, their offset) from the closing order: the last
    decisive statement in the final part of the judgment ("Appeal dismissed.", "we allow the
    appeal", "I would dismiss the appeal"); ("unknown", "", -1) when there is none."""
    # The report's closing line ("Appeal dismissed.", "Appeals partly allowed") is decisive.
    m = _CLOSING_LINE.search(text[-300:])
    if m:
        words = m.group(1).lower()
        outcome = (
            "partly_allowed"
            if "part" in words
            else "remanded"
            if "remand" in words or "remit" in words
            else "disposed"
            if "disposed" in words or "accordingly" in words
            else "allowed"
            if "allowed" in words
            else "dismissed"
        )
        return outcome, " ".join(m.group(1).split()), len(text) - len(text[-300:]) + m.start(1)
    tail_from = max(0, len(text) - 15000)
    tail = text[tail_from:]
    best: tuple[int, str, str] | None = None  # (position, outcome, words)
    for outcome, rx in _OUTCOME_PATTERNS:
        for m in rx.finditer(tail):
            # partly/remanded win ties against plain allowed/dismissed at the same place
            pos = m.start()
            if (
                best is None
                or pos > best[0] + 40
                or (
                    pos >= best[0] - 40
                    and outcome in ("partly_allowed", "remanded")
                    and best[1] in ("allowed", "dismissed", "disposed")
                )
            ):
                best = (pos, outcome, m.group(0))
    if best is None:
        return "unknown", "", -1
    return best[1], " ".join(best[2].split()), tail_from + best[0]


# What an order that only "disposes of" the appeal did, from its operative words. In a criminal
# case: an acquittal or a conviction set aside is the accused's win; a conviction restored,
# confirmed or entered is the prosecution's. In any case: the judgment under appeal set aside is
# the appellant's win; the judgment below kept undisturbed is the respondent's.
_ACCUSED_WINS = re.compile(
    r"\b(?:(?:is|are|stand|stands)\s+acquitted|acquit\s+(?:the|him|her|them|all)|"
    r"consequent\s+upon\s+(?:their|his|her)\s+acquittal|(?:released|set\s+at\s+liberty)\s+forthwith|"
    r"(?:set\s+aside|quash)\s+the\s+(?:conviction|order\s+of\s+conviction)|"
    r"convictions?\b[^.]{0,80}?\b(?:(?:is|are)\s+(?:hereby\s+)?(?:set\s+aside|quashed)))",
    re.I,
)
_PROSECUTION_WINS = re.compile(
    r"\b(?:restore\s+the\s+(?:conviction|order\s+of\s+conviction)|we\s+(?:also\s+)?convict\b|"
    r"instead\s+convict\b|(?:confirm|maintain|uphold|alter)\s+(?:the\s+)?convictions?\b|"
    r"(?:set\s+aside|reverse)\s+the\s+(?:order\s+of\s+|judgment\s+of\s+)?acquittal|"
    r"convictions?\b[^.]{0,80}?\b(?:(?:is|are|stands?)(?:,\s*however,)?\s+(?:hereby\s+)?(?:restored|confirmed|upheld|"
    r"maintained|affirmed)))",
    re.I,
)
_APPELLANT_WINS = re.compile(
    r"\b(?:set\s+aside|quash)\s+the\s+impugned\s+(?:judgment|order)|"
    r"\bimpugned\s+(?:judgment|order)\b[^.]{0,80}?\b(?:is|are)\s+(?:hereby\s+)?(?:set\s+aside|quashed)",
    re.I,
)
_RESPONDENT_WINS = re.compile(
    r"\b(?:in\s+all\s+other\s+respects\s+it\s+is\s+kept\s+undisturbed|"
    r"(?:impugned\s+)?(?:judgment|order)\s+of\s+the\s+High\s+Court\b[^.]{0,60}?\b(?:is|are)\s+"
    r"(?:hereby\s+)?(?:upheld|affirmed|confirmed|maintained))",
    re.I,
)
_MODIFIED = re.compile(r"\bmodified\s+only\s+to\s+the\s+extent\b", re.I)


def _quoted(text: str, at: int) -> bool:
    """Whether ``at`` is inside a quotation (an order of the court below, cited): an odd number
    of double quotation marks before it in its paragraph, or a paragraph that closes a quotation."""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    before = text[line_start:at]
    rest = text[at : len(text) if line_end < 0 else line_end].rstrip()
    opened = (before.count('"') + before.count("\u201c") + before.count("\u201d")) % 2 == 1
    return opened or rest.endswith(('"', "\u201d", '."', ".\u201d"))


def operative_result(text: str, end: int = -1, *, span: int = 2500) -> tuple[str, str, int]:
    """(who won, the words it was read from, their offset) from the operative order just before
    ``end`` (the closing line; the end of the text when -1): "accused" or "prosecution" (a
    criminal order), "appellant" or "respondent" (the judgment below set aside or kept),
    "mixed" (kept but modified, or both kinds of words), or "" when nothing decisive is said."""
    stop = len(text) if end < 0 else end
    start = max(0, stop - span)
    part = text[start:stop]
    found: dict[str, re.Match[str]] = {}
    for who, rx in (
        ("accused", _ACCUSED_WINS),
        ("prosecution", _PROSECUTION_WINS),
        ("appellant", _APPELLANT_WINS),
        ("respondent", _RESPONDENT_WINS),
    ):
        hits = [m for m in rx.finditer(part) if not _quoted(part, m.start())]
        if hits:
            found[who] = hits[-1]
    if "accused" in found and "prosecution" in found:
        last = max(found["accused"].start(), found["prosecution"].start())
        m = found["accused"] if found["accused"].start() == last else found["prosecution"]
        return "mixed", " ".join(m.group(0).split()), start + m.start()
    for who in ("accused", "prosecution"):
        if who in found:
            m = found[who]
            return who, " ".join(m.group(0).split()), start + m.start()
    if "respondent" in found and _MODIFIED.search(part):
        m = _MODIFIED.search(part)
        assert m is not None
        return "mixed", " ".join(m.group(0).split()), start + m.start()
    if "appellant" in found and "respondent" not in found:
        m = found["appellant"]
        return "appellant", " ".join(m.group(0).split()), start + m.start()
    if "respondent" in found and "appellant" not in found:
        m = found["respondent"]
        return "respondent", " ".join(m.group(0).split()), start + m.start()
    return "", "", -1


# --- a Court of Appeal transcript: the lead judgment's conclusion ---------------------------------
#
# An English judgment ends with the lead judge's conclusion ("For these reasons I would dismiss
# this appeal") and the other judges' concurrences ("Lord Justice X: I agree."); a dissent ("I
# would have allowed the appeal", "I respectfully disagree") is no part of the order.

# A judge's heading: "Lord Justice Lewison:", "LADY JUSTICE CARR" alone on its line, "Sir
# Geoffrey Vos, Chancellor of the High Court:", "The Master of the Rolls:".
_JUDGE_HEADING = re.compile(
    r"^[ \t]*(?:(?:LORD|LADY|MR|MRS|MS|Lord|Lady|Mr|Mrs|Ms)\s+(?:JUSTICE|Justice)|SIR|Sir|DAME|Dame|"
    r"The\s+Lord|THE\s+LORD|Lord|LORD)[ \t]+[A-Z][\w'’\-]+(?:[ \t]+(?:of[ \t]+)?[A-Z][\w'’\-]+){0,3}"
    r"(?:[ \t]*\([^)\n]{0,80}\))?(?:,[ \t]*[A-Z][^\n:]{0,60})?[ \t]*(?::|(?=\n))"
    r"|^[ \t]*(?:The\s+Master\s+of\s+the\s+Rolls|THE\s+MASTER\s+OF\s+THE\s+ROLLS)[ \t]*(?::|(?=\n))",
    re.M,
)
# A later judge who does not agree with the lead: the section is a dissent.
_DISSENT = re.compile(
    r"\brespectfully\s+disagree\b|\b(?:am|are)\s+unable\s+to\s+agree\b|\bcannot\s+agree\b|"
    r"\bregret\s+that\s+I\s+(?:cannot|do\s+not)\b|\bdissent(?:ing)?\b|"
    r"\bI\s+would\s+have\s+(?:allowed|dismissed)\s+(?:the|this)\s+appeal\b",
    re.I,
)
# Where a lead judge says what the appeal comes to.
_CONCLUSION = re.compile(
    r"^\s*(?:\d+\.?\s*)?(?:for\s+(?:all\s+)?(?:these|those|the)\b|in\s+conclusion\b|conclusions?\b|"
    r"disposal\b|outcome\b|result\b|in\s+the\s+result\b|accordingly\b|it\s+follows\b|overall\b)",
    re.I | re.M,
)

_SUBJECT = re.compile(r"\b(?:I|we|We|WE)\b")
# Words between "I"/"we" and the verb that make the sentence no order: a hypothetical, a
# negation, an invitation ("we were asked to allow"), a question.
_NOT_DECIDING = re.compile(
    r"\b(?:not|never|have|had|could|might|may|to|whether|were|if|unless|was|invited|asked|urged)\b|n[’']t\b",
    re.I,
)
_ACTIVE = re.compile(
    r"\b(?P<verb>allow|dismiss|remit|refuse|set\s+aside|quash|substitute)\b"
    r"|\b(?P<past>allowed|dismissed)\b",
    re.I,
)
_PASSIVE = re.compile(
    r"\b(?P<noun>cross[-\s]?appeals?|appeals?|applications?|permission|matters?|case|issues?|"
    r"orders?|decisions?|determinations?)"
    r"(?:\s+(?:against|from|of|by|in|for|to|before)\s[^.;:]{0,80}?)?[\s,]+"
    r"(?P<gap>(?:(?:is|are|must|should|will|shall|would|was|be|therefore|accordingly|consequently|"
    r"hereby|also|now|duly|itself|thus|likewise|equally|similarly|simply|rightly)\b[\s,]*)+)"
    r"(?P<verb>allowed|dismissed|refused|remitted|set\s+aside|quashed)\b"
    r"|\b(?P<noun2>appeals?)\s+(?P<gap2>(?:(?:therefore|accordingly|thus|must|should|will|would|also)\s+)*)"
    r"(?P<verb2>fails?|succeeds?|fail|succeed)\b",
    re.I,
)
_OBJECT = re.compile(
    r"\b(?:cross[-\s]?appeals?|appeals?|it|them|grounds?|applications?|permission|claims?|"
    r"orders?|decisions?|determinations?|declarations?|findings?|matters?|case|issues?|petitions?)\b",
    re.I,
)
_PART = re.compile(
    r"\bin\s+part\b|\bpartly\b|\bpartially\b|\bto\s+the\s+(?:limited\s+)?extent\b|"
    r"\ballow\s+part\s+of\b|\bsave\s+(?:that|as|for|in)\b|\bbut\s+(?:not|dismiss|refuse)\b",
    re.I,
)
_JOINED = re.compile(r"(?:,\s*|\s)(?:and|but)\s+(?:would\s+)?(?:also\s+)?$", re.I)
_NOT_OBJECT = re.compile(r"\b(?:that|as|which|will|would|to|if|when)\b")
# A submission or a reason reported, not the court's order: "Mr X submitted that the appeal
# should be allowed", "a reason why permission should be refused".
_REPORTED = re.compile(
    r"\b(?:why|whether|unless|submit(?:s|ted)?|argu(?:es|ed)|contend(?:s|ed)|invit(?:es|ed)|"
    r"as(?:ks|ked)|urg(?:es|ed)|s(?:eeks|ought)|propos(?:es|ed)\s+that)\b",
    re.I,
)
_CONDITION = re.compile(r"\bif\b(?![^,]{0,60}\bagrees?\b)", re.I)
_HELD = re.compile(
    r"\b(?:held|said|concluded|decided|agreed|considered|observed|stated|found|ruled)\b", re.I
)
_HEADING_CONCLUSION = re.compile(
    r"^[ \t]*(?:\d+\.?[ \t]*)?(?:[A-Z][a-z]+[ \t]+and[ \t]+)?(?:conclusions?|disposal|outcome|result|"
    r"summary(?:[ \t]+(?:and|of)[ \t]+conclusions?)?|decision)[ \t]*:?[ \t]*$",
    re.I | re.M,
)
_PERMISSION = re.compile(r"\bpermission\b|\bleave\b|\bPTA\b", re.I)


# No sentence of an order runs longer than this either side of its verb: the search for its
# ends stops there, so a text without full stops costs linear time, not a scan per order word.
_SENTENCE_REACH = 2_000


def _sentence_bounds(text: str, at: int, lo: int, hi: int) -> tuple[int, int]:
    """The sentence around ``at``: from after the last full stop (or a line that ends one) to
    the next; a line broken mid-sentence does not end it."""
    lo, hi = max(lo, at - _SENTENCE_REACH), min(hi, at + _SENTENCE_REACH)
    start = lo
    for m in re.finditer(r"[.!?][\"”’)]*\s+|\n", text[lo:at]):
        if m.group(0) == "\n" and not _line_ends_sentence(text, lo + m.start()):
            continue
        start = lo + m.end()
    end = hi
    for m in re.finditer(r"[.!?](?=[\"”’)]*(?:\s|$))|\n", text[at:hi]):
        if m.group(0) == "\n" and not _line_ends_sentence(text, at + m.start()):
            continue
        end = at + m.end() if m.group(0) != "\n" else at + m.start()
        break
    return start, end


def _line_ends_sentence(text: str, nl: int) -> bool:
    """Whether the line break at ``nl`` ends a sentence (not a sentence broken over lines)."""
    before = text[max(0, nl - 200) : nl].rstrip()
    after = text[nl + 1 : nl + 40].lstrip()
    if not before or not after:
        return True
    if before[-1] in '.!?:;"”’)':
        return True
    if re.match(r"\d+\.?\s", after):
        return True
    return not (before[-1].isalpha() or before[-1] in ",-–")


def _uk_statement(
    text: str, m: re.Match[str], lo: int, hi: int
) -> tuple[str, str, int, int] | None:
    """(outcome, kind, sentence start, sentence end) of one order word, or None: kind is "main"
    (the appeal), "cross", "permission" or "other" (a claim or application below)."""
    s0, s1 = _sentence_bounds(text, m.start(), lo, hi)
    sentence_pre = text[s0 : m.start()]
    if m.re is _PASSIVE:
        noun = (m.group("noun") or m.group("noun2") or "").lower()
        gap = (m.group("gap") or m.group("gap2") or "").lower()
        verb = (m.group("verb") or m.group("verb2") or "").lower()
        if re.search(r"\bnot\b", sentence_pre[-60:] + gap, re.I) or _REPORTED.search(sentence_pre):
            return None
        if _CONDITION.search(sentence_pre[-100:]):
            return None  # "if the application for permission is refused on paper, …"
        if _HELD.search(sentence_pre) and not _SUBJECT.search(sentence_pre):
            return None  # another court's decision reported: "Lord Clarke agreed that …"
        said = re.search(
            r"\b(?:I|we)\s+(?:\w+\s+){0,2}?(?:announced|indicated|informed|told|agreed?|said)\b|"
            r"\bat\s+the\s+(?:end|conclusion)\s+of\s+the\s+hearing\b",
            text[s0:s1],
            re.I,
        )
        if (re.search(r"\bwould\b", gap) or re.search(r"\bwas\b", gap)) and not said:
            return None
        if not re.search(
            r"\b(?:is|are|must|should|will|shall|would|was|be)\b", gap
        ) and not m.group("verb2"):
            return None
        if re.search(r"\bgrounds?\s+of\s+$", text[max(s0, m.start() - 12) : m.start()], re.I):
            return None  # one ground of appeal, not the appeal
        if m.group("verb2"):
            outcome = "allowed" if verb.startswith("succeed") else "dismissed"
            return outcome, "main", s0, s1
        if noun.startswith(("order", "decision", "determination")):
            return ("allowed", "main", s0, s1) if verb in ("set aside", "quashed") else None
        if noun.startswith(("matter", "case", "issue")):
            return ("remanded", "main", s0, s1) if verb == "remitted" else None
        if verb in ("set aside", "quashed", "remitted"):
            return None
        if noun.startswith("cross"):
            kind = "cross"
        elif noun.startswith("appeal"):
            kind = "main"
        elif noun.startswith("application") and (
            re.search(r"\b(?:this|these)\s+$", text[max(s0, m.start() - 8) : m.start()], re.I)
            or re.match(r"applications?\s+before\s+(?:us|the\s+court)\b", m.group(0), re.I)
        ):
            kind = "application"  # "the applications before us are dismissed"
        elif noun == "permission" or _PERMISSION.search(m.group(0)):
            kind = "permission"
        else:
            kind = "other"
        if kind == "permission" and re.search(r"\bSupreme\s+Court\b", text[m.start() : s1]):
            return None  # permission to go further, not this appeal's order
        if verb == "refused":
            return ("dismissed", kind, s0, s1) if kind in ("permission", "application") else None
        if verb == "allowed" and kind == "main" and _PART.search(text[m.end() : s1][:200]):
            return "partly_allowed", kind, s0, s1  # "the appeal is allowed to the extent …"
        return ("allowed" if verb == "allowed" else "dismissed"), kind, s0, s1
    # An active order: "I would dismiss", "we allow", "we dismissed the appeal at the hearing".
    subjects = list(_SUBJECT.finditer(sentence_pre))
    if not subjects:
        return None
    gap = re.sub(r"\b(?:propose|intend)\s+to\s+", "", sentence_pre[subjects[-1].end() :])
    if len(gap) > 90 or _NOT_DECIDING.search(gap):
        # "I would dismiss X, but allow Y": the subject of the first order carries to the next.
        joined = _JOINED.search(gap)
        if not joined or not _first_order_clean(gap[: joined.start()]):
            return None
    if m.group("past") and subjects[-1].group(0).lower() != "we":
        return None
    verb = (m.group("verb") or m.group("past")).lower()
    verb = " ".join(verb.split())
    after = text[m.end() : s1]
    obj = _OBJECT.search(after[:140])
    if obj and (obj.start() > 60 or _NOT_OBJECT.search(after[: obj.start()])):
        obj = None  # "allow the assessment to take place, as it will …": no appeal ordered
    noun = obj.group(0).lower() if obj else ""
    if verb == "substitute":
        return "allowed", "main", s0, s1
    if verb in ("set aside", "quash"):
        if noun.startswith(("order", "decision", "determination", "declaration", "finding")):
            return "allowed", "main", s0, s1
        return None
    if verb == "remit":
        return "remanded", "main", s0, s1
    if verb == "refuse":
        if noun.startswith("appeal"):
            return "dismissed", "main", s0, s1  # "I would refuse the appeal"
        if noun in ("permission",) or (
            noun.startswith("application") and _PERMISSION.search(after[:200])
        ):
            return "dismissed", "permission", s0, s1
        return None
    if not noun or _REPORTED.search(sentence_pre):
        return None
    if re.match(
        r"grounds?\b[^.;,]{0,30}?\bof\s+(?:the\s+)?(?:\w+[’']s?\s+)?(?:respondents?[’']s?\s+notice|cross[-\s]?appeal)",
        after[obj.start() :],
        re.I,
    ):
        return None  # a ground of the respondent's notice or of a cross-appeal
    if noun.startswith("cross"):
        kind = "cross"
    elif noun.startswith(("appeal", "it", "them", "ground", "petition")):
        kind = "main"
    elif noun.startswith("application") and _PERMISSION.search(after[:120]):
        kind = "permission"
    elif noun.startswith("application") and re.match(
        r"\s*(?:the|this|these)\s+applications?\b(?!\s+(?:of|by|under|made|for)\b)", after, re.I
    ):
        kind = "application"  # the application before the court, where there is no appeal
    else:
        kind = "other"
    outcome = "allowed" if verb.startswith("allow") else "dismissed"
    if (
        outcome == "allowed"
        and kind == "main"
        and _PART.search(re.sub(r"\([^)]*\)", "", after[:200]))
    ):
        outcome = "partly_allowed"
    return outcome, kind, s0, s1


_AGREE_PARAGRAPH = re.compile(
    r"^[ \t]*\d+\.?[ \t]*I[ \t]+(?:also[ \t]+|too[ \t]+|entirely[ \t]+|respectfully[ \t]+)?agree"
    r"(?:[ \t]*\.[ \t]*$|[ \t]+with[ \t]+(?:the[ \t]+judgments?[ \t]+of[ \t]+|both[ \t]+)?(?:my[ \t]+Lords?|my[ \t]+Lady|"
    r"my[ \t]+Ladies|the[ \t]+(?:Master|Chancellor|President)|"
    r"[A-Z][\w'’\-]+(?:[ \t]+[A-Z][\w'’\-]+)?[ \t]+(?:LJJ?|P|MR|C|VP)\b))",
    re.M,
)


def _first_order_clean(gap: str) -> bool:
    """Whether the words from "I"/"we" to the first order verb of a sentence make an order."""
    modal = re.match(
        r"\s*(?:would|will|shall|must|therefore|accordingly|also|too|,|\s)*\b(?:would|will|shall|must)\s+\w+",
        gap,
    )
    return bool(modal) and not _NOT_DECIDING.search(modal.group(0))


def _judge_sections(text: str) -> list[tuple[int, int]]:
    """Each judge's part of a transcript, (start, end); one part when no heading is found."""
    starts = [m.start() for m in _JUDGE_HEADING.finditer(text)]
    # A concurrence with no heading of its own: "113. I agree with Henderson LJ …".
    half = len(text) // 2
    starts += [m.start() for m in _AGREE_PARAGRAPH.finditer(text, half)]
    starts = sorted(set(starts))
    if not starts:
        return [(0, len(text))]
    bounds = [0, *starts, len(text)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def uk_outcome(text: str) -> tuple[str, str, int]:
    """(outcome, the words it was read from verbatim, their offset) of a Court of Appeal
    transcript, from the lead judgment's conclusion: its last order ("For these reasons I would
    dismiss this appeal", "the appeal must be allowed", "I would refuse permission to appeal",
    "remit the matter to the Upper Tribunal"), in its concluding paragraph when it has one;
    an allowance and a dismissal of the appeal together are partly_allowed. Concurrences count
    only when the lead says nothing; a dissent never. ("unknown", "", -1) when nothing is said."""
    sections = _judge_sections(text)
    lead = max(sections, key=lambda s: s[1] - s[0])
    zone = int(min(len(text) * 0.7, lead[0] + (lead[1] - lead[0]) * 0.6))
    found: list[tuple[int, str, str, int, int, int]] = []  # (section, outcome, kind, s0, s1, at)
    for i, (a, b) in enumerate(sections):
        lo = max(a, zone)
        if lo >= b:
            continue
        if sections[i] != lead and sections[i][0] > lead[0] and _DISSENT.search(text[a:b]):
            continue
        for rx in (_ACTIVE, _PASSIVE):
            for m in rx.finditer(text, lo, b):
                if _quoted(text, m.start()):
                    continue
                st = _uk_statement(text, m, a, b)
                if st and st[1] in ("main", "permission", "application"):
                    found.append((i, st[0], st[1], st[2], st[3], m.start()))
    # "we dismiss the application" decides only a judgment that orders nothing on an appeal.
    found = [f for f in found if f[2] != "application"] or found
    if not found:
        return "unknown", "", -1
    lead_i = sections.index(lead)
    mine = [f for f in found if f[0] == lead_i] or [f for f in found if f[0] > lead_i] or found
    mine.sort(key=lambda f: f[5])
    heading = [m.start() for m in _HEADING_CONCLUSION.finditer(text, lead[0], lead[1])]
    concluding = [
        f
        for f in mine
        if (heading and heading[0] < f[5]) or _CONCLUSION.search(_paragraph_of(text, f[5]))
    ]
    last = (concluding or mine)[-1]
    # The other orders of the same paragraph: an allowance beside a dismissal is a part win.
    p0 = _paragraph_start(text, last[5])
    same = [f for f in mine if f[5] >= p0 and f[5] <= last[4]]
    outcomes = {f[1] for f in same if f[2] == "main"}
    outcome = last[1]
    first = last
    if "partly_allowed" in outcomes or ({"allowed", "dismissed"} <= outcomes):
        outcome = "partly_allowed"
        first = next(f for f in same if f[2] == "main")
    elif "remanded" in outcomes and outcome in ("allowed", "remanded"):
        outcome = "remanded"
    start, end = first[3], last[4]
    if end - start > 300:
        start = last[3]
    words = text[start:end].strip()[:300]
    return outcome, words, start + (len(text[start:end]) - len(text[start:end].lstrip()))


def _paragraph_start(text: str, at: int) -> int:
    """Where the numbered paragraph (or line) holding ``at`` begins (at most 6,000 characters
    back: a text without paragraphs or lines is not read whole for each order word)."""
    window = max(0, at - 6000)
    starts = [m.start() for m in re.finditer(r"(?:^|\n)[ \t]*\d+\.", text[window:at])]
    if starts:
        return window + starts[-1]
    return max(window, text.rfind("\n", window, at) + 1)


def _paragraph_of(text: str, at: int) -> str:
    """The paragraph holding ``at`` and the line above it (a "Conclusion" heading)."""
    start = _paragraph_start(text, at)
    above = max(start - 200, text.rfind("\n", max(0, start - 200), max(0, start - 1)) + 1)
    heading = text[above:start].strip()
    return (heading + "\n" if len(heading) < 40 else "") + text[start:at]
