"""Links between pages: what a wikilink or a memory's link names, and the relative links written for it."""

from __future__ import annotations

import html
import posixpath
import re
from collections import defaultdict
from collections.abc import Set as AbstractSet
from urllib.parse import quote, unquote

from .markup import WIKILINK, md_text, outside_code
from .publishing import Entry


def name_key(text: str) -> str:
    """A name as links match it: case and runs of white space do not count."""
    return " ".join(str(text).casefold().split())


class Links:
    """Finds what a wikilink names: a path, an id, a file name, a title or an alias (in that order)."""

    def __init__(
        self,
        entries: list[Entry],
        folders: dict[str, str],
        assets: set[str],
        private_dirs: AbstractSet[str] = frozenset(),
    ):
        self.entries = {e.path: e for e in entries}
        self.by_id = {e.id: e for e in entries if e.id}
        self.folders = folders  # published folders (each has an index.md page) -> their titles
        self.assets = assets
        self.asset_names = file_names(assets)
        self.private_dirs = private_dirs
        self._names: dict[str, dict[str, list[Entry]]] = {
            "stem": defaultdict(list),
            "title": defaultdict(list),
            "alias": defaultdict(list),
        }
        for e in entries:
            self._names["stem"][name_key(posixpath.basename(e.path)[:-3])].append(e)
            self._names["title"][name_key(e.title)].append(e)
            for a in e.aliases:
                self._names["alias"][name_key(a)].append(e)

    def published(self, ref: str) -> Entry | None:
        e = self.by_id.get(ref)
        return e if e and not e.hidden else None

    def find(self, target: str, here: str) -> Entry | str | None:
        """The entry a wikilink target names, a folder ('folder/index.md'), an asset path, or None."""
        t = target.strip().replace("\\", "/")
        if t.lower().endswith(".md"):
            t = t[:-3]
        if not t:
            return None
        here_dir = posixpath.dirname(here)
        for base in (here_dir, ""):  # a path relative to the page, then to the vault's root
            p = posixpath.normpath(posixpath.join(base, t.lstrip("/"))) if base else posixpath.normpath(t.lstrip("/"))
            if p.startswith(".."):
                continue
            if f"{p}.md" in self.entries:
                return self.entries[f"{p}.md"]
            if p in self.assets:
                return p
            if (p in self.folders and p) or (p == "." and not base):
                return "index.md" if p == "." else f"{p}/index.md"
        file = find_file(t, here, self.assets, self.asset_names)  # `![[image.png]]` by name, like Obsidian
        if file:
            return file
        if t in self.by_id:
            return self.by_id[t]
        full, last = name_key(t), name_key(t.rpartition("/")[2])  # a title may hold a '/'; a file name cannot
        for kind, name in (("stem", last), ("title", full), ("alias", full)):
            found = self._names[kind].get(name)
            if found:
                # Like Obsidian: the one nearest the page (same folder, then the shortest path).
                return min(found, key=lambda e: (e.folder != here_dir, bool(e.hidden), e.path.count("/"), e.path))
        return None


def file_names(files) -> dict[str, list[str]]:
    """`files` by their file name, casefolded: what `find_file` looks a bare name up in."""
    names: dict[str, list[str]] = defaultdict(list)
    for f in files:
        names[posixpath.basename(f).casefold()].append(f)
    return names


def find_file(target: str, here: str, files: set[str], by_name: dict[str, list[str]]) -> str | None:
    """The file (not a memory) a link from page `here` names, among `files`: a path relative to the page,
    then to the vault's root, then (Obsidian's shortest form) a file name or the end of a path, nearest first."""
    t = target.strip().replace("\\", "/").lstrip("/")
    if not t or not posixpath.splitext(t)[1]:
        return None
    here_dir = posixpath.dirname(here)
    for p in (posixpath.normpath(posixpath.join(here_dir, t)), posixpath.normpath(t)):
        if p in files:
            return p
    tail = t.casefold()
    found = [
        f
        for f in by_name.get(posixpath.basename(tail), ())
        if f.casefold() == tail or f.casefold().endswith("/" + tail)
    ]
    if found:
        return min(found, key=lambda f: (posixpath.dirname(f) != here_dir, f.count("/"), f))
    return None


def href(target: str, here: str) -> str:
    """A relative link from page `here` to `target`, both paths in the docs folder."""
    rel = posixpath.relpath(target, posixpath.dirname(here) or ".")
    return quote(rel, safe="/#-_.~!$&'()*+,;=:@%")


def _unpublished(label: str) -> str:
    return f'<span class="ihmt-unpublished" title="not published on this site">{html.escape(label)}</span>'


