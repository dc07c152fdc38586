"""Search over MCP, ours against Basic Memory, on the same notes (issue 19: no slower at 5,000).

    .venv/bin/python bench/mcp_vs_basic_memory.py --size 5000   # prints a line, writes bench/results/mcp-vs-bm.json

Basic Memory needs Python 3.12 and is not a dependency; put it in a throwaway venv outside the repo:

    /root/.pyenv/versions/3.12.1/bin/python3.12 -m venv /tmp/bm-venv && /tmp/bm-venv/bin/pip install basic-memory

A vault with `--size` synthetic memories (`bench/synth.py`) is built with `Vault.save_many`; its memory
files (not `.ihmt/`, `.git/` or the generated folder `index.md` files) are copied to a second folder,
which Basic Memory indexes with `basic-memory reindex --search` before anything is timed (its status
must say every file is indexed). Both servers are then started over stdio by the official SDK
(`stdio_client` + `ClientSession`), as an agent starts them, and kept open together. After a few warm-up
queries to each, every query of `synth.QUERIES` goes to `search_memory` on ours and then, the same query,
to Basic Memory's `search_notes` (`search_type="text"`, its default page of 10), for `--rounds` rounds.
Each figure is one `call_tool` from send to answer, in milliseconds.

Basic Memory runs with its own HOME and `BASIC_MEMORY_CONFIG_DIR` in the temp folder (one project,
`bench`, no file watcher, no auto-update), keyword search only: its vector half would download an
embedding model, so `sqlite_vec` is shadowed by a module that fails to import, which is Basic Memory's
own fallback for hosts without sqlite-vec (FTS5 only), and Hugging Face is set offline. Its log level
is WARNING and FastMCP's banner and update check are off, so no request waits on logging or the network.

Measured 2026-12-01 on the 2-core development machine (shared), Basic Memory 0.24.1, mcp 2.3.0, 90 calls each:

    size   ours p50 / p90   Basic Memory p50 / p90   ours/BM p50   p90   (BM indexing 5,000 notes: 362 s)
    5000     9.2 / 26.8 ms         29.8 / 43.0 ms           0.31   0.62
    5000     6.0 / 12.7 ms         19.4 / 23.8 ms           0.31   0.53   (second run, 314 s)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402
from synth import QUERIES, memories  # noqa: E402

from ihmt_vault import Vault  # noqa: E402

DEFAULT_BM = Path("/tmp/bm-venv/bin/basic-memory")
INSTALL = (
    "Basic Memory not found: /root/.pyenv/versions/3.12.1/bin/python3.12 -m venv /tmp/bm-venv && "
    "/tmp/bm-venv/bin/pip install basic-memory (or pass --bm-command)"
)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def copy_notes(vault: Path, dest: Path) -> int:
    n = 0
    for src in vault.rglob("*.md"):
        rel = src.relative_to(vault)
        if rel.parts[0] in (".ihmt", ".git") or src.name == "index.md":
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
        n += 1
    return n


def bm_env(tmp: Path, notes: Path) -> dict:
    """HOME, config and a failing `sqlite_vec` for Basic Memory, all under tmp."""
    home, shim = tmp / "bm-home", tmp / "bm-shim" / "sqlite_vec"
    (home / ".basic-memory").mkdir(parents=True)
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text('raise ImportError("disabled by the benchmark: keyword search only")\n')
    config = {
        "projects": {"bench": {"path": str(notes)}},
        "default_project": "bench",
        "auto_update": False,
        "default_search_type": "text",
        "index_changes": False,
        "skip_initialization_sync": True,
        "cloud_promo_opt_out": True,
    }
    (home / ".basic-memory" / "config.json").write_text(json.dumps(config))
    return {
        "HOME": str(home),
        "BASIC_MEMORY_CONFIG_DIR": str(home / ".basic-memory"),
        "PYTHONPATH": str(shim.parent),
        "HF_HUB_OFFLINE": "1",
        "FASTEMBED_CACHE_PATH": str(tmp / "bm-fastembed"),
        "BASIC_MEMORY_LOG_LEVEL": "WARNING",
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }


def bm_index(command: str, env: dict) -> tuple[float, str]:
    """Index the project with Basic Memory's CLI; return seconds and its status line."""
    full = {**os.environ, **env}
    t = time.perf_counter()
    subprocess.run([command, "reindex", "--search", "-p", "bench"], env=full, check=True, capture_output=True)
    seconds = time.perf_counter() - t
    status = subprocess.run([command, "status"], env=full, check=True, capture_output=True, text=True).stdout
    line = re.search(r"indexed[^\n│]*", status)
    return seconds, (line.group(0).strip() if line else status.strip())


