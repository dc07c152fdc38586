"""The Whoosh index of a vault: storage, and the search that runs on it (DESIGN.md, "Search").

A search is three stages, each in its own module: gather the candidates (`candidates.py`: a flat
ranking, the date the question names, a level-wise descent of the tree, the clue), score them
(`scoring.py`), optionally fuse in other rankers (`rankers.py`), and decide what was found
(`decision.py`). This module owns the index files and puts the stages together.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from whoosh import index as windex
from whoosh.filedb.filestore import FileStorage
from whoosh.query import And, ConstantScoreQuery, Term
from whoosh.writing import CLEAR

from .. import clock, files
from . import context, decision, meaning, scoring, variants
from .candidates import bounded, gather
from .documents import SCHEMA_VERSION, Doc, fields_of, make_schema
from .matching import summary_query, weighting
from .query import ParsedQuery, parse
from .rankers import Ranker, RankItem, fuse
from .result import AMBIGUOUS, NOT_FOUND, SearchResult, estimate_tokens
from .settings import SearchSettings
from .vectors import Embedder, VectorIndex

STATE_FILE = "ihmt-state.json"
SMALL_SEGMENTS = 10  # small segments (beside the largest) a save's commit adds before any is merged
TIER = 3  # small segments of one size tier (documents, in powers of 4) before that tier is merged
ARCHIVE_MARGIN = 0.15  # how much more of the question an archived answer must hold to replace a live one


def segment_policy(writer, segments):
    """Whoosh's merge policy for a save's commit. A commit adds one small segment and, until there are
    more than `SMALL_SEGMENTS` of them, merges nothing: merging was most of a save's cost, and an
    idle process merges them anyway (`SearchIndex.optimize`). Past that, the small ones are merged
    in tiers — more than `TIER` segments of about the same size become one of the next size, so each
    document is merged O(log n) times — and, if still too many, all into one. The largest segment
    is never merged here: that is what cost a save hundreds of milliseconds at 5,000 memories.
    Returns the segments kept as they are (the merged ones are added to the writer)."""
    import math

    from whoosh.reading import SegmentReader

    if len(segments) <= SMALL_SEGMENTS + 1:
        return list(segments)
    big = max(segments, key=lambda x: x.doc_count_all())
    small = [x for x in segments if x is not big]
    tiers: dict[int, list] = {}
    for seg in small:
        tiers.setdefault(int(math.log(max(1, seg.doc_count_all()), 4)), []).append(seg)
    merged = [seg for tier in tiers.values() if len(tier) > TIER for seg in tier]
    if len(small) - len(merged) > SMALL_SEGMENTS:
        merged = small
    for seg in merged:
        reader = SegmentReader(writer.storage, writer.schema, seg)
        writer.add_reader(reader)
        reader.close()
    return [x for x in segments if all(x is not m for m in merged)]


def _token(state: dict) -> str:
    """The state an index commit recorded, as the vectors record which one they reflect."""
    return json.dumps({k: v for k, v in state.items() if k not in ("_schema", "files", "sums")}, sort_keys=True)


def summary_hash(fields: dict) -> str:
    """What a summary's document holds for search (its analysed fields, not its stored text)."""
    import hashlib

    text = "\x00".join(str(fields.get(k, "")) for k in ("stitle", "sbody", "when", "parent", "anc", "scope"))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


class IndexUnavailable(Exception):
    """The index is missing, unreadable or of an older schema: rebuild it from the vault."""


def _storage(path: Path) -> FileStorage:
    """Plain reads, no mmap: a segment file truncated under an open searcher (another process
    rebuilding, a person deleting the cache) must be an error we recover from, not a SIGBUS."""
    return FileStorage(str(path), supports_mmap=False)


def _retry(fn, attempts: int = 5, delay: float = 0.02):
    last = None
    for i in range(attempts):
        try:
            return fn()
        except (FileNotFoundError, OSError, EOFError) as e:  # a writer cleaning up under us
            last = e
            time.sleep(delay * (i + 1))
    raise IndexUnavailable(f"search index unreadable: {last}")


