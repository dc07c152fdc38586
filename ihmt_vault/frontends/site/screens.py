"""The GUI's four screens: Set up, Explore, Diagnose, Timeline; their bar, and what Set up shows.

- `screens_bar` is the HTML the plugin puts at the top of every page: the screens in that order (Set up
  and Diagnose only on a site `ihmt site serve` serves), the current one marked, and the language switch
  (`static/gui.js` makes it work). It holds no memory text.
- `setup_answer` is what the Set up screen shows (the served endpoint `_ihmt/setup`, asked by
  `static/search.js`): each agent's connection to this vault (`agents.status`, as `ihmt setup --list`
  sees it), the vault's health (`Vault.maintenance.doctor`, as `ihmt doctor` sees it, never repairing),
  and for each thing missing the exact command that fixes it. It runs nothing; paths under the home
  folder are written `~/...`, and a finding about a private memory names no path.
"""

from __future__ import annotations

import html
import json
import shlex
from pathlib import Path

from ...vault import Vault
from .. import agents
from .links import Links
from .pages import DIAGNOSE, SETUP, TIMELINE
from .publishing import under_private
from .strings import LANGUAGES, text

# The screens in the navigation's order: (name, the generated page it is, or "" for the site's home).
SCREENS = (("setup", SETUP), ("explore", ""), ("diagnose", DIAGNOSE), ("timeline", TIMELINE))
SERVED_ONLY = {"setup", "diagnose"}
# A generated page's words (in the sidebar, the browser's title): the strings key of its title.
PAGE_TITLES = {
    SETUP: "setup.title",
    DIAGNOSE: "diagnose.title",
    TIMELINE: "timeline.title",
    "recent-changes.md": "changes.title",
}


def page_kind(src: str, generated: list[str]) -> str | None:
    """Which generated page `src` is (`timeline.md`, even when a topic took the name and it became
    `vault-timeline.md`), or None for a memory or a summary."""
    if src not in generated:
        return None
    return next((name for name in PAGE_TITLES if src == name or src.endswith("-" + name)), None)


def screen_of(src: str, generated: list[str]) -> str:
    """The screen a page belongs to: Set up, Diagnose, Timeline (Recent changes too) or else Explore."""
    kind = page_kind(src, generated)
    return {SETUP: "setup", DIAGNOSE: "diagnose", TIMELINE: "timeline", "recent-changes.md": "timeline"}.get(
        kind or "", "explore"
    )


def screens_bar(hrefs: dict[str, str], current: str, titles: dict[str, str]) -> str:
    """The bar: `hrefs` maps each screen this site has to its URL relative to the page; `titles` maps
    each generated page's relative URL to its title's strings key (the script translates the sidebar)."""
    items = []
    for name, _page in SCREENS:
        if name not in hrefs:
            continue
        here = ' aria-current="page"' if name == current else ""
        items.append(
            f'<li><a class="ihmt-screen" href="{html.escape(hrefs[name])}" data-ihmt-screen="{name}"'
            f' data-ihmt-t="nav.{name}"{here}>{html.escape(text("nav." + name))}</a></li>'
        )
    switch = "".join(
        f'<button type="button" data-ihmt-lang="{code}" lang="{code}">{html.escape(name)}</button>'
        for code, name in LANGUAGES.items()
    )
    pages = html.escape(json.dumps(titles, sort_keys=True))
    return (
        f'<nav class="ihmt-screens" aria-label="{text("nav.label")}" data-ihmt-a="nav.label" '
        f'data-ihmt-pages="{pages}"><ol>{"".join(items)}</ol>'
        f'<div class="ihmt-lang" role="group" aria-label="{text("lang.label")}" data-ihmt-a="lang.label">'
        f"{switch}</div></nav>"
    )


# -- Set up ------------------------------------------------------------------------------------------
def _shown(path: Path, home: Path) -> str:
    """A path as a command or a person reads it: under the home folder as `~/...` (quoted for a shell)."""
    try:
        rel = path.relative_to(home)
    except ValueError:
        return shlex.quote(str(path))
    return "~" if not rel.parts else "~/" + shlex.quote(rel.as_posix())


def _vault_named(server: str, scope: str, env: agents.Env) -> Path | None:
    """The vault an agent's configured server command opens: its `--vault`, else the one the CLI would
    find (the project's, $IHMT_VAULT, ~/.ihmt/vault)."""
    try:
        argv = shlex.split(server)
    except ValueError:
        return None
    given = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--vault"), None)
    given = given or next((a.split("=", 1)[1] for a in argv if a.startswith("--vault=")), None)
    return agents.chosen_vault(Path(given) if given else None, env)


def _vault_option(root: Path, env: agents.Env) -> str:
    """` --vault ROOT` for a command, or nothing when `ihmt` would open that vault without it."""
    default = agents.chosen_vault(None, agents.Env(env.home, env.home, env.platform, env.environ))
    return "" if default == root else " --vault " + _shown(root, env.home)


def agent_rows(root: Path, env: agents.Env | None = None) -> list[dict]:
    """Each agent's connection to the vault at `root`: every agent at user scope, and at project scope
    (the current folder) the ones set up there; what is missing and the command that adds it."""
    env = env or agents.Env.current()
    root = root.resolve()
    vault_arg = _vault_option(root, env)
    rows = []
    for r in agents.status(env):
        if r["scope"] != "user" and not r["server"]:
            continue
        agent = agents.AGENTS[r["agent"]]
        missing = []
        if r["server"] and agent.instructions(r["scope"], env) is not None and not r["instructions"]:
            missing.append("instructions")
        if r["server"] and r["hook"] is False:
            missing.append("hook")
        named = _vault_named(r["server"], r["scope"], env) if r["server"] else None
        if not r["server"]:
            state = "not_set_up"
        elif named != root:
            state = "other_vault"
        else:
            state = "partial" if missing else "connected"
        scope = "" if r["scope"] == "user" else " --scope project"
        rows.append(
            {
                "agent": r["agent"],
                "label": agent.label,
                "scope": r["scope"],
                "state": state,
                "config": _shown(Path(r["config"]), env.home),
                "vault": _shown(named, env.home) if named else None,
                "missing": missing,
                "command": "" if state == "connected" else f"ihmt setup {r['agent']}{scope}{vault_arg}",
            }
        )
    return rows


def setup_answer(v: Vault, links: Links, env: agents.Env | None = None) -> dict:
    """What the Set up screen shows (see the module's docstring)."""
    env = env or agents.Env.current()
    root = v.root.resolve()
    vault_arg = _vault_option(root, env)
    problems = []
    for p in v.maintenance.doctor(repair=False):
        entry = links.entries.get(p.path)
        private = (entry is not None and entry.hidden == "private") or under_private(p.path, links.private_dirs)
        problems.append(
            {
                "kind": p.kind,
                "path": "" if private else p.path,
                "message": "" if private else p.message,
                "repairable": p.repairable,
            }
        )
    return {
        "vault": _shown(root, env.home),
        "agents": agent_rows(root, env),
        "health": {
            "healthy": not problems,
            "problems": problems,
            "command": f"ihmt doctor --repair{vault_arg}" if any(p["repairable"] for p in problems) else "",
        },
    }
