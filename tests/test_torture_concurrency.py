"""Torture: eight processes write one vault at once.

Three library processes, two CLI drivers (each save its own `ihmt save` process), two MCP servers
driven by the SDK's client, and a watcher taking in files a person writes by hand — 50 memories
each (`TORTURE_SCALE` multiplies), all started together. Afterwards every memory is there exactly
once, every save is exactly one `save:` commit, the hand-written files are committed by the
watcher, the search index holds exactly the catalog's memories, `ihmt doctor` says the vault is
healthy, `git fsck` passes, and no process printed a traceback (a lock wait that runs out is a
one-line error the writer retries, and is counted).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import threading
import time

from conftest import git, hold_lock

from ihmt_vault import Vault

SCALE = int(os.environ.get("TORTURE_SCALE", "1"))
N = 30 * SCALE  # saves per writer: enough for every pair of writers to meet at the lock many times

LIB = textwrap.dedent("""
    import sys
    mk = lambda who, i: ''.join('ba ce di fo gu ha je ki lo mu'.split()[int(c)] if c.isdigit() else c
                                for c in who + 'q' + str(i)) + 'x'
    from ihmt_vault import Vault, LockTimeout
    root, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    retries = 0
    with Vault.open(root) as v:
        for i in range(n):
            while True:
                try:
                    v.save(f"Note {i} from {who}: the {mk(who, i)} marker.", title=f"{who} fact {i}",
                           topic=None if i % 3 == 2 else f"team/{who}", source=who)
                    break
                except LockTimeout:
                    retries += 1
    print("retries", retries)
""")

CLI = textwrap.dedent("""
    import subprocess, sys
    mk = lambda who, i: ''.join('ba ce di fo gu ha je ki lo mu'.split()[int(c)] if c.isdigit() else c
                                for c in who + 'q' + str(i)) + 'x'
    root, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    retries = 0
    for i in range(n):
        while True:
            args = [sys.executable, "-m", "ihmt_vault", "save", f"Note {i} from {who}: the {mk(who, i)} marker.",
                    "--title", f"{who} fact {i}", "--source", who, "--vault", root]
            if i % 3 != 2:
                args += ["--topic", f"team/{who}"]
            r = subprocess.run(args, capture_output=True, text=True)
            if r.returncode == 0:
                break
            assert r.returncode == 3 and r.stderr.startswith("error: ") and r.stderr.count("\\n") == 1, r.stderr
            retries += 1
    print("retries", retries)
""")

MCP = textwrap.dedent("""
    import asyncio, os, sys
    mk = lambda who, i: ''.join('ba ce di fo gu ha je ki lo mu'.split()[int(c)] if c.isdigit() else c
                                for c in who + 'q' + str(i)) + 'x'
    from mcp import Client, StdioServerParameters
    from mcp.types import Implementation
    root, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    async def main():
        retries = 0
        params = StdioServerParameters(command=sys.executable, args=["-m", "ihmt_vault", "mcp", "--vault", root],
                                       env=dict(os.environ))
        async with Client(params, client_info=Implementation(name=who, version="1"), read_timeout_seconds=120) as c:
            for i in range(n):
                while True:
                    args = {"content": f"Note {i} from {who}: the {mk(who, i)} marker.", "title": f"{who} fact {i}"}
                    if i % 3 != 2:
                        args["topic"] = f"team/{who}"
                    r = await c.call_tool("save_memory", args)
                    text = " ".join(b.text for b in r.content if b.type == "text")
                    if not r.is_error:
                        break
                    assert "another process" in text and "Traceback" not in text, text
                    retries += 1
        print("retries", retries)
    asyncio.run(main())