class SearchIndex:
    """One vault's search index, kept in `cache_dir/index` (see the package docstring)."""

    def __init__(
        self,
        cache_dir: Path,
        today: Callable[[], dt.date] | dt.date | None = None,
        rankers: Sequence[Ranker] = (),
        settings: SearchSettings | None = None,
        embedder: Embedder | None = None,
    ):
        self.cache_dir = Path(cache_dir)
        self.rankers = list(rankers)  # optional rankers fused with the lexical order
        # the meaning's candidates, beside the words' (None: search by words alone)
        self.vectors = VectorIndex(self.cache_dir / "vectors", embedder) if embedder is not None else None
        self.settings = settings or SearchSettings()
        self.dir = self.cache_dir / "index"
        self._today = today
        self._ix = None
        self._searcher = None
        self._lock = threading.RLock()

    # ----------------------------------------------------------------- lifecycle
    def today(self) -> dt.date:
        t = self._today
        if t is None:
            return clock.today()
        return t() if callable(t) else t

    def _open_ix(self):
        if self._ix is not None:
            return self._ix
        if not self.dir.is_dir():
            raise IndexUnavailable(f"no search index at {self.dir}")
        st = self._read_state_file()
        if st is None:
            raise IndexUnavailable(f"search index at {self.dir} has no readable state (rebuild it)")
        try:
            if not windex.exists_in(str(self.dir)):
                raise IndexUnavailable(f"no search index at {self.dir}")
            self._ix = _retry(lambda: _storage(self.dir).open_index())
        except IndexUnavailable:
            raise
        except Exception as e:  # corrupt TOC, bad pickle, ...
            raise IndexUnavailable(f"search index at {self.dir} is unreadable: {e}") from e
        return self._ix

    def _files(self) -> dict[str, list[int]]:
        """Size and modification time of every index file: what the last commit left."""
        out = {}
        for e in os.scandir(self.dir):
            if e.name not in (STATE_FILE, "MAIN_WRITELOCK") and not e.name.startswith("."):
                st = e.stat()
                out[e.name] = [st.st_size, st.st_mtime_ns]
        return out

    def _intact(self) -> bool:
        """Whether the index files are the ones the last commit recorded. A file changed in place
        (garbled, truncated) would otherwise give wrong answers, not errors. A writer records the
        files right after its commit, so a mismatch is looked at again a moment later."""
        for attempt in range(4):
            data = self._read_state_file()
            if data is not None and "files" not in data:
                return True  # an index from before files were recorded
            try:
                if data is not None and data.get("files") == self._files():
                    return True
            except OSError:
                pass
            time.sleep(0.05 * (attempt + 1))
        return False

    def _fresh_searcher(self):
        with self._lock:
            ix = self._open_ix()
            if not self._intact():
                self._drop()
                raise IndexUnavailable(f"search index at {self.dir} was changed outside its writers")
            try:
                if self._searcher is None:
                    self._searcher = _retry(lambda: ix.searcher(weighting=weighting()))
                elif not _retry(self._searcher.up_to_date):
                    # a new searcher, not `refresh()`: refresh reuses segment readers and then
                    # misses deletions made in an existing segment
                    old = self._searcher
                    self._searcher = _retry(lambda: ix.searcher(weighting=weighting()))
                    old.close()
                return self._searcher
            except IndexUnavailable:
                self._drop()
                raise
            except Exception as e:
                self._drop()
                raise IndexUnavailable(f"search index at {self.dir} is unreadable: {e}") from e

    def _drop(self):
        if self._searcher is not None:
            try:
                self._searcher.close()
            except Exception:
                pass
        self._searcher = None
        self._ix = None

    def close(self) -> None:
        with self._lock:
            self._drop()
            if self.vectors is not None:
                self.vectors.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ----------------------------------------------------------------- state
    def _read_state_file(self) -> dict | None:
        try:
            data = json.loads((self.dir / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("_schema") != SCHEMA_VERSION:
            return None
        return data

    def state(self) -> dict | None:
        """The state dict given at the last rebuild/apply; None if the index is missing or unusable."""
        data = self._read_state_file()
        if data is None or not windex.exists_in(str(self.dir)):
            return None
        return {k: v for k, v in data.items() if k not in ("_schema", "files", "sums")}

    def invalidate(self) -> None:
        """Mark the index as not to be trusted: `state()` is None until the next rebuild."""
        with self._lock:
            self._drop()
            try:
                (self.dir / STATE_FILE).unlink()
            except OSError:
                pass

    def destroy(self) -> None:
        """Delete the index's files (a purge: deleted documents linger in old segments); the next
        search rebuilds it."""
        with self._lock:
            self.invalidate()
            shutil.rmtree(self.dir, ignore_errors=True)
            if self.vectors is not None:
                self.vectors.close()
                shutil.rmtree(self.vectors.folder, ignore_errors=True)

    def _write_state(self, state: dict) -> None:
        data = dict(state or {})
        data["_schema"] = SCHEMA_VERSION
        data["files"] = self._files()
        files.atomic_write(self.dir / STATE_FILE, json.dumps(data, sort_keys=True))

    # ----------------------------------------------------------------- writing
    def rebuild(self, docs: Iterable, state: dict) -> int:
        """Recreate the index from `docs` in one commit; returns the number of documents."""
        with self._lock:
            self._drop()
            ix = None
            if self.dir.is_dir() and self._read_state_file() is not None:
                try:
                    ix = _storage(self.dir).open_index()
                    if set(ix.schema.names()) != set(make_schema().names()):
                        ix = None
                except Exception:
                    ix = None
            if ix is None:
                if self.dir.exists():
                    # unreadable or of another schema: start over (keep nothing of it)
                    shutil.rmtree(self.dir, ignore_errors=True)
                self.dir.mkdir(parents=True, exist_ok=True)
                ix = _storage(self.dir).create_index(make_schema())
            n = 0
            w = ix.writer(timeout=10, delay=0.05, limitmb=128)
            sums = {}
            kept: list = []  # the documents, for the vectors once the words' index is committed
            try:
                for doc in docs:
                    if self.vectors is not None:
                        kept.append(doc)
                    f = fields_of(doc)
                    if doc.kind == "summary":
                        sums[doc.key] = summary_hash(f)
                    w.add_document(**f)
                    n += 1
            except BaseException:
                w.cancel()
                raise
            w.commit(mergetype=CLEAR, optimize=True)
            self._write_state({**state, "sums": sums})
            ix.close()
            if self.vectors is not None:
                self.vectors.rebuild(kept, _token(state))
            return n

    def apply(self, upserts: list, deletes: list[str], state: dict) -> int:
        """Upsert and delete documents (by key) in one Whoosh commit, then record `state`.

        A folder summary whose searchable text is what the index already holds (a count changed,
        say) is not rewritten. Returns the number of documents written."""
        with self._lock:
            recorded = self._read_state_file()  # read once: the state before this change, and its summaries' hashes
            prior = _token(recorded if recorded is not None and windex.exists_in(str(self.dir)) else {})
            known = dict((recorded or {}).get("sums") or {})
            todo, changed = [], []
            for doc in upserts or []:
                f = fields_of(doc)
                if doc.kind == "summary":
                    h = summary_hash(f)
                    if known.get(doc.key) == h:
                        continue
                    known[doc.key] = h
                todo.append(f)
                changed.append(doc)
            for key in deletes or []:
                known.pop(key, None)
            if not todo and not deletes:
                self._write_state({**state, "sums": known})
                self._apply_vectors(prior, [], [], state)
                return 0
            ix = self._open_ix()
            try:
                w = ix.writer(timeout=10, delay=0.05)
            except Exception as e:
                if type(e).__name__ == "LockError":
                    raise
                raise IndexUnavailable(f"search index at {self.dir} is unreadable: {e}") from e
            try:
                for key in deletes or []:
                    w.delete_by_term("key", key)
                for f in todo:
                    w.update_document(**f)
            except BaseException:
                w.cancel()
                raise
            w.commit(mergetype=segment_policy)
            self._write_state({**state, "sums": known})
            self._apply_vectors(prior, changed, deletes, state)
            return len(todo)

    def _apply_vectors(self, prior: str, upserts: list, deletes: list[str], state: dict) -> None:
        """The vectors follow the words' index, when they reflected its state before this change;
        behind (a crash between the two, an older model), or failing, they are rebuilt from the
        index by the next search (`_fresh_vectors`) — never an operation that fails."""
        if self.vectors is None:
            return
        try:
            if self.vectors.generation() == prior:
                self.vectors.apply(upserts, deletes or [], _token(state))
        except Exception:  # a cache: the next search rebuilds it from the index
            pass

    def segments(self) -> int:
        """How many segments the index has (a query makes one pass per segment)."""
        with self._lock:
            with self._open_ix().reader() as r:
                return len(list(r.leaf_readers()))

    def optimize(self) -> None:
        """Merge the index into one segment (a long-lived process does it when idle; the caller
        holds the vault's write lock, as every other writer of the index does)."""
        with self._lock:
            ix = self._open_ix()
            w = ix.writer(timeout=10, delay=0.05)
            w.commit(optimize=True)
            self._write_state(
                {k: v for k, v in (self._read_state_file() or {}).items() if k not in ("_schema", "files")}
            )

    # ----------------------------------------------------------------- reading
    def search(
        self,
        query: str,
        k: int = 10,
        clue: str | None = None,
        level: int | None = None,
        under: str | None = None,
        detail: str = "compact",
        budget_tokens: int = 900,
        include_archived: str | bool = "fallback",
        today: dt.date | None = None,
        as_of: str | None = None,
    ) -> SearchResult:
        """Answer a query (see the package docstring). Raises IndexUnavailable, never returns junk.

        - `k`: hits returned (ranked); `clue`: words that pick among ambiguous candidates (memories
          matching question and clue go up ×2, the others down ×0.5).
        - `level=N`: only memories whose folder is at depth N (0 = the root's own memories);
          `under="work/infra"`: only memories in that folder or below; the descent starts there.
        - `include_archived`: "fallback" (archive searched only when nothing live is found; the
          result says `archived_fallback`), "include"/True, "exclude"/False, or "only".
        - `today`: reference day for relative dates in the query (default: the index's `today`).
        - `as_of="2025-06-01"`: answer as things stood that day: memories that became true later
          (their `date`, else when saved) are left out, and a memory whose correction came later
          counts as current.
        - `detail`/`budget_tokens`: how `result.render()` renders; `result.tokens` is its size.
        """
        with self._lock:  # one searcher per SearchIndex: threads take turns (a query is milliseconds)
            return self._search_locked(
                query, k, clue, level, under, detail, budget_tokens, include_archived, today, as_of
            )

    def _search_locked(self, query, k, clue, level, under, detail, budget_tokens, include_archived, today, as_of):
        s = self._fresh_searcher()
        ref = today or (dt.date.fromisoformat(as_of) if as_of else self.today())
        pq = parse(query, ref)
        cq = parse(clue, ref) if clue else None
        under = (under or "").strip("/")
        mode = {True: "include", False: "exclude", None: "fallback"}.get(include_archived, include_archived)
        if mode not in ("fallback", "include", "exclude", "only"):
            mode = "fallback"
        if mode == "include":
            scopes = ("mem", "arc")
        elif mode == "only":
            scopes = ("arc",)
        else:
            scopes = ("mem",)
        res = self._search(s, pq, cq, k, level, under, scopes, as_of)
        if mode == "fallback" and (res.status == NOT_FOUND or res.coverage < 1.0) and s.doc_frequency("scope", "arc"):
            # nothing live answers, or what answers holds only part of the question: an archived
            # memory that holds clearly more of it answers instead (decayed is not forgotten)
            arc = self._search(s, pq, cq, k, level, under, ("arc",), as_of)
            if arc.status != NOT_FOUND and (res.status == NOT_FOUND or arc.coverage > res.coverage + ARCHIVE_MARGIN):
                arc.archived_fallback = True
                arc.node_reads += res.node_reads
                res = arc
        res.query, res.clue = query, clue
        res.detail, res.budget_tokens = detail, budget_tokens
        res.tokens = estimate_tokens(res.render(detail, budget_tokens))
        return res

    def rank_folders(self, text: str, parent: str) -> list[tuple[str, float]]:
        """The direct sub-folders of `parent`, best match for `text` first: [(folder, score)].

        The score is BM25F over each folder's summary (0 when nothing matches; folders whose
        summary matches nothing are left out). Archive folders are never proposed.
        """
        pq = parse(text, self.today())
        q = summary_query(pq)
        if q is None:
            return []
        parent = (parent or "").strip("/")
        full = And([q, ConstantScoreQuery(Term("parent", parent), 0.0), ConstantScoreQuery(Term("scope", "sum"), 0.0)])
        with self._lock:
            s = self._fresh_searcher()
            return [(h["folder"], float(h.score)) for h in s.search(full, limit=100)]

    # ----------------------------------------------------------------- the engine

    # ----------------------------------------------------------------- the three stages
    def _search(
        self,
        s,
        pq: ParsedQuery,
        cq: ParsedQuery | None,
        k: int,
        level,
        under: str,
        scopes: tuple[str, ...],
        as_of: str | None = None,
    ) -> SearchResult:
        res = SearchResult(status=NOT_FOUND)
        pq = variants.expanded(s, bounded(s, pq), self._embed_words())
        res.words = [g.word for g in pq.groups]
        st = self.settings
        gathered = gather(s, pq, cq, level, under, scopes, st.beam)
        res.node_reads, res.message = gathered.reads, gathered.message
        near = self._near(s, pq.text, scopes, under)
        if not gathered.candidates and not near:
            return res
        items: list[scoring.Scored] = []
        verdict = decision.Decision(NOT_FOUND, gathered.message or "No memory contains the question's words.")
        if gathered.candidates:
            items = context.with_context(s, scoring.score(s, gathered, cq, as_of), st.context, scopes, as_of)
            items = scoring.with_corrections(s, items, k, scopes, as_of)
            items = scoring.newer_first(items, pq, same=st.same_subject)
            # what was found is decided on the words first; the meaning revises it (meaning.py)
            verdict = decision.decide(s, pq, items[: max(k, 10)], st.not_found_coverage, st.tie)
        if near:
            items, verdict = meaning.fuse(s, items, near, verdict, as_of, level)
            items = scoring.with_corrections(s, items, k, scopes, as_of)
            items = scoring.newer_first(items, pq, same=st.same_subject)
            assert self.vectors is not None
            items = meaning.newer_first(
                items, self.vectors.of([meaning.key_of(x.data) for x in items[: meaning.WINDOW]])
            )
        items = fuse(pq.text, items, self.rankers, _rank_item, lambda x: x.score)
        res.status, res.message, res.coverage = verdict.status, verdict.message, verdict.coverage
        res.margin = verdict.margin
        res.hits = [scoring.make_hit(s, x, pq) for x in items[:k]]
        if verdict.status == AMBIGUOUS:
            res.candidates = [scoring.make_hit(s, x, pq) for x in verdict.tied]
            decision.distinguish(res.candidates, pq)
        return res

    def folders_near(self, text: str) -> dict[str, float]:
        """Each folder's closeness in meaning to `text` (the cosine to its memories' mean); {} without a model."""
        if self.vectors is None:
            return {}
        try:
            with self._lock:
                self._fresh_vectors(self._fresh_searcher())
            return self.vectors.folders_near(text)
        except Exception:  # the model is an optional part: placement goes on by words alone
            return {}

    def _embed_words(self):
        """The model's embedding of short words, for the vocabulary's variants (None without a model)."""
        if self.vectors is None:
            return None
        embedder = self.vectors.embedder

        def embed(texts):
            try:
                return embedder.embed(texts)
            except Exception:  # the model is an optional part: the variants fall back to prefixes
                return None

        return embed

    def _near(self, s, text: str, scopes: tuple[str, ...], under: str) -> list[tuple[str, float, float]]:
        """The vector index's nearest memories (none without a model, or for a text it does not read)."""
        if self.vectors is None:
            return []
        try:
            self._fresh_vectors(s)
            return self.vectors.nearest(text, meaning.POOL, scopes, under)
        except Exception:  # the model is an optional part: a search goes on by words alone
            return []

    def _fresh_vectors(self, s) -> None:
        """The vectors rebuilt from the index's stored texts when they reflect another state of it
        (a crash between the two writes, another model, a cache deleted)."""
        assert self.vectors is not None
        token = _token(self.state() or {})
        if self.vectors.generation() == token:
            return
        docs = []
        for fields in s.all_stored_fields():
            data = fields.get("data") or {}
            kind = fields.get("kind") or data.get("kind") or "memory"
            docs.append(
                Doc(
                    key=fields["key"],
                    kind=kind,
                    path=data.get("path") or "",
                    folder=data.get("folder") or "",
                    depth=0,
                    title=data.get("title") or "",
                    body=data.get("body") or "",
                    status=data.get("status") or "active",
                )
            )
        self.vectors.rebuild(docs, token)


def _rank_item(x: scoring.Scored) -> RankItem:
    return RankItem(x.data.get("id") or "", x.data.get("title") or "", x.data.get("body") or "")
