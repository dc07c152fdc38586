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
one `move` commit whose body lists what moved. `--dry-run` says what the first pass would move
(promotions to the top aside) and changes nothing.
"""

from __future__ import annotations

from ..engine.core import Engine
from ..errors import BadInput, NotFound, SecretRefused
from ..results import GardenReport, Moved
from ..storage import tree
from ..storage.sensitive import find_secret
from .gardener import Gardener, made_folders, rename_plan, rows_in, topic_folders

LEFT = 2  # a folder the gardener made holding this many memories or fewer goes back where it came from


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
        folder = placer.place(tree.keywords(m.title, m.body, m.tags), m.type)
        if folder != tree.INBOX:
            out.append((rel, folder))
    return out


def vault_theme(e: Engine) -> set[str]:
    held, n = e.catalog.keyword_holders()
    return tree.theme(tree.stem_counts(held), n, e.config.branch_factor)


def garden(e: Engine, dry_run: bool = False, source: str | None = None) -> GardenReport:
    e.refresh()
    before = {r.id: (r.path, r.title) for r in e.catalog.all() if r.status != "archived"}
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
        return GardenReport(moves, dry_run=True)
    with e.transaction("move", "move: garden", [("Memory-Op", "move")], source) as tx:
        g = Gardener(tx, e)
        touched = set()
        for rel, folder in refile_plan(e):
            tx.refile(rel, folder)
            touched.add(folder)
        g.split_crowded(
            set(crowded(e)) | {f for f in touched if len(e.layout.memory_names(f)) > e.config.branch_factor}
        )
        g.refile_misplaced(topic_folders(e), set(made_folders(e)))
        g.promote_oversized({f.split("/")[0] for f in made_folders(e)}, len(before))
        g.rename_misnamed(topic_folders(e), vault_theme(e))
        merges, keep = merge_plan(e)
        for rel, origin in merges:
            tx.refile(rel, origin)
        if keep != made_folders(e):
            g.record_made(keep)
        moves = moved_by(tx, before)
        tx.subject = f"move: garden {len(moves)} {'memory' if len(moves) == 1 else 'memories'}"
        tx.body = "\n".join(f"{m.id} {m.before}/ → {m.after}/  {m.title}" for m in moves)
        tx.trailers += [("Memory-Id", m.id) for m in moves]
    return GardenReport(moves, commit=tx.commit if moves else None)


def moved_by(tx, before: dict) -> list[Moved]:
    """What a transaction moved, from the memories' paths before it ({id: (path, title)})."""
    by_path = {path: i for i, (path, _t) in before.items()}
    now = {}
    for src, dest in tx.moved:
        i = by_path.pop(src, None)
        if i is not None:
            by_path[dest] = i
            now[i] = dest
    return [
        Moved(i, before[i][1], tree.folder_of(before[i][0]), tree.folder_of(p))
        for i, p in sorted(now.items(), key=lambda kv: kv[1])
        if tree.folder_of(p) != tree.folder_of(before[i][0])
    ]


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
