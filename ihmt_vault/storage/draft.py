"""A draft: a memory that has been validated but not yet written.

Everything that creates memories — `save`, `save_many` (import), and the importers and ingest
that come through the hook seam — turns its input into `Draft`s first, so there is one place that
decides what a valid memory is. The write path (`transaction.py`) only ever writes drafts. An
importer's findings arrive as `Item`s: the fields of a save as another store gave them, not yet
validated, plus what only an import has (a key other items refer to, an archived flag, an initial
recall weight, attachments).

Error model: every check raises `BadInput` (or `SecretRefused`) naming the field and what to do,
before anything touches the disk. Every field that reaches a file name, a commit message or YAML
is checked for NUL and control characters; titles and tags lose their bidi controls and zero-width
characters (`notes.visible`: "invoice " U+202E "gpj.exe" would read "invoice exe.jpg"); every field
that reaches git (text, title, tags, facts, extra front-matter keys and values) is checked for
secrets.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import clock
from ..errors import BadInput, SecretRefused
from . import notes, tree
from .sensitive import find_secret

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # tab and newline are text; the rest is not


@dataclass
class Draft:
    """A validated memory, ready to be written by a transaction."""

    text: str  # the body, ending with a newline
    title: str
    folder: str | None = None  # None: placed by the tree
    date: str | None = None
    tags: list[str] = field(default_factory=list)
    type: str = "note"
    source: str = "ihmt"
    pinned: bool = False
    supersedes: list[str] = field(default_factory=list)
    id: str | None = None  # None: a new id
    extra: dict[str, Any] = field(default_factory=dict)  # more front-matter keys (facts, ...)


@dataclass
class Item:
    """A memory found by an importer (or given to `save_many`): the fields of a save, unvalidated."""

    text: Any
    title: Any = None
    topic: Any = None
    date: Any = None
    tags: Any = ()
    type: Any = None
    pinned: Any = False
    supersedes: list[str] = field(default_factory=list)  # vault ids, or keys of items of the same import
    id: str | None = None  # a vault id to keep (an export read back); None: a new one
    key: str | None = None  # the source's own id, what other items' supersedes name
    extra: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    archived: bool = False  # lands under archive/, status archived
    recalls: int = 0  # initial recall weight: recalls counted at `last_recall`
    last_recall: str | None = None  # ISO time the source last used it (None: now)
    attachments: list[tuple[Path, str]] = field(default_factory=list)  # (source file, vault path) to copy
    where: str = ""  # file and line, for messages (never the text)

    FIELDS = ("text", "title", "topic", "date", "tags", "type", "pinned", "supersedes", "id", "extra", "source")

    @classmethod
    def of(cls, fields: dict, where: str = "") -> Item:
        """An item from a save's fields as a dict (`save_many`, a JSONL line); other keys are ignored."""
        return cls(
            **{k: fields[k] for k in cls.FIELDS if fields.get(k) is not None}, where=str(fields.get("where") or where)
        )


_AROUND = re.compile(r"\b(?:ago|hace)\b|前", re.I)  # "3 days ago": a window around the day it names


def check_date(value, where: str = "", today: dt.date | None = None) -> str:
    """A date from a caller as YYYY-MM-DD, or a BadInput naming the argument.

    An ISO date is taken as it is. Words are read the way search reads dates in questions
    (`search/dates.py`), resolved against `today`: "yesterday", "3 days ago", "last Monday", "ayer",
    "hace dos semanas", "8 May 2023", "昨天"; a period ("last week", "last May", "in 2023", "el mes
    pasado") stands for its first day. The whole value must name one date. `today` defaults to the
    vault's clock (`clock.today()`, which `IHMT_NOW` sets).
    """
    text = str(value).strip()
    if _DATE.match(text):
        try:
            return dt.date.fromisoformat(text[:10]).isoformat()
        except ValueError:
            raise BadInput(f"{where}date {text!r} is not a real date; use YYYY-MM-DD") from None
    from ..search.dates import find_dates  # the search package is only loaded for words

    spans = find_dates(text, today or clock.today())
    rest = text
    for s in spans:
        a, b = s.chars
        rest = rest[:a] + " " * (b - a) + rest[b:]
    if len(spans) != 1 or spans[0].grain == "month-any" or re.search(r"[^\W_]", rest):
        raise BadInput(
            f"{where}date {text!r} is not a date; use YYYY-MM-DD, or words such as "
            f"'yesterday', '3 days ago', 'last May'"
        )
    span = spans[0]
    day = span.start + (span.end - span.start) / 2 if _AROUND.search(text) else span.start
    return day.isoformat()


