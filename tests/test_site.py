"""The site (`ihmt site`, the `ihmt` mkdocs plugin, the root mkdocs.yml): the sample vault builds with no
warnings, every memory has a page and every summary a section, wikilinks resolve, OUTDATED badges link to
the correction, private memories leave no trace; and a headless Chromium follows the navigation."""

from __future__ import annotations

import base64
import functools
import json
import os
import select
import shutil
import subprocess
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import article, page

pytest.importorskip("mkdocs", reason="the site extra is not installed: pip install -e '.[site]'")
pytest.importorskip("material", reason="the site extra is not installed: pip install -e '.[site]'")

from ihmt_vault import Vault  # noqa: E402
from ihmt_vault.frontends.cli import main  # noqa: E402
from ihmt_vault.frontends.demo import _copy_sample  # noqa: E402
from ihmt_vault.frontends.site import build_site  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PG15 = "work/infrastructure/databases/staging-runs-postgresql-15.md"
PG17 = "work/infrastructure/databases/staging-runs-postgresql-17.md"
PRIVATE = "personal/health/knee-physiotherapy.md"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The sample vault (as `ihmt demo` copies it) and its site, built once for the module."""
    tmp = tmp_path_factory.mktemp("site")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(tmp))
        _copy_sample(tmp / "vault")
        v = Vault.init(tmp / "vault", title="Ana's memory")
        report = build_site(v, tmp / "out")
        rows = v.memories()
        yield v, tmp / "out", report, rows
        v.close()


def test_the_sample_builds_with_no_warnings_and_no_broken_links(sample):
    v, out, report, rows = sample
    assert report["warnings"] == [] and report["broken_links"] == []
    assert report["memories"] == len(rows) - 1 and report["excluded"] == {"private": 1, "archived": 0}
    assert (out / "index.html").is_file() and (out / "search" / "search_index.json").is_file()


def test_every_memory_has_a_page_and_every_summary_a_section(sample):
    v, out, report, rows = sample
    for r in rows:
        if r["path"] != PRIVATE:
            assert r["title"] in article(page(out, r["path"])), r["path"]
    folders = {r["folder"] for r in rows}
    folders |= {f.rpartition("/")[0] for f in folders if "/" in f}
    for folder in folders:
        summary = page(out, f"{folder}/index.md")
        assert summary.is_file(), folder
        # In the navigation the folder is a section whose own link is the summary (navigation.indexes).
        assert "md-nav__item--active md-nav__item--nested" in summary.read_text(encoding="utf-8"), folder
    home = (out / "index.html").read_text(encoding="utf-8")
    home = home[home.index('<nav class="md-nav md-nav--primary"') :]
    for top in ("learning/", "people/", "personal/", "projects/", "work/", "timeline/", "recent-changes/"):
        assert f'href="{top}"' in home, top
    assert home.index('href="work/"') < home.index('href="timeline/"') < home.index('href="recent-changes/"')


def test_wikilinks_become_links_by_file_name_title_and_alias(sample):
    v, out, report, rows = sample
    search = article(page(out, "projects/tienda-search-rewrite.md"))
    assert '<a href="../../people/luis-ortega/">Luis Ortega</a>' in search  # [[file|alias]]
    assert (
        '<a href="../../work/infrastructure/databases/staging-runs-postgresql-17/">Staging runs PostgreSQL 17</a>'
    ) in search  # [[file]] → its title
    for file in out.rglob("*.html"):
        text = file.read_text(encoding="utf-8")
        assert "[[" not in text.replace("[[:", ""), file  # none left raw
        assert "ihmt-broken" not in text or file.name == "site.css", file


def test_outdated_badge_links_to_the_correction_and_pinned_has_a_mark(sample):
    v, out, report, rows = sample
    old = article(page(out, PG15))
    assert (
        '<a class="ihmt-badge ihmt-outdated" href="../staging-runs-postgresql-17/" '
        'title="Superseded: read the correction">OUTDATED → Staging runs PostgreSQL 17</a>'
    ) in old
    assert "2024-03-12 · fact · outdated" in old and "#postgresql" in old
    new = article(page(out, PG17))
    assert "ihmt-outdated" not in new and 'Corrects <a href="../staging-runs-postgresql-15/">' in new
    pinned = next(r for r in rows if r["pinned"])
    assert "📌 pinned" in article(page(out, pinned["path"]))
    nav = page(out, PG15).read_text(encoding="utf-8")
    assert "md-status md-status--outdated" in nav and "site.css" in nav


def test_private_memories_leave_no_trace(sample):
    v, out, report, rows = sample
    assert not page(out, PRIVATE).exists()
    secret = v.get(PRIVATE)
    for file in out.rglob("*"):
        if file.is_file() and file.suffix in (".html", ".json", ".xml"):
            text = file.read_text(encoding="utf-8")
            for word in ("tendinopathy", "knee-physiotherapy", secret.title, "Paula Roig"):
                assert word not in text, (file, word)
    health = article(page(out, "personal/health/index.md"))
    assert "1 memory" in health and "physio" not in health
    assert (v.root / "personal/health/index.md").read_text().count("Knee physiotherapy")  # the vault keeps it


def test_timeline_and_recent_changes(sample):
    v, out, report, rows = sample
    timeline = article(out / "timeline" / "index.html")
    dates = [line[4:14] for line in timeline.splitlines() if line.startswith("<li>")]
    assert dates and dates == sorted(dates, reverse=True)
    assert "supersedes" in timeline and "staging-runs-postgresql-15/" in timeline
    changes = article(out / "recent-changes" / "index.html")
    assert "<td>init</td>" in changes and "<td>ihmt</td>" in changes


def test_the_vault_is_never_written_and_a_second_build_is_stable(sample):
    v, out, report, rows = sample
    head = v.repo.head()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=v.root, capture_output=True, text=True).stdout
    again = build_site(v, out)
    assert again["warnings"] == [] and v.repo.head() == head
    assert subprocess.run(["git", "status", "--porcelain"], cwd=v.root, capture_output=True, text=True).stdout == status


@pytest.fixture
def edge_vault(tmp_path):
    v = Vault.init(tmp_path / "edge", title="Edge")
    b = v.save("Body of B.\n\n## Some heading\n\ntext", title="Note B", topic="alpha/beta", date="2025-01-01")
    v.save("Secret words xyzzy plugh", title="Secret thing", topic="alpha", date="2025-02-01")
    arch = v.save("An archived memory", title="Archived one", topic="gamma", date="2019-01-01")
    v.archive(arch.id)
    a = v.save(
        "Links: [[Note B]], [[note-b|label B]], [[Note B#Some heading|to heading]], [[missing note]], "
        f"[[Secret thing]], [[{b.id}]], [[alpha/beta]], [[Archived one]].\n\n"
        "```\n[[not a link]]\n```\n\nInline `[[also not]]`.\n\n| a | b |\n|---|---|\n| [[note-b\\|pipe]] | x |\n\n"
        "A Markdown link to [the secret](../alpha/secret-thing.md).\n",
        title="Note A",
        topic="gamma",
        date="2025-03-01",
    )
    secret = v.root / "alpha/secret-thing.md"
    secret.write_text(secret.read_text().replace("pinned: false", "pinned: false\nprivate: true"))
    yield v, a
    v.close()


def test_broken_links_are_reported_and_shown_not_fatal(edge_vault, tmp_path):
    v, a = edge_vault
    r = build_site(v, tmp_path / "out")
    assert r["broken_links"] == [{"page": a.path, "target": "missing note"}]
    assert r["warnings"] == [] and r["excluded"] == {"private": 1, "archived": 1}
    body = article(page(tmp_path / "out", a.path))
    assert body.count('<a href="../../alpha/beta/note-b/') == 5  # title, file, id, table
    assert '<a href="../../alpha/beta/note-b/#some-heading">to heading</a>' in body
    assert '<a href="../../alpha/beta/">Beta</a>' in body
    assert 'class="ihmt-broken" title="broken link: nothing named missing note">missing note</span>' in body
    assert body.count('class="ihmt-unpublished"') == 3  # private ×2, archived
    assert "[[not a link]]" in body and "[[also not]]" in body  # code is left alone
    assert not any("xyzzy" in f.read_text(encoding="utf-8", errors="ignore") for f in (tmp_path / "out").rglob("*.*"))
    assert not (tmp_path / "out" / "archive").exists()
    r = build_site(v, tmp_path / "out", with_archive=True)
    assert r["excluded"] == {"private": 1, "archived": 0}
    assert page(tmp_path / "out", "archive/gamma/archived-one.md").is_file()
    assert "ARCHIVED" in article(page(tmp_path / "out", "archive/gamma/archived-one.md"))


def test_a_mkdocs_yml_in_the_vault_is_respected(vault, tmp_path):
    vault.save("Something to publish", title="Hello", topic="notes")
    (vault.root / "mkdocs.yml").write_text(
        "site_name: My very own memory\ntheme:\n  name: material\nextra:\n  owner: me\n"
    )
    r = build_site(vault, tmp_path / "out")
    assert r["warnings"] == [] and r["memories"] == 1
    assert "My very own memory" in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert page(tmp_path / "out", "notes/hello.md").is_file()


def test_out_must_be_a_site_or_empty(vault, tmp_path):
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "thesis.tex").write_text("years of work")
    result = CliRunner().invoke(
        main, ["site", "build", "--vault", str(vault.root), "--out", str(tmp_path / "precious")]
    )
    assert result.exit_code == 2 and "not empty" in result.output
    assert (tmp_path / "precious" / "thesis.tex").read_text() == "years of work"
    result = CliRunner().invoke(main, ["site", "build", "--vault", str(vault.root), "--out", str(vault.root)])
    assert result.exit_code == 2


def test_cli_site_build_json_and_default_out(vault):
    vault.save("Hello site", title="Hello", topic="notes")
    result = CliRunner().invoke(main, ["site", "build", "--vault", str(vault.root), "--json"])
    assert result.exit_code == 0, result.output
    r = json.loads(result.output)
    assert r["memories"] == 1 and Path(r["out"]) == vault.root / ".ihmt" / "cache" / "site"
    assert Path(r["index"]).is_file()


def test_without_the_extra_the_cli_says_how_to_install_it(vault, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "mkdocs", None)  # `import mkdocs` now fails
    result = CliRunner().invoke(main, ["site", "build", "--vault", str(vault.root)])
    assert result.exit_code == 2 and "pip install 'ihmt-vault[site]'" in result.output


def test_the_root_mkdocs_yml_builds_the_sample_without_touching_it(tmp_path):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    before = {p: p.read_bytes() for p in (ROOT / "vault").rglob("*") if p.is_file()}
    cfg = load_config(config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "showcase"))
    cfg.plugins.on_startup(command="build", dirty=False)
    try:
        build(cfg)
    finally:
        cfg.plugins.on_shutdown()
    assert cfg.plugins["ihmt"].broken == []
    assert "OUTDATED" in article(page(tmp_path / "showcase", PG15))
    assert not page(tmp_path / "showcase", PRIVATE).exists()
    assert {p: p.read_bytes() for p in (ROOT / "vault").rglob("*") if p.is_file()} == before


def test_the_showcase_and_generated_configurations_agree():
    import yaml

    from ihmt_vault.frontends import site

    showcase = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert showcase["theme"] == site.THEME and showcase["markdown_extensions"] == site.MARKDOWN_EXTENSIONS
    assert showcase["plugins"][0] == "search" and "ihmt" in showcase["plugins"][1]


def test_serve_rebuilds_when_a_memory_is_edited(vault):
    import signal
    import socket
    import sys
    import urllib.request

    m = vault.save("The kettle is in the second drawer.", title="Where the kettle is", topic="home")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ihmt_vault",
            "site",
            "serve",
            "--vault",
            str(vault.root),
            "--addr",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/{m.path[:-3]}/"

    def page_text(until: str, seconds: float = 60) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                text = urllib.request.urlopen(url, timeout=5).read().decode()
                if until in text:
                    return text
            except OSError:
                pass
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.2)
        raise AssertionError(f"{until!r} never appeared at {url}")

    try:
        page_text("second drawer")
        file = vault.root / m.path
        file.write_text(file.read_text().replace("second drawer", "third drawer"))
        page_text("third drawer")  # live reload picked up the edit in the vault
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()


# --- the browser ---------------------------------------------------------------------------------
class Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`): no
    websocket client, no downloads; the Debian package `chromium`."""

    def __init__(self, exe: str, timeout: float = 30):
        self.timeout, self.n, self.buf = timeout, 0, b""
        to_chrome, self._w = os.pipe()
        self._r, from_chrome = os.pipe()

        def fds():  # the protocol pipe is fd 3 (commands in) and fd 4 (answers out)
            a, b = os.dup(to_chrome), os.dup(from_chrome)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                "--no-first-run",
                "--hide-scrollbars",
                "--window-size=1280,900",
                "about:blank",
            ],
            close_fds=False,
            preexec_fn=fds,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome)
        os.close(from_chrome)
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params or {}, **({"sessionId": session} if session else {})}
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" not in self.buf:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._r], [], [], left)[0]:
                    raise TimeoutError(f"chromium did not answer {method}")
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium exited")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.n:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def js(self, expression: str):
        """Evaluate in the page; retried while a navigation swaps the page out from under it."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, self.session)
                return r["result"].get("value")
            except RuntimeError as e:
                if "navigated or closed" not in str(e) and "context" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def wait_for(self, url_part: str) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if url_part in (self.js("location.href") or "") and self.js("document.readyState") == "complete":
                return
            time.sleep(0.05)
        raise TimeoutError(f"page {url_part} did not load (at {self.js('location.href')})")

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url}, self.session)
        self.wait_for(url)

    def nav_links(self) -> dict[str, str]:
        """The primary navigation as the browser shows it: label → absolute URL."""
        return self.js(
            "Object.fromEntries([...document.querySelectorAll('nav.md-nav--primary a.md-nav__link')]"
            ".map(a => [a.textContent.trim(), a.href]).reverse())"
        )

    def click_nav(self, label: str) -> str:
        links = self.nav_links()
        assert label in links, f"{label!r} not in the navigation: {sorted(links)}"
        self.js(
            f"setTimeout(() => [...document.querySelectorAll('nav.md-nav--primary a.md-nav__link')]"
            f".find(a => a.textContent.trim() === {json.dumps(label)}).click(), 0)"
        )
        self.wait_for(links[label])
        return links[label]

    def screenshot(self, file: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        file.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._w)
        os.close(self._r)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served(sample):
    """The sample site served over HTTP on 127.0.0.1 (a free port), like `python -m http.server`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(sample[1])))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(
    not CHROMIUM, reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)"
)
def test_a_browser_follows_the_navigation_to_an_outdated_memory(served, tmp_path):
    browser = Chromium(CHROMIUM)
    try:
        browser.goto(served)
        assert browser.js("document.querySelector('article h1').firstChild.textContent.trim()") == "Ana's memory"
        for label in ("Work", "Infrastructure", "Databases", "Staging runs PostgreSQL 15"):
            browser.click_nav(label)
        assert browser.js("location.pathname") == "/work/infrastructure/databases/staging-runs-postgresql-15/"
        assert (
            browser.js("document.querySelector('article h1').firstChild.textContent.trim()")
            == "Staging runs PostgreSQL 15"
        )
        badge = browser.js(
            "(b => b && {text: b.textContent.trim(), href: b.href, bg: getComputedStyle(b).backgroundColor,"
            " w: b.getBoundingClientRect().width})(document.querySelector('article a.ihmt-outdated'))"
        )
        assert badge["text"] == "OUTDATED → Staging runs PostgreSQL 17"
        assert badge["href"].endswith("/work/infrastructure/databases/staging-runs-postgresql-17/")
        assert badge["bg"] == "rgb(198, 40, 40)" and badge["w"] > 50  # the stylesheet applies: visible, red
        shot = Path(os.environ.get("IHMT_SCREENSHOT_DIR", tmp_path)) / "site-outdated-memory.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        browser.screenshot(shot)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
        browser.js("setTimeout(() => document.querySelector('article a.ihmt-outdated').click(), 0)")  # it leads on
        browser.wait_for("/staging-runs-postgresql-17/")
        assert (
            browser.js("document.querySelector('article h1').firstChild.textContent.trim()")
            == "Staging runs PostgreSQL 17"
        )
    finally:
        browser.close()
