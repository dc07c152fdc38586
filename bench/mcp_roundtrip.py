"""MCP round trips: save_memory and search_memory through a real SDK client over stdio.

    /work/venv/bin/python bench/mcp_roundtrip.py --size 500 --n 50   # prints a table, writes bench/results/mcp.json

A vault with `--size` synthetic memories is served by `ihmt mcp` (started by the client as a
subprocess, as an agent starts it); each figure is one tool call from the client's send to its
answer, server startup excluded (reported on its own), in milliseconds.

Measured 2026-11-30 on the 2-core development machine (other work running), mcp 2.3.0:

    size  server_start  save p50 / p95   search p50 / p95   brief p50   tools/list
       0        626 ms     47 / 107 ms       12 / 24 ms        2 ms    1,285 tokens
     500        629 ms     44 /  90 ms       24 / 60 ms        4 ms
    5000        667 ms     60 / 120 ms       34 / 62 ms       13 ms
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.types import Implementation  # noqa: E402
from synth import memories  # noqa: E402

from ihmt_vault import Vault  # noqa: E402

QUERIES = [
    "postgres version on staging",
    "who is the DBA",
    "deploy on friday",
    "stripe webhook retries",
    "how to run the integration tests",
    "backup restore drill",
    "nginx timeout",
    "climbing partner",
]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def measure(root: Path, n: int) -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "ihmt_vault", "mcp", "--vault", str(root)])
    t = time.perf_counter()
    async with Client(params, client_info=Implementation(name="bench", version="1")) as c:
        start_ms = (time.perf_counter() - t) * 1000
        listed = await c.list_tools()
        payload = json.dumps(
            [x.model_dump(by_alias=True, exclude_none=True, mode="json") for x in listed.tools], ensure_ascii=False
        )
        await c.call_tool("search_memory", {"query": "warm up"})  # first search opens the index
        save, search, brief = [], [], []
        for i in range(n):
            t = time.perf_counter()
            r = await c.call_tool(
                "save_memory",
                {
                    "content": f"Bench note {i}: the queue worker restarts after deploy {i} because of a stale lock.",
                    "topic": "bench" if i % 2 else None,
                },
            )
            save.append((time.perf_counter() - t) * 1000)
            assert not r.is_error, r.content
            t = time.perf_counter()
            r = await c.call_tool("search_memory", {"query": QUERIES[i % len(QUERIES)]})
            search.append((time.perf_counter() - t) * 1000)
            assert not r.is_error, r.content
        for _ in range(5):
            t = time.perf_counter()
            await c.call_tool("memory_brief", {})
            brief.append((time.perf_counter() - t) * 1000)
    return {
        "server_start_ms": round(start_ms),
        "tools_list_tokens": len(payload) // 4,
        "save_p50_ms": round(statistics.median(save), 1),
        "save_p95_ms": round(pct(save, 95), 1),
        "search_p50_ms": round(statistics.median(search), 1),
        "search_p95_ms": round(pct(search, 95), 1),
        "brief_p50_ms": round(statistics.median(brief), 1),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=500, help="memories in the vault before measuring")
    ap.add_argument("--n", type=int, default=50, help="save + search pairs to time")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "mcp.json")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "v"
        with Vault.init(root) as v:
            if a.size:
                v.save_many(memories(a.size), source="bench")
        result = {"size": a.size, "n": a.n, **asyncio.run(measure(root, a.n))}
    print(" ".join(f"{k}={v}" for k, v in result.items()))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
