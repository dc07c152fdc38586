"""The sanitiser: each page's HTML cleaned with nh3 against an allow-list.

Memory text is untrusted (agents copy it from web pages and logs): every title, tag, date and line quoted
from a memory is escaped where it is placed (`markup`), each page's HTML is sanitised here (`sanitize`),
and a page's front matter reaches the theme only as an escaped title, tags and our status. A vault setting
`site_raw_html = true` turns off the sanitiser only (for a person's own, offline site). nh3 is imported
when a page is first cleaned. The interface's marks (`data-ihmt-t`, `data-ihmt-h`, see `strings`) are kept
only when they carry this process's token, which is stripped: a memory's HTML cannot make one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import strings

# What a page's HTML may hold: what Python-Markdown, the extensions Material documents (admonitions,
# details, footnotes, tables, task lists, tabs, highlighting, emoji as inline SVG, abbreviations, math)
# and our own header, badges and links produce; nothing that runs script, loads a frame or an object,
# submits a form, restyles the page or rewrites its base URL. Everything else is dropped: a tag outside
# the list loses its markup (its text stays), <script> and <style> lose their content too.
SAFE_TAGS = {
    "a",
    "abbr",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "li",
    "mark",
    "ol",
    "p",
    "path",
    "pre",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "small",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "ul",
    "var",
    "wbr",
}
SAFE_ATTRIBUTES = {
    "*": {"id", "class", "title", "lang", "dir", "data-ihmt-t", "data-ihmt-v", "data-ihmt-h"},  # see strings
    "a": {"href", "name"},  # name: Pygments' line anchors
    "img": {"src", "alt", "width", "height", "loading"},
    "th": {"align", "colspan", "rowspan", "style"},
    "td": {"align", "colspan", "rowspan", "style"},
    "col": {"span"},
    "colgroup": {"span"},
    "ol": {"start", "type"},
    "li": {"value"},
    "blockquote": {"cite"},
    "q": {"cite"},
    "del": {"cite", "datetime"},
    "ins": {"cite", "datetime"},
    "time": {"datetime"},
    "details": {"open"},
    "input": {"checked", "disabled", "name"},  # task lists (checkbox), content tabs (radio)
    "label": {"for"},
    "span": {"data-linenos"},
    "div": {"data-tabs"},  # Pygments' line numbers, content tabs
    "svg": {"xmlns", "viewBox", "width", "height", "fill"},
    "path": {"d", "fill"},  # emoji/icon shapes
}
SAFE_VALUES = {"input": {"type": {"checkbox", "radio"}}}
SAFE_SCHEMES = {"http", "https", "mailto"}  # relative links and #anchors always pass
_CLASS = re.compile(r"[A-Za-z_][\w-]*\Z")
_THEME_CLASSES = {"md-button", "md-button--primary"}  # Material's documented button classes
_THEME_IDS = ("__tabbed_", "__codelineno-")  # ids pymdownx generates itself


def _attribute_filter(tag: str, attr: str, value: str) -> str | None:
    if attr == "data-ihmt-t":  # the interface's words (strings.mark): only with this process's token
        return strings.key_of(value)
    if attr == "data-ihmt-h":  # a memory's header (pages.page_header): its badges' words are the interface's
        return "1" if strings.is_token(value) else None
    if attr == "data-ihmt-v":
        return value if value.isdigit() else None
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

    options = dict(
        tags=SAFE_TAGS,
        clean_content_tags={"script", "style"},
        attributes=SAFE_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        tag_attribute_values=SAFE_VALUES,
        url_schemes=SAFE_SCHEMES,
        filter_style_properties={"text-align"},  # table column alignment; no other CSS
        link_rel=None,  # no target= is allowed, so no rel=noopener is needed
        strip_comments=True,
    )
    if hasattr(nh3, "Cleaner"):  # nh3 >= 0.3: the allow-list is compiled once
        return nh3.Cleaner(**options).clean
    return lambda text: nh3.clean(text, **options)


def sanitize(page_html: str) -> str:
    """A page's rendered HTML with everything outside the allow-list removed (nh3, Rust's ammonia)."""
    return _cleaner()(page_html)


def html_text(fragment: str) -> str:
    """An HTML fragment reduced to its text, still escaped: a heading's title in the table of contents."""
    import nh3

    return nh3.clean(fragment, tags=set(), clean_content_tags={"script", "style"})