async def timed(session: ClientSession, tool: str, args: dict) -> float:
    t = time.perf_counter()
    r = await session.call_tool(tool, args)
    ms = (time.perf_counter() - t) * 1000
    assert not r.is_error, r.content
    return ms


async def measure(vault: Path, command: str, env: dict, rounds: int, warm: int, errlog) -> dict:
    ours_params = StdioServerParameters(command=sys.executable, args=["-m", "ihmt_vault", "mcp", "--vault", str(vault)])
    bm_params = StdioServerParameters(command=command, args=["mcp", "--project", "bench"], env=env)
    info = Implementation(name="bench", version="1")
    async with AsyncExitStack() as stack:
        sessions = []
        for params in (ours_params, bm_params):
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
            session = await stack.enter_async_context(ClientSession(read, write, client_info=info))
            await session.initialize()
            sessions.append(session)
        ours, bm = sessions
        calls = {
            "ours": lambda q: timed(ours, "search_memory", {"query": q}),
            "bm": lambda q: timed(bm, "search_notes", {"query": q, "search_type": "text"}),
        }
        first = await bm.call_tool("search_notes", {"query": "PostgreSQL", "search_type": "text"})
        assert not first.is_error and "PostgreSQL" in str(first.content), first.content
        for q in QUERIES[:warm]:
            for call in calls.values():
                await call(q)
        times: dict[str, list[float]] = {"ours": [], "bm": []}
        for _ in range(rounds):
            for q in QUERIES:
                for name, call in calls.items():
                    times[name].append(await call(q))
    out = {"calls_each": len(times["ours"])}
    for name, values in times.items():
        out[f"{name}_p50_ms"] = round(statistics.median(values), 1)
        out[f"{name}_p90_ms"] = round(pct(values, 90), 1)
    out["ratio_p50"] = round(out["ours_p50_ms"] / out["bm_p50_ms"], 2)
    out["ratio_p90"] = round(out["ours_p90_ms"] / out["bm_p90_ms"], 2)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=5000, help="memories in the vault")
    ap.add_argument("--rounds", type=int, default=3, help="passes over synth.QUERIES, interleaved")
    ap.add_argument("--warm", type=int, default=5, help="warm-up queries to each server")
    ap.add_argument("--bm-command", default=str(DEFAULT_BM), help="Basic Memory's CLI (from its 3.12 venv)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "mcp-vs-bm.json")
    a = ap.parse_args()
    if not shutil.which(a.bm_command):
        print(INSTALL)
        sys.exit(2)
    version = subprocess.run([a.bm_command, "--version"], capture_output=True, text=True).stdout.split()[-1]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        with Vault.init(tmp / "v") as v:
            v.save_many(memories(a.size), source="bench")
        build_s = time.perf_counter() - t
        notes = copy_notes(tmp / "v", tmp / "bm-notes")
        env = bm_env(tmp, tmp / "bm-notes")
        index_s, status = bm_index(a.bm_command, env)
        if f"settled — {notes} notes" not in status:
            sys.exit(f"Basic Memory's index is not complete: {status}")
        with open(tmp / "servers.log", "w") as errlog:  # both servers' stderr (Basic Memory logs there)
            figures = asyncio.run(measure(tmp / "v", a.bm_command, env, a.rounds, a.warm, errlog))
        result = {
            "size": a.size,
            "notes_copied": notes,
            "ours_build_s": round(build_s, 1),
            "bm_index_s": round(index_s, 1),
            "bm_status": status,
            "bm_version": version,
            **figures,
        }
        result["bm_model_downloaded"] = (tmp / "bm-fastembed").exists()
    print(" ".join(f"{k}={v}" for k, v in result.items()))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
