"""The brief's size at 200, 2,000 and 50,000 memories (hmem: about 2,000 tokens at 200 entries).

Each vault is made of `bench/synth.py` memories in one `save_many`, then ten searches (recalls),
and the brief is measured: tokens (chars/4), topics listed, memories listed, and what it costs to
build.

    python bench/brief.py [--sizes 200,2000,50000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from synth import QUERIES, memories  # noqa: E402

from ihmt_vault import Vault  # noqa: E402
from ihmt_vault.search import estimate_tokens  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="200,2000,50000")
    args = ap.parse_args()
    os.environ["HOME"] = tempfile.mkdtemp()
    for n in map(int, args.sizes.split(",")):
        v = Vault.init(Path(tempfile.mkdtemp()) / "v")
        t = time.perf_counter()
        v.save_many(memories(n))
        built = time.perf_counter() - t
        for q in QUERIES[:10]:
            v.search(q)
        t = time.perf_counter()
        text = v.brief()
        took = (time.perf_counter() - t) * 1000
        listed = sum(1 for line in text.splitlines() if line.startswith("- "))
        topics = sum(1 for line in text.splitlines() if line.startswith("## ") and line != "## Pinned")
        print(
            f"{n:>6} memories: brief {estimate_tokens(text):>5} tokens (budget 2000), {topics} topics, "
            f"{listed} memories listed, built in {took:.0f} ms (vault made in {built:.0f} s)"
        )
        v.close()


if __name__ == "__main__":
    main()
