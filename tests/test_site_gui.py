"""The GUI's four screens (Set up, Explore, Diagnose, Timeline) in English and Spanish, in headless
Chromium against the real `ihmt site serve` (a subprocess on a real vault, HOME isolated); and the
pieces behind them that need no browser: the strings table, the marks the sanitiser keeps, what a built
site publishes."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the site extra is not installed: pip install -e '.[site]'")
pytest.importorskip("material", reason="the site extra is not installed: pip install -e '.[site]'")

from test_site import Chromium  # noqa: E402

from ihmt_vault import Vault  # noqa: E402
from ihmt_vault.frontends import site  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    not CHROMIUM, reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)"
)
TITLE = "Casa de Ana"
KETTLE = "Where the kettle is"
KETTLE_TEXT = "The kettle is in the second drawer, next to the tea."
HOSTILE = "Spare kettle <script>window.__pwned = 'title'</script>"
HOSTILE_FILE = "<img src=x onerror=window.__pwned='file'>.md"
ENGLISH = ["Set up", "Explore", "Diagnose", "Timeline"]
SPANISH = ["Configurar", "Explorar", "Diagnosticar", "Cronología"]
HEADINGS = {
    "setup/": ("Set up", "Configurar"),
    "": (TITLE, TITLE),  # Explore: the vault's own title, as written
    "diagnose/": ("Diagnose a search", "Diagnosticar una búsqueda"),
    "timeline/": ("Timeline", "Cronología"),
}
TIMEOUT = 120  # a hang guard on a loaded machine, never a wait: every wait polls for what it needs


def until(browser: Chromium, expression: str, what: str):
    """Poll the page until `expression` is truthy; its value (an element comes back as {}: ask `!!`)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        value = browser.js(expression)
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


