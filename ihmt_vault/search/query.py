"""A query as the engine sees it: groups of terms (one group per query word), and date spans."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from .. import clock
from . import analysis, dates


@dataclass
class Group:
    word: str  # as written in the query
    terms: tuple[str, ...]  # index terms any of which stands for the word
    ident: bool = False
    count: int = 1  # how often the query says it (a long query repeats what it is about)


@dataclass
class ParsedQuery:
    text: str
    groups: list[Group] = field(default_factory=list)
    spans: list[dates.Span] = field(default_factory=list)

    @property
    def terms(self) -> list[str]:
        seen: list[str] = []
        for g in self.groups:
            for t in g.terms:
                if t not in seen:
                    seen.append(t)
        return seen

    @property
    def when_terms(self) -> list[str]:
        out: list[str] = []
        for s in self.spans:
            for t in dates.query_terms(s):
                if t not in out:
                    out.append(t)
        return out


def parse(text: str, today: dt.date | None = None) -> ParsedQuery:
    """Words → term groups; date expressions → spans (and taken out of the words).

    The language of a short query is often undecidable: then each word carries both its English
    and its Spanish stems (a document is stemmed in its own language, so one of them meets it).
    """
    text = text or ""
    ref = today or clock.today()
    spans = dates.find_dates(text, ref)
    rest = dates.strip_spans(text, spans) if spans else text
    lang = analysis.text_lang(text)
    ws = analysis.words(rest, lang)
    groups: list[Group] = []
    seen: dict[tuple[str, ...], Group] = {}
    for w in ws:
        if w.terms in seen:
            seen[w.terms].count += 1
            continue
        seen[w.terms] = g = Group(w.text, w.terms, w.ident)
        groups.append(g)
    # a year written alone ("2023") is both a word and a date: keep the word, add the span
    return ParsedQuery(text, groups, spans)
