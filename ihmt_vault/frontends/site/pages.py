"""The pages the site adds: the header above each memory, the Timeline, Recent changes, Diagnose and Set up.

Their interface words are marks (`strings.mark`), which the site's script shows in the chosen language;
what they quote from memories is escaped text (`md_text`), never marked.
"""

from __future__ import annotations

from ...vault import Vault
from .links import Links, href, name_key
from .markup import md_text
from .publishing import Entry, under_private
from .strings import TOKEN, mark

TIMELINE, CHANGES, DIAGNOSE, SETUP = "timeline.md", "recent-changes.md", "diagnose.md", "setup.md"
CHANGES_SHOWN = 100
# Navigation marks (Material's page status): tooltips; the icons are in static/site.css.
NAV_STATUS = {
    "outdated": "Outdated: superseded by a newer memory",
    "pinned": "Pinned: a core memory",
    "archived": "Archived: kept as history",
}


def page_header(e: Entry, links: Links) -> str:
    """The small header above a memory: badges (OUTDATED → its correction, pinned) and date, type, status, tags."""
    badges = []
    if e.status == "outdated":
        fix = next((f for f in (links.published(i) for i in e.superseded_by) if f), None)
        if fix:
            badges.append(
                f"[OUTDATED → {md_text(fix.title)}]({href(fix.path, e.path)})"
                '{ .ihmt-badge .ihmt-outdated title="Superseded: read the correction" }'
            )
        else:
            badges.append('<span class="ihmt-badge ihmt-outdated" title="Superseded by a newer memory">OUTDATED</span>')
    elif e.status == "archived":
        badges.append(
            '<span class="ihmt-badge ihmt-archived" title="Archived: decayed, kept as history">ARCHIVED</span>'
        )
    if e.pinned:
        badges.append(
            '<span class="ihmt-badge ihmt-pinned" title="Pinned: a core memory, it never decays">📌 pinned</span>'
        )
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
    if not body:
        return ""
    # data-ihmt-h marks the header as ours: the site's script shows its badges' words and "Corrects" in
    # the chosen language (a memory's own look-alike carries no token, so it keeps its words)
    return f'<div class="ihmt-header" markdown>\n\n{body}<span data-ihmt-h="{TOKEN}"></span>\n\n</div>\n\n'


def timeline_page(v: Vault, links: Links, here: str = TIMELINE) -> str:
    """Facts and corrections over time, newest first, grouped by year."""
    events: list[tuple[str, int, str]] = []
    for t in v.memories.facts():
        shown_before = None
        for said in t.entries:  # oldest first
            m = links.published(said.memory_id)
            if not m or not said.valid_from:
                continue
            was = (
                f" ({mark('timeline.was')} {md_text(shown_before)})"
                if shown_before is not None and shown_before != said.value
                else ""
            )
            until = f", {mark('timeline.until')} {md_text(said.valid_to)}" if said.valid_to else ""
            events.append(
                (
                    said.valid_from,
                    1,
                    f"**{md_text(t.subject)}** {md_text(t.attribute)}: "
                    f"{md_text(said.value)}{was}{until} — "
                    f"[{md_text(m.title)}]({href(m.path, here)})",
                )
            )
            shown_before = said.value
    for e in links.entries.values():
        if e.hidden or not e.supersedes or not e.date:
            continue
        old = [o for o in (links.published(i) for i in e.supersedes) if o]
        what = ", ".join(f"[{md_text(o.title)}]({href(o.path, here)})" for o in old) or mark("timeline.unpublished")
        events.append(
            (
                e.date,
                0,
                f"**{mark('timeline.correction')}**: [{md_text(e.title)}]({href(e.path, here)}) "
                f"{mark('timeline.supersedes')} {what}",
            )
        )
    lines = [
        "---",
        "title: Timeline",
        "---",
        f"# {mark('timeline.title')}",
        "",
        f'<p class="ihmt-intro">{mark("timeline.intro")}</p>',
    ]
    if not events:
        lines += ["", f"<p>{mark('timeline.empty')}</p>"]
    year = None
    for date, _, text in sorted(events, key=lambda x: (x[0], -x[1], x[2]), reverse=True):
        if date[:4] != year:
            year = date[:4]
            lines += ["", f"## {md_text(year)}", ""]
        lines.append(f"- {md_text(date)} · {text}")
    return "\n".join(lines) + "\n"


def changes_page(v: Vault, links: Links, here: str = CHANGES, limit: int = CHANGES_SHOWN) -> str:
    """The vault's latest operations from the git log: when, operation, agent, what."""
    private_titles = {name_key(e.title) for e in links.entries.values() if e.hidden == "private"}
    private_ids = {e.id for e in links.entries.values() if e.hidden == "private" and e.id}
    lines = [
        "---",
        "title: Recent changes",
        "---",
        f"# {mark('changes.title')}",
        "",
        f'<p class="ihmt-intro">{mark("changes.intro", n=limit)}</p>',
        "",
        "| " + " | ".join(mark(f"changes.{k}") for k in ("when", "operation", "agent", "what")) + " |",
        "|---|---|---|---|",
    ]
    for c in v.history.changes(limit=limit):
        paths = [p for p in c.path.split(", ") if p]
        entries = [links.entries.get(p) for p in paths]
        subject = c.subject
        if (
            any(e is not None and e.hidden == "private" for e in entries)
            or set(c.ids) & private_ids
            or name_key(subject.partition(": ")[2]) in private_titles
            or any(under_private(p, links.private_dirs) for p in paths)
        ):  # a change in a private folder
            subject, entries = "", []
        what = md_text(subject) if subject else mark("changes.private")
        shown = [e for e in entries if e is not None and not e.hidden]
        if shown:
            what += " — " + ", ".join(f"[{md_text(e.title)}]({href(e.path, here)})" for e in shown)
        lines.append(f"| {c.date[:16].replace('T', ' ')} | {md_text(c.op)} | {md_text(c.agent)} | {what} |")
    return "\n".join(lines) + "\n"


def diagnose_page(v: Vault, links: Links, here: str = DIAGNOSE) -> str:
    """The page where the served site asks the vault's own search (static/search.js fills it in)."""
    return "\n".join(
        [
            "---",
            "title: Diagnose a search",
            "---",
            f"# {mark('diagnose.title')}",
            "",
            f'<p class="ihmt-intro">{mark("diagnose.intro")}</p>',
            "",
            '<div id="ihmt-diagnose"></div>',
            "",
        ]
    )


def setup_page(v: Vault, links: Links, here: str = SETUP) -> str:
    """The Set up screen (served sites only): static/search.js fills it in from `_ihmt/setup`
    (`screens.setup_answer`): the agents connected to the vault, its health, the commands that fix."""
    return "\n".join(
        [
            "---",
            "title: Set up",
            "---",
            f"# {mark('setup.title')}",
            "",
            f'<p class="ihmt-intro">{mark("setup.intro")}</p>',
            "",
            f'<div id="ihmt-setup"><p>{mark("setup.loading")}</p></div>',
            "",
        ]
    )
