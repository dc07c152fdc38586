"""The Whoosh index of a vault and the level-wise search over it (DESIGN.md, "Search")."""
from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Callable, Iterable

from whoosh import index as windex
from whoosh.filedb.filestore import FileStorage
from whoosh import scoring
from whoosh.analysis import SpaceSeparatedTokenizer
from whoosh.fields import ID, KEYWORD, NUMERIC, STORED, TEXT, Schema
from whoosh.query import And, ConstantScoreQuery, DisjunctionMax, Or, Term
from whoosh.writing import CLEAR

from . import analysis, dates
from .query import ParsedQuery, parse
from .result import AMBIGUOUS, FOUND, NOT_FOUND, Hit, SearchResult, estimate_tokens

SCHEMA_VERSION = 4
STATE_FILE = "ihmt-state.json"
NO_PARENT = "\x00"

# ranking knobs (see the module docstring of search/__init__.py for what each one does)
TITLE_BOOST = 2.0        # a term in the title (or tags) counts this much more than in the body
FLAT_LIMIT = 80          # memories taken from the flat ranking (never pruned by the descent)
LEVEL_LIMIT = 40         # children read per level of the descent
BEAM = 3                 # folders kept per level
MAX_DEPTH = 6
MAX_GROUPS = 24          # words of a query kept (the rarest) — bounds the work of a long query
FOLDER_WEIGHT = 0.25     # how much a memory's folder matching the query lifts it
DATE_WEIGHT = 2.0        # lift of a memory dated (or naming a date) in the range the query names
BM25_K1, BM25_B = 1.0, 0.5    # memories are short and their length is rarely padding
DATE_ONLY = 0.1         # a memory matching only the question's date, relative to its date score
OUTDATED_FACTOR = 0.5    # outdated memories sink below their correction
CLUE_MATCH, CLUE_MISS = 2.0, 0.5


class IndexUnavailable(Exception):
    """The index is missing, unreadable or of an older schema: rebuild it from the vault."""


def _tokens_field(**kw):
    return TEXT(analyzer=SpaceSeparatedTokenizer(), phrase=False, **kw)


def make_schema() -> Schema:
    return Schema(
        key=ID(unique=True, stored=True),
        kind=ID(stored=True),
        scope=ID(),                      # mem | arc | sum | arcsum
        id=ID(stored=True),
        folder=ID(stored=True),
        parent=ID(),                     # memory: its folder; summary: the parent of its folder
        anc=KEYWORD(commas=True, lowercase=False),   # the folder and its ancestors
        depth=ID(stored=True),
        title=_tokens_field(),           # memories: title + tags (when the title says more than the body's start)
        body=_tokens_field(),            # memories: the text
        stitle=_tokens_field(),          # summaries: folder title + keywords
        sbody=_tokens_field(),           # summaries: the index.md text
        when=KEYWORD(lowercase=False),
        day=NUMERIC(int, bits=32, signed=False),
        status=ID(stored=True),
        sup=KEYWORD(commas=True, lowercase=False),   # ids this one supersedes
        data=STORED(),                   # everything shown in a hit
    )


def _is_archived(doc) -> bool:
    return doc.status == "archived" or doc.folder == "archive" or doc.folder.startswith("archive/")


def _parent(folder: str) -> str:
    return folder.rsplit("/", 1)[0] if "/" in folder else ""


def _ancestors(folder: str) -> list[str]:
    out = [""]
    if folder:
        parts = folder.split("/")
        out += ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return out


_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")


