"""Our query shapes evaluated over posting lists held in memory: the scores Whoosh's matchers give.

Why: a query touches a few thousand postings; Whoosh walks them through a tree of matcher
objects, several method calls and a column read per document, ten times the cost of the
arithmetic (issue 19: a flat Python scan of every memory was four times faster). Here each
term's postings are read once into a dict and the query is evaluated with dict operations.

Invariants:
- Same results as `Searcher.search(q, limit, mask)`: BM25F as `matching.weighting()` scores it
  (Whoosh's quantised field lengths, its idf, term boosts), Or and And add their children's
  scores, DisjunctionMax takes the best of its parts for each document (Whoosh's matcher takes
  another document's score when both parts are active, a bug not copied), ConstantScoreQuery
  gives its constant; ties by document number. Any other query type is handed to Whoosh
  unchanged (`Unsupported`).
- A segment's documents never change, only its deletions grow: field lengths are kept per
  segment, postings per segment and deletion count, so a cache is never stale.
- Bounded: at most `MAX_POSTINGS` postings and `MAX_STORED` documents' stored fields cached in
  all (oldest dropped first). Stored fields are shared: callers never change them.
"""

from __future__ import annotations

import bisect
import heapq
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

from whoosh.query import And, ConstantScoreQuery, DisjunctionMax, Or, Term

MAX_POSTINGS = 2_000_000
MAX_STORED = 50_000
TERMS_PER_SEARCHER = 512
_postings: OrderedDict[tuple, dict[int, int | float]] = OrderedDict()  # (segment, dels, field, term) → {doc: tf}
_held = [0]  # postings in `_postings`
_lengths: OrderedDict[tuple, dict[int, int]] = OrderedDict()  # (segment, field) → {doc: length}
_stored: OrderedDict[tuple, dict] = OrderedDict()  # (segment, doc) → stored fields
_terms: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # searcher → {(field, term, k1, b): scores}
_df: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # searcher → {term: memories holding it}
_lock = threading.Lock()  # the caches are shared by every vault a process has open


class Unsupported(Exception):
    """A query shape this module does not evaluate (Whoosh evaluates it instead)."""


@dataclass(frozen=True)
class Hit:
    docnum: int
    score: float


class Hits(list):
    """The ranked hits, as the parts of Whoosh's Results the search reads."""

    def scored_length(self) -> int:
        return len(self)

    def items(self):
        return [(h.docnum, h.score) for h in self]


def search(s, q, limit: int, mask=None, k1: float = 1.2, b: dict[str, float] | None = None, default_b: float = 0.75):
    """`s.search(q, limit=limit, mask=mask)`, evaluated here when the shapes allow it."""
    ev = _Evaluator(s, k1, b or {}, default_b)
    try:
        with _lock:
            scores = ev.scores(q)
            if mask is not None:
                masked = ev.scores(mask)
                scores = {d: sc for d, sc in scores.items() if d not in masked}
    except Unsupported:
        return s.search(q, limit=limit, mask=mask)
    top = heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return Hits(Hit(d, sc) for d, sc in top)


def docs(s, field: str, text: str) -> dict[int, float]:
    """The live documents holding a term, with its weight (a term's postings, kept as searches keep them)."""
    with _lock:
        return _Evaluator(s, 1.2, {}, 0.75).term(field, text)


def memory_df(s, term: str) -> int:
    """How many memories hold a term (in the title or the body), remembered per searcher: a long
    query and the coverage of its candidates ask it of the same terms many times."""
    cache = _df.setdefault(s, {})
    n = cache.get(term)
    if n is None:
        n = cache[term] = max(s.doc_frequency("body", term), s.doc_frequency("title", term))
    return n


def stored(s, docnum: int) -> dict:
    """`s.stored_fields(docnum)`, kept per segment (unpickling them is most of a hit's cost)."""
    leaves = s.leaf_searchers()
    i = bisect.bisect_right([off for _, off in leaves], docnum) - 1
    leaf, offset = leaves[i]
    reader = leaf.reader()
    key = (reader.segment().segment_id(), docnum - offset)
    with _lock:
        hit = _stored.get(key)
        if hit is not None:
            _stored.move_to_end(key)
            return hit
    fields = reader.stored_fields(docnum - offset)
    with _lock:
        _stored[key] = fields
        while len(_stored) > MAX_STORED:
            _stored.popitem(last=False)
    return fields


