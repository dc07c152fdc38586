"""The staging docs folder `prepare()` fills for mkdocs, and what the plugin needs page by page.

It holds the published memories copied as they are, every folder summary rendered again over the
published memories only (a private memory leaves no title, keyword or first line behind), the generated
pages, the site's stylesheet, the images memories embed and, on a served site, the search script. Only
changed files are written, so `mkdocs serve` settles after one rebuild.
"""

from __future__ import annotations

import os
import shutil
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from importlib.resources import files as package_files
from pathlib import Path
from urllib.parse import quote

import yaml

from ...storage import notes, tree
from ...vault import Vault
from .links import Links, file_names, referenced
from .markup import md_text, safe_line
from .pages import CHANGES, DIAGNOSE, SETUP, TIMELINE, changes_page, diagnose_page, setup_page, timeline_page
from .publishing import ATTACHMENTS, active_svg, read_entries, safe_file, scan_files
from .strings import mark, table_json

SOURCE_DIR = ".ihmt/cache/site-src"  # generated mkdocs.yml + docs/ (the staging docs folder)
CSS = "_ihmt/site.css"  # static/site.css, where the site's pages ask for it
SEARCH_JS = "_ihmt/search.js"  # served sites only: static/search.js, the vault's own search and Set up
GUI_JS = "_ihmt/gui.js"  # every site: static/gui.js, the screens' bar and the interface's language


@cache
def static(name: str) -> str:
    """A file of the package's `static/` folder, as written into every site: `site.css` (memory headers,
    badges, link marks, the screens' bar, the search answer), `gui.js` (every site: the language switch,
    the interface's words in the chosen language) or `search.js` (served sites: the vault's answer above
    the search box's results, the Diagnose and Set up screens). The scripts put what memories say into
    the page as text (textContent), never as HTML."""
    # package data, not a path beside this file: the package may be installed in a zip
    return (package_files(__package__) / "static" / name).read_text(encoding="utf-8")


@dataclass
class Source:
    """What `prepare()` made: the staging folder and everything the plugin needs page by page."""

    vault: Path
    docs: Path
    title: str
    links: Links
    generated: list[str]
    titles: dict[str, str]  # folder -> its summary's title (the section's name)
    published: int
    sections: int
    excluded: dict[str, int]
    written: int
    raw_html: bool = False  # the vault's `site_raw_html`: pages are not sanitised


def _summary_title(file: Path) -> str | None:
    try:
        block, _ = notes.split_front_matter(file.read_text(encoding="utf-8"))
        meta = yaml.load(block or "", Loader=notes.LOADER) if block is not None else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return str(meta["title"]) if isinstance(meta, dict) and meta.get("title") else None


def _quoted(r: dict) -> dict:
    """A catalog row as a summary may quote it: title and keywords (tags among them) as text, the first
    line as Markdown without live HTML. `tree.render_summary` writes what it is given into Markdown."""
    return {
        **r,
        "title": md_text(r["title"]),
        "first_line": safe_line(r.get("first_line") or ""),
        "keywords": [md_text(k) for k in r.get("keywords") or []],
        "date": md_text(r.get("date") or ""),
    }


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
    pages: dict[str, str] = {}
    titles: dict[str, str] = {}
    for folder in tree.bottom_up(folders):  # deepest first: children are ready
        index = tree.summary_path(folder)
        name = folder.rpartition("/")[2]
        if folder:
            own = safe_file(v.root, index)
            written = _summary_title(own) if own else None
            # none, or the generated title: spelled better
            title = tree.humanize(name) if not written or written == tree.humanize(name) else written
        else:
            title = v.config.title
        subs = [infos[k] for k in sorted(kids[folder]) if k in infos]
        text, info = tree.render_summary(folder, md_text(title), by_folder.get(folder, []), subs, links_by_id)
        if not folder:  # the home page is the Explore screen: its words under the vault's title
            head, sep, rest = text.partition("\n")
            text = f'{head}{sep}\n<p class="ihmt-intro">{mark("explore.intro")}</p>\n{rest}'
        infos[folder] = info
        pages[index] = text
        titles[folder] = title  # as written: the plugin escapes it for the navigation
    return pages, titles


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
    for dirpath, _dirnames, filenames in os.walk(dest, topdown=False):
        for name in filenames:
            file = Path(dirpath) / name
            if file.relative_to(dest).as_posix() not in files:
                file.unlink()
        if dirpath != str(dest) and not os.listdir(dirpath):
            os.rmdir(dirpath)
    return written


def prepare(
    v: Vault, docs: Path | None = None, with_archive: bool = False, skip: tuple[Path, ...] = (), serving: bool = False
) -> Source:
    """Fill the staging docs folder for vault `v` (default `<vault>/.ihmt/cache/site-src/docs`);
    `serving` (ihmt site serve) adds the script and the page that ask the vault's own search."""
    docs = Path(docs) if docs else v.root / SOURCE_DIR / "docs"
    private_dirs, candidates = scan_files(v.root, with_archive, {Path(s).resolve() for s in skip})
    entries, rows, bodies = read_entries(v, with_archive, private_dirs)
    published = [e for e in entries if not e.hidden]
    files: dict[str, bytes | Path] = {e.path: v.root / e.path for e in published}
    quoted = [_quoted(r) for r in rows]
    by_id = {r["id"]: r for r in quoted}
    summaries, titles = _summaries(v, quoted, by_id.get)
    files.update((p, t.encode()) for p, t in summaries.items())
    # Files: what the published memories reference, and the attachments folder.
    names, known = file_names(candidates), set(candidates)
    assets = {p for p in candidates if p.split("/")[0] == ATTACHMENTS}
    for path, body in bodies.items():
        assets |= referenced(body, path, known, names)
    assets = {p for p in assets if not (p.lower().endswith(".svg") and active_svg(candidates[p], p))}
    for rel in sorted(assets):
        files.setdefault(rel, candidates[rel])  # a media file never shares a memory's or summary's path
    links = Links(entries, titles, assets, private_dirs)
    top = {p.split("/")[0] for p in files}
    generated = []
    # In the sidebar after the topics, in the screens' order (Set up and Diagnose: served sites only).
    served = [(SETUP, setup_page), (DIAGNOSE, diagnose_page)] if serving else []
    pages = served + [(TIMELINE, timeline_page), (CHANGES, changes_page)]
    for name, render in pages:
        stem = name[:-3]
        while f"{stem}.md" in files or stem in top:  # a topic folder of the same name keeps its URL
            stem = f"vault-{stem}"
        files[f"{stem}.md"] = render(v, links, f"{stem}.md").encode()
        generated.append(f"{stem}.md")
    files[CSS] = static("site.css").encode()
    files[GUI_JS] = static("gui.js").replace("/*STRINGS*/ null", table_json()).encode()
    if serving:  # the Diagnose page keeps its URL even when a topic took its name
        diagnose = next(g for g in generated if g.endswith(DIAGNOSE))[:-3] + "/"
        files[SEARCH_JS] = static("search.js").replace('"diagnose/"', '"' + quote(diagnose) + '"').encode()
    written = _sync(docs, files)
    return Source(
        vault=v.root,
        docs=docs,
        title=v.config.title,
        links=links,
        generated=generated,
        titles=titles,
        published=len(published),
        sections=len(summaries),
        excluded={k: sum(1 for e in entries if e.hidden == k) for k in ("private", "archived")},
        written=written,
        raw_html=v.config.site_raw_html,
    )
