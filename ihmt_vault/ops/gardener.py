"""The gardener's moves inside one operation: splitting crowded folders, filing the inbox's overflow,
re-filing what another folder clearly fits better, handing oversized top folders' subfolders up,
renaming folders whose memories no longer hold their name.

A `Gardener` works through one `Transaction` (the one write path): every move is the
transaction's `refile`, so ids, the journal, the roles and the one commit hold as for any write.
Only memories placement or the gardener filed (`notes.placed_by_gardener`) are moved; a folder a
person made (not in `GARDEN_FILE`) is never renamed nor merged away.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from collections.abc import Set as AbstractSet

from .. import files
from ..engine.core import Engine
from ..engine.transaction import Transaction
from ..storage import tree
from ..storage.layout import GARDEN_FILE
from ..storage.notes import Memory, placed_by_gardener

OVERFLOW = 2  # branch factors of memories the inbox keeps after a split; the rest goes where placement points


def rebased(made: dict[str, str], old: str, new: str) -> dict[str, str]:
    """The record of made folders ({folder: the folder it was split from}) after `old` and everything
    under it moved to `new`: both the folders and the origins they name (a subfolder split from
    `old` now comes from `new`, not from a folder that is gone)."""

    def moved(f: str) -> str:
        return new + f[len(old) :] if f == old or f.startswith(old + "/") else f

    return {moved(k): moved(v) for k, v in made.items()}


class Gardener:
    """The gardener's moves, made through one transaction."""

    def __init__(self, tx: Transaction, e: Engine):
        self.tx = tx
        self.e = e

    def refile(self, rel: str, folder: str) -> tuple[str, str]:
        return self.tx.refile(rel, folder)

    def split_crowded(self, folders: AbstractSet[str], whole_tree: bool = False) -> dict[str, list[str]]:
        """Split every crowded folder among `folders` into subtopics; returns {folder: moved ids}.

        Bounded by what it splits: re-filing compares the split folders with their siblings and
        the folders around them, and a folder those moves crowd is left for a later slice (the
        queue, ops/garden.py). With `whole_tree` (`ihmt garden`), re-filing looks at every folder
        the gardener made, and a folder the moves crowded is split too, once."""
        moved: dict[str, list[str]] = {}
        cfg = self.e.config
        vault_theme: set[str] = set()
        live = 0
        if folders:  # what this operation wrote is not in the catalog yet: counted on top of it
            held, n = self.e.catalog.keyword_holders()
            held = held + Counter(w for _m, k in self.tx.known.values() for w in set(k))
            live = n + len(self.tx.known)
            vault_theme = tree.theme(tree.stem_counts(held), live, cfg.branch_factor)
        split, made = self._split_each(sorted(folders), vault_theme, moved)
        refiled = []
        if tree.INBOX in folders:  # split or not, what the inbox still holds beyond its share is filed
            refiled += self.file_overflow()
        if split:
            # early splits are made on few memories, and placement filed others on the few words it
            # knew then: what any folder the gardener made holds that another now fits better goes there
            near = set()
            for folder in split:
                parent = tree.folder_of(folder)
                near |= {folder, *self._subfolders(folder), *self._subfolders(parent)}
            compared = topic_folders(self.e) if whole_tree else near - {tree.INBOX}
            refiled += self.refile_misplaced(compared, set(made_folders(self.e)) & compared)
            tops = {f.split("/")[0] for f in split | set(made)} - {tree.INBOX}
            refiled += self.promote_oversized(tops, live)
            refiled += self.rename_misnamed(near, vault_theme)
        for rel, (_dest, id_) in refiled:
            moved.setdefault(tree.folder_of(rel), []).append(id_)
        # a folder these moves filled past the branch factor would otherwise grow unsplit: saves
        # try a split only in the folder they save into
        filled = {tree.folder_of(dest) for _rel, (dest, _id) in refiled} - split - {tree.INBOX}
        if not whole_tree:
            return moved  # a folder these moves crowded is queued: a later slice splits it
        self._split_each(
            sorted(f for f in filled if len(self.e.layout.memory_names(f)) > cfg.branch_factor), vault_theme, moved
        )
        return moved

    def _split_each(
        self, queue: list[str], vault_theme: set[str], moved: dict[str, list[str]]
    ) -> tuple[set[str], dict[str, str]]:
        """Split each folder of `queue`, and the subtopics it makes while they stay crowded; adds the
        ids moved to `moved` (by folder) and records the new subfolders in `GARDEN_FILE`. Returns the
        folders split and {new subfolder: the folder it came from}."""
        cfg = self.e.config
        split: set[str] = set()
        made: dict[str, str] = {}
        while queue:
            folder = queue.pop()
            if not folder or folder.split("/")[0] == tree.ARCHIVE or tree.depth(folder) >= cfg.max_depth:
                continue
            rows = self._rows_in(folder)
            plan = tree.plan_split(
                rows, set(self.e.layout.subfolders(tree.split_into(folder))), cfg.branch_factor, vault_theme=vault_theme
            )
            split |= {folder} if plan else set()
            for name, paths in plan.items():
                sub = f"{tree.split_into(folder)}/{name}".lstrip("/")
                if not self.e.layout.abs(sub).is_dir():
                    made[sub] = folder
                for rel in paths:
                    self.tx.refile(rel, sub)
                    moved.setdefault(folder, []).append(next(r["id"] for r in rows if r["path"] == rel))
                queue.append(sub)
        if made:
            self.record_made({**made_folders(self.e), **made})
        return split, made

    def file_overflow(self) -> list[tuple[str, tuple[str, str]]]:
        """What the inbox still holds beyond OVERFLOW branch factors after a split was tried: the
        memories placement finds any evidence for (`Placer.place` without its threshold) go where
        it points, the best evidence first, so that memories fitting nothing well do not pile up in
        the inbox without bound. The moves: (from path, (to path, id))."""
        excess = len(self.e.layout.memory_names(tree.INBOX)) - OVERFLOW * self.e.config.branch_factor
        if excess <= 0:
            return []
        placer = self.e.placer()
        scored = []
        for r in self._rows_in(tree.INBOX):
            folder = placer.place(r["keywords"], strong=1e-9) if r["movable"] else tree.INBOX
            if folder != tree.INBOX:
                scored.append((-placer.last[0][0], r["path"], folder))
        return [(rel, self.tx.refile(rel, folder)) for _s, rel, folder in sorted(scored)[:excess]]

    def promote_oversized(self, tops: set[str], live: int) -> list[tuple[str, tuple[str, str]]]:
        """A top folder the gardener made that holds more than a quarter of a vault of `live` memories
        (at least 4 branch factors) hands the subfolders the gardener made in it up to the top: one name
        over a quarter of the vault tells little apart, and its memories already clustered apart into
        those subfolders. A name already at the top stays nested; a folder a person made, or one holding
        a memory a person placed, is never moved. The moves: (from path, (to path, id))."""
        if live < 4 * self.e.config.branch_factor:
            return []
        made = made_folders(self.e)
        moves: list[tuple[str, tuple[str, str]]] = []
        for top in sorted(t for t in tops if t in made):
            for sub in self._subfolders(top):
                name = sub.rpartition("/")[2]
                if 4 * self._count_under(top) <= live:
                    break
                if sub not in made or name in (tree.ARCHIVE, tree.INBOX) or self.e.layout.abs(name).exists():
                    continue
                if not all(r["movable"] for f in self._folders_under(sub) for r in self._rows_in(f)):
                    continue  # a memory a person placed there stays where they put it
                for folder in self._folders_under(sub):
                    moves += self._refile_all(folder, name + folder[len(sub) :])
                made = rebased(made, sub, name)
        if moves:
            self.record_made(made)
        return moves

    def hoist_chains(self) -> list[tuple[str, tuple[str, str]]]:
        """A folder the gardener made holding no memory of its own and one subfolder that holds none
        either, only subfolders, is a chain (`tests/unit/suites/pytest`): the empty link goes, its
        subfolders move up one level, until a level holds memories or more than one subfolder
        (`tests/pytest`). A folder holding memories keeps its place (`tools/testing` stays); a folder
        a person made, or holding a memory a person placed, is never moved. The moves: (from path,
        (to path, id)).
        """
        made = made_folders(self.e)
        moves: list[tuple[str, tuple[str, str]]] = []
        for folder in sorted(made, key=tree.depth):
            while self.e.layout.abs(folder).is_dir() and not self.e.layout.memory_names(folder):
                kids = [k for k in self._subfolders(folder) if self._count_under(k)]  # not one this emptied
                if len(kids) != 1 or kids[0] not in made or self.e.layout.memory_names(kids[0]):
                    break
                sub = kids[0]
                under = self._folders_under(sub)
                if not all(r["movable"] for f in under for r in self._rows_in(f)):
                    break  # a memory a person placed there stays where they put it
                for f in under:
                    moves += self._refile_all(f, folder + f[len(sub) :])
                made = rebased({k: v for k, v in made.items() if k != sub}, sub, folder)
        if moves:
            self.record_made(made)
        return moves

    def rename_misnamed(
        self, folders: set[str], vault_theme: AbstractSet[str] = frozenset()
    ) -> list[tuple[str, tuple[str, str]]]:
        """Rename each folder among `folders` that `rename_plan` finds misnamed; the moves:
        (from path, (to path, id))."""
        made = made_folders(self.e)
        moves: list[tuple[str, tuple[str, str]]] = []
        for folder, dest in rename_plan(self.e, folders, self._rows_in, vault_theme).items():
            moves += self._refile_all(folder, dest)
            made[dest] = made.pop(folder)
        if moves:
            self.record_made(made)
        return moves

    def _refile_all(self, folder: str, dest: str) -> list[tuple[str, tuple[str, str]]]:
        """Every memory directly in `folder` re-filed into `dest`; the moves."""
        return [
            (rel, self.tx.refile(rel, dest)) for rel in (f"{folder}/{n}" for n in self.e.layout.memory_names(folder))
        ]

    def _folders_under(self, folder: str) -> list[str]:
        out = [folder]
        for sub in self._subfolders(folder):
            out += self._folders_under(sub)
        return out

    def _count_under(self, folder: str) -> int:
        return sum(len(self.e.layout.memory_names(f)) for f in self._folders_under(folder))

    def refile_misplaced(self, folders: set[str], sources: set[str]) -> list[tuple[str, tuple[str, str]]]:
        """Move each memory of a folder among `sources` (the gardener's) whose folder placement or the
        gardener chose, and which another of `folders` clearly fits better (`tree.misplaced`), there;
        the moves: (from path, (to path, id))."""
        rows = [r for f in sorted(folders) for r in self._rows_in(f)]
        return [(rel, self.tx.refile(rel, dest)) for rel, dest in sorted(tree.misplaced(rows, sources).items())]

    def _subfolders(self, folder: str) -> list[str]:
        return subfolders(self.e, folder)

    def record_made(self, made: dict[str, str]) -> None:
        """Write which folders the gardener made ({folder: the folder it was split from}) to
        `GARDEN_FILE`, committed with the moves that made them."""
        text = json.dumps({"made": dict(sorted(made.items()))}, indent=1, ensure_ascii=False) + "\n"
        if not self.e.layout.abs(GARDEN_FILE).is_file() or files.read_exact(self.e.layout.abs(GARDEN_FILE)) != text:
            self.tx.write(GARDEN_FILE, text)

    def _rows_in(self, folder: str) -> list[dict]:
        return rows_in(self.e, folder, self.tx.known)