def _fields(doc) -> dict:
    title_src = " ".join([doc.title or ""] + list(doc.tags or []))
    body = _LINK_TARGET.sub("]", doc.body or "")
    lang = analysis.guess_lang([w.lower() for w in analysis._TOKEN.findall(f"{title_src} {body[:2000]}")])
    body_terms = analysis.analyze(body, lang)
    title_terms = analysis.analyze(doc.title or "", lang)
    if title_terms and body_terms[: len(title_terms)] == title_terms:
        # a title made from the text's first line says nothing more than the text: don't count it twice
        title_terms = []
    title_terms += analysis.analyze(" ".join(doc.tags or []), lang)
    ddate = dates.to_date(doc.date)
    spans = dates.find_dates(f"{doc.title}\n{doc.body}"[:20000], ddate)
    when = dates.when_terms(spans, ddate)
    archived = _is_archived(doc)
    if doc.kind == "summary":
        scope = "arcsum" if archived else "sum"
        parent = _parent(doc.folder) if doc.folder else NO_PARENT
    else:
        scope = "arc" if archived else "mem"
        parent = doc.folder
    f = dict(
        key=doc.key, kind=doc.kind, scope=scope, id=doc.id or "", folder=doc.folder,
        parent=parent, anc=",".join(_ancestors(doc.folder)), depth=str(doc.depth),
        **{("stitle" if doc.kind == "summary" else "title"): " ".join(title_terms),
           ("sbody" if doc.kind == "summary" else "body"): " ".join(body_terms)},
        when=" ".join(when), status=doc.status or "active", sup=",".join(doc.supersedes or []),
        data=dict(title=doc.title, body=doc.body, path=doc.path, folder=doc.folder, id=doc.id,
                  kind=doc.kind, date=(ddate.isoformat() if ddate else None), status=doc.status,
                  tags=list(doc.tags or []), type=doc.type, lang=lang, pinned=bool(doc.pinned),
                  supersedes=list(doc.supersedes or []), superseded_by=list(doc.superseded_by or []),
                  source=doc.source, depth=doc.depth,
                  since=(ddate.isoformat() if ddate else (doc.created or "")[:10] or None)),
    )
    if ddate:
        f["day"] = ddate.year * 10000 + ddate.month * 100 + ddate.day
    return f


def _storage(path: Path) -> FileStorage:
    """Plain reads, no mmap: a segment file truncated under an open searcher (another process
    rebuilding, a person deleting the cache) must be an error we recover from, not a SIGBUS."""
    return FileStorage(str(path), supports_mmap=False)


def _retry(fn, attempts: int = 5, delay: float = 0.02):
    last = None
    for i in range(attempts):
        try:
            return fn()
        except (FileNotFoundError, OSError, EOFError) as e:   # a writer cleaning up under us
            last = e
            time.sleep(delay * (i + 1))
    raise IndexUnavailable(f"search index unreadable: {last}")


