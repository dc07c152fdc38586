"""`ihmt site`: the vault as a browsable mkdocs site (DESIGN.md, Front ends).

A front end: it reads the vault through `Vault` and never writes into the vault's tracked files.

- `prepare()` (`staging`) fills a staging docs folder (`<vault>/.ihmt/cache/site-src/docs`) with what
  `publishing` lets through: the published memories, every folder summary rendered again over them, the
  generated pages (`pages`: Timeline, Recent changes; served, Set up and Diagnose), the stylesheet, the
  interface's script and the images memories embed.
- The mkdocs plugin `ihmt` (`mkdocs_plugin.py`) calls `prepare()` from `on_config` and, page by page,
  turns Obsidian `[[wikilinks]]` into relative links (`links.rewrite_links`), the front matter into a
  small header with badges (`pages.page_header`), and cleans the HTML (`sanitiser.sanitize`).
- `build_site()` / `serve_site()` (`build`) drive mkdocs with a configuration generated into the staging
  folder; a served site also answers the vault's own search and the Set up screen (`served_search`).
- The GUI's four screens, Set up, Explore, Diagnose, Timeline (`screens`), are named by a bar on every
  page with a language switch; the interface's words are one table in English and Spanish (`strings`).

The stylesheet and the served site's script are package data, in `static/`. mkdocs is an optional extra
(`ihmt-vault[site]`): nothing here imports it at module level. The names below are the ones the CLI, the
plugin and the tests use.
"""

from __future__ import annotations

from ...vault import Vault
from .build import (
    DEFAULT_OUT,
    INSTALL_HINT,
    MARKDOWN_EXTENSIONS,
    THEME,
    SiteUnavailable,
    build_site,
    open_for_site,
    require_mkdocs,
    serve_site,
    write_config,
)
from .links import Links, find_file, href, rewrite_links
from .markup import md_text, plain
from .pages import (
    CHANGES,
    CHANGES_SHOWN,
    DIAGNOSE,
    NAV_STATUS,
    SETUP,
    TIMELINE,
    changes_page,
    diagnose_page,
    page_header,
    setup_page,
    timeline_page,
)
from .publishing import (
    ASSET_EXTS,
    ATTACHMENT_EXTS,
    ATTACHMENTS,
    PRIVATE_MARKER,
    Entry,
    private_meta,
    safe_file,
    under_private,
)
from .sanitiser import SAFE_ATTRIBUTES, SAFE_SCHEMES, SAFE_TAGS, SAFE_VALUES, html_text, sanitize
from .screens import PAGE_TITLES, SCREENS, agent_rows, page_kind, screen_of, screens_bar, setup_answer
from .served_search import SEARCH_PATH, SETUP_PATH, loopback_only, search_answer, search_app
from .staging import CSS, GUI_JS, SEARCH_JS, SOURCE_DIR, Source, prepare
from .strings import LANGUAGES, STRINGS, mark

__all__ = [
    "ASSET_EXTS",
    "ATTACHMENTS",
    "ATTACHMENT_EXTS",
    "CHANGES",
    "CHANGES_SHOWN",
    "CSS",
    "DEFAULT_OUT",
    "DIAGNOSE",
    "GUI_JS",
    "INSTALL_HINT",
    "LANGUAGES",
    "MARKDOWN_EXTENSIONS",
    "NAV_STATUS",
    "PAGE_TITLES",
    "PRIVATE_MARKER",
    "SAFE_ATTRIBUTES",
    "SAFE_SCHEMES",
    "SAFE_TAGS",
    "SAFE_VALUES",
    "SCREENS",
    "SEARCH_JS",
    "SEARCH_PATH",
    "SETUP",
    "SETUP_PATH",
    "SOURCE_DIR",
    "STRINGS",
    "THEME",
    "TIMELINE",
    "Entry",
    "Links",
    "SiteUnavailable",
    "Source",
    "Vault",
    "agent_rows",
    "build_site",
    "changes_page",
    "diagnose_page",
    "find_file",
    "href",
    "html_text",
    "loopback_only",
    "mark",
    "md_text",
    "open_for_site",
    "page_header",
    "page_kind",
    "plain",
    "prepare",
    "private_meta",
    "require_mkdocs",
    "rewrite_links",
    "safe_file",
    "sanitize",
    "screen_of",
    "screens_bar",
    "search_answer",
    "search_app",
    "serve_site",
    "setup_answer",
    "setup_page",
    "timeline_page",
    "under_private",
    "write_config",
]
