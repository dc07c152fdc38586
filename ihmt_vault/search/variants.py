"""Stage 1b: a question's word that no memory holds, matched to the vault's own words it shortens.

People and agents write "pg" for PostgreSQL, "k8s" for Kubernetes, "repo", "creds", "msg"; the
memory holding the answer spelled it out (or the other way round). A short word (at most `MAX_SHORT`
letters, or with a digit) the index has never seen is looked up in the index's own vocabulary —
learned from the vault's text, not a synonym table — among the words that start with its letter and
that it could shorten:

- a **prefix**: "creds" of "credentials", "repo" of "repository" (the word at least `MIN_PREFIX`
  letters, the stored one clearly longer);
- a **numeronym**: "k8s" — its first letter, as many letters as the number, its last;
- an **abbreviation**: "pg" — its letters, in order, inside a clearly longer word.

Letters alone allow many words ("pg": page, plugin, program …; "long": longblob), and a model of
this size cannot tell them apart (it rates "long"~"longblob" 0.62, "creds"~"credentials" 0.05). The
vault can: the variant's memories must hold the question's other words clearly more often than
memories do at large (`LIFT`) — "which pg host does production use" keeps postgresql, which
production's memories hold, and drops page. A question of one word keeps the variants the model
finds nearest it (above `NEAR`), and the most used word it is a prefix of. The chosen words (at most
`KEEP`) are added to the word's own terms: they count as another spelling of it, once, like an
undecided word's two stems.

Cost: only for a word no memory holds (rare: a typo, an abbreviation), one pass over the
index's words of one letter, the postings of at most `POOL` of them, and for a one-word
question one embedding call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .postings import docs, memory_df
from .query import Group, ParsedQuery

MAX_SHORT = 5  # longer words the vault lacks are words it does not use, not shortened ones
MIN_PREFIX = 4  # shorter prefixes ("re", "con") start too many words to mean one
KEEP = 2  # the variants kept of one word
LIFT = 3.0  # a variant's memories hold the question's other words this many times more often than any
POOL = 50  # the letter-matched words judged, the most used first
NEAR = 0.3  # alone in its question: the model's cosine to a variant, at least (pg~postgres 0.37, pg~page 0.17)
_NUMERONYM = re.compile(r"([a-z])(\d{1,2})([a-z])")
_WORD = re.compile(r"[a-z][a-z0-9]{1,15}")

Embed = Callable[[Sequence[str]], Any]  # one normalised row per text, or None when the model fails


def expanded(s, pq: ParsedQuery, embed: Embed | None = None) -> ParsedQuery:
    """`pq` with each word no memory holds given the vault's words it shortens (see the module)."""
    groups: list[Group] = []
    changed = False
    for g in pq.groups:
        others = [o for o in pq.groups if o is not g]
        found = _variants(s, g, others, embed) if _unknown(s, g, pq.text) else []
        if found:
            g = Group(g.word, g.terms + tuple(t for t in found if t not in g.terms), g.ident, g.count)
            changed = True
        groups.append(g)
    return ParsedQuery(pq.text, groups, pq.spans) if changed else pq


def _unknown(s, g: Group, text: str) -> bool:
    """A short word (an abbreviation's length) or one with a digit, that no memory holds (not the
    tail of a contraction: "I've", "they're")."""
    word = g.word.lower()
    if g.ident and not _NUMERONYM.fullmatch(word):  # an identifier is itself, a numeronym is one word
        return False
    if re.search(rf"['’]{re.escape(g.word)}\b", text):
        return False
    short = len(word) <= MAX_SHORT or any(c.isdigit() for c in word)
    return short and _WORD.fullmatch(word) is not None and all(memory_df(s, t) == 0 for t in g.terms)


def _variants(s, g: Group, others: list[Group], embed: Embed | None) -> list[str]:
    shortened = _shortened(s, g.word.lower(), g.terms)[:POOL]
    if not shortened:
        return []
    pool = [t for t, _prefix in shortened]
    prefix = next((t for t, is_prefix in shortened if is_prefix), None)  # the most used: the letters alone say enough
    context = {t for o in others for t in o.terms if memory_df(s, t)}
    if context:
        near = {d for t in context for d in docs(s, "body", t)}
        base = len(near) / max(1, s.doc_count())  # how often any memory holds one of those words
        lifted = []
        for t in pool:
            held = docs(s, "body", t).keys()
            shared = len(near & held)
            if shared and shared / len(held) >= min(1.0, LIFT * base):
                lifted.append((shared / len(held), t))
        return [t for _share, t in sorted(lifted, reverse=True)][:KEEP]
    vectors = embed([g.word.lower(), *pool]) if embed is not None else None
    if vectors is None:
        return [prefix] if prefix else []
    scored = sorted(((float(vectors[0] @ vectors[i + 1]), t) for i, t in enumerate(pool)), reverse=True)
    return [t for cos, t in scored if cos >= NEAR or t == prefix][:KEEP]


def _shortened(s, word: str, stems: tuple[str, ...]) -> list[tuple[str, bool]]:
    """The index's words `word` could shorten, by letters alone, the most used first: (word, whether
    `word` or one of its `stems` is a prefix of it)."""
    numeronym = _NUMERONYM.fullmatch(word)
    found = []
    for raw in s.reader().expand_prefix("body", word[0]):
        term = raw.decode() if isinstance(raw, bytes) else raw
        if term == word or not term.isalpha():
            continue
        if any(len(w) >= MIN_PREFIX and term.startswith(w) and len(term) > len(w) + 2 for w in (word, *stems)):
            found.append((term, True))
        elif numeronym and int(numeronym[2]) <= len(term) <= int(numeronym[2]) + 2:
            found.append((term, False))  # a stem may have lost the last letter ("kubernet"): the length decides
        elif word.isalpha() and len(word) <= 4 and len(term) >= len(word) + 3 and _inside(word, term):
            found.append((term, False))
    return sorted(found, key=lambda tp: -memory_df(s, tp[0]))


def _inside(word: str, term: str) -> bool:
    """Whether `word`'s letters appear in `term` in order, the first one first."""
    rest = iter(term[1:])
    return term[0] == word[0] and all(c in rest for c in word[1:])
