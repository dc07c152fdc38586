"""How the vault organises memories saved without a topic: its tree against the true sections.

    python bench/organisation.py                    # org-dev, one batch and one by one (random order)
    python bench/organisation.py --mode batch       # only the one `save_many` batch
    python bench/organisation.py --data FILE.jsonl  # another labelled corpus (text, label per line)
    python bench/organisation.py --mode batch --subsamples 6   # and six 85% subsets, for the spread

Every entry of `/work/shared/data/org-dev/awesome-python.jsonl` is saved into a fresh vault with no
topic and no title, either in one `save_many` batch or one `save` at a time in a random order
(`--seeds`, 7, 8 and 9 by default: each order grows another tree, so their mean is reported too).
The folder each memory ends up in (its leaf) is compared with the entry's `label` (the section,
"Group/Section") and with its group: purity, inverse purity, F-measure and NMI, beside a plain
TF-IDF + k-means (k-means++, 5 restarts, lower-cased words, l2-normalised, smooth idf — what
scikit-learn's defaults compute) with the same number of clusters as the tree has leaf folders,
computed in the same run, and the one-folder clustering. Shape and naming: share of one-word folder
names, folders named by a stop or filler word, share of folder names matching as a word (plural
folded) the section most of their memories come from, largest folder against 3x the branch factor,
largest top folder's share of the vault, titles ending with "…". Names against a baseline namer:
how often a leaf's name (and its path) matches its section, over all leaves and over those whose
memories use their section's word, beside each k-means cluster named by its centroid's top TF-IDF
term. Results go to
`bench/results/organisation.json`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ihmt_vault import Vault  # noqa: E402

DATA = Path("/work/shared/data/org-dev/awesome-python.jsonl")
# Words that never name a topic, kept here independently of the vault's own lists.
FILLER = set(
    """a an the and or of to in on for with by at from as is are be was were it its this that these those
