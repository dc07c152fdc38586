"""A code project's map and symbols, for the project tools (`project_map`, `find_code`).

The index lives beside the vault, never inside it: `~/.ihmt/projects/<hash of the project's path>/
index.json`. It is never stale: every use syncs it first — each file's size and modification time
are compared (a stat, cheap), a file whose stat moved is hashed, and only a file whose hash moved is
cut again by the code chunker (`code.py`, through the plugin door). A lost or broken index file is
rebuilt; writing it is atomic.

Symbols are members, not whole classes: the chunker is asked with a limit so small that every class
splits into its header and its members, so `find_code("reserveStock soft hold")` answers with the
method. Ranking is BM25 over the analysed symbol (name, enclosing header, file path, code), with a
file the query names preferred, tests demoted unless asked for, and import blocks never answered.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import files
from ..errors import BadInput
from ..plugins import manager as plugins
from ..plugins.source_code import language_of
from ..search.analysis import analyze
from ..search.result import estimate_tokens
from ..storage import sources

VERSION = 1
_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|testing|__tests__|spec)(?:/|$)|(?:^|/)test_[^/]*$|_test\.\w+$|"
    r"(?:Test|Tests|Spec)\.\w+$|\.(?:test|spec)\.\w+$"
)
K1, B = 1.2, 0.75
TIE = 0.99  # the second best within 1% of the best: AMBIGUOUS
WEIGHTS = (1.0, 0.5, 1.0)  # name, path, code: each field normalised by its own length


@dataclass
class Symbol:
    name: str  # "method:reserveStock", "class:InventoryService", "function:main"
    first: int
    last: int
    header: str = ""  # the enclosing class's declaration, for a member


@dataclass
class Entry:
    path: str  # relative to the project root, POSIX
    size: int
    mtime_ns: int
    sha: str
    tokens: int
    language: str | None = None
    symbols: list[Symbol] = field(default_factory=list)


@dataclass
class Found:
    """`find_code`'s answer: the symbols that answer (best first), or AMBIGUOUS candidates."""

    status: str  # found | ambiguous | not_found
    hits: list[tuple[Entry, Symbol, float]] = field(default_factory=list)
    text: str = ""


def index_dir(root: Path, home: Path | None = None) -> Path:
    key = hashlib.sha1(str(root).encode()).hexdigest()[:16]
    return (home or Path.home()) / ".ihmt" / "projects" / key


