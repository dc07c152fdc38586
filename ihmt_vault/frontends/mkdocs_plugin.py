"""The mkdocs plugin `ihmt`: a vault (or a folder of notes) as the site's docs.

    plugins:
      - search
      - ihmt:
          vault: vault          # default: the folder of mkdocs.yml
          with_archive: false   # publish archive/ too
          title: Ana's memory   # root title when the folder is not yet a vault

`on_config` prepares a staging docs folder from the vault (`site.prepare`) and points mkdocs at it;
`on_page_markdown` turns wikilinks into links and front matter into a header with badges; `on_nav`
puts the generated pages (Set up, Diagnose, Timeline, Recent changes) after the topics;
`on_post_page` puts the screens' bar and the language switch (`site.screens_bar`, `static/gui.js`)
on every page. Under `mkdocs serve` (`ihmt site serve`) the server also answers `_ihmt/search` with
the vault's own search (`site.search_app`), which the site's search box and its Diagnose page ask,
and `_ihmt/setup` (the Set up screen); a static build keeps Material's client-side search only.
Loaded by mkdocs only (never by the storage modules). The work itself is in `site/`.

Memory text is untrusted. Material puts `page.title`, `page.meta.*` and nav titles into its HTML as
they are, so they are set here to escaped text (`on_page_markdown`, `on_nav`) and a page's front
matter reaches the theme only as title, tags and status; `on_page_content` runs the sanitiser
(`site.sanitize`) over each page's HTML and reduces table-of-contents titles to text.
"""

from __future__ import annotations

import logging
import os
import posixpath
import threading
from collections.abc import Callable
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin

from . import site

log = logging.getLogger("mkdocs.plugins.ihmt")
NEEDED_EXTENSIONS = ("attr_list", "md_in_html", "pymdownx.tilde")  # tilde: ~~struck~~ (OUTDATED in summaries)


class IhmtConfig(Config):
    vault = c.Optional(c.Type(str))
    with_archive = c.Type(bool, default=False)
    title = c.Optional(c.Type(str))


