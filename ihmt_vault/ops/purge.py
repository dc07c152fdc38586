"""Purge: `forget ID --purge` takes a memory's text out of everything a `git clone`, a backup of the
folder or the published site could reach, proves it, and keeps it from coming back. Its steps,
journalled under `.ihmt/cache/purge/<id>.json` (never committed) so that a crash at any point is
finished by `doctor --repair` or the same purge again:

  delete   find every blob that is a version of the memory — by id in any front-matter layout
           (a byte-order mark, quotes, a comment after it), as the `conflict_of` of a conflict
           copy (and that copy's own versions), by the file's path history (`git log --follow`:
           versions committed by hand before it had an id) — then one commit deletes the memory
           and its current copies and records the tombstones (`.ihmt/purged.json`, below).
  rewrite  decide the needles (what of the text could be found: titles, names, the first line,
           every line of 12 characters or more, the keywords it gave summaries), keep only the
           distinctive ones (found in nothing the vault keeps: HEAD's files, their paths, git's own
           files), find more versions by content (the same normalised body, or a file made mostly
           of its lines), scrub generated summaries and other old files of the needles, then
           `gitlog.rewrite_history` (every ref and reflog kept, stashes included).
  caches   the search index, the catalog and the site's output and staging are rebuilt from the
           files or removed; any other cache file holding a needle is removed.
  prove    every git object (reachable or not), every file git keeps besides objects, every file
           of the vault folder (caches included) is searched for the needles, folded.

`.ihmt/purged.json` holds ids and blob hashes only, never text: {"format": 1, "purged": [{"id":
..., "copies": [ids of conflict copies purged with it], "blobs": [hashes of its versions]}, ...]},
one entry a line (two machines' tombstones merge as a union). Sync refuses to bring any of them
back (sync.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from urllib.parse import quote

from .. import files
from ..engine.core import CACHE, Engine
from ..errors import BadInput, NotFound, Refused, VaultError
from ..results import ForgetReport
from ..storage import gitlog, notes, tree
from ..storage.notes import Memory
from ..text import fold

PURGE_DIR = f"{CACHE}/purge"
TOMBSTONES = ".ihmt/purged.json"
REWRITTEN = "rewritten-commits.txt"  # in PURGE_DIR: commits a purge replaced (sync names an old remote)
_MIN_LINE = 12  # shorter lines of a body are too common to be needles
PROOF_CHECK = (
    "every git object, reachable or not (git cat-file --batch-all-objects --batch), every file git "
    "keeps besides objects (refs, reflogs, indexes, messages), every file in the vault folder "
    "(.ihmt/cache included); folded (lower case, accents removed); in binary files only "
    "needles of 12+ characters or several words"
)
_KEYED_ID = re.compile(r"^[ \t]*(id|conflict_of)[ \t]*:[ \t]*(['\"]?)([0-9A-Za-z_.-]+)\2[ \t]*(?:#.*)?\r?$", re.M)


@dataclass
class PurgeReport(ForgetReport):
    """What a purge did and what its proof found (`to_dict()` stays ForgetReport's until the
    front ends show the rest; `details()` has everything)."""

    traces: int | None = None  # needles found anywhere after the purge: 0 is the goal
    trace_locations: list[str] = field(default_factory=list)
    check: str = ""  # what the proof searched
    needles: int = 0  # how many distinct needles it searched for
    removed: list[str] = field(default_factory=list)  # files deleted: the memory and its copies
    versions: int = 0  # blobs dropped from history
    scrubbed: int = 0  # blobs rewritten (summaries, other old files)
    stashes: list[str] = field(default_factory=list)  # stash entries rewritten or dropped, and why
    shared: list[str] = field(default_factory=list)  # kept files holding lines of the text (left alone)
    caches_cleared: list[str] = field(default_factory=list)
    resumed: bool = False
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        base = {f.name for f in fields(ForgetReport)}
        return {k: v for k, v in self.details().items() if k in base and v is not None and (k != "cancelled" or v)}

    def details(self) -> dict:
        return asdict(self)


@dataclass
class Tombstones:
    """Purged ids and the blob hashes of their versions (from `.ihmt/purged.json`)."""

    ids: dict[str, str] = field(default_factory=dict)  # purged id (a copy's too) → the memory purged
    blobs: dict[str, str] = field(default_factory=dict)  # blob hash → the memory purged
    entries: dict[str, dict] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def add(self, entry: dict) -> None:
        key = str(entry.get("id") or "")
        if not key:
            return
        old = self.entries.get(key, {})
        merged = {
            "id": key,
            "copies": sorted({*old.get("copies", []), *map(str, entry.get("copies") or [])}),
            "blobs": sorted({*old.get("blobs", []), *map(str, entry.get("blobs") or [])}),
        }
        self.entries[key] = merged
        for i in [key, *merged["copies"]]:
            self.ids[i] = key
        for b in merged["blobs"]:
            self.blobs[b] = key

    def union(self, other: Tombstones) -> Tombstones:
        out = Tombstones()
        for entry in [*self.entries.values(), *other.entries.values()]:
            out.add(entry)
        return out

    def holds(self, sha: str, data: bytes) -> str | None:
        """The purged memory this blob is a version of, or None."""
        if sha in self.blobs:
            return self.blobs[sha]
        if not any(i.encode() in data[:8192] for i in self.ids):
            return None
        own, of = front_ids(data.decode("utf-8", "replace"))
        hit = next((i for i in sorted(own | of) if i in self.ids), None)
        return self.ids[hit] if hit else None

    def to_text(self) -> str:
        lines = [json.dumps(self.entries[k], sort_keys=True) for k in sorted(self.entries)]
        return '{"format": 1, "purged": [\n' + ",\n".join(lines) + "\n]}\n"


def parse_tombstones(text: str | None) -> Tombstones:
    out = Tombstones()
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return out
    for entry in data.get("purged", []) if isinstance(data, dict) else []:
        if isinstance(entry, dict):
            out.add(entry)
    return out


def tombstones(e: Engine, rev: str | None = None) -> Tombstones:
    """The tombstones of a revision; without one, HEAD's and the work tree's together."""
    if rev:
        return parse_tombstones(e.repo.show(rev, TOMBSTONES))
    here = e.layout.abs(TOMBSTONES)
    return parse_tombstones(e.repo.show("HEAD", TOMBSTONES)).union(
        parse_tombstones(here.read_text(encoding="utf-8") if here.is_file() else None)
    )


def front_ids(text: str) -> tuple[set[str], set[str]]:
    """(ids, conflict_of ids) a file declares, whatever its front matter looks like: a byte-order
    mark, CRLF, quotes, a comment after the value, or a block that does not parse."""
    head = text[:8192].lstrip("\ufeff")
    block, _ = notes.split_front_matter(head)
    area = block if block is not None else head[:2048]
    own: set[str] = set()
    of: set[str] = set()
    for key, _q, value in _KEYED_ID.findall(area):
        (own if key == "id" else of).add(value)
    return own, of


@dataclass
class Needles:
    """What of a purged memory's text could be found, folded (lower case, accents removed)."""

    text: dict[str, str] = field(default_factory=dict)  # needle → kind (title, name, first-line, line)
    keywords: list[str] = field(default_factory=list)  # words it gave summaries
    originals: list[str] = field(default_factory=list)  # the text needles as written (messages)
    distinctive: list[str] = field(default_factory=list)  # text needles found in nothing the vault keeps
    distinct_keywords: list[str] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)  # kept files holding some lines of it

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Needles:
        return cls(
            **{
                k: data[k]
                for k in ("text", "keywords", "originals", "distinctive", "distinct_keywords", "shared")
                if k in data
            }
        )

    def matcher(self) -> _Matcher:
        return _Matcher(self.distinctive, self.distinct_keywords)

    def count(self) -> int:
        return len(set(self.distinctive) | set(self.distinct_keywords))


