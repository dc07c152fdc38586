"""Dates in texts and queries (English, Spanish, Chinese), resolved against a reference day.

`find_dates(text, ref)` returns the date spans a text names: absolute ones ("2023-05-08",
"8 May 2023", "May 2023", "in 2023", "8 de mayo de 2023", "2023年5月") and relative ones
("yesterday", "last week", "last May", "3 days ago", "ayer", "el mes pasado", "昨天", "去年"), each
as a `Span(start, end, grain, chars)`. For a memory the reference day is its own date (a turn that
says "yesterday" is about the day before it was said); for a query it is today (injectable).

`when_terms(spans)` turns spans into the keyword terms indexed in the `when` field: `y2023`,
`m2023-05`, `d2023-05-07`, and `M05` (a month whatever the year, for "in May").
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

MONTHS = {
    # English
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sep": 9,
    "sept": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
    # Spanish
    "enero": 1,
    "febrero": 2,
    "marzo": 3,
    "abril": 4,
    "mayo": 5,
    "junio": 6,
    "julio": 7,
    "agosto": 8,
    "septiembre": 9,
    "setiembre": 9,
    "octubre": 10,
    "noviembre": 11,
    "diciembre": 12,
}
_FULL_MONTHS = {k for k in MONTHS if len(k) > 4 or k in ("may", "june", "july", "mayo")}
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAYS = {
    "monday": 0,
    "tuesday": 1,
    "wednesday": 2,
    "thursday": 3,
    "friday": 4,
    "saturday": 5,
    "sunday": 6,
    "lunes": 0,
    "martes": 1,
    "miercoles": 2,
    "miércoles": 2,
    "jueves": 3,
    "viernes": 4,
    "sabado": 5,
    "sábado": 5,
    "domingo": 6,
}
_WD_RE = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_UNITS = {
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
    "dia": "day",
    "dias": "day",
    "día": "day",
    "días": "day",
    "semana": "week",
    "semanas": "week",
    "mes": "month",
    "meses": "month",
    "año": "year",
    "años": "year",
    "ano": "year",
    "anos": "year",
    "天": "day",
    "周": "week",
    "星期": "week",
    "个月": "month",
    "月": "month",
    "年": "year",
}
_NUMS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "un": 1,
    "una": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "couple": 2,
    "few": 3,
}


@dataclass(frozen=True)
class Span:
    start: dt.date
    end: dt.date  # inclusive
    grain: str  # "day" | "week" | "month" | "year" | "month-any" (a month, any year)
    chars: tuple[int, int] = (0, 0)


def to_date(value) -> dt.date | None:
    """An ISO date/datetime string (or date) → date; None when absent or unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    m = re.match(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})", str(value))
    if not m:
        m2 = re.match(r"\s*(\d{4})-(\d{1,2})\s*$", str(value))
        if m2:
            return _safe(int(m2.group(1)), int(m2.group(2)), 1)
        m3 = re.match(r"\s*(\d{4})\s*$", str(value))
        return _safe(int(m3.group(1)), 1, 1) if m3 else None
    return _safe(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def _safe(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _month_span(y: int, m: int) -> tuple[dt.date, dt.date]:
    start = dt.date(y, m, 1)
    nxt = dt.date(y + (m == 12), m % 12 + 1, 1)
    return start, nxt - dt.timedelta(days=1)


def _shift_months(d: dt.date, n: int) -> tuple[int, int]:
    k = d.year * 12 + (d.month - 1) + n
    return k // 12, k % 12 + 1


def _num(s: str) -> int | None:
    s = s.lower()
    if s.isdigit():
        return int(s)
    return _NUMS.get(s)


_YEAR = r"(?:19|20)\d{2}"
_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("iso", re.compile(rf"\b({_YEAR})[-/.](\d{{1,2}})[-/.](\d{{1,2}})\b")),
    ("dmy_num", re.compile(rf"\b(\d{{1,2}})/(\d{{1,2}})/({_YEAR})\b")),
    ("zh_ymd", re.compile(rf"({_YEAR})年(?:(\d{{1,2}})月(?:(\d{{1,2}})[日号])?)?")),
    ("zh_md", re.compile(r"(?<![\d年])(\d{1,2})月(\d{1,2})[日号]")),
    (
        "d_month_y",
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?({_MONTH_RE})\.?(?:,?\s+(?:de\s+|del\s+)?({_YEAR}))?\b",
            re.I,
        ),
    ),
    ("month_d_y", re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+({_YEAR})\b)?", re.I)),
    ("month_y", re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:de\s+|del\s+|of\s+)?({_YEAR})\b", re.I)),
    ("ym", re.compile(rf"\b({_YEAR})-(\d{{2}})\b(?!-)")),
    (
        "last_month_name",
        re.compile(rf"\b(?:last|past|this|el\s+pasado|pasado)\s+({_MONTH_RE})\b|\b({_MONTH_RE})\s+pasado\b", re.I),
    ),
    ("in_month", re.compile(rf"\b(?:in|en|during|since|durante)\s+({_MONTH_RE})\b", re.I)),
    (
        "ago",
        re.compile(
            r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple|few)\s+(?:of\s+)?(days?|weeks?|months?|years?)\s+ago\b",
            re.I,
        ),
    ),
    (
        "hace",
        re.compile(r"\bhace\s+(\d+|un|una|dos|tres|cuatro|cinco)\s+(d[ií]as?|semanas?|mes(?:es)?|a[ñn]os?)\b", re.I),
    ),
    ("zh_ago", re.compile(r"(\d+)\s*(天|周|星期|个月|年)前")),
    (
        "rel_en",
        re.compile(
            r"\b(today|tonight|this morning|yesterday|the day before yesterday|tomorrow|"
            r"(?:last|this|past|previous|next)\s+(?:week(?:end)?|month|year))\b",
            re.I,
        ),
    ),
    (
        "rel_es",
        re.compile(
            r"\b(hoy|anteayer|antes de ayer|ayer|ma[ñn]ana|"
            r"(?:la|esta)\s+semana(?:\s+pasada)?|(?:el|este)\s+mes(?:\s+pasado)?|"
            r"(?:el|este)\s+a[ñn]o(?:\s+pasado)?|el\s+fin\s+de\s+semana(?:\s+pasado)?)\b",
            re.I,
        ),
    ),
    ("rel_zh", re.compile(r"(今天|昨天|前天|明天|上周|上个星期|上星期|这周|本周|上个月|这个月|本月|去年|今年|前年)")),
    ("weekday", re.compile(rf"\b(?:last|past|on|this|el|el\s+pasado)\s+({_WD_RE})\b", re.I)),
    ("in_year", re.compile(rf"\b(?:in|en|during|since|of|del|de|year|año)\s+({_YEAR})\b", re.I)),
]


