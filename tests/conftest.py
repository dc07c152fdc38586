"""Every test gets its own HOME (so no personal git config or default vault leaks in) and a temp vault."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ihmt_vault import Vault


def pytest_collection_modifyitems(items):
    """The torture files' tests carry the `torture` mark (pyproject.toml: markers)."""
    for item in items:
        if item.path.name.startswith("test_torture_"):
            item.add_marker(pytest.mark.torture)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("IHMT_VAULT", raising=False)
    monkeypatch.chdir(tmp_path)  # no test finds a vault from the folder pytest was started in
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    return home


@pytest.fixture
def vault(tmp_path):
    v = Vault.init(tmp_path / "vault")
    yield v
    v.close()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def commits(path: Path) -> list[str]:
    """Subjects of the commits, newest first."""
    return git(path, "log", "--format=%s").splitlines()


def hold_lock(root: Path, seconds: float) -> subprocess.Popen:
    """Another process holding the vault's write lock for `seconds`; returns once it holds it."""
    import sys
    import textwrap

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import time
        from ihmt_vault import Vault
        v = Vault.open({str(root)!r})
        with v.lock.held():
            print("held", flush=True)
            time.sleep({seconds})
    """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline() == "held\n"
    return holder


def snapshot(root: Path) -> dict:
    """Every file under root except git's and the cache's internals, with its bytes: 'nothing changed' checks."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git" and not (d == "cache" and dirpath.endswith(".ihmt"))]
        for name in filenames:
            if name == "vault.lock":
                continue
            p = Path(dirpath) / name
            files[p.relative_to(root).as_posix()] = p.read_bytes()
    return files


# -- the built site (tests/test_site*.py) -----------------------------------------------------------
def page(out: Path, md_path: str) -> Path:
    """The built HTML file of a page (directory URLs)."""
    stem = md_path[:-3]
    return out / (stem[:-5] if stem.endswith("index") else stem + "/") / "index.html"


def article(file: Path) -> str:
    text = file.read_text(encoding="utf-8")
    return text[text.index("<article") : text.index("</article>")]


def save_tended(v, text, **fields):
    """A save as agents make it, then what a long-lived process (`ihmt mcp`, `ihmt watch`) does in
    the quiet that follows: one slice of the gardener's queue (`Vault.topics.tend`)."""
    m = v.memories.save(text, **fields)
    v.topics.tend()
    return m
