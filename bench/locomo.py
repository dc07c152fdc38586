"""LoCoMo retrieval benchmark: IHMT search vs a flat BM25 scan, per category and scope.

Every dialogue turn becomes a memory ("Speaker: text", dated by its session, no topic); every
question of categories 1-4 is asked; a question counts for recall@k when one of its evidence turns
is in the top k. Scopes: "conv" (one vault per conversation) and "merged" (all in one vault).

    /work/venv/bin/python bench/locomo.py [--data DIR] [--layout session|flat] [--via-vault] [--out FILE]

Without `--via-vault` the turns are indexed directly with `SearchIndex` (layout "session": one
folder per conversation session, with a generated summary; "flat": all in the root). With
`--via-vault` they are saved through `Vault.save_many` and searched with `Vault.search`, so the
vault's own placement and summaries are measured. The baseline is plain Whoosh BM25F over the turn
texts with the default analyzer and an OR query, in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ihmt_vault.search import AMBIGUOUS, NOT_FOUND, Doc, SearchIndex  # noqa: E402
from ihmt_vault.storage.notes import shorten  # noqa: E402

DEFAULT_DATA = Path("/work/shared/data/locomo-dev")
CATS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
K = 10


def load(data: Path):
    mems = [json.loads(x) for x in (data / "memories.jsonl").read_text().splitlines() if x.strip()]
    qs = [json.loads(x) for x in (data / "queries.jsonl").read_text().splitlines() if x.strip()]
    return mems, [q for q in qs if q["category"] in CATS]


def memory_text(m) -> str:
    return f"{m['speaker']}: {m['text']}"


def build_docs(mems, layout: str, prefix: str):
    """Docs for SearchIndex: memories, plus a summary per session folder (layout 'session')."""
    docs = []
    by_folder = defaultdict(list)
    turn = defaultdict(int)
    for m in mems:
        if layout == "session":
            folder = f"{prefix}session-{m['session']:02d}".strip("/")
        else:
            folder = prefix.strip("/")
        text = memory_text(m)
        title = shorten(text, 80)
        date = m["date"][:10]
        by_folder[folder].append((date, title, text))
        # saved as the conversation went: each turn a second after the one before it
        at = turn[(folder, m["date"])]
        turn[(folder, m["date"])] += 1
        created = (datetime.fromisoformat(m["date"]) + timedelta(seconds=at)).isoformat() + "Z"
        docs.append(
            Doc(
                key=m["id"],
                kind="memory",
                path=f"{folder}/{m['id']}.md".lstrip("/"),
                folder=folder,
                depth=folder.count("/") + 1 if folder else 0,
                title=title,
                body=text,
                id=m["id"],
                date=date,
                created=created,
            )
        )
    # summaries: the folder's title, a few dates, and one line per memory (what index.md holds)
    folders = set(by_folder)
    for f in list(folders):
        p = f
        while "/" in p:
            p = p.rsplit("/", 1)[0]
            folders.add(p)
    for f in sorted(folders):
        rows = by_folder.get(f, [])
        subs = sorted(x for x in folders if x.rsplit("/", 1)[0] == f and "/" in x or (f == "" and "/" not in x and x))
        name = f.rsplit("/", 1)[-1] or "vault"
        lines = [f"# {name}"]
        if rows:
            ds = sorted(r[0] for r in rows)
            lines.append(f"{len(rows)} memories, {ds[0]} to {ds[-1]}.")
            lines += [f"- {d} · {t}" for d, t, _ in rows]
        for s in subs:
            lines.append(f"- {s.rsplit('/', 1)[-1]}")
        docs.append(
            Doc(
                key=f"dir:{f}",
                kind="summary",
                path=f"{f}/index.md".lstrip("/"),
                folder=f,
                depth=f.count("/") + 1 if f else 0,
                title=name,
                body="\n".join(lines),
            )
        )
    return docs


class Direct:
    def __init__(self, mems, tmp: Path, layout: str, prefix: str = ""):
        self.ix = SearchIndex(tmp)
        self.ix.rebuild(build_docs(mems, layout, prefix), {"bench": True})

    def search(self, q):
        r = self.ix.search(q, k=K)
        return [h.id for h in r.hits], r.status, r.tokens


class ViaVault:
    def __init__(self, mems, tmp: Path):
        from ihmt_vault.vault import Vault

        self.v = Vault.init(tmp / "vault")
        # no title, no topic: the vault names and files each memory itself
        items = [
            {"text": memory_text(m), "title": None, "date": m["date"][:10], "topic": None, "source": "locomo"}
            for m in mems
        ]
        out = self.v.save_many(items)
        ids = [getattr(x, "id", x) for x in out] if isinstance(out, (list, tuple)) else []
        self.turn = {i: m["id"] for i, m in zip(ids, mems)} if len(ids) == len(mems) else {}

    def search(self, q):
        r = self.v.search(q, k=K)
        return [self.turn.get(h.id, h.id) for h in r.hits], r.status, r.tokens


def evaluate(engine, qs):
    rows = []
    times = []
    for q in qs:
        t0 = time.perf_counter()
        ids, status, tokens = engine.search(q["question"])
        times.append(time.perf_counter() - t0)
        ev = set(q["evidence"])
        rank = next((i + 1 for i, x in enumerate(ids) if x in ev), None)
        rows.append(
            {
                "qid": q["qid"],
                "cat": q["category"],
                "r5": bool(rank and rank <= 5),
                "r10": bool(rank and rank <= 10),
                "all10": ev <= set(ids[:10]),
                "rr": 1.0 / rank if rank else 0.0,
                "status": status,
                "tokens": tokens,
            }
        )
    return rows, times


def summarize(rows, times):
    out = {}
    for cat in list(CATS) + ["all"]:
        sub = [r for r in rows if cat == "all" or r["cat"] == cat]
        if not sub:
            continue
        n = len(sub)
        out[str(cat)] = {
            "n": n,
            "recall@5": sum(r["r5"] for r in sub) / n,
            "recall@10": sum(r["r10"] for r in sub) / n,
            "all@10": sum(r["all10"] for r in sub) / n,
            "mrr": sum(r["rr"] for r in sub) / n,
        }
    st = [r["status"] for r in rows if r["status"] is not None]
    if st:
        out["undecided"] = sum(s in (NOT_FOUND, AMBIGUOUS) for s in st) / len(st)
        out["ambiguous"] = sum(s == AMBIGUOUS for s in st) / len(st)
        out["not_found"] = sum(s == NOT_FOUND for s in st) / len(st)
        out["median_tokens"] = statistics.median(r["tokens"] for r in rows)
    ts = sorted(times)
    out["p50_ms"] = 1000 * ts[len(ts) // 2]
    out["p90_ms"] = 1000 * ts[int(len(ts) * 0.9)]
    return out


def run(args):
    mems, qs = load(Path(args.data))
    convs = sorted({m["conv"] for m in mems})
    results = {}
    tmp = Path(tempfile.mkdtemp(prefix="locomo-"))
    for scope in ("conv", "merged"):
        allrows = {"flat": [], "ihmt": []}
        alltimes = {"flat": [], "ihmt": []}
        groups = (
            [(c, [m for m in mems if m["conv"] == c], [q for q in qs if q["conv"] == c]) for c in convs]
            if scope == "conv"
            else [("all", mems, qs)]
        )
        for name, ms, qq in groups:
            base = tmp / scope / name
            from retrieval import Flat  # the fair flat baseline (BM25 k1 1.2 b 0.75, stop list, CJK pairs)

            engines = {"flat": Flat(ms)}
            if args.via_vault:
                engines["ihmt"] = ViaVault(ms, base / "ihmt")
            else:
                prefix = "" if scope == "conv" else f"{name}/"
                if scope == "merged":
                    prefix = ""
                engines["ihmt"] = Direct(ms if scope == "conv" else ms, base / "ihmt", args.layout, prefix)
            for en, eng in engines.items():
                rows, times = evaluate(eng, qq)
                allrows[en] += rows
                alltimes[en] += times
        results[scope] = {en: summarize(allrows[en], alltimes[en]) for en in allrows}
        results[scope]["_rows"] = allrows["ihmt"]
    return results


def table(results) -> str:
    lines = []
    for scope, res in results.items():
        lines.append(f"\n== scope: {scope} ==")
        lines.append(
            f"{'category':<14}{'n':>4}  {'flat r@5':>8} {'r@10':>6} {'all@10':>7} {'mrr':>6}   "
            f"{'ihmt r@5':>8} {'r@10':>6} {'all@10':>7} {'mrr':>6}  {'Δr@10':>6}"
        )
        for cat in list(map(str, CATS)) + ["all"]:
            f, i = res["flat"].get(cat), res["ihmt"].get(cat)
            if not f:
                continue
            label = CATS.get(int(cat), "all") if cat != "all" else "ALL"
            lines.append(
                f"{label:<14}{f['n']:>4}  {f['recall@5']:>8.3f} {f['recall@10']:>6.3f} {f['all@10']:>7.3f} "
                f"{f['mrr']:>6.3f}   {i['recall@5']:>8.3f} {i['recall@10']:>6.3f} {i['all@10']:>7.3f} "
                f"{i['mrr']:>6.3f}  {i['recall@10'] - f['recall@10']:>+6.3f}"
            )
        i = res["ihmt"]
        lines.append(
            f"ihmt: median tokens {i.get('median_tokens')}, ambiguous/not_found "
            f"{100 * i.get('undecided', 0):.1f}% (ambiguous {100 * i.get('ambiguous', 0):.1f}%, "
            f"not_found {100 * i.get('not_found', 0):.1f}%), search p50 {i['p50_ms']:.1f} ms "
            f"p90 {i['p90_ms']:.1f} ms; flat p50 {res['flat']['p50_ms']:.1f} ms"
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--layout", choices=["session", "flat"], default="session")
    ap.add_argument("--via-vault", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    t0 = time.time()
    results = run(args)
    print(table(results))
    out = (
        Path(args.out)
        if args.out
        else ROOT
        / "bench"
        / "results"
        / (f"locomo-{'vault' if args.via_vault else args.layout}-{time.strftime('%Y%m%d-%H%M%S')}.json")
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"args": vars(args), "seconds": round(time.time() - t0, 1)}
    out.write_text(json.dumps({"meta": meta, **results}, indent=1))
    print(f"\nwrote {out} ({meta['seconds']} s)")


if __name__ == "__main__":
    main()
