"""Text analysis shared by indexing and querying: English, Spanish and Chinese.

The index stores *pre-analysed* text: this module turns a text into a list of terms and the Whoosh
fields split it on spaces. Doing the analysis here (not in a Whoosh analyzer chain) lets one
document be stemmed in its own language and lets the query side know which terms came from which
query word (coverage, distinctive terms, snippets).

- Words are runs of letters/digits; `_ . -` joined runs and camelCase make *identifiers*: the
  whole identifier is kept (`reservestock`, `pg17`) and its parts are added (`reserv`, `stock`,
  `pg`, `17`), so both spellings find each other.
- Latin words: lower-cased, stemmed (English Porter2 or Spanish Snowball, by a cheap language
  guess per text), accents folded. Spanish stems are taken before and after folding, so a query
  typed without accents still meets the accented text.
- Stop words (English + Spanish) are dropped; single letters too.
- CJK runs are cut as `text.cjk_terms` cuts them (Chinese into words by jieba's dictionary, kana
  and Hangul into character pairs), each term a word of its own — the same cut placement uses.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from whoosh.lang import stemmer_for_language, stopwords_for_language

from ..text import CJK as _CJK_CHARS
from ..text import CJK_RUN, cjk_terms, fold

_EN_STEM = stemmer_for_language("en")
_ES_STEM = stemmer_for_language("es")

# NLTK's lists (shipped with Whoosh) plus question/auxiliary words that carry no topic.
STOP_EN = frozenset(stopwords_for_language("en")) | frozenset(
    """would could shall might must also get got let like yes hey hi oh ok okay really
    us im ive id youre thats whats dont didnt doesnt isnt wasnt cant wont""".split()
)
STOP_ES = frozenset(stopwords_for_language("es")) | frozenset(
    "qué cómo cuándo dónde quién cuál cuánto cuánta cuántos cuántas sí".split()
)
STOP = STOP_EN | STOP_ES

# Words whose presence tells the language of a text (frequent function words only).
_EN_MARKERS = frozenset(
    "the and is are was were of to in that it with for on this what when where who how did does have has".split()
)
_ES_MARKERS = frozenset(
    "el la los las de que y en un una es por con para del al se lo como más pero qué cuándo dónde quién está son "
    "fue".split()
)

# A token: a CJK run, or letters/digits possibly joined by _ . - (identifiers, versions, dates).
TOKEN = re.compile(
    rf"[{_CJK_CHARS}]+|[^\W_{_CJK_CHARS}]+(?:[_.\-/][^\W_{_CJK_CHARS}]+)*|[^\W{_CJK_CHARS}]+", re.UNICODE
)
_SEP = re.compile(r"[_.\-/]+")


def guess_lang(words: list[str]) -> str:
    """'en', 'es' or '' (undecided) from function words of already lower-cased words."""
    en = sum(1 for w in words if w in _EN_MARKERS)
    es = sum(1 for w in words if w in _ES_MARKERS)
    if es > en:
        return "es"
    if en > es:
        return "en"
    # accents typical of Spanish decide a text without function words
    if any(ch in w for w in words for ch in "ñáéíóú¿¡"):
        return "es"
    return ""


def text_lang(text: str) -> str:
    """The language of a whole text ('en', 'es' or ''), from its short words."""
    return guess_lang([r.lower() for r in TOKEN.findall(text or "")])


@functools.lru_cache(maxsize=200_000)
def stems(word: str, lang: str) -> tuple[str, ...]:
    """The index terms of one lower-cased Latin word in a language ('' = both)."""
    out: list[str] = []
    if lang in ("en", ""):
        out.append(fold(_EN_STEM(fold(word))))
    if lang in ("es", ""):
        out.append(fold(_ES_STEM(word)))
        out.append(_ES_STEM(fold(word)))
    seen: list[str] = []
    for t in out:
        if t and t not in seen:
            seen.append(t)
    return tuple(seen)


def _camel_parts(piece: str) -> list[str]:
    """'reserveStock' → reserve, Stock; 'HTTPServer' → HTTP, Server; 'PG17' → PG, 17 (any script)."""
    parts: list[str] = []
    cur = ""
    for i, ch in enumerate(piece):
        if cur:
            prev = cur[-1]
            nxt = piece[i + 1] if i + 1 < len(piece) else ""
            if (
                ch.isdigit() != prev.isdigit()
                or (prev.islower() and ch.isupper())
                or (prev.isupper() and ch.isupper() and nxt.islower())
            ):
                parts.append(cur)
                cur = ""
        cur += ch
    if cur:
        parts.append(cur)
    return parts


@dataclass(frozen=True)
class Word:
    """One word of a text as written, and the index terms it produces."""

    text: str  # as written
    terms: tuple[str, ...]
    ident: bool = False  # an identifier (camelCase, snake_case, letters+digits, dotted)


def words(text: str, lang: str | None = None) -> list[Word]:
    """Split a text into words with their terms; stop words produce no Word.

    `lang` None guesses the language from the text itself.
    """
    raw = TOKEN.findall(text or "")
    if lang is None:
        lang = guess_lang([r.lower() for r in raw if len(r) < 8])
    out: list[Word] = []
    for tok in raw:
        if CJK_RUN.fullmatch(tok):
            # a CJK run is a clause, not a word: each of its words counts on its own
            out += [Word(t, (t,)) for t in cjk_terms(tok)]
            continue
        w = _word(tok, lang)
        if w is not None:
            out.append(w)
    return out


@functools.lru_cache(maxsize=200_000)
def _word(tok: str, lang: str) -> Word | None:
    low = tok.lower()
    if tok.isalpha() and (tok.islower() or tok[1:].islower()):
        parts = [tok]
    else:
        parts = [p for piece in _SEP.split(tok) for p in _camel_parts(piece)]
    is_ident = len(parts) > 1
    if not is_ident:
        if low in STOP or fold(low) in STOP:
            return None
        if len(low) == 1 and not low.isdigit():
            return None
        return Word(tok, stems(low, lang))
    terms: list[str] = []
    whole = fold(_SEP.sub("", low))
    terms.append(whole)
    for p in parts:
        pl = p.lower()
        if pl in STOP or (len(pl) == 1 and not pl.isdigit()):
            continue
        for t in stems(pl, lang) if not pl.isdigit() else (pl,):
            if t not in terms:
                terms.append(t)
    return Word(tok, tuple(terms), ident=True)


def analyze(text: str, lang: str | None = None) -> list[str]:
    """The index terms of a text, in order (duplicates kept: they are term frequencies)."""
    return [t for w in words(text, lang) for t in w.terms]


@functools.lru_cache(maxsize=20_000)
def term_set(text: str, lang: str | None = None) -> frozenset[str]:
    """The distinct index terms of a text, remembered: a query compares the same stored memories'
    terms several times (coverage, same subject, snippets), and so do the queries after it."""
    return frozenset(analyze(text, lang))