class _Matcher:
    """Finds needles in folded text: phrases as substrings, keywords as whole words."""

    def __init__(self, phrases, words):
        self.phrases = sorted(set(p for p in phrases if p), key=len, reverse=True)
        self.words = sorted(set(w for w in words if w), key=len, reverse=True)
        self.long = [p for p in self.phrases if len(p) >= _MIN_LINE or re.search(r"\W", p)]
        self._p = re.compile("|".join(map(re.escape, self.phrases))) if self.phrases else None
        self._w = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, self.words)) + r")(?!\w)") if self.words else None

    def found(self, folded: str, binary: bool = False) -> set[str]:
        hits: set[str] = set()
        if self._p and self._p.search(folded):
            hits |= {p for p in (self.long if binary else self.phrases) if p in folded}
        if self._w and not binary:
            hits |= set(self._w.findall(folded))
        return hits


def purge(
    e: Engine, ref: Memory | str, confirm: Callable[[int], bool] | None = None, source: str | None = None
) -> PurgeReport:
    """Delete a memory and take its text out of all of git history, the caches and the site, then
    prove it (see above); `confirm(n)` is asked first with the number of commits that change.

    `ref` is the memory, or its id or path: a purge a crash interrupted is finished by naming it
    again (its file is gone by then, so it is found by its journal, not resolved)."""
    key = ref.id if isinstance(ref, Memory) else str(ref).strip()
    pending = _find_journal(e, key)
    if pending is not None:
        return finish_purge(e, pending["id"], source)
    other = next(iter(interrupted_purges(e)), None)
    if other is not None:  # one rewrite at a time: its saved reflogs and plan are for its memory
        raise BadInput(f"the purge of memory {other[0]} was interrupted; finish it first with 'ihmt doctor --repair'")
    m = ref if isinstance(ref, Memory) else e.get(ref)
    if e.repo.branch() is None:  # a rewrite carries refs over; a detached HEAD is not one
        raise BadInput("the vault's repository is on a detached HEAD; check out a branch before purging")
    key = m.id or "path-" + hashlib.sha1(m.path.encode()).hexdigest()[:12]
    log = e.repo.log(m.path, follow=True)
    count = gitlog.commits_touching_since(e.repo, log[-1].sha) + 1 if log else 1
    if confirm is not None and not confirm(count):
        return PurgeReport(m.id, purged=False, cancelled=True, commits=count)
    paths = sorted({c.paths[0] for c in log if c.paths} | {m.path})
    with e.lock.held(what="purge"):
        if not e.layout.abs(m.path).is_file():
            raise NotFound(f"{m.path}: no such memory file (deleted meanwhile?)")
        duplicates = (
            [r.path for r in e.catalog.by_digest(notes.digest_of(m.body)) if r.path != m.path] if m.body.strip() else []
        )
        _write_journal(
            e,
            {
                "id": key,
                "ids": [m.id] if m.id else [],
                "paths": paths,
                "step": "delete",
                "removals": sorted({m.path, *duplicates}),
                "count": count,
            },
        )
        return _run(e, key, source, resumed=False)


