"""The metabolism over a year of use, and the time of one decay run.

    python bench/metabolism.py --year          # a simulated year: counts month by month, recall@10
    python bench/metabolism.py --sizes 5000 50000   # time of one decay run at those sizes

A year: with the clock set forward day by day, 3 LoCoMo turns are saved a day (as an agent would,
one `save` each) and 4 questions are asked a day, 80 % of them drawn from a fixed fifth of the
questions (asked about repeatedly) and the rest from all of them; only questions whose evidence is
already saved are asked. Decay runs on its own (once a day, after a write). Reported: live and
archived counts at the end of each month; that no core memory and no memory recalled in the
previous `decay_idle_days` was archived; recall@10 over every answerable question on the final
vault, against the same stream saved into a twin vault with decay switched off (measured in the
same run), split into the hot questions (asked repeatedly) and the others.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ihmt_vault import Vault, clock  # noqa: E402

DATA = Path("/work/shared/data/locomo-dev")
K = 10


def load():
    mems = [json.loads(x) for x in (DATA / "memories.jsonl").read_text().splitlines() if x.strip()]
    qs = [json.loads(x) for x in (DATA / "queries.jsonl").read_text().splitlines() if x.strip()]
    return mems, [q for q in qs if q["category"] in (1, 2, 3, 4)]


def vault(root: Path, decay: bool) -> Vault:
    v = Vault.init(root)
    config = root / ".ihmt/config.toml"
    if not decay:
        config.write_text(config.read_text().replace("auto_decay = true", "auto_decay = false"))
    v.close()
    return Vault.open(root)


def year(days: int = 365, seed: int = 7) -> dict:
    mems, qs = load()
    rnd = random.Random(seed)
    stream = mems[: days * 3]
    hot = set(q["qid"] for q in rnd.sample(qs, len(qs) // 5))
    start = dt.datetime(2027, 1, 1, 9, 0, tzinfo=dt.timezone.utc)
    months, violations = [], []
    with tempfile.TemporaryDirectory() as tmp:
        with clock.frozen(start):
            live, twin = vault(Path(tmp) / "decay", True), vault(Path(tmp) / "twin", False)
        ids: dict[str, dict[str, str]] = {"decay": {}, "twin": {}}
        last_recall: dict[str, dt.datetime] = {}
        archived_before: set[str] = set()
        t0 = time.perf_counter()
        for day in range(days):
            now = start + dt.timedelta(days=day)
            clock.set_to(now)
            for m in stream[day * 3 : day * 3 + 3]:
                text = f"{m['speaker']}: {m['text']}"
                for name, v in (("decay", live), ("twin", twin)):
                    ids[name][m["id"]] = v.save(text, date=m["date"][:10], source="bench").id
            saved = set(ids["decay"])
            askable = [q for q in qs if set(q["evidence"]) & saved]
            for _ in range(4):
                pool = [q for q in askable if q["qid"] in hot] if rnd.random() < 0.8 else askable
                if pool:
                    q = rnd.choice(pool)
                    r = live.search(q["question"])
                    if r.status == "found" and r.hits:
                        last_recall[r.hits[0].id] = now
                    # the agent reads in full the hit that answers (read_memory): a recall too
                    answer = next((h.id for h in r.hits if h.id in {ids["decay"].get(x) for x in q["evidence"]}), None)
                    if answer:
                        live.show(answer)
                        last_recall[answer] = now
            rows = live.memories()
            archived = [r for r in rows if r["folder"].split("/")[0] == "archive"]
            for r in archived:  # archived today: never a core one, never one recalled in the last week
                seen = last_recall.get(r["id"])
                if r["id"] not in archived_before and (
                    r["pinned"] or (seen and (now - seen).days < live.config.decay_idle_days)
                ):
                    violations.append(r["id"])
            archived_before = {r["id"] for r in archived}
            if (now + dt.timedelta(days=1)).day == 1 or day == days - 1:
                months.append(
                    {"month": now.strftime("%Y-%m"), "live": len(rows) - len(archived), "archived": len(archived)}
                )
        sim_s = time.perf_counter() - t0
        clock.set_to(None)
        with clock.frozen(start + dt.timedelta(days=days)):
            result = {
                "days": days,
                "memories": len(stream),
                "months": months,
                "violations": sorted(set(violations)),
                "simulation_s": round(sim_s, 1),
            }
            for name, v in (("decay", live), ("twin", twin)):
                by_id = {i: m for m, i in ids[name].items()}
                hits = {"hot": [], "other": []}
                for q in qs:
                    if not set(q["evidence"]) & set(ids[name]):
                        continue
                    r = v.search(q["question"], k=K)
                    got = {by_id.get(h.id) for h in r.hits[:K]}
                    hits["hot" if q["qid"] in hot else "other"].append(bool(got & set(q["evidence"])))
                result[name] = {k: round(statistics.mean(x), 3) if x else None for k, x in hits.items()}
                result[name]["all"] = round(statistics.mean(hits["hot"] + hits["other"]), 3)
            live.close()
            twin.close()
    return result


def decay_time(size: int) -> dict:
    from synth import memories

    with tempfile.TemporaryDirectory() as tmp:
        with clock.frozen("2027-01-01T09:00:00"):
            v = vault(Path(tmp) / "v", False)
            v.save_many(memories(size), source="bench")
        with clock.frozen("2027-06-01T09:00:00"):
            t = time.perf_counter()
            plan = v.decay(dry_run=True)
            dry = time.perf_counter() - t
            t = time.perf_counter()
            done = v.decay()
            real = time.perf_counter() - t
        v.close()
    return {
        "size": size,
        "dry_run_s": round(dry, 2),
        "run_s": round(real, 2),
        "archived": len(done.archived),
        "would_archive": len(plan.archived),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--year", action="store_true")
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--sizes", type=int, nargs="*", default=[])
    args = ap.parse_args()
    out = {}
    if args.year:
        out["year"] = year(args.days)
        y = out["year"]
        print("month    live  archived")
        for m in y["months"]:
            print(f"{m['month']}  {m['live']:5}  {m['archived']:8}")
        print(f"core or recently recalled memories archived: {len(y['violations'])}")
        print(f"recall@{K}  with decay: {y['decay']}  without: {y['twin']}  ({y['simulation_s']} s)")
    for size in args.sizes:
        r = decay_time(size)
        out.setdefault("decay_time", []).append(r)
        print(f"decay at {size}: dry run {r['dry_run_s']} s, run {r['run_s']} s ({r['archived']} archived)")
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "metabolism.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
