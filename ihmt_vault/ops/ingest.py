"""Ingest: files and folders brought in as memories, each cut where it is cut.

`ingest(paths)` detects each file's kind (code, Markdown, narrative prose, a dated journal or chat,
a process such as a recipe or runbook), cuts it with the chunker for that kind (`code.py` for code,
`chunkers.py` for the rest, both through the plugin door) and writes one memory per chunk, all in
one commit (`Memory-Op: ingest`).

Invariants:
- A chunk's id is derived from its source and its place in it (its symbol or heading and which
  occurrence of it), never from the clock: ingesting an unchanged file again changes nothing and
  makes no commit; a changed file rewrites only the chunks whose text or span changed and removes
  the ones that vanished (git keeps their history).
- A chunk's memory names where it came from: `source` is the file (the path from the ingested
  folder's parent), `lines` its span, `language` and `symbol` for code, `header` the enclosing
  declaration of a member split out of an oversized class, `oversized` when one block is bigger
  than the limit and was kept whole, `date` the day a journal entry names.
- A person's edit is never overwritten: each chunk's memory records the digest of the text ingest
  wrote (`ingested`); when the file no longer holds that text, ingest leaves it alone and says so.
- Bad input changes nothing: a path that does not exist is a `BadInput` before anything is read;
  a binary, too big or unreadable file is skipped and reported with its reason, never its text.
  A chunk holding a secret keeps what is clean: only the paragraphs holding it stay out, each
  reported by its lines (the whole chunk when nothing but headings would be left).
- Nothing is left out silently: what a folder's walk does not read (hidden files such as `.env`,
  hidden, dependency and build folders, virtual environments, vaults) is listed with its reason.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine.core import Engine, Progress
from ..errors import BadInput, SecretRefused
from ..plugins import manager as plugins
from ..plugins.chunkers import LIMIT, Chunk, entry_date
from ..plugins.source_code import language_of
from ..results import IngestReport
from ..storage import notes, sources, tree
from ..storage.draft import Draft
from ..storage.sensitive import find_secret
from .saving import make_draft

KINDS = ("code", "markdown", "narrative", "journal", "process")
TYPE_OF = {"code": "code", "markdown": "document", "narrative": "document", "journal": "event", "process": "procedure"}
ROOT_OF = {"code": "code", "markdown": "docs", "narrative": "docs", "journal": "journal", "process": "docs"}
MARKDOWN_EXTS = {".md", ".markdown", ".mdx", ".mdc"}
TEXT_EXTS = {".txt", ".text", ".rst", ".org", ".log", ""}
_PROCESS_CUE = re.compile(
    r"^[#\s]*(?:ingredients?|ingredientes|steps|pasos|preparaci[óo]n|instructions|"
    r"instrucciones|method|procedure|procedimiento|elaboraci[óo]n|步骤|材料|做法|配料|用料)\b"
    r"[^\n]{0,20}$",
    re.I | re.M,
)
_NUMBERED = re.compile(r"^[ \t]*(?:\d{1,2}[.)]|第[0-9一二三四五六七八九十]+步)[ \t]*\S", re.M)


@dataclass
class Source:
    """One file to ingest: where it is, what the vault calls it, and its text."""

    file: Path
    name: str  # the `source` of its memories: the path from the ingested folder's parent
    text: str
    kind: str
    language: str | None


def ingest(
    e: Engine,
    paths: list[str | Path],
    kind: str | None = None,
    topic: str | None = None,
    limit: int = LIMIT,
    progress: Progress | None = None,
    agent: str | None = None,
) -> IngestReport:
    if kind is not None and kind not in KINDS:
        raise BadInput(f"--type {kind!r} is unknown; use one of {', '.join(KINDS)}")
    if limit < 200:
        raise BadInput(f"--limit {limit}: a chunk limit below 200 characters cuts memories too small; give 200 or more")
    if not paths:
        raise BadInput("nothing to ingest: give one or more files or folders")
    folder_topic = tree.clean_topic(topic, e.config.max_depth) if topic else None
    report = IngestReport()
    found: list[tuple[Path, str]] = []  # (file, source name)
    roots: list[str] = []  # source-name prefixes of ingested folders (for vanished files)
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise BadInput(f"{raw}: no such file or folder; give a path that exists")
        path = path.resolve()
        if e.layout.holds(path):
            raise BadInput(f"{raw}: is inside the vault; ingest brings files from outside it in")
        if path.is_dir():
            roots.append(path.name + "/")
            found += [(f, f.relative_to(path.parent).as_posix()) for f in sources.walk(path)]
            report.skipped += _left_out(path)
        else:
            found.append((path, f"{path.parent.name}/{path.name}" if path.parent.name else path.name))
    e.refresh()
    with e.transaction("ingest", "ingest", [("Memory-Op", "ingest")], agent or "ingest") as tx:
        seen_sources: set[str] = set()
        chunkers = plugins.chunkers_by_name()  # once a run: each lookup builds every chunker anew
        for n, (file, name) in enumerate(found):
            seen_sources.add(name)
            source = _read(file, name, kind, report)
            if source is not None:
                _ingest_one(e, tx, chunkers, source, folder_topic, limit, report)
            if progress:
                progress(n + 1, len(found))
        for prefix in roots:  # files that were ingested before and are gone now
            for row in e.catalog.by_source_prefix(prefix):
                if row.source not in seen_sources and row.status != "archived":
                    tx.remove(row.path)
                    report.removed.append(row.id)
        report.files = len(found)
        touched = len(report.added) + len(report.updated) + len(report.removed)
        tx.subject = (
            f"ingest: {_count(report.files, 'file')}, {_count(len(report.added), 'chunk')} added, "
            f"{len(report.updated)} updated, {len(report.removed)} removed"
        )
        tx.trailers.append(("Memory-Count", str(touched)))
    report.commit = tx.commit
    return report


def _ingest_one(
    e: Engine, tx, chunkers: dict, src: Source, folder_topic: str | None, limit: int, report: IngestReport
) -> None:
    chunker_name = src.kind
    if src.kind == "code":
        assert src.language is not None  # `_read` leaves out code whose language is not known
        chunker_name = src.language
    chunker = plugins.pick("chunker", chunkers, chunker_name)
    chunks = [c for c in chunker.chunk(src.text, limit) if c.text.strip()]
    if src.kind == "code":
        chunks = [m for c in chunks for m in _members(chunker, c, limit)]
    folder = folder_topic or topic_for(src, e.config.max_depth)
    old = {r.id: r for r in e.catalog.by_source(src.name)}
    counts: dict[str, int] = {}
    for c in chunks:
        key = _key(c)
        counts[key] = counts.get(key, 0) + 1
        chunk_id = _chunk_id(src.name, f"{key}#{counts[key]}")
        report.chunks += 1
        report.oversized += c.oversized
        d = _clean_draft(e, c, src, chunk_id, folder, report)
        if d is None:
            continue
        row = old.pop(chunk_id, None)
        if row is None:
            if e.catalog.by_id(chunk_id):  # the same chunk from the same source, already taken in
                continue
            tx.create([d])
            report.added.append(chunk_id)
            continue
        outcome = _update(e, tx, row.path, d)
        if outcome == "updated":
            report.updated.append(chunk_id)
        elif outcome == "kept":
            report.kept.append(row.path)
    for row in old.values():  # chunks the file no longer has
        if row.status != "archived":
            tx.remove(row.path)
            report.removed.append(row.id)


def _draft(e: Engine, c: Chunk, src: Source, chunk_id: str, folder: str) -> Draft:
    return make_draft(
        e,
        "",
        id=chunk_id,
        topic=folder,
        type=TYPE_OF[src.kind],
        text=_body(c, src),
        title=_title(c, src),
        date=c.date or None,
        source=src.name,
        extra=_front_matter(c, src),
    )


def _without_secrets(c: Chunk, src: Source) -> tuple[Chunk | None, list[tuple[int, int, str]]]:
    """The chunk without its paragraphs (runs of lines between blank lines) that hold a secret,
    and the lines and kind of each one left out; None when nothing worth keeping remains (only
    headings) or no single paragraph holds the secret (it spans several: the chunk stays out)."""
    blocks: list[tuple[int, list[str]]] = []  # (its first line, its lines)
    for n, text in enumerate(c.text.splitlines(), c.first_line):
        if not text.strip():
            blocks.append((n + 1, []))
        elif blocks and blocks[-1][1]:
            blocks[-1][1].append(text)
        else:
            blocks.append((n, [text]))
    kept: list[str] = []
    dropped: list[tuple[int, int, str]] = []
    for first, lines in blocks:
        if not lines:
            continue
        kind = find_secret("\n".join(lines))
        if kind:
            dropped.append((first, first + len(lines) - 1, kind))
        else:
            kept.append("\n".join(lines))
    substance = [b for b in kept if src.kind == "code" or any(not ln.lstrip().startswith("#") for ln in b.splitlines())]
    if not dropped or not substance:
        return None, dropped
    return replace(c, text="\n\n".join(kept) + "\n"), dropped


def _clean_draft(e: Engine, c: Chunk, src: Source, chunk_id: str, folder: str, report: IngestReport) -> Draft | None:
    """The chunk's memory, or None when it is skipped (said in the report). A chunk holding a
    secret keeps what is clean: only its paragraphs holding the secret stay out, each reported by
    its lines (never its text); the whole chunk stays out when no clean paragraph is left."""
    where = f"{_printable(src.name)}:{c.first_line}-{c.last_line}"
    try:
        return _draft(e, c, src, chunk_id, folder)
    except SecretRefused as err:
        clean, dropped = _without_secrets(c, src)
        try:
            d = _draft(e, clean, src, chunk_id, folder) if clean is not None else None
        except BadInput:
            d = None
        if d is None:
            report.skipped.append((where, str(err)))
            return None
    except BadInput as err:
        report.skipped.append((where, str(err)))
        return None
    report.skipped += [
        (
            f"{_printable(src.name)}:{a}-{b}",
            f"contains what looks like {kind}; this paragraph was left out and the rest of lines "
            f"{c.first_line}-{c.last_line} came in: remove it from the file (keep a pointer such as 'in 1Password')",
        )
        for a, b, kind in dropped
    ]
    return d


_LEFT_OUT_DIRS = {
    "hidden": "a hidden folder: not ingested from a folder",
    "skip": "dependencies or build output: not ingested from a folder",
    "venv": "a virtual environment: not ingested from a folder",
    "vault": "a vault: not ingested from a folder",
}


def _left_out(folder: Path) -> list[tuple[str, str]]:
    """What `sources.walk` leaves out of a folder, each with its reason (a hidden folder or a
    dependency folder once, not each file in it), so a skipped `.env` is said, never silent."""
    out: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            why = (
                "hidden"
                if d.startswith(".")
                else "skip"
                if d in sources.SKIP_DIRS
                else "venv"
                if (here / d / "pyvenv.cfg").exists()
                else "vault"
                if (here / d / ".ihmt").is_dir()
                else None
            )
            if why:
                out.append((_printable((here / d).relative_to(folder.parent).as_posix() + "/"), _LEFT_OUT_DIRS[why]))
            else:
                keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith(".") and (here / name).is_file():
                out.append(
                    (
                        _printable((here / name).relative_to(folder.parent).as_posix()),
                        "a hidden file: not ingested from a folder (dotfiles such as .env often hold keys); "
                        "give its path to ingest it",
                    )
                )
    return out


INGEST_KEYS = ("kind", "lines", "language", "symbol", "facts", "header", "oversized", "ingested")


def _update(e: Engine, tx, rel: str, d: Draft) -> str:
    """Rewrite a chunk's memory when its text or span changed ("updated"); never over a person's
    edit ("kept"); "same" when nothing changed."""
    m = e.read(rel)
    if m.meta.get("ingested") != _digest(m.body):
        return "kept"
    same = (
        m.body == d.text
        and m.title == d.title
        and m.date == d.date
        and {k: m.meta.get(k) for k in INGEST_KEYS} == {k: d.extra.get(k) for k in INGEST_KEYS}
    )
    if same:
        return "same"
    file = e.layout.abs(rel)
    before = file.read_bytes()
    fields = {k: v for k, v in m.meta.items() if k not in INGEST_KEYS}
    fields.update({"title": d.title, "date": d.date, **d.extra, "updated": notes.now_timestamp()})
    # a compare-and-swap: a person's save between our read and our write wins; the next ingest looks again
    return "updated" if tx.write(rel, notes.compose(fields, d.text), expected=before) else "kept"


def _read(file: Path, name: str, kind: str | None, report: IngestReport) -> Source | None:
    text, why = sources.read_text(file)
    if text is None:
        report.skipped.append((_printable(name), why))
        return None
    language = language_of(file.name, text)
    found = kind or detect(file.name, text, language)
    if found is None:
        report.skipped.append((_printable(name), f"not code or a document ({file.suffix or 'no extension'})"))
        return None
    if found == "code" and language is None:
        report.skipped.append((_printable(name), "--type code: the language of this file is not known"))
        return None
    return Source(file, name, text, found, language)


def detect(name: str, text: str, language: str | None = None) -> str | None:
    """A document's kind from its name and content: code by its language; a journal when dated
    entries open many of its paragraphs; a process when it has a steps or ingredients heading and a
    numbered list; Markdown by its extension; other text is narrative. None: neither."""
    if language:
        return "code"
    ext = os.path.splitext(name)[1].lower()
    if ext not in MARKDOWN_EXTS and ext not in TEXT_EXTS:
        return None
    head = text[:200_000]
    paragraphs = max(1, len(re.findall(r"(?:\A|\n[ \t]*\n)[ \t]*\S", head)))
    dated = sum(1 for line in head.splitlines()[:2000] if entry_date(line))
    if dated >= 2 and dated >= 0.3 * paragraphs:
        return "journal"
    if _PROCESS_CUE.search(head) and len(_NUMBERED.findall(head)) >= 2:
        return "process"
    return "markdown" if ext in MARKDOWN_EXTS else "narrative"


def topic_for(src: Source, max_depth: int) -> str:
    """Where a source's chunks go: `code/<project>/<module>`, `docs/…`, `journal/…` — the kind's
    root and the source's path without its extension, squeezed into `max_depth` levels."""
    parts = [notes.slugify(p, 40) for p in src.name.rsplit(".", 1)[0].split("/") if p]
    parts = [ROOT_OF[src.kind]] + parts
    if len(parts) > max_depth:
        parts = parts[: max_depth - 1] + ["-".join(parts[max_depth - 1 :])[:60].rstrip("-")]
    return "/".join(parts)


