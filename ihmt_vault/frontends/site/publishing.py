"""What the site publishes: the rules, and the memories and files they let through.

Published: every memory except private ones and, unless `with_archive`, those under `archive/`. A memory
is private when its front matter says so (`private:`, any case, true/yes/on/1) or when a folder above it
holds the marker file `.private` (an archived memory keeps the marker of the folder it came from). Files
other than memories are published only when they are regular files inside the vault (never a symlink)
of a media type, not private, and either referenced by a published memory (Markdown link or image, HTML
src/href, `[[file]]` or `![[file]]`: `links.referenced`) or kept in the top-level `attachments/` folder.
An SVG with scripts is never published.
"""

from __future__ import annotations

import html
import logging
import os
import re
import stat
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from ...storage import tree
from ...storage.layout import ATTACHMENT_EXTS
from ...vault import Vault

# Files a memory may reference and have published (media and plain data, nothing the browser runs) ...
ASSET_EXTS = ATTACHMENT_EXTS
# ... and the folder published whole, where a person keeps attachments (Obsidian's usual name) and the
# stylesheets or scripts their own mkdocs.yml names. Not `assets/`: that is the theme's folder in the
# built site, and a vault file there would replace Material's own JavaScript on every page.
ATTACHMENTS = "attachments"
ATTACHMENT_EXTS = ASSET_EXTS | {".css", ".js"}
PRIVATE_MARKER = ".private"  # an empty file: everything in its folder and below is private
log = logging.getLogger("mkdocs.plugins.ihmt")  # captured by build_site() like mkdocs' own warnings


@dataclass
class Entry:
    """A memory as the site knows it: published, or held back (and then never shown)."""

    path: str
    id: str
    title: str
    type: str = ""
    date: str = ""
    status: str = "active"
    tags: list[str] = field(default_factory=list)
    pinned: bool = False
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    hidden: str = ""  # "" (published), "private" or "archived"

    @property
    def folder(self) -> str:
        return self.path.rpartition("/")[0]


def _truthy(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "on")
    return bool(value)


def private_meta(meta: dict) -> bool:
    """`private:` in any case (`Private`, `PRIVATE`) with a truthy value (true/yes/on/1, YAML's or a string)."""
    return any(isinstance(k, str) and k.strip().lower() == "private" and _truthy(val) for k, val in meta.items())


def under_private(path: str, private_dirs: AbstractSet[str]) -> bool:
    """Whether vault path `path` lies in a folder marked private (`''` is the vault's root). An archived
    memory keeps its folder's mark: `archive/a/b/x.md` is private when `a/.private` exists."""
    if not private_dirs:
        return False
    folders = tree.parents(path.rpartition("/")[0])
    if path.split("/")[0] == tree.ARCHIVE:
        folders += tree.parents(path.partition("/")[2].rpartition("/")[0])
    return any(f in private_dirs for f in folders)


def safe_file(root: Path, rel: str, dirs: dict[str, bool] | None = None) -> Path | None:
    """The file at vault path `rel` if it may be published: a regular file inside the vault, reached
    through no symlink and no hidden folder (.git, .ihmt, .obsidian); else None. With no `..` and no
    symlinked part below the root, the file cannot resolve outside the vault. `dirs` caches the
    folders already checked (one build)."""
    parts = rel.split("/")
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        return None
    dirs = {} if dirs is None else dirs
    base = str(root)
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        ok = dirs.get(sub) if i < len(parts) else None
        if ok is None:
            try:
                mode = os.lstat(os.path.join(base, sub)).st_mode
            except OSError:
                return None
            # a link to /etc/passwd, or to a folder outside the vault, is never followed
            ok = stat.S_ISDIR(mode) if i < len(parts) else stat.S_ISREG(mode)
            if i < len(parts):
                dirs[sub] = ok
        if not ok:
            return None
    return root / rel


def read_entries(
    v: Vault, with_archive: bool, private_dirs: set[str]
) -> tuple[list[Entry], list[dict], dict[str, str]]:
    """Every memory as an Entry, the catalog rows of the published ones, and their bodies (by path)."""
    entries: list[Entry] = []
    rows: list[dict] = []
    bodies: dict[str, str] = {}
    dirs: dict[str, bool] = {}  # safe_file's cache of the folders already checked
    for r in v.memories.list():
        m = v.memories.get(r["path"])
        meta = m.meta
        # A memory reached through a symlinked folder (or not a regular file) is withheld like a private one.
        private = (
            private_meta(meta) or under_private(r["path"], private_dirs) or safe_file(v.root, r["path"], dirs) is None
        )
        hidden = "private" if private else ""
        if not hidden and not with_archive and r["folder"].split("/")[0] == tree.ARCHIVE:
            hidden = "archived"
        aliases = meta.get("aliases") or []
        e = Entry(
            path=r["path"],
            id=r["id"],
            title=r["title"],
            type=r.get("type") or "",
            date=r.get("date") or "",
            status=r.get("status") or "active",
            tags=[str(t) for t in r.get("tags") or []],
            pinned=bool(r.get("pinned")),
            supersedes=list(r.get("supersedes") or []),
            superseded_by=list(r.get("superseded_by") or []),
            aliases=[str(a) for a in (aliases if isinstance(aliases, list) else [aliases])],
            hidden=hidden,
        )
        entries.append(e)
        if not hidden:
            rows.append(r)
            bodies[r["path"]] = m.body
    return entries, rows, bodies


def scan_files(root: Path, with_archive: bool, skip: set[Path]) -> tuple[set[str], dict[str, Path]]:
    """The folders marked private, and every file that may be published: regular files of a media type
    (or anything of ATTACHMENT_EXTS under attachments/), outside hidden folders, private folders, skipped
    folders, and archive/ unless `with_archive`. Symlinks are never followed nor listed."""
    private: set[str] = set()
    found: dict[str, Path] = {}
    dirs: dict[str, bool] = {}
    for dirpath, dirnames, filenames in os.walk(root):  # os.walk does not descend into symlinked folders
        here = Path(dirpath)
        rel = here.relative_to(root).as_posix()
        rel = "" if rel == "." else rel
        if PRIVATE_MARKER in filenames or PRIVATE_MARKER in dirnames:
            private.add(rel)
            dirnames[:] = []  # nothing below is published: no need to look
            continue
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and (here / d) not in skip
            and not (here == root and d == tree.ARCHIVE and not with_archive)
        )
        attached = rel.split("/")[0] == ATTACHMENTS
        for name in filenames:
            ext = os.path.splitext(name)[1].lower()
            if name.startswith(".") or ext not in (ATTACHMENT_EXTS if attached else ASSET_EXTS):
                continue
            path = f"{rel}/{name}" if rel else name
            file = safe_file(root, path, dirs)
            if file is not None:
                found[path] = file
    # archive/ is walked before the folders its memories came from: their marks apply there too.
    return private, {p: f for p, f in found.items() if not under_private(p, private)}


_ACTIVE_SVG = re.compile(
    r"<script|<foreignobject|<iframe|<embed|<object|<handler|\bon[a-z]+\s*=|javascript:|"
    r"data:text/html|<!entity",
    re.I,
)


def active_svg(file: Path, rel: str) -> bool:
    """An SVG opened by itself runs its scripts on the site's origin: such a file is not published."""
    try:
        text = html.unescape(file.read_bytes().decode("utf-8", "replace"))
    except OSError:
        return True
    if _ACTIVE_SVG.search(re.sub(r"\s+", " ", text)):
        log.warning(f"ihmt: {rel} is not published: an SVG with scripts, event handlers or javascript: links")
        return True
    return False
