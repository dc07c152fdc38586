"""Torture: bad input of every kind gets a clear one-line error and leaves the vault unchanged.

Property-based tests (hypothesis) of the front-matter reader and writer; odd YAML (anchors, alias
bombs, tabs, BOM, CRLF, duplicate keys, huge values, unsafe tags); files that are binary, empty,
10 MB, not UTF-8, symlinks out of the vault; topics and ids with `..`, absolute paths, NUL bytes,
Windows reserved names; texts carrying secrets of common shapes. "Unchanged" is checked on the
whole tree (bytes of every file but git's internals and the cache) and on the git log.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from functools import partial
from pathlib import Path

import pytest
import yaml
from conftest import git, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt_vault import BadInput, BrokenFile, NotFound, SecretRefused, Vault, VaultError
from ihmt_vault.storage import notes

# text a person can type: any code point but surrogates (not encodable) and NUL (refused elsewhere)
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=200)
LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=80).filter(
    lambda s: s.strip()
)
KEY = st.from_regex(r"\Ax_[a-z][a-z0-9_]{0,12}\Z")
SCALAR = st.one_of(LINE, st.integers(-(10**12), 10**12), st.booleans(), st.lists(LINE, max_size=4))
PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
VAULT_PROPS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def state(root: Path) -> tuple[dict, str]:
    return snapshot(root), git(root, "log", "--format=%H %s")


def unchanged(v: Vault, action, error=VaultError) -> str:
    before = state(v.root)
    with pytest.raises(error) as e:
        action()
    assert state(v.root) == before
    msg = str(e.value)
    assert msg and "\n" not in msg and "Traceback" not in msg
    return msg


@pytest.fixture
def filled(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="work/infrastructure")
    return vault


# -- the front matter reader and writer ------------------------------------------------------------
@PROPS
@given(title=LINE, tags=st.lists(LINE, max_size=5), body=TEXT, extra=st.dictionaries(KEY, SCALAR, max_size=4))
def test_compose_then_parse_gives_everything_back(title, tags, body, extra):
    text = notes.compose(
        {"id": "abcdef123", "title": title, "tags": tags, "created": "2026-01-02T03:04:05Z", **extra}, body
    )
    m = notes.parse(text, "t/x.md")
    assert (m.id, m.title, m.tags) == ("abcdef123", title, tags)
    assert m.body == (body if body.endswith("\n") else body + "\n")
    assert {k: m.meta[k] for k in extra} == extra
    assert m.missing == ()


@PROPS
@given(
    meta=st.dictionaries(KEY, SCALAR, min_size=1, max_size=5),
    body=TEXT,
    crlf=st.booleans(),
    bom=st.booleans(),
    flow=st.booleans(),
    comment=st.booleans(),
)
def test_update_front_matter_changes_only_its_keys(meta, body, crlf, bom, flow, comment):
    block = yaml.safe_dump(
        {"title": "Hand written", **meta},
        allow_unicode=True,
        default_flow_style=flow and None,
        sort_keys=False,
        width=4096,
    )
    if comment:
        block = "# a person's comment\n" + block
    nl = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + f"---\n{block}---\n".replace("\n", nl) + body
    before = notes.parse(text, "t/x.md")
    out = notes.update_front_matter(text, {"status": "outdated", "superseded_by": ["abcdef123"]}, path="t/x.md")
    after = notes.parse(out, "t/x.md")
    assert after.body == before.body == body  # the body's bytes are untouched
    assert {k: after.meta[k] for k in meta} == {k: before.meta[k] for k in meta}
    assert (after.title, after.status, after.superseded_by) == ("Hand written", "outdated", ["abcdef123"])
    assert out.startswith("\ufeff") == bom
    head = out[: len(out) - len(body)]  # the body is the file's tail
    assert ("\r\n" in head) == crlf
    if comment:
        assert "# a person's comment" in out


@PROPS
@given(text=TEXT)
def test_parse_never_fails_other_than_broken_file(text):
    try:
        m = notes.parse(text, "t/x.md")
    except BrokenFile as e:
        assert str(e).startswith("t/x.md: ") and "\n" not in str(e)
    else:
        assert isinstance(m.title, str) and isinstance(m.tags, list)


ODD_YAML = {
    "anchor and alias": ("---\nname: &n Luis Marín\ntitle: *n\n---\nbody\n", "Luis Marín"),
    "merge key": ("---\nbase: &b {type: fact}\nextra:\n  <<: *b\ntitle: merged\n---\nbody\n", "merged"),
    "BOM": ("\ufeff---\ntitle: with a BOM\n---\nbody\n", "with a BOM"),
    "CRLF": ("---\r\ntitle: windows lines\r\n---\r\nbody\r\n", "windows lines"),
    "huge value": ("---\ntitle: big\nnotes: " + "x" * 1_000_000 + "\n---\nbody\n", "big"),
    "no front matter": ("# Just a heading\n\ntext\n", "Just a heading"),
    "empty front matter": ("---\n---\nbody\n", "body"),
    "document end marker": ("---\ntitle: dots\n...\nbody\n", "dots"),
}
BROKEN_YAML = {
    "tab indentation": "---\ntitle: x\ntags:\n\t- a\n---\nbody\n",
    "unclosed flow list": "---\ntitle: [unclosed\n---\nbody\n",
    "a list, not a mapping": "---\n- a\n- b\n---\nbody\n",
    "python tag": "---\ntitle: !!python/object/apply:os.system [echo hi]\n---\nbody\n",
    "complex key": "---\n? [a, b]\n: c\ntitle: x\n---\nbody\n",
}


@pytest.mark.parametrize("case", list(ODD_YAML))
def test_odd_yaml_that_is_valid_is_read(filled, case):
    text, title = ODD_YAML[case]
    (filled.root / "work/odd.md").write_bytes(text.encode("utf-8"))
    assert filled.get("work/odd.md").title == title
    report = filled.reconcile(["work/odd.md"])  # the watcher's path: taken in, keys filled, body untouched
    assert report.problems == [] and git(filled.root, "status", "--porcelain") == ""
    after = (filled.root / "work/odd.md").read_bytes().decode("utf-8")
    assert after.endswith(notes.split_front_matter(text)[1])
    assert filled.get("work/odd.md").title == title and filled.doctor() == []


@pytest.mark.parametrize("case", list(BROKEN_YAML))
def test_broken_yaml_is_reported_and_not_taken_in(filled, case):
    (filled.root / "work/broken.md").write_text(BROKEN_YAML[case])
    msg = unchanged(filled, lambda: filled.get("work/broken.md"), BrokenFile)
    assert msg.startswith("work/broken.md: front matter is not")
    before = state(filled.root)
    report = filled.reconcile(["work/broken.md"])
    assert [p.path for p in report.problems] == ["work/broken.md"] and report.commit is None
    assert state(filled.root) == before


def test_duplicate_keys_without_an_id_are_reported_not_fatal(filled):
    """PyYAML reads duplicate keys (last wins), ruamel refuses to write them back: one such file
    must not make the whole batch fail; it is reported and the rest is taken in."""
    (filled.root / "work/dup.md").write_text("---\ntitle: A\ntitle: B\n---\nbody\n")
    (filled.root / "work/fine.md").write_text("# Fine\n\nA good note.\n")
    report = filled.reconcile(["work/dup.md", "work/fine.md"])
    assert [p.path for p in report.problems] == ["work/dup.md"]
    assert [c.path for c in report.changes] == ["work/fine.md"]


def test_an_alias_bomb_in_front_matter_is_read_in_bounded_time_and_memory(tmp_path):
    """Nine levels of nine aliases (9^9 leaves): refused or read, within 1 GB and 60 s."""
    root = tmp_path / "v"
    Vault.init(root).close()
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]" for p, c in zip("abcdefg", "bcdefgh")
    ]
    (root / "t").mkdir()
    (root / "t/bomb.md").write_text(
        "---\n" + "\n".join(levels) + "\ntags: [" + ", ".join(["*h"] * 9) + "]\ntitle: Bomb\n---\nbody\n"
    )
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from ihmt_vault import Vault
        with Vault.open({str(root)!r}) as v:
            r = v.reconcile(["t/bomb.md"])
            print(len(r.problems), len(r.changes))
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]


# -- files that are not memories -------------------------------------------------------------------
BAD_FILES = {
    "binary": (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)), "is not a text file"),
    "not UTF-8": ("---\ntitle: café\n---\ncafé con leche\n".encode("latin-1"), "is not UTF-8 text"),
    "UTF-16": ("---\ntitle: x\n---\nbody\n".encode("utf-16"), "is not"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_file_that_is_not_text_is_reported_everywhere_and_changes_nothing(filled, case):
    data, problem = BAD_FILES[case]
    (filled.root / "work/bad.md").write_bytes(data)
    assert problem in unchanged(filled, lambda: filled.get("work/bad.md"), BrokenFile)
    before = state(filled.root)
    report = filled.reconcile(["work/bad.md"])
    assert [p.path for p in report.problems] == ["work/bad.md"] and report.commit is None
    assert [p.kind for p in filled.doctor() if p.path == "work/bad.md"][:1] == ["broken"]
    assert filled.search("PostgreSQL").hits  # search is unharmed
    assert state(filled.root) == before


def test_symlinks_out_of_the_vault_are_not_read(filled, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\ntitle: Outside secret\n---\nthe launch codes\n")
    os.symlink(outside / "secret.md", filled.root / "work/link.md")
    os.symlink(outside, filled.root / "linked-folder")
    msg = unchanged(filled, lambda: filled.get("work/link.md"))
    assert msg.startswith("work/link.md: is") and ("symbolic link" in msg or "outside the vault" in msg)
    assert "is outside the vault" in unchanged(filled, lambda: filled.get("linked-folder/secret.md"), BadInput)
    before = state(filled.root)
    report = filled.reconcile(None)
    assert report.commit is None and all("launch codes" not in str(c) for c in report.changes)
    assert state(filled.root) == before
    assert not [h for h in filled.search("launch codes").hits if "launch" in h.snippet]


def test_an_empty_file_is_a_memory_without_keys_and_breaks_nothing(filled):
    (filled.root / "work/empty.md").write_bytes(b"")
    m = filled.get("work/empty.md")
    assert (m.title, m.body, set(m.missing)) == ("empty", "", {"id", "title", "created"})
    filled.reconcile(["work/empty.md"])
    assert filled.doctor() == [] and git(filled.root, "status", "--porcelain") == ""


def test_a_10_mb_text_is_refused_with_a_clear_error(filled):
    big = "lorem ipsum dolor sit amet " * 400_000
    unchanged(filled, lambda: filled.save(big, topic="work"), BadInput)


def test_a_10_mb_file_by_hand_is_reported_not_taken_in(filled):
    (filled.root / "work/big.md").write_text("---\ntitle: Big\n---\n" + "lorem ipsum dolor sit amet " * 400_000)
    before = state(filled.root)
    report = filled.reconcile(["work/big.md"])
    assert [p.path for p in report.problems] == ["work/big.md"] and report.commit is None
    assert state(filled.root) == before


# -- topics, ids and paths -------------------------------------------------------------------------
NASTY_PARTS = st.sampled_from(
    [
        "..",
        ".",
        "",
        " ",
        "/",
        "\\",
        "C:",
        "con",
        "NUL",
        "com1.txt",
        "lpt9",
        "aux",
        ".git",
        ".ihmt",
        "~",
        "$HOME",
        "\0",
        "a\0b",
        "%2e%2e",
        "…",
        "archive",
        "x" * 300,
        "日本",
        "ñ",
        "a b",
        "*",
        "?",
        "<>",
        "|",
    ]
)
TOPICS = st.one_of(
    TEXT,
    st.lists(st.one_of(NASTY_PARTS, LINE), min_size=1, max_size=8).map("/".join),
    st.lists(NASTY_PARTS, min_size=1, max_size=4).map("\\".join),
)


@VAULT_PROPS
@given(topic=TOPICS)
def test_any_topic_is_refused_cleanly_or_stays_inside_the_vault(filled, topic):
    random.seed()  # hypothesis seeds `random` alike for every example; Whoosh names segments with it
    before = state(filled.root)
    try:
        m = filled.save("A note about nothing in particular.", topic=topic)
    except BadInput as e:
        assert "\n" not in str(e) and state(filled.root) == before
        return
    full = (filled.root / m.path).resolve()
    assert full.is_relative_to(filled.root) and full.is_file() and not full.is_symlink()
    parts = m.path.split("/")
    assert 2 <= len(parts) <= filled.config.max_depth + 1
    assert not any(p.startswith(".") or p.split(".")[0].lower() in notes.WINDOWS_RESERVED for p in parts)


@VAULT_PROPS
@given(
    ref=st.one_of(
        TEXT,
        TOPICS,
        st.sampled_from(
            [
                "../../etc/passwd",
                "/etc/passwd",
                "~/.ssh/id_rsa",
                ".git/config",
                ".ihmt/config.toml",
                "index.md",
                "work/index.md",
                "work",
                "\0",
                "x" * 5000,
                "CON",
                "work/../../etc/hosts",
            ]
        ),
    )
)
def test_any_id_or_path_is_found_refused_or_not_found(filled, ref):
    random.seed()
    if ref.startswith("~") and not (ref == "~" or ref.startswith("~/")):
        return  # ~user forms: test_a_tilde_user_path_that_does_not_exist_is_a_clear_error
    before = state(filled.root)
    try:
        m = filled.get(ref)
    except (NotFound, BadInput, BrokenFile) as e:
        assert "\n" not in str(e)
    else:
        assert (filled.root / m.path).resolve().is_relative_to(filled.root)
        assert not m.path.startswith(".") and not m.path.endswith("index.md")
    assert state(filled.root) == before


@pytest.mark.parametrize("ref", ["~0", "~\\", "~nosuchuser/notes.md"])
def test_a_tilde_user_path_that_does_not_exist_is_a_clear_error(filled, ref):
    unchanged(filled, lambda: filled.get(ref), VaultError)


def test_save_many_ids_with_paths_in_them_are_refused(filled):
    for bad in ["../x1234567", "/etc/passwd", "a\0bcdefgh", "CON", "con123/..", "ABCDEFGH", "x" * 33, "ab"]:
        assert "is not valid" in unchanged(filled, partial(filled.save_many, [{"text": "x", "id": bad}]), BadInput)


# -- secrets ---------------------------------------------------------------------------------------
# Realistic random values: documentation's own examples (AKIAIOSFODNN7EXAMPLE, T00000000/B00000000/XXXX)
# are prose about keys and must be saved (tests/test_sensitive.py).
SECRETS = {
    "AWS access key id": "the key is AKIAUJZDE8GXD6NCF10E for the backup user",
    "AWS secret key (config line)": "aws_secret_access_key = El2hpChYgCfrL1spNxnyVmihA+2O76UMFxFkM+R5",
    "AWS secret key (env)": "export AWS_SECRET_ACCESS_KEY=El2hpChYgCfrL1spNxnyVmihA+2O76UMFxFkM+R5",
    "private key block": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
    "OpenSSH private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
    "-----END OPENSSH PRIVATE KEY-----",
    "GCP service account": '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE"}',
    "GitHub token": "token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "GitLab token": "glpat-AbCdEfGh1jKlMnOpQrSt is the CI token",
    "Slack bot token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "Slack webhook": "post to https://hooks.slack.com/services/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",
    "Stripe live key": "sk_live_51HxYzAbCdEfGhIjKlMnOpQrStUv",
    "OpenAI key": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "Google API key": "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "JWT": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "npm token": "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "PyPI token": "pypi-AgEIcHlwaS5vcmcc7Tvo_hBKqFYY_kv5ZJr3J1TWDtkwtDDb-xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAW",
    "database URL with password": "prod is postgres://admin:Sup3rS3cret!@db.example.com:5432/prod",
    "Azure storage key": "DefaultEndpointsProtocol=https;AccountName=foo;"
    "AccountKey=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01234567==;"
    "EndpointSuffix=core.windows.net",
    "bearer token": "curl -H 'Authorization: Bearer AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' https://api.example.com",
    "password assignment": "the staging db password: hunter2!x9",
    "Hugging Face token": "HF token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "SendGrid key": "SG.AbCdEfGhIjKlMnOpQrStUv.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG",
}
NOT_SECRETS = [
    "the password is in 1Password under 'staging db'",
    "set API_KEY=${API_KEY} in the CI settings",
    "password: <your password>",
    "the AWS key lives in the vault, rotate it yearly",
    "commit 3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it",
]


@pytest.mark.parametrize("kind", list(SECRETS))
def test_a_secret_is_refused_by_save_import_and_cli(filled, kind):
    text = f"Remember for later: {SECRETS[kind]}"
    msg = unchanged(filled, lambda: filled.save(text, topic="work"), SecretRefused)
    assert "looks like" in msg and "remove it" in msg
    unchanged(filled, lambda: filled.save_many([{"text": "fine"}, {"text": text}]), SecretRefused)
    unchanged(filled, lambda: filled.save("fine text", title=SECRETS[kind][:120], topic="work"), SecretRefused)
    before = state(filled.root)
    r = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "save", "-", "--vault", str(filled.root)],
        input=text,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert state(filled.root) == before


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_a_pointer_to_a_secret_is_not_a_secret(filled, text):
    assert filled.save(text, topic="work").id
