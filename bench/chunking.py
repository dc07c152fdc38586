"""The code chunker on real files: bytes round-tripped and the speed of chunking.

    python bench/chunking.py [--rounds 3]

Python: every .py file of the standard library's json, email and asyncio packages and of the
installed click; brace languages: every .js, .ts, .c and .h file found in site-packages. Each
file must join back byte for byte (the bench stops on the first that does not). Speed: asyncio
chunked `--rounds` times (files/s, chunks/s, MB/s; the best round), and the JavaScript files.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import json
import site
import time
from pathlib import Path

import click

from ihmt_vault.plugins.source_code import BraceChunker, PythonChunker, language_of


def python_files(*modules) -> list[Path]:
    return [f for m in modules for f in sorted(Path(m.__file__).parent.rglob("*.py"))]


def brace_files() -> list[Path]:
    roots = {Path(p) for p in site.getsitepackages() if Path(p).is_dir()}
    return [
        f for root in sorted(roots) for pattern in ("*.js", "*.ts", "*.c", "*.h") for f in sorted(root.rglob(pattern))
    ]


def read(files: list[Path]) -> list[tuple[Path, str]]:
    return [(f, f.read_text(encoding="utf-8", errors="surrogateescape")) for f in files]


def round_trip(label: str, texts: list[tuple[Path, str]]) -> None:
    chunks = 0
    for file, text in texts:
        chunker = PythonChunker() if file.suffix == ".py" else BraceChunker(language_of(str(file)))
        found = chunker.chunk(text)
        assert "".join(c.text for c in found) == text, f"{file} does not join back"
        chunks += len(found)
    size = sum(len(t.encode("utf-8", "surrogateescape")) for _, t in texts)
    print(f"{label:<28} {len(texts):>5} files {size:>10,} bytes {chunks:>6} chunks  byte exact")


def speed(label: str, texts: list[tuple[Path, str]], rounds: int) -> None:
    best, chunks = float("inf"), 0
    for _ in range(rounds):
        start = time.perf_counter()
        chunks = sum(
            len((PythonChunker() if f.suffix == ".py" else BraceChunker(language_of(str(f)))).chunk(t))
            for f, t in texts
        )
        best = min(best, time.perf_counter() - start)
    size = sum(len(t) for _, t in texts)
    print(
        f"{label:<28} {len(texts) / best:>8,.0f} files/s {chunks / best:>9,.0f} chunks/s "
        f"{size / best / 1e6:>6.2f} MB/s ({best * 1000:.0f} ms for {len(texts)} files)"
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    stdlib, clicks, braces = read(python_files(json, email, asyncio)), read(python_files(click)), read(brace_files())
    round_trip("stdlib json, email, asyncio", stdlib)
    round_trip("click", clicks)
    round_trip("site-packages js/ts/c/h", braces)
    speed("asyncio", read(python_files(asyncio)), args.rounds)
    speed("site-packages .js", [(f, t) for f, t in braces if f.suffix == ".js"], args.rounds)


if __name__ == "__main__":
    main()