def interrupted_purges(e: Engine) -> list[tuple[str, str, str]]:
    """Purges a crash cut short: (memory id, journal path in the vault, step it was at)."""
    out = []
    for file in sorted((e.root / PURGE_DIR).glob("*.json")):
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            out.append((str(data["id"]), file.relative_to(e.root).as_posix(), str(data.get("step", "delete"))))
        except (OSError, ValueError, KeyError, TypeError):
            out.append((file.stem, file.relative_to(e.root).as_posix(), "unreadable"))
    return out


def finish_purge(e: Engine, key: str, source: str | None = None) -> PurgeReport:
    """Finish a purge a crash interrupted, from its journal (no confirmation: it was given)."""
    with e.lock.held(what="purge"):
        if _find_journal(e, key) is None:
            raise NotFound(f"{key}: no interrupted purge of this memory")
        return _run(e, key, source, resumed=True)


def _journal_file(e: Engine, key: str) -> Path:
    return e.root / PURGE_DIR / f"{notes.slugify(key, 80)}.json"


def _find_journal(e: Engine, ref: str) -> dict | None:
    """A purge in progress of the memory named by id, by journal key or by one of its paths."""
    if not ref or not (e.root / PURGE_DIR).is_dir():
        return None
    for file in sorted((e.root / PURGE_DIR).glob("*.json")):
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and (
            ref == data.get("id")
            or ref in data.get("ids", [])
            or ref in data.get("paths", [])
            or ref in data.get("removals", [])
        ):
            return data
    return None


def _write_journal(e: Engine, data: dict) -> None:
    file = _journal_file(e, data["id"])
    file.parent.mkdir(parents=True, exist_ok=True)
    files.atomic_write(file, json.dumps(data, sort_keys=True))


