"""Search latency in a long-lived process, over `synth.QUERIES`.

    python bench/search_latency.py /path/to/vault [--rounds 3]     # an existing vault
    python bench/search_latency.py --build 5000 [--saves 200]      # no slowdown after many saves

Unlike bench/scale.py (which times searches right after building a vault and timing saves into it),
the first form asks the queries of an existing vault, so an index of one segment and one of several
can be compared. The second builds a `synth` vault of N memories (`save_many`), makes `--saves`
single saves in the same process (save p50), then times the queries (p50 after the saves, with the
number of index segments and `Searcher.search` calls per query), runs `rebuild` and times them
again: the "after saves / rebuilt" ratio is the figure (target ≤ 1.3). The flat Python BM25 scan of
bench/scale.py over the same files gives the baseline p50.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from synth import QUERIES, memories  # noqa: E402

from ihmt_vault import Vault  # noqa: E402


def timed(v, rounds: int) -> dict:
    from whoosh.searching import Searcher
    calls = [0]
    real = Searcher.search

    def counting(self, *a, **kw):
        calls[0] += 1
        return real(self, *a, **kw)

    v.search("warm up")
    lat = []
    Searcher.search = counting
    try:
        for _ in range(rounds):
            for q in QUERIES:
                t = time.perf_counter()
                v.search(q)
                lat.append((time.perf_counter() - t) * 1000)
    finally:
        Searcher.search = real
    lat.sort()
    return {"p50": statistics.median(lat), "p90": lat[int(len(lat) * 0.9)], "n": len(lat),
            "calls": calls[0] / len(lat)}


def segments(root: Path) -> int:
    from whoosh.index import open_dir
    ix = open_dir(str(root / ".ihmt" / "cache" / "index"))
    with ix.reader() as r:
        return len(list(r.leaf_readers()))


def build(args) -> None:
    from scale import SAVE_TEXTS, FlatBM25
    root = Path(tempfile.mkdtemp(prefix="latency-")) / "v"
    v = Vault.init(root)
    v.save_many(memories(args.build), source="bench")
    lat = []
    for i in range(args.saves):
        t = time.perf_counter()
        v.save(SAVE_TEXTS[i % len(SAVE_TEXTS)].format(i=i), source="bench",
               topic=["work/infrastructure/ci", None, "personal/recetas", None][i % 4])
        lat.append((time.perf_counter() - t) * 1000)
    print(f"{args.build} memories, {args.saves} single saves: save p50 {statistics.median(lat):.1f} ms")
    after = timed(v, args.rounds)
    seg_after = segments(root)
    v.rebuild()
    fresh = timed(v, args.rounds)
    seg_fresh = segments(root)
    v.close()
    flat = FlatBM25(root)
    fl = []
    for _ in range(args.rounds):
        for q in QUERIES:
            t = time.perf_counter()
            flat.search(q)
            fl.append((time.perf_counter() - t) * 1000)
    for name, r, seg in (("after saves", after, seg_after), ("rebuilt", fresh, seg_fresh)):
        print(f"{name:<12} p50 {r['p50']:.1f} ms  p90 {r['p90']:.1f} ms  segments {seg}  "
              f"Searcher.search calls/query {r['calls']:.1f}")
    print(f"after/rebuilt p50 ratio {after['p50'] / fresh['p50']:.2f} (target ≤ 1.3); "
          f"flat scan p50 {statistics.median(fl):.1f} ms; ours/flat {after['p50'] / statistics.median(fl):.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vault", nargs="?")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", type=int, default=0, help="build a synth vault of this size first")
    ap.add_argument("--saves", type=int, default=200)
    args = ap.parse_args()
    if args.build:
        return build(args)
    with Vault.open(args.vault) as v:
        r = timed(v, args.rounds)
    print(f"searches {r['n']}  p50 {r['p50']:.1f} ms  p90 {r['p90']:.1f} ms  Searcher.search calls/query {r['calls']:.1f}")


if __name__ == "__main__":
    main()