""")


def marker(who: str, i: int) -> str:
    """A made-up word per memory, letters only (digits would make words that overlap)."""
    return "".join("ba ce di fo gu ha je ki lo mu".split()[int(c)] if c.isdigit() else c for c in f"{who}q{i}") + "x"


def test_eight_writers_at_once(tmp_path):
    root = tmp_path / "v"
    Vault.init(root).close()
    writers = {"lib1": LIB, "lib2": LIB, "lib3": LIB, "cli1": CLI, "cli2": CLI, "mcp1": MCP, "mcp2": MCP}
    watcher = subprocess.Popen(
        [sys.executable, "-u", "-m", "ihmt_vault", "watch", "--debounce", "0.3", "--vault", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log: list[str] = []
    threading.Thread(target=lambda: log.extend(l.rstrip("\n") for l in watcher.stdout), daemon=True).start()
    deadline = time.monotonic() + 30
    while not any("watching" in l for l in log):
        assert time.monotonic() < deadline and watcher.poll() is None, log
        time.sleep(0.05)

    procs = {
        who: subprocess.Popen(
            [sys.executable, "-c", code, str(root), who, str(N)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who, code in writers.items()
    }
    # the eighth writer: a person writing notes by hand while the others save; the watcher takes them in
    (root / "hand").mkdir()
    for i in range(N):
        (root / f"hand/note-{i}.md").write_text(f"# Hand note {i}\n\nWritten by hand: the hand{i}x marker.\n")
        time.sleep(0.02)
    results = {who: p.communicate(timeout=900) + (p.returncode,) for who, p in procs.items()}
    try:
        for who, (_out, err, code) in results.items():
            assert code == 0 and "Traceback" not in err, f"{who}: {err}"
        # the watcher has taken in every hand-written note once the notes carry ids and git is clean
        deadline = time.monotonic() + 120
        while True:
            texts = [(root / f"hand/note-{i}.md").read_text() for i in range(N)]
            if all(t.startswith("---\nid: ") for t in texts) and git(root, "status", "--porcelain") == "":
                break
            assert time.monotonic() < deadline, f"watcher did not take the notes in: {log[-20:]}"
            time.sleep(0.3)
    finally:
        watcher.terminate()
        watcher.wait(timeout=20)
    # a lock wait that ran out is one clear line in the watcher's log, never a traceback
    lock_errors = [l for l in log if "error:" in l]
    assert all("has held this vault's lock for over" in l for l in lock_errors), lock_errors
    assert not [l for l in log if "Traceback" in l], log

    savers = [w for w in writers]
    expected = {f"{who} fact {i}" for who in savers for i in range(N)}
    subjects = git(root, "log", "--format=%s").splitlines()
    saves = [s for s in subjects if s.startswith("save: ")]
    assert sorted(saves) == sorted(f"save: {t}" for t in expected), "not exactly one commit per save"
    others = {s.split(":")[0] for s in subjects if not s.startswith("save: ")}
    assert others <= {"init", "move", "edit"}, others  # splits and the watcher's edits; no repairs
    assert not any("Recovered: true" in b for b in git(root, "log", "--format=%B").split("\x00"))

    with Vault.open(root) as v:
        rows = v.catalog.all()
        titles = [r.title for r in rows if not r.title.startswith("Hand note")]
        assert sorted(titles) == sorted(expected), "a memory is missing or there twice"
        hand = sorted(r.title for r in rows if r.title.startswith("Hand note"))
        assert hand == sorted(f"Hand note {i}" for i in range(N))
        ids = [r.id for r in rows]
        assert len(ids) == len(set(ids)) == len(expected) + N
        assert v.doctor() == []
        from whoosh import index as windex

        ix = windex.open_dir(str(root / ".ihmt/cache/index"))
        with ix.searcher() as s:
            indexed = sorted(d["key"] for d in s.all_stored_fields() if d.get("kind") == "memory")
        ix.close()
        assert indexed == sorted(ids), "the search index and the catalog disagree"
        for who in savers:  # and the index answers: a sample of markers per writer
            for i in (0, N // 2, N - 1):
                hits = v.search(marker(who, i)).hits
                assert hits and hits[0].title == f"{who} fact {i}", (who, i)
    r = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "doctor", "--vault", str(root)], capture_output=True, text=True
    )
    assert (r.returncode, r.stdout) == (0, "vault is healthy\n"), r.stdout + r.stderr
    subprocess.run(["git", "fsck", "--no-progress", "--strict"], cwd=root, check=True, capture_output=True)
    retries = {who: int(re.search(r"retries (\d+)", out).group(1)) for who, (out, _, _) in results.items()}
    print(
        f"8 writers x {N} saves: lock waits that ran out and were retried: {retries}; "
        f"watcher lock errors: {len(lock_errors)}"
    )


def test_the_watcher_keeps_a_batch_it_could_not_write_for_the_lock(tmp_path):
    """A hand edit seen while another writer holds the lock past lock_timeout is taken in afterwards."""
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text("[vault]\nlock_timeout = 0.5\n")
    watcher = subprocess.Popen(
        [sys.executable, "-u", "-m", "ihmt_vault", "watch", "--debounce", "0.2", "--vault", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log: list[str] = []
    threading.Thread(target=lambda: log.extend(l.rstrip("\n") for l in watcher.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + 30
        while not any("watching" in l for l in log):
            assert time.monotonic() < deadline and watcher.poll() is None, log
            time.sleep(0.05)
        holder = hold_lock(root, 3)
        (root / "garden").mkdir()
        (root / "garden/tomatoes.md").write_text("# Tomatoes\n\nPlant them after the last frost.\n")
        holder.wait(timeout=30)
        deadline = time.monotonic() + 10
        while "edit: Tomatoes" not in git(root, "log", "--format=%s"):
            assert time.monotonic() < deadline, f"the hand edit was dropped: {log}"
            time.sleep(0.2)
    finally:
        watcher.terminate()
        watcher.wait(timeout=20)
