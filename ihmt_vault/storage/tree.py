"""The topic tree: folders, keywords, placement of new memories, splits, and `index.md` summaries.

Pure functions over catalog rows and folder facts; `Vault` does the reading and writing.

Invariants:
- A summary is a function of its folder's direct memories and its subfolders' summaries only, so
  regenerating bottom-up along a changed path is enough, and the same content always renders to
  the same bytes (no clocks, stable sort orders).
- Folder depth never exceeds `Config.max_depth`; `archive/` and dot-folders are never placement
  targets.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from urllib.parse import quote

from whoosh.lang import stopwords_for_language

from ..errors import BadInput
from ..text import CJK_RUN, cjk_words, fold
from . import clustering
from .notes import WINDOWS_RESERVED, compose, shorten, slugify, visible
from .sensitive import looks_like_credential

ARCHIVE = "archive"
INBOX = "inbox"  # where a memory goes that fits no folder yet: the gardener files it
INDEX = "index.md"
_STOP = (
    frozenset(stopwords_for_language("en"))
    | frozenset(stopwords_for_language("es"))
    | {
        "also",
        "would",
        "like",
        "get",
        "got",
        "one",
        "two",
        "use",
        "used",
        "uses",
        "using",
        "new",
        "really",
        "yes",
        "just",
        "lot",
        "much",
        "thing",
        "things",
        "know",
        "think",
        "make",
        "made",
        "well",
        "still",
        "even",
        "way",
        "want",
        "going",
        "good",
        "great",
        "thanks",
        "hey",
        "oh",
        "wow",
        "that's",
        "it's",
        "i'm",
        "you're",
        "can't",
        "don't",
        "it",
        "i",
        "s",
        "t",
        "must",
        "should",
        "could",
        "might",
        "shall",
        "will",
        "can",
        "may",
        "already",
        "around",
        "maybe",
        "pretty",
        "quite",
        "always",
        "never",
        "sometimes",
        "often",
        "every",
        "something",
        "anything",
        "everything",
        "nothing",
        "see",
        "look",
        "let",
        "tell",
        "said",
        "say",
        "feel",
        "felt",
        "take",
        "took",
        "come",
        "came",
        "went",
        "sure",
        "right",
        "awesome",
        "amazing",
        "cool",
        "nice",
        "glad",
        "love",
        "totally",
        "definitely",
    }
)
_WORD = re.compile(r"[^\W\d_][\w'-]*|\d+[a-z]\w*", re.UNICODE)


# --- keywords ------------------------------------------------------------------------------------
def tokens(text: str) -> list[str]:
    """Content words, folded; CJK runs cut into words as search cuts them (`text.cjk_words`)."""
    text = fold(text)
    out = []
    for run in CJK_RUN.findall(text):
        out += cjk_words(run)
    for w in _WORD.findall(CJK_RUN.sub(" ", text)):
        w = w.strip("'-")
        if len(w) > 2 and w not in _STOP and w not in clustering.FILLER:
            out.append(w)
    return out


def keywords(title: str, body: str, tags: list[str], n: int = 8) -> list[str]:
    """The words that say what a memory is about: title and tags count thrice, body once."""
    counts = Counter(tokens(body))
    for w in tokens(title) + [fold(t) for t in tags]:
        counts[w] += 3
    # a summary and the site show keywords: a token shaped like a credential is never one
    ranked = (w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if not looks_like_credential(w))
    return [w for _, w in zip(range(n), ranked)]


# --- topics --------------------------------------------------------------------------------------
def clean_topic(topic: str, max_depth: int) -> str:
    """A caller's topic as a vault-relative folder: 'Work/Infrastructure' → 'work/infrastructure'."""
    raw = topic.strip()
    if "\0" in raw:
        raise BadInput("--topic: contains a NUL byte; give a folder path such as work/infrastructure")
    if raw.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", raw):
        raise BadInput(f"--topic {topic!r}: must be a path inside the vault such as work/infrastructure, not absolute")
    parts = [p for p in re.split(r"[/\\]", raw) if p.strip()]
    if any(p.strip() in (".", "..") for p in parts):
        raise BadInput(f"--topic {topic!r}: '..' and '.' are not allowed; give a path inside the vault")
    if any(p.strip().lower().split(".")[0] in WINDOWS_RESERVED for p in parts):
        raise BadInput(f"--topic {topic!r}: uses a name Windows reserves (con, nul, com1, ...); choose another")
    parts = [slugify(p) for p in parts]
    if any(p.startswith(".") for p in parts):
        raise BadInput(f"--topic {topic!r}: hidden folders are not topics")
    if len(parts) > max_depth:
        raise BadInput(f"--topic {topic!r}: deeper than the vault's max_depth of {max_depth}; use a shorter path")
    return "/".join(parts)


