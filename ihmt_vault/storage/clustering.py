"""Grouping memories into subtopics and naming them: TF-IDF vectors, spherical k-means, phrase names.

Pure functions over texts, deterministic (a fixed seed, stable sort orders), so the same folder
always splits the same way. Lexical by default: the words memories share, nothing learned.

- `features(text)`: a memory's content words (folded, plural folded), package-style names split at
  hyphens, weighted by TF-IDF over the folder being split.
- `kmeans`: spherical k-means (cosine), k-means++ seeding from a fixed seed, a few restarts.
- `name_groups`: each group named by the phrase (two adjacent content words, or one) that most of
  its members hold and that tells them from the rest of the folder — held by at least two members,
  never a stop or filler word nor an identifier out of code, never a word of the folder's own path,
  a run's head noun rather than its first word.
- `plan`: the subtopics a crowded folder splits into (each of at least `min_group` memories), peeled
  in rounds so that no subtopic is named by a phrase few of its members hold; what fits no named
  subtopic stays where it is. A lone subtopic holding most of the folder gives way to its own.
- `holding`: how many memories hold a folder's name (the gardener renames a folder few hold).
- `misfits`: the memories clearly closer to another folder's centroid than to their own's.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Set as AbstractSet

from ..text import CJK_RUN, cjk_terms, fold
from .notes import slugify
from .sensitive import looks_like_credential

# Words that say how or how much, not what: never a topic's name, and not evidence of a topic.
FILLER = frozenset(
    """
a about above across add added adding adds after again against all allow allows almost along already also
although always among an and another any anything are around as ask asked asks at available away back based
be because been before being below best better between both but by call called calls can cannot chose chosen
choose could day days did different do does doing done down during each easy either else enough etc even
ever every example except fast few first for from full get gets give given go goes going good got great had
has have having help helps here high how however if in including instead into is it its just keep kept kind
large last least less let lets level like likely little lot low made main make makes many may maybe mean means
might more most much must need needed needs never new next nice no not nothing now of off often old on once
one only or other our out over own per please possible powerful prefer provide provides providing put quick
quickly rather real really run running runs said same say see set several shall should show simple since
small so some something sometimes soon still such support supports sure take than that the their them then
there these they thing things this those though through thus time to too try two under until up upon us use
used useful user uses using usually various very via want wants was way ways we well were what when where
whether which while who whole why will with within without work works would yes yet you your
library libraries package packages module modules tool tools toolkit implementation implementations wrapper
wrappers collection collections list lists written write writes stuff etc e.g i.e
behind beyond toward towards onto inside outside throughout beside besides near unlike versus vs whose whom
whatever whichever modern advanced robust flexible lightweight extensible comprehensive efficient elegant
minimal complete general generic standard common basic popular beautiful friendly reliable tiny fully highly
easily mostly entirely
unless otherwise whenever wherever hence therefore thereby whereas
true false null none nil undefined
follow follows followed require requires required include includes included ensure ensures avoid avoids expect
expects suggest suggests consider remember mention mentions describe describes explain explains create creates
created define defines apply applies renders generates converts parses handles manages stores sends reads fetches
loads saves returns wraps exposes implements validates built
explicit implicit existing optional specific single multiple known unknown descriptive relevant necessary
appropriate proper correct clear consistent important related separate certain particular additional extra
""".split()
)
# Nouns that end like an adverb ("-ly"): everything else of that shape says how, not what.
_LY_NOUNS = frozenset("assembly anomaly family supply reply butterfly monopoly rally ally italy july poly".split())
_WORD = re.compile(r"[^\W\d_][\w'+#.-]*[\w+#]|[^\W\d_]|\d+[a-z]\w*", re.UNICODE)


def stem(word: str) -> str:
    """A plural folded to its singular, crudely and predictably ('frameworks' → 'framework')."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def is_filler(word: str, stop: frozenset[str]) -> bool:
    return (
        word in FILLER
        or word in stop
        or stem(word) in FILLER
        or len(word) < 3
        and not word.isupper()
        or word.isdigit()
        or len(word) > 5
        and word.endswith("ly")
        and word not in _LY_NOUNS
        or looks_like_credential(word)
    )


