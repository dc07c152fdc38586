"""Several vaults at once: a person's private vault and the shared ones it mounts.

A mount is declared in the private vault's `.ihmt/config.toml` (`[[mount]]`: a name, a path, an
optional remote to clone from); a team's vault is a git repository cloned anywhere. Search spans
every mounted vault and says where each hit lives (`team:work/infra/x.md`); a save goes to the
private vault unless its topic starts with a mount's name (`team/infra` goes to the `team` vault's
`infra/`) or the caller names the vault; the brief shows each mount's top level within the one
budget; sync syncs each.

Invariant: nothing moves between vaults on its own — a memory saved to the private vault never
reaches a mount's files, commits or remote. A mount that cannot be opened (gone, not a vault) is
reported, never a reason for the private vault to fail; naming it for a save or search is an error.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import tomlkit

from . import gitlog
from .config import CONFIG_PATH, Mount, mounts_toml
from .errors import BadInput, NotAVault, NotFound, VaultError
from .search.result import AMBIGUOUS, FOUND, NOT_FOUND, SearchResult

if TYPE_CHECKING:
    from .engine import Engine
    from .vault import Vault

PRIVATE = "private"      # the name a caller may use for the vault that mounts the others


class Mounts:
    """The mounted vaults of one vault, opened when first used."""

    def __init__(self, root: Path, declared: tuple, opener: Callable[[Path], "Vault"]):
        self.root = root
        self.declared: dict[str, Mount] = {m.name: m for m in declared}
        self.opener = opener
        self.opened: dict[str, "Vault"] = {}
        self.problems: dict[str, str] = {}

    def path_of(self, m: Mount) -> Path:
        p = Path(m.path).expanduser()
        return p if p.is_absolute() else (self.root / p).resolve()

    def get(self, name: str) -> "Vault":
        if name not in self.declared:
            raise BadInput(f"no mounted vault called {name!r}; mounted: {', '.join(self.declared) or 'none'} "
                           f"(see 'ihmt mount list')")
        if name not in self.opened:
            try:
                self.opened[name] = self.opener(self.path_of(self.declared[name]))
            except VaultError as e:
                raise NotAVault(f"mount {name}: {e}") from None
        return self.opened[name]

    def available(self) -> list[tuple[str, "Vault"]]:
        """The mounts that open; the others are remembered in `problems`."""
        out = []
        for name in self.declared:
            try:
                out.append((name, self.get(name)))
            except VaultError as e:
                self.problems[name] = str(e)
        return out

    def engines(self) -> list[tuple[str, "Engine"]]:
        return [(name, v.engine) for name, v in self.available()]

    def close(self) -> None:
        for v in self.opened.values():
            v.close()
        self.opened.clear()

    # -- where an operation goes ------------------------------------------------------------------
    def for_save(self, topic: str | None, vault: str | None) -> tuple[str | None, str | None]:
        """(the mount a save goes to, or None for the private vault; the topic inside it)."""
        if vault and vault != PRIVATE:
            self.get(vault)
            return vault, topic
        if vault == PRIVATE or not topic:
            return None, topic
        head, _, rest = topic.strip().strip("/").partition("/")
        if head in self.declared:
            return head, rest or None
        return None, topic

    def split_ref(self, ref: str) -> tuple[str | None, str]:
        """`team:work/x.md` → ("team", "work/x.md"); anything else names the private vault."""
        name, sep, rest = ref.partition(":")
        return (name, rest) if sep and name in self.declared else (None, ref)


def locate(owner: "Vault", ref: str) -> tuple["Vault", str]:
    """The vault holding the memory `ref` names (by `mount:path`, or an id/path found in the
    private vault first, then in each mount), and the ref inside it."""
    if not owner.mounts.declared:   # the usual case: no lookup before the read itself
        return owner, ref
    name, rest = owner.mounts.split_ref(ref)
    if name:
        return owner.mounts.get(name), rest
    try:
        owner.engine.resolve(ref)
        return owner, ref
    except NotFound:
        for _, v in owner.mounts.available():
            try:
                v.engine.resolve(ref)
                return v, ref
            except NotFound:
                continue
        raise


_RANK = {FOUND: 0, AMBIGUOUS: 1, NOT_FOUND: 2}


def search(owner: "Vault", ask: Callable[["Vault"], SearchResult], vault: str | None = None) -> SearchResult:
    """One search over the private vault and every mount (or only the one named), the answers
    merged: the best answer first (found before ambiguous before not found, then by how much of the
    question it holds), then the others' hits in turn; each mounted hit says its vault."""
    if vault and vault != PRIVATE:
        return _labelled(ask(owner.mounts.get(vault)), vault)
    if vault == PRIVATE or not owner.mounts.declared:
        return ask(owner)
    results = [ask(owner)] + [_labelled(ask(v), name) for name, v in owner.mounts.available()]
    results.sort(key=lambda r: (_RANK.get(r.status, 3), -r.coverage, -(r.hits[0].score if r.hits else 0)))
    best = results[0]
    hits, rounds = [], [list(r.hits) for r in results]
    while any(rounds):
        for queue in rounds:
            if queue:
                hits.append(queue.pop(0))
    return replace(best, hits=hits[: max(len(best.hits), 10)])


def _labelled(result: SearchResult, name: str) -> SearchResult:
    for h in result.hits + result.candidates:
        h.vault = name
    return result


def add(e: "Engine", mounts: Mounts, name: str, path: str, remote: str | None = None) -> Mount:
    """Declare a mount in this vault's config.toml (one commit); with `remote` and no folder at
    `path`, clone it there first. The folder must hold a vault."""
    mount = Mount(name, path, remote)
    if name == PRIVATE:
        raise BadInput(f"mount name {PRIVATE!r} names this vault itself; choose another")
    if name in mounts.declared:
        raise BadInput(f"a mount called {name!r} exists; 'ihmt mount remove {name}' first")
    target = Path(path).expanduser()
    target = target if target.is_absolute() else (e.root / target).resolve()
    if e.layout.holds(target):
        raise BadInput(f"{path}: is inside this vault; a mounted vault lives in a folder of its own")
    if not target.exists() and remote:
        failed = gitlog.clone(remote, target)
        if failed:
            raise BadInput(f"--remote {remote}: cannot clone it ({failed}); check the URL and your access")
    if not (target / CONFIG_PATH).is_file():
        raise BadInput(f"{path}: not a vault (no {CONFIG_PATH}); give a vault's folder, or --remote to clone one")
    _write(e, (*mounts.declared.values(), mount), f"mount: {name} ({path})")
    mounts.declared[name] = mount
    return mount


def remove(e: "Engine", mounts: Mounts, name: str) -> None:
    """Forget a mount (one commit); its folder and its vault stay as they are."""
    if name not in mounts.declared:
        raise BadInput(f"no mount called {name!r}; see 'ihmt mount list'")
    _write(e, tuple(m for m in mounts.declared.values() if m.name != name), f"unmount: {name}")
    if name in mounts.opened:
        mounts.opened.pop(name).close()
    del mounts.declared[name]


def _write(e: "Engine", mounts: tuple, subject: str) -> None:
    """The `[[mount]]` tables rewritten, every other line of config.toml kept as it is."""
    file = e.layout.abs(CONFIG_PATH)
    doc = tomlkit.parse(file.read_text(encoding="utf-8"))
    if "mount" in doc:
        del doc["mount"]
    if mounts:
        doc.add("mount", mounts_toml(mounts))
    with e.transaction("config", subject, [("Memory-Op", "config")]) as tx:
        tx.write(CONFIG_PATH, tomlkit.dumps(doc))
