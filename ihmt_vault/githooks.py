"""Git hooks for a vault: validation for commits made by hand, and summaries kept current after git
moves the work tree (merge, checkout, rebase). The hook scripts live in the repository's `hooks/`
folder (shipped as `ihmt_vault._hooks`); each is a short script calling the CLI.

Installing never clobbers a hook the person wrote: an existing hook that is not ours is left alone
and reported. The vault's own commits are written with plumbing, so hooks never run on them.
"""
from __future__ import annotations

import shutil
import sys
from importlib import resources
from pathlib import Path

from . import gitlog, notes, purge
from .engine import Engine
from .errors import BrokenFile
from .sensitive import find_secret

HOOKS = ("pre-commit", "post-merge", "post-checkout", "post-rewrite")
MARK = "IHMT Vault (installed by 'ihmt hooks install')"


def _templates() -> Path:
    checkout = Path(__file__).resolve().parent.parent / "hooks"
    return checkout if checkout.is_dir() else Path(str(resources.files("ihmt_vault"))) / "_hooks"


def _ihmt() -> str:
    exe = Path(sys.executable).parent / "ihmt"
    return str(exe) if exe.exists() else (shutil.which("ihmt") or "ihmt")


def install(e: Engine) -> list[dict]:
    """Write the vault's git hooks; returns [{hook, path, action: installed|unchanged|skipped}]."""
    hooks_dir = e.repo.hooks_dir()
    hooks_dir.mkdir(parents=True, exist_ok=True)
    report = []
    for hook in HOOKS:
        text = (_templates() / f"git-{hook}").read_text().replace("@IHMT@", _ihmt()).replace("@VAULT@", str(e.root))
        target = hooks_dir / hook
        current = target.read_text(errors="replace") if target.exists() else None
        if current is not None and MARK not in current:
            report.append({"hook": hook, "path": str(target), "action": "skipped",
                           "why": "a hook of your own is there; add a call to 'ihmt' yourself"})
            continue
        action = "unchanged" if current == text else "installed"
        if action == "installed":
            target.write_text(text)
            target.chmod(0o755)
        report.append({"hook": hook, "path": str(target), "action": action})
    return report


def check_staged(e: Engine) -> list[str]:
    """Problems with the memories staged for the next commit (front matter, secrets); [] when fine."""
    problems = []
    tombs = purge.tombstones(e)
    for rel, blob in e.repo.staged():
        purged = tombs.holds(gitlog.blob_hash(blob), blob) if tombs.ids else None
        if purged:
            problems.append(f"{rel}: is memory {purged}, which was purged; delete it instead of committing it")
            continue
        if not e.layout.is_memory_path(rel):
            continue
        try:
            text = blob.decode("utf-8")
            notes.parse(text, rel)
        except UnicodeDecodeError:
            problems.append(f"{rel}: is not UTF-8 text; re-save it as UTF-8")
            continue
        except BrokenFile as err:
            problems.append(str(err))
            continue
        secret = find_secret(text)  # the whole file: front-matter keys, tags and facts too
        if secret:
            problems.append(f"{rel}: contains what looks like {secret}; remove it before committing")
    return problems