def check_facts(facts, where: str = "") -> list[dict]:
    if not isinstance(facts, (list, tuple)):
        raise BadInput(f"{where}facts must be a list of {{subject, attribute, value}}")
    out = []
    for n, f in enumerate(facts, 1):
        if (
            not isinstance(f, dict)
            or not str(f.get("attribute") or "").strip()
            or str(f.get("value") or "").strip() == ""
        ):
            raise BadInput(
                f"{where}fact {n}: needs an attribute and a value, e.g. "
                "{subject: user, attribute: location, value: Madrid}"
            )
        out.append(
            {
                "subject": str(f.get("subject") or "I"),
                "attribute": str(f["attribute"]).strip().lower(),
                "value": str(f["value"]).strip(),
            }
        )
    return out


def _line(value, name: str, where: str) -> str:
    """A one-line field (title, tag, source, id): no NUL or control characters."""
    text = str(value)
    if _CONTROL.search(text) or "\n" in text or "\r" in text:
        raise BadInput(
            f"{where}{name} {text[:40]!r} contains a control character or a line break; "
            f"give it as one line of plain text"
        )
    return text


def _flag(value, name: str, where: str) -> bool:
    """A yes/no field: a real boolean (an import line's "no" is not a yes)."""
    if isinstance(value, bool) or value is None:
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "on", "false", "no", "0", "off", ""):
        return value.strip().lower() in ("true", "yes", "1", "on")
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise BadInput(f"{where}{name} must be true or false, not {value!r}")


def _strings(values, name: str, where: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [v for v in re.split(r"[,\s]+", values) if v]
    if not isinstance(values, Iterable):
        raise BadInput(f"{where}{name} must be a list of words, not {values!r}")
    return [_line(v, name, where) for v in values]


def draft(
    text,
    title=None,
    topic=None,
    date=None,
    tags=(),
    type=None,
    source=None,
    pinned=False,
    supersedes=(),
    id=None,
    extra=None,
    *,
    max_depth: int = 6,
    default_source: str = "ihmt",
    where: str = "",
) -> Draft:
    """Validate a memory's fields into a `Draft`; `where` prefixes messages ("item 3: ")."""
    if not isinstance(text, str) or not text.strip():
        raise BadInput(f"{where}the memory text is empty; give the text to remember")
    if "\0" in text:
        raise BadInput(f"{where}the memory text contains a NUL byte; memories are plain text")
    if len(text.encode("utf-8")) > notes.MAX_BYTES:
        raise BadInput(
            f"{where}the text is larger than {notes.MAX_BYTES // 1_000_000} MB; a memory is a note: "
            f"save a summary and keep the file elsewhere"
        )
    if title is not None and _CONTROL.search(str(title)):
        raise BadInput(f"{where}the title contains a control character; give it as plain text")
    # a title is one line: its line breaks and runs of spaces become single spaces; the bidi
    # controls and zero-width characters that reverse or split what it shows are removed (its
    # summary line and file name come from it)
    title = notes.visible(str(title)) if title is not None else None
    title = notes.shorten(title, 120) if title and title.strip() else notes.title_from_body(text, "Untitled")
    title = notes.visible(title).strip() or "Untitled"
    folder = tree.clean_topic(str(topic), max_depth) if topic and str(topic).strip() else None
    type_ = _line(type or "note", "type", where).strip().lower()
    if type_ not in notes.TYPES:
        raise BadInput(f"{where}type {type_!r} is unknown; use one of {', '.join(notes.TYPES)}")
    tags = [t for t in (notes.visible(t).strip().lstrip("#") for t in _strings(tags, "tag", where)) if t]
    if id is not None and not notes.ID_PATTERN.match(str(id)):
        raise BadInput(f"{where}id {id!r} is not valid; ids are 6-32 lowercase letters and digits")
    if extra is not None and not isinstance(extra, dict):
        raise BadInput(f"{where}extra must be a mapping of front-matter keys to values")
    extra = dict(extra or {})
    if not all(isinstance(k, str) and k.strip() and not _CONTROL.search(k) for k in extra):
        raise BadInput(f"{where}front-matter keys must be plain words")
    secret = find_secret("\n".join([title, text, " ".join(tags), *map(str, extra), *map(str, extra.values())]))
    if secret:
        raise SecretRefused(
            f"{where}the text contains what looks like {secret}; memories are committed to "
            f"git in plain text: remove it (keep a pointer such as 'in 1Password') and save again"
        )
    return Draft(
        text=text if text.endswith("\n") else text + "\n",
        title=title,
        folder=folder,
        date=check_date(date, where) if date else None,
        tags=tags,
        type=type_,
        source=_line(source, "source", where) if source else default_source,
        pinned=_flag(pinned, "pinned", where),
        supersedes=[str(s) for s in _strings(supersedes, "supersedes", where)],
        id=str(id) if id else None,
        extra=extra,
    )
