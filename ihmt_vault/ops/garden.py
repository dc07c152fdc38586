"""The gardener: re-files what sits in the inbox once a topic fits it, splits crowded folders
into subtopics (`clustering.py`: lexical TF-IDF + spherical k-means, each subtopic named by a phrase
its members share, at least 3 memories each), re-files a memory of a folder it made into the
folder it clearly fits better (`tree.misplaced`), hands up to the top the subfolders of a
top folder it made that holds over a quarter of the vault, renames a folder it made whose memories
no longer hold its name (named on its first few memories, it drifted as placement filed more in:
`transaction.rename_plan`), and merges a folder it made (`.ihmt/garden.json`) that is left with one
or two memories and no subfolder back into the folder it was split from. A folder a person made is
never merged nor renamed, nor one someone described renamed, and a memory a person placed (saved
with a topic, or moved by hand: `transaction.placed_by_gardener`) is never re-filed. Ids are kept;
one `move` commit whose body lists what moved. `--dry-run` says what is queued and what the first
pass would move (promotions to the top aside), and changes nothing.

Off the save path: a save never splits nor re-files. A folder that outgrows the branch factor is
*queued* — the queue is the catalog's folder sizes and, in `QUEUE_FILE` (a cache), the size at
which each folder's split was last tried: a folder whose memories share nothing to split by is
tried again only after it grew by half a branch factor. `tend` does one slice of that work, the
most crowded folder first, as one `move` commit of bounded size (the folder, its siblings and the
folders around it); the long-lived processes (`ihmt mcp`, `ihmt watch`) call it when idle, and
`ihmt garden` runs slices until nothing is queued, then the whole-tree pass above.
"""

from __future__ import annotations

import json

from .. import files
from ..engine.core import CACHE, Engine
from ..errors import BadInput, NotFound, SecretRefused
from ..results import GardenReport, Moved
from ..storage import tree
from ..storage.sensitive import find_secret
from .gardener import Gardener, made_folders, rename_plan, rows_in, topic_folders

LEFT = 2  # a folder the gardener made holding this many memories or fewer goes back where it came from
QUEUE_FILE = f"{CACHE}/garden-queue.json"  # {folder: its size when a split was last tried}