def depth(folder: str) -> int:
    return 0 if not folder else folder.count("/") + 1


def summary_path(folder: str) -> str:
    """The vault path of a folder's generated summary ('' is the root: 'index.md')."""
    return f"{folder}/{INDEX}" if folder else INDEX


def folder_of(path: str) -> str:
    """The folder a vault path is in ('' for the root)."""
    return path.rpartition("/")[0]


def bottom_up(folders) -> list[str]:
    """Folders deepest first (then by name): the order summaries are regenerated in, since a
    parent's summary reads its children's."""
    return sorted(set(folders), key=lambda f: (-depth(f), f))


def parents(folder: str) -> list[str]:
    """The folder and every folder above it, deepest first, ending with the root ''."""
    chain = []
    while folder:
        chain.append(folder)
        folder = folder.rpartition("/")[0]
    return chain + [""]


# Words a folder name spells in lower case that people write otherwise ("ci" is CI, not "Ci").
ACRONYMS = {
    "ai",
    "api",
    "apis",
    "aws",
    "cd",
    "cdn",
    "ci",
    "cli",
    "cpu",
    "crm",
    "css",
    "db",
    "dns",
    "etl",
    "faq",
    "gcp",
    "gpu",
    "hr",
    "html",
    "http",
    "https",
    "iot",
    "json",
    "jwt",
    "k8s",
    "llm",
    "mcp",
    "ml",
    "nlp",
    "os",
    "pr",
    "qa",
    "rss",
    "sdk",
    "seo",
    "sla",
    "sql",
    "sre",
    "ssh",
    "ssl",
    "tls",
    "ui",
    "url",
    "ux",
    "vm",
    "vpn",
    "xml",
}
SPELLINGS = {
    "devops": "DevOps",
    "github": "GitHub",
    "gitlab": "GitLab",
    "graphql": "GraphQL",
    "ios": "iOS",
    "javascript": "JavaScript",
    "macos": "macOS",
    "mysql": "MySQL",
    "postgresql": "PostgreSQL",
    "typescript": "TypeScript",
}


def humanize(name: str) -> str:
    """A folder's name as a title: words split at - and _, the first capitalised, known acronyms and
    names spelled as people write them ("ci-cd" is "CI CD", "github" "GitHub")."""
    words = name.replace("-", " ").replace("_", " ").split()
    text = " ".join(w.upper() if w.lower() in ACRONYMS and w.islower() else SPELLINGS.get(w, w) for w in words)
    return text[:1].upper() + text[1:] if text else name.strip()


@dataclass
class FolderInfo:
    """What a parent needs to know of a subfolder: read from the subfolder's own index.md."""

    name: str
    title: str
    count: int
    keywords: list[str] = field(default_factory=list)


def placement_score(memory_keywords: list[str], folder: FolderInfo) -> float:
    name_words = set(tokens(folder.name.replace("-", " ")))
    folder_words = set(folder.keywords[:20])
    score = 0.0
    for rank, w in enumerate(memory_keywords):
        weight = 1.0 if rank < 3 else 0.6
        if w in name_words:
            score += 2 * weight
        elif w in folder_words:
            score += weight
    return score


