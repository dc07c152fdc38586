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

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import quote

from whoosh.lang import stopwords_for_language

from .errors import BadInput
from .notes import WINDOWS_RESERVED, compose, shorten, slugify
from .sensitive import looks_like_credential
from .text import CJK_RUN, cjk_words, fold

ARCHIVE = "archive"
INDEX = "index.md"
_STOP = (frozenset(stopwords_for_language("en")) | frozenset(stopwords_for_language("es"))
         | {"also", "would", "like", "get", "got", "one", "two", "use", "used", "uses", "using", "new",
            "really", "yes", "just", "lot", "much", "thing", "things", "know", "think", "make", "made",
            "well", "still", "even", "way", "want", "going", "good", "great", "thanks", "hey", "oh",
            "wow", "that's", "it's", "i'm", "you're", "can't", "don't", "it", "i", "s", "t", "must", "should",
            "could", "might", "shall", "will", "can", "may", "already", "around", "maybe", "pretty", "quite",
            "always", "never", "sometimes", "often", "every", "something", "anything", "everything", "nothing",
            "see", "look", "let", "tell", "said", "say", "feel", "felt", "take", "took", "come", "came", "went",
            "sure", "right", "awesome", "amazing", "cool", "nice", "glad", "love", "totally", "definitely"})
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
        if len(w) > 2 and w not in _STOP:
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
ACRONYMS = {"ai", "api", "apis", "aws", "cd", "cdn", "ci", "cli", "cpu", "crm", "css", "db", "dns", "etl", "faq",
            "gcp", "gpu", "hr", "html", "http", "https", "iot", "json", "jwt", "k8s", "llm", "mcp", "ml", "nlp",
            "os", "pr", "qa", "rss", "sdk", "seo", "sla", "sql", "sre", "ssh", "ssl", "tls", "ui", "url", "ux",
            "vm", "vpn", "xml"}
SPELLINGS = {"devops": "DevOps", "github": "GitHub", "gitlab": "GitLab", "graphql": "GraphQL", "ios": "iOS",
             "javascript": "JavaScript", "macos": "macOS", "mysql": "MySQL", "postgresql": "PostgreSQL",
             "typescript": "TypeScript"}


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
def plan_split(rows: list, existing: set[str], branch_factor: int, min_group: int = 3) -> dict[str, list[str]]:
    """Group a crowded folder's memories into subtopics by shared keywords.

    Greedy: the keyword shared by the most remaining memories becomes a subfolder (or joins an
    existing one of that name), until the folder fits or nothing is shared by `min_group`.
    Keywords most memories share (the folder's own theme) are not distinctive and are skipped.
    """
    if len(rows) <= branch_factor:
        return {}
    limit = max(2, int(len(rows) * 0.6))
    folder = rows[0]["path"].rpartition("/")[0]
    own = {w for part in folder.split("/") for w in tokens(part.replace("-", " "))}  # "must" inside "must/"
    remaining = {r["path"]: set(r["keywords"][:6]) - own for r in rows}
    groups: dict[str, list[str]] = {}
    while len(remaining) > branch_factor // 2 and len(groups) < branch_factor // 2:
        counts = Counter(w for ws in remaining.values() for w in ws)
        best = [(c, w) for w, c in counts.items() if min_group <= c <= limit and slugify(w) not in groups]
        if not best:
            break
        _, word = max(best, key=lambda cw: (cw[0], -len(cw[1]), cw[1]))
        name = slugify(word)
        members = sorted(p for p, ws in remaining.items() if word in ws)
        groups[name] = members
        for p in members:
            del remaining[p]
    return groups


# --- summaries -----------------------------------------------------------------------------------
def _link(target: str, here: str) -> str:
    rel = os.path.relpath(target, here or ".").replace(os.sep, "/")
    return quote(rel, safe="/#-_.~") if re.search(r"[\s()<>]", rel) else rel


def folder_keywords(rows: list, subfolders: list[FolderInfo], n: int = 10) -> list[str]:
    scores: Counter = Counter()
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


def render_summary(folder: str, title: str, rows: list, subfolders: list[FolderInfo], lookup) -> tuple[str, FolderInfo]:
    """The `index.md` text of a folder, and what its parent needs to know of it.

    `rows` are the folder's direct memories (catalog rows), `subfolders` its children,
    `lookup(id)` finds the row of a correction anywhere in the vault (or None).
    """
    total = len(rows) + sum(s.count for s in subfolders)
    kws = folder_keywords(rows, subfolders)
    name = folder.rpartition("/")[2]
    info = FolderInfo(name=name, title=title, count=total, keywords=kws)
    lines = [f"# {title}", ""]
    dates = sorted(r["date"] for r in rows if r["date"])
    about = f"About {', '.join(kws[:6])}. " if kws else ""
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
        lines += ["", f"> **{r['title']}**{' (' + r['date'] + ')' if r['date'] else ''}"
                      f"{' — ' + shorten(r['first_line'], 160) if r['first_line'] else ''}"]
    if subfolders:
        lines += ["", "## Topics", ""]
        for s in sorted(subfolders, key=lambda s: s.name):
            kw = f" · {', '.join(s.keywords[:5])}" if s.keywords else ""
            lines.append(f"- [{s.title}]({_link(f'{folder}/{s.name}/{INDEX}' if folder else f'{s.name}/{INDEX}', folder)})"
                         f" — {s.count} {'memory' if s.count == 1 else 'memories'}{kw}")
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
                tail = f" — {shorten(r['first_line'], 100)}" if r["first_line"] else ""
                lines.append(f"- {when}{link}{mark}{tail}")
    fields = {"generated": True, "title": title, "memories": total, "keywords": kws}
    return compose(fields, "\n".join(lines) + "\n"), info


class Placer:
    """Descends the tree to the folder that best fits a memory's keywords (DESIGN.md, placement).

    Keeps its own view of folder keywords during a bulk save, so memories placed early in a batch
    guide the placement of later ones before any summary is regenerated.
    """

    def __init__(self, subfolders: Callable[[str], list[str]], folder_info: Callable[[str], "FolderInfo | None"],
                 branch_factor: int, max_depth: int):
        self.subfolders = subfolders
        self.folder_info = folder_info
        self.branch_factor = branch_factor
        self.max_depth = max_depth
        self.info: dict[str, FolderInfo] = {}
        self.children: dict[str, list[str]] = {}
        self.extra: dict[str, Counter] = {}

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
            info = FolderInfo(info.name, info.title, info.count,
                                   [w for w, _ in sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))[:20]])
        return info

    def place(self, kws: list[str]) -> str:
        folder = ""
        while depth(folder) < self.max_depth:
            kids = self._kids(folder)
            scored = sorted(((placement_score(kws, self._info(k)), k) for k in kids), key=lambda sk: (-sk[0], sk[1]))
            best = scored[0] if scored else None
            if not folder:
                if best and best[0] >= 1:
                    folder = best[1]
                elif len(kids) < self.branch_factor:
                    return clean_topic(kws[0] if kws else "notes", self.max_depth) or "notes"
                else:
                    folder = best[1] if best else "notes"
            elif best and best[0] >= 2:
                folder = best[1]
            else:
                return folder
        return folder

    def add(self, folder: str, kws: list[str]) -> None:
        for f in parents(folder):
            if f:
                self.extra.setdefault(f, Counter()).update({w: 3 for w in kws[:6]})
                parent = f.rpartition("/")[0]
                if f not in self._kids(parent) and not (not parent and f == ARCHIVE):
                    self.children[parent].append(f)