_CONTAINERS = ("class:", "struct:", "interface:", "enum:", "trait:", "impl:", "object:", "extension:", "protocol:")


def _members(chunker, c: Chunk, limit: int) -> list[Chunk]:
    """A class, even a small one, as its header and its members: an agent asks for the method
    (`reserveStock soft hold`), and one memory per member answers with it, not with the class."""
    if not c.symbol.startswith(_CONTAINERS) or c.header:
        return [c]
    parts = [p for p in chunker.chunk(c.text, 1) if p.text]  # limit 1: split per member
    if len(parts) < 2 or "".join(p.text for p in parts) != c.text:
        return [c]
    shift = c.first_line - 1
    return [
        replace(p, first_line=p.first_line + shift, last_line=p.last_line + shift, oversized=len(p.text) > limit)
        for p in parts
    ]


def _key(c: Chunk) -> str:
    """A chunk's place in its source, stable when other parts of the file change."""
    if c.symbol:
        return f"{c.header.strip()}/{c.symbol}" if c.header else c.symbol
    if c.date:
        return f"date:{c.date}"
    return f"heading:{c.heading}" if c.heading else "part"


def _chunk_id(source: str, key: str) -> str:
    return notes.derived_id(f"{source}\0{key}")


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def _body(c: Chunk, src: Source) -> str:
    """What the memory file holds: code in a fence (a person reads it as code, Markdown does not
    take its `#` comments for headings), documents as they are."""
    if src.kind != "code":
        return c.text if c.text.endswith("\n") else c.text + "\n"
    ticks = max([len(m) for m in re.findall(r"`{3,}", c.text)] + [2]) + 1
    fence = "`" * ticks
    return f"{fence}{src.language}\n{c.text}{'' if c.text.endswith(chr(10)) else chr(10)}{fence}\n"


