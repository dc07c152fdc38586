"""The site as a new user meets it: struck-through OUTDATED lines, a local build that works from disk,
folder names that keep their acronyms, Obsidian image sizes, and `ihmt site serve` answering its search
box with the vault's own search (and nothing private)."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("mkdocs", reason="the site extra is not installed: pip install -e '.[site]'")
pytest.importorskip("material", reason="the site extra is not installed: pip install -e '.[site]'")

from ihmt_vault.frontends import site
from ihmt_vault.frontends.cli import main  # noqa: E402
from ihmt_vault.storage import tree  # noqa: E402


@pytest.fixture
def pg(vault):
    old = vault.save(
        "Staging runs PostgreSQL 15.", title="Staging runs PostgreSQL 15", topic="work/ci", date="2024-03-12"
    )
    new = vault.save(
        "Staging runs PostgreSQL 17.", title="Staging runs PostgreSQL 17", topic="work/ci", date="2026-02-03"
    )
    vault.mark_outdated(old.id, new.id)
    return vault, old, new


def test_outdated_lines_in_a_folder_page_are_struck_through(pg, tmp_path):
    v, old, new = pg
    site.build_site(v, tmp_path / "out")
    html = (tmp_path / "out/work/ci/index.html").read_text(encoding="utf-8")
    assert '<del>2024-03-12 · <a href="staging-runs-postgresql-15/">Staging runs PostgreSQL 15</a></del>' in html
    assert "~~" not in html


def test_a_local_build_links_files_so_it_works_opened_from_disk(pg, tmp_path):
    v, old, new = pg
    r = CliRunner().invoke(main, ["site", "build", "--vault", str(v.root), "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output
    assert (
        r.output.splitlines()[-1]
        == f"open {(tmp_path / 'local/index.html').as_uri()}  (from disk; search needs a server: 'ihmt site serve')"
    )
    assert (tmp_path / "local/work/ci/staging-runs-postgresql-17.html").is_file()
    assert 'href="work/index.html"' in (tmp_path / "local/index.html").read_text(encoding="utf-8")


def test_a_build_for_the_web_keeps_folder_urls(pg, tmp_path):
    v, old, new = pg
    r = CliRunner().invoke(main, ["site", "build", "--for-web", "--vault", str(v.root), "--out", str(tmp_path / "web")])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-1].startswith(f"publish {tmp_path / 'web'} on a web server")
    assert (tmp_path / "web/work/ci/staging-runs-postgresql-17/index.html").is_file()
    assert 'href="work/"' in (tmp_path / "web/index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name, label",
    [
        ("ci", "CI"),
        ("ci-cd", "CI CD"),
        ("api_docs", "API docs"),
        ("github", "GitHub"),
        ("recetas", "Recetas"),
        ("K8s", "K8s"),
    ],
)
def test_a_folder_name_keeps_a_known_acronym_and_spelling(name, label):
    assert tree.humanize(name) == label


def test_the_navigation_shows_ci_as_ci(pg, tmp_path):
    v, old, new = pg
    site.build_site(v, tmp_path / "out")
    assert "<title>CI - Memory</title>" in (tmp_path / "out/work/ci/index.html").read_text(encoding="utf-8")


def test_an_obsidian_image_embed_with_a_size_is_published_at_that_width(vault, tmp_path):
    (vault.root / "attachments").mkdir()
    (vault.root / "attachments/flow.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    m = vault.save("The deploy flow:\n\n![[flow.png|300]]\n", title="Deploy flow", topic="work")
    site.build_site(vault, tmp_path / "out")
    html = (tmp_path / "out" / m.path[:-3] / "index.html").read_text(encoding="utf-8")
    assert '<img alt="flow.png" src="../../attachments/flow.png" width="300">' in html
    assert (tmp_path / "out/attachments/flow.png").read_bytes() == b"\x89PNG\r\n\x1a\n"


# -- the vault's own search in the served site ---------------------------------------------------
@pytest.fixture
def kettle(vault):
    vault.save("The kettle is in the second drawer.", title="Where the kettle is", topic="home")
    vault.save("The kettle descaler is behind the sink.", title="Kettle descaler", topic="health")
    (vault.root / "health/.private").write_text("")
    return vault


def test_the_served_search_answers_over_the_published_memories_only(kettle):
    src = site.prepare(kettle, serving=True)
    r = site.search_answer(kettle, src.links, "kettle")
    assert (r["status"], r["query"], r["confidence"]) == ("found", "kettle", "high")
    assert [(h["title"], h["path"], h["url"], h["status"]) for h in r["hits"]] == [
        ("Where the kettle is", "home/where-the-kettle-is.md", "home/where-the-kettle-is/", "active")
    ]
    assert "descaler" not in json.dumps(r).lower()


def test_the_served_search_says_not_found_when_only_a_private_memory_matches(kettle):
    src = site.prepare(kettle, serving=True)
    r = site.search_answer(kettle, src.links, "descaler")
    assert (r["status"], r["hits"], r["candidates"], r["confidence"]) == ("not_found", [], [], "none")


def _call(app, path, query="", host="127.0.0.1:8000", method="GET"):
    seen = {}

    def start_response(status, headers):
        seen["status"], seen["headers"] = status, dict(headers)

    body = b"".join(
        app(
            {
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "HTTP_HOST": host,
                "REQUEST_METHOD": method,
                "wsgi.input": io.BytesIO(),
            },
            start_response,
        )
    )
    return seen["status"], seen["headers"], body


def test_the_search_endpoint_answers_json_and_passes_other_requests_on():
    def pages(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/html")])
        return [b"a page"]

    app = site.search_app(pages, lambda q, clue: {"query": q, "clue": clue}, "/", site.loopback_only("127.0.0.1"))
    status, headers, body = _call(app, "/_ihmt/search", "q=staging+postgres&clue=Benidorm")
    assert (status, json.loads(body)) == ("200 OK", {"query": "staging postgres", "clue": "Benidorm"})
    assert (
        headers["Content-Type"] == "application/json; charset=utf-8" and headers["X-Content-Type-Options"] == "nosniff"
    )
    assert _call(app, "/work/")[2] == b"a page"
    assert _call(app, "/_ihmt/search", "q=x", host="evil.example:8000")[0] == "403 Forbidden"
    assert _call(app, "/_ihmt/search", "q=x", method="POST")[0] == "405 Method Not Allowed"


def test_a_bad_query_is_a_400_with_the_vaults_message(vault):
    src = site.prepare(vault, serving=True)
    app = site.search_app(None, lambda q, clue: site.search_answer(vault, src.links, q, clue))
    status, _, body = _call(app, "/_ihmt/search", "q=")
    assert (status, json.loads(body)) == ("400 Bad Request", {"error": "the query is empty; say what to look for"})


def test_site_serve_answers_its_search_box_with_the_vaults_search(kettle):
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
            str(kettle.root),
            "--addr",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120  # a hang guard: the server is up once it answers
        while True:
            try:
                answer = json.loads(
                    urllib.request.urlopen(
                        f"http://127.0.0.1:{port}/_ihmt/search?q=where+is+the+kettle", timeout=10
                    ).read()
                )
                break
            except OSError:  # not up yet (refused), or busy building (a read timeout on a loaded machine)
                assert time.monotonic() < deadline and proc.poll() is None, "ihmt site serve did not start"
                time.sleep(0.2)
        assert (answer["status"], [h["title"] for h in answer["hits"]]) == ("found", ["Where the kettle is"])
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/diagnose/", timeout=10).read().decode()
        assert '<div id="ihmt-diagnose"></div>' in page and "_ihmt/search.js" in page
    finally:
        proc.terminate()
        proc.wait(30)
        proc.stderr.close()


def test_a_static_build_has_no_served_search(vault, tmp_path):
    vault.save("Hello site", title="Hello", topic="notes")
    site.build_site(vault, tmp_path / "out")
    assert not (tmp_path / "out/_ihmt/search.js").exists() and not (tmp_path / "out/diagnose").exists()
    assert "_ihmt/search.js" not in Path(tmp_path / "out/index.html").read_text(encoding="utf-8")


@pytest.mark.skipif(
    not __import__("shutil").which("chromium"), reason="Chromium is not installed (Debian: apt-get install chromium)"
)
def test_a_browser_sees_the_vaults_answer_in_the_search_box_as_text(kettle):
    from test_site import Chromium

    kettle.save(
        "The <b>spare</b> kettle <img src=x onerror=alert(1)> is in the attic.",
        title="Spare kettle <b>bold</b>",
        topic="home",
    )
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
            str(kettle.root),
            "--addr",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    browser = None
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read()
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline and proc.poll() is None, "ihmt site serve did not start"
                time.sleep(0.2)
        browser = Chromium(__import__("shutil").which("chromium"))
        browser.goto(f"http://127.0.0.1:{port}/")
        browser.js(
            "(i => { i.value = 'spare kettle'; i.dispatchEvent(new Event('input', {bubbles: true})); })"
            "(document.querySelector('[data-md-component=\"search-query\"]'))"
        )
        answer = None
        while not answer:
            assert time.monotonic() < deadline, "no answer from the vault's search in the search box"
            answer = browser.js(
                "(a => a && {status: a.querySelector('.ihmt-status').textContent,"
                " title: a.querySelector('.ihmt-hit__title').textContent,"
                " tags: a.querySelectorAll('b, img').length})(document.querySelector('.ihmt-answer'))"
            )
            time.sleep(0.1)
        assert answer == {"status": "FOUND", "title": "Spare kettle <b>bold</b>", "tags": 0}
    finally:
        if browser is not None:
            browser.close()
        proc.terminate()
        proc.wait(30)
