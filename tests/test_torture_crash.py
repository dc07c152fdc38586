"""Torture: kill -9 a saving process at precise points and at random times.

A child process saves memories (printing each id once `save` has returned), with one library
function patched to SIGKILL the process at a chosen point of the last save: before/after the
atomic rename of the memory file or of a summary, before the commit, between `commit-tree` and
`update-ref`, after `update-ref`, in the catalog, in the search index (before, inside Whoosh's
commit, before its state file), after the index and before the journal is cleared, in the middle
of a folder split, in the middle of a bulk import, and while `doctor --repair` itself repairs.
Then: no memory file is half-written, `ihmt doctor --repair` leaves `ihmt doctor` clean, every
memory whose save returned is committed and found by search, nothing is there twice, and
`git fsck` passes. The random part kills a loop of saves at random moments, many times, and
alternates recovery by `doctor --repair` and by the next save.

`TORTURE_SCALE` (default 1) multiplies the random rounds (`bench/scale.py --soak`).
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import git

from ihmt_vault import Vault
from ihmt_vault.storage import notes

SCALE = int(os.environ.get("TORTURE_SCALE", "1"))
WORDS = "amber basalt cobalt dune ember fjord garnet heron indigo jasper kelp lumen moraine nectar onyx".split()


def word(i: int, salt: int = 0) -> str:
    """A unique, searchable made-up word per memory (plain letters: every analyzer keeps it whole)."""
    rnd = random.Random(i * 7919 + salt)
    return "".join(rnd.choice("bcdfghjklmnpqrstvwxz") + rnd.choice("aeiou") for _ in range(5))


CHILD = textwrap.dedent("""
    import os, signal, subprocess, sys, json
    from ihmt_vault import Vault, files
    from ihmt_vault.storage import notes, gitlog, catalog
    from ihmt_vault.engine import core as vmod
    from ihmt_vault.search import index as sidx
    import whoosh.writing
    root, point, before, salt = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    sys.path.insert(0, sys.argv[5])
    from test_torture_crash import word
    armed = [False]
    count = [0]
    def die():
        os.kill(os.getpid(), signal.SIGKILL)
    def nth(k):
        if armed[0]:
            count[0] += 1
            if count[0] == k:
                return True
        return False
    def vault_file(file):   # the save's own files: not the lock's holder record nor the index's state
        return ".ihmt/cache/" not in str(file).replace(os.sep, "/")
    name, _, k = point.partition(":")
    k = int(k or 1)
    real_write, real_run, real_sub = files.atomic_write, gitlog.Repo.run, subprocess.run
    if name == "before-rename":        # the temp file is written, the rename never happens
        def write(file, text, expected=None):
            if vault_file(file) and nth(k):
                tmp = file.with_name(f".{file.name}.{os.getpid()}.ihmt-tmp")
                tmp.parent.mkdir(parents=True, exist_ok=True)
                with open(tmp, "w") as f:
                    f.write(text[: len(text) // 2])
                die()
            return real_write(file, text, expected)
        files.atomic_write = write
    elif name == "after-rename":       # the k-th file of the save is in place
        def write(file, text, expected=None):
            done = real_write(file, text, expected)
            if vault_file(file) and nth(k):
                die()
            return done
        files.atomic_write = write
    elif name == "commit":
        real_commit = gitlog.Repo.commit
        def commit(self, paths, msg, **kw):
            if armed[0]:
                die()
            return real_commit(self, paths, msg, **kw)
        gitlog.Repo.commit = commit
    elif name in ("write-tree", "commit-tree"):  # inside the commit, before that plumbing step
        def run(self, *args, **kw):
            if armed[0] and args[0] == name:
                die()
            return real_run(self, *args, **kw)
        gitlog.Repo.run = run
    elif name == "update-ref":         # the commit object exists, HEAD does not point at it
        def sub(cmd, *a, **kw):
            if armed[0] and "update-ref" in cmd:
                die()
            return real_sub(cmd, *a, **kw)
        subprocess.run = sub
    elif name == "after-update-ref":   # HEAD moved (the person's index took the paths just before)
        def sub(cmd, *a, **kw):
            r = real_sub(cmd, *a, **kw)
            if armed[0] and "update-ref" in cmd:
                die()
            return r
        subprocess.run = sub
    elif name == "persons-index":      # the person's index has the paths, HEAD has not moved
        def sub(cmd, *a, **kw):
            r = real_sub(cmd, *a, **kw)
            if armed[0] and "update-index" in cmd and "GIT_INDEX_FILE" not in (kw.get("env") or {}):
                die()
            return r
        subprocess.run = sub
    elif name == "catalog":            # in the middle of the catalog's transaction
        real_upsert = catalog.Catalog.upsert
        def upsert(self, *a, **kw):
            real_upsert(self, *a, **kw)
            if nth(k):
                die()
        catalog.Catalog.upsert = upsert
    elif name == "index-apply":        # the search index update has not started
        def apply(self, *a, **kw):
            if armed[0]:
                die()
        sidx.SearchIndex.apply = apply
    elif name == "whoosh-toc":         # Whoosh wrote the new segment, not its table of contents
        real_toc = whoosh.writing.SegmentWriter._commit_toc
        def toc(self, *a, **kw):
            if armed[0]:
                die()
            return real_toc(self, *a, **kw)
        whoosh.writing.SegmentWriter._commit_toc = toc
    elif name == "index-state":        # Whoosh committed, the index's state file is the old one
        real_state = sidx.SearchIndex._write_state
        def state(self, st):
            if armed[0]:
                die()
            return real_state(self, st)
        sidx.SearchIndex._write_state = state
    elif name == "journal-clear":      # everything done but the journal is still there
        real_reindex = vmod.Engine.reindex
        def reindex(self, *a, **kw):
            real_reindex(self, *a, **kw)
            if armed[0]:
                die()
        vmod.Engine.reindex = reindex
    elif name == "split-move":         # the k-th move of a folder split
        from ihmt_vault.engine.transaction import Transaction as Tx
        real_move = Tx.move
        def move(self, rel, folder):
            dest = real_move(self, rel, folder)
            if nth(k):
                die()
            return dest
        Tx.move = move
    elif name != "none":
        raise SystemExit(f"unknown crash point {point}")
    v = Vault.open(root)
    mode = os.environ.get("CRASH_MODE", "save")
    for i in range(before + 1):
        armed[0] = i == before
        if mode == "import" and armed[0]:
            items = [{"text": f"Imported {word(1000 + j, salt)} number {j}.", "topic": "imports"} for j in range(30)]
            for m in v.save_many(items):
                print(m.id, flush=True)
            continue
        topic = os.environ.get("CRASH_TOPIC") or (None if i % 3 == 2 else f"crash/t{i % 2}")
        m = v.save(f"Memory {word(i, salt)} was saved by round {salt}.", topic=topic)
        print(m.id, flush=True)
        if os.environ.get("CRASH_TEND"):   # what a long-lived process does after a save: a gardener's slice
            v.topics.tend()
    v.close()
""")

LOOP = textwrap.dedent("""
    import sys
    from ihmt_vault import Vault
    sys.path.insert(0, sys.argv[3])
    from test_torture_crash import word
    root, start = sys.argv[1], int(sys.argv[2])
    v = Vault.open(root)
    print("ready", flush=True)
    i = start
    while True:
        m = v.save(f"Memory {word(i)} was saved in a loop.", topic=None if i % 4 == 3 else f"loop/t{i % 3}")
        print(m.id, i, flush=True)
        i += 1
""")

TESTS = str(Path(__file__).resolve().parent)


def ihmt(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ihmt_vault", *args, "--vault", str(root)], capture_output=True, text=True
    )


def crash(root: Path, point: str, before: int = 2, salt: int = 0, **env) -> list[str]:
    """Run the child; it must die by SIGKILL at `point`. Returns the ids whose save returned."""
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), point, str(before), str(salt), TESTS],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert r.returncode == -signal.SIGKILL, f"{point}: the child did not die at its crash point: {r.stderr}"
    return r.stdout.split()


def no_half_files(root: Path) -> None:
    """Every file a person sees is whole: memories parse, summaries are complete documents."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.endswith(".md"):
                continue
            p = Path(dirpath) / name
            text = p.read_text(encoding="utf-8")
            m = notes.parse(text, p.relative_to(root).as_posix())
            if name == "index.md":
                assert m.meta.get("generated") is True, p
            else:
                assert m.id and m.title and text.endswith(".\n"), f"half-written {p}: {text!r}"


def check_consistent(root: Path, returned: list[str], words_of: dict[str, str] | None = None) -> None:
    """After repair: doctor clean, all returned memories committed and found, nothing twice, fsck ok."""
    with Vault.open(root) as v:
        assert [p.to_dict() for p in v.doctor()] == []
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    subprocess.run(["git", "fsck", "--no-progress", "--strict"], cwd=root, check=True, capture_output=True)
    assert not list(root.rglob("*.ihmt-tmp"))
    with Vault.open(root) as v:
        rows = v.catalog.all()
        ids = [r.id for r in rows]
        assert len(ids) == len(set(ids)), "a memory is there twice"
        bodies = [v.get(r.path).body for r in rows]
        assert len(bodies) == len(set(bodies)), "one save produced two files"
        tracked = set(git(root, "ls-files").splitlines())
        for i in returned:
            m = v.get(i)
            assert m.path in tracked, f"{m.path}: saved, returned, but not committed"
        for i, w in (words_of or {}).items():
            hits = v.search(w).hits
            assert hits and hits[0].id == i, f"search for {w} does not find {i}"


def fresh(tmp_path: Path, name: str = "v") -> Path:
    root = tmp_path / name
    Vault.init(root).close()
    return root


POINTS = [
    "before-rename:1",
    "after-rename:1",
    "before-rename:2",
    "after-rename:2",
    "after-rename:3",
    "catalog:1",
    "commit",
    "write-tree",
    "commit-tree",
    "persons-index",
    "update-ref",
    "after-update-ref",
    "index-apply",
    "whoosh-toc",
    "index-state",
    "journal-clear",
]


@pytest.mark.parametrize("point", POINTS)
def test_kill_at_a_precise_point_then_doctor_repairs(tmp_path, point):
    root = fresh(tmp_path)
    returned = crash(root, point, before=2)
    assert len(returned) == 2
    no_half_files(root)
    r = ihmt(root, "doctor", "--repair")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    check_consistent(root, returned, {i: word(n) for n, i in enumerate(returned)})


@pytest.mark.parametrize("point", ["after-rename:1", "commit", "update-ref", "index-state"])
def test_kill_then_the_next_save_recovers_without_doctor(tmp_path, point):
    root = fresh(tmp_path)
    returned = crash(root, point, before=1)
    with Vault.open(root) as v:
        returned.append(v.save(f"Memory {word(99)} after the crash.", topic="crash/after").id)
    check_consistent(root, returned, {returned[0]: word(0), returned[-1]: word(99)})


@pytest.mark.parametrize("k", [1, 5, 12])
def test_kill_in_the_middle_of_a_folder_split(tmp_path, k):
    root = fresh(tmp_path)
    with Vault.open(root) as v:
        branch = v.config.branch_factor
        items = [
            {
                "text": f"Memory {word(500 + j)} about topic {['ops', 'food', 'travel'][j % 3]} {j}.",
                "topic": "crowded",
                "tags": [["ops", "food", "travel"][j % 3]],
            }
            for j in range(branch)
        ]
        before = [m.id for m in v.save_many(items)]
    returned = crash(root, f"split-move:{k}", before=0, CRASH_TOPIC="crowded", CRASH_TEND="1")
    assert len(returned) == 1  # the save landed; the gardener's slice after it was killed mid-split
    no_half_files(root)
    r = ihmt(root, "doctor", "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    check_consistent(root, before, {i: word(500 + j) for j, i in enumerate(before)})
    with Vault.open(root) as v:
        assert all(len(os.listdir(root / f)) for f in [r.folder for r in v.catalog.all()])


@pytest.mark.parametrize("point", ["after-rename:10", "before-rename:31", "commit", "index-state"])
def test_kill_in_the_middle_of_a_bulk_import(tmp_path, point):
    root = fresh(tmp_path)
    returned = crash(root, point, before=1, CRASH_MODE="import")
    assert len(returned) == 1
    no_half_files(root)
    r = ihmt(root, "doctor", "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    check_consistent(root, returned, {returned[0]: word(0)})
    with Vault.open(root) as v:  # an import is all or nothing once repaired: its files were journaled
        n = sum(1 for r in v.catalog.all() if r.folder.startswith("imports"))
        assert n in (0, 30), n


def test_kill_during_doctor_repair_then_repair_again(tmp_path):
    root = fresh(tmp_path)
    returned = crash(root, "after-rename:1", before=1)
    script = textwrap.dedent(f"""
        import os, signal
        from ihmt_vault import Vault
        from ihmt_vault.storage import gitlog
        gitlog.Repo.commit = lambda self, paths, msg, **kw: os.kill(os.getpid(), signal.SIGKILL)
        Vault.open({str(root)!r}).doctor(repair=True)
    """)
    assert subprocess.run([sys.executable, "-c", script]).returncode == -signal.SIGKILL
    r = ihmt(root, "doctor", "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    check_consistent(root, returned, {returned[0]: word(0)})


def test_random_kills_of_a_loop_of_saves(tmp_path):
    """Kill -9 a process saving in a loop at random moments; recover by repair or by the next save."""
    root = fresh(tmp_path)
    rnd = random.Random(int(os.environ.get("TORTURE_SEED", "1234")))
    returned: dict[str, int] = {}
    start, rounds, killed_mid_save = 0, 12 * SCALE, 0
    for n in range(rounds):
        p = subprocess.Popen(
            [sys.executable, "-c", LOOP, str(root), str(start), TESTS],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert p.stdout.readline() == "ready\n"
        # The kill comes at a random moment after the round's first save has returned: a loaded machine
        # saves more slowly, and no number of saves per second is assumed (120 s only guards a hang).
        assert select.select([p.stdout], [], [], 120)[0], "the loop saved nothing in 120 s"
        first = p.stdout.readline()
        time.sleep(rnd.uniform(0.05, 1.2))
        p.kill()
        out, err = p.communicate()
        out = first + out
        assert "Traceback" not in err, err
        lines = [l.split() for l in out.splitlines() if l.strip()]
        for mid, i in lines:
            returned[mid] = int(i)
        start += len(lines) + 1  # the killed save's number is never reused
        no_half_files(root)
        if list(root.rglob("*.ihmt-tmp")) or (root / ".ihmt/cache/journal.jsonl").exists():
            killed_mid_save += 1
        if n % 2 == 0:
            r = ihmt(root, "doctor", "--repair")
            assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    r = ihmt(root, "doctor", "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(returned) >= rounds  # every round saved before its kill
    check_consistent(root, list(returned), {mid: word(i) for mid, i in list(returned.items())[::5]})
    print(f"random kills: {rounds} kills, {killed_mid_save} inside a save, {len(returned)} saves returned")
