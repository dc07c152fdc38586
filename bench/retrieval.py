"""Retrieval on three public data sets (dev splits), IHMT search vs a fair flat BM25 scan, one run.

    python bench/retrieval.py [--sets locomo realmem madial] [--out FILE]

Data sets, read from /work/shared/data/ (never copied into the project; see each README):
LoCoMo (3 conversations), RealMem (3 users; queries are the user's next message), MADial-Bench
(one English and one Chinese user; queries are whole dialogues). One index per conversation/user,
built as `bench/locomo.py` builds it (every turn a memory "Speaker: text" dated by its session, one
folder per session with a generated summary), every query asked once.

The baseline ("flat") is computed in the same run over the same memories: plain Okapi BM25
(k1 1.2, b 0.75, Robertson idf) over each memory's full saved text (`Speaker: text` and its date),
words lower-cased, a short English stop list, Chinese cut into overlapping character pairs.

Figures per set (and per language for MADial): recall@10 (any evidence in the top 10) overall and
per category, median tokens of the compact answer, ambiguous + not-found share of the (answerable)
questions, query p50. Targets are printed next to them.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from locomo import build_docs, memory_text  # noqa: E402

from ihmt_vault.search import AMBIGUOUS, NOT_FOUND, SearchIndex  # noqa: E402

DATA = Path("/work/shared/data")
K = 10
SETS = {
    # name: (folder, answerable categories and their names)
    "locomo": ("locomo-dev", {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}),
    "realmem": ("realmem-dev", {1: "builds-on", 2: "temporal", 3: "preference", 4: "changed-later"}),
    "madial": ("madial-dev", {1: "activity", 2: "preference", 3: "emotion", 4: "other"}),
    "paraphrase": ("paraphrase-dev", {1: "synonym", 2: "category", 3: "intent", 4: "changed"}),
}
# target margins of recall@10 over the flat scan (issue #19, no model)
TARGETS = {"locomo": 0.10, "realmem": 0.05, "madial-en": 0.10, "madial-zh": 0.03}

STOP = frozenset(
    "a an the and or of to in on at for with is are was were be been it this that i you he she "
    "we they my your me do did does what when where who how".split()
)
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOK = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")


def flat_tokens(text: str) -> list[str]:
    out = []
    for tok in _TOK.findall(text.lower()):
        if re.match(rf"[{_CJK}]", tok):
            out += [tok] if len(tok) == 1 else [tok[i : i + 2] for i in range(len(tok) - 1)]
        elif tok not in STOP:
            out.append(tok)
    return out


class Flat:
    """The fair flat baseline (see the module docstring)."""

    K1, B = 1.2, 0.75

    def __init__(self, mems):
        self.ids = [m["id"] for m in mems]
        docs = [flat_tokens(f"{m['speaker']}: {m['text']}\n{m['date'][:10]}") for m in mems]
        self.tf = [collections.Counter(d) for d in docs]
        self.len = [len(d) for d in docs]
        self.avg = sum(self.len) / max(1, len(docs))
        df = collections.Counter(w for d in docs for w in set(d))
        n = len(docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.post = collections.defaultdict(list)
        for i, tf in enumerate(self.tf):
            for w in tf:
                self.post[w].append(i)

    def search(self, q):
        scores: dict[int, float] = {}
        for w, qf in collections.Counter(flat_tokens(q)).items():
            for i in self.post.get(w, ()):
                f = self.tf[i][w]
                norm = f + self.K1 * (1 - self.B + self.B * self.len[i] / self.avg)
                scores[i] = scores.get(i, 0.0) + qf * self.idf[w] * f * (self.K1 + 1) / norm
        best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:K]
        return [self.ids[i] for i, _ in best], None, None


class FlatMeaning:
    """The flat embedding baseline: every memory's saved text embedded by the same model, ranked
    by cosine alone (no words, no tree)."""

    def __init__(self, mems):
        self.ids = [m["id"] for m in mems]
        self.model = embedder() or _wordllama()
        self.matrix = self.model.embed([f"{m['speaker']}: {m['text']}" for m in mems])

    def search(self, q):
        sims = self.matrix @ self.model.embed([q])[0]
        return [self.ids[i] for i in (-sims).argsort()[:K]], None, None


def _wordllama():
    from ihmt_vault.plugins import manager as plugins

    return plugins.embedders_by_name()["wordllama"]


def embedder():
    """The model the vector index uses (`--embedder`; None: words alone)."""
    from ihmt_vault.plugins import manager as plugins

    return plugins.embedders_by_name().get(EMBEDDER[0]) if EMBEDDER[0] != "none" else None


class Ours:
    """One folder per session, built straight into the search index (the set's own structure)."""

    def __init__(self, mems, tmp: Path, today):
        from ihmt_vault.plugins import manager as plugins

        found = plugins.rankers_by_name()
        rankers = [found[n].for_vault(tmp) if hasattr(found[n], "for_vault") else found[n] for n in RANKERS]
        self.ix = SearchIndex(tmp, today=today, rankers=rankers, embedder=embedder())
        self.ix.rebuild(build_docs(mems, "session", ""), {"bench": True})

    def search(self, q):
        r = self.ix.search(q, k=K)
        return [h.id for h in r.hits], r.status, r.tokens


class AsAgents:
    """Saved as agents save: no topic, in time order, dates only, the vault placing each memory
    (`save_many` of the whole history, or `--one-by-one` single saves with the gardener's slice
    between them, as a long-lived process runs it)."""

    def __init__(self, mems, tmp: Path, today):
        from ihmt_vault import Vault

        self.v = Vault.init(tmp)
        config = tmp / ".ihmt" / "config.toml"
        if EMBEDDER[0] != "wordllama":
            name = "" if EMBEDDER[0] == "none" else EMBEDDER[0]
            config.write_text(config.read_text().replace('embedder = "wordllama"', f'embedder = "{name}"'))
            self.v.close()
            self.v = Vault.open(tmp)
        ordered = sorted(mems, key=lambda m: m["date"])
        items = [
            {"text": memory_text(m) if m.get("speaker") not in (None, "agent") else m["text"], "date": m["date"][:10]}
            for m in ordered
        ]
        if ONE_BY_ONE[0]:
            saved = []
            for it in items:
                saved.append(self.v.memories.save(it["text"], date=it["date"], source="bench"))
                self.v.topics.tend()
        else:
            saved = self.v.memories.save_many(items, source="bench")
        self.ids = {m.id: x["id"] for m, x in zip(saved, ordered)}

    def search(self, q):
        r = self.v.search(q, k=K)
        return [self.ids.get(h.id) for h in r.hits], r.status, r.tokens


LAYOUT = ["session"]  # --layout: session (one folder per session, built into the index) or agents
EMBEDDER = ["wordllama"]  # --embedder: the vector index's model, or none
ONE_BY_ONE = [False]


RANKERS: list[str] = []  # --rankers: fused into ours by reciprocal-rank fusion


def load(folder: str):
    d = DATA / folder
    mems = [json.loads(x) for x in (d / "memories.jsonl").read_text().splitlines() if x.strip()]
    qs = [json.loads(x) for x in (d / "queries.jsonl").read_text().splitlines() if x.strip()]
    return mems, qs


def evaluate(engine, qs):
    rows = []
    for q in qs:
        t0 = time.perf_counter()
        ids, status, tokens = engine.search(q["question"])
        ms = 1000 * (time.perf_counter() - t0)
        ev = set(q["evidence"])
        rank = next((i + 1 for i, x in enumerate(ids) if x in ev), None)
        row = {"cat": q["category"], "r10": bool(rank and rank <= K), "status": status, "tokens": tokens, "ms": ms}
        if q.get("superseded"):  # a changed fact: the newer memory above the one it replaced
            old = set(q["superseded"]) if isinstance(q["superseded"], list) else {q["superseded"]}
            older = next((i + 1 for i, x in enumerate(ids) if x in old), None)
            row["newer_first"] = bool(rank) and (older is None or rank < older)
        rows.append(row)
    return rows


def summarize(rows, cats):
    n = len(rows)
    out = {"n": n, "recall@10": sum(r["r10"] for r in rows) / n, "p50_ms": statistics.median(r["ms"] for r in rows)}
    for c, name in cats.items():
        sub = [r for r in rows if r["cat"] == c]
        if sub:
            out[name] = sum(r["r10"] for r in sub) / len(sub)
    changed = [r["newer_first"] for r in rows if "newer_first" in r]
    if changed:
        out["newer_first"] = sum(changed) / len(changed)
    st = [r["status"] for r in rows if r["status"] is not None]
    if st:
        out["undecided"] = sum(s in (NOT_FOUND, AMBIGUOUS) for s in st) / len(st)
        out["median_tokens"] = statistics.median(r["tokens"] for r in rows)
    return out


def run_set(name: str, tmp: Path) -> dict:
    folder, cats = SETS[name]
    mems, qs = load(folder)
    qs = [q for q in qs if q["category"] in cats]
    convs = sorted({m["conv"] for m in mems})
    # MADial: one report per language; the others: one report over every conversation/user
    part = (lambda c: f"{name}-{c.split('-')[0]}") if name == "madial" else (lambda c: name)
    rows: dict[str, dict[str, list]] = collections.defaultdict(lambda: {"flat": [], "meaning": [], "ihmt": []})
    for conv in convs:
        ms = [m for m in mems if m["conv"] == conv]
        qq = [q for q in qs if q["conv"] == conv]
        last = max(m["date"][:10] for m in ms)
        import datetime as dt

        today = dt.date.fromisoformat(last)  # "now" is just after the last session
        ours = AsAgents if LAYOUT[0] == "agents" else Ours
        engines = (
            ("flat", Flat(ms)),
            ("meaning", FlatMeaning(ms)),
            ("ihmt", ours(ms, tmp / name / conv.replace("/", "_"), today)),
        )
        for en, eng in engines:
            rows[part(conv)][en] += evaluate(eng, qq)
    return {p: {en: summarize(r, cats) for en, r in v.items()} for p, v in rows.items()}


def table(results: dict) -> str:
    lines = []
    for part, res in results.items():
        f, m, i = res["flat"], res["meaning"], res["ihmt"]
        d = i["recall@10"] - f["recall@10"]
        want = TARGETS.get(part)
        lines.append(f"\n== {part} (n={i['n']}) ==")
        lines.append(f"{'':<16}{'flat':>8}{'meaning':>8}{'ihmt':>8}{'Δ flat':>8}")
        for key in [k for k in f if k not in ("n", "p50_ms")]:
            lines.append(f"{key:<16}{f[key]:>8.3f}{m[key]:>8.3f}{i[key]:>8.3f}{i[key] - f[key]:>+8.3f}")
        lines.append(f"{'p50 ms':<16}{f['p50_ms']:>8.2f}{m['p50_ms']:>8.2f}{i['p50_ms']:>8.2f}")
        lines.append(
            f"ihmt median tokens {i['median_tokens']}, ambiguous+not-found {100 * i['undecided']:.1f}%"
            + (f"; target Δr@10 ≥ +{want:.2f}: {'ok' if d >= want else 'MISSED'}" if want else "")
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--rankers", nargs="*", default=[], help="optional rankers to fuse, e.g. semantic (the model)")
    ap.add_argument(
        "--layout",
        choices=["session", "agents"],
        default="agents",
        help="agents: saved as agents save, the vault placing (the default); session: a folder per session",
    )
    ap.add_argument("--one-by-one", action="store_true", help="with --layout agents: single saves, not one batch")
    ap.add_argument("--embedder", default="wordllama", help="the vector index's model, or none")
    args = ap.parse_args(argv)
    RANKERS[:] = args.rankers
    LAYOUT[0], EMBEDDER[0], ONE_BY_ONE[0] = args.layout, args.embedder, args.one_by_one
    t0 = time.time()
    tmp = Path(tempfile.mkdtemp(prefix="retrieval-"))
    results = {}
    for name in args.sets:
        results.update(run_set(name, tmp))
    print(table(results))
    out = (
        Path(args.out) if args.out else ROOT / "bench" / "results" / f"retrieval-{time.strftime('%Y%m%d-%H%M%S')}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"args": vars(args), "seconds": round(time.time() - t0, 1), **results}, indent=1))
    print(f"\nwrote {out} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