_WORD = re.compile(r"[^\W\d_]+")
_MONTH_WORDS = frozenset(MONTHS)
_WD_WORDS = frozenset(_WEEKDAYS)
_REL_EN = frozenset("today tonight morning yesterday tomorrow last this past previous next day".split())
_REL_ES = frozenset("hoy anteayer ayer mañana manana semana mes año ano fin".split())
_GATE = {
    "iso": "digits",
    "dmy_num": "digits",
    "zh_ymd": "digits",
    "zh_md": "digits",
    "d_month_y": "digits",
    "month_d_y": "digits",
    "month_y": "digits",
    "ym": "digits",
    "last_month_name": "month",
    "in_month": "month",
    "ago": "ago",
    "hace": "hace",
    "zh_ago": "digits",
    "rel_en": "rel_en",
    "rel_es": "rel_es",
    "rel_zh": "rel_zh",
    "weekday": "weekday",
    "in_year": "digits",
}


def find_dates(text: str, ref: dt.date | None) -> list[Span]:
    """Date spans named in `text`; relative ones need `ref` (skipped without it)."""
    if not text:
        return []
    out: list[Span] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in taken)

    def add(start, end, grain, m):
        if start is None or end is None:
            return
        out.append(Span(start, end, grain, (m.start(), m.end())))
        taken.append((m.start(), m.end()))

    low = text.lower()
    vocab = set(_WORD.findall(low))
    digits = any(c.isdigit() for c in text)
    gates = {
        "digits": digits,
        "month": bool(vocab & _MONTH_WORDS),
        "ago": "ago" in vocab,
        "hace": "hace" in vocab,
        "rel_en": bool(vocab & _REL_EN),
        "rel_es": bool(vocab & _REL_ES),
        "rel_zh": any(c in text for c in "今昨前明上这本去"),
        "weekday": bool(vocab & _WD_WORDS),
    }
    for name, rx in _PATTERNS:
        if not gates[_GATE[name]]:
            continue
        for m in rx.finditer(text):
            if not free(m.start(), m.end()):
                continue
            g = m.groups()
            if name == "iso":
                d = _safe(int(g[0]), int(g[1]), int(g[2]))
                add(d, d, "day", m)
            elif name == "dmy_num":
                d = _safe(int(g[2]), int(g[1]), int(g[0])) or _safe(int(g[2]), int(g[0]), int(g[1]))
                add(d, d, "day", m)
            elif name == "zh_ymd":
                y = int(g[0])
                if g[2]:
                    d = _safe(y, int(g[1]), int(g[2]))
                    add(d, d, "day", m)
                elif g[1] and 1 <= int(g[1]) <= 12:
                    add(*_month_span(y, int(g[1])), "month", m)
                else:
                    add(dt.date(y, 1, 1), dt.date(y, 12, 31), "year", m)
            elif name == "zh_md":
                if ref:
                    d = _safe(ref.year, int(g[0]), int(g[1]))
                    add(d, d, "day", m)
            elif name == "d_month_y":
                mon = MONTHS[g[1].lower()]
                if g[2]:
                    d = _safe(int(g[2]), mon, int(g[0]))
                    add(d, d, "day", m)
                elif ref and (g[1].lower() in _FULL_MONTHS):
                    d = _safe(ref.year, mon, int(g[0]))
                    if d and d > ref + dt.timedelta(days=31):
                        d = _safe(ref.year - 1, mon, int(g[0]))
                    add(d, d, "day", m)
            elif name == "month_d_y":
                word = g[0].lower()
                if word == "may" and not g[2] and not text[m.start()].isupper():
                    continue
                mon = MONTHS[word]
                if g[2]:
                    d = _safe(int(g[2]), mon, int(g[1]))
                    add(d, d, "day", m)
                elif ref and word in _FULL_MONTHS and int(g[1]) <= 31:
                    d = _safe(ref.year, mon, int(g[1]))
                    if d and d > ref + dt.timedelta(days=31):
                        d = _safe(ref.year - 1, mon, int(g[1]))
                    add(d, d, "day", m)
            elif name == "month_y":
                mon = MONTHS[g[0].lower()]
                add(*_month_span(int(g[1]), mon), "month", m)
            elif name == "ym":
                mon = int(g[1])
                if 1 <= mon <= 12:
                    add(*_month_span(int(g[0]), mon), "month", m)
            elif name == "last_month_name":
                word = (g[0] or g[1]).lower()
                if word not in _FULL_MONTHS or not ref:
                    continue
                mon = MONTHS[word]
                y = ref.year if mon < ref.month else ref.year - 1
                if m.group(0).lower().startswith("this"):
                    y = ref.year
                add(*_month_span(y, mon), "month", m)
            elif name == "in_month":
                word = g[0].lower()
                if word not in _FULL_MONTHS:
                    continue
                if word == "may" and not text[m.start(1)].isupper():
                    continue
                mon = MONTHS[word]
                add(dt.date(2000, mon, 1), _month_span(2000, mon)[1], "month-any", m)
            elif name in ("ago", "hace", "zh_ago"):
                if not ref:
                    continue
                n = _num(g[0]) or 1
                unit = _UNITS.get(g[1].lower(), _UNITS.get(g[1].lower().rstrip("s"), "day"))
                if unit == "day":
                    d = ref - dt.timedelta(days=n)
                    add(d - dt.timedelta(days=1), d + dt.timedelta(days=1), "week", m)
                elif unit == "week":
                    d = ref - dt.timedelta(weeks=n)
                    add(d - dt.timedelta(days=3), d + dt.timedelta(days=3), "week", m)
                elif unit == "month":
                    y, mo = _shift_months(ref, -n)
                    add(*_month_span(y, mo), "month", m)
                else:
                    y = ref.year - n
                    add(dt.date(y, 1, 1), dt.date(y, 12, 31), "year", m)
            elif name in ("rel_en", "rel_es", "rel_zh"):
                if not ref:
                    continue
                span = _relative(g[0].lower(), ref)
                if span:
                    add(span[0], span[1], span[2], m)
            elif name == "weekday":
                if not ref:
                    continue
                wd = _WEEKDAYS[g[0].lower()]
                back = (ref.weekday() - wd) % 7 or 7
                d = ref - dt.timedelta(days=back)
                add(d, d, "day", m)
            elif name == "in_year":
                y = int(g[0])
                add(dt.date(y, 1, 1), dt.date(y, 12, 31), "year", m)
    return out


