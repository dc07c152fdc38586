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

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import tomlkit

from ..config import CONFIG_PATH, Mount, mounts_toml
from ..engine.core import Engine
from ..errors import BadInput, NotAVault, NotFound, VaultError
from ..results import SyncReport
from ..search.result import AMBIGUOUS, FOUND, NOT_FOUND, SearchResult
from ..storage import gitlog
from ..storage.notes import Memory
from . import saving
from . import sync as sync_op

PRIVATE = "private"  # the name a caller may use for the vault that mounts the others


class Mounts:
    """The vaults one vault mounts, each an `Engine` opened when first used (`opener`)."""

    def __init__(self, owner: Engine, opener: Callable[[Path], Engine]):
        self.owner = owner
        self.root = owner.root
        self.declared: dict[str, Mount] = {m.name: m for m in owner.config.mounts}
        self.opener = opener
        self.opened: dict[str, Engine] = {}
        self.problems: dict[str, str] = {}

    def path_of(self, m: Mount) -> Path:
        p = Path(m.path).expanduser()
        return p if p.is_absolute() else (self.root / p).resolve()

    def get(self, name: str) -> Engine:
        """The mounted vault called `name` (a `BadInput` naming the mounts there are)."""
        if name not in self.declared:
            raise BadInput(
                f"no mounted vault called {name!r}; mounted: {', '.join(self.declared) or 'none'} "
                f"(see 'ihmt mount list')"
            )
        if name not in self.opened:
            try:
                self.opened[name] = self.opener(self.path_of(self.declared[name]))
            except VaultError as e:
                raise NotAVault(f"mount {name}: {e}") from None
        return self.opened[name]

    def available(self) -> list[tuple[str, Engine]]:
        """The mounts that open; the others are remembered in `problems`."""
        out = []
        for name in self.declared:
            try:
                out.append((name, self.get(name)))
            except VaultError as e:
                self.problems[name] = str(e)
        return out

    def close(self) -> None:
        for e in self.opened.values():
            e.close()
        self.opened.clear()

    # -- the operations on mounts -----------------------------------------------------------------
    def add(self, name: str, path: str, remote: str | None = None) -> Mount:
        """Mount a shared vault (cloned from `remote` when `path` does not exist); one config commit."""
        return add(self.owner, self, name, path, remote)

    def remove(self, name: str) -> None:
        """Forget a mount; its folder is left as it is. One config commit."""
        remove(self.owner, self, name)

    def sync(self, agent: str = "sync") -> list[tuple[str, SyncReport | str]]:
        """Sync each mounted vault with its own remote: (name, its report, or why it could not)."""
        return sync_op.sync_each(self.available(), agent) + list(self.problems.items())

    def save(self, text: str, topic: str | None = None, vault: str | None = None, **fields) -> Memory:
        """Save to this vault, or to the mount `vault` names or `topic` starts with (`saving.save`)."""
        engine, mount, topic = self.for_save(topic, vault)
        m = saving.save(engine, text, topic=topic, **fields)
        m.notices[:0] = [f"Saved in the mounted vault {mount!r}."] if mount else []
        return m

    # -- where an operation goes ------------------------------------------------------------------
    def for_save(self, topic: str | None, vault: str | None) -> tuple[Engine, str | None, str | None]:
        """(the engine a save goes to, the mount's name or None for this vault, the topic inside it)."""
        if vault and vault != PRIVATE:
            return self.get(vault), vault, topic
        if vault == PRIVATE or not topic:
            return self.owner, None, topic
        head, _, rest = topic.strip().strip("/").partition("/")
        if head in self.declared:
            return self.get(head), head, rest or None
        return self.owner, None, topic

    def split_ref(self, ref: str) -> tuple[str | None, str]:
        """`team:work/x.md` → ("team", "work/x.md"); anything else names the private vault."""
        name, sep, rest = ref.partition(":")
        return (name, rest) if sep and name in self.declared else (None, ref)

    def locate(self, ref: str) -> tuple[Engine, str]:
        """The vault holding the memory `ref` names (by `mount:path`, or an id/path found in this
        vault first, then in each mount), and the ref inside it."""
        if not self.declared:  # the usual case: no lookup before the read itself
            return self.owner, ref
        name, rest = self.split_ref(ref)
        if name:
            return self.get(name), rest
        try:
            self.owner.resolve(ref)
            return self.owner, ref
        except NotFound:
            for _, e in self.available():
                try:
                    e.resolve(ref)
                    return e, ref
                except NotFound:
                    continue
            raise


_RANK = {FOUND: 0, AMBIGUOUS: 1, NOT_FOUND: 2}


def search(mounts: Mounts, ask: Callable[[Engine], SearchResult], vault: str | None = None) -> SearchResult:
    """One search over this vault and every mount (or only the one named), the answers merged: the
    best answer first (found before ambiguous before not found, then by how much of the question it
    holds), then the others' hits in turn; each mounted hit says its vault."""
    if vault and vault != PRIVATE:
        return _labelled(ask(mounts.get(vault)), vault)
    if vault == PRIVATE or not mounts.declared:
        return ask(mounts.owner)
    results = [ask(mounts.owner)] + [_labelled(ask(e), name) for name, e in mounts.available()]
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


def add(e: Engine, mounts: Mounts, name: str, path: str, remote: str | None = None) -> Mount:
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


def remove(e: Engine, mounts: Mounts, name: str) -> None:
    """Forget a mount (one commit); its folder and its vault stay as they are."""
    if name not in mounts.declared:
        raise BadInput(f"no mount called {name!r}; see 'ihmt mount list'")
    _write(e, tuple(m for m in mounts.declared.values() if m.name != name), f"unmount: {name}")
    if name in mounts.opened:
        mounts.opened.pop(name).close()
    del mounts.declared[name]


def _write(e: Engine, mounts: tuple, subject: str) -> None:
    """The `[[mount]]` tables rewritten, every other line of config.toml kept as it is."""
    file = e.layout.abs(CONFIG_PATH)
    doc = tomlkit.parse(file.read_text(encoding="utf-8"))
    if "mount" in doc:
        del doc["mount"]
    if mounts:
        doc.add("mount", mounts_toml(mounts))
    with e.transaction("config", subject, [("Memory-Op", "config")]) as tx:
        tx.write(CONFIG_PATH, tomlkit.dumps(doc))