class _Evaluator:
    def __init__(self, s, k1: float, b: dict[str, float], default_b: float):
        self.s, self.k1, self.b, self.default_b = s, k1, b, default_b
        self.leaves = [(leaf.reader(), offset) for leaf, offset in s.leaf_searchers()]
        self.schema = s.schema

    def scores(self, q) -> dict[int, float]:
        kind = type(q)
        if kind is Term:
            out = self.term(q.fieldname, q.text)
        elif kind is Or:
            # the largest part copied (a C loop), the others added to it: a word's body postings
            # are most of the work, its title ones a few
            parts = sorted((self.scores(sub) for sub in q.subqueries), key=len, reverse=True)
            out = dict(parts[0]) if parts else {}
            for part in parts[1:]:
                for d, sc in part.items():
                    out[d] = out.get(d, 0.0) + sc
        elif kind is DisjunctionMax and not q.tiebreak:
            parts = sorted((self.scores(sub) for sub in q.subqueries), key=len, reverse=True)
            out = dict(parts[0]) if parts else {}
            for part in parts[1:]:
                for d, sc in part.items():
                    if sc > out.get(d, -1.0):
                        out[d] = sc
        elif kind is And:
            parts = sorted((self.scores(sub) for sub in q.subqueries), key=len)
            out = dict(parts[0]) if parts else {}
            for part in parts[1:]:
                out = {d: sc + part[d] for d, sc in out.items() if d in part}
        elif kind is ConstantScoreQuery:
            # Whoosh scores a constant of 0.0 as 1.0 (its ListMatcher takes a falsy weight for "none
            # given"); the same here, so a ranking does not change with the evaluator
            return dict.fromkeys(self.scores(q.child), q.score or 1.0)
        else:
            raise Unsupported(kind.__name__)
        if q.boost != 1.0:
            out = {d: sc * q.boost for d, sc in out.items()}
        return out

    def term(self, field: str, text: str) -> dict[int, float]:
        """A term's scores, shared by the searcher's queries (the flat ranking and the descent ask
        the same terms; idf and average lengths hold as long as the searcher): never changed."""
        cache = _terms.setdefault(self.s, OrderedDict())
        key = (field, text, self.k1, self.b.get(field, self.default_b))
        out = cache.get(key)
        if out is None:
            out = cache[key] = self._term(field, text)
            if len(cache) > TERMS_PER_SEARCHER:
                cache.popitem(last=False)
        return out

    def _term(self, field: str, text: str) -> dict[int, float]:
        if field not in self.schema:
            return {}
        scorable = self.schema[field].scorable
        if scorable:
            s = self.s
            idf, avg = s.idf(field, text), s.avg_field_length(field) or 1
            k1, b = self.k1, self.b.get(field, self.default_b)
        out: dict[int, float] = {}
        for reader, offset in self.leaves:
            posts = self.postings(reader, field, text)
            if not posts:
                continue
            if not scorable:
                out.update((d + offset, float(w)) for d, w in posts.items())
                continue
            seg = lengths_of(reader, field)
            for d, w in posts.items():
                fl = seg.get(d)
                if fl is None:
                    fl = seg[d] = reader.doc_field_length(d, field, 1)
                out[d + offset] = idf * ((w * (k1 + 1)) / (w + k1 * ((1 - b) + b * fl / avg)))  # Whoosh's bm25()
        return out

    def postings(self, reader, field: str, text: str) -> dict[int, int | float]:
        key = (reader.segment().segment_id(), reader.doc_count_all() - reader.doc_count(), field, text)
        hit = _postings.get(key)
        if hit is not None:
            _postings.move_to_end(key)
            return hit
        out: dict[int, int | float] = {}
        if (field, text) in reader:
            m = reader.postings(field, text)
            while m.is_active():
                out[m.id()] = m.weight()
                m.next()
        _postings[key] = out
        _held[0] += len(out) + 1
        while _held[0] > MAX_POSTINGS and len(_postings) > 1:
            _held[0] -= len(_postings.popitem(last=False)[1]) + 1
        return out


def lengths_of(reader, field: str) -> dict[int, int]:
    """A segment's field lengths, filled as documents are scored (Whoosh reads one a call)."""
    key = (reader.segment().segment_id(), field)
    seg = _lengths.get(key)
    if seg is None:
        seg = _lengths[key] = {}
        while len(_lengths) > 256:
            _lengths.popitem(last=False)
    return seg