def queued(e: Engine) -> list[str]:
    """The folders due a split, most crowded first: over the branch factor, and never tried or
    grown by half a branch factor since the last try."""
    bf, tried = e.config.branch_factor, _tried(e)
    due = []
    for folder, n in e.catalog.folder_sizes().items():
        if not folder or folder.split("/")[0] == tree.ARCHIVE or tree.depth(folder) >= e.config.max_depth:
            continue
        if n > bf and n >= tried.get(folder, 0) + max(1, bf // 2):
            due.append((-n, folder))
    return [folder for _n, folder in sorted(due)]


def tend(e: Engine, source: str | None = None) -> GardenReport | None:
    """One slice of the gardener's queue: the most crowded folder split (and what that re-files
    around it), one `move` commit. None when nothing is queued."""
    e.refresh()
    due = queued(e)
    if not due:
        return None
    folder = due[0]
    size = len(e.layout.memory_names(folder))
    with e.transaction("move", f"move: split {folder} into subtopics", [("Memory-Op", "move")], source) as tx:
        moved = Gardener(tx, e).split_crowded({folder})
        moves = moved_by(tx, e.catalog)
        if moves and not moved.get(folder):
            tx.subject = f"move: tidy around {folder}"
        tx.body = "\n".join(f"{m.id} {m.before}/ → {m.after}/  {m.title}" for m in moves)
        tx.trailers += [("Memory-Id", m.id) for m in moves]
    _record_tried(e, folder, size)
    return GardenReport(moves, commit=tx.commit if moves else None)


def _tried(e: Engine) -> dict[str, int]:
    try:
        data = json.loads(e.layout.abs(QUEUE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): int(v) for k, v in data.items() if isinstance(v, int)} if isinstance(data, dict) else {}


def _record_tried(e: Engine, folder: str, size: int) -> None:
    tried = _tried(e)
    tried[folder] = size
    try:
        files.atomic_write(e.layout.abs(QUEUE_FILE), json.dumps(tried, sort_keys=True))
    except OSError:  # a cache: without it a split is only tried again sooner
        pass


def merge_plan(e: Engine) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """(path, folder) for each memory of a folder the gardener made that is left with at most
    LEFT memories and no subfolder, back into the folder it was split from; and the record of
    the folders the gardener made that remain."""
    made = made_folders(e)
    moves, keep = [], {}
    for folder, origin in sorted(made.items()):
        if not e.layout.abs(folder).is_dir():
            continue
        names = e.layout.memory_names(folder)
        if e.layout.subfolders(folder) or len(names) > LEFT:
            keep[folder] = origin
            continue
        moves += [(f"{folder}/{n}", origin) for n in names]
    return moves, keep


def crowded(e: Engine) -> list[str]:
    bf = e.config.branch_factor
    return [
        f
        for f in sorted({r.folder for r in e.catalog.all()})
        if f
        and f.split("/")[0] != tree.ARCHIVE
        and len(e.layout.memory_names(f)) > bf
        and tree.depth(f) < e.config.max_depth
    ]


def refile_plan(e: Engine) -> list[tuple[str, str]]:
    """(path, folder) for each inbox memory a topic now fits on strong evidence."""
    placer = e.placer()
    out = []
    for m in e.iter_memories(f"{tree.INBOX}/{name}" for name in e.layout.memory_names(tree.INBOX)):
        rel = m.path
        folder = placer.place(tree.keywords(m.title, m.body, m.tags), m.type, text=f"{m.title}\n{m.body}")
        if folder != tree.INBOX:
            out.append((rel, folder))
    return out


def vault_theme(e: Engine) -> set[str]:
    held, n = e.catalog.keyword_holders()
    return tree.theme(tree.stem_counts(held), n, e.config.branch_factor)


def garden(e: Engine, dry_run: bool = False, source: str | None = None) -> GardenReport:
    """Everything queued, slice by slice, then the whole-tree pass: one `move` commit a slice and one for the pass."""
    if not dry_run:
        slices = []
        for _n in range(SLICES):
            report = tend(e, source)
            if report is None:
                break
            slices.append(report)
        whole = _whole_tree(e, source)
        return GardenReport(
            [m for r in [*slices, whole] for m in r.moved],
            commit=whole.commit or next((r.commit for r in reversed(slices) if r.commit), None),
        )
    e.refresh()
    if dry_run:
        moves = [
            Moved(m.id, m.title, tree.folder_of(rel), folder) for rel, folder in refile_plan(e) for m in [e.read(rel)]
        ]
        theme = vault_theme(e)
        for folder in crowded(e):
            rows = rows_in(e, folder)  # as the split itself reads them
            for name, paths in tree.plan_split(
                rows, set(e.layout.subfolders(tree.split_into(folder))), e.config.branch_factor, vault_theme=theme
            ).items():
                for rel in paths:
                    m = e.read(rel)
                    moves.append(Moved(m.id, m.title, folder, f"{tree.split_into(folder)}/{name}".lstrip("/")))
        rows = [r for f in sorted(topic_folders(e)) for r in rows_in(e, f)]
        moves += [
            Moved(m.id, m.title, tree.folder_of(rel), folder)
            for rel, folder in sorted(tree.misplaced(rows, set(made_folders(e))).items())
            for m in [e.read(rel)]
        ]
        moves += [
            Moved(m.id, m.title, folder, dest)
            for folder, dest in rename_plan(e, topic_folders(e), lambda f: rows_in(e, f), theme).items()
            for m in (e.read(f"{folder}/{n}") for n in e.layout.memory_names(folder))
        ]
        moves += [
            Moved(m.id, m.title, tree.folder_of(rel), origin) for rel, origin in merge_plan(e)[0] for m in [e.read(rel)]
        ]
        return GardenReport(moves, dry_run=True, queued=queued(e))


SLICES = 200  # `ihmt garden` stops after this many slices (a folder whose split keeps failing is not retried)


def _whole_tree(e: Engine, source: str | None) -> GardenReport:
    """The inbox filed where a topic now fits, re-filing and renames over the whole tree, oversized
    top folders handed up, chains of folders holding nothing but one subfolder shortened, folders
    left nearly empty merged back: one `move` commit."""
    e.refresh()
    live = e.catalog.count("WHERE status != 'archived'")
    with e.transaction("move", "move: garden", [("Memory-Op", "move")], source) as tx:
        g = Gardener(tx, e)
        touched = set()
        for rel, folder in refile_plan(e):
            tx.refile(rel, folder)
            touched.add(folder)
        g.split_crowded(
            set(crowded(e)) | {f for f in touched if len(e.layout.memory_names(f)) > e.config.branch_factor},
            whole_tree=True,
        )
        g.refile_misplaced(topic_folders(e), set(made_folders(e)))
        g.promote_oversized({f.split("/")[0] for f in made_folders(e)}, live)
        g.rename_misnamed(topic_folders(e), vault_theme(e))
        g.hoist_chains()
        merges, keep = merge_plan(e)
        for rel, origin in merges:
            tx.refile(rel, origin)
        if keep != made_folders(e):
            g.record_made(keep)
        moves = moved_by(tx, e.catalog)
        tx.subject = f"move: garden {len(moves)} {'memory' if len(moves) == 1 else 'memories'}"
        tx.body = "\n".join(f"{m.id} {m.before}/ → {m.after}/  {m.title}" for m in moves)
        tx.trailers += [("Memory-Id", m.id) for m in moves]
    return GardenReport(moves, commit=tx.commit if moves else None)


def moved_by(tx, catalog) -> list[Moved]:
    """What a transaction moved (before it finishes: the catalog still has the memories where they
    were), one line per memory from its first folder to its last."""
    first: dict[str, str] = {}  # a path now → the path it had before this transaction
    for src, dest in tx.moved:
        first[dest] = first.pop(src, src)
    out = []
    for now, was in sorted(first.items()):
        row = catalog.by_path(was)
        if row is not None and tree.folder_of(now) != tree.folder_of(was):
            out.append(Moved(row.id, row.title, tree.folder_of(was), tree.folder_of(now)))
    return out


def describe(e: Engine, folder: str, text: str, source: str | None = None) -> str:
    """Write a topic's description: kept above the generated part of its index.md through every
    regeneration, and shown first. One commit; an empty text removes it."""
    rel = tree.clean_topic(folder, e.config.max_depth) if folder.strip().strip("/") else ""
    if not e.layout.abs(tree.summary_path(rel)).is_file():
        raise NotFound(f"{folder or '/'}: no such topic; see 'ihmt tree'")
    text = " ".join((text or "").split()) if "\n" not in (text or "").strip() else (text or "").strip()
    if tree.GENERATED_BELOW in text or "\0" in text or len(text) > 2000:
        raise BadInput("the description must be plain text of at most 2,000 characters")
    secret = find_secret(text)
    if secret:
        raise SecretRefused(f"the description contains what looks like {secret}; remove it and try again")
    with e.transaction("edit", f"describe: {rel or '/'}", [("Memory-Op", "edit")], source) as tx:
        tx.write(tree.summary_path(rel), e.render_folder(rel, description=text) or "")
    return text