# --- splits --------------------------------------------------------------------------------------
def stem_counts(held: Counter) -> Counter:
    """Keyword counts folded to their stems (plurals with their singular)."""
    out: Counter = Counter()
    for w, k in held.items():
        if k > 0:
            out[clustering.stem(w)] += k
    return out


def theme(held: Counter, n: int, branch_factor: int) -> set[str]:
    """The vault's theme: stems more than a quarter of its `n` memories hold (`held`: stem → how
    many; the vault counted as at least 4 branch factors of memories). Such a word names no
    subtopic: a folder named by it would draw in a quarter of the vault and tell nothing apart."""
    n = max(n, 4 * branch_factor)
    return {w for w, k in held.items() if 4 * k > n}


def plan_split(
    rows: list, existing: set[str], branch_factor: int, min_group: int = 3, vault_theme: AbstractSet[str] = frozenset()
) -> dict[str, list[str]]:
    """Group a crowded folder's memories into subtopics (`clustering.plan`: TF-IDF + spherical
    k-means, each group named by a phrase its members share, never by a word of the folder's path
    or of the `vault_theme`); {subfolder name: member paths}. A group named like an existing
    subfolder joins it; what fits no subtopic stays."""
    if len(rows) <= branch_factor:
        return {}
    folder = rows[0]["path"].rpartition("/")[0]
    own = _path_stems(folder) | set(vault_theme)
    texts = [_row_text(r) for r in rows]
    groups, _left = clustering.plan(texts, branch_factor, _STOP, own | {ARCHIVE, INBOX}, min_group)
    same = {_name_key(n): n for n in sorted(existing - {ARCHIVE, INBOX})}  # "llms" joins an existing "llm"
    out: dict[str, list[str]] = {}
    for name, members in groups.items():
        out.setdefault(same.get(_name_key(name), name), []).extend(rows[i]["path"] for i in members)
    return {name: sorted(paths) for name, paths in out.items()}


def _path_stems(folder: str) -> set[str]:
    """The words of a folder's path, stemmed: none names a subtopic under it."""
    return {clustering.stem(w) for part in folder.split("/") for w in tokens(part.replace("-", " "))}


def _row_text(row: dict) -> str:
    """What a catalog row says, for clustering: its text, else its keywords."""
    return row.get("text") or " ".join(row["keywords"])


def split_into(folder: str) -> str:
    """Where a crowded folder's subtopics go: under it, except the inbox's, which are top folders
    (so one named like an existing top folder joins it: "agents" joins "agent")."""
    return "" if folder == INBOX else folder


def _name_key(name: str) -> str:
    return "-".join(clustering.stem(w) for w in name.split("-"))


MARGIN = 0.1  # how much closer another folder's centre must be before the gardener re-files a memory there


def misplaced(rows: list, sources: set[str], margin: float = MARGIN) -> dict[str, str]:
    """{path: folder} for each movable memory (`row["movable"]`: placement or the gardener chose its
    folder) of a folder among `sources` that another folder of `rows` clearly fits better
    (`clustering.misfits`). Neither the inbox nor the archive is a folder to compare with."""
    rows = [r for r in rows if folder_of(r["path"]) != INBOX and r["path"].split("/")[0] != ARCHIVE]
    home = [folder_of(r["path"]) for r in rows]
    movable = {i for i, r in enumerate(rows) if r.get("movable") and home[i] in sources}
    if not movable:
        return {}
    texts = [_row_text(r) for r in rows]
    return {rows[i]["path"]: f for i, f in clustering.misfits(texts, home, movable, _STOP, margin).items()}


RENAME_AT = 6  # a folder the gardener made is renamed only once it holds this many memories