def _run(e: Engine, key: str, source: str | None, resumed: bool) -> PurgeReport:
    """Run (or resume) a journalled purge from the step it is at."""
    j = json.loads(_journal_file(e, key).read_text(encoding="utf-8"))
    ids = set(j.get("ids", []))
    report = PurgeReport(key, purged=True, resumed=resumed, removed=list(j.get("removed", [])), check=PROOF_CHECK)
    versions: dict[str, str] = {}
    if j["step"] == "delete":
        versions, ids = _find_versions(e, ids, {b for p in j["paths"] for b in e.repo.follow_blobs(p)})
        for rel in j["removals"]:  # as on disk now (edited since its last commit, or never committed)
            try:
                data = e.layout.abs(rel).read_bytes()
            except OSError:
                continue
            if (text := _text(data)) is not None:
                versions.setdefault(gitlog.blob_hash(data), text)
        head = e.repo.tree_blobs("HEAD")
        copies = sorted(
            {
                p
                for rp, sha in head.items()
                if sha in versions and (p := e.repo.vault_path(rp)) and e.layout.is_memory_path(p)
            }
            | set(j["removals"])
        )
        current = {head[r] for r in map(e.repo.repo_path, copies) if r in head}
        marks = _tombstone_entry(key, ids, set(versions) | current)
        mentions = _mentions(e, head, ids)
        try:
            with e.transaction(
                "edit",
                f"forget: purged memory {key}",
                [("Memory-Id", i) for i in sorted(ids)] + [("Memory-Op", "edit")],
                source,
            ) as tx:
                for rel in copies:
                    tx.remove(rel)
                for rel, text in mentions.items():
                    tx.write(rel, text)
                tx.write(TOMBSTONES, tombstones(e).union(marks).to_text())
        except Refused:  # not this member's to purge: nothing happened, nothing left to resume
            _journal_file(e, key).unlink(missing_ok=True)
            raise
        report.removed = copies
        j.update(step="rewrite", ids=sorted(ids), removed=copies, versions=sorted(versions))
        _write_journal(e, j)
    if j["step"] == "rewrite":
        rewritten = _rewrite(e, j, versions, ids)
        report.commits = rewritten.commits
        report.stashes = [f"{s.selector} ({s.message.strip()}): {s.outcome}" for s in rewritten.stashes]
        with open(e.root / PURGE_DIR / REWRITTEN, "a", encoding="utf-8") as f:
            f.writelines(sha + "\n" for sha in rewritten.old_commits)
        j = json.loads(_journal_file(e, key).read_text(encoding="utf-8"))
        j.update(step="caches", commits=rewritten.commits, stashes=report.stashes)
        _write_journal(e, j)
    needles = Needles.from_json(j["needles"])
    if j["step"] == "caches":
        j.update(step="prove", caches=_clear_caches(e, needles.matcher()))
        _write_journal(e, j)
    report.commits = j.get("commits", report.commits)
    report.stashes = j.get("stashes", report.stashes)
    report.caches_cleared = j.get("caches", [])
    report.removed = j.get("removed", report.removed)
    report.versions, report.scrubbed = len(j.get("drop", [])), int(j.get("scrubbed", 0))
    report.shared = needles.shared
    _journal_file(e, key).unlink(missing_ok=True)  # the one place the text was kept meanwhile
    found, where = _prove(e, needles.matcher())
    report.traces, report.trace_locations, report.needles = found, where[:50], needles.count()
    if report.shared:
        report.notices.append(
            f"lines of its text are also in {', '.join(report.shared[:5])}: edit those memories "
            f"if the text must go from them too"
        )
    if e.repo.remotes():
        report.notices.append(
            "remotes still hold the text: force-push (git push --force-with-lease; a host keeps "
            "the old commits until its own clean-up), then re-clone every other copy or run "
            "this purge there too ('ihmt sync' refuses until then)"
        )
    report.notices.append("a site built with 'ihmt site build --out' elsewhere still holds it: build it again")
    return report


