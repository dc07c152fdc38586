"""Vault core speed: bulk import rate and single-save latency at a given size.

    python bench/core.py --sizes 500 5000        # prints a table, writes bench/results/core.json

Measured in a long-lived process (the library), plus one-shot CLI saves (process start included).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import memories  # noqa: E402

from ihmt_vault import Vault  # noqa: E402


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def run(size: int, saves: int, cli_saves: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "v"
        v = Vault.init(root)
        items = memories(size)
        t = time.perf_counter()
        v.save_many(items, source="bench")
        import_s = time.perf_counter() - t
        lat = []
        for i in range(saves):
            t = time.perf_counter()
            v.save(
                f"Benchmark save number {i}: the queue worker restarts after deploys.",
                source="bench",
                topic="work/infrastructure" if i % 2 else None,
            )
            lat.append((time.perf_counter() - t) * 1000)
        v.close()
        cli = []
        for i in range(cli_saves):
            t = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "ihmt_vault",
                    "save",
                    f"CLI save {i} about nginx timeouts",
                    "--vault",
                    str(root),
                ],
                check=True,
                capture_output=True,
            )
            cli.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        with Vault.open(root) as v2:
            v2.rebuild()
        rebuild_s = time.perf_counter() - t
        return {
            "size": size,
            "import_s": round(import_s, 2),
            "import_per_s": round(size / import_s),
            "save_p50_ms": round(statistics.median(lat), 1),
            "save_p95_ms": round(pct(lat, 95), 1),
            "cli_save_p50_ms": round(statistics.median(cli), 1) if cli else None,
            "rebuild_s": round(rebuild_s, 2),
        }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--saves", type=int, default=40)
    ap.add_argument("--cli-saves", type=int, default=5)
    args = ap.parse_args()
    rows = [run(s, args.saves, args.cli_saves) for s in args.sizes]
    cols = list(rows[0])
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "core.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