def misnamed(rows: list, folders: set[str], vault_theme: AbstractSet[str] = frozenset()) -> dict[str, str]:
    """{folder: new name} for each of `folders` whose name fewer than a third of its memories still
    hold, where a phrase half of them share names it (`clustering.name_groups`, told apart from the
    memories of its sibling folders among `rows`, never a word of its parent's path nor a sibling's
    name). A folder the gardener named on its first few memories drifts as placement files more
    into it; this names it for what it holds now."""
    by: dict[str, list[str]] = {}
    for r in rows:
        by.setdefault(folder_of(r["path"]), []).append(_row_text(r))
    out: dict[str, str] = {}
    for folder in sorted(folders):
        texts = by.get(folder, [])
        if len(texts) < RENAME_AT:
            continue
        held = [clustering.phrases(t, _STOP) for t in texts]
        if 3 * clustering.holding(held, folder.rpartition("/")[2]) >= len(texts):
            continue
        parent = folder_of(folder)
        siblings = [f for f in by if f != folder and folder_of(f) == parent]
        own = _path_stems(parent) | set(vault_theme)
        contrast = [t for f in siblings for t in by[f]]
        new = clustering.name_groups(
            texts + contrast,
            [list(range(len(texts)))],
            _STOP,
            own,
            theme=1.0,
            held=held + [clustering.phrases(t, _STOP) for t in contrast],
        )[0]
        taken = {_name_key(f.rpartition("/")[2]) for f in siblings} | {_name_key(n) for n in out.values()}
        if new and _name_key(new) not in taken and 2 * clustering.holding(held, new) >= len(texts):
            out[folder] = new
    return out


# --- summaries -----------------------------------------------------------------------------------
def _link(target: str, here: str) -> str:
    rel = os.path.relpath(target, here or ".").replace(os.sep, "/")
    return quote(rel, safe="/#-_.~") if re.search(r"[\s()<>]", rel) else rel


def folder_keywords(rows: list, subfolders: list[FolderInfo], n: int = 10) -> list[str]:
    scores: defaultdict[str, float] = defaultdict(float)
    for r in rows:
        for rank, w in enumerate(r["keywords"][:6]):
            scores[w] += 1.0 / (1 + rank * 0.3)
    for sub in subfolders:
        for rank, w in enumerate(sub.keywords[:10]):
            scores[w] += max(1, sub.count) ** 0.5 / (1 + rank * 0.3)
        for w in tokens(sub.name.replace("-", " ")):
            scores[w] += 0.5
    return [w for w, _ in sorted(scores.items(), key=lambda kv: (-round(kv[1], 6), kv[0]))[:n]]


def sort_key(r) -> tuple:
    return (r["status"] != "active", "~" if not r["date"] else "", _neg(r["date"] or ""), r["title"].lower(), r["path"])


def _neg(s: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in s)


GENERATED_BELOW = "<!-- generated below: a description written above this line is kept -->"


def description_of(index_text: str) -> str:
    """The description a person or an agent wrote in a folder's index.md, between its heading and
    the generated part ('' when there is none)."""
    body = (
        index_text.split("\n---\n", 1)[1] if index_text.startswith("---\n") and "\n---\n" in index_text else index_text
    )
    if GENERATED_BELOW not in body:
        return ""
    above = body.split(GENERATED_BELOW, 1)[0].strip().splitlines()
    if above and above[0].startswith("# "):
        above = above[1:]
    return "\n".join(above).strip()


def about_words(kws: list[str]) -> list[str]:
    """The keywords a person reads in an "About" line: no filler word, no CJK character pair (a
    real segmenter's words would do; pairs are meaningless to read)."""
    return [w for w in kws if not clustering.is_filler(w, _STOP) and not CJK_RUN.fullmatch(w)]


def rest_after_title(title: str, line: str) -> str:
    """A memory's first line without the title it repeats ("" when the title is all it says)."""
    t = title.rstrip(".…").strip()
    if t and line.startswith(t):
        return line[len(t) :].lstrip(" .,;:-–—")
    return line


