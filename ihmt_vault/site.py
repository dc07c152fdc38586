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

Published: every memory except `private: true` ones and, unless `with_archive`, those under `archive/`.
mkdocs is an optional extra (`ihmt-vault[site]`): nothing here imports it at module level.
"""
from __future__ import annotations

import html
import logging
import os
import posixpath
import re
import shutil
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import yaml

from . import tree
from .errors import BadInput, VaultError
from .vault import Vault, expand

SOURCE_DIR = ".ihmt/cache/site-src"        # generated mkdocs.yml + docs/ (the staging docs folder)
DEFAULT_OUT = ".ihmt/cache/site"           # where `ihmt site build` writes without --out
INSTALL_HINT = "pip install 'ihmt-vault[site]'"
CSS = "_ihmt/site.css"
TIMELINE, CHANGES = "timeline.md", "recent-changes.md"
ASSET_EXTS = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp", ".ico", ".pdf",
              ".mp3", ".mp4", ".webm", ".ogg", ".wav", ".csv", ".txt", ".css", ".js"}
CHANGES_SHOWN = 100

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


def _key(text: str) -> str:
    return " ".join(str(text).casefold().split())


class Links:
    """Finds what a wikilink names: a path, an id, a file name, a title or an alias (in that order)."""

    def __init__(self, entries: list[Entry], folders: dict[str, str], assets: set[str]):
        self.entries = {e.path: e for e in entries}
        self.by_id = {e.id: e for e in entries if e.id}
        self.folders = folders          # published folders (each has an index.md page) -> their titles
        self.assets = assets
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
        if t in self.by_id:
            return self.by_id[t]
        full, last = _key(t), _key(t.rpartition("/")[2])     # a title may hold a '/'; a file name cannot
        for kind, name in (("stem", last), ("title", full), ("alias", full)):
            found = self._names[kind].get(name)
            if found:
                # Like Obsidian: the one nearest the page (same folder, then the shortest path).
                return min(found, key=lambda e: (e.folder != here_dir, bool(e.hidden), e.path.count("/"), e.path))
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


# --- Markdown helpers ----------------------------------------------------------------------------
def md_text(text: str) -> str:
    """Plain text made safe inside Markdown (link labels, list items)."""
    text = html.escape(str(text), quote=False)
    return re.sub(r"([\\`*_\[\]{}|])", r"\\\1", text)


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
    meta = " · ".join(html.escape(x) for x in (e.date, e.type, e.status) if x)
    tags = " ".join(f'<span class="ihmt-tag">#{html.escape(t)}</span>' for t in e.tags)
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
    for t in v.facts():
        shown_before = None
        for e in t.entries:                  # oldest first
            m = links.published(e.memory_id)
            if not m or not e.valid_from:
                continue
            was = f" (was {md_text(shown_before)})" if shown_before is not None and shown_before != e.value else ""
            until = f", until {e.valid_to}" if e.valid_to else ""
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
            lines += ["", f"## {year}", ""]
        lines.append(f"- {date} · {text}")
    return "\n".join(lines) + "\n"


def changes_page(v: Vault, links: Links, here: str = CHANGES, limit: int = CHANGES_SHOWN) -> str:
    """The vault's latest operations from the git log: when, operation, agent, what."""
    private_titles = {_key(e.title) for e in links.entries.values() if e.hidden == "private"}
    private_ids = {e.id for e in links.entries.values() if e.hidden == "private" and e.id}
    lines = ["---", "title: Recent changes", "---", "# Recent changes", "",
             f"The vault's latest operations (up to {limit}), newest first, from its git log: what changed, "
             "which operation and which agent.", "",
             "| when | operation | agent | what |", "|---|---|---|---|"]
    for c in v.changes(limit=limit):
        paths = [p for p in c.path.split(", ") if p]
        entries = [links.entries.get(p) for p in paths]
        subject = c.subject
        if any(e is not None and e.hidden == "private" for e in entries) or set(c.ids) & private_ids or \
                _key(subject.partition(": ")[2]) in private_titles:
            subject, entries = "a private memory", []
        what = md_text(subject)
        shown = [e for e in entries if e is not None and not e.hidden]
        if shown:
            what += " — " + ", ".join(f"[{md_text(e.title)}]({href(e.path, here)})" for e in shown)
        lines.append(f"| {c.date[:16].replace('T', ' ')} | {md_text(c.op)} | {md_text(c.agent)} | {what} |")
    return "\n".join(lines) + "\n"


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
"""


# --- staging -------------------------------------------------------------------------------------
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FRONT = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)


def _summary_title(file: Path) -> str | None:
    try:
        m = _FRONT.match(file.read_text(encoding="utf-8"))
        meta = yaml.load(m.group(1) or "", Loader=_YAML_LOADER) if m else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return str(meta["title"]) if isinstance(meta, dict) and meta.get("title") else None


def _entries(v: Vault, with_archive: bool) -> tuple[list[Entry], list[dict]]:
    entries, rows = [], []
    for r in v.memories():
        meta = v.get(r["path"]).meta
        hidden = "private" if _truthy(meta.get("private")) else ""
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
    return entries, rows


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
    for folder in sorted(folders, key=lambda f: (-tree.depth(f), f)):   # deepest first: children are ready
        index = f"{folder}/{tree.INDEX}" if folder else tree.INDEX
        title = v.config.title if not folder else \
            (_summary_title(v.root / index) or tree.humanize(folder.rpartition("/")[2]))
        subs = [infos[k] for k in sorted(kids[folder]) if k in infos]
        text, info = tree.render_summary(folder, title, by_folder.get(folder, []), subs, links_by_id)
        infos[folder] = info
        pages[index] = text
        titles[folder] = title
    return pages, titles


def _assets(root: Path, with_archive: bool, skip: set[Path]) -> dict[str, Path]:
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and (here / d) not in skip
                             and not (here == root and d == tree.ARCHIVE and not with_archive))
        for name in filenames:
            if not name.startswith(".") and os.path.splitext(name)[1].lower() in ASSET_EXTS:
                file = here / name
                found[file.relative_to(root).as_posix()] = file
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


def prepare(v: Vault, docs: Path | None = None, with_archive: bool = False, skip: tuple[Path, ...] = ()) -> Source:
    """Fill the staging docs folder for vault `v` (default `<vault>/.ihmt/cache/site-src/docs`)."""
    docs = Path(docs) if docs else v.root / SOURCE_DIR / "docs"
    entries, rows = _entries(v, with_archive)
    published = [e for e in entries if not e.hidden]
    files: dict[str, bytes | Path] = {e.path: v.root / e.path for e in published}
    by_id = {r["id"]: r for r in rows}
    summaries, titles = _summaries(v, rows, by_id.get)
    files.update((p, t.encode()) for p, t in summaries.items())
    assets = _assets(v.root, with_archive, {Path(s).resolve() for s in skip})
    for rel, file in assets.items():
        files.setdefault(rel, file)
    links = Links(entries, titles, set(assets))
    top = {p.split("/")[0] for p in files}
    generated = []
    for name, render in ((TIMELINE, timeline_page), (CHANGES, changes_page)):
        stem = name[:-3]
        while f"{stem}.md" in files or stem in top:   # a topic folder of the same name keeps its URL
            stem = f"vault-{stem}"
        files[f"{stem}.md"] = render(v, links, f"{stem}.md").encode()
        generated.append(f"{stem}.md")
    files[CSS] = STYLESHEET.encode()
    written = _sync(docs, files)
    return Source(vault=v.root, docs=docs, title=v.config.title, links=links, generated=generated, titles=titles,
                  published=len(published), sections=len(summaries),
                  excluded={k: sum(1 for e in entries if e.hidden == k) for k in ("private", "archived")},
                  written=written)


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


def write_config(v: Vault, with_archive: bool = False) -> Path:
    """The mkdocs.yml a vault's site is built with, written to `<vault>/.ihmt/cache/site-src/mkdocs.yml`:
    the project's configuration, or the vault's own mkdocs.yml inherited with the `ihmt` plugin added."""
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
        cfg = {"site_name": v.config.title, "docs_dir": "docs", "theme": THEME, "plugins": ["search", ours],
               "markdown_extensions": MARKDOWN_EXTENSIONS}
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


def build_site(v: Vault, out: str | Path | None = None, with_archive: bool = False) -> dict:
    """Build the vault's site into `out` (default `<vault>/.ihmt/cache/site`); return a report with the
    broken wikilinks and any warning mkdocs logged. Broken links are reported, never fatal."""
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
        cfg = load_config(config_file=str(write_config(v, with_archive)), site_dir=str(out))
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
    return {"vault": str(v.root), "out": str(out), "index": str(out / "index.html"),
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
        serve(config_file=str(write_config(v, with_archive)), dev_addr=addr, livereload=True,
              open_in_browser=open_browser)
    except MkDocsException as e:
        raise VaultError(f"the site did not build: {e}") from None

