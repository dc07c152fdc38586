"""Bad input gets one clear line naming the file or argument, a non-zero exit, and changes nothing."""

import subprocess
import sys

import pytest
from conftest import snapshot

from ihmt_vault import BadInput, BrokenFile, NotAVault, Vault, VaultError


def ihmt(*args, input=None):
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True, input=input)


@pytest.fixture
def filled(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="work/infrastructure")
    return vault


def unchanged(v, action, error=VaultError, match=None):
    before = snapshot(v.root)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=v.root, capture_output=True, text=True).stdout
    with pytest.raises(error, match=match) as e:
        action()
    assert snapshot(v.root) == before
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=v.root, capture_output=True, text=True).stdout == head
    assert "\n" not in str(e.value)
    return str(e.value)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text_is_refused(filled, text):
    assert (
        unchanged(filled, lambda: filled.save(text), BadInput) == "the memory text is empty; give the text to remember"
    )


@pytest.mark.parametrize(
    "topic, message",
    [
        ("../outside", "--topic '../outside': '..' and '.' are not allowed; give a path inside the vault"),
        ("work/../../etc", "--topic 'work/../../etc': '..' and '.' are not allowed; give a path inside the vault"),
        (
            "/etc/cron.d",
            "--topic '/etc/cron.d': must be a path inside the vault such as work/infrastructure, not absolute",
        ),
        (
            "C:\\Windows",
            "--topic 'C:\\\\Windows': must be a path inside the vault such as work/infrastructure, not absolute",
        ),
        ("work/con", "--topic 'work/con': uses a name Windows reserves (con, nul, com1, ...); choose another"),
        ("a/b/c/d/e/f/g", "--topic 'a/b/c/d/e/f/g': deeper than the vault's max_depth of 6; use a shorter path"),
        ("work\0x", "--topic: contains a NUL byte; give a folder path such as work/infrastructure"),
    ],
)
def test_bad_topics_are_refused(filled, topic, message):
    assert unchanged(filled, lambda: filled.save("text", topic=topic), BadInput) == message


def test_bad_date_type_and_id_are_refused(filled):
    assert (
        unchanged(filled, lambda: filled.save("x", date="someday"))
        == "date 'someday' is not a date; use YYYY-MM-DD, or words such as 'yesterday', '3 days ago', 'last May'"
    )
    assert (
        unchanged(filled, lambda: filled.save("x", date="2026-02-30"))
        == "date '2026-02-30' is not a real date; use YYYY-MM-DD"
    )
    assert unchanged(filled, lambda: filled.save("x", type="rumour")).startswith(
        "type 'rumour' is unknown; use one of fact,"
    )
    assert (
        unchanged(filled, lambda: filled.save_many([{"text": "x", "id": "../x"}]))
        == "item 1: id '../x' is not valid; ids are 6-32 lowercase letters and digits"
    )


def test_save_many_with_one_bad_item_saves_none(filled):
    items = [{"text": "good one", "topic": "a"}, {"text": "", "topic": "a"}]
    assert (
        unchanged(filled, lambda: filled.save_many(items))
        == "item 2: the memory text is empty; give the text to remember"
    )


def test_broken_yaml_is_reported_with_the_file_and_the_line(filled):
    (filled.root / "work/broken.md").write_text("---\ntitle: [unclosed\nid: x\n---\nbody\n")
    subprocess.run(["git", "add", "work/broken.md"], cwd=filled.root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--no-verify", "-qm", "hand"],
        cwd=filled.root,
        check=True,
    )  # past the pre-commit hook, which would refuse it
    msg = unchanged(filled, lambda: filled.get("work/broken.md"), BrokenFile)
    assert msg.startswith("work/broken.md: front matter is not valid YAML at line")
    problems = [p for p in filled.doctor() if p.kind == "broken"]
    assert [(p.path, p.repairable) for p in problems] == [("work/broken.md", False)]


def test_a_file_that_is_not_utf8_text(filled):
    (filled.root / "work/latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    (filled.root / "work/binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    assert (
        unchanged(filled, lambda: filled.get("work/latin1.md"), BrokenFile)
        == "work/latin1.md: is not UTF-8 text; re-save it as UTF-8"
    )
    assert (
        unchanged(filled, lambda: filled.get("work/binary.md"), BrokenFile)
        == "work/binary.md: is not a text file; move it out of the vault"
    )


def test_a_path_outside_the_vault_is_refused(filled, tmp_path):
    (tmp_path / "secret.md").write_text("x")
    assert unchanged(filled, lambda: filled.get(str(tmp_path / "secret.md")), BadInput).endswith(
        "is outside the vault " + str(filled.root) + "; give a path inside it"
    )
    assert unchanged(filled, lambda: filled.get("../secret.md"), BadInput).startswith(
        "../secret.md: is outside the vault"
    )


def test_duplicate_id_is_found_and_repaired(filled):
    m = filled.save("Original.", topic="dup")
    (filled.root / "dup/copy.md").write_text((filled.root / m.path).read_text())
    filled.refresh(force=True)  # a long-lived process notices hand edits within refresh_interval
    with pytest.raises(VaultError, match=f"id {m.id} is used by 2 files"):
        filled.get(m.id)
    assert [p.kind for p in filled.doctor() if p.kind == "duplicate-id"] == ["duplicate-id"]
    filled.doctor(repair=True)
    assert filled.get(m.id).path in (m.path, "dup/copy.md")
    assert filled.doctor() == []


def test_a_vault_path_that_does_not_exist(tmp_path):
    with pytest.raises(NotAVault, match="no such folder; create a vault with 'ihmt init"):
        Vault.open(tmp_path / "nope")
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotAVault, match=r"not a vault \(no .ihmt/config.toml\)"):
        Vault.open(tmp_path / "plain")
    assert not (tmp_path / "nope").exists()


def test_cli_errors_are_one_line_with_non_zero_exit_and_no_traceback(filled, tmp_path):
    r = ihmt("save", "x", "--topic", "../up", "--vault", str(filled.root))
    assert (r.returncode, r.stdout, r.stderr) == (
        2,
        "",
        "error: --topic '../up': '..' and '.' are not allowed; give a path inside the vault\n",
    )
    r = ihmt("show", "nope12345", "--vault", str(filled.root))
    assert (r.returncode, r.stderr) == (2, "error: nope12345: no memory with this id or path; try 'ihmt search'\n")
    r = ihmt("tree", "--vault", str(tmp_path / "missing"))
    assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\nnot json\n')
    before = snapshot(filled.root)
    r = ihmt("import", str(bad), "--vault", str(filled.root))
    assert (
        r.returncode == 2
        and r.stderr == f"error: {bad}: line 2 is not JSON (Expecting value); fix that line and import again\n"
    )
    assert snapshot(filled.root) == before