def render_summary(
    folder: str, title: str, rows: list, subfolders: list[FolderInfo], lookup, description: str = ""
) -> tuple[str, FolderInfo]:
    """The `index.md` text of a folder, and what its parent needs to know of it.

    `rows` are the folder's direct memories (catalog rows), `subfolders` its children,
    `lookup(id)` finds the row of a correction anywhere in the vault (or None); `description`, the
    text a person or an agent wrote for the folder, is kept first, above the generated part.
    """
    total = len(rows) + sum(s.count for s in subfolders)
    kws = folder_keywords(rows, subfolders)
    name = folder.rpartition("/")[2]
    info = FolderInfo(name=name, title=title, count=total, keywords=kws)
    lines = [f"# {title}", ""] + ([description, "", GENERATED_BELOW, ""] if description else [])
    dates = sorted(r["date"] for r in rows if r["date"])
    readable = about_words(kws)
    about = f"About {', '.join(readable[:6])}. " if readable else ""
    topics = f"{len(subfolders)} {'subtopic' if len(subfolders) == 1 else 'subtopics'}"
    if subfolders and rows:
        where = f"{total} memories: {len(rows)} here, {total - len(rows)} in {topics}"
    else:
        where = f"{total} {'memory' if total == 1 else 'memories'}" + (f" in {topics}" if subfolders else "")
    span = f", {dates[0][:7]} to {dates[-1][:7]}" if dates and dates[0][:7] != dates[-1][:7] else ""
    lines.append(f"{about}{where}{span}." if total else "No memories yet.")
    ordered = sorted(rows, key=sort_key)
    current = [r for r in ordered if r["status"] == "active"]
    if current:
        r = next((r for r in current if r["pinned"]), current[0])
        rest = rest_after_title(r["title"], r["first_line"] or "")
        lines += [
            "",
            f"> **{r['title']}**{' (' + r['date'] + ')' if r['date'] else ''}"
            f"{' — ' + shorten(rest, 160) if rest else ''}",
        ]
    if subfolders:
        lines += ["", "## Topics", ""]
        for s in sorted(subfolders, key=lambda s: s.name):
            kw = f" · {', '.join(about_words(s.keywords)[:5])}" if about_words(s.keywords) else ""
            lines.append(
                f"- [{s.title}]({_link(f'{folder}/{s.name}/{INDEX}' if folder else f'{s.name}/{INDEX}', folder)})"
                f" — {s.count} {'memory' if s.count == 1 else 'memories'}{kw}"
            )
    if rows:
        lines += ["", "## Memories", ""]
        for r in ordered:
            when = f"{r['date']} · " if r["date"] else ""
            link = f"[{r['title']}]({_link(r['path'], folder)})"
            mark = " (pinned)" if r["pinned"] else ""
            if r["status"] == "outdated":
                fix = [lookup(i) for i in r["superseded_by"]]
                fix = [f for f in fix if f]
                to = f" → [{fix[0]['title']}]({_link(fix[0]['path'], folder)})" if fix else ""
                lines.append(f"- ~~{when}{link}~~ — OUTDATED{to}")
            else:
                rest = rest_after_title(r["title"], r["first_line"] or "")
                tail = f" — {shorten(rest, 100)}" if rest else ""
                lines.append(f"- {when}{link}{mark}{tail}")
    fields = {"generated": True, "title": title, "memories": total, "keywords": kws}
    # a title a person typed by hand may hold bidi controls or zero-width characters: never in a summary
    return compose(fields, visible("\n".join(lines) + "\n")), info


STRONG = 1.6  # placement evidence: a word of the folder's name, or two of its distinctive keywords
LOOKAHEAD = 2  # folders of a level whose own subfolders are weighed when none of the level fits strongly,
LOOKAHEAD_STRONG = 1.25  # ... and how much stronger a fit found below must be (at 1: the inbox of org-dev
# one by one grows past 3 branch factors, the memories that would make new folders drawn into old ones)
MEANING_VETO = 8.0  # per unit of cosine below the siblings' mean (org-dev one by one: F 0.316 → 0.328 with
# the lookahead; a bonus for the nearer folder measured only harm, F −0.03: a small model's nearness is too
# coarse to file by)
COMMON = 8  # a keyword more than one memory in 8 of the vault holds is weaker evidence (`Placer.commonness`)
TYPE_FOLDERS = {
    "decision": "decisions",
    "preference": "preferences",
    "person": "people",
    "project": "projects",
    "procedure": "procedures",
    "event": "events",
}