def _broken(label: str, target: str) -> str:
    return (
        f'<span class="ihmt-broken" title="broken link: nothing named {html.escape(target, quote=True)}">'
        f"{html.escape(label)}</span>"
    )


_EMBED_SIZE = re.compile(r"(\d{1,5})(?:x(\d{1,5}))?\Z")
_MD_LINK = re.compile(r"(?<![!\\])\[((?:[^\[\]\n]|\\[\[\]])*)\]\(<?([^()<>\s]+?\.md)>?((?:#[^()\s]*)?)\)")


def rewrite_links(markdown: str, here: str, links: Links, slugify=None) -> tuple[str, list[dict]]:
    """Obsidian wikilinks in a page's Markdown become relative links; links to unpublished memories become
    plain text. Returns the new Markdown and the links that resolve to nothing (shown marked, not fatal)."""
    broken: list[dict] = []
    slug = slugify or (lambda s: re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", s).strip().lower()))

    def wikilink(m: re.Match) -> str:
        embed, inner = m.group(1), m.group(2)
        target, sep, alias = inner.replace("\\|", "|").partition("|")  # `\|` inside tables
        target, _, heading = target.partition("#")
        label = alias.strip() if sep else ""
        if not target.strip():  # [[#heading]]: this page
            return f"[{md_text(label or heading.strip())}](#{slug(heading.strip())})" if heading.strip() else m.group(0)
        found = links.find(target, here)
        anchor = f"#{slug(heading.strip())}" if heading.strip() else ""
        if found is None:
            broken.append({"page": here, "target": inner.replace("\\|", "|")})
            return _broken(label or inner, target.strip())
        if isinstance(found, str):  # a folder's summary, or an embedded/linked asset
            if found.endswith("index.md"):
                title = links.folders.get(posixpath.dirname(found), "Home")
                return f"[{md_text(label or title)}]({href(found, here)}{anchor})"
            size = _EMBED_SIZE.match(label) if embed else None  # Obsidian: ![[image.png|300]], |300x200
            if size:
                dims = f'width="{size.group(1)}"' + (f' height="{size.group(2)}"' if size.group(2) else "")
                return f"![{md_text(posixpath.basename(found))}]({href(found, here)}){{ {dims} }}"
            return f"{'!' if embed else ''}[{md_text(label or posixpath.basename(found))}]({href(found, here)})"
        if found.hidden:
            return _unpublished(label or target.strip())
        return f"[{md_text(label or found.title)}]({href(found.path, here)}{anchor})"

    def mdlink(m: re.Match) -> str:
        label, target, anchor = m.groups()
        if "://" in target or target.startswith("/"):
            return m.group(0)
        p = posixpath.normpath(posixpath.join(posixpath.dirname(here), target.replace("%20", " ")))
        e = links.entries.get(p)
        return _unpublished(label.replace("\\[", "[").replace("\\]", "]")) if e is not None and e.hidden else m.group(0)

    def fix(chunk: str) -> str:
        return _MD_LINK.sub(mdlink, WIKILINK.sub(wikilink, chunk)) if "[" in chunk else chunk

    return outside_code(markdown, fix), broken


_REF_MD = re.compile(r"\]\(\s*(?:<([^<>\n]+)>|([^()\s]+))")  # [label](target), ![alt](target)
_REF_DEF = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?([^\s<>]+)>?", re.M)  # [label]: target
_REF_HTML = re.compile(r"""\b(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.I)
_REF_WIKI = re.compile(r"\[\[([^\[\]\n|#]+)")  # [[file]], ![[file]]
_SCHEME = re.compile(r"[A-Za-z][\w+.-]*:")


def referenced(body: str, here: str, files: set[str], by_name: dict[str, list[str]]) -> set[str]:
    """The files among `files` that a memory's body links to or embeds (outside code), as mkdocs and the
    wikilink rewriting resolve them."""
    found: set[str] = set()
    here_dir = posixpath.dirname(here)

    def markdown_target(t: str):
        t = unquote(t.strip().split("#")[0].split("?")[0])
        if not t or t.startswith("/") or _SCHEME.match(t):
            return
        p = posixpath.normpath(posixpath.join(here_dir, t))
        if p in files:  # relative to the page, as mkdocs resolves it; never above the vault
            found.add(p)

    def scan(chunk: str) -> str:
        for m in _REF_MD.finditer(chunk):
            markdown_target(m.group(1) or m.group(2))
        for m in _REF_DEF.finditer(chunk):
            markdown_target(m.group(1))
        for m in _REF_HTML.finditer(chunk):
            markdown_target(html.unescape(next(g for g in m.groups() if g is not None)))
        for m in _REF_WIKI.finditer(chunk):
            f = find_file(m.group(1), here, files, by_name)
            if f:
                found.add(f)
        return chunk

    outside_code(body, scan)
    return found