# --- the served site, once for the module --------------------------------------------------------
@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`ihmt site serve` on a real vault, with Claude Code set up (`ihmt setup claude-code`) in an
    isolated HOME; yields (base URL, vault root)."""
    tmp = tmp_path_factory.mktemp("gui")
    home = tmp / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("IHMT_VAULT", "GIT_DIR", "GIT_WORK_TREE")}
    env["HOME"] = str(home)
    v = Vault.init(tmp / "vault", title=TITLE)
    v.save(KETTLE_TEXT, title=KETTLE, topic="home")
    v.save("The spare kettle is in the attic.", title=HOSTILE, topic="home")
    old = v.save("Staging runs PostgreSQL 15.", title="Staging database", topic="work", date="2024-03-12")
    v.save("Staging runs PostgreSQL 17.", title="Staging database upgraded", topic="work", supersedes=[old.id])
    root = v.root
    v.close()
    # A file by hand, not yet taken in: doctor reports it, by a name that is markup.
    (root / "home" / HOSTILE_FILE).write_text("Left here by hand.\n", encoding="utf-8")
    run = [sys.executable, "-m", "ihmt_vault"]
    subprocess.run(
        [*run, "setup", "claude-code", "--vault", str(root)], env=env, cwd=tmp, check=True, capture_output=True
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [*run, "site", "serve", "--vault", str(root), "--addr", f"127.0.0.1:{port}"],
        env=env,
        cwd=tmp,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:  # up once the Set up page answers (built: the staging and the pages are ready)
            try:
                urllib.request.urlopen(base + "setup/", timeout=10).read()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "ihmt site serve did not start"
                time.sleep(0.2)
        yield base, root
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def chromium():
    if not CHROMIUM:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
    browser = Chromium(CHROMIUM)
    yield browser
    browser.close()


@pytest.fixture
def browser(chromium, served):
    """The browser on the served site with no language chosen yet, asking for English."""
    chromium.send(
        "Network.setUserAgentOverride",
        {"userAgent": "Mozilla/5.0 ihmt-test", "acceptLanguage": "en-US"},
        chromium.session,
    )
    chromium.goto(served[0])
    chromium.js("localStorage.clear()")
    return chromium


def open_screen(browser: Chromium, base: str, path: str) -> None:
    browser.goto(base + path)
    until(browser, "!!(window.ihmtI18n && document.querySelector('.ihmt-screens'))", f"the screens' bar on /{path}")


def bar(browser: Chromium) -> list[str]:
    return browser.js("[...document.querySelectorAll('.ihmt-screens a.ihmt-screen')].map(a => a.textContent.trim())")


def heading(browser: Chromium) -> str:
    return browser.js("document.querySelector('article h1').firstChild.textContent.trim()")


def to_spanish(browser: Chromium) -> None:
    browser.js("document.querySelector('[data-ihmt-lang=\"es\"]').click()")
    until(browser, "document.documentElement.lang === 'es'", "the switch to Spanish")


def setup_row(browser: Chromium, agent: str) -> dict:
    until(browser, "!!document.querySelector('#ihmt-setup .ihmt-agents table')", "the Set up screen's agents")
    return browser.js(
        f"(r => r && {{state: r.querySelector('.ihmt-state').textContent.trim(),"
        f" fix: r.querySelector('.ihmt-agent__fix').textContent.trim()}})"
        f"(document.querySelector('#ihmt-setup tr[data-agent={json.dumps(agent)}]'))"
    )


# --- the four screens ----------------------------------------------------------------------------
@needs_chromium
@pytest.mark.parametrize("path", list(HEADINGS), ids=["setup", "explore", "diagnose", "timeline"])
def test_each_screen_loads_and_shows_its_heading(browser, served, path):
    open_screen(browser, served[0], path)
    assert heading(browser) == HEADINGS[path][0]


@needs_chromium
def test_the_navigation_names_the_four_screens_in_order_and_marks_the_current_one(browser, served):
    open_screen(browser, served[0], "timeline/")
    assert bar(browser) == ENGLISH
    assert browser.js("document.querySelector('.ihmt-screens [aria-current=page]').textContent") == "Timeline"


@needs_chromium
def test_set_up_lists_an_agent_connected_with_ihmt_setup(browser, served):
    open_screen(browser, served[0], "setup/")
    assert setup_row(browser, "claude-code") == {"state": "connected", "fix": ""}


@needs_chromium
def test_set_up_shows_the_command_for_an_agent_not_set_up(browser, served):
    open_screen(browser, served[0], "setup/")
    assert setup_row(browser, "codex") == {"state": "not set up", "fix": f"ihmt setup codex --vault {served[1]}"}


@needs_chromium
def test_set_up_shows_the_vaults_health_and_the_command_that_repairs_it(browser, served):
    open_screen(browser, served[0], "setup/")
    until(browser, "!!document.querySelector('.ihmt-health pre.ihmt-command')", "the repair command")
    health = browser.js("document.querySelector('.ihmt-health').innerText")
    assert "Problems found" in health and "missing-keys" in health
    assert browser.js("document.querySelector('.ihmt-health pre.ihmt-command').textContent") == (
        f"ihmt doctor --repair --vault {served[1]}"
    )


@needs_chromium
def test_diagnose_answers_a_search_with_the_vaults_own_search(browser, served):
    open_screen(browser, served[0], "diagnose/?ask=kettle+second+drawer")
    status = until(
        browser, "(s => s && s.textContent)(document.querySelector('.ihmt-answer .ihmt-status'))", "an answer"
    )
    assert status == "FOUND"
    assert browser.js("document.querySelector('.ihmt-hit__title').textContent") == KETTLE


# --- English and Spanish -------------------------------------------------------------------------
@needs_chromium
def test_switching_to_spanish_changes_the_navigation_and_the_headings(browser, served):
    open_screen(browser, served[0], "setup/")
    to_spanish(browser)
    assert bar(browser) == SPANISH
    assert heading(browser) == "Configurar"
    for path, (_, spanish) in HEADINGS.items():
        open_screen(browser, served[0], path)
        assert (bar(browser), heading(browser)) == (SPANISH, spanish), path
    open_screen(browser, served[0], "setup/")
    assert setup_row(browser, "codex")["state"] == "sin configurar"


@needs_chromium
def test_switching_to_spanish_leaves_a_memorys_text_as_written(browser, served):
    open_screen(browser, served[0], "home/where-the-kettle-is/")
    memory = "document.querySelector('article').innerText.split('\\n').filter(l => l.includes('kettle'))"
    before = browser.js(memory)
    assert KETTLE in before and KETTLE_TEXT in before
    to_spanish(browser)
    assert browser.js(memory) == before and bar(browser) == SPANISH


@needs_chromium
def test_switching_to_spanish_translates_a_memorys_badge_but_not_its_title(browser, served):
    open_screen(browser, served[0], "work/")
    links = browser.js(
        "Object.fromEntries([...document.querySelectorAll('article a')].map(a => [a.textContent.trim(), a.href]))"
    )
    open_screen(browser, served[0], links["Staging database"][len(served[0]) :])
    badge = "document.querySelector('article .ihmt-header a.ihmt-outdated').textContent"
    assert browser.js(badge) == "OUTDATED → Staging database upgraded"
    to_spanish(browser)
    assert browser.js(badge) == "OBSOLETA → Staging database upgraded"


@needs_chromium
def test_the_chosen_language_survives_a_reload(browser, served):
    open_screen(browser, served[0], "timeline/")
    to_spanish(browser)
    browser.js("window.__before_reload = true")
    browser.send("Page.reload", {}, browser.session)
    until(browser, "!window.__before_reload && document.readyState === 'complete'", "the reload")
    assert (bar(browser), heading(browser)) == (SPANISH, "Cronología")


@needs_chromium
def test_a_browser_asking_for_spanish_starts_in_spanish(browser, served):
    browser.send(
        "Network.setUserAgentOverride",
        {"userAgent": "Mozilla/5.0 ihmt-test", "acceptLanguage": "es-ES"},
        browser.session,
    )
    open_screen(browser, served[0], "diagnose/")
    assert (bar(browser), heading(browser)) == (SPANISH, "Diagnosticar una búsqueda")


# --- memory text is untrusted ----------------------------------------------------------------------
@needs_chromium
def test_a_memory_title_with_a_script_is_text_on_explore(browser, served):
    open_screen(browser, served[0], "home/")
    links = browser.js(
        "Object.fromEntries([...document.querySelectorAll('article a')].map(a => [a.textContent.trim(), a.href]))"
    )
    assert HOSTILE in links  # in the folder's page, as text
    open_screen(browser, served[0], links[HOSTILE][len(served[0]) :])
    assert heading(browser) == HOSTILE
    assert browser.js("window.__pwned === undefined && !document.querySelector('article script')")


@needs_chromium
def test_a_file_name_with_markup_is_text_on_set_up(browser, served):
    open_screen(browser, served[0], "setup/")
    until(browser, "!!document.querySelector('.ihmt-problem__path')", "the health findings")
    paths = browser.js("[...document.querySelectorAll('.ihmt-problem__path')].map(p => p.textContent)")
    assert f"home/{HOSTILE_FILE}" in paths
    assert browser.js("window.__pwned === undefined && !document.querySelector('#ihmt-setup img')")


# --- without a browser ---------------------------------------------------------------------------
def test_every_interface_string_is_in_english_and_spanish():
    en, es = site.STRINGS["en"], site.STRINGS["es"]
    assert set(en) == set(es) and all(en.values()) and all(es.values())
    assert [en[f"nav.{s}"] for s, _ in site.SCREENS] == ENGLISH
    assert [es[f"nav.{s}"] for s, _ in site.SCREENS] == SPANISH


def test_the_sanitiser_keeps_the_sites_marks_and_drops_a_memorys_own():
    ours = site.sanitize(site.mark("nav.setup"))
    assert ours == '<span data-ihmt-t="nav.setup">Set up</span>'  # the token is stripped
    forged = '<span data-ihmt-t="nav.setup">mine</span><span data-ihmt-t="0000:nav.setup">mine</span>'
    assert site.sanitize(forged) == "<span>mine</span><span>mine</span>"


def test_a_built_site_has_explore_and_timeline_but_no_set_up(vault, tmp_path):
    vault.save(KETTLE_TEXT, title=KETTLE, topic="home")
    site.build_site(vault, tmp_path / "out", for_web=True)
    out = tmp_path / "out"
    assert not (out / "setup").exists() and not (out / "diagnose").exists()
    home = (out / "index.html").read_text(encoding="utf-8")
    screens = home[home.index('<nav class="ihmt-screens"') :]
    screens = screens[: screens.index("</nav>")]
    assert 'data-ihmt-screen="explore"' in screens and 'data-ihmt-screen="timeline"' in screens
    assert "setup" not in screens.replace("nav.setup", "") and "_ihmt/gui.js" in home
    assert str(Path.home()) not in "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))


def test_the_set_up_endpoint_answers_only_a_server_bound_to_localhost():
    def call(app, host):
        got = {}
        body = app(
            {"PATH_INFO": "/_ihmt/setup", "REQUEST_METHOD": "GET", "HTTP_HOST": host},
            lambda status, headers: got.setdefault("status", status),
        )
        return got["status"], json.loads(b"".join(body))

    answer = {"agents": []}
    local = site.search_app(None, None, "/", site.loopback_only("127.0.0.1"), lambda: answer)
    assert call(local, "127.0.0.1:8000") == ("200 OK", answer)
    assert call(local, "evil.example:8000")[0] == "403 Forbidden"
    public = site.search_app(None, None, "/", site.loopback_only("0.0.0.0"), lambda: answer)
    assert call(public, "example.org")[0] == "403 Forbidden"