def _best_first(scored: list[tuple[float, str]]) -> list[tuple[float, str]]:
    return sorted(((round(score, 6), k) for score, k in scored), key=lambda sk: (-sk[0], sk[1]))


class Placer:
    """Descends the tree to the folder that best fits a memory's keywords (DESIGN.md, placement).

    Keeps its own view of folder keywords during a bulk save, so memories placed early in a batch
    guide the placement of later ones before any summary is regenerated.
    """

    def __init__(
        self,
        subfolders: Callable[[str], list[str]],
        folder_info: Callable[[str], FolderInfo | None],
        branch_factor: int,
        max_depth: int,
        holders: Callable[[], tuple[Counter, int]] = lambda: (Counter(), 0),
        near: Callable[[str], dict[str, float]] = lambda text: {},
    ):
        self.subfolders = subfolders
        self.near = near  # text → each folder's cosine to it in meaning ({} without a model)
        self.text = ""  # the memory being placed ...
        self.closeness: dict[str, float] | None = None  # ... and its folders' cosines, asked when first needed
        self.holders = holders  # (keyword → memories holding it, memories), read when first needed
        self.held: Counter | None = None  # stem → how many of the vault's memories hold it
        self.memories = 0
        self.folder_info = folder_info
        self.branch_factor = branch_factor
        self.max_depth = max_depth
        self.info: dict[str, FolderInfo] = {}
        self.children: dict[str, list[str]] = {}
        self.extra: dict[str, Counter] = {}
        self.last: list[tuple[float, str]] = []  # the root's folders ranked for the last placement

    def _kids(self, folder: str) -> list[str]:
        if folder not in self.children:
            names = self.subfolders(folder)
            if not folder:
                names = [n for n in names if n != ARCHIVE]
            self.children[folder] = [f"{folder}/{n}" if folder else n for n in names]
        return self.children[folder]

    def _info(self, folder: str) -> FolderInfo:
        if folder not in self.info:
            self.info[folder] = self.folder_info(folder) or FolderInfo(folder.rpartition("/")[2], "", 0, [])
        info = self.info[folder]
        extra = self.extra.get(folder)
        if extra:
            merged = Counter({w: 20 - i for i, w in enumerate(info.keywords[:20])}) + extra
            info = FolderInfo(
                info.name,
                info.title,
                info.count,
                [w for w, _ in sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))[:20]],
            )
        return info

    def _load_held(self) -> Counter:
        if self.held is None:
            raw, self.memories = self.holders()
            self.held = stem_counts(raw)
        return self.held

    def commonness(self, word: str) -> float:
        """How much a keyword tells one topic from another across the whole vault: 1 for a word
        at most one memory in COMMON holds, falling towards 0 as more of the vault holds it (a word
        every memory shares says nothing of where one goes). The vault counts as at least
        4 branch factors of memories, so a young vault discounts nothing much."""
        held = self._load_held()[word]
        n = max(self.memories, 4 * self.branch_factor)
        if held * COMMON <= n:
            return 1.0
        return max(0.0, math.log(n / held) / math.log(COMMON))

    def ranked(self, folder: str, kws: list[str]) -> list[tuple[float, str]]:
        """The folder's subfolders by how well they fit the keywords, best first, the meaning's veto
        applied (`_vetoed`)."""
        return _best_first(self._vetoed(self._fits(folder, kws)))

    def _fits(self, folder: str, kws: list[str]) -> list[tuple[float, str]]:
        """How well each of the folder's subfolders fits the keywords, by the words. A keyword that
        many siblings share is weak evidence, and so is one a large share of the whole vault's
        memories hold (`commonness`); one in a folder's name is strong."""
        kids = [k for k in self._kids(folder) if k not in (ARCHIVE, INBOX)]
        infos = {k: self._info(k) for k in kids}
        words = {
            k: (
                {clustering.stem(w) for w in tokens(i.name.replace("-", " "))},
                {clustering.stem(w) for w in i.keywords[:20]},
            )
            for k, i in infos.items()
        }
        df = Counter(w for name, kw in words.values() for w in name | kw)
        total = len(kids)
        out = []
        for k in kids:
            name, kw = words[k]
            score = 0.0
            for rank, w in enumerate(dict.fromkeys(clustering.stem(x) for x in kws)):
                if w in name or w in kw:
                    idf = math.log(1 + total / df[w]) / math.log(1 + total) if total > 1 else 1.0
                    score += (1.0 if rank < 3 else 0.6) * idf * (2 if w in name else 1) * self.commonness(w)
            out.append((score, k))
        return out

    def _vetoed(self, scored: list[tuple[float, str]]) -> list[tuple[float, str]]:
        """The words' scores less `MEANING_VETO` per unit of cosine a folder's memories stand below
        its siblings' (on average) from the memory being placed: the words fit, the meaning does not.
        Where the words fit nothing there is nothing to veto (and the model is not asked)."""
        if not any(score > 0 for score, _k in scored):
            return scored
        if self.closeness is None:
            self.closeness = self.near(self.text) if self.text else {}
        near = {k: self.closeness[k] for _score, k in scored if k in self.closeness}
        if len(near) < 2:
            return scored
        mean = sum(near.values()) / len(near)
        return [(score - MEANING_VETO * max(0.0, mean - near.get(k, mean)), k) for score, k in scored]

    def place(self, kws: list[str], type_: str = "note", strong: float = STRONG, text: str = "") -> str:
        """Into the best folder when the evidence is strong (descending while it stays strong),
        else into the default for the memory's type (an existing folder of that name, wherever it
        is, or a new top folder), else the inbox the gardener files later. Never a new folder named
        after one of the memory's words.

        A parent's summary is broader than its subfolders' ("personal" lists climbing among six
        subjects): when no folder of a level fits strongly, the subfolders of its `LOOKAHEAD` best
        folders that the words touch are weighed too, and theirs, so a memory about climbing
        finds `personal/climbing` though `personal` alone is weak evidence.

        `text` (the memory's) lets the meaning veto what the words propose: a folder whose memories
        are further from it than its siblings' loses (`MEANING_VETO`). The meaning never files a
        memory by itself."""
        self.text, self.closeness = text, None
        folder = ""
        fits = self._fits("", kws)
        self.last = _best_first(fits)  # the runners-up a save names are the words'
        top = _best_first(self._vetoed(fits))
        while depth(folder) < self.max_depth:
            scored = self.ranked(folder, kws) if folder else top
            if scored and scored[0][0] >= strong:
                folder = scored[0][1]
                continue
            below = self._below(scored, kws, LOOKAHEAD_STRONG * strong)
            if below is None:
                break
            folder = below
        return folder or self.default(type_)

    def _below(self, scored: list[tuple[float, str]], kws: list[str], strong: float) -> str | None:
        """The deepest strong fit under the `LOOKAHEAD` best of `scored` that the words touch at all."""
        for score, k in scored[:LOOKAHEAD]:
            if score <= 0 or depth(k) >= self.max_depth:
                continue
            under = self.ranked(k, kws)
            if under and under[0][0] >= strong:
                return under[0][1]
            deeper = self._below(under, kws, strong)
            if deeper is not None:
                return deeper
        return None

    def default(self, type_: str) -> str:
        name = TYPE_FOLDERS.get(type_)
        if not name:
            return INBOX
        for top in self._kids(""):
            if top.rpartition("/")[2] == name:
                return top
            for sub in self._kids(top):
                if sub.rpartition("/")[2] == name:
                    return sub
        return name

    def add(self, folder: str, kws: list[str]) -> None:
        self._load_held().update({clustering.stem(w) for w in kws})
        self.memories += 1
        for f in parents(folder):
            if f:
                self.extra.setdefault(f, Counter()).update({w: 3 for w in kws[:6]})
                parent = f.rpartition("/")[0]
                if f not in self._kids(parent) and not (not parent and f == ARCHIVE):
                    self.children[parent].append(f)
