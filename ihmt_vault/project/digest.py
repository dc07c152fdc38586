"""A long command output condensed to what a reader needs: its first lines, every error and
failure, the test totals, its last lines — within a budget, in the order they came.

What counts, by kind of line (most important first, so a tight budget drops the least):
1. totals: pytest's `=== 3 failed, 120 passed in 2.3s ===`, unittest's `Ran N tests` / `FAILED
   (failures=2)`, `N passing` / `N failing`, `Tests: …` (jest), `test result:` (cargo);
2. failures: `FAILED path::test`, `ERROR path`, a pytest failure header (`____ test_x ____`);
3. errors: a `SomethingError` or `SomethingException`, a traceback's first line, `E   ` (pytest's
   assertion lines), `error:` / `fatal:` / `panic:` at a line's start, `FAIL`;
4. the first and the last lines.
Repeated lines are shown once with their count. Every omitted stretch is marked.
"""

from __future__ import annotations

import re

_TOTALS = re.compile(
    r"^=+ .*\b(?:passed|failed|error|errors|skipped|xfailed|deselected|no tests ran)\b.* in [\d.]+s.*=+$"
    r"|^Ran \d+ tests? in|^(?:FAILED|OK) \((?:failures|errors|skipped)=|^OK$|^\s*\d+ (?:passing|failing|pending)\b"
    r"|^Tests?:\s+\d+|^Test Suites?:|^test result:",
    re.I,
)
_FAILURE = re.compile(r"^(?:FAILED|ERROR) \S|^_{3,} .+ _{3,}$|^--- FAIL:|^FAIL\b|^\s*✕|^not ok \d")
_ERROR = re.compile(
    r"\b(?:[A-Z]\w*Error|[A-Z]\w*Exception|Traceback \(most recent call last\)|FAIL(?:ED|URE)?|"
    r"Segmentation fault)\b|^E\s{2,}\S|^\s*(?:error|fatal|panic)(?:\[\w+\])?:|\bpanicked at\b"
)
HEAD, TAIL = 5, 10


def digest(text: str, label: str = "output", budget_tokens: int = 800) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n = len(lines)
    rank: dict[int, int] = {}
    for i, line in enumerate(lines):
        s = line.rstrip()
        if _TOTALS.search(s):
            rank[i] = 1
        elif _FAILURE.search(s):
            rank[i] = 2
        elif _ERROR.search(s):
            rank[i] = 3
    for i in list(range(min(HEAD, n))) + list(range(max(0, n - TAIL), n)):
        rank.setdefault(i, 4)
    header = f"[{label}: {n} lines, {len(text)} characters; digest below, the whole is kept: recall('{label}')]"
    budget = budget_tokens * 4 - len(header)
    chosen: set[int] = set()
    seen: dict[str, int] = {}
    counts: dict[str, int] = {}
    for i in range(n):
        if i in rank:
            counts[lines[i].strip()] = counts.get(lines[i].strip(), 0) + 1
    used = 0
    for level in (1, 2, 3, 4):
        for i in sorted(k for k, v in rank.items() if v == level):
            key = lines[i].strip()
            if key in seen:
                continue
            cost = min(len(lines[i]), 300) + 1
            if used + cost > budget:
                continue
            seen[key] = i
            chosen.add(i)
            used += cost
    out, last = [header], -1
    for i in sorted(chosen):
        if i > last + 1:
            out.append(f"[… {i - last - 1} lines]")
        line = lines[i] if len(lines[i]) <= 300 else lines[i][:297] + "…"
        times = counts.get(lines[i].strip(), 1)
        out.append(line + (f"  [×{times}]" if times > 1 else ""))
        last = i
    if last < n - 1:
        out.append(f"[… {n - 1 - last} lines]")
    return "\n".join(out)
