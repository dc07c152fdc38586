"""Facts and their timelines.

A fact is (subject, attribute, value), recorded by the caller in front matter
(`facts: [{subject, attribute, value}]`) or extracted from the text by a small, extensible set of
English and Spanish patterns (`PATTERNS`). Each (subject, attribute) has a timeline ordered by the
date the fact became true (the memory's `date`, else when it was saved): the newest value is
current, earlier ones are history with valid-from / valid-to. Repeating a value is a confirmation;
a different value is a contradiction that supersedes the older memory.

"I" is whoever the memory is from or about: an `about:`/`speaker:` key, a "Name: ..." speaker
prefix, or a person named as its source; an agent saving on someone's behalf speaks for "user".
So one person's "I live in Denver" never outdates another person's "I live in Boston".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text import fold

AGENTS = {
    "claude-code",
    "claude",
    "codex",
    "opencode",
    "cursor",
    "gemini-cli",
    "gemini",
    "claude-desktop",
    "vscode",
    "copilot",
    "mcp",
    "ihmt",
    "agent",
    "bench",
    "importer",
}
# Attributes that hold one value at a time; others ("uses") hold many, and a new value contradicts an
# old one only when it names the same thing in another version ("PostgreSQL 17" → "PostgreSQL 18").
SINGLE = {"location", "employer", "stack"}

_STOP = (
    r"but|because|since|so|with|after|before|until|now|for|in|instead|rather|"
    r"pero|porque|desde|con|ahora|para|en|en\s+vez"
)
# A dot with a letter or digit right after it is inside a name, a host or a version (Node.js,
# staging.harbor.internal, 3.12.1), not the end of a sentence: the value goes on through it.
_INNER_DOT = r"\.(?=\w)"
_END = r"(?!(?<=\.)\w)"  # ... so such a dot does not end the value either
_VALUE = (
    rf"(?P<value>(?:[^.,;:!?\n()]|{_INNER_DOT}){{2,60}}?)"
    rf"(?=\s+(?:and|y|{_STOP})\b|[.,;:!?\n()]{_END}|$)"
)
_LIST = (  # "Django and Vue" is one stack
    rf"(?P<value>(?:[^.;:!?\n()]|{_INNER_DOT}){{2,80}}?)(?=\s+(?:{_STOP})\b|[.;:!?\n()]{_END}|$)"
)
_SUBJECT = r"(?P<subject>\b[A-Z][\w.+#-]*(?:\s+[\w.+#-]+){0,2}?)"

PATTERNS: list[tuple[str, re.Pattern]] = [
    (
        "location",
        re.compile(r"\bI(?:'m| am| have| 've|'ve)?\s+(?:now\s+|still\s+)?(?:live|living|lived)\s+in\s+" + _VALUE),
    ),
    ("location", re.compile(r"\b(?:I|we)(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?moved\s+to\s+" + _VALUE)),
    ("location", re.compile(r"(?i)\bvivo\s+en\s+" + _VALUE)),
    (
        "location",
        re.compile(r"(?i)\b(?:me\s+(?:he\s+)?mud[ée]\s+a|me\s+he\s+mudado\s+a|nos\s+mudamos\s+a)\s+" + _VALUE),
    ),
    ("employer", re.compile(r"\bI(?:'m| am)?\s+(?:now\s+|still\s+)?(?:work|working)\s+(?:at|for)\s+" + _VALUE)),
    ("employer", re.compile(r"(?i)\btrabajo\s+(?:en|para)\s+" + _VALUE)),
    ("stack", re.compile(r"(?i)\bmy\s+(?:tech\s+|current\s+)?stack\s+is\s+" + _LIST)),
    ("stack", re.compile(r"(?i)\bmi\s+stack\s+es\s+" + _LIST)),
    ("uses", re.compile(_SUBJECT + r"\s+(?P<now>now\s+|still\s+)?(?:uses|runs(?:\s+on)?|usa)\s+" + _VALUE)),
    (
        "uses",
        re.compile(
            _SUBJECT + r"\s+(?:has\s+|have\s+)?(?P<now>(?:now\s+)?(?:switched|migrated|changed))\s+"
            r"(?:from\s+(?P<old>(?:[^.,;:!?\n()]|" + _INNER_DOT + r"){2,40}?)\s+)?to\s+" + _VALUE
        ),
    ),
    ("location", re.compile(_SUBJECT + r"\s+(?:has\s+)?moved\s+to\s+" + _VALUE)),
    (
        "location",
        re.compile(
            _SUBJECT
            + r"\s+(?:is|are)\s+(?:now\s+|still\s+)?(?:hosted|deployed|located)\s+(?:on|at|in|with)\s+"
            + _VALUE
        ),
    ),
]
_SPEAKER = re.compile(r"^\s*(?P<name>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*){0,2}):\s")
_FIRST_PERSON = {"i", "we", "me", "yo", "my", "mi"}
_ARTICLES = re.compile(r"^(?:the|a|an|el|la|los|las|un|una)\s+", re.I)
# Precision over recall: a value that is a fragment ("the same", "with a Garmin", "it") or a
# quantity ("5–7 km", what "runs" means for a runner) is no fact; nor is a subject that is a pronoun.
_FRAGMENT = re.compile(
    r"^(?:same|it|this|that|these|those|them|both|one|ones|some|all|more|less|other|"
    r"with|without|for|from|to|of|in|on|at|into|by|about|only|just|also|too|again|"
    r"lo mismo|eso|esto|con|sin|de|por|para)\b|^\d[\d.,–-]*\s*(?:km|mi|miles?|m|h|hours?|"
    r"minutes?|min|times?|days?|weeks?|kg|%)?$|^\d[\d.,–-]*\s*(?:km|miles?|hours?|minutes?|times?)\b",
    re.I,
)
_PRONOUN = {"she", "he", "it", "they", "this", "that", "there", "ella", "él", "ellos", "esto", "eso"}
# "instead of pnpm", "rather than npm", "en vez de npm": the value a change replaces, named
_INSTEAD = re.compile(
    r"\s*,?\s*(?:instead\s+of|rather\s+than|en\s+vez\s+de)\s+(?P<old>(?:[^.,;:!?\n()]|"
    + _INNER_DOT
    + r"){2,40}?)(?=\s+(?:and|y|"
    + _STOP
    + r")\b|[.,;:!?\n()]"
    + _END
    + r"|$)",
    re.I,
)
_LEAD = re.compile(r"^(?:then|now|so|and|but|also|today|yesterday|ahora|luego|entonces|hoy|ayer|y)\s+", re.I)


@dataclass(frozen=True)
class Fact:
    subject: str
    attribute: str
    value: str
    # a many-valued attribute's change, as the text says it ("now uses", "switched to"), and the
    # value it names as replaced ("instead of pnpm"); known when the text is read, never stored
    change: bool = False
    replaces: str = ""

    def key(self) -> tuple[str, str]:
        return (norm(self.subject), self.attribute)

    def to_dict(self) -> dict:
        return {"subject": self.subject, "attribute": self.attribute, "value": self.value}


def norm(text: str) -> str:
    return " ".join(_ARTICLES.sub("", fold(text).strip()).split())


def speaker(text: str, meta: dict, source: str) -> str:
    """Who "I" is in this memory."""
    for key in ("about", "speaker"):
        if meta.get(key):
            return str(meta[key])
    m = _SPEAKER.match(text)
    if m:
        return m.group("name")
    return source if source and source.lower() not in AGENTS else "user"


def extract(text: str, who: str) -> list[Fact]:
    """The facts the patterns find in a text, "I" resolved to `who`."""
    body = _SPEAKER.sub("", text, count=1)
    found: dict[tuple[str, str, str], Fact] = {}
    for attribute, pattern in PATTERNS:
        for m in pattern.finditer(body):
            value = _ARTICLES.sub("", m.group("value").strip()).strip(" '\",")
            if not value or len(value.split()) > 8 or _FRAGMENT.match(value):
                continue
            subject = m.groupdict().get("subject") or who
            while _LEAD.match(subject):
                subject = _LEAD.sub("", subject, count=1)
            subject = _ARTICLES.sub("", subject).strip()
            if subject and fold(subject.split()[0]) in _PRONOUN:
                continue
            if not subject or norm(subject) in _FIRST_PERSON:
                subject = who
            groups = m.groupdict()
            old = groups.get("old") or ""
            instead = _INSTEAD.match(body, m.end("value"))
            if instead:
                old = instead.group("old")
            old = _ARTICLES.sub("", old.strip()).strip(" '\",")
            change = attribute not in SINGLE and (
                bool(old) or fold(groups.get("now") or "").strip() not in ("", "still")
            )
            fact = Fact(subject, attribute, value, change, old)
            found.setdefault((norm(subject), attribute, norm(value)), fact)
    return list(found.values())


def from_meta(meta: dict, who: str) -> list[Fact] | None:
    """Facts recorded in front matter, or None when the memory records none (then: extract)."""
    raw = meta.get("facts")
    if raw is None:
        return None
    out = []
    for f in raw if isinstance(raw, list) else []:
        if isinstance(f, dict) and f.get("attribute") and f.get("value") not in (None, ""):
            subject = str(f.get("subject") or who)
            out.append(
                Fact(
                    who if norm(subject) in _FIRST_PERSON else subject,
                    str(f["attribute"]).strip().lower(),
                    str(f["value"]).strip(),
                )
            )
    return out


def slot(fact: Fact) -> tuple[str, str, str]:
    """The timeline a fact belongs to: (subject, attribute) plus, for many-valued ones, the thing named."""
    return (norm(fact.subject), fact.attribute, "" if fact.attribute in SINGLE else thing(fact.value))


def thing(value: str) -> str:
    return (norm(value).split() or [""])[0]


@dataclass
class Entry:
    value: str
    valid_from: str
    valid_to: str | None
    memory_id: str
    title: str
    confirmations: list[str] = field(default_factory=list)  # ids of memories that repeated it
    outdated: bool = False  # every memory that said it is outdated: history, never current

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Timeline:
    subject: str
    attribute: str
    entries: list[Entry]  # oldest first
    current: str | None = None

    def to_dict(self) -> dict:
        return {
            "subject": self.subject,
            "attribute": self.attribute,
            "current": self.current,
            "entries": [e.to_dict() for e in self.entries],
        }

    def value_at(self, day: str) -> str | None:
        for e in reversed(self.entries):
            if e.valid_from <= day:
                return e.value
        return None


def build(records: list[tuple], at: str | None = None) -> list[Timeline]:
    """Timelines from (fact, date, memory id, title[, status]) records; with `at`, as they stood on
    that day. The current value is the newest one a memory that is not outdated states (None when
    every memory that stated a value was outdated by one that states none); as of a day, the newest
    said by then."""
    slots: dict[tuple, list] = {}
    for fact, day, mid, title, *status in records:
        if day and (at is None or day <= at):
            slots.setdefault(slot(fact), []).append((day, mid, fact, title, (status or ["active"])[0] == "outdated"))
    out = []
    for _key, items in sorted(slots.items()):
        items.sort(key=lambda i: (i[0], i[1]))
        entries: list[Entry] = []
        for day, mid, fact, title, outdated in items:
            if entries and norm(entries[-1].value) == norm(fact.value):
                entries[-1].confirmations.append(mid)
                entries[-1].outdated = entries[-1].outdated and outdated
                continue
            if entries:
                entries[-1].valid_to = day
            entries.append(Entry(fact.value, day, None, mid, title, outdated=outdated))
        first = items[0][2]
        live = [e for e in entries if not e.outdated or at is not None]  # as of a day: what was said then
        out.append(Timeline(first.subject, first.attribute, entries, live[-1].value if live else None))
    return out


def contradiction_notice(t: Timeline, new: Fact, day: str) -> str:
    old = t.entries[-1]
    return (
        f"On {old.valid_from} you said {t.subject} {t.attribute} = '{old.value}'; "
        f"on {day} you updated it to '{new.value}'."
    )