use used uses using run runs ask asks call calls need needs means mean chose choose based adding add make makes
way thing things stuff get gets got new old good bad via into over more most other some any all also can will
should must may might one two days day lot etc like just only very well see first last same different simple
easy fast small large high low full""".split()
)


def load(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


# --- clustering scores ---------------------------------------------------------------------------
def contingency(clusters: list[str], labels: list[str]):
    table: dict[str, Counter] = defaultdict(Counter)
    for c, l in zip(clusters, labels):
        table[c][l] += 1
    return table


def scores(clusters: list[str], labels: list[str]) -> dict:
    n = len(labels)
    table = contingency(clusters, labels)
    by_label = Counter(labels)
    by_cluster = {c: sum(t.values()) for c, t in table.items()}
    purity = sum(max(t.values()) for t in table.values()) / n
    inverse: Counter = Counter()
    for t in table.values():
        for l, k in t.items():
            inverse[l] = max(inverse[l], k)
    inv_purity = sum(inverse.values()) / n
    f = 0.0
    for l, nl in by_label.items():
        best = 0.0
        for c, t in table.items():
            k = t.get(l, 0)
            if k:
                p, r = k / by_cluster[c], k / nl
                best = max(best, 2 * p * r / (p + r))
        f += nl / n * best
    mi = sum(k / n * math.log(k * n / (by_cluster[c] * by_label[l])) for c, t in table.items() for l, k in t.items())
    hc = -sum(v / n * math.log(v / n) for v in by_cluster.values())
    hl = -sum(v / n * math.log(v / n) for v in by_label.values())
    nmi = 2 * mi / (hc + hl) if hc + hl else 1.0
    return {
        "f": round(f, 3),
        "purity": round(purity, 3),
        "inverse_purity": round(inv_purity, 3),
        "nmi": round(nmi, 3),
        "clusters": len(table),
    }


# --- the baseline: TF-IDF + k-means in plain Python ----------------------------------------------
def tfidf(texts: list[str]) -> list[dict[str, float]]:
    docs = [Counter(re.findall(r"(?u)\b\w\w+\b", t.lower())) for t in texts]
    n = len(docs)
    df = Counter(w for d in docs for w in d)
    idf = {w: math.log((1 + n) / (1 + k)) + 1 for w, k in df.items()}
    out = []
    for d in docs:
        v = {w: c * idf[w] for w, c in d.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        out.append({w: x / norm for w, x in v.items()})
    return out


def kmeans(vecs: list[dict[str, float]], k: int, seed: int = 0, restarts: int = 5, iters: int = 60) -> list[int]:
    rng = random.Random(seed)
    best, best_inertia = None, float("inf")

    def dist2(v, c, cn):  # |v - c|^2 with |v| = 1
        return 1.0 - 2 * sum(x * c.get(w, 0.0) for w, x in v.items()) + cn

    for _ in range(restarts):
        centres = [dict(vecs[rng.randrange(len(vecs))])]
        norms = [1.0]
        d = [dist2(v, centres[0], 1.0) for v in vecs]
        while len(centres) < k:  # k-means++
            total = sum(d)
            pick, acc, r = 0, 0.0, rng.random() * total
            for i, x in enumerate(d):
                acc += x
                if acc >= r:
                    pick = i
                    break
            centres.append(dict(vecs[pick]))
            norms.append(1.0)
            d = [min(a, dist2(v, centres[-1], 1.0)) for a, v in zip(d, vecs)]
        assign = [-1] * len(vecs)
        for _ in range(iters):
            new = [min(range(k), key=lambda j: dist2(v, centres[j], norms[j])) for v in vecs]
            if new == assign:
                break
            assign = new
            for j in range(k):
                members = [vecs[i] for i, a in enumerate(assign) if a == j]
                if not members:
                    continue
                c: Counter = Counter()
                for v in members:
                    c.update(v)
                centres[j] = {w: x / len(members) for w, x in c.items()}
                norms[j] = sum(x * x for x in centres[j].values())
        inertia = sum(dist2(v, centres[a], norms[a]) for v, a in zip(vecs, assign))
        if inertia < best_inertia:
            best, best_inertia = assign, inertia
    return best


# --- the tree's shape and names ------------------------------------------------------------------
def stem(w: str) -> str:
    w = w.lower()
    if w.endswith("ies") and len(w) > 5:
        return w[:-3] + "y"
    if w.endswith(("sses", "xes", "zes", "ches", "shes")) and len(w) > 5:  # classes, boxes, matches
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:  # games, queues; not class, status
        return w[:-1]
    return w


def words(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[^\W_]+", text.lower()) if w not in FILLER}


def shape(v: Vault, folders: list[str], labels: list[str], titles: list[str], branch_factor: int) -> dict:
    table = contingency(folders, labels)
    names = sorted({p for f in folders if f for p in _prefixes(f)})
    leaf_names = {f: f.rpartition("/")[2] for f in table if f}
    matches = 0
    for f, t in table.items():
        if not f:
            continue
        section = t.most_common(1)[0][0].rpartition("/")[2]
        matches += bool(words(leaf_names[f].replace("-", " ")) & words(section))
    below: dict[str, Counter] = defaultdict(Counter)  # every folder: the sections of all memories under it
    for f, l in zip(folders, labels):
        for p in _prefixes(f) if f else []:
            below[p][l] += 1
    all_matches = sum(
        bool(words(p.rpartition("/")[2].replace("-", " ")) & words(t.most_common(1)[0][0].rpartition("/")[2]))
        for p, t in below.items()
        if p != "inbox"
    )
    top = Counter(f.split("/")[0] for f in folders)
    biggest_top = top.most_common(1)[0] if top else ("", 0)
    sizes = Counter(folders)
    return {
        "folders": len(names),
        "leaf_folders": len(table),
        "depth": max((f.count("/") + 1 for f in folders if f), default=0),
        "one_word_names": round(sum("-" not in n.rpartition("/")[2] for n in names) / max(1, len(names)), 3),
        "filler_names": sorted(n for n in names if any(w in FILLER for w in n.rpartition("/")[2].split("-"))),
        "names_matching_section": round(matches / max(1, len([f for f in table if f])), 3),
        "all_names_matching_section": round(all_matches / max(1, len([p for p in below if p != "inbox"])), 3),
        "largest_folder": sizes.most_common(1)[0],
        "over_3x_branch_factor": [f for f, k in sizes.items() if k > 3 * branch_factor],
        "largest_top_share": round(biggest_top[1] / len(folders), 3),
        "largest_top": biggest_top[0],
        "titles_ending_ellipsis": sum(t.endswith("…") for t in titles),
        "names": names,
    }


def _prefixes(folder: str):
    parts = folder.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def naming(clusters: list[str], name_of: dict[str, str], labels: list[str], texts: list[str]) -> dict:
    """How often a cluster's name matches (a shared word, plural folded) the section most of its
    members come from: over every cluster, and over those whose memories use their section's word
    (at least half of the members' texts hold a word of the section's name: the only clusters a
    namer that reads the memories can name after their section)."""
    members: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(clusters):
        if c and c != "inbox":
            members[c].append(i)
    matched = by_path = usable = usable_matched = usable_by_path = 0
    for c, idx in members.items():
        section = words(Counter(labels[i] for i in idx).most_common(1)[0][0].rpartition("/")[2].replace("-", " "))
        name = name_of.get(c, "")  # a folder's path: its own name is the last part
        hit = bool(words(name.rpartition("/")[2].replace("-", " ")) & section)
        on_path = bool(words(name.replace("/", " ").replace("-", " ")) & section)
        matched += hit
        by_path += on_path
        if 2 * sum(bool(words(texts[i]) & section) for i in idx) >= len(idx):
            usable += 1
            usable_matched += hit
            usable_by_path += on_path
    return {
        "clusters": len(members),
        "matching": round(matched / max(1, len(members)), 3),
        "matching_by_path": round(by_path / max(1, len(members)), 3),
        "using_section_word": usable,
        "matching_of_those": round(usable_matched / max(1, usable), 3),
        "matching_of_those_by_path": round(usable_by_path / max(1, usable), 3),
    }


def centroid_names(vecs: list[dict[str, float]], assign: list[int]) -> dict[str, str]:
    """The baseline namer: each k-means cluster named by its centroid's top TF-IDF term."""
    sums: dict[int, Counter] = defaultdict(Counter)
    for v, a in zip(vecs, assign):
        sums[a].update(v)
    return {str(a): max(sorted(c), key=lambda w: c[w]) for a, c in sums.items() if c}


