"""The project and session tools, measured on code nobody here wrote: click (pip-installed) and the
standard library's asyncio.

For each question: the tokens `find_code` answers with, whether its answer holds the symbol that
answers (hit@1, hit@3), and the tokens of reading the file(s) holding that symbol whole — what an
agent without the tool reads. A miss costs the answer *and* the file. Also: the map versus the
whole project, `read_file` twice on an unchanged and an edited file, `digest_output` on a real
5,000-line pytest log with failures, and the `tools/list` cost of each toolset.

    python bench/project_tools.py            # prints a table; --json for the raw figures
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import click

from ihmt_vault.project.codebase import Project
from ihmt_vault.project.session import Session
from ihmt_vault.search.result import estimate_tokens

CLICK = Path(click.__file__).parent
ASYNCIO = Path(asyncio.__file__).parent

# Each question with the symbols a reader would accept as its answer: a symbol's name, or a class
# whose members answer ("BoolParamType" accepts BoolParamType.convert).
QUESTIONS = {
    CLICK: [
        ("where are environment variables read for an option's value", {"resolve_envvar_value", "value_from_envvar"}),
        ("how is a boolean flag string like yes or 0 converted", {"BoolParamType"}),
        ("where is the progress bar drawn on the terminal", {"render_progress", "ProgressBar"}),
        ("how does bash shell completion produce its script", {"BashComplete"}),
        ("how does click wrap help text to the terminal width", {"wrap_text", "TextWrapper"}),
        ("ask the user a yes or no confirmation question", {"confirm"}),
        ("how does a Choice type validate a value", {"Choice"}),
        ("where is the editor launched to edit a text", {"Editor", "edit"}),
        ("open a file lazily only when first written", {"_LazyFile", "LazyFile"}),
        (
            "how does the parser split arguments into options",
            {"_OptionParser", "parse_args", "_process_args_for_options"},
        ),
        ("how does a prompt hide the typed password", {"hidden_prompt_func", "prompt"}),
        ("page long output through less", {"echo_via_pager", "pager", "_pipepager"}),
    ],
    ASYNCIO: [
        ("run the event loop until a future completes", {"run_until_complete"}),
        ("wait_for cancels the task on timeout", {"wait_for"}),
        ("create a subprocess with pipes from the loop", {"subprocess_exec", "_make_subprocess_transport"}),
        ("how does a lock wake up the first waiter", {"_wake_up_first"}),
        ("the task step that drives a coroutine", {"__step", "__step_run_and_handle_result"}),
        ("gather the results of several awaitables", {"gather"}),
        ("a queue blocks the producer when it is full", {"put"}),
        ("sleep schedules a callback after a delay", {"sleep"}),
        ("accept incoming connections on a listening socket", {"_accept_connection", "_accept_connection2"}),
        ("reschedule the deadline of an asyncio timeout", {"reschedule"}),
    ],
}


def _answers(e, s, wanted: set[str]) -> bool:
    owner = s.header.split("(")[0].split()[-1].rstrip(":{") if s.header else ""
    return s.name.split(":")[-1] in wanted or owner in wanted


def questions(root: Path, project: Project) -> list[dict]:
    rows = []
    for query, wanted in QUESTIONS[root]:
        found = project.find(query)
        where = {e.path: e for e in project.entries.values() for s in e.symbols if _answers(e, s, wanted)}
        whole = sum(e.tokens for e in where.values())
        hit1 = bool(found.hits) and _answers(*found.hits[0][:2], wanted)
        hit3 = any(_answers(e, s, wanted) for e, s, _ in found.hits[:3])
        answer = estimate_tokens(found.text)
        rows.append(
            {
                "query": query,
                "status": found.status,
                "hit1": hit1,
                "hit3": hit3,
                "answer_tokens": answer,
                "file_tokens": whole,
                "cost_tokens": answer + (0 if hit3 else whole),
            }
        )
    return rows


def read_twice(root: Path) -> dict:
    tmp = Path(tempfile.mkdtemp())
    file = tmp / "base_events.py"
    shutil.copy(root / "base_events.py", file)
    s = Session(tmp)
    first = estimate_tokens(s.read_file("base_events.py"))
    again = estimate_tokens(s.read_file("base_events.py"))
    text = file.read_text()
    file.write_text(text.replace("def run_forever(self):", "def run_forever(self):  # edited", 1))
    edited = estimate_tokens(s.read_file("base_events.py"))
    return {"first": first, "unchanged": again, "edited": edited}


def pytest_log() -> str:
    """A real pytest run of 4,990 tests, 6 of them failing, in verbose mode (a line per test)."""
    tmp = Path(tempfile.mkdtemp())
    (tmp / "test_many.py").write_text(
        textwrap.dedent("""
        import pytest

        @pytest.mark.parametrize("n", range(4990))
        def test_value(n):
            assert n % 997 != 3, f"value {n} is unlucky"
        """)
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:xdist", "-p", "no:cacheprovider", "-o", "addopts=", str(tmp)],
        capture_output=True,
        text=True,
        cwd=tmp,
    )
    return run.stdout


def digest_figures() -> dict:
    log = pytest_log()
    s = Session()
    text = s.digest_output(log, "pytest")
    failed = [line for line in log.splitlines() if line.startswith("FAILED ")]
    totals = [line for line in log.splitlines() if " failed, " in line and " passed" in line]
    kept = set(text.split("\n"))
    return {
        "log_lines": log.count("\n"),
        "log_tokens": estimate_tokens(log),
        "digest_tokens": estimate_tokens(text),
        "failures": len(failed),
        "failures_kept": sum(1 for f in failed if f in kept),
        "totals_kept": all(t in kept for t in totals),
    }


def tools_list_cost() -> dict:
    from mcp import Client, StdioServerParameters

    vault = Path(tempfile.mkdtemp()) / "v"
    subprocess.run([sys.executable, "-m", "ihmt_vault", "init", str(vault)], check=True, capture_output=True)

    async def listed(tools: str) -> int:
        params = StdioServerParameters(
            command=sys.executable,
            env=dict(os.environ),
            args=["-m", "ihmt_vault", "mcp", "--vault", str(vault), "--tools", tools],
        )
        async with Client(params, read_timeout_seconds=60) as c:
            payload = [
                t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in (await c.list_tools()).tools
            ]
        return len(json.dumps(payload, ensure_ascii=False)) // 4

    return {
        spec: asyncio.run(listed(spec))
        for spec in ("memory", "memory,project", "memory,session", "memory,project,session")
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ["HOME"] = tempfile.mkdtemp()  # the project indexes go to a throwaway ~/.ihmt/projects
    out: dict = {"projects": {}}
    for root in (CLICK, ASYNCIO):
        p = Project(root).sync()
        whole = sum(e.tokens for e in p.entries.values())
        rows = questions(root, p)
        out["projects"][root.name] = {
            "files": len(p.entries),
            "symbols": sum(len(e.symbols) for e in p.entries.values()),
            "project_tokens": whole,
            "map_tokens": estimate_tokens(p.map()),
            "map_symbols_tokens": estimate_tokens(p.map("symbols")),
            "questions": rows,
        }
    out["read_file"] = read_twice(ASYNCIO)
    out["digest"] = digest_figures()
    out["tools_list_tokens"] = tools_list_cost()
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for name, p in out["projects"].items():
        rows = p["questions"]
        print(
            f"\n{name}: {p['files']} files, {p['symbols']} symbols, {p['project_tokens']:,} tokens whole; "
            f"map {p['map_tokens']:,} tokens, map with symbols {p['map_symbols_tokens']:,}"
        )
        print(f"{'question':<58} {'hit@1':>5} {'hit@3':>5} {'answer':>7} {'file(s)':>8} {'cost':>7}")
        for r in rows:
            print(
                f"{r['query'][:58]:<58} {str(r['hit1']):>5} {str(r['hit3']):>5} {r['answer_tokens']:>7} "
                f"{r['file_tokens']:>8} {r['cost_tokens']:>7}"
            )
        n = len(rows)
        print(
            f"hit@1 {sum(r['hit1'] for r in rows)}/{n}, hit@3 {sum(r['hit3'] for r in rows)}/{n}; tokens: "
            f"find_code {sum(r['cost_tokens'] for r in rows):,} (misses pay the file too) vs reading the files "
            f"{sum(r['file_tokens'] for r in rows):,}"
        )
    print(
        f"\nread_file on asyncio/base_events.py: first {out['read_file']['first']:,} tokens, again unchanged "
        f"{out['read_file']['unchanged']}, after a one-line edit {out['read_file']['edited']}"
    )
    d = out["digest"]
    print(
        f"digest_output on a {d['log_lines']:,}-line pytest log ({d['log_tokens']:,} tokens): {d['digest_tokens']} "
        f"tokens, {d['failures_kept']}/{d['failures']} FAILED lines and the totals kept: {d['totals_kept']}"
    )
    print("tools/list tokens: " + ", ".join(f"{k} {v:,}" for k, v in out["tools_list_tokens"].items()))


if __name__ == "__main__":
    main()
