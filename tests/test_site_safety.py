"""The site leaks nothing ("Nothing leaked", site part). Agents fill a vault from untrusted web pages and
logs, so memory text is untrusted wherever the site renders it:

- no payload below, in a memory's body, title, tag, front matter, facts or folder name, reaches any built
  HTML or JSON file as live markup (no script of its own, no on*= handler, no javascript: URL, no frame,
  no live SVG, no element taking the theme's `__config` id); titles and tags show as text instead;
- what a person legitimately writes keeps working: Markdown, code blocks (a <script> in one shows as
  text), tables, images from the vault, Material's extensions, our own badges and wikilinks;
- only what a published memory references (or `attachments/` holds) is published, never through a
  symlink, never from outside the vault, never from a private memory or a folder marked `.private`.

Each vault is built once per module (a build takes about a second); the tests read the output files.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import article, page

pytest.importorskip("mkdocs", reason="the site extra is not installed: pip install -e '.[site]'")
pytest.importorskip("material", reason="the site extra is not installed: pip install -e '.[site]'")
pytest.importorskip("nh3")

from ihmt_vault import Vault  # noqa: E402
from ihmt_vault.frontends.site import build_site  # noqa: E402

# --- the payloads --------------------------------------------------------------------------------
# Every payload's script says `pwn`: no element or attribute of the output may carry it live.
BODY_PAYLOADS = [
    "<script>alert('pwn-b1')</script>",
    "<img src=x onerror=\"alert('pwn-b2')\">",
    "[md link](javascript:alert`pwn-b3`)",
    "[md link angle](<javascript:alert('pwn-b3b')>)",
    "<a href=\"javascript:alert('pwn-b4')\">html link</a>",
    "<a href=\"JaVaScRiPt&#x3A;alert('pwn-b5')\">entity link</a>",
    "<a href=\"&#106;avascript:alert('pwn-b5b')\">decimal entity link</a>",
    "<a href=\" java\tscript:alert('pwn-b5c')\">tab link</a>",
    '<iframe src="https://evil.example/pwn-b6"></iframe>',
    "<iframe srcdoc=\"<script>alert('pwn-b6b')</script>\"></iframe>",
    "<p onmouseover=\"alert('pwn-b7')\">hover text stays</p>",
    '<svg onload="alert(\'pwn-b8\')"><circle r="5"/></svg>',
    "<svg><a xlink:href=\"javascript:alert('pwn-b8b')\"><text>svg link</text></a></svg>",
    '<svg><animate attributeName="href" values="javascript:alert(\'pwn-b8c\')"/></svg>',
    '<div markdown="1" onclick="alert(\'pwn-b9\')">md in html</div>',
    "[attr link](https://example.com/){ onclick=\"alert('pwn-b10')\" }",
    "<details open ontoggle=\"alert('pwn-b12')\"><summary>sum</summary>details text</details>",
    "<object data=\"javascript:alert('pwn-b13')\"></object><embed src=\"javascript:alert('pwn-b13b')\">",
    "<form action=\"javascript:alert('pwn-b14')\">"
    "<button formaction=\"javascript:alert('pwn-b14b')\">go</button></form>",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(\'pwn-b15\')">',
    "<style>body { background: url(\"javascript:alert('pwn-b16')\") }</style>",
    "<base href=\"javascript:alert('pwn-b17')//\">",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"alert('pwn-b18')\">",
    "<noscript><p title=\"</noscript><img src=x onerror=alert('pwn-b19')>\"></noscript>",
    '<p id="__config">{"translations": {"clipboard.copy": "<img src=x onerror=alert(\'pwn-b20\')>"}}</p>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgncHduLWIyMScpPC9zY3JpcHQ+">data link pwn-b21</a>',
    '<img src="x" style="background:url(javascript:alert(\'pwn-b22\'))" alt="styled">',
    "[ref link][evil]\n\n[evil]: javascript:alert('pwn-b23')",
    '## Heading <img src="x" onerror="alert(\'pwn-b24\')">',
    "## Labelled { data-toc-label=\"<img src=x onerror=alert('pwn-b25')>\" }",
    "[[<img src=x onerror=alert('pwn-b26')>]]",
    "[[Legit target|<script>alert('pwn-b27')</script>]]",
    '<input type="image" src="x" onerror="alert(\'pwn-b28\')">'
    "<textarea onfocus=\"alert('pwn-b28b')\" autofocus></textarea>",
    '<a href="https://example.com/" target="_blank">tab-nabbing link</a>',
]
TITLE_PAYLOADS = [
    "Title <script>alert('pwn-t1')</script>",
    "Title <img src=x onerror=alert('pwn-t2')>",
    "Title </title><script>alert('pwn-t3')</script>",
    "Title <svg onload=alert('pwn-t4')>",
    "Title [link](javascript:alert('pwn-t5'))",
    "Title <iframe src=javascript:alert('pwn-t6')>",
    "Title \" onmouseover=\"alert('pwn-t7')",
]
TAG_PAYLOADS = [
    "<img src=x onerror=alert('pwn-g1')>",
    "<script>alert('pwn-g2')</script>",
    "[t](javascript:alert('pwn-g3'))",
    "\"><svg onload=alert('pwn-g4')>",
]
# Front matter the theme would read (description, template, icon, redirect...): none of it is shown.
FRONT_MATTER = """\
description: '"><script>alert("pwn-fm1")</script>'
author: '"><img src=x onerror=alert("pwn-fm2")>'
subtitle: <img src=x onerror=alert("pwn-fm3")>
icon: ../../../../pwn-fm4
template: pwn-fm5.html
status: <script>alert("pwn-fm6")</script>
hide: [navigation, toc]
"""
# A summary quotes each memory's first line: as Markdown, but its HTML as text.
FIRST_LINE_PAYLOADS = [
    "<img src=x onerror=\"alert('pwn-l1')\"> first line",
    "<script>alert('pwn-l2')</script> first line",
    "<details open ontoggle=\"alert('pwn-l3')\"><summary>unclosed first line",
]
FACT = {
    "subject": "<script>alert('pwn-x1')</script>",
    "attribute": "colour",
    "value": "<img src=x onerror=alert('pwn-x2')>",
}
FOLDER = "weird\"><img src=x onerror=alert('pwn-f1')>"
VAULT_TITLE = "Memory <script>alert(pwnV1)</script>"

LEGIT = """\
Plain **bold**, *emphasis*, `inline <b>code</b>`, <kbd>Ctrl</kbd>, H<sub>2</sub>O and a [web link](https://example.com/a?b=1),
a [mail link](mailto:ana@example.com), an [anchor](#a-section), a [[Legit target]] wikilink and a
[relative link](legit-target.md).

```html
<script>alert('code-ok')</script>
```

| left | right |
|:-----|------:|
| 1    | 2     |

<details><summary>More</summary>Folded text.</details>

![diagram](diagram.png)

![[photo.png]]

## A section

Done.
"""


# --- reading the output --------------------------------------------------------------------------
class Live(HTMLParser):
    """Collects what would run in a browser: the markup a browser builds, not the text it shows. Inside
    the page's <article> (where memory text is rendered) and in a search entry, no element that runs,
    frames, submits or restyles is allowed at all; around it, the theme's own form and buttons are, but
    nothing carrying a payload. Handlers and javascript: URLs are allowed nowhere."""

    RUNS = {
        "script",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "base",
        "form",
        "meta",
        "link",
        "style",
        "textarea",
        "button",
        "math",
        "noscript",
        "select",
    }

    def __init__(self, fragment: bool = False):
        super().__init__(convert_charrefs=True)
        self.strict = 1 if fragment else 0  # > 0: inside the article, or a search entry
        self.problems: list[str] = []
        self.stack: list[str] = []
        self.config_ids = 0

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag == "article":
            self.strict += 1
        values = " ".join(v or "" for n, v in attrs if n != "href")  # a theme link's URL may quote a path
        if tag in self.RUNS and (self.strict or "pwn" in values):
            self.problems.append(f"<{tag} {attrs}>")
        for name, value in attrs:
            # As a browser reads a URL: C0 controls and spaces around it and tabs or newlines in it go.
            url = re.sub(
                r"[\t\n\r]",
                "",
                (value or "").strip(
                    "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r"
                    "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19"
                    "\x1a\x1b\x1c\x1d\x1e\x1f "
                ),
            ).lower()
            if (
                re.fullmatch(r"on\w+", name)
                or "javascript:" in url
                or "vbscript:" in url
                or url.startswith("data:text/html")
            ):
                self.problems.append(f"<{tag} {name}={value!r}>")
            if name == "id" and value == "__config":
                self.config_ids += 1
            if self.strict and (
                name in ("style", "target", "srcdoc", "formaction", "action", "data")
                and not (name == "style" and re.fullmatch(r"text-align:\w+", url))
            ):
                self.problems.append(f"<{tag} {name}={value!r}>")

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "article":
            self.strict -= 1
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "script" and "pwn" in data:
            self.problems.append(f"<script>{data[:80]}</script>")


def live_markup(text: str, fragment: bool = False) -> list[str]:
    parser = Live(fragment)
    parser.feed(text)
    parser.close()
    if not fragment and "<html" in text and parser.config_ids != 1:  # the theme's own <script id="__config">
        parser.problems.append(f"{parser.config_ids} elements with id __config")
    return parser.problems


def text_of(fragment: str) -> str:
    """What a browser shows for an HTML fragment: the tags gone, the entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", fragment))


def outputs(out: Path):
    for file in sorted(out.rglob("*")):
        if file.is_file() and file.suffix in (".html", ".json", ".xml", ".txt", ".md", ".js", ".css", ".svg", ".png"):
            yield file, file.read_text(encoding="utf-8", errors="replace")


def search_docs(out: Path) -> list[dict]:
    return json.loads((out / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]


# --- the hostile vault ---------------------------------------------------------------------------
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
SECRET = "root:x:0:0"  # what /etc/passwd (or our stand-in outside the vault) holds


def write_memory(root: Path, path: str, front: str, body: str) -> None:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A vault holding every payload and every file that must not be published, built once
    (with the archive, so an archived memory of a private folder is tried too)."""
    tmp = tmp_path_factory.mktemp("hostile")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(tmp))
        outside = tmp / "outside"
        outside.mkdir()
        (outside / "secret.png").write_bytes(PNG + SECRET.encode())
        (outside / "passwd").write_text(f"{SECRET}:root:/root:/bin/bash\n")
        v = Vault.init(tmp / "vault", title=VAULT_TITLE)
        root = v.root
        ids = {}
        # Bodies: one memory per payload, so a payload cannot hide behind another's parsing.
        target = v.save("The target of wikilinks.", title="Legit target", topic="notes", date="2025-01-01")
        for i, payload in enumerate(BODY_PAYLOADS):
            m = v.save(
                f"Payload {i} follows.\n\n{payload}\n\nAfter payload {i}.",
                title=f"Body payload {i}",
                topic=f"payloads/p{i // 12}",
                date="2025-01-02",
            )  # folders small enough not to split
            ids[f"body{i}"] = m
        for i, title in enumerate(TITLE_PAYLOADS):
            ids[f"title{i}"] = v.save(
                f"A memory whose title is hostile ({i}).", title=title, topic="titles", date="2025-01-03"
            )
        for i, line in enumerate(FIRST_LINE_PAYLOADS):
            ids[f"line{i}"] = v.save(
                f"{line}\n\nThe rest of the body ({i}).", title=f"First line {i}", topic="lines", date="2025-01-03"
            )
        ids["tags"] = v.save(
            "A memory whose tags are hostile.", title="Tagged", topic="tags", tags=TAG_PAYLOADS, date="2025-01-04"
        )
        ids["fact"] = v.save(
            "Facts said with hostile words.", title="Hostile fact", topic="facts", date="2025-01-05", facts=[FACT]
        )
        # Legitimate content: formatting, code, a table, images (next to it and in attachments/), badges.
        legit = v.save(LEGIT, title="Legit formatting", topic="notes", date="2025-01-06", pinned=True)
        (root / "notes" / "diagram.png").write_bytes(PNG)
        (root / "attachments").mkdir()
        (root / "attachments" / "photo.png").write_bytes(PNG)
        (root / "attachments" / "unreferenced.pdf").write_bytes(b"%PDF-1.4 attachment")
        old = v.save("The old value.", title="Old fact", topic="notes", date="2024-01-01")
        v.save("The new value.", title="New fact", topic="notes", date="2024-06-01", supersedes=[old.id])
        # Front matter the theme would read, written by hand (a synced or hand-edited vault).
        write_memory(
            root,
            "notes/front-matter.md",
            f"id: fm1\ntitle: Front matter\n{FRONT_MATTER}",
            "A memory with hostile front matter.",
        )
        # A folder named with markup (made by hand, not by ihmt).
        write_memory(root, f"{FOLDER}/inside.md", "id: wf1\ntitle: Inside a weird folder\n", "Weird folder body.")
        # Files that must not be published.
        passwd = Path("/etc/passwd") if Path("/etc/passwd").is_file() else outside / "passwd"
        os.symlink(passwd, root / "notes" / "passwd.txt")
        os.symlink(outside / "passwd", root / "notes" / "linked.txt")
        os.symlink(outside, root / "notes" / "outdir")
        (root / ".hidden").mkdir()
        (root / ".hidden" / "dot.png").write_bytes(PNG)
        (root / "notes" / "tool.js").write_text("alert('pwn-js')")
        (root / "notes" / "loose.png").write_bytes(PNG)  # referenced by no one
        (root / "notes" / "evil.svg").write_text(
            '<svg xmlns="http://www.w3.org/2000/svg"><script>alert("pwn-svg")</script></svg>'
        )
        (root / "notes" / "evil2.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')
        (root / "notes" / "clean.svg").write_text(
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><path d="M0 0h1v1z"/></svg>'
        )
        v.save(
            "References: [pw](passwd.txt), [linked](linked.txt), ![out](outdir/secret.png), "
            "![up](../../outside/secret.png), ![dot](../.hidden/dot.png), [js](tool.js), "
            "![evil](evil.svg) ![evil2](evil2.svg) ![clean](clean.svg), [[passwd.txt]], ![[secret.png]], "
            '<img src="outdir/secret.png">, ![abs](/etc/passwd).',
            title="Tries to publish what it should not",
            topic="notes",
            date="2025-01-07",
        )
        # Private memories: the key in any case and any truthy spelling; `private: no` is published.
        for n, (key, value) in enumerate(
            [
                ("Private", "true"),
                ("PRIVATE", "yes"),
                ("private", "'on'"),
                ("private", "1"),
                ("Private", "True"),
                ("private", "'Yes'"),
            ]
        ):
            write_memory(
                root,
                f"diary/hidden-{n}.md",
                f"id: pv{n}\ntitle: Hidden diary {n} zorblax\n{key}: {value}\n",
                f"Private words zorblax{n}.",
            )
        write_memory(root, "diary/shown.md", "id: pvshown\ntitle: Shown diary\nprivate: no\n", "Published words.")
        # Next to a private memory: stray files, one of them referenced by the private memory only.
        (root / "diary" / "stray.txt").write_text("zorblax stray text")
        (root / "diary" / "stray.js").write_text("zorblax()")
        (root / "diary" / "private-photo.png").write_bytes(PNG + b"zorblax")
        write_memory(
            root,
            "diary/hidden-ref.md",
            "id: pvref\ntitle: Hidden with a photo zorblax\nprivate: true\n",
            "![photo](private-photo.png) [notes](stray.txt)",
        )
        # A private folder: the marker file, memories and files below it, a fact, an archived memory.
        (root / "health").mkdir()
        (root / "health" / ".private").write_text("")
        write_memory(
            root,
            "health/knee.md",
            "id: hk1\ntitle: Knee quuxwort\ndate: 2025-02-01\n",
            "Physio quuxwort. ![x](scan.png)",
        )
        write_memory(root, "health/deep/er/visit.md", "id: hk2\ntitle: Visit quuxwort\n", "Deep quuxwort.")
        (root / "health" / "scan.png").write_bytes(PNG + b"quuxwort")
        (root / "health" / "notes.txt").write_text("quuxwort")
        (root / "attachments" / "private").mkdir()
        (root / "attachments" / "private" / ".private").write_text("")
        (root / "attachments" / "private" / "hush.png").write_bytes(PNG + b"quuxwort")
        v.refresh(force=True)
        fact = v.save(
            "Blood type quuxwort is stated here.",
            title="Blood quuxwort",
            topic="health",
            date="2025-02-02",
            facts=[{"subject": "quuxwort", "attribute": "blood type", "value": "0+"}],
        )
        arch = v.save("Archived quuxwort.", title="Old quuxwort", topic="health", date="2019-01-01")
        v.archive(arch.id)
        v.save(
            "Public memory embedding private files: ![scan](../health/scan.png) ![[hush.png]]",
            title="Points into the private folder",
            topic="notes",
            date="2025-01-08",
        )
        report = build_site(v, tmp / "out", with_archive=True)
        fresh = {k: v.get(m.id) for k, m in ids.items()}  # as filed at the end (a save may split a folder)
        yield {
            "v": v,
            "out": tmp / "out",
            "report": report,
            "ids": fresh,
            "legit": v.get(legit.id),
            "target": v.get(target.id),
            "fact": v.get(fact.id),
            "arch": v.get(arch.id),
        }
        v.close()


def test_no_payload_reaches_any_output_file_live(hostile):
    out = hostile["out"]
    seen = 0
    for file, text in outputs(out):
        if file.suffix == ".html":
            seen += 1
            assert live_markup(text) == [], file
        elif file.suffix in (".json", ".xml"):
            assert not re.search(r"<(script|iframe|svg|img|object|embed|style|form)\b", text, re.I), file
    assert seen > len(BODY_PAYLOADS) + len(TITLE_PAYLOADS)
    for doc in search_docs(out):  # Material's search shows these as HTML
        for value in (doc.get("title", ""), doc.get("text", ""), *doc.get("tags", [])):
            assert live_markup(value, fragment=True) == [], doc["location"]


def body_page(out: Path, hostile: dict, payload_start: str) -> Path:
    i = next(i for i, p in enumerate(BODY_PAYLOADS) if p.startswith(payload_start))
    return page(out, hostile["ids"][f"body{i}"].path)


def test_body_payloads_are_removed_and_the_text_around_them_stays(hostile):
    out = hostile["out"]
    for i, payload in enumerate(BODY_PAYLOADS):
        body = article(page(out, hostile["ids"][f"body{i}"].path))
        assert f"Payload {i} follows." in body, i
        # An unclosed <style> swallows the rest of its page (the sanitiser drops a style's content).
        assert f"After payload {i}." in body or ("<style>" in payload and "</style>" not in payload), i
    assert "<p>hover text stays</p>" in article(body_page(out, hostile, "<p onmouseover"))  # the handler goes
    assert '<a href="https://example.com/">attr link</a>' in article(body_page(out, hostile, "[attr link]"))
    assert "<a>html link</a>" in article(body_page(out, hostile, '<a href="javascript'))  # the URL goes
    # A heading keeps its place in the table of contents, as text.
    heading = body_page(out, hostile, "## Heading").read_text(encoding="utf-8")
    anchor = re.search(r'<h2 id="([^"]+)">Heading', heading).group(1)
    assert re.search(rf'<a href="#{anchor}" class="md-nav__link">\s*<span class="md-ellipsis">\s*Heading', heading)
    # A wikilink's label is text, the link stays.
    link = article(body_page(out, hostile, "[[Legit target|"))
    assert "<a href=\"../../../notes/legit-target/\">&lt;script&gt;alert('pwn-b27')&lt;/script&gt;</a>" in link


def test_titles_show_as_text_everywhere_they_are_placed(hostile):
    out = hostile["out"]
    summary = article(page(out, "titles/index.md"))
    titles_in_summary = text_of(summary)
    docs = {d["location"]: d for d in search_docs(out)}
    for i, title in enumerate(TITLE_PAYLOADS):
        m = hostile["ids"][f"title{i}"]
        file = page(out, m.path)
        text = file.read_text(encoding="utf-8")
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", article(file), re.S).group(1)
        assert text_of(h1) == title, i  # the page's heading
        assert text_of(re.search(r"<title>(.*?)</title>", text, re.S).group(1)) == f"{title} - {VAULT_TITLE}", i
        nav = [text_of(s).strip() for s in re.findall(r'<span class="md-ellipsis">(.*?)</span>', text, re.S)]
        assert title in nav, i  # its entry in the navigation
        assert title in titles_in_summary, i  # its folder's summary
        assert docs[m.path[:-3] + "/"]["title"] == html.escape(title, quote=False), i  # search: escaped HTML
    # The summary links a hostile title as text, never as a link of its own.
    assert summary.count("<a ") == len(TITLE_PAYLOADS) + summary.count('class="headerlink"')
    home = (out / "index.html").read_text(encoding="utf-8")
    assert text_of(re.search(r"<title>(.*?)</title>", home, re.S).group(1)).endswith(VAULT_TITLE)


def test_a_summary_quotes_first_lines_with_their_html_as_text(hostile):
    summary = article(page(hostile["out"], "lines/index.md"))
    shown = text_of(summary)
    for line in FIRST_LINE_PAYLOADS:
        assert line in shown, line
    assert shown.count("First line") == len(FIRST_LINE_PAYLOADS) + 1  # nothing swallowed: all listed


def test_tags_show_as_text_in_the_header_and_the_summary(hostile):
    out = hostile["out"]
    header = article(page(out, hostile["ids"]["tags"].path)).split('<div class="ihmt-header">')[1].split("</div>")[0]
    shown = [text_of(t) for t in re.findall(r'<span class="ihmt-tag">(.*?)</span>', header)]
    assert shown == [f"#{t}" for t in TAG_PAYLOADS]
    about = text_of(re.search(r"<p>About (.*?)</p>", article(page(out, "tags/index.md")), re.S).group(1))
    for tag in TAG_PAYLOADS:
        assert tag.lower() in about, tag
    doc = next(d for d in search_docs(out) if d["location"] == hostile["ids"]["tags"].path[:-3] + "/")
    assert doc["tags"] == [html.escape(t, quote=False) for t in TAG_PAYLOADS]


def test_facts_folder_names_and_front_matter_are_text_or_left_out(hostile):
    out = hostile["out"]
    timeline = text_of(article(out / "timeline" / "index.html"))
    assert f"{FACT['subject']} {FACT['attribute']}: {FACT['value']}" in timeline
    weird = page(out, f"{FOLDER}/inside.md").read_text(encoding="utf-8")
    assert "Inside a weird folder" in weird and live_markup(weird) == []
    assert "Weird\"><img src=x onerror=alert('pwn f1')>" in text_of(weird)  # its section: text
    front = page(out, "notes/front-matter.md").read_text(encoding="utf-8")
    for marker in ("pwn-fm1", "pwn-fm2", "pwn-fm3", "pwn-fm4", "pwn-fm5", "pwn-fm6"):
        for file, text in outputs(out):
            assert marker not in text, (marker, file)
    assert "A memory with hostile front matter." in front and 'class="md-sidebar md-sidebar--primary"' in front


def test_legitimate_markdown_code_images_and_badges_still_work(hostile):
    out = hostile["out"]
    body = article(page(out, hostile["legit"].path))
    for html_part in (
        "<strong>bold</strong>",
        "<em>emphasis</em>",
        "<code>inline &lt;b&gt;code&lt;/b&gt;</code>",
        "<kbd>Ctrl</kbd>",
        "H<sub>2</sub>O",
        '<a href="https://example.com/a?b=1">web link</a>',
        '<a href="mailto:ana@example.com">mail link</a>',
        '<a href="#a-section">anchor</a>',
        '<a href="../legit-target/">Legit target</a>',
        '<a href="../legit-target/">relative link</a>',
        '<th style="text-align:left">left</th>',
        '<td style="text-align:right">2</td>',
        "<details><summary>More</summary>Folded text.</details>",
        '<img alt="diagram" src="../diagram.png">',
        '<img alt="photo.png" src="../../attachments/photo.png">',  # ![[photo.png]]
        '<h2 id="a-section">A section<a class="headerlink" href="#a-section" title="Permanent link">',
        '<span class="ihmt-badge ihmt-pinned" title="Pinned: a core memory, it never decays">',
    ):
        assert html_part in body, html_part
    # A <script> in a fenced code block is shown, not removed and not run.
    assert "<pre><code class=\"language-html\">&lt;script&gt;alert('code-ok')&lt;/script&gt;\n</code></pre>" in body
    assert (out / "notes" / "diagram.png").read_bytes() == PNG
    assert (out / "attachments" / "photo.png").read_bytes() == PNG
    old = next(r for r in hostile["v"].memories() if r["title"] == "Old fact")
    assert (
        '<a class="ihmt-badge ihmt-outdated" href="../new-fact/" title="Superseded: read the correction">'
        "OUTDATED → New fact</a>" in article(page(out, old["path"]))
    )


FORBIDDEN_FILES = [
    "notes/passwd.txt",
    "notes/linked.txt",
    "notes/outdir",
    "outside",
    ".hidden",
    "notes/tool.js",
    "notes/loose.png",
    "notes/evil.svg",
    "notes/evil2.svg",
    "diary/stray.txt",
    "diary/stray.js",
    "diary/private-photo.png",
    "health",
    "archive/health",
    "attachments/private",
]


def test_only_referenced_regular_files_inside_the_vault_are_published(hostile):
    out, report = hostile["out"], hostile["report"]
    for rel in FORBIDDEN_FILES:
        assert not (out / rel).exists(), rel
    assert (out / "notes" / "clean.svg").is_file()  # a referenced, inert SVG is published
    assert (out / "attachments" / "unreferenced.pdf").is_file()  # attachments/ is published whole
    for file, text in outputs(out):
        assert SECRET not in text and "pwn-js" not in text and "pwn-svg" not in text, file
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    mine = {
        f
        for f in files
        if not f.startswith(("assets/", "search/", "_ihmt/"))
        and not f.endswith(("index.html", "sitemap.xml", "sitemap.xml.gz", "404.html"))
    }
    assert mine == {"notes/diagram.png", "notes/clean.svg", "attachments/photo.png", "attachments/unreferenced.pdf"}
    assert any("evil.svg" in w for w in report["warnings"])  # the scripted SVG is named, not hidden


def test_private_memories_and_folders_leave_no_trace(hostile):
    out, report = hostile["out"], hostile["report"]
    for n in range(6):
        assert not page(out, f"diary/hidden-{n}.md").exists(), n
    assert page(out, "diary/shown.md").is_file()  # `private: no` is published
    for path in (
        "health/knee.md",
        "health/deep/er/visit.md",
        hostile["fact"].path,
        hostile["arch"].path,
        "health/index.md",
        "archive/health/index.md",
    ):
        assert not page(out, path).exists(), path
    for file, text in outputs(out):  # pages, summaries, timeline, changes, search
        for word in ("zorblax", "quuxwort", "hidden-ref", "Hidden diary"):
            assert word not in text, (file, word)
    # Not even the private folder's name: no section, page, search entry or sitemap line.
    assert not re.search(r'href="[^"]*health', (out / "index.html").read_text(encoding="utf-8"))
    assert not [d["location"] for d in search_docs(out) if "health" in d["location"]]
    assert "health" not in (out / "sitemap.xml").read_text(encoding="utf-8")
    assert report["excluded"]["private"] == 6 + 1 + 4  # six spellings, one with a photo, the folder
    changes = article(out / "recent-changes" / "index.html")
    assert changes.count("a private memory") == 3  # saved into the private folder twice, archived once


def test_the_raw_html_setting_lets_a_persons_html_through_but_not_titles(tmp_path):
    """`site_raw_html = true` (off by default) is for a person's own offline site: their HTML renders as
    they wrote it; titles and tags are still text."""
    v = Vault.init(tmp_path / "raw")
    m = v.save(
        '<iframe src="https://example.com/embed"></iframe> <u onclick="toggle()">mine</u>',
        title="Mine <b>bold</b>",
        topic="notes",
    )
    build_site(v, tmp_path / "safe")
    safe = article(page(tmp_path / "safe", m.path))
    assert "<iframe" not in safe and "onclick" not in safe and "<u>mine</u>" in safe  # by default

    v.close()
    settings = tmp_path / "raw/.ihmt/config.toml"
    settings.write_text(settings.read_text().replace("site_raw_html = false", "site_raw_html = true"))
    v = Vault.open(tmp_path / "raw")
    build_site(v, tmp_path / "raw-site")
    raw = article(page(tmp_path / "raw-site", m.path))
    assert '<iframe src="https://example.com/embed"></iframe>' in raw and 'onclick="toggle()"' in raw
    assert text_of(re.search(r"<h1[^>]*>(.*?)</h1>", raw, re.S).group(1)) == "Mine <b>bold</b>"
    v.close()


@pytest.fixture(scope="module")
def extensions(tmp_path_factory):
    """A vault whose own mkdocs.yml turns on the Markdown extensions Material documents."""
    tmp = tmp_path_factory.mktemp("extensions")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(tmp))
        v = Vault.init(tmp / "vault", title="Extensions")
        m = v.save(EXTENSIONS_BODY, title="Extensions", topic="notes")
        (v.root / "mkdocs.yml").write_text(EXTENSIONS_YML, encoding="utf-8")
        report = build_site(v, tmp / "out")
        yield article(page(tmp / "out", m.path)), report
        v.close()


EXTENSIONS_BODY = """\
A footnote[^1], :material-account-circle:, ++ctrl+alt+del++, ==marked== and ~~gone~~.

!!! note "A note"
    Admonition body.

??? warning "Collapsed"
    Hidden body.

- [x] done
- [ ] todo

=== "Python"

    ```python
    print("<script>alert('code-ok')</script>")
    ```

=== "Shell"

    ```sh
    echo hi
    ```

```python linenums="1"
import os
```

$E = mc^2$

*[HTML]: Hyper Text Markup Language

Some HTML.

[Button](https://example.com/){ .md-button .md-header }

[^1]: The footnote.
"""
EXTENSIONS_YML = """\
site_name: Extensions
theme:
  name: material
markdown_extensions:
  - abbr
  - admonition
  - attr_list
  - footnotes
  - md_in_html
  - toc:
      permalink: true
  - pymdownx.arithmatex:
      generic: true
  - pymdownx.details
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
  - pymdownx.highlight:
      anchor_linenums: true
  - pymdownx.keys
  - pymdownx.mark
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
  - pymdownx.tasklist:
      custom_checkbox: true
  - pymdownx.tilde
"""


def test_materials_markdown_extensions_survive_the_sanitiser(extensions):
    body, report = extensions
    assert report["warnings"] == []
    for part in (
        '<sup id="fnref:1"><a class="footnote-ref" href="#fn:1">1</a></sup>',
        '<li id="fn:1">',
        'class="footnote-backref" href="#fnref:1"',
        '<span class="twemoji"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="',
        '<kbd class="key-control">Ctrl</kbd>',
        "<mark>marked</mark>",
        "<del>gone</del>",
        '<div class="admonition note">\n<p class="admonition-title">A note</p>',
        '<details class="warning">\n<summary>Collapsed</summary>',
        '<input type="checkbox" disabled="" checked=""><span class="task-list-indicator"></span>',
        '<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" '
        'name="__tabbed_1" type="radio">',
        '<label for="__tabbed_1_2">Shell</label>',
        '<span class="s2">"&lt;script&gt;alert(\'code-ok\')&lt;/script&gt;"</span>',
        '<a id="__codelineno-2-1" name="__codelineno-2-1"></a>',
        '<td class="linenos">',
        '<span class="arithmatex">\\(E = mc^2\\)</span>',
        '<abbr title="Hyper Text Markup Language">HTML</abbr>',
        '<a class="md-button" href="https://example.com/">Button</a>',
    ):  # the theme's own classes: no
        assert part in body, part


# --- the browser ---------------------------------------------------------------------------------
HOOK = """
window.__pwned = [];
for (const name of ["alert", "confirm", "prompt", "print", "open"]) {
  window[name] = (...args) => { window.__pwned.push(name + ": " + args.join(" ")); };
}
"""


def browser_runs(out: Path, chromium: str) -> list[str]:
    """Every page of the site in headless Chromium, `alert` and the like recording their calls; then a
    search whose results show hostile titles, tags and text (Material renders them as HTML). What ran."""
    import functools
    import threading
    import time
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import quote

    from test_site import Chromium

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    browser = Chromium(chromium)
    ran: list[str] = []
    try:
        browser.send("Page.enable", {}, browser.session)
        browser.send("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK}, browser.session)
        pages = sorted(
            p.relative_to(out).as_posix() for p in out.rglob("index.html") if "pwn" in p.read_text(encoding="utf-8")
        )
        assert len(pages) > len(BODY_PAYLOADS)

        def goto(path: str):
            browser.send("Page.navigate", {"url": base + quote(path)}, browser.session)
            deadline = time.monotonic() + 30
            while (
                browser.js("decodeURIComponent(location.pathname)") != "/" + path
                or browser.js("document.readyState") != "complete"
            ):
                assert time.monotonic() < deadline, f"{path} did not load"
                time.sleep(0.05)

        for rel in pages:
            goto(rel.removesuffix("index.html"))
            time.sleep(0.15)  # onerror / onload handlers fire after the load event
            ran += [f"{rel}: {c}" for c in browser.js("window.__pwned") or []]
            ran += [
                f"{rel}: live link {h}"
                for h in browser.js(
                    "[...document.querySelectorAll('a[href]')].map(a => a.href)"
                    ".filter(h => /^\\s*(javascript|data):/i.test(h))"
                )
            ]
        goto("")
        for query in ("Title", "pwn", "img", "Tagged"):
            browser.js(f"""(() => {{ const i = document.querySelector('.md-search__input'); i.focus();
                i.value = {json.dumps(query)}; i.dispatchEvent(new Event('input', {{bubbles: true}})); }})()""")
            results = "document.querySelectorAll('.md-search-result__item').length"
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not browser.js(results):
                time.sleep(0.1)
            assert browser.js(results), query
            time.sleep(0.3)
            ran += [f"search {query}: {c}" for c in browser.js("window.__pwned") or []]
    finally:
        browser.close()
        server.shutdown()
        server.server_close()
    return ran


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(
    not CHROMIUM, reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)"
)
def test_a_browser_runs_no_payload_on_any_page_nor_in_search_results(hostile):
    assert browser_runs(hostile["out"], CHROMIUM) == []
