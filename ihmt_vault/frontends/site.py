"""`ihmt site`: the vault as a browsable mkdocs site (DESIGN.md, Front ends).

A front end: it reads the vault through `Vault` and never writes into the vault's tracked files.

- `prepare()` fills a staging docs folder (`<vault>/.ihmt/cache/site-src/docs`): the published memories
  copied as they are, every folder summary rendered again over the published memories only (a private
  memory leaves no title, keyword or first line behind), a Timeline and a Recent changes page, the
  site's stylesheet and the images memories embed. Only changed files are written, so `mkdocs serve`
  settles after one rebuild.
- The mkdocs plugin `ihmt` (`mkdocs_plugin.py`) calls `prepare()` from `on_config` and, page by page,
  turns Obsidian `[[wikilinks]]` into relative links (`rewrite_links`) and the front matter into a small
  header with badges (`page_header`).
- `build_site()` / `serve_site()` drive mkdocs with a configuration generated into the staging folder:
  the project's own (Material, `navigation.indexes` + `navigation.prune`, search), or the vault's own
  `mkdocs.yml` inherited, with the `ihmt` plugin added when it lacks it.

Published: every memory except private ones and, unless `with_archive`, those under `archive/`. A memory
is private when its front matter says so (`private:`, any case, true/yes/on/1) or when a folder above it
holds the marker file `.private` (an archived memory keeps the marker of the folder it came from). Files
other than memories are published only when they are regular files inside the vault (never a symlink)
of a media type, not private, and either referenced by a published memory (Markdown link or image, HTML
src/href, `[[file]]` or `![[file]]`) or kept in the top-level `attachments/` folder.

Memory text is untrusted (agents copy it from web pages and logs): every title, tag, date and line quoted
from a memory is escaped where it is placed, each page's HTML is sanitised with nh3 against an allow-list
(`sanitize`), and a page's front matter reaches the theme only as an escaped title, tags and our status.
A vault setting `site_raw_html = true` turns off the sanitiser only (for a person's own, offline site).
mkdocs is an optional extra (`ihmt-vault[site]`): nothing here imports it at module level.
"""
from __future__ import annotations

import html
import logging
import os
import posixpath
import re
import shutil
import stat
import time
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, unquote

import yaml

from ..errors import BadInput, VaultError
from ..storage import notes, tree
from ..storage.layout import ATTACHMENT_EXTS
from ..vault import Vault, expand

SOURCE_DIR = ".ihmt/cache/site-src"        # generated mkdocs.yml + docs/ (the staging docs folder)
DEFAULT_OUT = ".ihmt/cache/site"           # where `ihmt site build` writes without --out
INSTALL_HINT = "pip install 'ihmt-vault[site]'"
CSS = "_ihmt/site.css"
TIMELINE, CHANGES, DIAGNOSE = "timeline.md", "recent-changes.md", "diagnose.md"
SEARCH_JS = "_ihmt/search.js"               # served sites only: the vault's own search in the search box
SEARCH_PATH = "_ihmt/search"                # its endpoint, under the site's mount path
# Files a memory may reference and have published (media and plain data, nothing the browser runs) ...
ASSET_EXTS = ATTACHMENT_EXTS
# ... and the folder published whole, where a person keeps attachments (Obsidian's usual name) and the
# stylesheets or scripts their own mkdocs.yml names. Not `assets/`: that is the theme's folder in the
# built site, and a vault file there would replace Material's own JavaScript on every page.
ATTACHMENTS = "attachments"
ATTACHMENT_EXTS = ASSET_EXTS | {".css", ".js"}
PRIVATE_MARKER = ".private"      # an empty file: everything in its folder and below is private
CHANGES_SHOWN = 100
log = logging.getLogger("mkdocs.plugins.ihmt")     # captured by build_site() like mkdocs' own warnings

# The configuration every vault's site gets (and the root mkdocs.yml repeats for the sample vault).
THEME = {"name": "material", "font": False,   # system fonts: no request to Google Fonts, works offline
         "features": ["navigation.indexes", "navigation.prune", "navigation.top", "search.highlight",
                      "search.suggest", "toc.follow"]}
MARKDOWN_EXTENSIONS = ["attr_list", "md_in_html", "tables", {"toc": {"permalink": True}}]


class SiteUnavailable(VaultError):
    """The site's optional dependencies are not installed."""

    exit_code = 2


def require_mkdocs() -> None:
    """Raise a one-line `SiteUnavailable` saying how to install the site extra when it is missing."""
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError:
        raise SiteUnavailable(f"the site needs mkdocs and mkdocs-material; install them with: {INSTALL_HINT}") from None
    from importlib.metadata import entry_points
    if not any(ep.name == "ihmt" for ep in entry_points(group="mkdocs.plugins")):
        raise SiteUnavailable("mkdocs cannot find the 'ihmt' plugin; reinstall the package "
                              f"({INSTALL_HINT}, or pip install -e '.[site]' in a checkout)")


# --- what is published ---------------------------------------------------------------------------
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
    hidden: str = ""            # "" (published), "private" or "archived"

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


def under_private(path: str, private_dirs: set[str]) -> bool:
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


def _key(text: str) -> str:
    return " ".join(str(text).casefold().split())


class Links:
    """Finds what a wikilink names: a path, an id, a file name, a title or an alias (in that order)."""

    def __init__(self, entries: list[Entry], folders: dict[str, str], assets: set[str],
                 private_dirs: set[str] = frozenset()):
        self.entries = {e.path: e for e in entries}
        self.by_id = {e.id: e for e in entries if e.id}
        self.folders = folders          # published folders (each has an index.md page) -> their titles
        self.assets = assets
        self.asset_names = _by_name(assets)
        self.private_dirs = private_dirs
        self._names: dict[str, dict[str, list[Entry]]] = {"stem": defaultdict(list), "title": defaultdict(list),
                                                           "alias": defaultdict(list)}
        for e in entries:
            self._names["stem"][_key(posixpath.basename(e.path)[:-3])].append(e)
            self._names["title"][_key(e.title)].append(e)
            for a in e.aliases:
                self._names["alias"][_key(a)].append(e)

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
        for base in (here_dir, ""):    # a path relative to the page, then to the vault's root
            p = posixpath.normpath(posixpath.join(base, t.lstrip("/"))) if base else posixpath.normpath(t.lstrip("/"))
            if p.startswith(".."):
                continue
            if f"{p}.md" in self.entries:
                return self.entries[f"{p}.md"]
            if p in self.assets:
                return p
            if (p in self.folders and p) or (p == "." and not base):
                return "index.md" if p == "." else f"{p}/index.md"
        file = find_file(t, here, self.assets, self.asset_names)   # `![[image.png]]` by name, like Obsidian
        if file:
            return file
        if t in self.by_id:
            return self.by_id[t]
        full, last = _key(t), _key(t.rpartition("/")[2])     # a title may hold a '/'; a file name cannot
        for kind, name in (("stem", last), ("title", full), ("alias", full)):
            found = self._names[kind].get(name)
            if found:
                # Like Obsidian: the one nearest the page (same folder, then the shortest path).
                return min(found, key=lambda e: (e.folder != here_dir, bool(e.hidden), e.path.count("/"), e.path))
        return None