def run(rows: list[dict], mode: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        v = Vault.init(Path(tmp) / "v")
        t = time.perf_counter()
        if mode == "batch":
            ms = v.save_many([{"text": r["text"]} for r in rows], source="bench")
            ids = [m.id for m in ms]
        else:
            order = list(range(len(rows)))
            random.Random(seed).shuffle(order)
            ids = [None] * len(rows)
            tend = getattr(getattr(v, "topics", None), "tend", None)  # the gardener's slice, where there is one
            for i in order:
                ids[i] = v.save(rows[i]["text"], source="bench").id
                if tend is not None:
                    tend()  # what a long-lived process does in the quiet after a save
        seconds = time.perf_counter() - t
        got = [v.get(i) for i in ids]
        folders = [m.folder for m in got]
        bf = v.engine.config.branch_factor if hasattr(v, "engine") else 16
        out = {"mode": mode, "seed": seed, "seconds": round(seconds, 1)}
        out["shape"] = shape(v, folders, [r["label"] for r in rows], [m.title for m in got], bf)
        v.close()
    labels = [r["label"] for r in rows]
    groups = [r["label"].split("/")[0] for r in rows]
    k = out["shape"]["leaf_folders"]
    texts = [r["text"] for r in rows]
    vecs = tfidf(texts)
    clusters = kmeans(vecs, k)
    assign = [str(a) for a in clusters]
    out["tree"] = {"section": scores(folders, labels), "group": scores(folders, groups)}
    out["kmeans"] = {"k": k, "section": scores(assign, labels), "group": scores(assign, groups)}
    out["naming"] = {
        "tree": naming(folders, {f: f for f in set(folders)}, labels, texts),
        "kmeans_centroid_term": naming(assign, centroid_names(vecs, clusters), labels, texts),
    }
    out["one_folder"] = {"section": scores(["x"] * len(rows), labels)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--mode", choices=["batch", "one-by-one", "both"], default="both")
    ap.add_argument("--seeds", default="7,8,9", help="the random orders of the one-by-one saves (comma-separated)")
    ap.add_argument(
        "--subsamples",
        type=int,
        default=0,
        help="also save N random 85%% subsets in one batch each, and report their mean and spread "
        "(one batch is one draw: a small change of the corpus grows another tree)",
    )
    a = ap.parse_args()
    rows = load(a.data)
    seeds = [int(x) for x in a.seeds.split(",")]
    modes = ["batch", "one-by-one"] if a.mode == "both" else [a.mode]
    results = [run(rows, m, seed) for m in modes for seed in ([seeds[0]] if m == "batch" else seeds)]
    for r in results:
        s, t, km = r["shape"], r["tree"]["section"], r["kmeans"]["section"]
        print(
            f"== {r['mode']} (order {r['seed']}; {len(rows)} memories, {r['seconds']} s)"
            if r["mode"] != "batch"
            else f"== batch ({len(rows)} memories, {r['seconds']} s)"
        )
        print(
            f"  tree   section F {t['f']} purity {t['purity']} inv {t['inverse_purity']} NMI {t['nmi']}"
            f" | group F {r['tree']['group']['f']} purity {r['tree']['group']['purity']}"
        )
        print(
            f"  kmeans section F {km['f']} purity {km['purity']} inv {km['inverse_purity']} NMI {km['nmi']}"
            f" (k={r['kmeans']['k']}) | group F {r['kmeans']['group']['f']} purity {r['kmeans']['group']['purity']}"
        )
        print(f"  one folder: F {r['one_folder']['section']['f']} purity {r['one_folder']['section']['purity']}")
        print(
            f"  folders {s['folders']} (leaves {s['leaf_folders']}, depth {s['depth']}), one-word names "
            f"{s['one_word_names']}, filler names {s['filler_names']}, names matching section "
            f"{s['names_matching_section']} (leaves), {s['all_names_matching_section']} (all folders)"
        )
        print(
            f"  largest folder {s['largest_folder']}, over 3x bf {s['over_3x_branch_factor']}, largest top "
            f"{s['largest_top']} {s['largest_top_share']}, titles ending … {s['titles_ending_ellipsis']}"
        )
        nt, nk = r["naming"]["tree"], r["naming"]["kmeans_centroid_term"]
        print(
            f"  names matching their section: tree {nt['matching']} of {nt['clusters']} leaves (by path "
            f"{nt['matching_by_path']}), {nt['matching_of_those']} of the {nt['using_section_word']} whose memories"
            f" use the section's word (by path {nt['matching_of_those_by_path']})"
            f" | k-means centroid term {nk['matching']} of {nk['clusters']}, {nk['matching_of_those']} of "
            f"{nk['using_section_word']}"
        )
        print(f"  names: {', '.join(s['names'])}")
    subs = []
    for n in range(a.subsamples):
        rng = random.Random(100 + n)
        part = [r for r in rows if rng.random() < 0.85]
        subs.append(run(part, "batch", 0))
    if subs:

        def spread(get):
            values = [get(r) for r in subs]
            return f"{sum(values) / len(values):.3f} ({min(values):.3f}-{max(values):.3f})"

        print(
            f"== batch, {len(subs)} subsets of 85%: tree F {spread(lambda r: r['tree']['section']['f'])} purity "
            f"{spread(lambda r: r['tree']['section']['purity'])} | "
            f"kmeans F {spread(lambda r: r['kmeans']['section']['f'])}"
            f" purity {spread(lambda r: r['kmeans']['section']['purity'])} | names matching section "
            f"{spread(lambda r: r['shape']['names_matching_section'])} (leaves)"
        )
    obo = [r for r in results if r["mode"] == "one-by-one"]
    if len(obo) > 1:  # one order is one draw: the tree grows differently in each, so the mean is the figure

        def mean(get):
            return round(sum(get(r) for r in obo) / len(obo), 3)

        print(
            f"== one-by-one, mean of {len(obo)} orders: tree F {mean(lambda r: r['tree']['section']['f'])} purity "
            f"{mean(lambda r: r['tree']['section']['purity'])} | kmeans F {mean(lambda r: r['kmeans']['section']['f'])}"
            f" purity {mean(lambda r: r['kmeans']['section']['purity'])} | names matching section "
            f"{mean(lambda r: r['shape']['names_matching_section'])} (leaves)"
        )
    out = ROOT / "bench/results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "organisation.json").write_text(json.dumps(results + subs, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
