"""What the index stores: one document per memory and one per folder summary, pre-analysed.

Each document carries its folder, its parent and ancestors (so one query can be asked level by
level), its depth, status, date and what it supersedes; `data` holds everything a hit shows, so
answering never reads the vault's files.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from whoosh.analysis import SpaceSeparatedTokenizer
from whoosh.fields import ID, KEYWORD, NUMERIC, STORED, TEXT, Schema

from . import analysis, dates

SCHEMA_VERSION = 9
NO_PARENT = "\x00"  # the root summary has no parent folder


@dataclass
class Doc:
    """One searchable document: a memory, or a folder's summary (its index.md)."""

    key: str  # unique: the memory id, or "dir:" + folder for a summary
    kind: str  # "memory" | "summary"
    path: str  # vault-relative POSIX path of the file
    folder: str  # vault-relative folder ("" for the root)
    depth: int  # folder depth: 0 for the root, 1 for "work", 2 for "work/infra"
    title: str
    body: str
    id: str = ""  # memory id ("" for a summary)
    tags: list[str] = field(default_factory=list)
    type: str = "note"
    status: str = "active"  # active | outdated | archived
    date: str | None = None  # ISO date (YYYY-MM-DD) or None
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    pinned: bool = False
    source: str = ""  # who saved it / whom it is from
    created: str | None = None  # when it was saved (ISO timestamp): its age when it has no `date`


def _tokens_field(**kw):
    return TEXT(analyzer=SpaceSeparatedTokenizer(), phrase=False, **kw)


def make_schema() -> Schema:
    return Schema(
        key=ID(unique=True, stored=True),
        kind=ID(stored=True),
        scope=ID(),  # mem | arc | sum | arcsum
        id=ID(stored=True),
        folder=ID(stored=True),
        parent=ID(),  # memory: its folder; summary: the parent of its folder
        anc=KEYWORD(commas=True, lowercase=False),  # the folder and its ancestors
        depth=ID(stored=True),
        title=_tokens_field(),  # memories: title + tags (when the title says more than the body's start)
        body=_tokens_field(),  # memories: the text
        stitle=_tokens_field(),  # summaries: folder title + keywords
        sbody=_tokens_field(),  # summaries: the index.md text
        when=KEYWORD(lowercase=False),
        day=NUMERIC(int, bits=32, signed=False),
        status=ID(stored=True),
        sup=KEYWORD(commas=True, lowercase=False),  # ids this one supersedes
        order=ID(),  # memories: "folder, created, id", the order they were saved in
        seq=ID(),  # memories: "created, id", the order they were saved in across the vault
        data=STORED(),  # everything shown in a hit
    )


def is_archived(data) -> bool:
    """A stored document (or a Doc) that lives in the archive."""
    status = data.get("status") if isinstance(data, dict) else data.status
    folder = (data.get("folder") if isinstance(data, dict) else data.folder) or ""
    return status == "archived" or folder.split("/")[0] == "archive"


def parent_of(folder: str) -> str:
    return folder.rsplit("/", 1)[0] if "/" in folder else ""


def ancestors(folder: str) -> list[str]:
    """'' (the root), then every folder down to `folder` itself."""
    out = [""]
    if folder:
        parts = folder.split("/")
        out += ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return out


_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
# a summary's counts ("120 memories: 3 here, 117 in 4 subtopics") change with every save below it
# and tell nothing of its topic: left out of what is searched, so the summary need not be reindexed
_COUNTS = re.compile(r"\b\d+ (?:memor(?:y|ies)|here|subtopics?)\b")


ORDER_SEP = "\x1f"


def saved_at(created: str | None) -> dt.datetime | None:
    """A memory's save time (`created`, ISO 8601) as a naive UTC datetime; None if it has none."""
    try:
        t = dt.datetime.fromisoformat((created or "").replace("Z", "+00:00"))
    except ValueError:
        return None
    return t.astimezone(dt.timezone.utc).replace(tzinfo=None) if t.tzinfo else t


def stamp(t: dt.datetime) -> str:
    """A save time as the `order` column writes it (sortable as text)."""
    return t.replace(microsecond=0).isoformat() + "Z"


def order_key(folder: str, created: str | None, mid: str) -> str:
    """What a memory's `order` holds: its folder, when it was saved, its id (time-ordered) — so
    sorting says the order memories were saved in, folder by folder ('' without a save time)."""
    t = saved_at(created)
    return f"{folder}{ORDER_SEP}{stamp(t)}{ORDER_SEP}{mid}" if t is not None and mid else ""


def fields_of(doc: Doc) -> dict:
    """The Whoosh fields of a document."""
    title_src = " ".join([doc.title or ""] + list(doc.tags or []))
    body = _LINK_TARGET.sub("]", doc.body or "")
    if doc.kind == "summary":
        body = _COUNTS.sub("", body)
    lang = analysis.text_lang(f"{title_src} {body[:2000]}")
    body_terms = analysis.analyze(body, lang)
    title_terms = analysis.analyze(doc.title or "", lang)
    if title_terms and body_terms[: len(title_terms)] == title_terms:
        # a title made from the text's first line says nothing more than the text: don't count it twice
        title_terms = []
    title_terms += analysis.analyze(" ".join(doc.tags or []), lang)
    ddate = dates.to_date(doc.date)
    spans = dates.find_dates(f"{doc.title}\n{doc.body}"[:20000], ddate)
    when = dates.when_terms(spans, ddate)
    archived = is_archived(doc)
    if doc.kind == "summary":
        scope = "arcsum" if archived else "sum"
        parent = parent_of(doc.folder) if doc.folder else NO_PARENT
    else:
        scope = "arc" if archived else "mem"
        parent = doc.folder
    f: dict[str, object] = dict(
        key=doc.key,
        kind=doc.kind,
        scope=scope,
        id=doc.id or "",
        folder=doc.folder,
        parent=parent,
        anc=",".join(ancestors(doc.folder)),
        depth=str(doc.depth),
        **{
            ("stitle" if doc.kind == "summary" else "title"): " ".join(title_terms),
            ("sbody" if doc.kind == "summary" else "body"): " ".join(body_terms),
        },
        when=" ".join(when),
        status=doc.status or "active",
        sup=",".join(doc.supersedes or []),
        data=dict(
            title=doc.title,
            body=doc.body,
            path=doc.path,
            folder=doc.folder,
            id=doc.id,
            kind=doc.kind,
            date=(ddate.isoformat() if ddate else None),
            status=doc.status,
            tags=list(doc.tags or []),
            type=doc.type,
            lang=lang,
            pinned=bool(doc.pinned),
            supersedes=list(doc.supersedes or []),
            superseded_by=list(doc.superseded_by or []),
            source=doc.source,
            depth=doc.depth,
            created=doc.created,
            since=(ddate.isoformat() if ddate else (doc.created or "")[:10] or None),
        ),
    )
    order = order_key(doc.folder, doc.created, doc.id) if doc.kind == "memory" else ""
    if order:
        f["order"] = order
        f["seq"] = order[len(doc.folder) + len(ORDER_SEP) :]
    if ddate:
        f["day"] = ddate.year * 10000 + ddate.month * 100 + ddate.day
    return f