def _by_name(files) -> dict[str, list[str]]:
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
    found = [f for f in by_name.get(posixpath.basename(tail), ()) if f.casefold() == tail
             or f.casefold().endswith("/" + tail)]
    if found:
        return min(found, key=lambda f: (posixpath.dirname(f) != here_dir, f.count("/"), f))
    return None


@dataclass
class Source:
    """What `prepare()` made: the staging folder and everything the plugin needs page by page."""

    vault: Path
    docs: Path
    title: str
    links: Links
    generated: list[str]
    titles: dict[str, str]      # folder -> its summary's title (the section's name)
    published: int
    sections: int
    excluded: dict[str, int]
    written: int
    raw_html: bool = False      # the vault's `site_raw_html`: pages are not sanitised


# --- Markdown helpers ----------------------------------------------------------------------------
def md_text(text: str) -> str:
    """Plain text made safe inside Markdown (link labels, list items)."""
    text = html.escape(str(text), quote=False)
    return re.sub(r"([\\`*_\[\]{}|])", r"\\\1", text)


def plain(text) -> str:
    """A memory's value (title, tag) where the theme puts it as HTML: nav entries, <title>, search index."""
    return html.escape(str(text), quote=False)


def _safe_line(line: str) -> str:
    """A line quoted from a memory into generated Markdown (a summary's first lines): its Markdown
    formatting and wikilinks are kept, its raw HTML shows as text (code spans are left as they are)."""
    def escape(chunk: str) -> str:      # wikilinks are left whole: rewrite_links escapes their labels itself
        out, pos = [], 0
        for m in _WIKILINK.finditer(chunk):
            out += [html.escape(chunk[pos:m.start()], quote=False), m.group(0)]
            pos = m.end()
        return "".join(out) + html.escape(chunk[pos:], quote=False)

    return _outside_code(line, escape)


# --- the sanitiser -------------------------------------------------------------------------------
# What a page's HTML may hold: what Python-Markdown, the extensions Material documents (admonitions,
# details, footnotes, tables, task lists, tabs, highlighting, emoji as inline SVG, abbreviations, math)
# and our own header, badges and links produce; nothing that runs script, loads a frame or an object,
# submits a form, restyles the page or rewrites its base URL. Everything else is dropped: a tag outside
# the list loses its markup (its text stays), <script> and <style> lose their content too.
SAFE_TAGS = {
    "a", "abbr", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5",
    "h6", "hr", "i", "img", "input", "ins", "kbd", "label", "li", "mark", "ol", "p", "path", "pre", "q", "rp",
    "rt", "ruby", "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "svg", "table", "tbody",
    "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr"}
SAFE_ATTRIBUTES = {
    "*": {"id", "class", "title", "lang", "dir"},
    "a": {"href", "name"},                          # name: Pygments' line anchors
    "img": {"src", "alt", "width", "height", "loading"},
    "th": {"align", "colspan", "rowspan", "style"}, "td": {"align", "colspan", "rowspan", "style"},
    "col": {"span"}, "colgroup": {"span"},
    "ol": {"start", "type"}, "li": {"value"},
    "blockquote": {"cite"}, "q": {"cite"}, "del": {"cite", "datetime"}, "ins": {"cite", "datetime"},
    "time": {"datetime"}, "details": {"open"},
    "input": {"checked", "disabled", "name"},       # task lists (checkbox), content tabs (radio)
    "label": {"for"},
    "span": {"data-linenos"}, "div": {"data-tabs"},  # Pygments' line numbers, content tabs
    "svg": {"xmlns", "viewBox", "width", "height", "fill"}, "path": {"d", "fill"},   # emoji/icon shapes
}
SAFE_VALUES = {"input": {"type": {"checkbox", "radio"}}}
SAFE_SCHEMES = {"http", "https", "mailto"}          # relative links and #anchors always pass
_CLASS = re.compile(r"[A-Za-z_][\w-]*\Z")
_THEME_CLASSES = {"md-button", "md-button--primary"}  # Material's documented button classes
_THEME_IDS = ("__tabbed_", "__codelineno-")             # ids pymdownx generates itself


def _attribute_filter(tag: str, attr: str, value: str) -> str | None:
    if attr == "class":
        # Material's own `md-*` classes (drawers, dialogs, the header) would let a memory dress up as the
        # site's interface; a class is otherwise only style.
        kept = [c for c in value.split() if _CLASS.match(c) and (not c.startswith("md-") or c in _THEME_CLASSES)]
        return " ".join(kept) or None
    if attr in ("id", "name", "for") and value.startswith("__") and not value.startswith(_THEME_IDS):
        # Material reads its configuration from `#__config` and finds its drawer, search and palette by
        # `__` ids: an element of a memory's with such an id would shadow them (DOM clobbering).
        return None
    return value


@lru_cache(maxsize=1)
def _cleaner():
    import nh3
    options = dict(tags=SAFE_TAGS, clean_content_tags={"script", "style"}, attributes=SAFE_ATTRIBUTES,
                   attribute_filter=_attribute_filter, tag_attribute_values=SAFE_VALUES, url_schemes=SAFE_SCHEMES,
                   filter_style_properties={"text-align"},   # table column alignment; no other CSS
                   link_rel=None,          # no target= is allowed, so no rel=noopener is needed
                   strip_comments=True)
    if hasattr(nh3, "Cleaner"):     # nh3 >= 0.3: the allow-list is compiled once
        return nh3.Cleaner(**options).clean
    return lambda text: nh3.clean(text, **options)


def sanitize(page_html: str) -> str:
    """A page's rendered HTML with everything outside the allow-list removed (nh3, Rust's ammonia)."""
    return _cleaner()(page_html)


def html_text(fragment: str) -> str:
    """An HTML fragment reduced to its text, still escaped: a heading's title in the table of contents."""
    import nh3
    return nh3.clean(fragment, tags=set(), clean_content_tags={"script", "style"})