def is_test(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


class Project:
    """One project's index; `sync()` is called by every query, so answers are never stale."""

    def __init__(self, root: str | Path, home: Path | None = None):
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise BadInput(f"{root}: not a folder; give the project's folder")
        self.file = index_dir(self.root, home) / "index.json"
        self.entries: dict[str, Entry] = {}
        self.changed = 0  # files re-cut by the last sync
        self._terms: dict[tuple, tuple] = {}  # a symbol's analysed fields, while its file is unchanged

    # -- the index --------------------------------------------------------------------------------
    def _load(self) -> dict[str, Entry]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
            if data.get("version") != VERSION or data.get("root") != str(self.root):
                return {}
            return {p: Entry(**{**e, "symbols": [Symbol(**s) for s in e["symbols"]]}) for p, e in data["files"].items()}
        except (OSError, ValueError, TypeError, KeyError):
            return {}  # missing or broken: rebuilt from the files

    def _save(self) -> None:
        data = {"version": VERSION, "root": str(self.root), "files": {p: asdict(e) for p, e in self.entries.items()}}
        files.atomic_write(self.file, json.dumps(data, ensure_ascii=False))

    def sync(self) -> Project:
        old = self.entries or self._load()
        now: dict[str, Entry] = {}
        self.changed = 0
        chunkers: dict | None = None  # looked up once, and only when a file must be cut again
        for file in sources.walk(self.root):
            rel = file.relative_to(self.root).as_posix()
            try:
                st = file.stat()
            except OSError:
                continue
            prev = old.get(rel)
            if prev and (prev.size, prev.mtime_ns) == (st.st_size, st.st_mtime_ns):
                now[rel] = prev
                continue
            text, _why = sources.read_text(file)
            if text is None:
                continue
            sha = hashlib.sha1(text.encode("utf-8")).hexdigest()
            if prev and prev.sha == sha:  # touched, not changed: keep its symbols
                now[rel] = Entry(rel, st.st_size, st.st_mtime_ns, sha, prev.tokens, prev.language, prev.symbols)
                continue
            chunkers = plugins.chunkers_by_name() if chunkers is None else chunkers
            now[rel] = self._entry(rel, text, st, sha, chunkers)
            self.changed += 1
        dirty = self.changed or set(now) != set(old) or any(now[p] is not old.get(p) for p in now)
        self.entries = now
        if dirty or not self.file.exists():
            self._save()
        return self

    def _entry(self, rel: str, text: str, st: os.stat_result, sha: str, chunkers: dict) -> Entry:
        language = language_of(rel, text)
        symbols = []
        if language:
            chunker = chunkers.get(language)
            if chunker is not None:
                for c in chunker.chunk(text, 1):  # limit 1: every class splits into its members
                    if c.symbol and c.symbol not in ("imports", "module") and c.text.strip():
                        symbols.append(Symbol(c.symbol, c.first_line, _last_written(c), c.header.strip()))
        return Entry(rel, st.st_size, st.st_mtime_ns, sha, estimate_tokens(text), language, symbols)

    # -- the map ----------------------------------------------------------------------------------
    def map(self, detail: str = "files", subpath: str = "") -> str:
        if detail not in ("files", "symbols"):
            raise BadInput(f"detail {detail!r}: use files or symbols")
        self.sync()
        prefix = subpath.strip("/")
        chosen = [e for p, e in sorted(self.entries.items()) if not prefix or p == prefix or p.startswith(prefix + "/")]
        if not chosen:
            raise BadInput(f"subpath {subpath!r}: no files there; project_map() lists the project's files")
        total = sum(e.tokens for e in chosen)
        lines = [f"{self.root.name}/{prefix} — {len(chosen)} files, about {total:,} tokens to read whole"]
        for e in chosen:
            lines.append(f"{e.path}  {e.tokens:,} tok" + (f"  {e.language}" if e.language else ""))
            if detail == "symbols":
                lines += [f"  {s.name} {s.first}-{s.last}" for s in e.symbols]
        return "\n".join(lines)

    # -- finding ----------------------------------------------------------------------------------
    def find(
        self, query: str, scope: str = "main", subpath: str = "", clue: str | None = None, max_tokens: int = 1500
    ) -> Found:
        if scope not in ("main", "test", "all"):
            raise BadInput(f"scope {scope!r}: use main, test or all")
        terms = analyze(query)
        if not terms:
            raise BadInput("query: give a few words naming what the code does or is called")
        self.sync()
        prefix = subpath.strip("/")
        docs = []
        for e in self.entries.values():
            if prefix and not (e.path == prefix or e.path.startswith(prefix + "/")):
                continue
            if scope == "test" and not is_test(e.path):
                continue
            for s in e.symbols:
                docs.append((e, s))
        if not docs:
            return Found("not_found", text=f"NOT FOUND: no code symbols in {prefix or self.root.name}")
        fields = self._symbol_fields(docs)
        # BM25F-like: each field normalised by its own length, so a long method is not drowned by
        # the short ones whose name happens to match
        scores = [
            sum(w * x for w, x in zip(WEIGHTS, parts))
            for parts in zip(*(_bm25(terms, [f[i] for f in fields]) for i in range(3)))
        ]
        texts = [a + b + c for a, b, c in fields]
        named = {f for f in {e.path for e, _ in docs} if _names_file(query, f)}
        clue_terms = set(analyze(clue)) if clue else set()
        ranked = []
        for (e, s), text, score in zip(docs, texts, scores):
            if score <= 0:
                continue
            score *= 1.5 if e.path in named else 1.0
            score *= 0.3 if scope == "main" and is_test(e.path) else 1.0
            if clue_terms:
                score *= 2.0 if clue_terms & set(text) else 0.5
            ranked.append((score, e, s))
        ranked.sort(key=lambda x: (-x[0], x[1].path, x[2].first))
        if not ranked:
            return Found("not_found", text=f"NOT FOUND: no symbol matches {query!r}; try other words, or project_map")
        if len(ranked) > 1 and ranked[1][0] >= TIE * ranked[0][0] and not clue:
            tied = [r for r in ranked if r[0] >= TIE * ranked[0][0]][:8]
            lines = [
                f"AMBIGUOUS: {len(tied)} symbols match {query!r} equally; call again with clue=<a word that "
                f"tells them apart> or subpath=<file>:"
            ]
            lines += [
                f"{n}. {e.path}:{s.first}-{s.last} {s.name}" + (f"  (in {s.header})" if s.header else "")
                for n, (_, e, s) in enumerate(tied, 1)
            ]
            return Found("ambiguous", [(e, s, sc) for sc, e, s in tied], "\n".join(lines))
        return self._answer(ranked, max_tokens)

    def _symbol_fields(self, docs) -> list[tuple[list[str], list[str], list[str]]]:
        """Each symbol's terms by field: its name (and enclosing class), its file's path, its code."""
        cache: dict[str, list[str]] = {}
        out = []
        for e, s in docs:
            key = (e.path, e.sha, s.name, s.first)
            if key not in self._terms:
                if e.path not in cache:
                    text, _ = sources.read_text(self.root / e.path)
                    cache[e.path] = (text or "").split("\n")
                body = "\n".join(cache[e.path][s.first - 1 : s.last])
                self._terms[key] = (analyze(f"{s.name.split(':', 1)[-1]} {s.header}"), analyze(e.path), analyze(body))
            out.append(self._terms[key])
        return out

    def _answer(self, ranked, max_tokens: int) -> Found:
        best = ranked[0][0]
        hits: list[tuple[Entry, Symbol, float]] = []
        parts: list[str] = []
        used = 0
        for score, e, s in ranked[:5]:
            if score < 0.5 * best:
                break
            text, _ = sources.read_text(self.root / e.path)
            code = "\n".join((text or "").split("\n")[s.first - 1 : s.last])
            head = f"{e.path}:{s.first}-{s.last} {s.name}" + (f"  (in {s.header})" if s.header else "")
            piece = f"{head}\n{code}"
            cost = estimate_tokens(piece)
            if hits and used + cost > max_tokens:
                parts.append(f"also: {head}")
                continue
            if cost > max_tokens:  # the best symbol alone is too big: its head, and how to read the rest
                keep = max(1, (max_tokens * 4 - len(head)) // 80)
                piece = (
                    f"{head}\n"
                    + "\n".join(code.split("\n")[:keep])
                    + (f"\n[+{code.count(chr(10)) + 1 - keep} lines: read_file {e.path}]")
                )
                cost = estimate_tokens(piece)
            hits.append((e, s, score))
            parts.append(piece)
            used += cost
        return Found("found", hits, "\n\n".join(parts))


def _last_written(c) -> int:
    """A chunk's last line that is not blank: the blank lines after a symbol are not its own."""
    kept = c.text.rstrip(" \t\r\n")
    return max(c.first_line, c.first_line + kept.count("\n"))


def _names_file(query: str, path: str) -> bool:
    """The query names this file ("in _client.py", "the InventoryService")."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].strip("_").lower()
    words = {w.strip("_").lower() for w in re.findall(r"[\w.]+", query)}
    return len(stem) > 2 and (stem in words or f"{stem}.{path.rsplit('.', 1)[-1]}".lower() in words)


def _bm25(query: list[str], docs: list[list[str]]) -> list[float]:
    """Okapi BM25 (k1 1.2, b 0.75) of each document for the query's distinct terms."""
    n = len(docs)
    avg = sum(map(len, docs)) / max(1, n)
    df: Counter = Counter()
    for d in docs:
        df.update(set(d))
    wanted = set(query)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted if df[t]}
    out = []
    for d in docs:
        tf = Counter(t for t in d if t in idf)
        norm = K1 * (1 - B + B * len(d) / avg)
        out.append(sum(idf[t] * tf[t] * (K1 + 1) / (tf[t] + norm) for t in tf))
    return out
