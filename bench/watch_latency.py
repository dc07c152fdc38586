"""Watcher figures: start-up time and hand-edit → commit latency, in a vault of N memories.

    python bench/watch_latency.py --size 5000 --edits 20

Start-up is from launching `ihmt watch` to its "watching" line (the initial reconcile included).
Latency is from the editor's save (a file write) to the commit that takes it in, polled every 10 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import memories  # noqa: E402

from ihmt_vault import Vault  # noqa: E402


def head(root: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=5000)
    ap.add_argument("--edits", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "v"
        with Vault.init(root) as v:
            v.save_many(memories(args.size), source="bench")
            paths = [m["path"] for m in v.memories()][:: max(1, args.size // args.edits)][: args.edits]
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "ihmt_vault", "watch", "--vault", str(root)], stdout=subprocess.PIPE, text=True
        )
        ready = threading.Event()
        threading.Thread(
            target=lambda: [ready.set() for line in proc.stdout if "watching" in line], daemon=True
        ).start()
        ready.wait(300)
        startup = time.perf_counter() - t0
        lat = []
        for i, rel in enumerate(paths):
            before = head(root)
            file = root / rel
            t = time.perf_counter()
            file.write_text(file.read_text() + f"\nEdited by hand, round {i}.\n")
            while head(root) == before:
                time.sleep(0.01)
            lat.append(time.perf_counter() - t)
            time.sleep(0.2)
        proc.terminate()
        proc.wait()
    row = {
        "size": args.size,
        "startup_s": round(startup, 2),
        "edit_p50_s": round(statistics.median(lat), 3),
        "edit_max_s": round(max(lat), 3),
        "edits": len(lat),
    }
    print(" | ".join(row))
    print(" | ".join(str(x) for x in row.values()))
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / f"watch-{args.size}.json").write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