def nameable(surface: str) -> bool:
    """Whether a phrase can name a folder: not an identifier or a file name out of code
    ('airtable_base_id', 'vitest.config.mts'), which is evidence of a topic but not its name."""
    return "_" not in surface and "." not in surface.strip(".")


def runs(text: str, stop: frozenset[str]) -> list[list[str]]:
    """The text's content words in runs of adjacent ones (a stop or filler word, or punctuation,
    ends a run), folded; CJK runs as their segments."""
    return [run for run, _end in ended_runs(text, stop)]


def ended_runs(text: str, stop: frozenset[str]) -> list[tuple[list[str], str]]:
    """`runs`, each with the stop or filler word that ended it ('' for punctuation or the end)."""
    out: list[tuple[list[str], str]] = []
    folded = fold(text)
    for run in CJK_RUN.findall(folded):
        out.append((cjk_terms(run), ""))
    for piece in re.split(r"[,.;:!?()\[\]{}\"“”/|]+|\s[-–—]\s", CJK_RUN.sub(" . ", folded)):
        current: list[str] = []
        for w in _WORD.findall(piece):
            w = w.strip("'.-")
            if not w or is_filler(w, stop):
                if current:
                    out.append((current, w))
                current = []
            else:
                current.append(w)
        if current:
            out.append((current, ""))
    return out


def features(text: str, stop: frozenset[str]) -> Counter:
    """A memory's terms for clustering: content words (plural folded), hyphenated names also by part."""
    c: Counter = Counter()
    for run in runs(text, stop):
        for w in run:
            c[stem(w)] += 1
            if "-" in w:
                c.update(stem(p) for p in w.split("-") if len(p) > 2 and not is_filler(p, stop))
    return c


# How likely a word's place in a run makes it a topic's noun: the last word of a run (before a
# preposition or punctuation) is its head noun, a run's first word is often a verb or an adjective
# ("converts files", "modern web framework"), and so is a word right before an article ("builds the").
HEAD, ALONE, INSIDE, LEADING, BEFORE_ARTICLE = 1.0, 0.8, 0.8, 0.5, 0.35
DETERMINERS = frozenset("a an the this that these those its their your our my his her each every".split())


def phrases(text: str, stop: frozenset[str]) -> dict[str, tuple[str, float]]:
    """Candidate names a memory holds: {key: (surface, how noun-like its best place is)} for single
    words and adjacent pairs."""
    out: dict[str, tuple[str, float]] = {}

    def note(key: str, surface: str, weight: float) -> None:
        if key not in out or out[key][1] < weight:
            out[key] = (surface, weight)

    for run, end in ended_runs(text, stop):
        last = len(run) - 1
        verb_last = end in DETERMINERS
        for i, w in enumerate(run):
            if "-" not in w or len(w) <= 20 and not any(is_filler(p, stop) for p in w.split("-")):
                place = (
                    BEFORE_ARTICLE
                    if i == last and verb_last
                    else ALONE
                    if last == 0
                    else HEAD
                    if i == last
                    else LEADING
                    if i == 0
                    else INSIDE
                )
                note(stem(w), w, place * (0.5 if last == 0 and len(w) > 5 and w.endswith("ed") else 1.0))
            if i + 1 < len(run) and "-" not in w and "-" not in run[i + 1]:
                note(
                    f"{stem(w)} {stem(run[i + 1])}",
                    f"{w} {run[i + 1]}",
                    BEFORE_ARTICLE
                    if i + 1 == last and verb_last
                    else HEAD
                    if i + 1 == last
                    else INSIDE
                    if i
                    else LEADING + 0.25,
                )
    return out


