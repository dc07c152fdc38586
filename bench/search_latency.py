"""Search latency in a long-lived process, over `synth.QUERIES`.

    python bench/search_latency.py /path/to/vault [--rounds 3]     # an existing vault
    python bench/search_latency.py --build 5000 [--saves 200]      # no slowdown after many saves
    python bench/search_latency.py --compare /tmp/latency-XXXX      # the kept pair of vaults, again

Unlike bench/scale.py (which times searches right after building a vault and timing saves into it),
the first form asks the queries of an existing vault, so an index of one segment and one of several
can be compared. The second builds a `synth` vault of N memories (`save_many`), makes `--saves`
single saves in the same process (save p50), copies the vault and rebuilds the copy, then asks the
queries of both in turn (p50 of each, with index segments and `Searcher.search` calls per query):
the "after saves / rebuilt" ratio is the figure (target ≤ 1.3). The flat Python BM25 scan of
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
    return {"p50": statistics.median(lat), "p90": lat[int(len(lat) * 0.9)], "n": len(lat), "calls": calls[0] / len(lat)}


def segments(root: Path) -> int:
    from whoosh.index import open_dir

    ix = open_dir(str(root / ".ihmt" / "cache" / "index"))
    with ix.reader() as r:
        return len(list(r.leaf_readers()))


def build(args) -> None:
    """After the saves, the vault is copied and the copy rebuilt; the queries are then asked of
    both in turn, so a busy machine slows both alike (the ratio is the figure)."""
    import shutil

    from scale import single_saves

    root = Path(tempfile.mkdtemp(prefix="latency-")) / "v"
    v = Vault.init(root)
    v.save_many(memories(args.build), source="bench")
    lat = single_saves(v, args.saves)
    print(
        f"{args.build} memories, {args.saves} single saves: save p50 {statistics.median(lat):.1f} ms, "
        f"p90 {sorted(lat)[int(len(lat) * 0.9)]:.1f} ms"
    )
    v.close()
    fresh_root = root.parent / "rebuilt"
    shutil.copytree(root, fresh_root, symlinks=True)
    with Vault.open(fresh_root) as w:
        w.rebuild()
    print(f"kept in {root.parent} (again: --compare {root.parent})")
    compare(root, fresh_root, args.rounds)


def compare(root: Path, fresh_root: Path, rounds: int) -> None:
    """The queries asked of the vault after its saves, of its rebuilt copy and of the flat scan, in turn."""
    from scale import FlatBM25

    seg_after, seg_fresh = segments(root), segments(fresh_root)
    v, w = Vault.open(root), Vault.open(fresh_root)
    flat = FlatBM25(root)
    after, fresh, fl = [], [], []
    calls = {}
    for name, vault in (("after", v), ("fresh", w)):
        calls[name] = timed(vault, 1)["calls"]  # warms up too
    for _ in range(rounds):
        for q in QUERIES:
            for vault, out in ((v, after), (w, fresh)):
                t = time.perf_counter()
                vault.search(q)
                out.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            flat.search(q)
            fl.append((time.perf_counter() - t) * 1000)
    v.close()
    w.close()
    for name, r, seg, c in (
        ("after saves", after, seg_after, calls["after"]),
        ("rebuilt", fresh, seg_fresh, calls["fresh"]),
    ):
        r.sort()
        print(
            f"{name:<12} p50 {statistics.median(r):.1f} ms  p90 {r[int(len(r) * 0.9)]:.1f} ms  segments {seg}  "
            f"Searcher.search calls/query {c:.1f}"
        )
    a, f, b = statistics.median(after), statistics.median(fresh), statistics.median(fl)
    print(
        f"after/rebuilt p50 ratio {a / f:.2f} (target ≤ 1.3); flat scan p50 {b:.1f} ms; "
        f"ours/flat {a / b:.2f} after saves, {f / b:.2f} rebuilt"
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vault", nargs="?")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", type=int, default=0, help="build a synth vault of this size first")
    ap.add_argument("--saves", type=int, default=200)
    ap.add_argument("--compare", metavar="DIR", help="a directory --build kept: compare its two vaults again")
    args = ap.parse_args()
    if args.build:
        return build(args)
    if args.compare:
        return compare(Path(args.compare) / "v", Path(args.compare) / "rebuilt", args.rounds)
    with Vault.open(args.vault) as v:
        r = timed(v, args.rounds)
    print(
        f"searches {r['n']}  p50 {r['p50']:.1f} ms  p90 {r['p90']:.1f} ms  Searcher.search calls/query {r['calls']:.1f}"
    )


if __name__ == "__main__":
    main()