def _relative(w: str, ref: dt.date):
    w = re.sub(r"\s+", " ", w)
    day = dt.timedelta(days=1)
    if w in ("today", "tonight", "this morning", "hoy", "今天"):
        return ref, ref, "day"
    if w in ("yesterday", "ayer", "昨天"):
        return ref - day, ref - day, "day"
    if w in ("the day before yesterday", "anteayer", "antes de ayer", "前天"):
        return ref - 2 * day, ref - 2 * day, "day"
    if w in ("tomorrow", "mañana", "manana", "明天"):
        return ref + day, ref + day, "day"
    monday = ref - dt.timedelta(days=ref.weekday())
    if w in (
        "last week",
        "past week",
        "previous week",
        "la semana pasada",
        "semana pasada",
        "上周",
        "上个星期",
        "上星期",
    ):
        return monday - 7 * day, monday - day, "week"
    if w in ("this week", "esta semana", "la semana", "这周", "本周"):
        return monday, monday + 6 * day, "week"
    if w in ("last weekend", "el fin de semana pasado", "el fin de semana"):
        sat = monday - 2 * day
        return sat, sat + day, "week"
    if w in ("next week",):
        return monday + 7 * day, monday + 13 * day, "week"
    if w in ("last month", "past month", "previous month", "el mes pasado", "上个月"):
        return (*_month_span(*_shift_months(ref, -1)), "month")
    if w in ("this month", "este mes", "el mes", "这个月", "本月"):
        return (*_month_span(ref.year, ref.month), "month")
    if w in ("next month",):
        return (*_month_span(*_shift_months(ref, 1)), "month")
    if w in ("last year", "past year", "previous year", "el año pasado", "el ano pasado", "去年"):
        return dt.date(ref.year - 1, 1, 1), dt.date(ref.year - 1, 12, 31), "year"
    if w in ("前年",):
        return dt.date(ref.year - 2, 1, 1), dt.date(ref.year - 2, 12, 31), "year"
    if w in ("this year", "este año", "este ano", "el año", "el ano", "今年"):
        return dt.date(ref.year, 1, 1), dt.date(ref.year, 12, 31), "year"
    if w in ("next year",):
        return dt.date(ref.year + 1, 1, 1), dt.date(ref.year + 1, 12, 31), "year"
    return None