def vectors(texts: list[str], stop: frozenset[str]) -> list[dict[str, float]]:
    docs = [features(t, stop) for t in texts]
    n = len(docs)
    df = Counter(w for d in docs for w in d)
    out = []
    for d in docs:
        v = {w: (1 + math.log(c)) * math.log((1 + n) / (1 + df[w])) for w, c in d.items() if df[w] > 1}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        out.append({w: x / norm for w, x in v.items()})
    return out


def kmeans(vecs: list[dict[str, float]], k: int, seed: int = 13, restarts: int = 4, iters: int = 40) -> list[int]:
    """Spherical k-means: each vector to the centre it is most similar to (cosine), k-means++ seeded,
    the best of `restarts` runs. Over numpy arrays of the documents' sparse rows (ten times the
    speed of dicts at a few thousand memories); deterministic: the same seed, the same picks, ties
    to the lowest centre."""
    import numpy as np

    n = len(vecs)
    k = max(1, min(k, n))
    rng = random.Random(seed)
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for i, v in enumerate(vecs):
        for w, x in v.items():
            rows.append(i)
            cols.append(vocab.setdefault(w, len(vocab)))
            vals.append(x)
    row = np.asarray(rows, dtype=np.int64)
    col = np.asarray(cols, dtype=np.int64)
    val = np.asarray(vals, dtype=np.float64)
    dim = max(1, len(vocab))

    def dense(i: int):
        c = np.zeros(dim)
        held = row == i
        c[col[held]] = val[held]
        return c

    def similarity(c):  # every document's to one centre
        out = np.zeros(n)
        np.add.at(out, row, val * c[col])
        return out

    def similarities(centres):  # n × k
        out = np.zeros((n, centres.shape[0]))
        np.add.at(out, row, val[:, None] * centres[:, col].T)
        return out

    best, best_score = [0] * n, -1.0
    for _ in range(restarts):
        chosen = [dense(rng.randrange(n))]
        far = 1.0 - similarity(chosen[0])
        while len(chosen) < k:
            total = sum(far.tolist())
            if total <= 0:
                break
            r = rng.random() * total
            pick = min(int(np.searchsorted(np.cumsum(far), r, side="left")), n - 1)
            chosen.append(dense(pick))
            far = np.minimum(far, 1.0 - similarity(chosen[-1]))
        centres = np.vstack(chosen)
        assign = None
        for _ in range(iters):
            new = similarities(centres).argmax(axis=1)
            if assign is not None and np.array_equal(new, assign):
                break
            assign = new
            for j in range(centres.shape[0]):
                members = np.flatnonzero(assign == j)
                if len(members):
                    held = np.isin(row, members)
                    c = np.zeros(dim)
                    np.add.at(c, col[held], val[held])
                    centres[j] = c / (math.sqrt(float((c * c).sum())) or 1.0)
        assert assign is not None
        score = float(similarities(centres)[np.arange(n), assign].sum())
        if score > best_score:
            best, best_score = [int(a) for a in assign], score
    return best


def name_groups(
    texts: list[str],
    groups: list[list[int]],
    stop: frozenset[str],
    avoid: AbstractSet[str],
    theme: float = 2 / 3,
    held: list[dict] | None = None,
) -> list[str | None]:
    """A readable name for each group (None: its members share no distinctive phrase): the phrase
    scoring best on coverage (how many members hold it, weighted by how noun-like its place in each
    is) times distinctiveness (how many of its holders in the folder are members). A phrase more
    than `theme` of all the texts hold is the folder's own theme, naming none of its groups.
    `held`: the texts' `phrases`, when the caller has them already."""
    held = [phrases(t, stop) for t in texts] if held is None else held
    df = Counter(k for h in held for k in h)
    names: list[str | None] = []
    taken = set(avoid)
    for members in groups:
        inside = Counter(k for i in members for k in held[i])
        scored = []
        for key, a in inside.items():
            if a < 2 or any(p in avoid for p in re.split(r"[ -]", key)) or not nameable(key):
                continue
            precision = a / df[key]
            if precision < 0.4 or df[key] > theme * len(texts):
                continue
            nounish = sum(held[i][key][1] for i in members if key in held[i]) / a
            if nounish < 0.5:  # mostly a verb before an article, or a participle: not what they are about
                continue
            coverage = a / len(members)  # squared: a folder is named by what most of its members are
            scored.append((coverage**2 * precision * nounish * (1.3 if " " in key else 1.0), a, key))
        scored.sort(key=lambda s: (-s[0], -s[1], s[2]))
        surface = None
        for _, _, key in _longer_first(scored, inside):
            forms = Counter(held[i][key][0] for i in members if key in held[i])
            slug = slugify(forms.most_common(1)[0][0], 40)
            if len(slug) < 2:  # what is left of "c++" says nothing
                continue
            if slug not in taken and key not in taken:  # "llm" and "llms" are one name
                surface = slug
                taken.add(key)
                break
        names.append(surface)
        if surface:
            taken.add(surface)
    return names