def href(target: str, here: str) -> str:
    """A relative link from page `here` to `target`, both paths in the docs folder."""
    rel = posixpath.relpath(target, posixpath.dirname(here) or ".")
    return quote(rel, safe="/#-_.~!$&'()*+,;=:@%")


def _unpublished(label: str) -> str:
    return f'<span class="ihmt-unpublished" title="not published on this site">{html.escape(label)}</span>'


def _broken(label: str, target: str) -> str:
    return (f'<span class="ihmt-broken" title="broken link: nothing named {html.escape(target, quote=True)}">'
            f'{html.escape(label)}</span>')


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_EMBED_SIZE = re.compile(r"(\d{1,5})(?:x(\d{1,5}))?\Z")
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(r"(?<![!\\])\[((?:[^\[\]\n]|\\[\[\]])*)\]\(<?([^()<>\s]+?\.md)>?((?:#[^()\s]*)?)\)")


def _outside_code(text: str, fn) -> str:
    """Apply `fn` to the parts of Markdown `text` that are not code (fenced blocks or inline spans)."""
    out: list[str] = []
    prose: list[str] = []
    fence = None

    def flush():
        if prose:
            chunk = "".join(prose)
            pos = 0
            for m in _INLINE_CODE.finditer(chunk):
                out.append(fn(chunk[pos:m.start()]))
                out.append(m.group(0))
                pos = m.end()
            out.append(fn(chunk[pos:]))
            prose.clear()

    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if fence is None and m:
            flush()
            fence = m.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
                fence = None
        else:
            prose.append(line)
    flush()
    return "".join(out)


