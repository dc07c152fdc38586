"""What a save, an import, a rebuild and a start cost as the vault grows (issue 32's figures).

    python bench/saving.py --sizes 5000 50000              # bench/results/saving-*.json, a table on stdout
    /work/old/.venv/bin/python bench/saving.py --sizes 5000 --label before   # the same against another checkout

It imports whatever `ihmt_vault` the Python running it has installed, so the same script measures
an older checkout in its own virtual environment, interleaved with this one on the same machine.

Per size, on a fresh vault:

- import: `save_many` of N dialogue turns (LoCoMo dev, copied with a marker to reach N; "Speaker:
  text", dated by session, no topic: the vault places them), memories/s; beside it git's own floor
  for the same files (write them, `git add -A`, one `git commit`) in the same run;
- single saves: `--saves` saves in one long-lived process, as agents save (no topic, in time order,
  a date only; RealMem turns, which this vault has not seen), p50/p99 ms and the most paths one
  save's commit touched; between two saves, what a long-lived process does when idle (the
  gardener's slice, `Vault.topics.tend`, when this checkout has one), timed apart;
- the shell: `ihmt save` with process start, `--cli` times, p50;
- rebuild: `Vault.rebuild()` seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ihmt_vault import Vault

DATA = Path(os.environ.get("IHMT_DATA", "/work/shared/data"))
RESULTS = Path(__file__).resolve().parent / "results"


def turns(n: int) -> list[dict]:
    """N LoCoMo dev turns as save fields: the 1,463 turns, again with a copy marker until there are N."""
    rows = [json.loads(line) for line in (DATA / "locomo-dev" / "memories.jsonl").open(encoding="utf-8")]
    out = []
    copy = 0
    while len(out) < n:
        for r in rows:
            if len(out) == n:
                break
            mark = f" (take {copy + 1})" if copy else ""
            out.append({"text": f"{r['speaker']}{mark}: {r['text']}", "date": r["date"][:10]})
        copy += 1
    return out


def fresh_turns(n: int) -> list[dict]:
    """N turns this vault has not seen, in time order (RealMem dev)."""
    rows = [json.loads(line) for line in (DATA / "realmem-dev" / "memories.jsonl").open(encoding="utf-8")]
    rows.sort(key=lambda r: r["date"])
    return [{"text": f"{r['speaker']}: {r['text'][:600]}", "date": r["date"][:10]} for r in rows[:n]]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def git_floor(items: list[dict], where: Path) -> float:
    """Seconds git itself needs to write, add and commit the same number of files (one commit)."""
    where.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(where)], check=True)
    t = time.perf_counter()
    for i, it in enumerate(items):
        folder = where / f"f{i % 50}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{i}.md").write_text(f"---\nid: m{i}\n---\n{it['text']}\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(where), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "all"], check=True
    )
    return time.perf_counter() - t


def touched(root: Path, sha: str) -> int:
    out = subprocess.run(
        ["git", "-C", str(root), "show", "--name-only", "--format=", sha], capture_output=True, text=True
    ).stdout
    return len([line for line in out.splitlines() if line.strip()])


def measure(size: int, saves: int, cli: int, tmp: Path) -> dict:
    items = turns(size)
    root = tmp / f"v{size}"
    v = Vault.init(root)
    t = time.perf_counter()
    v.save_many(items, source="bench")
    imported = time.perf_counter() - t
    floor = git_floor(items, tmp / f"git{size}")
    out: dict = {
        "size": size,
        "import_s": round(imported, 2),
        "import_per_s": round(size / imported, 1),
        "git_floor_s": round(floor, 2),
        "import_over_git": round(imported / floor, 2),
    }
    tend = getattr(getattr(v, "topics", None), "tend", None)
    lat, tends, widest, heads = [], [], 0, []
    for it in fresh_turns(saves):
        t = time.perf_counter()
        v.save(it["text"], date=it["date"], source="bench")
        lat.append((time.perf_counter() - t) * 1000)
        heads.append(v.repo.head())
        if tend is not None:
            t = time.perf_counter()
            tend()
            tends.append((time.perf_counter() - t) * 1000)
    for sha in heads:  # each save's own commit (a save of the old code may have made a split commit after it)
        widest = max(widest, touched(root, sha))
    out.update(
        save_p50_ms=round(statistics.median(lat), 1),
        save_p99_ms=round(pct(lat, 99), 1),
        save_max_ms=round(max(lat), 1),
        widest_save_commit=widest,
    )
    if tends:
        out.update(tend_p50_ms=round(statistics.median(tends), 1), tend_max_ms=round(max(tends), 1))
    v.close()
    shell = []
    ihmt = Path(sys.executable).parent / "ihmt"
    # with bytecode, as an installed package has it (pip compiles it): a machine that sets
    # PYTHONDONTWRITEBYTECODE would otherwise compile the whole package at every start
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for i in range(cli):
        t = time.perf_counter()
        subprocess.run(
            [str(ihmt), "save", f"Shell save {i}: the nightly export runs at 02:{10 + i} UTC.", "--vault", str(root)],
            capture_output=True,
            check=True,
            env=env,
        )
        shell.append(time.perf_counter() - t)
    if shell:
        out["cli_save_p50_s"] = round(statistics.median(shell), 3)
    v = Vault.open(root)
    t = time.perf_counter()
    v.rebuild()
    out["rebuild_s"] = round(time.perf_counter() - t, 1)
    v.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000])
    ap.add_argument("--saves", type=int, default=200)
    ap.add_argument("--cli", type=int, default=5)
    ap.add_argument("--label", default="now")
    ap.add_argument("--keep", type=Path, help="keep the vaults in this folder")
    args = ap.parse_args()
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="ihmt-saving-"))
    rows = []
    try:
        for size in args.sizes:
            row = measure(size, args.saves, args.cli, tmp)
            row["label"] = args.label
            print(json.dumps(row), flush=True)
            rows.append(row)
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"saving-{args.label}.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
