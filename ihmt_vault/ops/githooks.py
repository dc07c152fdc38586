"""Git hooks for a vault: validation for commits made by hand (front matter, secrets, the roles),
summaries kept current after git moves the work tree (merge, checkout, rebase), and the server's
`pre-receive` hook on a bare repository, which refuses a push whose commits break the roles (see
roles.py). The hook scripts live in the repository's `hooks/` folder (shipped as
`ihmt_vault._hooks`); each is a short script calling the CLI.

Installing never clobbers a hook the person wrote: an existing hook that is not ours is left alone
and reported. The vault's own commits are written with plumbing, so hooks never run on them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ..engine.core import Engine
from ..errors import BadInput, BrokenFile
from ..shipped import shipped_dir
from ..storage import gitlog, notes, roles
from ..storage.sensitive import find_secret
from . import purge

HOOKS = ("pre-commit", "post-merge", "post-checkout", "post-rewrite")
MARK = "IHMT Vault (installed by 'ihmt hooks install')"
MARK_SERVER = "IHMT Vault (installed by 'ihmt hooks install --server')"


def _templates() -> Path:
    return shipped_dir("hooks", "_hooks")


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
            report.append(
                {
                    "hook": hook,
                    "path": str(target),
                    "action": "skipped",
                    "why": "a hook of your own is there; add a call to 'ihmt' yourself",
                }
            )
            continue
        action = "unchanged" if current == text else "installed"
        if action == "installed":
            target.write_text(text)
            target.chmod(0o755)
        report.append({"hook": hook, "path": str(target), "action": action})
    return report


def install_server(bare: Path) -> list[dict]:
    """Write the roles' `pre-receive` hook into a bare repository; returns [{hook, path, action}]."""
    if not (bare / "HEAD").is_file() or not (bare / "objects").is_dir():
        raise BadInput(f"{bare}: not a bare git repository (give the server's repository, e.g. vault.git)")
    text = (_templates() / "git-pre-receive").read_text().replace("@IHMT@", _ihmt())
    target = bare / "hooks" / "pre-receive"
    current = target.read_text(errors="replace") if target.exists() else None
    if current is not None and MARK_SERVER not in current:
        return [
            {
                "hook": "pre-receive",
                "path": str(target),
                "action": "skipped",
                "why": "a hook of your own is there; call 'ihmt hooks check --pre-receive' from it",
            }
        ]
    action = "unchanged" if current == text else "installed"
    if action == "installed":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(0o755)
    return [{"hook": "pre-receive", "path": str(target), "action": action}]


def check_staged(e: Engine) -> list[str]:
    """Problems with what is staged for the next commit (front matter, secrets, the committer's
    role); [] when fine."""
    problems = _roles_staged(e)
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


def _roles_staged(e: Engine) -> list[str]:
    """The staged changes the committer's role (by their git e-mail) does not allow. A broken
    roles.toml at HEAD refuses everything, except the commit that makes it valid again."""
    staged = e.repo.staged_changes()
    if any(p == roles.ROLES_PATH for s, p, _ in staged if s != "D"):
        try:
            roles.parse(dict(e.repo.staged()).get(roles.ROLES_PATH, b"").decode("utf-8", "replace"))
        except BrokenFile as err:
            return [str(err)]
    try:
        e.gate.roles()
    except BrokenFile as err:
        return [] if any(p == roles.ROLES_PATH for _, p, _ in staged) else [str(err)]
    problems = []
    for status, rel, old in staged:
        # a rename's old path is a vault path (`staged_changes` diffs the vault only), never None
        moves = (
            [(old, "move"), (rel, "write")]
            if status == "R" and old is not None
            else [(rel, "delete" if status == "D" else "write")]
        )
        for path, change in moves:
            why = e.gate.refusal("commit", "", path, change)
            if why:
                problems.append(why)
    return problems


def check_push(repo: Path, lines: list[str]) -> list[str]:
    """What a push ('old new ref' lines) does that the roles refuse, the pusher as the host names them."""
    return roles.check_push(repo, lines, roles.pusher_from_env())


def check_range(repo: Path, spec: str) -> list[str]:
    """What the commits of `A..B` do that the roles at A refuse (a CI job)."""
    return roles.check_range(repo, spec, roles.pusher_from_env())