def rewrite_links(markdown: str, here: str, links: Links, slugify=None) -> tuple[str, list[dict]]:
    """Obsidian wikilinks in a page's Markdown become relative links; links to unpublished memories become
    plain text. Returns the new Markdown and the links that resolve to nothing (shown marked, not fatal)."""
    broken: list[dict] = []
    slug = slugify or (lambda s: re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", s).strip().lower()))

    def wikilink(m: re.Match) -> str:
        embed, inner = m.group(1), m.group(2)
        target, sep, alias = inner.replace("\\|", "|").partition("|")   # `\|` inside tables
        target, _, heading = target.partition("#")
        label = alias.strip() if sep else ""
        if not target.strip():       # [[#heading]]: this page
            return f"[{md_text(label or heading.strip())}](#{slug(heading.strip())})" if heading.strip() else m.group(0)
        found = links.find(target, here)
        anchor = f"#{slug(heading.strip())}" if heading.strip() else ""
        if found is None:
            broken.append({"page": here, "target": inner.replace("\\|", "|")})
            return _broken(label or inner, target.strip())
        if isinstance(found, str):       # a folder's summary, or an embedded/linked asset
            if found.endswith("index.md"):
                title = links.folders.get(posixpath.dirname(found), "Home")
                return f"[{md_text(label or title)}]({href(found, here)}{anchor})"
            size = _EMBED_SIZE.match(label) if embed else None    # Obsidian: ![[image.png|300]], |300x200
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
        return _MD_LINK.sub(mdlink, _WIKILINK.sub(wikilink, chunk)) if "[" in chunk else chunk

    return _outside_code(markdown, fix), broken


def page_header(e: Entry, links: Links) -> str:
    """The small header above a memory: badges (OUTDATED → its correction, pinned) and date, type, status, tags."""
    badges = []
    if e.status == "outdated":
        fix = next((f for f in (links.published(i) for i in e.superseded_by) if f), None)
        if fix:
            badges.append(f"[OUTDATED → {md_text(fix.title)}]({href(fix.path, e.path)})"
                          '{ .ihmt-badge .ihmt-outdated title="Superseded: read the correction" }')
        else:
            badges.append('<span class="ihmt-badge ihmt-outdated" title="Superseded by a newer memory">OUTDATED</span>')
    elif e.status == "archived":
        badges.append('<span class="ihmt-badge ihmt-archived" title="Archived: decayed, kept as history">ARCHIVED</span>')
    if e.pinned:
        badges.append('<span class="ihmt-badge ihmt-pinned" title="Pinned: a core memory, it never decays">'
                      '📌 pinned</span>')
    # md_text, not only html.escape: the header is Markdown (md_in_html), where `[x](javascript:...)` in a
    # tag would otherwise become a link.
    meta = " · ".join(md_text(x) for x in (e.date, e.type, e.status) if x)
    tags = " ".join(f'<span class="ihmt-tag">#{md_text(t)}</span>' for t in e.tags)
    lines = [" ".join(badges)] if badges else []
    lines.append(" ".join(x for x in (f'<span class="ihmt-meta">{meta}</span>' if meta else "", tags) if x))
    old = [o for o in (links.published(i) for i in e.supersedes) if o]
    if old:
        lines.append("Corrects " + ", ".join(f"[{md_text(o.title)}]({href(o.path, e.path)})" for o in old) + ".")
    body = "\n\n".join(x for x in lines if x)
    return f'<div class="ihmt-header" markdown>\n\n{body}\n\n</div>\n\n' if body else ""


# --- generated pages -----------------------------------------------------------------------------
def timeline_page(v: Vault, links: Links, here: str = TIMELINE) -> str:
    """Facts and corrections over time, newest first, grouped by year."""
    events: list[tuple[str, int, str]] = []
    for t in v.memories.facts():
        shown_before = None
        for e in t.entries:                  # oldest first
            m = links.published(e.memory_id)
            if not m or not e.valid_from:
                continue
            was = f" (was {md_text(shown_before)})" if shown_before is not None and shown_before != e.value else ""
            until = f", until {md_text(e.valid_to)}" if e.valid_to else ""
            events.append((e.valid_from, 1, f"**{md_text(t.subject)}** {md_text(t.attribute)}: "
                                            f"{md_text(e.value)}{was}{until} — [{md_text(m.title)}]({href(m.path, here)})"))
            shown_before = e.value
    for e in links.entries.values():
        if e.hidden or not e.supersedes or not e.date:
            continue
        old = [o for o in (links.published(i) for i in e.supersedes) if o]
        what = ", ".join(f"[{md_text(o.title)}]({href(o.path, here)})" for o in old) or "an unpublished memory"
        events.append((e.date, 0, f"**correction**: [{md_text(e.title)}]({href(e.path, here)}) supersedes {what}"))
    lines = ["---", "title: Timeline", "---", "# Timeline", "",
             "Facts and corrections over time, newest first. An old value stays in its memory, marked OUTDATED."]
    if not events:
        lines += ["", "No dated facts or corrections yet."]
    year = None
    for date, _, text in sorted(events, key=lambda x: (x[0], -x[1], x[2]), reverse=True):
        if date[:4] != year:
            year = date[:4]
            lines += ["", f"## {md_text(year)}", ""]
        lines.append(f"- {md_text(date)} · {text}")
    return "\n".join(lines) + "\n"


def changes_page(v: Vault, links: Links, here: str = CHANGES, limit: int = CHANGES_SHOWN) -> str:
    """The vault's latest operations from the git log: when, operation, agent, what."""
    private_titles = {_key(e.title) for e in links.entries.values() if e.hidden == "private"}
    private_ids = {e.id for e in links.entries.values() if e.hidden == "private" and e.id}
    lines = ["---", "title: Recent changes", "---", "# Recent changes", "",
             f"The vault's latest operations (up to {limit}), newest first, from its git log: what changed, "
             "which operation and which agent.", "",
             "| when | operation | agent | what |", "|---|---|---|---|"]
    for c in v.history.changes(limit=limit):
        paths = [p for p in c.path.split(", ") if p]
        entries = [links.entries.get(p) for p in paths]
        subject = c.subject
        if any(e is not None and e.hidden == "private" for e in entries) or set(c.ids) & private_ids or \
                _key(subject.partition(": ")[2]) in private_titles or \
                any(under_private(p, links.private_dirs) for p in paths):   # a change in a private folder
            subject, entries = "a private memory", []
        what = md_text(subject)
        shown = [e for e in entries if e is not None and not e.hidden]
        if shown:
            what += " — " + ", ".join(f"[{md_text(e.title)}]({href(e.path, here)})" for e in shown)
        lines.append(f"| {c.date[:16].replace('T', ' ')} | {md_text(c.op)} | {md_text(c.agent)} | {what} |")
    return "\n".join(lines) + "\n"


def diagnose_page(v: Vault, links: Links, here: str = DIAGNOSE) -> str:
    """The page where the served site asks the vault's own search (SEARCH_SCRIPT fills it in)."""
    return "\n".join([
        "---", "title: Diagnose a search", "---", "# Diagnose a search", "",
        "The vault's own search, as an agent's `search_memory` asks it: the answer's status (found, "
        "ambiguous, not found) and how sure it is, each hit's path from the root, its score and how it was "
        "reached, and the notices (OUTDATED, corrections). Only a site served by `ihmt site serve` has it; "
        "its search box shows the same answer above the site's own results.", "",
        '<div id="ihmt-diagnose"></div>', ""])


# --- the vault's own search, for `ihmt site serve` ---------------------------------------------------
def _page_url(path: str) -> str:
    """A published memory's or summary's URL from the site's root, as `ihmt site serve` serves it."""
    stem = path[:-3]
    if posixpath.basename(path) == tree.INDEX:
        stem = posixpath.dirname(path)
    return quote(stem + "/" if stem else "", safe="/-_.~")


def _confidence(status: str, hits: list) -> tuple[str, float | None]:
    """How sure the answer is: none (not found), low (candidates tie), high when the best hit scores at
    least 1.5 times the next one (or stands alone), else medium; and that ratio."""
    if status == "not_found" or not hits:
        return "none", None
    margin = round(hits[0].score / hits[1].score, 2) if len(hits) > 1 and hits[1].score > 0 else None
    if status == "ambiguous":
        return "low", margin
    return ("high" if margin is None or margin >= 1.5 else "medium"), margin


def search_answer(v: Vault, links: Links, query: str, clue: str | None = None) -> dict:
    """`Vault.search` for the served site, over what the site publishes only: a hit, candidate, notice
    or explanation that would name a private or unpublished memory is left out."""
    r = v.search(query, k=20, clue=clue or None, detail="full")
    hidden = [e for e in links.entries.values() if e.hidden]
    secret_words = {e.id for e in hidden if e.id} | {e.title for e in hidden if len(e.title) > 2}

    def shown(h) -> bool:
        e = links.entries.get(h.path)
        return e is not None and not e.hidden

    def clean(text: str) -> bool:
        return not any(w in text for w in secret_words)

    def hit(h) -> dict:
        return {"title": h.title, "path": h.path, "url": _page_url(h.path), "trail": list(h.trail),
                "date": h.date, "status": h.status, "score": round(h.score, 3), "via": h.via,
                "snippet": h.snippet, "notices": [n for n in h.notices if clean(n)]}

    hits = [h for h in r.hits if shown(h)]
    candidates = [h for h in r.candidates if shown(h)]
    status = r.status
    if not hits and not candidates:
        status = "not_found"
    elif status == "ambiguous" and len(candidates) < 2:
        status = "found"
    confidence, margin = _confidence(status, candidates if status == "ambiguous" else hits)
    return {"status": status, "query": r.query, "clue": r.clue, "confidence": confidence, "margin": margin,
            "message": r.message if clean(r.message) else "", "archived_fallback": r.archived_fallback,
            "hits": [hit(h) for h in hits], "candidates": [hit(h) for h in candidates]}


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def loopback_only(bound_host: str):
    """A Host-header check for a server bound to a loopback address: another site's page cannot read
    the answers through a DNS name pointed at 127.0.0.1 (rebinding). None (no check) otherwise."""
    if bound_host not in _LOOPBACK and not bound_host.startswith("127."):
        return None

    def ok(host_header: str) -> bool:
        name = host_header.rsplit("]", 1)[0].lstrip("[") if host_header.startswith("[") else host_header.split(":")[0]
        return name in _LOOPBACK or name.startswith("127.")
    return ok


def search_app(app, answer, mount_path: str = "/", host_ok=None):
    """A WSGI app answering GET `<mount>/_ihmt/search?q=...&clue=...` with `answer(q, clue)` as JSON
    (a `VaultError` becomes {"error": ...}, 400), and passing every other request to `app`."""
    import json
    from urllib.parse import parse_qs
    route = mount_path.rstrip("/") + "/" + SEARCH_PATH

    def reply(start_response, status: str, data: dict):
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        start_response(status, [("Content-Type", "application/json; charset=utf-8"), ("Content-Length", str(len(body))),
                                ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")])
        return [body]

    def wsgi(environ, start_response):
        if environ.get("PATH_INFO", "") != route:
            return app(environ, start_response)
        if host_ok is not None and not host_ok(environ.get("HTTP_HOST", "")):
            return reply(start_response, "403 Forbidden", {"error": "this server answers only to localhost"})
        if environ.get("REQUEST_METHOD", "GET") != "GET":
            return reply(start_response, "405 Method Not Allowed", {"error": "use GET"})
        args = parse_qs(environ.get("QUERY_STRING", ""), max_num_fields=10)
        query, clue = ((args.get(k) or [""])[0][:500] for k in ("q", "clue"))
        try:
            return reply(start_response, "200 OK", answer(query, clue or None))
        except VaultError as e:
            return reply(start_response, "400 Bad Request", {"error": str(e)})

    return wsgi


# The script a served site runs: the vault's answer above the search box's results, and the Diagnose
# page. What it shows comes from memories, so it is put in the page as text (textContent), never as HTML.
SEARCH_SCRIPT = r"""/* IHMT Vault (ihmt site serve): the vault's own search, in the search box and on the Diagnose page. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.fetch || !window.URL) return;
  var endpoint = new URL("search", script.src), root = new URL("../", script.src);
  var LABEL = {found: "FOUND", ambiguous: "AMBIGUOUS", not_found: "NOT FOUND"};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null && text !== "") e.textContent = String(text);
    return e;
  }

  function hitView(h, full) {
    var li = el("li", "ihmt-hit"), a = el("a", "ihmt-hit__title", h.title);
    a.href = new URL(h.url, root).href;
    li.appendChild(a);
    if (h.status === "outdated") li.appendChild(el("span", "ihmt-badge ihmt-outdated", "OUTDATED"));
    if (h.status === "archived") li.appendChild(el("span", "ihmt-badge ihmt-archived", "ARCHIVED"));
    li.appendChild(el("div", "ihmt-hit__path", "/" + h.path));
    var meta = [h.date, "score " + h.score].concat(full ? ["via " + h.via] : []).filter(Boolean);
    li.appendChild(el("div", "ihmt-hit__meta", meta.join(" · ")));
    (h.notices || []).forEach(function (n) { li.appendChild(el("div", "ihmt-hit__notice", n)); });
    if (full && h.snippet) li.appendChild(el("div", "ihmt-hit__snippet", h.snippet));
    return li;
  }

  function answerView(r, full) {
    var box = el("div", "ihmt-answer");
    if (r.error) { box.appendChild(el("div", "ihmt-answer__why", r.error)); return box; }
    var head = el("div", "ihmt-answer__head");
    head.appendChild(el("span", "ihmt-status ihmt-status--" + r.status, LABEL[r.status] || r.status));
    head.appendChild(el("span", "ihmt-answer__confidence", "confidence: " + r.confidence +
      (r.margin ? " (best ×" + r.margin + " the next)" : "")));
    head.appendChild(el("span", "ihmt-answer__source", "the vault's own search"));
    box.appendChild(head);
    if (r.message) box.appendChild(el("div", "ihmt-answer__why", r.message));
    if (r.archived_fallback) box.appendChild(el("div", "ihmt-answer__why", "Nothing current matched: these come from the archive."));
    if (r.status === "ambiguous" && !r.message) box.appendChild(el("div", "ihmt-answer__why", "Several memories match equally: a clue tells them apart."));
    var list = el("ol", "ihmt-hits"), shown = r.status === "ambiguous" && r.candidates.length ? r.candidates : r.hits;
    shown.slice(0, full ? 20 : 3).forEach(function (h) { list.appendChild(hitView(h, full)); });
    box.appendChild(list);
    if (!full) {
      var more = el("a", "ihmt-answer__more", "Diagnose this search");
      var to = new URL("diagnose/", root);
      to.searchParams.set("ask", r.query);   // not "q": Material's own search opens on ?q=
      more.href = to.href;
      box.appendChild(more);
    }
    return box;
  }

  var seq = 0;
  function ask(q, clue, done) {
    var id = ++seq, url = new URL(endpoint);
    url.searchParams.set("q", q);
    if (clue) url.searchParams.set("clue", clue);
    fetch(url.href, {headers: {"Accept": "application/json"}})
      .then(function (response) { return response.json(); })
      .then(function (data) { if (id === seq) done(data); })
      .catch(function () {});
  }

  var input = document.querySelector('[data-md-component="search-query"]');
  var results = document.querySelector('[data-md-component="search-result"]');
  if (input && results) {
    var slot = el("div", "ihmt-answer-slot"), timer = null;
    results.insertBefore(slot, results.firstChild);
    input.addEventListener("input", function () {
      clearTimeout(timer);
      var q = input.value.trim();
      if (!q) { slot.replaceChildren(); return; }
      timer = setTimeout(function () { ask(q, null, function (r) { slot.replaceChildren(answerView(r, false)); }); }, 250);
    });
  }

  var page = document.getElementById("ihmt-diagnose");
  if (page) {
    var form = el("form", "ihmt-diagnose__form"), q = el("input"), clue = el("input"), go = el("button", "md-button", "Search");
    q.type = "search"; q.name = "q"; q.placeholder = "which postgres does staging run?";
    clue.type = "text"; clue.name = "clue"; clue.placeholder = "clue (optional)";
    go.type = "submit";
    [q, clue, go].forEach(function (x) { form.appendChild(x); });
    var out = el("div", "ihmt-diagnose__out");
    page.replaceChildren(form, out);
    var run = function () { if (q.value.trim()) ask(q.value.trim(), clue.value.trim(), function (r) { out.replaceChildren(answerView(r, true)); }); };
    form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
    var given = new URLSearchParams(window.location.search);
    q.value = given.get("ask") || ""; clue.value = given.get("clue") || "";
    run();
  }
})();
"""


# Navigation marks (Material's page status): tooltips; the icons are in STYLESHEET.
NAV_STATUS = {"outdated": "Outdated: superseded by a newer memory", "pinned": "Pinned: a core memory",
              "archived": "Archived: kept as history"}

STYLESHEET = """\
/* IHMT Vault: memory headers, badges and link marks (written by ihmt_vault.site). */
:root {
  --ihmt-history: url("data:image/svg+xml;charset=utf-8,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'><path d='M13.5 8H12v5l4.28 2.54.72-1.21-3.5-2.08V8M13 3a9 9 0 0 0-9 9H1l3.96 4.03L9 12H6a7 7 0 0 1 7-7 7 7 0 0 1 7 7 7 7 0 0 1-7 7c-1.93 0-3.68-.79-4.94-2.06l-1.42 1.42A8.9 8.9 0 0 0 13 21a9 9 0 0 0 9-9 9 9 0 0 0-9-9'/></svg>");
  --ihmt-pin: url("data:image/svg+xml;charset=utf-8,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'><path d='M16 12V4h1V2H7v2h1v8l-2 2v2h5.2v6h1.6v-6H18v-2z'/></svg>");
}
.md-status--active:after { display: none; }
.md-status--outdated:after { -webkit-mask-image: var(--ihmt-history); mask-image: var(--ihmt-history);
  background-color: #c62828; }
.md-status--pinned:after { -webkit-mask-image: var(--ihmt-pin); mask-image: var(--ihmt-pin); background-color: #f9a825; }
.md-status--archived:after { -webkit-mask-image: var(--md-status--deprecated); mask-image: var(--md-status--deprecated); }
.ihmt-header { margin: -.6rem 0 1.2rem; font-size: .72rem; color: var(--md-default-fg-color--light, #666); }
.ihmt-header p { margin: .3rem 0; }
.ihmt-badge { display: inline-block; padding: .1rem .55rem; border-radius: 1rem; font-weight: 700;
  font-size: .68rem; letter-spacing: .02em; margin-right: .35rem; text-decoration: none; }
a.ihmt-badge, .ihmt-outdated { background: #c62828; color: #fff !important; }
.ihmt-pinned { background: #f9a825; color: #222; }
.ihmt-archived { background: #757575; color: #fff; }
.ihmt-meta { margin-right: .5rem; }
.ihmt-tag { display: inline-block; margin-right: .3rem; padding: 0 .35rem; border-radius: .3rem;
  background: var(--md-code-bg-color, #f2f2f2); }
.ihmt-broken { color: #c62828; text-decoration: underline wavy; cursor: help; }
.ihmt-unpublished { color: var(--md-default-fg-color--light, #777); font-style: italic; }
/* The vault's own search (served sites): the answer above the search box's results, the Diagnose page. */
.ihmt-answer { padding: .6rem .8rem; border-bottom: .05rem solid var(--md-default-fg-color--lightest, #ddd);
  font-size: .7rem; }
.ihmt-answer__head { display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
.ihmt-answer__source, .ihmt-answer__confidence, .ihmt-hit__meta, .ihmt-hit__path {
  color: var(--md-default-fg-color--light, #666); }
.ihmt-status { font-weight: 700; padding: 0 .4rem; border-radius: .3rem; color: #fff; background: #757575; }
.ihmt-status--found { background: #2e7d32; }
.ihmt-status--ambiguous { background: #ef6c00; }
.ihmt-hits { margin: .3rem 0 0 1rem; padding: 0; }
.ihmt-hit { margin: .3rem 0; }
.ihmt-hit__title { font-weight: 700; margin-right: .4rem; }
.ihmt-hit__path { font-family: var(--md-code-font-family, monospace); font-size: .65rem; }
.ihmt-hit__notice { color: #c62828; }
.ihmt-hit__snippet { margin-top: .2rem; }
.ihmt-diagnose__form { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: 1rem; }
.ihmt-diagnose__form input { flex: 1 1 12rem; padding: .3rem .5rem; border: .05rem solid #bbb; border-radius: .2rem; }
"""


# --- staging -------------------------------------------------------------------------------------
def _summary_title(file: Path) -> str | None:
    try:
        block, _ = notes.split_front_matter(file.read_text(encoding="utf-8"))
        meta = yaml.load(block or "", Loader=notes.LOADER) if block is not None else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return str(meta["title"]) if isinstance(meta, dict) and meta.get("title") else None


def _entries(v: Vault, with_archive: bool, private_dirs: set[str]) -> tuple[list[Entry], list[dict], dict[str, str]]:
    """Every memory as an Entry, the catalog rows of the published ones, and their bodies (by path)."""
    entries, rows, bodies, dirs = [], [], {}, {}
    for r in v.memories.list():
        m = v.memories.get(r["path"])
        meta = m.meta
        # A memory reached through a symlinked folder (or not a regular file) is withheld like a private one.
        private = private_meta(meta) or under_private(r["path"], private_dirs) or \
            safe_file(v.root, r["path"], dirs) is None
        hidden = "private" if private else ""
        if not hidden and not with_archive and r["folder"].split("/")[0] == tree.ARCHIVE:
            hidden = "archived"
        aliases = meta.get("aliases") or []
        e = Entry(path=r["path"], id=r["id"], title=r["title"], type=r.get("type") or "", date=r.get("date") or "",
                  status=r.get("status") or "active", tags=[str(t) for t in r.get("tags") or []],
                  pinned=bool(r.get("pinned")), supersedes=list(r.get("supersedes") or []),
                  superseded_by=list(r.get("superseded_by") or []),
                  aliases=[str(a) for a in (aliases if isinstance(aliases, list) else [aliases])], hidden=hidden)
        entries.append(e)
        if not hidden:
            rows.append(r)
            bodies[r["path"]] = m.body
    return entries, rows, bodies


def _quoted(r: dict) -> dict:
    """A catalog row as a summary may quote it: title and keywords (tags among them) as text, the first
    line as Markdown without live HTML. `tree.render_summary` writes what it is given into Markdown."""
    return {**r, "title": md_text(r["title"]), "first_line": _safe_line(r.get("first_line") or ""),
            "keywords": [md_text(k) for k in r.get("keywords") or []], "date": md_text(r.get("date") or "")}


def _summaries(v: Vault, rows: list[dict], links_by_id) -> tuple[dict[str, str], dict[str, str]]:
    """Every folder summary, rendered like the vault's own `index.md` but over the published memories."""
    by_folder: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_folder[r["folder"]].append(r)
    folders = {""}
    for f in by_folder:
        folders.update(tree.parents(f))
    kids: dict[str, list[str]] = defaultdict(list)
    for f in folders:
        if f:
            kids[f.rpartition("/")[0]].append(f)
    infos: dict[str, tree.FolderInfo] = {}
    pages, titles = {}, {}
    for folder in tree.bottom_up(folders):   # deepest first: children are ready
        index = tree.summary_path(folder)
        own = safe_file(v.root, index) if folder else None
        name = folder.rpartition("/")[2]
        title = (_summary_title(own) if own else None) if folder else v.config.title
        if folder and (not title or title == tree.humanize(name)):   # the generated title: spelled better
            title = tree.humanize(name)
        subs = [infos[k] for k in sorted(kids[folder]) if k in infos]
        text, info = tree.render_summary(folder, md_text(title), by_folder.get(folder, []), subs, links_by_id)
        infos[folder] = info
        pages[index] = text
        titles[folder] = title          # as written: the plugin escapes it for the navigation
    return pages, titles


def _scan(root: Path, with_archive: bool, skip: set[Path]) -> tuple[set[str], dict[str, Path]]:
    """The folders marked private, and every file that may be published: regular files of a media type
    (or anything of ATTACHMENT_EXTS under attachments/), outside hidden folders, private folders, skipped
    folders, and archive/ unless `with_archive`. Symlinks are never followed nor listed."""
    private: set[str] = set()
    found: dict[str, Path] = {}
    dirs: dict[str, bool] = {}
    for dirpath, dirnames, filenames in os.walk(root):      # os.walk does not descend into symlinked folders
        here = Path(dirpath)
        rel = here.relative_to(root).as_posix()
        rel = "" if rel == "." else rel
        if PRIVATE_MARKER in filenames or PRIVATE_MARKER in dirnames:
            private.add(rel)
            dirnames[:] = []            # nothing below is published: no need to look
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and (here / d) not in skip
                             and not (here == root and d == tree.ARCHIVE and not with_archive))
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


_ACTIVE_SVG = re.compile(r"<script|<foreignobject|<iframe|<embed|<object|<handler|\bon[a-z]+\s*=|javascript:|"
                         r"data:text/html|<!entity", re.I)


def _active_svg(file: Path, rel: str) -> bool:
    """An SVG opened by itself runs its scripts on the site's origin: such a file is not published."""
    try:
        text = html.unescape(file.read_bytes().decode("utf-8", "replace"))
    except OSError:
        return True
    if _ACTIVE_SVG.search(re.sub(r"\s+", " ", text)):
        log.warning(f"ihmt: {rel} is not published: an SVG with scripts, event handlers or javascript: links")
        return True
    return False


_REF_MD = re.compile(r"\]\(\s*(?:<([^<>\n]+)>|([^()\s]+))")                  # [label](target), ![alt](target)
_REF_DEF = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?([^\s<>]+)>?", re.M)              # [label]: target
_REF_HTML = re.compile(r"""\b(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.I)
_REF_WIKI = re.compile(r"\[\[([^\[\]\n|#]+)")                                       # [[file]], ![[file]]
_SCHEME = re.compile(r"[A-Za-z][\w+.-]*:")


def _referenced(body: str, here: str, files: set[str], by_name: dict[str, list[str]]) -> set[str]:
    """The files among `files` that a memory's body links to or embeds (outside code), as mkdocs and the
    wikilink rewriting resolve them."""
    found: set[str] = set()
    here_dir = posixpath.dirname(here)

    def markdown_target(t: str):
        t = unquote(t.strip().split("#")[0].split("?")[0])
        if not t or t.startswith("/") or _SCHEME.match(t):
            return
        p = posixpath.normpath(posixpath.join(here_dir, t))
        if p in files:                    # relative to the page, as mkdocs resolves it; never above the vault
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

    _outside_code(body, scan)
    return found


def _sync(dest: Path, files: dict[str, bytes | Path]) -> int:
    """Make `dest` hold exactly `files` (bytes, or a file to copy), writing only what changed."""
    dest.mkdir(parents=True, exist_ok=True)
    written = 0
    for rel, data in files.items():
        target = dest / rel
        try:
            if isinstance(data, Path):
                a, b = data.stat(), target.stat()
                if a.st_size == b.st_size and a.st_mtime_ns == b.st_mtime_ns:
                    continue
            elif target.stat().st_size == len(data) and target.read_bytes() == data:
                continue
        except FileNotFoundError:
            target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, Path):
            shutil.copy2(data, target)
        else:
            tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, target)
        written += 1
    for dirpath, dirnames, filenames in os.walk(dest, topdown=False):
        for name in filenames:
            file = Path(dirpath) / name
            if file.relative_to(dest).as_posix() not in files:
                file.unlink()
        if dirpath != str(dest) and not os.listdir(dirpath):
            os.rmdir(dirpath)
    return written


def prepare(v: Vault, docs: Path | None = None, with_archive: bool = False, skip: tuple[Path, ...] = (),
            serving: bool = False) -> Source:
    """Fill the staging docs folder for vault `v` (default `<vault>/.ihmt/cache/site-src/docs`);
    `serving` (ihmt site serve) adds the script and the page that ask the vault's own search."""
    docs = Path(docs) if docs else v.root / SOURCE_DIR / "docs"
    private_dirs, candidates = _scan(v.root, with_archive, {Path(s).resolve() for s in skip})
    entries, rows, bodies = _entries(v, with_archive, private_dirs)
    published = [e for e in entries if not e.hidden]
    files: dict[str, bytes | Path] = {e.path: v.root / e.path for e in published}
    quoted = [_quoted(r) for r in rows]
    by_id = {r["id"]: r for r in quoted}
    summaries, titles = _summaries(v, quoted, by_id.get)
    files.update((p, t.encode()) for p, t in summaries.items())
    # Files: what the published memories reference, and the attachments folder.
    names, known = _by_name(candidates), set(candidates)
    assets = {p for p in candidates if p.split("/")[0] == ATTACHMENTS}
    for path, body in bodies.items():
        assets |= _referenced(body, path, known, names)
    assets = {p for p in assets if not (p.lower().endswith(".svg") and _active_svg(candidates[p], p))}
    for rel in sorted(assets):
        files.setdefault(rel, candidates[rel])     # a media file never shares a memory's or summary's path
    links = Links(entries, titles, assets, private_dirs)
    top = {p.split("/")[0] for p in files}
    generated = []
    pages = [(TIMELINE, timeline_page), (CHANGES, changes_page)] + ([(DIAGNOSE, diagnose_page)] if serving else [])
    for name, render in pages:
        stem = name[:-3]
        while f"{stem}.md" in files or stem in top:   # a topic folder of the same name keeps its URL
            stem = f"vault-{stem}"
        files[f"{stem}.md"] = render(v, links, f"{stem}.md").encode()
        generated.append(f"{stem}.md")
    files[CSS] = STYLESHEET.encode()
    if serving:     # the Diagnose page keeps its URL even when a topic took its name
        diagnose = next(g for g in generated if g.endswith(DIAGNOSE))[:-3] + "/"
        files[SEARCH_JS] = SEARCH_SCRIPT.replace('"diagnose/"', '"' + quote(diagnose) + '"').encode()
    written = _sync(docs, files)
    return Source(vault=v.root, docs=docs, title=v.config.title, links=links, generated=generated, titles=titles,
                  published=len(published), sections=len(summaries),
                  excluded={k: sum(1 for e in entries if e.hidden == k) for k in ("private", "archived")},
                  written=written, raw_html=v.config.site_raw_html)


# --- a folder of notes that is not a vault (the repository's sample) ------------------------------
_SAMPLES: dict[tuple[str, str], Path] = {}


def open_for_site(folder: Path, title: str | None = None) -> Vault:
    """The vault at `folder`; a plain folder of Markdown notes (such as the sample in `vault/`) is copied
    to a temporary folder and made a vault there, the folder itself is never written to."""
    folder = expand(folder).resolve()
    if (folder / ".ihmt" / "config.toml").exists():
        return Vault.open(folder)
    if not folder.is_dir():
        raise BadInput(f"{folder}: no such folder; give the site a vault or a folder of notes")
    import atexit
    import hashlib
    import tempfile
    files = sorted(p for p in folder.rglob("*.md") if p.name != tree.INDEX
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    digest = hashlib.sha1()
    for p in files:
        digest.update(p.relative_to(folder).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    key = (str(folder), digest.hexdigest())
    if key not in _SAMPLES or not _SAMPLES[key].exists():   # one copy per process and content (serve rebuilds)
        tmp = Path(tempfile.mkdtemp(prefix="ihmt-site-"))
        atexit.register(shutil.rmtree, tmp, True)
        for p in files:
            dest = tmp / "vault" / p.relative_to(folder)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)
        Vault.init(tmp / "vault", title=title).close()
        _SAMPLES[key] = tmp / "vault"
    return Vault.open(_SAMPLES[key])


# --- building and serving ------------------------------------------------------------------------
def _plugin_name(p) -> str:
    return p if isinstance(p, str) else next(iter(p)) if isinstance(p, dict) and p else ""


def write_config(v: Vault, with_archive: bool = False, for_web: bool = True) -> Path:
    """The mkdocs.yml a vault's site is built with, written to `<vault>/.ihmt/cache/site-src/mkdocs.yml`:
    the project's configuration, or the vault's own mkdocs.yml inherited with the `ihmt` plugin added.
    `for_web` keeps mkdocs' folder URLs (`work/`, for a web server); without it pages are files
    (`work/index.html`), so a site opened from disk follows its links."""
    src = v.root / SOURCE_DIR
    (src / "docs").mkdir(parents=True, exist_ok=True)   # mkdocs checks docs_dir exists before plugins run
    own = next((v.root / n for n in ("mkdocs.yml", "mkdocs.yaml") if (v.root / n).is_file()), None)
    ours = {"ihmt": {"vault": str(v.root), "with_archive": bool(with_archive)}}
    if own:
        from mkdocs.utils.yaml import yaml_load
        with open(own, "rb") as f:
            theirs = yaml_load(f) or {}
        plugins = theirs.get("plugins", ["search"])
        if isinstance(plugins, dict):
            plugins = [{k: val} if val else k for k, val in plugins.items()]
        cfg = {"INHERIT": str(own), "docs_dir": "docs",
               "plugins": [p for p in plugins if _plugin_name(p) != "ihmt"] + [ours]}
    else:
        # The theme puts site_name into HTML as it is (text and attributes); `&` is left alone since
        # Material escapes the name again in a tooltip.
        name = v.config.title.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        cfg = {"site_name": name, "docs_dir": "docs", "theme": THEME, "plugins": ["search", ours],
               "markdown_extensions": MARKDOWN_EXTENSIONS}
    if not for_web:
        cfg["use_directory_urls"] = False
    file = src / "mkdocs.yml"
    text = "# Generated by `ihmt site` for this vault; edits are overwritten (add a mkdocs.yml to the vault instead).\n" \
        + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)
    if not file.exists() or file.read_text(encoding="utf-8") != text:
        file.write_text(text, encoding="utf-8")
    return file


def _check_out(out: Path, root: Path) -> Path:
    out = expand(out).resolve()
    if out == root or root.is_relative_to(out):
        raise BadInput(f"--out {out}: would hold the vault itself; give a folder of its own for the site")
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {out}: is a file; give a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not (out / "sitemap.xml").exists() and not (out / "404.html").exists():
        raise BadInput(f"--out {out}: is not empty and holds no site built before (it would be wiped); "
                       f"give an empty or new folder")
    return out


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def build_site(v: Vault, out: str | Path | None = None, with_archive: bool = False, for_web: bool = True) -> dict:
    """Build the vault's site into `out` (default `<vault>/.ihmt/cache/site`); return a report with the
    broken wikilinks and any warning mkdocs logged. Broken links are reported, never fatal. Without
    `for_web` the pages are files (`page.html`), for a site opened from disk (see `write_config`)."""
    require_mkdocs()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    out = _check_out(Path(out) if out else v.root / DEFAULT_OUT, v.root)
    started = time.perf_counter()
    capture = _Capture()
    mk_log = logging.getLogger("mkdocs")
    mk_log.addHandler(capture)
    try:
        cfg = load_config(config_file=str(write_config(v, with_archive, for_web)), site_dir=str(out))
        plugin = cfg.plugins["ihmt"]
        plugin.vault_object = v          # the CLI's open vault: no second catalog
        plugin.skip = (out,)
        cfg.plugins.on_startup(command="build", dirty=False)
        try:
            build(cfg)
        finally:
            cfg.plugins.on_shutdown()
            plugin.vault_object, plugin.skip = None, ()   # mkdocs keeps plugin instances for the process
    except MkDocsException as e:
        raise VaultError(f"the site did not build: {e}") from None
    finally:
        mk_log.removeHandler(capture)
    src: Source = plugin.source
    return {"vault": str(v.root), "out": str(out), "index": str(out / "index.html"), "for_web": for_web,
            "memories": src.published, "sections": src.sections, "pages": [*src.generated],
            "excluded": src.excluded, "broken_links": plugin.broken, "warnings": capture.messages,
            "seconds": round(time.perf_counter() - started, 2)}


def serve_site(v: Vault, addr: str = "127.0.0.1:8000", with_archive: bool = False, open_browser: bool = False) -> None:
    """Serve the vault's site with live reload: edits to memories show up after a moment."""
    require_mkdocs()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.serve import serve
    from mkdocs.exceptions import MkDocsException
    mk_log = logging.getLogger("mkdocs")
    if not mk_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
        mk_log.addHandler(handler)
        mk_log.setLevel(logging.INFO)
    try:
        serve(config_file=str(write_config(v, with_archive, for_web=True)), dev_addr=addr, livereload=True,
              open_in_browser=open_browser)
    except MkDocsException as e:
        raise VaultError(f"the site did not build: {e}") from None

