"""Scale benchmark: every figure of issue 8 at several vault sizes, against a flat BM25 baseline.

    /work/venv/bin/python bench/scale.py --sizes 500 5000 50000     # table on stdout, bench/results/scale.json
    /work/venv/bin/python bench/scale.py --sizes 500 --keep /tmp/v  # keep the vaults (to profile them)
    /work/venv/bin/python bench/scale.py --soak 30                  # 30 minutes of the torture tests, bigger

Per size, in this order, on a fresh vault made of `bench/synth.py` memories:

- import: `Vault.save_many(items)` of all of them (one commit), memories/s;
- save: `--saves` single `Vault.save` calls in one long-lived process (file + summaries + index +
  commit, and a split commit when a folder outgrows the branch factor), p50/p95 ms; plus a few
  one-shot CLI saves (process start included);
- search: a child process opens the vault and asks `synth.QUERIES` `--rounds` times (a long-lived
  process: the first query, which opens the index, is left out); p50/p95 ms, summaries+memories
  read per search (`node_reads`), the compact answer's tokens, and the child's peak RSS;
- baseline: a flat BM25 (k1 1.2, b 0.75) over every memory file, in memory, scoring every file per
  query (what a store without an index or a tree does), same queries; the search/baseline ratio
  is the machine-independent figure. `flat_disk_ms` re-reads every file per query (3 queries);
- brief: `Vault.brief()` tokens (chars/4, the budget's unit) and the MCP brief's;
- rebuild: `Vault.rebuild()` (every summary, the catalog and the index) in seconds;
- disk: memory files, summaries, .git, search index and catalog sizes in MB.

With 5,000 and 50,000 both measured, a `x50k/5k` column gives each figure's growth. Targets
(issue 8) are checked and printed as ok/MISSED.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from synth import QUERIES, memories  # noqa: E402

from ihmt_vault import Vault  # noqa: E402

SAVE_TEXTS = [
    "The queue worker restarts after deploys because of a stale lock ({i}).",
    "Marta prefers code reviews in the morning, before stand-up ({i}).",
    "El servidor de copias se apaga los domingos a las {i} horas.",
    "周{i}开会讨论新的数据库方案。",
    "Decision {i}: we keep Redis for sessions, PostgreSQL for everything else.",
]


def single_saves(v, n: int) -> list[float]:
    """`n` single saves into an open vault (a topic for half of them), each one's milliseconds."""
    lat = []
    for i in range(n):
        t = time.perf_counter()
        v.save(
            SAVE_TEXTS[i % len(SAVE_TEXTS)].format(i=i),
            source="bench",
            topic=["work/infrastructure/ci", None, "personal/recetas", None][i % 4],
        )
        lat.append((time.perf_counter() - t) * 1000)
    return lat


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def du(path: Path, skip=()) -> int:
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        for n in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                pass
    return total


def memory_files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for n in filenames:
            if n.endswith(".md") and n != "index.md":
                yield os.path.join(dirpath, n)


# -- the flat baseline ----------------------------------------------------------------------------
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def bm25_tokens(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        if _CJK.search(w):  # CJK runs as character bigrams
            chars = [c for c in w if _CJK.match(c)]
            out += ["".join(chars[i : i + 2]) for i in range(max(1, len(chars) - 1))]
        else:
            out.append(w)
    return out


class FlatBM25:
    """Every memory file, tokenized once; every query scores every file (no index, no tree)."""

    def __init__(self, root: Path, k1: float = 1.2, b: float = 0.75):
        self.docs = [Counter(bm25_tokens(Path(p).read_text(encoding="utf-8"))) for p in memory_files(root)]
        self.lens = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lens) / max(1, len(self.lens))
        self.df = Counter(t for d in self.docs for t in d)
        self.k1, self.b = k1, b

    def search(self, query: str, k: int = 10) -> list[int]:
        n = len(self.docs)
        terms = set(bm25_tokens(query))
        idf = {t: math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5)) for t in terms}
        scores = []
        for i, d in enumerate(self.docs):  # the scan
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.lens[i] / self.avg)
            for t in terms:
                f = d.get(t)
                if f:
                    s += idf[t] * f * (self.k1 + 1) / (f + norm)
            if s:
                scores.append((s, i))
        scores.sort(reverse=True)
        return [i for _, i in scores[:k]]


