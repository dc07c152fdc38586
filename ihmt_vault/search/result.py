"""What a search returns, and its rendering within a token budget."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

FOUND, AMBIGUOUS, NOT_FOUND = "found", "ambiguous", "not_found"


def estimate_tokens(text: str) -> int:
    """The budget's unit: about four characters a token."""
    return (len(text) + 3) // 4


@dataclass
class Hit:
    id: str
    title: str
    path: str
    snippet: str
    score: float
    status: str = "active"
    date: str | None = None
    notices: list[str] = field(default_factory=list)
    trail: list[str] = field(default_factory=list)  # folders from the root down to the memory's
    body: str = ""  # full text (for the best hit's rendering)
    folder: str = ""
    via: str = "flat"  # "descent" | "flat" | "both"
    vault: str = ""  # the mounted vault it lives in ("": this one)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SearchResult:
    status: str  # found | ambiguous | not_found
    hits: list[Hit] = field(default_factory=list)
    candidates: list[Hit] = field(default_factory=list)  # when ambiguous: one per referent
    node_reads: int = 0  # summaries and memories read
    tokens: int = 0  # estimated tokens of render(detail)
    archived_fallback: bool = False  # hits come from the archive
    coverage: float = 0.0  # how much of the question (by idf) the answer holds
    margin: float = 0.0  # how far the best stands out: 1 - score2/score1

    @property
    def confidence(self) -> float:
        """0-1: coverage (does the best memory hold what was asked) × how much it stands out from
        the next (margin), as coverage × (0.5 + 0.5 × margin); 0 when nothing was found."""
        if self.status == NOT_FOUND or not self.hits:
            return 0.0
        return min(1.0, self.coverage) * (0.5 + 0.5 * min(1.0, self.margin))

    query: str = ""
    words: list[str] = field(
        default_factory=list
    )  # the query's words the search used (a long query: the few that carry it)
    clue: str | None = None
    message: str = ""  # why: which words matched / tied
    budget_tokens: int = 900
    detail: str = "compact"

    def render(self, detail: str | None = None, budget_tokens: int | None = None) -> str:
        return render(self, detail or self.detail, budget_tokens or self.budget_tokens)

    def to_dict(self) -> dict:
        d = {
            "status": self.status,
            "query": self.query,
            "words": list(self.words),
            "clue": self.clue,
            "message": self.message,
            "archived_fallback": self.archived_fallback,
            "coverage": round(self.coverage, 3),
            "margin": round(self.margin, 3),
            "confidence": round(self.confidence, 3),
            "node_reads": self.node_reads,
            "tokens": self.tokens,
            "hits": [_hit_dict(h) for h in self.hits],
            "candidates": [_hit_dict(h) for h in self.candidates],
        }
        return d


def _hit_dict(h: Hit) -> dict:
    d = h.to_dict()
    d.pop("body", None)
    d["score"] = round(h.score, 4)
    return d


def _one_line(text: str, limit: int) -> str:
    s = " ".join((text or "").split())
    return s if len(s) <= limit else s[: max(0, limit - 1)].rstrip() + "…"


def _where(h: Hit) -> str:
    return (f"{h.vault}:" if h.vault else "") + ((h.folder + "/") if h.folder else "/")


def _line(h: Hit, detail: str, width: int) -> str:
    bits = [h.title or h.id]
    if h.date:
        bits.append(f"({h.date})")
    if h.status != "active":
        bits.append(f"[{h.status.upper()}]")
    head = " ".join(bits)
    if detail == "full":
        head += f" — {h.path} id:{h.id}"
    else:
        head += f" — {_where(h)}"
    return _one_line(head, width)


def render(res: SearchResult, detail: str = "compact", budget_tokens: int = 900) -> str:
    """Compact text: the best memory in full (cut to fit), one line per other hit, notices.

    The whole text stays within `budget_tokens` (chars/4) whatever the number of hits; lines that
    do not fit are dropped, and the best memory's body is cut to what is left.
    """
    budget = max(60, budget_tokens) * 4
    width = 160 if detail != "full" else 220
    lines: list[str] = []
    if res.status == NOT_FOUND:
        lines.append(
            f'NOT FOUND: no memory answers "{_one_line(res.query, 80)}".' + (f" {res.message}" if res.message else "")
        )
        if res.hits:
            lines.append("Weak matches:")
            for h in res.hits[:3]:
                lines.append("- " + _line(h, detail, width))
        return _fit(lines, budget)
    if res.status == AMBIGUOUS:
        lines.append(
            f'AMBIGUOUS: {len(res.candidates)} memories match "{_one_line(res.query, 60)}"'
            " — which one? Ask again with a clue (clue=...)."
        )
        for i, h in enumerate(res.candidates, 1):
            lines.append(f"{i}. " + _line(h, detail, width))
            if h.snippet:
                lines.append("   " + _one_line(h.snippet, width - 3))
        return _fit(lines, budget)
    if res.archived_fallback:
        lines.append("(nothing live matched; these come from the archive)")
    if not res.hits:
        return _fit(lines or ["NOT FOUND"], budget)
    best = res.hits[0]
    head = f"# {best.title}" + (f" ({best.date})" if best.date else "")
    if best.status != "active":
        head += f" [{best.status.upper()}]"
    lines.append(head)
    trail = " › ".join(best.trail) if best.trail else "/"
    where = f"{best.vault}:" if best.vault else ""
    lines.append(f"path: {where}{best.path}" + (f"  id: {best.id}" if detail == "full" else "") + f"  (in {trail})")
    for n in best.notices:
        lines.append(n)
    tail: list[str] = []
    if len(res.hits) > 1:
        tail.append("Other matches:")
        for h in res.hits[1:]:
            tail.append("- " + _line(h, detail, width))
            for n in h.notices:
                tail.append("  " + _one_line(n, width))
            if detail == "full" and h.snippet:
                tail.append("  " + _one_line(h.snippet, width))
    # body of the best hit gets what the header and (as many as fit) other lines leave
    fixed = sum(len(x) + 1 for x in lines)
    keep_tail: list[str] = []
    reserve_body = min(len(best.body or best.snippet), budget // 2)
    room = budget - fixed - reserve_body - 2
    for t in tail:
        if len(t) + 1 > room:
            break
        keep_tail.append(t)
        room -= len(t) + 1
    if keep_tail == ["Other matches:"]:
        keep_tail = []
    room_body = budget - fixed - sum(len(x) + 1 for x in keep_tail) - 2
    body = (best.body or best.snippet or "").strip()
    if len(body) > room_body:
        body = body[: max(0, room_body - 1)].rstrip() + "…"
    out = lines + ([body] if body else []) + keep_tail
    return _fit(out, budget)


def _fit(lines: list[str], budget_chars: int) -> str:
    out: list[str] = []
    used = 0
    for ln in lines:
        if used + len(ln) + 1 > budget_chars:
            rest = budget_chars - used - 2
            if rest > 20:
                out.append(ln[:rest] + "…")
            break
        out.append(ln)
        used += len(ln) + 1
    return "\n".join(out)
