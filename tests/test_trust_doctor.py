"""One bad hand file never blocks repair: a front matter naming a key twice is read (the last one
wins) and reported as the person's to fix; a file repair cannot rewrite is left as it is and
reported; everything else is repaired in the one commit."""

import subprocess
import sys

from conftest import git

DUPLICATE = "---\ntitle: Deploy window\ntitle: Release window\n---\nReleases go out on Tuesdays.\n"
NESTED = "---\ntitle: Build cache\nextra:\n  owner: ana\n  owner: bob\n---\nThe build cache lives on the NAS.\n"


def ihmt(*args):
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True)


def test_a_duplicate_key_is_reported_for_the_person_and_everything_else_is_repaired(vault):
    root = vault.root
    (root / "work").mkdir()
    (root / "work/dup.md").write_text(DUPLICATE)
    (root / "work/hand.md").write_text("The standup moved to 10:00.\n")
    tip = git(root, "rev-parse", "HEAD").strip()
    r = ihmt("doctor", "--repair", "--vault", str(root))
    assert "Traceback" not in r.stderr and "error:" not in r.stderr
    assert (
        "duplicate-key  work/dup.md: front matter names 'title' 2 times (lines 2, 3); the last one is read: "
        "delete the ones you do not mean, then run 'ihmt doctor --repair' (left as it is until then) [needs you]"
    ) in r.stdout.splitlines()
    assert "missing-keys   work/hand.md: front matter lacks id, title, created [repaired]" in r.stdout.splitlines()
    assert r.returncode == 1  # one finding still needs the person
    assert git(root, "rev-parse", "HEAD~1").strip() == tip
    assert git(root, "ls-files", "work").split() == ["work/hand.md", "work/index.md"]
    assert (root / "work/dup.md").read_text() == DUPLICATE and "id: " in (root / "work/hand.md").read_text()
    assert vault.search("Releases Tuesdays").status == "found"  # read, last one wins: searchable meanwhile
    (root / "work/dup.md").write_text(DUPLICATE.replace("title: Deploy window\n", ""))
    again = ihmt("doctor", "--repair", "--vault", str(root))
    assert again.returncode == 0, again.stdout
    assert "work/dup.md" in git(root, "ls-files", "work") and ihmt("doctor", "--vault", str(root)).returncode == 0


def test_a_file_repair_cannot_rewrite_is_left_as_it_is_and_the_rest_is_repaired(vault):
    root = vault.root
    (root / "work").mkdir()
    (root / "work/nested.md").write_text(NESTED)  # read fine; the surgical writer refuses its duplicate
    (root / "work/hand.md").write_text("The standup moved to 10:00.\n")
    problems = {(p.kind, p.path): p for p in vault.doctor(repair=True)}
    nested = problems[("missing-keys", "work/nested.md")]
    assert not nested.repairable and nested.message.startswith("not repaired: work/nested.md: ")
    assert nested.message.endswith("(left as it is; the rest was repaired)")
    assert problems[("missing-keys", "work/hand.md")].repairable
    assert (root / "work/nested.md").read_text() == NESTED
    assert "work/hand.md" in git(root, "ls-files") and "work/nested.md" not in git(root, "ls-files")
    assert not [p for p in vault.doctor() if p.path == "work/hand.md"]