def _front_matter(c: Chunk, src: Source) -> dict:
    fields: dict = {"kind": src.kind, "lines": f"{c.first_line}-{c.last_line}"}
    if src.kind == "code":
        fields.update({"language": src.language, "symbol": c.symbol or "module", "facts": []})
    if c.header:
        fields["header"] = c.header.strip()
    if c.oversized:
        fields["oversized"] = True
    fields["ingested"] = _digest(_body(c, src))
    return fields


def _title(c: Chunk, src: Source) -> str:
    base = src.file.name
    if src.kind == "code":
        what = c.symbol.split(":", 1)[-1] if c.symbol else ""
        owner = re.search(r"\b(?:class|struct|interface|enum|trait|impl|object|record)\s+(\w+)", c.header or "")
        if c.symbol == "imports" or not what:
            return f"{base}: {'imports' if c.symbol == 'imports' else f'lines {c.first_line}-{c.last_line}'}"
        return f"{owner.group(1)}.{what} ({base})" if owner else f"{what} ({base})"
    if c.heading:
        return notes.shorten(c.heading, 80)
    return notes.title_from_body(c.text, f"{base} lines {c.first_line}-{c.last_line}")


def _printable(name: str) -> str:
    """A file's name as a report line can show it: control characters escaped."""
    return name if name.isprintable() else name.encode("unicode_escape").decode("ascii")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