class IhmtPlugin(BasePlugin[IhmtConfig]):
    supports_multiple_instances = False

    def __init__(self) -> None:
        self.vault_object: site.Vault | None = None  # set by site.build_site(): the caller's open Vault
        self.skip: tuple[Path, ...] = ()  # folders never copied into the site (the output folder)
        self.source: site.Source | None = None
        self.broken: list[dict] = []
        self._opened: site.Vault | None = None
        self._slugify: Callable[[str], str] | None = None
        self._serving = False  # mkdocs serve: the vault's own search is served too
        self._search_vault: site.Vault | None = (
            None  # the served search's own Vault (its requests run in other threads)
        )
        self._search_lock = threading.Lock()
        self._urls: dict[str, str] = {}  # generated page -> its URL (on_files)
        self._home = ""

    def on_startup(self, *, command, dirty):
        self._serving = command == "serve"

    # -- configuration ----------------------------------------------------------------------------
    def _vault_root(self, config) -> Path:
        base = Path(config.config_file_path or ".").resolve().parent
        return (base / self.config.vault).resolve() if self.config.vault else base

    def on_config(self, config):
        v = self.vault_object
        if v is None:  # mkdocs keeps this instance across `serve` rebuilds: one open vault, refreshed
            root = self._vault_root(config)
            if self._opened is not None and self._opened.root == root:
                self._opened.refresh(force=True)
            else:
                self.on_shutdown()
                self._opened = site.open_for_site(root, self.config.title)
            v = self._opened
        skip = (*self.skip, Path(config.site_dir))
        self.source = site.prepare(v, with_archive=self.config.with_archive, skip=skip, serving=self._serving)
        self.broken = []
        config.docs_dir = str(self.source.docs)
        for ext in NEEDED_EXTENSIONS:
            if ext not in config.markdown_extensions:
                config.markdown_extensions.append(ext)
        # strikethrough only: a single ~ stays a tilde ("~5 minutes")
        config.mdx_configs.setdefault("pymdownx.tilde", {}).setdefault("subscript", False)
        if site.CSS not in config.extra_css:
            config.extra_css.append(site.CSS)
        scripts = [site.GUI_JS] + ([site.SEARCH_JS] if self._serving else [])  # gui.js first: search.js asks it
        for js in scripts:
            if js not in [str(j) for j in config.extra_javascript]:
                config.extra_javascript.append(js)
        # Material marks a page in the navigation by its front matter `status` (our stylesheet draws them).
        config.extra["status"] = {**site.NAV_STATUS, **(config.extra.get("status") or {})}
        toc = config.mdx_configs.get("toc", {})
        self._slugify = toc.get("slugify") and (lambda s: toc["slugify"](s, toc.get("separator", "-")))
        if self._slugify is None:
            from markdown.extensions.toc import slugify

            self._slugify = lambda s: slugify(s, toc.get("separator", "-"))
        log.info(
            f"ihmt: {self.source.published} memories, {self.source.sections} sections from {v.root} "
            f"({self.source.written} files refreshed)"
        )
        return config

    def on_serve(self, server, config, builder):
        """Rebuild when memories change in the vault itself, not only in the staging folder; answer
        `_ihmt/search` with the vault's own search."""
        root = self._vault_root(config)  # the folder named in the config (the sample: vault/, not its copy)
        for entry in os.scandir(root):
            if entry.is_dir() and not entry.name.startswith("."):
                server.watch(entry.path)
        server.watch(str(root), recursive=False)
        server.set_app(
            site.search_app(
                server.get_app(),
                self._answer,
                getattr(server, "mount_path", "/"),
                site.loopback_only(str(server.server_address[0])),
                self._setup,
            )
        )
        return server

    def _served_vault(self) -> site.Vault:
        """The served endpoints' own Vault (their requests run in threads of their own; call it holding
        `_search_lock`)."""
        source = self.source
        assert source is not None  # on_config staged the docs before the server answers
        if self._search_vault is None or self._search_vault.root != source.vault:
            if self._search_vault is not None:
                self._search_vault.close()
            self._search_vault = site.Vault.open(source.vault)
        return self._search_vault

    def _answer(self, query: str, clue: str | None) -> dict:
        """One search of the served site (requests come one at a time, each in a thread of its own)."""
        with self._search_lock:
            assert self.source is not None
            return site.search_answer(self._served_vault(), self.source.links, query, clue)

    def _setup(self) -> dict:
        """What the served Set up screen shows (`site.setup_answer`): read-only, one request at a time."""
        with self._search_lock:
            assert self.source is not None
            return site.setup_answer(self._served_vault(), self.source.links)

    # -- pages ------------------------------------------------------------------------------------
    def on_nav(self, nav, config, files):
        """Like the topic tree: each section titled by its summary, subtopics before memories; the
        generated pages (Timeline, Recent changes) after the topics."""
        titles = self.source.titles

        def order(items):
            for item in items:
                if getattr(item, "children", None):
                    first = item.children[0]
                    uri = getattr(getattr(first, "file", None), "src_uri", "")
                    if uri.endswith("index.md") and uri.rpartition("/")[0] in titles:
                        item.title = titles[uri.rpartition("/")[0]]
                    order(item.children)
            head = [i for i in items[:1] if getattr(getattr(i, "file", None), "src_uri", "").endswith("index.md")]
            rest = items[len(head) :]
            items[:] = (
                head
                + [i for i in rest if getattr(i, "children", None)]
                + [i for i in rest if not getattr(i, "children", None)]
            )

        def escape(items):  # section titles come from summaries and folder names: text, not HTML
            for item in items:
                if getattr(item, "children", None):
                    item.title = site.plain(item.title or "")
                    escape(item.children)

        order(nav.items)
        escape(nav.items)
        generated = self.source.generated
        last = sorted(
            (i for i in nav.items if getattr(getattr(i, "file", None), "src_uri", None) in generated),
            key=lambda i: generated.index(i.file.src_uri),
        )
        nav.items[:] = [i for i in nav.items if i not in last] + last

        def pages(items):
            for i in items:
                yield from pages(i.children) if getattr(i, "children", None) else ([i] if i.is_page else [])

        nav.pages = list(pages(nav.items))  # previous / next follow the new order
        for a, b in zip([None, *nav.pages], [*nav.pages, None]):
            if a is not None:
                a.next_page = b
            if b is not None:
                b.previous_page = a
        return nav

    def on_page_markdown(self, markdown, page, config, files):
        src = page.file.src_uri
        links = self.source.links
        markdown, broken = site.rewrite_links(markdown, src, links, self._slugify)
        entry = links.entries.get(src)
        # The theme reads page.meta (description, template, icon, hide, redirect location...) and prints
        # most of it raw: a memory's front matter is kept out, but for an escaped title, tags and status.
        meta = page.meta
        if entry is not None:
            title = entry.title
        elif posixpath.basename(src) == "index.md" and posixpath.dirname(src) in self.source.titles:
            title = self.source.titles[posixpath.dirname(src)]  # a summary: as written in the vault
        else:
            title = str(meta.get("title") or "")  # our generated pages
        page.meta = {"title": site.plain(title)} if title else {}
        if entry is not None:  # summaries quote first lines: their links are reported on the memory's page
            for b in broken:
                log.info(f"ihmt: broken wikilink [[{b['target']}]] in {b['page']}")
            self.broken += broken
            status = "pinned" if entry.pinned and entry.status == "active" else entry.status
            page.meta["status"] = status if status in (*site.NAV_STATUS, "active") else "active"
            if entry.tags:  # Material's search indexes them (and shows them as HTML)
                page.meta["tags"] = [site.plain(t) for t in entry.tags]
            markdown = site.page_header(entry, links) + markdown
        return markdown

    def on_page_content(self, html, page, config, files):
        if not self.source.raw_html:
            html = site.sanitize(html)

        def toc(items):  # a heading's title (with data-toc-label, any text) is HTML in the theme
            for item in items:
                item.title = site.html_text(item.title or "")
                toc(item.children)

        toc(page.toc)
        if "title" not in page.meta and page.title:  # a title mkdocs took from the rendered <h1>
            page.meta["title"] = site.html_text(page.title)
        return html

    def on_files(self, files, config):
        """Where each generated page ends up (its URL), for the screens' bar."""
        generated = self.source.generated
        self._urls = {f.src_uri: f.url for f in files if f.src_uri in generated}
        self._home = next((f.url for f in files if f.src_uri == "index.md"), "")
        return files

    def on_post_page(self, output, page, config):
        """The screens' bar (Set up, Explore, Diagnose, Timeline) and the language switch on top of
        every page: our own HTML, holding no memory text."""
        from mkdocs.utils import get_relative_url

        generated = self.source.generated
        kinds = {site.page_kind(src, generated): url for src, url in self._urls.items()}
        here = page.url
        hrefs = {"explore": get_relative_url(self._home, here)}
        for name, kind in site.SCREENS:
            if kind and kind in kinds:
                hrefs[name] = get_relative_url(kinds[kind], here)
        titles = {
            get_relative_url(url, here): site.PAGE_TITLES[kind] for kind, url in kinds.items() if kind is not None
        }
        bar = site.screens_bar(hrefs, site.screen_of(page.file.src_uri, generated), titles)
        anchor = '<div class="md-container" data-md-component="container">'
        if anchor in output:
            return output.replace(anchor, anchor + bar, 1)
        head, sep, rest = output.partition("<body")
        if not sep:
            return output
        tag_end = rest.find(">") + 1
        return head + sep + rest[:tag_end] + bar + rest[tag_end:]

    def on_post_build(self, config):
        if self.broken:
            log.info(f"ihmt: {len(self.broken)} broken wikilinks (shown struck through on their pages)")

    def on_shutdown(self):
        if self._opened is not None:
            self._opened.close()
            self._opened = None
        with self._search_lock:
            if self._search_vault is not None:
                self._search_vault.close()
                self._search_vault = None
