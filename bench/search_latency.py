"""Search latency in a long-lived process, over `synth.QUERIES`, on a vault you already have.

    python bench/search_latency.py /path/to/vault [--rounds 3]

Unlike bench/scale.py (which times searches right after building a vault and timing saves into it),
this asks the queries of an existing vault, so an index of one segment and one of several can be
compared.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import QUERIES  # noqa: E402

from ihmt_vault import Vault  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vault")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with Vault.open(args.vault) as v:
        v.search("warm up")
        lat = []
        for _ in range(args.rounds):
            for q in QUERIES:
                t = time.perf_counter()
                v.search(q)
                lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    print(f"searches {len(lat)}  p50 {statistics.median(lat):.1f} ms  p90 {lat[int(len(lat) * 0.9)]:.1f} ms")


if __name__ == "__main__":
    main()
