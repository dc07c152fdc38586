"""The memory file format: Markdown with YAML front matter (DESIGN.md, "The vault on disk").

Reading is fast and forgiving: PyYAML's C loader on the front-matter block only, types decided
explicitly (ids are strings, dates ISO strings), a file without front matter is still a memory.
Writing back is surgical: ruamel.yaml round-trips the block so a person's key order, comments,
quotes and unknown keys survive, and the body's bytes are spliced back untouched.

Errors: a file whose front matter is not a YAML mapping, or that is not UTF-8 text, raises
`BrokenFile` naming the file. Nothing here touches the disk except `read_memory`.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import io
import re
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

import yaml

from .. import clock
from ..errors import BrokenFile

if TYPE_CHECKING:  # ruamel is imported by the writes that need it (reads and new files never do)
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedSeq
from ..text import fold

try:  # the C emitter, when PyYAML was built with libyaml
    from yaml import CSafeDumper as _BaseDumper
except ImportError:  # pragma: no cover - wheels ship libyaml
    from yaml import SafeDumper as _BaseDumper

MemoryType = Literal[
    "fact",
    "decision",
    "preference",
    "correction",
    "person",
    "project",
    "procedure",
    "event",
    "note",
    "code",
    "document",
]  # the last two: what ingest brings in
TYPES: tuple[str, ...] = get_args(MemoryType)
STATUSES = ("active", "outdated", "archived")
# The order keys are written in a new file; keys added to an existing file go after their predecessor.
KEY_ORDER = (
    "id",
    "title",
    "type",
    "date",
    "created",
    "tags",
    "status",
    "supersedes",
    "superseded_by",
    "source",
    "pinned",
    "placed",
)
PLACED = "placed"  # the folder placement or the gardener chose for a memory (see `Transaction.refile`)

_FRONT = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_ALIAS = re.compile(r"(?<![\w*])\*[^\s,\]}*]+")
MAX_ALIASES = 64  # YAML aliases in one front matter: more is an expansion attack, not a note
MAX_BYTES = 2_000_000  # a memory is a note, not a data dump

# --- ids -----------------------------------------------------------------------------------------
# Crockford base32, lowercase: 9 characters of milliseconds (until year 3084) then 4 random ones,
# so ids sort by creation time and two machines creating memories offline do not collide.
_B32 = "0123456789abcdefghjkmnpqrstvwxyz"
_id_lock = threading.Lock()
_last_ms = 0
ID_PATTERN = re.compile(r"^[0-9a-z]{6,32}$")


def new_id(now_ms: int | None = None) -> str:
    global _last_ms
    with _id_lock:
        ms = now_ms if now_ms is not None else int(time.time() * 1000)
        ms = max(ms, _last_ms + 1)  # strictly increasing within a process: bulk saves stay ordered
        _last_ms = ms
    stamp = "".join(_B32[(ms >> (5 * i)) & 31] for i in reversed(range(9)))
    return stamp + "".join(secrets.choice(_B32) for _ in range(4))


def derived_id(key: str) -> str:
    """An id that is the same wherever and whenever `key` is (ingested chunks: their source and
    place), in the same alphabet as `new_id`: 14 characters of the key's SHA-256."""
    raw = int.from_bytes(hashlib.sha256(key.encode()).digest()[:9], "big")
    return "".join(_B32[(raw >> (5 * i)) & 31] for i in range(14))


# --- names ---------------------------------------------------------------------------------------
# Names a memory file never takes: the generated summary (`index.md`), and what mkdocs makes a
# section's page (`README.md`); a memory titled "Index" is saved as `index-note.md`.
RESERVED_NAMES = {"index", "readme"}
WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


# Bidi controls and zero-width characters: they show nothing, yet reverse or split what a title
# shows ("invoice \u202egpj.exe" reads as "invoice exe.jpg"; "pay\u200bpal" looks like "paypal" and
# is not). Titles, tags and names never keep them; `visible` removes them.
INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
        "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\u00ad\u180e",
    )
)


def visible(text: str) -> str:
    """`text` without bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C) and
    zero-width characters (U+200B–U+200D, U+2060–U+2064, U+FEFF, the soft hyphen, U+180E)."""
    return text.translate(INVISIBLE)