def when_terms(spans: list[Span], doc_date: dt.date | None = None) -> list[str]:
    """Keyword terms for the `when` field: the doc's own date and the spans its text names."""
    terms: set[str] = set()

    def day_terms(d: dt.date):
        terms.update((f"y{d.year}", f"m{d.year}-{d.month:02d}", f"d{d.isoformat()}", f"M{d.month:02d}"))

    if doc_date:
        day_terms(doc_date)
    for s in spans:
        if s.grain == "month-any":
            terms.add(f"M{s.start.month:02d}")
        elif s.grain == "day":
            day_terms(s.start)
        elif s.grain == "week":
            d = s.start
            while d <= s.end:
                day_terms(d)
                d += dt.timedelta(days=1)
        elif s.grain == "month":
            terms.update((f"y{s.start.year}", f"m{s.start.year}-{s.start.month:02d}", f"M{s.start.month:02d}"))
        elif s.grain == "year":
            terms.add(f"y{s.start.year}")
    return sorted(terms)


def query_terms(span: Span) -> list[str]:
    """The `when` terms a query span asks for (any one of them matches)."""
    if span.grain == "month-any":
        return [f"M{span.start.month:02d}"]
    if span.grain == "year":
        return [f"y{span.start.year}"]
    if span.grain == "month":
        return [f"m{span.start.year}-{span.start.month:02d}"]
    out: list[str] = []
    d = span.start
    while d <= span.end and len(out) < 62:
        out.append(f"d{d.isoformat()}")
        d += dt.timedelta(days=1)
    return out


def strip_spans(text: str, spans: list[Span]) -> str:
    """The text with the date expressions blanked out (they are searched as dates, not words)."""
    chars = list(text)
    for s in spans:
        for i in range(*s.chars):
            chars[i] = " "
    return "".join(chars)