def _mentions(e: Engine, head: dict[str, str], ids: set[str]) -> dict[str, str]:
    """Other files of the vault that name the memory line by line (the operations log, recall
    statistics, ...): {path: their text without those lines}. Memories (a correction's
    `supersedes`) and summaries (regenerated) are not among them."""
    wanted = {}
    for repo_path, sha in head.items():
        rel = e.repo.vault_path(repo_path)
        if rel and rel != TOMBSTONES and not e.layout.is_memory_path(rel) and not rel.endswith(tree.INDEX):
            wanted[sha] = rel
    out = {}
    for sha, _kind, data in e.repo.objects(sorted(wanted)):
        text = _text(data)
        if text is None or not any(i in text for i in ids):
            continue
        file = e.layout.abs(wanted[sha])
        try:
            now = files.read_exact(file)
        except (OSError, UnicodeDecodeError):
            continue
        kept = "".join(line for line in now.splitlines(keepends=True) if not any(i in line for i in ids))
        if kept != now:
            out[wanted[sha]] = kept
    return out


def _tombstone_entry(key: str, ids: set[str], blobs: set[str]) -> Tombstones:
    t = Tombstones()
    t.add({"id": key, "copies": sorted(ids - {key}), "blobs": sorted(blobs)})
    return t


def _text(data: bytes) -> str | None:
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _find_versions(e: Engine, ids: set[str], lineage: set[str]) -> tuple[dict[str, str], set[str]]:
    """Every blob (of every ref and reflog) that is a version of the memory: {sha: text}, and the
    ids found on the way (its conflict copies', and their copies')."""
    versions: dict[str, str] = {}
    for _round in range(4):
        before = set(ids)
        for sha, data in e.repo.blobs():
            if sha in versions or (sha not in lineage and not any(i.encode() in data[:8192] for i in ids)):
                continue
            text = _text(data)
            if text is None:
                continue
            own, of = front_ids(text)
            if (own | of) & ids or (sha in lineage and (not own or own & ids)):
                versions[sha] = text
                ids |= own
        if ids == before:
            break
    return versions, ids


def _parsed(text: str) -> tuple[str, str, list[str]]:
    """(title, body, tags) of a file's text, however broken its front matter."""
    try:
        m = notes.parse(text, "memory.md")
        return m.title, m.body, m.tags
    except VaultError:
        _block, body = notes.split_front_matter(text)
        return notes.title_from_body(body, ""), body, []


def _candidates(versions: dict[str, str], paths: list[str]) -> Needles:
    n = Needles()

    def add(value: str, kind: str) -> None:
        value = " ".join(value.split()).rstrip("…").strip()
        if len(value) >= (_MIN_LINE if kind in ("line", "first-line") else 4):
            n.text.setdefault(fold(value), kind)
            n.originals.append(value)

    keywords: set[str] = set()
    for text in versions.values():
        title, body, tags = _parsed(text)
        add(title, "title")
        add(notes.slugify(title), "name")
        add(notes.first_line(body)[:40], "first-line")
        for line in body.splitlines():
            add(line.strip(), "line")
        keywords.update(tree.keywords(title, body, tags))
    for p in paths:
        add(p.rpartition("/")[2].removesuffix(".md"), "name")
    n.originals = sorted(set(n.originals))
    n.keywords = sorted(keywords)
    return n


def _kept_corpus(e: Engine, protected: dict[str, str]) -> Iterable[tuple[str, str]]:
    """(where, folded text) of everything the vault keeps: HEAD's files and their paths, the names of
    the people in its commits, git's own files."""
    yield "(paths)", fold("\n".join(protected))
    yield "(authors)", fold("\n".join(sorted(e.repo.identities())))
    by_sha = {sha: path for path, sha in protected.items()}
    for sha, _kind, data in e.repo.objects(sorted(by_sha)):
        text = _text(data)
        if text is not None:
            yield by_sha[sha], fold(text)
    for f in e.repo.metadata_files():
        parts = f.parts
        if "hooks" in parts or "info" in parts or f.name in ("config", "description"):
            try:
                yield "(git)", fold(f.read_bytes().decode("utf-8", "replace"))
            except OSError:
                continue