def flat_disk_query(root: Path, query: str) -> int:
    """A scan that reads every file for each query (the cost of no cache at all)."""
    terms = set(bm25_tokens(query))
    hits = 0
    for p in memory_files(root):
        if terms & set(bm25_tokens(Path(p).read_text(encoding="utf-8"))):
            hits += 1
    return hits


# -- the search child -----------------------------------------------------------------------------
def search_child(root: str, rounds: int) -> None:
    """Run in a child process: a long-lived searcher's latencies, reads, tokens and peak memory."""
    from ihmt_vault.frontends.mcp_server import BRIEF_TOKENS

    with Vault.open(root) as v:
        t = time.perf_counter()
        v.search("warm up the index")
        first_ms = (time.perf_counter() - t) * 1000
        lat, reads, toks, statuses = [], [], [], Counter()
        for _ in range(rounds):
            for q in QUERIES:
                t = time.perf_counter()
                r = v.search(q)
                lat.append((time.perf_counter() - t) * 1000)
                reads.append(r.node_reads)
                toks.append(r.tokens)
                statuses[r.status] += 1
        brief = v.brief()
        mcp_brief = v.brief(budget_tokens=min(v.config.brief_tokens, BRIEF_TOKENS))
    print(
        json.dumps(
            {
                "first_ms": first_ms,
                "lat": lat,
                "reads": reads,
                "tokens": toks,
                "statuses": statuses,
                "brief_tokens": (len(brief) + 3) // 4,
                "mcp_brief_tokens": (len(mcp_brief) + 3) // 4,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


# -- one size -------------------------------------------------------------------------------------
def run(size: int, args, work: Path) -> dict:
    root = work / f"v{size}"
    if root.exists():
        shutil.rmtree(root)
    log = lambda msg: print(f"[{size}] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    row: dict = {"size": size}
    items = memories(size)
    v = Vault.init(root)
    t = time.perf_counter()
    v.save_many(items, source="bench")
    row["import_s"] = time.perf_counter() - t
    row["import_per_s"] = size / row["import_s"]
    log(f"import {row['import_s']:.1f} s")

    lat = single_saves(v, args.saves)
    v.close()
    row["save_p50_ms"], row["save_p95_ms"] = statistics.median(lat), pct(lat, 95)
    log(f"save p50 {row['save_p50_ms']:.0f} ms")
    cli = []
    for i in range(args.cli_saves):
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "ihmt_vault",
                "save",
                f"CLI save {i} about nginx timeouts",
                "--topic",
                "work/infrastructure/ci",
                "--vault",
                str(root),
            ],
            check=True,
            capture_output=True,
        )
        cli.append((time.perf_counter() - t) * 1000)
    row["cli_save_p50_ms"] = statistics.median(cli) if cli else None

    out = subprocess.run(
        [sys.executable, __file__, "--search-child", str(root), "--rounds", str(args.rounds)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    s = json.loads(out)
    row["search_first_ms"] = s["first_ms"]
    row["search_p50_ms"], row["search_p95_ms"] = statistics.median(s["lat"]), pct(s["lat"], 95)
    row["reads_p50"], row["reads_p95"] = statistics.median(s["reads"]), pct(s["reads"], 95)
    row["answer_tokens_p50"] = statistics.median(s["tokens"])
    row["search_statuses"] = s["statuses"]
    row["brief_tokens"], row["mcp_brief_tokens"] = s["brief_tokens"], s["mcp_brief_tokens"]
    row["search_peak_rss_mb"] = s["peak_rss_mb"]
    log(f"search p50 {row['search_p50_ms']:.0f} ms")
    cli = []
    for q in QUERIES[: args.cli_saves]:
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "ihmt_vault", "search", q, "--vault", str(root)], check=True, capture_output=True
        )
        cli.append((time.perf_counter() - t) * 1000)
    row["cli_search_p50_ms"] = statistics.median(cli) if cli else None

    t = time.perf_counter()
    flat = FlatBM25(root)
    row["flat_load_s"] = time.perf_counter() - t
    fl = []
    for _ in range(args.rounds):
        for q in QUERIES:
            t = time.perf_counter()
            flat.search(q)
            fl.append((time.perf_counter() - t) * 1000)
    row["flat_p50_ms"], row["flat_p95_ms"] = statistics.median(fl), pct(fl, 95)
    row["flat_reads"] = len(flat.docs)
    del flat
    fd = []
    for q in QUERIES[:3]:
        t = time.perf_counter()
        flat_disk_query(root, q)
        fd.append((time.perf_counter() - t) * 1000)
    row["flat_disk_ms"] = statistics.median(fd)
    row["search_vs_flat"] = row["search_p50_ms"] / row["flat_p50_ms"]
    row["reads_vs_flat"] = row["reads_p50"] / row["flat_reads"]

    t = time.perf_counter()
    with Vault.open(root) as v:
        v.rebuild()
    row["rebuild_s"] = time.perf_counter() - t
    log(f"rebuild {row['rebuild_s']:.1f} s")

    mb = 1024 * 1024
    mem_bytes = sum(os.lstat(p).st_size for p in memory_files(root))
    md_bytes = du(root, skip={str(root / ".git"), str(root / ".ihmt")})
    row["memories_mb"] = mem_bytes / mb
    row["summaries_mb"] = (md_bytes - mem_bytes) / mb
    row["git_mb"] = du(root / ".git") / mb
    row["index_mb"] = du(root / ".ihmt/cache/index") / mb
    row["catalog_mb"] = sum(f.stat().st_size for f in (root / ".ihmt/cache").glob("catalog.sqlite*")) / mb
    row["folders"] = sum(1 for _ in root.rglob("index.md"))
    if not args.keep:
        shutil.rmtree(root)
    return row


TARGETS = {  # metric: {size: limit}, "min" metrics must be at least the limit
    "save_p50_ms": {5000: 50, 50000: 100},
    "import_per_s": {"min": 500},
    "search_p50_ms": {5000: 30, 50000: 100},
    "brief_tokens": {"all": 2000},
    "rebuild_s": {50000: 120},
}
SHOW = [
    ("import_per_s", "import (memories/s)", 0),
    ("import_s", "import (s)", 1),
    ("save_p50_ms", "save p50 (ms)", 1),
    ("save_p95_ms", "save p95 (ms)", 1),
    ("cli_save_p50_ms", "CLI save p50 (ms, process start incl.)", 0),
    ("search_p50_ms", "search p50 (ms)", 1),
    ("search_p95_ms", "search p95 (ms)", 1),
    ("search_first_ms", "first search, opens index (ms)", 0),
    ("cli_search_p50_ms", "CLI search p50 (ms, process start incl.)", 0),
    ("flat_p50_ms", "flat BM25 p50 (ms, in memory)", 1),
    ("flat_p95_ms", "flat BM25 p95 (ms)", 1),
    ("flat_disk_ms", "flat scan reading files (ms)", 0),
    ("search_vs_flat", "search / flat (p50 ratio)", 2),
    ("reads_p50", "summaries+memories read p50", 0),
    ("reads_p95", "summaries+memories read p95", 0),
    ("flat_reads", "flat: files read per search", 0),
    ("reads_vs_flat", "reads / flat reads", 3),
    ("answer_tokens_p50", "answer tokens p50", 0),
    ("brief_tokens", "brief tokens", 0),
    ("mcp_brief_tokens", "MCP brief tokens", 0),
    ("rebuild_s", "rebuild (s)", 1),
    ("search_peak_rss_mb", "search process peak RSS (MB)", 0),
    ("memories_mb", "memory files (MB)", 1),
    ("summaries_mb", "summaries + config (MB)", 1),
    ("git_mb", ".git (MB)", 1),
    ("index_mb", "search index (MB)", 1),
    ("catalog_mb", "catalog (MB)", 1),
    ("folders", "folders", 0),
]


def verdict(metric: str, size: int, value) -> str:
    t = TARGETS.get(metric)
    if not t or value is None:
        return ""
    if "min" in t:
        return "ok" if value >= t["min"] else f"MISSED (≥ {t['min']})"
    limit = t.get(size, t.get("all"))
    if limit is None:
        return ""
    return "ok" if value <= limit else f"MISSED (≤ {limit})"


def table(rows: list[dict]) -> str:
    sizes = [r["size"] for r in rows]
    by = {r["size"]: r for r in rows}
    ratio = 5000 in by and 50000 in by
    head = ["figure"] + [f"{s:,}" for s in sizes] + (["x50k/5k"] if ratio else []) + ["targets"]
    lines = [head]
    for key, label, nd in SHOW:
        cells = [label]
        for s in sizes:
            val = by[s].get(key)
            cells.append("—" if val is None else f"{val:,.{nd}f}")
        if ratio:
            a, b = by[5000].get(key), by[50000].get(key)
            cells.append(f"{b / a:.1f}" if a and b is not None else "—")
        marks = [f"{s:,}: {m}" for s in sizes if (m := verdict(key, s, by[s].get(key)))]
        cells.append("; ".join(marks))
        lines.append(cells)
    widths = [max(len(l[i]) for l in lines) for i in range(len(head))]
    out = []
    for n, l in enumerate(lines):
        out.append(
            " | ".join(
                c.ljust(w) if i == 0 or i == len(head) - 1 else c.rjust(w) for i, (c, w) in enumerate(zip(l, widths))
            )
        )
        if n == 0:
            out.append("-+-".join("-" * w for w in widths))
    return "\n".join(out)


def soak(minutes: float) -> None:
    """Run the torture tests again and again, bigger (TORTURE_SCALE), for `minutes`."""
    env = {**os.environ, "TORTURE_SCALE": os.environ.get("TORTURE_SCALE", "4")}
    end = time.monotonic() + minutes * 60
    rounds = failures = 0
    while time.monotonic() < end:
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-x",
                "-p",
                "no:cacheprovider",
                *sorted(str(p) for p in (HERE.parent / "tests").glob("test_torture_*.py")),
            ],
            cwd=HERE.parent,
            env=env,
            capture_output=True,
            text=True,
        )
        rounds += 1
        tail = r.stdout.strip().splitlines()[-1:] or [""]
        print(f"soak round {rounds}: {'ok' if r.returncode == 0 else 'FAILED'} {tail[0]}", flush=True)
        if r.returncode != 0:
            failures += 1
            out = HERE / "results" / f"soak-failure-{rounds}.txt"
            out.parent.mkdir(exist_ok=True)
            out.write_text(r.stdout + r.stderr)
            print(f"  output in {out}", flush=True)
    print(f"soak: {rounds} rounds, {failures} failed (TORTURE_SCALE={env['TORTURE_SCALE']})")
    sys.exit(1 if failures else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--saves", type=int, default=40, help="single saves timed per size")
    ap.add_argument("--cli-saves", type=int, default=3, help="one-shot CLI saves and searches per size")
    ap.add_argument("--rounds", type=int, default=3, help="times each query is asked")
    ap.add_argument("--keep", type=Path, help="build the vaults in this folder and keep them")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "scale.json")
    ap.add_argument("--soak", type=float, metavar="MINUTES", help="run the torture tests bigger, in a loop")
    ap.add_argument("--search-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.search_child:
        return search_child(args.search_child, args.rounds)
    if args.soak:
        return soak(args.soak)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for size in args.sizes:
            rows.append(run(size, args, work))
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(
                json.dumps(
                    {
                        "rows": rows,
                        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
                        "date": time.strftime("%Y-%m-%d %H:%M"),
                    },
                    indent=2,
                )
            )
    print(table(rows))
    print(f"\nwritten {args.out}")


if __name__ == "__main__":
    main()