def made_folders(e: Engine) -> dict[str, str]:
    """{folder: the folder it was split from} for every folder the gardener made (a folder a
    person made is not there, so the gardener never merges it away)."""
    try:
        made = json.loads(e.layout.abs(GARDEN_FILE).read_text(encoding="utf-8")).get("made") or {}
    except (OSError, ValueError, AttributeError):
        return {}
    return (
        {str(k): str(v) for k, v in made.items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(made, dict)
        else {}
    )


def rows_in(e: Engine, folder: str, known: dict | None = None) -> list[dict]:
    """A folder's memories as they are on disk now (`known`: files an operation wrote, parsed)."""
    known = known or {}
    paths = [f"{folder}/{name}" for name in e.layout.memory_names(folder)]
    read = {m.path: m for m in e.iter_memories(p for p in paths if p not in known)}
    rows = []
    for rel in paths:
        m, kws = known[rel] if rel in known else (read[rel], None) if rel in read else (None, None)
        if m is not None:
            rows.append(
                {
                    "path": rel,
                    "id": m.id,
                    "keywords": kws or tree.keywords(m.title, m.body, m.tags),
                    "text": _text(m),
                    "movable": placed_by_gardener(m),
                }
            )
    return rows


def topic_folders(e: Engine) -> set[str]:
    """Every folder holding memories, the inbox and the archive aside."""
    return {f for f in e.layout.all_folders() if f and f.split("/")[0] not in (tree.ARCHIVE, tree.INBOX)}


def subfolders(e: Engine, folder: str) -> list[str]:
    """A folder's subfolders as vault paths (the archive is no subfolder of the root)."""
    return [f"{folder}/{n}" if folder else n for n in e.layout.subfolders(folder) if folder or n != tree.ARCHIVE]


def rename_plan(
    e: Engine, folders: set[str], rows_of: Callable[[str], list[dict]], vault_theme: AbstractSet[str] = frozenset()
) -> dict[str, str]:
    """{folder: the folder it becomes} for each of `folders` the gardener made whose name its memories
    no longer hold (`tree.misnamed`). Only a folder without subfolders, without a description someone
    wrote, holding only memories placement or the gardener filed, and only to a name still free."""
    made = made_folders(e)
    cands = {
        f
        for f in folders
        if f in made and e.layout.abs(f).is_dir() and not e.layout.subfolders(f) and not e.description(f)
    }
    rows = [r for p in sorted({tree.folder_of(f) for f in cands}) for f in subfolders(e, p) for r in rows_of(f)]
    cands = {f for f in cands if all(r["movable"] for r in rows if tree.folder_of(r["path"]) == f)}
    out = {}
    for folder, name in tree.misnamed(rows, cands, vault_theme).items():
        dest = f"{tree.folder_of(folder)}/{name}".lstrip("/")
        if name not in (tree.ARCHIVE, tree.INBOX) and not e.layout.abs(dest).exists():
            out[folder] = dest
    return out


def _text(m: Memory) -> str:
    """What a memory says, for clustering: its title counts again unless the body begins with it."""
    return m.body if m.body.lstrip().startswith(m.title.rstrip(".")) else f"{m.title}\n{m.body}"