def _rewrite(e: Engine, j: dict, versions: dict[str, str], ids: set[str]) -> gitlog.Rewritten:
    head = e.repo.tree_blobs("HEAD")
    tomb_repo_path = e.repo.repo_path(TOMBSTONES)
    protected = {p: sha for p, sha in head.items() if p != tomb_repo_path}
    if "needles" in j:  # resumed: the versions may be gone from history already
        needles, drop = Needles.from_json(j["needles"]), set(j["drop"])
        digests, learn = set(j.get("digests", [])), False
    else:
        if not versions:
            versions, ids = _find_versions(
                e, ids, set(j.get("versions", [])) | {b for p in j["paths"] for b in e.repo.follow_blobs(p)}
            )
        needles = _candidates(versions, j["paths"] + j.get("removed", []))
        drop = set(versions) | set(j.get("versions", []))
        digests = {notes.digest_of(_parsed(t)[1]) for t in versions.values()}
        learn = True
        gitlog.saved_reflogs(e.repo).unlink(missing_ok=True)  # not this purge's: its rewrite has not begun
        everything = _Matcher(list(needles.text), needles.keywords)
        seen_text, seen_words, shared = set(), set(), set()
        for where, folded in _kept_corpus(e, protected):
            hits = everything.found(folded)
            seen_text |= hits & set(needles.text)
            seen_words |= hits & set(needles.keywords)
            vp = e.repo.vault_path(where) if where[0] != "(" else None
            if vp and e.layout.is_memory_path(vp) and any(needles.text.get(h) in ("line", "first-line") for h in hits):
                shared.add(vp)
        needles.distinctive = sorted(set(needles.text) - seen_text)
        needles.distinct_keywords = sorted(set(needles.keywords) - seen_words)
        needles.shared = sorted(shared)
    keep = set(protected.values())
    lines = {t for t, kind in needles.text.items() if kind in ("line", "first-line") and t in needles.distinctive}
    summaries, others = [], []
    words = _Matcher([], needles.distinct_keywords)
    phrases = _Matcher(needles.distinctive, [])
    for sha, data in e.repo.blobs():
        if sha in drop or sha in keep:
            continue
        text = _text(data)
        if text is None:
            continue
        block, body = notes.split_front_matter(text)
        if block is not None and re.search(r"^generated:\s*true\s*$", block, re.M):
            summaries.append(sha)
            continue
        own, _of = front_ids(text)
        body_lines = [fold(" ".join(x.split())) for x in body.splitlines() if x.strip()]
        if (
            not (own - ids)
            and body_lines
            and (notes.digest_of(body) in digests or sum(1 for x in body_lines if x in lines) * 2 >= len(body_lines))
        ):
            drop.add(sha)  # a copy of it by content: no id, or its own
            continue
        folded = fold(text)
        if learn:
            needles.distinct_keywords = [w for w in needles.distinct_keywords if w not in words.found(folded)]
        if phrases.found(folded):
            others.append(sha)
    if learn:
        j.update(needles=needles.to_json(), drop=sorted(drop), digests=sorted(digests))
        _write_journal(e, j)  # from here on the text is needed: history is about to lose it
    replace = _scrubbed(e, summaries, others, needles, j["paths"] + j.get("removed", []))
    tomb_sha = head.get(tomb_repo_path)
    new_blobs = drop - set(tombstones(e).blobs)
    if tomb_sha and new_blobs:  # copies found by content: their hashes join the tombstones
        replace[tomb_sha] = tombstones(e).union(_tombstone_entry(j["id"], ids, new_blobs)).to_text().encode()
    j["scrubbed"] = len(replace)
    _write_journal(e, j)
    plan = gitlog.PurgePlan(drop=drop, replace=replace, scrub_message=_message_scrubber(needles), ids=ids)
    rewritten = gitlog.rewrite_history(e.repo, plan)
    committed = e.repo.show("HEAD", TOMBSTONES)  # completed by the rewrite (now, or by a run a crash cut short)
    here = e.layout.abs(TOMBSTONES)
    if committed is not None and (not here.is_file() or files.read_exact(here) != committed):
        files.atomic_write(here, committed)
        e.repo.stage([TOMBSTONES])
    return rewritten