def slugify(text: str, max_len: int = 60) -> str:
    """A readable file or folder name: 'Staging runs PostgreSQL 17' → 'staging-runs-postgresql-17'.
    Invisible characters go first (`visible`): 'pay\u200bpal' is 'paypal', not 'pay-pal'."""
    slug = re.sub(r"[^\w]+", "-", fold(visible(text))).strip("-_")
    if len(slug) > max_len:  # cut at a word boundary, never mid-word (unless one word is that long)
        cut = slug[: max_len + 1]
        slug = cut[: cut.rindex("-")] if "-" in cut[max_len // 2 :] else slug[:max_len]
    slug = slug.rstrip("-_")
    if not slug or slug in WINDOWS_RESERVED or slug in RESERVED_NAMES:
        slug = f"{slug or 'memory'}-note"
    return slug


@functools.lru_cache(maxsize=1)
def markdown():
    """The CommonMark parser (markdown-it), made once."""
    from markdown_it import (
        MarkdownIt,  # imported when first needed: the CLI starts faster
    )

    return MarkdownIt("commonmark")


TITLE_MAX = 60
TITLE_WHOLE = 80  # a first sentence this short is the title as it is
_SENTENCE_END = re.compile(r"(?<=[^\s.]{2}[.!?])\s+(?=\S)|(?<=[。！？])")


def title_from_body(body: str, fallback: str) -> str:
    """The first heading, else the first sentence of the first paragraph, cut at a word boundary to
    at most about 60 characters, without a trailing "…" (read with markdown-it: a code fence or an
    HTML block is not a title)."""
    head = body.lstrip()[:4000]
    for token in markdown().parse(head):
        if token.type == "inline" and token.content.strip():
            line = token.content.strip().splitlines()[0]
            return title_cut(_SENTENCE_END.split(line, maxsplit=1)[0]) or fallback
    for line in head.splitlines():  # no paragraph at all (only code, say): its first line
        if line.strip():
            return title_cut(re.sub(r"^#+\s*", "", line.strip())) or fallback
    return fallback


# Words a title never ends on: a title cut after one reads as a fragment ("alerts go to the").
# A closed class of English and Spanish words, not a list tuned to any data.
FUNCTION_WORDS = frozenset(
    "a an the and or but nor so to of in on at by for with from into onto over under about after before "
    "than as is are was were be been being has have had do does did will would can could should may might "
    "must its it this that these those their his her our your my which who whom whose when where while "
    "if then via per not no "
    "y o u e ni pero de del la las el los un una unos unas en con por para sin sobre bajo entre hacia "
    "que se su sus es son al lo".split()
)
_CLAUSE = re.compile(r"[,;:]\s|\s[–—-]\s|\s\(")


def title_cut(text: str, limit: int = TITLE_MAX) -> str:
    """A title's text cut to at most about `limit` characters as a whole phrase: at the last clause
    boundary (a comma, semicolon, colon, dash or parenthesis) past a third of the limit, else at a
    word boundary; never ending on a function word ("the", "to", "under", "and") or on punctuation,
    and no "…". A sentence of up to TITLE_WHOLE characters is kept whole: cutting it would leave a
    fragment."""
    text = " ".join(text.split())
    if len(text) <= limit or len(text) <= TITLE_WHOLE:
        return text
    head = text[: limit + 1]
    clauses = [m.start() for m in _CLAUSE.finditer(head) if m.start() >= limit // 3]
    if clauses:
        cut = head[: clauses[-1]]
    elif " " in head[limit // 2 :]:
        cut = head[: head.rindex(" ")]
    else:
        cut = text[:limit]
    words = cut.rstrip(" .,;:-–—(").split(" ")
    while len(words) > 2 and words[-1].lower().strip(".,;:") in FUNCTION_WORDS:
        words.pop()
    return " ".join(words).rstrip(" .,;:-–—(") or cut


def shorten(text: str, limit: int) -> str:
    """`text` on one line, without invisible characters (`visible`), cut at a word to `limit`."""
    text = " ".join(visible(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(",.;:") + "…"


def digest_of(body: str) -> str:
    """A memory's identity by content: its text with Unicode form, case and whitespace normalised
    (an identical save, a re-run import, the same note typed again)."""
    norm = " ".join(unicodedata.normalize("NFKC", body).casefold().split())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:32]


def first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    return ""


# --- the memory ----------------------------------------------------------------------------------
@dataclass
class Memory:
    id: str
    title: str
    path: str  # vault-relative POSIX path
    body: str = ""
    type: str = "note"
    date: str | None = None  # when it became true (YYYY-MM-DD)
    created: str | None = None  # when it was saved (ISO 8601, UTC)
    tags: list[str] = field(default_factory=list)
    status: str = "active"
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    source: str = ""
    pinned: bool = False
    meta: dict = field(default_factory=dict)  # the whole front matter as read, unknown keys included
    missing: tuple[str, ...] = ()  # required keys the file lacks (filled in on repair)
    notices: list[str] = field(default_factory=list)  # what a save has to tell the caller (not stored)

    @property
    def folder(self) -> str:
        return self.path.rpartition("/")[0]

    def to_dict(self, body: bool = True) -> dict:
        d = {
            k: getattr(self, k)
            for k in (
                "id",
                "title",
                "path",
                "type",
                "date",
                "created",
                "tags",
                "status",
                "supersedes",
                "superseded_by",
                "source",
                "pinned",
            )
        }
        extra = {k: v for k, v in self.meta.items() if k not in d}
        if extra:
            d["extra"] = _jsonable(extra)
        if body:
            d["body"] = self.body
        if self.notices:
            d["notices"] = list(self.notices)
        return d


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(front-matter block or None, body)."""
    m = _FRONT.match(text)
    if not m:
        return None, text.removeprefix("\ufeff")
    return m.group(1) or "", text[m.end() :]


def _as_date(value) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _as_timestamp(value) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.replace(microsecond=0).isoformat() + "Z"
    if isinstance(value, dt.date):
        return value.isoformat() + "T00:00:00Z"
    return str(value)


def _as_list(value) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):  # scalars only: a nested structure is not a tag or an id
        return [str(v) for v in value if isinstance(v, (str, int, float, dt.date)) and v != ""]
    return [str(value)] if isinstance(value, (str, int, float, dt.date)) else []


class FrontMatterError(ValueError):
    """A front-matter block that is not a YAML mapping of keys to values (the message says why)."""


def front_matter(block: str | None) -> dict:
    """A front-matter block read as a dict ({} when absent or empty): the one reader of front
    matter (safe loader, aliases bounded). `FrontMatterError` says why a block cannot be read."""
    if block is None or not block.strip():
        return {}
    if len(_ALIAS.findall(block)) > MAX_ALIASES:
        raise FrontMatterError(f"front matter uses more than {MAX_ALIASES} YAML aliases (an alias bomb?)")
    try:
        meta = yaml.load(block, Loader=LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark else ""
        raise FrontMatterError(f"front matter is not valid YAML{where}") from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise FrontMatterError("front matter is not a mapping of keys to values")
    return meta


def front_matter_or_empty(block: str | None) -> dict:
    """A generated file's front matter, {} when it cannot be read (it is regenerated anyway)."""
    try:
        return front_matter(block)
    except FrontMatterError:
        return {}


def parse(text: str, path: str) -> Memory:
    """Parse a memory file's text. Missing keys get defaults and are listed in `missing`."""
    block, body = split_front_matter(text)
    try:
        meta = front_matter(block)
    except FrontMatterError as e:
        raise BrokenFile(path, str(e)) from None
    if isinstance(meta.get("id"), (list, dict)):  # `id: [a, b]`: not one identity; doctor gives a new one
        meta = {**meta, "id": ""}
    missing = tuple(k for k in ("id", "title", "created") if not meta.get(k))
    stem = path.rpartition("/")[2].removesuffix(".md")
    status = str(meta.get("status") or "active").lower()
    type_ = str(meta.get("type") or "note").lower()
    return Memory(
        id=str(meta["id"]) if meta.get("id") not in (None, "") else "",
        title=str(meta.get("title") or title_from_body(body, stem.replace("-", " "))),
        path=path,
        body=body,
        type=type_,
        date=_as_date(meta.get("date")),
        created=_as_timestamp(meta.get("created")),
        tags=_as_list(meta.get("tags")),
        status=status if status in STATUSES else "active",
        supersedes=_as_list(meta.get("supersedes")),
        superseded_by=_as_list(meta.get("superseded_by")),
        source=str(meta.get("source") or ""),
        pinned=meta.get("pinned") is True,
        meta=meta,
        missing=missing,
    )


def read_memory(file: Path, path: str) -> Memory:
    """Read and parse a memory file; `path` is its vault-relative name used in messages."""
    if file.is_symlink():
        raise BrokenFile(
            path,
            "is a symbolic link; memories must be regular files inside the vault",
            "replace the link by the file itself or remove it",
        )
    if file.stat().st_size > MAX_BYTES:
        raise BrokenFile(
            path, f"is larger than {MAX_BYTES // 1_000_000} MB", "keep it outside the vault and save a summary"
        )
    data = file.read_bytes()
    if b"\0" in data[:8192]:
        raise BrokenFile(path, "is not a text file", "move it out of the vault")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BrokenFile(path, "is not UTF-8 text", "re-save it as UTF-8") from None
    return parse(text, path)


# --- writing -------------------------------------------------------------------------------------
class _Timestamp(str):
    """An ISO date or timestamp written plain (`date: 2026-02-03`), as a person writes it."""


def _represent_timestamp(representer, value):
    return representer.represent_scalar("tag:yaml.org,2002:timestamp", str(value))


def _yaml() -> YAML:
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.representer.add_representer(_Timestamp, _represent_timestamp)
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _flow(values) -> CommentedSeq:
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(values)
    seq.fa.set_flow_style()
    return seq


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$")


def _yaml_value(value):
    if isinstance(value, (list, tuple)):
        return _flow(list(value))
    if isinstance(value, str) and _ISO.match(value):
        return _Timestamp(value)  # dates stay unquoted, as a person writes them
    return value


class _NewFileDumper(_BaseDumper):
    """PyYAML's C emitter for new files (≈ 20x ruamel's speed; bulk imports write thousands)."""


_NewFileDumper.add_representer(_Timestamp, lambda d, v: d.represent_scalar("tag:yaml.org,2002:timestamp", str(v)))
_NewFileDumper.add_representer(
    list,
    lambda d, v: d.represent_sequence(
        "tag:yaml.org,2002:seq", v, flow_style=not any(isinstance(i, (dict, list)) for i in v)
    ),
)  # tags: [a, b]


def compose(fields: dict, body: str) -> str:
    """The text of a new memory file: keys in KEY_ORDER first, then the rest as given."""
    ordered = {k: fields[k] for k in KEY_ORDER if fields.get(k) is not None}
    ordered.update((k, v) for k, v in fields.items() if k not in ordered and v is not None)
    data = {k: _Timestamp(v) if isinstance(v, str) and _ISO.match(v) else v for k, v in ordered.items()}
    block = yaml.dump(
        data, Dumper=_NewFileDumper, sort_keys=False, allow_unicode=True, width=4096, default_flow_style=False
    )
    return f"---\n{block}---\n{body if body.endswith(chr(10)) else body + chr(10)}"


def update_front_matter(text: str, changes: dict, remove: tuple[str, ...] = (), path: str = "") -> str:
    """Set `changes` and drop `remove` in a file's front matter, touching nothing else.

    A key that exists keeps its place; a new key goes after its predecessor in KEY_ORDER. A file
    without front matter gets a new block and its body unchanged.
    """
    m = _FRONT.match(text)
    if not m:
        return compose(changes, text.removeprefix("\ufeff")) if changes else text
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    newline = "\r\n" if "\r\n" in m.group(0) else "\n"
    y = _yaml()
    from ruamel.yaml.comments import CommentedMap

    try:
        data = y.load(m.group(1) or "") or CommentedMap()
    except Exception:
        raise BrokenFile(path, "front matter is not valid YAML") from None
    if not isinstance(data, CommentedMap):
        raise BrokenFile(path, "front matter is not a mapping of keys to values")
    for key in remove:
        data.pop(key, None)
    for key, value in changes.items():
        value = _yaml_value(value)
        if key in data:
            data[key] = value
            continue
        pos = len(data)
        if key in KEY_ORDER:
            before = KEY_ORDER[: KEY_ORDER.index(key)]
            present = [i for i, k in enumerate(data) if k in before]
            pos = present[-1] + 1 if present else 0
        data.insert(pos, key, value)
    out = io.StringIO()
    y.dump(data, out)
    block = out.getvalue()
    if newline != "\n":
        block = block.replace("\n", newline)
    return f"{bom}---{newline}{block}---{newline}{text[m.end() :]}"


def now_timestamp() -> str:
    return clock.stamp()


def placed_by_gardener(m: Memory) -> bool:
    """Whether placement or the gardener chose the folder a memory is in (the gardener may move it
    again): its `placed` key names that folder. Saved with a topic it has none; moved by hand, the
    key names another folder."""
    return m.meta.get(PLACED) == m.folder