def _longer_first(scored: list[tuple[float, int, str]], inside: Counter) -> list[tuple[float, int, str]]:
    """`scored` with each single word preceded by the best pair holding it that most of its holders
    share ("machine learning" before "machine"): the longer phrase says more, for nearly the same members."""
    pairs = [s for s in scored if " " in s[2]]
    out, seen = [], set()
    for s in scored:
        if " " not in s[2]:
            for p in pairs:
                if s[2] in p[2].split() and 3 * inside[p[2]] >= 2 * inside[s[2]] and p[2] not in seen:
                    out.append(p)
                    seen.add(p[2])
                    break
        if s[2] not in seen:
            out.append(s)
            seen.add(s[2])
    return out


def holding(held: list[dict], name: str) -> int:
    """How many memories hold a folder name, of their `phrases` ('web-framework': the pair
    "web framework" or the hyphenated word)."""
    keys = {" ".join(stem(w) for w in name.split("-")), stem(name)}
    return sum(bool(keys & h.keys()) for h in held)


COHERENT = 1 / 3  # a subtopic whose name fewer of its members hold is clustered again with what is left
ROUNDS = 3


def plan(
    texts: list[str],
    branch_factor: int,
    stop: frozenset[str],
    avoid: AbstractSet[str] = frozenset(),
    min_group: int = 3,
) -> tuple[dict[str, list[int]], list[int]]:
    """Subtopics for a crowded folder's memories: ({name: member positions}, positions left where
    they are). About half a branch factor a subtopic; a subtopic too small joins the nearest.

    Peeled in rounds: a subtopic whose name at least a third of its members hold is kept, and the
    rest is clustered again, so that memories k-means lumped together for sharing little with
    anything (its catch-all cluster) are not filed under one weak name. The last round keeps every
    named subtopic; two rounds' subtopics of one name are one."""
    n = len(texts)
    if n <= min_group:
        return {}, list(range(n))
    vecs = vectors(texts, stop)
    held = [phrases(t, stop) for t in texts]
    out: dict[str, list[int]] = {}
    rest = list(range(n))
    for round_ in range(ROUNDS):
        groups, left = _cluster(texts, vecs, held, rest, branch_factor, stop, avoid, min_group)
        weak = {name for name, g in groups.items() if COHERENT * len(g) > holding([held[i] for i in g], name)}
        if (
            round_ == ROUNDS - 1
            or weak == set(groups)
            or len(left) + sum(len(groups[name]) for name in weak) <= branch_factor
        ):
            weak = set()  # nothing left worth another round: every named subtopic is kept
        for name, g in groups.items():
            if name not in weak:
                out.setdefault(name, []).extend(g)
        rest = sorted(left + [i for name in weak for i in groups[name]])
        if not weak:
            break
    out = {name: sorted(g) for name, g in out.items() if len(g) < n}
    if len(out) == 1 and 2 * len(next(iter(out.values()))) > n:
        # One subtopic holding most of the folder is the folder under another name: its next split
        # would leave a chain of folders each holding little. Its own subtopics are the split.
        g = next(iter(out.values()))
        inner, _left = plan([texts[i] for i in g], branch_factor, stop, avoid, min_group)
        if len(inner) > 1:
            out = {sub: [g[p] for p in members] for sub, members in inner.items()}
    placed = {i for g in out.values() for i in g}
    return out, [i for i in range(n) if i not in placed]