def _scrubbed(
    e: Engine, summaries: list[str], others: list[str], needles: Needles, paths: list[str]
) -> dict[str, bytes]:
    """New content for old summaries and old files that hold the needles."""
    names = set()
    for p in paths:
        name = p.rpartition("/")[2]
        names |= {f"]({name})", f"]({quote(name)})", f"](./{name})"}
    phrases = _Matcher(needles.distinctive, [])
    kinds = {sha: "summary" for sha in summaries} | {sha: "other" for sha in others}
    out = {}
    for sha, _kind, data in e.repo.objects(sorted(kinds)):
        text = data.decode("utf-8")
        kept = []
        for line in text.splitlines(keepends=True):
            if phrases.found(fold(line)) or (kinds[sha] == "summary" and any(n in line for n in names)):
                continue
            if kinds[sha] == "summary":
                for w in needles.distinct_keywords:
                    line = _drop_word(line, w)
            kept.append(line)
        new = "".join(kept).encode("utf-8")
        if new != data:
            out[sha] = new
    return out


def _drop_word(line: str, word: str) -> str:
    w = rf"(?<!\w){re.escape(word)}(?!\w)"
    if not re.search(w, line, re.I):
        return line
    line = re.sub(w + r"[ \t]*,[ \t]*", "", line, flags=re.I)
    line = re.sub(r"[ \t]*,[ \t]*" + w, "", line, flags=re.I)
    return re.sub(w, "", line, flags=re.I)


def _message_scrubber(needles: Needles) -> Callable[[bytes, bool], bytes]:
    everything = sorted(set(needles.originals) | set(needles.text), key=len, reverse=True)
    distinct = set(needles.distinctive)
    some = sorted(
        {o for o in needles.originals if fold(" ".join(o.split())) in distinct} | distinct, key=len, reverse=True
    )
    words = [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)", re.I) for w in needles.distinct_keywords]
    left_all, left_some = _Matcher(list(needles.text), needles.distinct_keywords), needles.matcher()

    def scrub(msg: bytes, mine: bool) -> bytes:
        text = msg.decode("utf-8", "surrogateescape")
        for n in everything if mine else some:
            text = re.sub(re.escape(n), "(purged)", text, flags=re.I)
        for w in words:
            text = w.sub("(purged)", text)
        left = left_all if mine else left_some
        if left.found(fold(text)):  # another spelling (accents, spacing): the whole line goes
            text = "".join("(purged)\n" if left.found(fold(line)) else line for line in text.splitlines(keepends=True))
        return text.encode("utf-8", "surrogateescape")

    return scrub


def _clear_caches(e: Engine, matcher: _Matcher) -> list[str]:
    """Derived copies of the text: rebuilt from the files, or removed. Returns what was removed."""
    cache = e.root / CACHE
    cleared = []
    for name in ("site", "site-src"):  # the site's output and staging (site.py); built again on demand
        if (cache / name).exists():
            shutil.rmtree(cache / name, ignore_errors=True)
            cleared.append(f"{CACHE}/{name}")
    e.index.destroy()  # deleted documents linger in index segments
    e.rebuild_caches()
    e.catalog.compact()  # deleted rows linger in free pages and the WAL
    skip = {e.index.dir.resolve(), (e.root / PURGE_DIR).resolve()}
    for file in sorted(cache.rglob("*")):
        if (
            not file.is_file()
            or file.name.startswith("catalog.sqlite")
            or any(s in file.resolve().parents for s in skip)
        ):
            continue
        try:
            data = file.read_bytes()
        except OSError:
            continue
        if matcher.found(fold(data.decode("utf-8", "replace")), binary=b"\0" in data[:8192]):
            file.unlink(missing_ok=True)
            cleared.append(file.relative_to(e.root).as_posix())
    e.mark_fresh()
    return cleared


def _prove(e: Engine, matcher: _Matcher) -> tuple[int, list[str]]:
    """Search everything a clone, a backup or the site could reach for the needles."""
    where = []

    def look(label: str, data: bytes) -> None:
        if matcher.found(fold(data.decode("utf-8", "replace")), binary=b"\0" in data[:8192]):
            where.append(label)

    for sha, kind, data in e.repo.objects():
        look(f"git object {sha[:12]} ({kind})", data)
    git_root = e.repo.common_dir()
    for f in e.repo.metadata_files():
        try:
            shown = f.relative_to(git_root.parent) if f.is_relative_to(git_root.parent) else f
            look(f"git file {shown}", f.read_bytes())
        except OSError:
            continue
    for dirpath, dirnames, filenames in os.walk(e.root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            file = Path(dirpath) / name
            try:
                look(file.relative_to(e.root).as_posix(), file.read_bytes())
            except OSError:
                continue
    return len(where), where