class SearchIndex:
    """One vault's search index, kept in `cache_dir/index` (see the package docstring)."""

    def __init__(self, cache_dir: Path, today: Callable[[], dt.date] | dt.date | None = None):
        self.cache_dir = Path(cache_dir)
        self.dir = self.cache_dir / "index"
        self._today = today
        self._ix = None
        self._searcher = None
        self._lock = threading.RLock()

    # ----------------------------------------------------------------- lifecycle
    def today(self) -> dt.date:
        t = self._today
        if t is None:
            return dt.date.today()
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
                    self._searcher = _retry(lambda: ix.searcher(weighting=_weighting()))
                elif not _retry(self._searcher.up_to_date):
                    # a new searcher, not `refresh()`: refresh reuses segment readers and then
                    # misses deletions made in an existing segment
                    old = self._searcher
                    self._searcher = _retry(lambda: ix.searcher(weighting=_weighting()))
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
        return {k: v for k, v in data.items() if k not in ("_schema", "files")}

    def invalidate(self) -> None:
        """Mark the index as not to be trusted: `state()` is None until the next rebuild."""
        with self._lock:
            self._drop()
            try:
                (self.dir / STATE_FILE).unlink()
            except OSError:
                pass

    def _write_state(self, state: dict) -> None:
        data = dict(state or {})
        data["_schema"] = SCHEMA_VERSION
        data["files"] = self._files()
        tmp = self.dir / f".{STATE_FILE}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.dir / STATE_FILE)

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
            try:
                for doc in docs:
                    w.add_document(**_fields(doc))
                    n += 1
            except BaseException:
                w.cancel()
                raise
            w.commit(mergetype=CLEAR, optimize=True)
            self._write_state(state)
            ix.close()
            return n

    def apply(self, upserts: list, deletes: list[str], state: dict) -> None:
        """Upsert and delete documents (by key) in one Whoosh commit, then record `state`."""
        with self._lock:
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
                for doc in upserts or []:
                    w.update_document(**_fields(doc))
            except BaseException:
                w.cancel()
                raise
            w.commit()
            self._write_state(state)

    # ----------------------------------------------------------------- reading
    def search(self, query: str, k: int = 10, clue: str | None = None, level: int | None = None,
               under: str | None = None, detail: str = "compact", budget_tokens: int = 900,
               include_archived: str | bool = "fallback", today: dt.date | None = None,
               as_of: str | None = None) -> SearchResult:
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
        with self._lock:   # one searcher per SearchIndex: threads take turns (a query is milliseconds)
            return self._search_locked(query, k, clue, level, under, detail, budget_tokens, include_archived,
                                       today, as_of)

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
        if mode == "fallback" and res.status == NOT_FOUND:
            arc = self._search(s, pq, cq, k, level, under, ("arc",), as_of)
            if arc.status != NOT_FOUND:
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
        q = _summary_query(pq)
        if q is None:
            return []
        parent = (parent or "").strip("/")
        full = And([q, ConstantScoreQuery(Term("parent", parent), 0.0), ConstantScoreQuery(Term("scope", "sum"), 0.0)])
        with self._lock:
            s = self._fresh_searcher()
            return [(h["folder"], float(h.score)) for h in s.search(full, limit=100)]

    # ----------------------------------------------------------------- the engine
    def _search(self, s, pq: ParsedQuery, cq: ParsedQuery | None, k: int, level, under: str,
                scopes: tuple[str, ...], as_of: str | None = None) -> SearchResult:
        res = SearchResult(status=NOT_FOUND)
        if len(pq.groups) > MAX_GROUPS:
            # a pasted paragraph: keep its rarest words, so the work per query stays bounded
            df = {g.word: max(s.doc_frequency("body", t) for t in g.terms) for g in pq.groups}
            keep = {g.word for g in sorted(pq.groups, key=lambda g: (df[g.word] == 0, df[g.word]))[:MAX_GROUPS]}
            pq = ParsedQuery(pq.text, [g for g in pq.groups if g.word in keep], pq.spans)
        tq = _text_query(pq)
        dq = _date_query(pq)
        if tq is None and dq is None:
            res.message = "The question has no searchable words (only common words)."
            return res
        base = tq if tq is not None else dq
        restrict = []
        if under:
            restrict.append(ConstantScoreQuery(Term("anc", under), 0.0))
        if level is not None:
            restrict.append(ConstantScoreQuery(Term("depth", str(level)), 0.0))

        cand: dict[int, dict] = {}   # docnum -> {score, via, date}

        def take(hits, via):
            for h in hits:
                c = cand.get(h.docnum)
                if c is None:
                    cand[h.docnum] = {"bm25": float(h.score), "via": via, "date": False, "clue": False}
                elif c["via"] != via:
                    c["via"] = "both"

        # 1. flat ranking over all memories: never pruned
        flat = _run(s, base, restrict, scopes, FLAT_LIMIT)
        take(flat, "flat")
        reads = flat.scored_length()
        # 2. the date the question names: memories in range get a lift (and are sought too)
        if dq is not None and tq is not None:
            dated = _run(s, tq, restrict + [ConstantScoreQuery(dq, 0.0)], scopes, FLAT_LIMIT)
            take(dated, "flat")
            for h in dated:
                cand[h.docnum]["date"] = True
            reads += dated.scored_length()
            # memories of that time that share no word with the question still count, below the others
            only_date = _run(s, dq, restrict, scopes, FLAT_LIMIT // 2)
            for h in only_date:
                if h.docnum not in cand:
                    cand[h.docnum] = {"bm25": DATE_ONLY * float(h.score), "via": "flat", "date": True, "clue": False}
            reads += only_date.scored_length()
        elif dq is not None:
            for c in cand.values():
                c["date"] = True
        # 3. level-wise descent from `under` (or the root)
        level_q = _summary_query(pq) if tq is not None else dq
        folder_score, trail_ok, descent_reads = self._descend(s, level_q, base, scopes, under, cand)
        reads += descent_reads
        # 4. the clue: candidates matching both question and clue go up, the others down
        if cq is not None:
            clq = _text_query(cq)
            if clq is not None:
                both = _run(s, And([base, clq]), restrict, scopes, FLAT_LIMIT)
                take(both, "flat")
                reads += both.scored_length()
                for h in both:
                    cand[h.docnum]["clue"] = True
        res.node_reads = reads
        if not cand:
            res.message = "No memory contains the question's words."
            return res
        # 5. merge: text score × folder affinity × date × status
        stored = s.stored_fields
        items = []
        for docnum, c in cand.items():
            data = stored(docnum)["data"]
            if as_of:
                data = self._as_of(s, data, as_of)
                if data is None:
                    continue
            folder = data["folder"]
            aff = max((folder_score.get(f, 0.0) for f in _ancestors(folder)[1:]), default=0.0)
            score = c["bm25"] * (1.0 + FOLDER_WEIGHT * aff)
            if c["date"]:
                score *= 1.0 + DATE_WEIGHT
            if cq is not None:
                score *= CLUE_MATCH if c["clue"] else CLUE_MISS
            if data.get("status") == "outdated":
                score *= OUTDATED_FACTOR
            items.append((score, docnum, data, c))
        items.sort(key=lambda x: (-x[0], x[1]))
        items = _corrections_first(items + self._missing_corrections(s, items[: max(k, 10)], scopes, as_of))
        # 6. decide
        top = items[: max(k, 10)]
        n_docs = max(1, s.doc_frequency("scope", "mem") or s.doc_count())
        idf = {}
        for g in pq.groups:
            df = max((max(s.doc_frequency("body", t), s.doc_frequency("title", t)) for t in g.terms), default=0)
            idf[g.word] = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            idf[g.word + "\x00df"] = df
        matched = [_matched_groups(pq, d) | ({DATE_GROUP} if c["date"] and pq.spans else set())
                   for _, _, d, c in top]
        # a correction brought in by its outdated predecessor answers what the predecessor matched
        for i, (_, _, d, c) in enumerate(top):
            if c.get("via") == "correction":
                for j, (_, _, od, _) in enumerate(top):
                    if d.get("id") in (od.get("superseded_by") or []):
                        matched[i] = matched[i] | matched[j]
        if pq.spans:
            idf[DATE_GROUP] = max([idf[g.word] for g in pq.groups] + [1.0])
            idf[DATE_GROUP + "\x00df"] = 0
        status, message, cands = _decide(pq, cq, top, matched, idf, n_docs)
        res.status, res.message = status, message
        hits = [self._hit(s, sc, d, c, pq) for sc, _, d, c in items[:k]]
        res.hits = hits
        if status == AMBIGUOUS:
            res.candidates = [self._hit(s, sc, d, c, pq) for sc, _, d, c in cands]
            _distinguish(res.candidates, pq)
        return res

    def _descend(self, s, q, memory_q, scopes, start: str, cand: dict):
        """Walk the tree from `start`: rank the child folders by their summaries, keep a beam, go
        down; then read the memories of every folder reached with one query. Summaries are few, so
        each level is cheap; the memories of the path are ranked once, not at every level."""
        sum_scopes = {"mem": "sum", "arc": "arcsum"}
        kinds = tuple(sum_scopes[x] for x in scopes)
        frontier = [start]
        folder_score: dict[str, float] = {}
        reached: set[str] = {start}
        reads = 0
        for _ in range(MAX_DEPTH):
            if not frontier or q is None:
                break
            par = Term("parent", frontier[0]) if len(frontier) == 1 else Or([Term("parent", f) for f in frontier])
            # only summaries have summary fields: mask the other kind of summary, require nothing more
            other = [Term("scope", k) for k in ("sum", "arcsum") if k not in kinds]
            hits = s.search(And([q, ConstantScoreQuery(par, 0.0)]), limit=LEVEL_LIMIT,
                            mask=other[0] if other else None)
            reads += hits.scored_length()
            subs = sorted(((float(h.score), h["folder"]) for h in hits), reverse=True)
            if not subs:
                break
            best = subs[0][0] or 1.0
            frontier = []
            for sc, f in subs[:BEAM]:
                if sc < 0.3 * best:
                    break
                folder_score[f] = max(folder_score.get(f, 0.0), sc / best)
                frontier.append(f)
                reached.add(f)
        par = Or([Term("parent", f) for f in sorted(reached)]) if len(reached) > 1 else Term("parent", start)
        hits = _run(s, memory_q, [ConstantScoreQuery(par, 0.0)], scopes, LEVEL_LIMIT * 2)
        reads += hits.scored_length()
        for h in hits:
            c = cand.get(h.docnum)
            if c is None:
                cand[h.docnum] = {"bm25": float(h.score), "via": "descent", "date": False, "clue": False}
            elif c["via"] == "flat":
                c["via"] = "both"
        return folder_score, reached, reads

    def _hit(self, s, score, data, c, pq: ParsedQuery) -> Hit:
        folder = data.get("folder", "")
        notices = []
        if data.get("status") == "outdated":
            notices.append(self._outdated_notice(s, data))
        snippet = _snippet(data.get("body") or "", pq)
        return Hit(id=data.get("id") or "", title=data.get("title") or "", path=data.get("path") or "",
                   snippet=snippet, score=round(score, 4), status=data.get("status") or "active",
                   date=data.get("date"), notices=notices, trail=_ancestors(folder)[1:],
                   body=data.get("body") or "", folder=folder, via=c.get("via", "flat"))

    def _missing_corrections(self, s, items, scopes, as_of) -> list:
        """The corrections of outdated hits that the words alone did not find: the current fact
        must come with its outdated predecessor, and rank above it."""
        present = {d.get("id") for _, _, d, _ in items}
        extra = []
        for score, _, data, _ in items:
            if data.get("status") != "outdated":
                continue
            for cid in data.get("superseded_by") or []:
                n = s.document_number(id=cid) if cid not in present else None
                if n is None:
                    continue
                corr = s.stored_fields(n)["data"]
                archived = corr.get("status") == "archived" or (corr.get("folder") or "").split("/")[0] == "archive"
                corr = self._as_of(s, corr, as_of) if as_of else corr
                if corr is None or ("arc" if archived else "mem") not in scopes:
                    continue
                present.add(cid)
                extra.append((score, n, corr, {"bm25": score, "via": "correction", "date": False, "clue": False}))
        return extra

    def _as_of(self, s, data: dict, day: str) -> dict | None:
        """A memory as it stood on `day`: None if not yet true then; current if corrected only later."""
        if (data.get("since") or "") > day:
            return None
        if data.get("status") == "outdated":
            corrections = [s.document_number(id=cid) for cid in data.get("superseded_by") or []]
            earlier = [n for n in corrections if n is not None and (s.stored_fields(n)["data"].get("since") or "") <= day]
            if not earlier:
                return {**data, "status": "active", "superseded_by": []}
        return data

    def _outdated_notice(self, s, data) -> str:
        corr = None
        for cid in data.get("superseded_by") or []:
            docnum = s.document_number(id=cid)
            if docnum is not None:
                corr = s.stored_fields(docnum)["data"]
                break
        if corr is None and data.get("id"):
            found = s.search(Term("sup", data["id"]), limit=1)
            if len(found):
                corr = found[0]["data"]
        if corr is None:
            who = ", ".join(data.get("superseded_by") or []) or "a newer memory"
            return f"OUTDATED: superseded by {who}"
        when = f" ({corr.get('date')})" if corr.get("date") else ""
        return f"OUTDATED: superseded by {corr.get('id')}{when} — {corr.get('title')}"


# --------------------------------------------------------------------------- helpers
DATE_GROUP = "\x00date"     # the question's date, as one more thing a memory can match
ALL_SCOPES = ("mem", "arc", "sum", "arcsum")


def _run(s, q, restrict: list, scopes: tuple, limit: int):
    """Search `q` AND the restrictions, within documents of the given scopes.

    Scopes are applied the cheap way round: live memories are most of the index, so when they are
    allowed the few other documents are masked out; otherwise the (few) allowed ones are required.
    A ConstantScoreQuery over a large set costs a pass over all its ids on every query.
    """
    if "mem" in scopes:
        excluded = [x for x in ALL_SCOPES if x not in scopes]
        mask = (Or([Term("scope", x) for x in excluded]) if len(excluded) > 1 else Term("scope", excluded[0])) if excluded else None
        full = And([q] + restrict) if restrict else q
        return s.search(full, limit=limit, mask=mask)
    allowed = Or([Term("scope", x) for x in scopes]) if len(scopes) > 1 else Term("scope", scopes[0])
    return s.search(And([q] + restrict + [ConstantScoreQuery(allowed, 0.0)]), limit=limit)


class _BM25F(scoring.BM25F):
    """BM25F with Robertson's idf: a word in most documents weighs next to nothing (Whoosh's
    default idf, log(N/(df+1)) + 1, never goes below 1 and lets common words add up)."""

    def idf(self, searcher, fieldname, text):
        n = searcher.doc_frequency(fieldname, text)
        big_n = searcher.doc_count_all()
        return math.log(1.0 + (big_n - n + 0.5) / (n + 0.5))


def _weighting():
    return _BM25F(B=BM25_B, K1=BM25_K1, title_B=0.5, stitle_B=0.5)


def _text_query(pq: ParsedQuery, summaries: bool = False, memories: bool = True):
    """The query's words over the memory fields (and/or the summary fields).

    A word's spellings (English and Spanish stems of an undecided word) count once: the best of
    them (DisjunctionMax); an identifier's whole form and its parts add up (the exact identifier
    beats a text that only has its parts). The same term in title and body adds up (BM25F-like).
    """
    fields = ([("title", TITLE_BOOST), ("body", 1.0)] if memories else []) + \
             ([("stitle", TITLE_BOOST), ("sbody", 1.0)] if summaries else [])
    seen: set[str] = set()
    groups = []
    for g in pq.groups:
        terms = [t for t in g.terms if t not in seen]
        seen.update(terms)
        if not terms:
            continue
        alts = [Or([Term(f, t, boost=b) for f, b in fields]) for t in terms]
        if len(alts) == 1:
            groups.append(alts[0])
        elif g.ident:
            groups.append(Or(alts))
        else:
            groups.append(DisjunctionMax(alts))
    if not groups:
        return None
    return Or(groups) if len(groups) > 1 else groups[0]


def _summary_query(pq: ParsedQuery):
    return _text_query(pq, summaries=True, memories=False)


def _date_query(pq: ParsedQuery):
    wt = pq.when_terms
    if not wt:
        return None
    return Or([Term("when", t) for t in wt])


def _corrections_first(items):
    """An outdated memory never ranks above the memory that corrects it."""
    pos = {d.get("id"): i for i, (_, _, d, _) in enumerate(items) if d.get("id")}
    out = list(items)
    moved = True
    guard = 0
    while moved and guard < 50:
        moved = False
        guard += 1
        pos = {d.get("id"): i for i, (_, _, d, _) in enumerate(out) if d.get("id")}
        for i, (_, _, d, _) in enumerate(out):
            if d.get("status") != "outdated":
                continue
            for cid in d.get("superseded_by") or []:
                j = pos.get(cid)
                if j is not None and j > i:
                    out.insert(j, out.pop(i))
                    moved = True
                    break
            if moved:
                break
    return out


def _doc_terms(data) -> set[str]:
    lang = data.get("lang", None)
    text = " ".join([data.get("title") or "", " ".join(data.get("tags") or []), data.get("body") or ""])
    return set(analysis.analyze(text, lang))


def _matched_groups(pq: ParsedQuery, data) -> set[str]:
    terms = _doc_terms(data)
    return {g.word for g in pq.groups if any(t in terms for t in g.terms)}


def _decide(pq, cq, top, matched, idf, n_docs):
    """found / ambiguous / not_found, a one-line reason, and the ambiguous candidates."""
    if not top:
        return NOT_FOUND, "No memory contains the question's words.", []
    groups = [g.word for g in pq.groups] + ([DATE_GROUP] if pq.spans else [])
    total = sum(idf[w] for w in groups) or 1.0
    common_df = max(5, 0.05 * n_docs)
    m0 = matched[0]
    if groups:
        cov = sum(idf[w] for w in m0) / total
        distinctive = [w for w in m0 if idf[w + "\x00df"] <= common_df]
        if not m0 or (not distinctive and cov < 0.5) or cov < 0.2:
            words = ", ".join(sorted(w if w != DATE_GROUP else "the date" for w in m0)) or "nothing"
            return NOT_FOUND, f"Only common or stray words matched ({words}).", []
    # ambiguity: several memories match the query's distinctive words equally well, and nothing
    # in the question tells them apart
    s0 = top[0][0]
    tied = []
    for (sc, _, d, c), m in zip(top, matched):
        if sc < 0.8 * s0:
            break
        if m == m0 and set(groups) <= m:
            tied.append((sc, _, d, c))
    if len(tied) >= 2 and len(groups) <= 2:
        titles = {(d.get("title") or "").strip().lower() for _, _, d, _ in tied}
        in_title = all(_title_has_all(pq, d) for _, _, d, _ in tied)
        if len(titles) == len(tied) and in_title:
            return AMBIGUOUS, "Several memories match equally; a clue would tell them apart.", tied[:5]
    return FOUND, "", []


def _title_has_all(pq, data) -> bool:
    terms = set(analysis.analyze(" ".join([data.get("title") or ""] + list(data.get("tags") or [])), data.get("lang")))
    return all(any(t in terms for t in g.terms) for g in pq.groups)


def _distinguish(cands: list[Hit], pq: ParsedQuery) -> None:
    """Give each ambiguous candidate the sentence that best tells it apart from the others."""
    own = [set(analysis.analyze(f"{h.title} {h.body}")) for h in cands]
    asked = set(pq.terms)
    for i, h in enumerate(cands):
        others = set().union(*(own[:i] + own[i + 1:])) if len(own) > 1 else set()
        unique = own[i] - others - asked
        sents = [x for x in _SENT.split(h.body or "") if x.strip()][:200]
        best, best_n = h.snippet, 0
        for snt in sents:
            n = len(unique & set(analysis.analyze(snt)))
            if n > best_n:
                best, best_n = " ".join(snt.split()), n
        h.snippet = best if len(best) <= 200 else best[:199] + "…"


_SENT = re.compile(r"(?<=[.!?。！？\n])\s*")


def _snippet(body: str, pq: ParsedQuery, limit: int = 200) -> str:
    if not body:
        return ""
    sents = [x for x in _SENT.split(body) if x.strip()][:200]
    if not sents:
        return body[:limit]
    want = set(pq.terms)
    best, best_n = sents[0], -1
    for snt in sents:
        n = len(want & set(analysis.analyze(snt)))
        if n > best_n:
            best, best_n = snt, n
    best = " ".join(best.split())
    return best if len(best) <= limit else best[: limit - 1] + "…"