def _cluster(
    texts: list[str],
    vecs: list[dict[str, float]],
    held: list[dict],
    rest: list[int],
    branch_factor: int,
    stop: frozenset[str],
    avoid: AbstractSet[str],
    min_group: int,
) -> tuple[dict[str, list[int]], list[int]]:
    """One round of `plan` over the positions `rest`: k-means, small groups joined to the nearest,
    each group named."""
    if len(rest) <= min_group:
        return {}, list(rest)
    k = min(branch_factor, max(2, round(len(rest) / max(3, branch_factor * 0.5))))
    assign = kmeans([vecs[i] for i in rest], k)
    groups = [[rest[p] for p, a in enumerate(assign) if a == j] for j in range(max(assign) + 1)]
    big = [g for g in groups if len(g) >= min_group]
    if not big:
        return {}, list(rest)
    centres = []
    for g in big:
        c: Counter = Counter()
        for i in g:
            c.update(vecs[i])
        centres.append(c)
    for g in groups:  # a group too small for a subtopic joins the one its members are nearest to
        if len(g) < min_group:
            for i in g:
                scores = [sum(x * c.get(w, 0.0) for w, x in vecs[i].items()) for c in centres]
                big[max(range(len(big)), key=lambda j: (scores[j], -j))].append(i)
    left = []
    for j, g in enumerate(big):  # a memory sharing no word with its group's other members stays
        centre: Counter = Counter()
        for i in g:
            centre.update(vecs[i])
        keep = [i for i in g if sum(x * (centre[w] - x) for w, x in vecs[i].items()) > 1e-9]
        left += [i for i in g if i not in keep]
        big[j] = keep
    left += [i for g in big if len(g) < min_group for i in g]
    big = [g for g in big if len(g) >= min_group]
    out = {}
    for name, g in zip(name_groups(texts, big, stop, avoid, held=held), big):
        if name:
            out[name] = g
        else:
            left += g
    return out, left


def misfits(
    texts: list[str], home: list[str], movable: set[int], stop: frozenset[str], margin: float = 0.1, min_group: int = 3
) -> dict[int, str]:
    """{position: folder} for each movable memory that is clearly closer to another folder's centre
    than to its own: its TF-IDF cosine to that folder's centroid beats the one to its own folder's
    (computed without it) by `margin`. Only a folder of at least `min_group` memories draws one in,
    and a memory alone in its folder stays (nothing to compare it with)."""
    vecs = vectors(texts, stop)
    sums: dict[str, Counter] = {}
    for v, f in zip(vecs, home):
        sums.setdefault(f, Counter()).update(v)
    size = Counter(home)
    norms = {f: math.sqrt(sum(x * x for x in c.values())) for f, c in sums.items()}
    postings: dict[str, list[tuple[str, float]]] = {}  # term → (folder, its weight there): only shared terms count
    for f, c in sums.items():
        if size[f] >= min_group and norms[f] > 0:
            for w, weight in c.items():
                postings.setdefault(w, []).append((f, weight / norms[f]))
    out = {}
    for i in sorted(movable):
        v, own = vecs[i], home[i]
        if size[own] < 2 or not v:
            continue
        rest = {w: sums[own][w] - x for w, x in v.items()}
        rest_norm = math.sqrt(max(0.0, norms[own] ** 2 - sum(sums[own][w] ** 2 - r * r for w, r in rest.items())))
        stay = sum(x * rest[w] for w, x in v.items()) / rest_norm if rest_norm > 1e-9 else 0.0
        near: defaultdict[str, float] = defaultdict(float)
        for w, x in v.items():
            for f, y in postings.get(w, ()):
                if f != own:
                    near[f] += x * y
        if near:
            f, best = min(near.items(), key=lambda kv: (-kv[1], kv[0]))
            if best > stay + margin:
                out[i] = f
    return out
