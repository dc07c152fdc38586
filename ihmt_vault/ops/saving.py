"""Saving memories: one (`save`) or many as one commit (`save_many`, what imports use).

A save validates its input into a `Draft` first (nothing is written when that fails), finds what
the new memory corrects — ids given (`supersedes`), a description found by search (`replaces`),
or a fact it contradicts — and writes the memory and the outdated marks in one transaction. A
folder that outgrows the branch factor is split afterwards, in its own `move` commit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from .. import clock
from ..engine.core import Engine, Progress, facts_of
from ..errors import BadInput, SecretRefused, VaultError
from ..results import ImportReport
from ..storage import nested, notes, timeline, tree
from ..storage.draft import Draft, Item, check_facts, draft
from ..storage.layout import MAX_ATTACHMENT
from ..storage.notes import Memory
from ..storage.sensitive import find_secret
from .gardener import Gardener


def make_draft(e: Engine, where: str = "", **fields) -> Draft:
    return draft(max_depth=e.config.max_depth, default_source=e.config.default_source, where=where, **fields)


def save(
    e: Engine,
    text: str,
    title=None,
    topic=None,
    date=None,
    tags: Iterable[str] = (),
    type=None,
    source=None,
    pinned=False,
    supersedes: Iterable[str] = (),
    replaces: str | None = None,
    facts: list[dict] | None = None,
) -> Memory:
    d = make_draft(
        e,
        text=_levels(text),
        title=title,
        topic=topic,
        date=date,
        tags=tags,
        type=type,
        source=source,
        pinned=pinned,
        supersedes=supersedes,
        extra={"facts": check_facts(facts)} if facts is not None else None,
    )
    if replaces is not None and not replaces.strip():
        raise BadInput("replaces is empty; describe the memory this one corrects in a few words")
    e.refresh()
    same = [r for r in e.catalog.by_digest(notes.digest_of(d.text)) if e.layout.abs(r.path).is_file()]
    if same and not d.supersedes and not replaces:  # told again: a recall, not a second file
        kept = e.read(same[0].path)
        e.recalls.record([kept.id])
        kept.notices = [f"Already remembered as {kept.id} ({kept.path}); nothing saved."]
        return kept
    notices: list[str] = near_duplicates(e, d)
    with e.transaction("save", f"save: {d.title}", [], d.source) as tx:
        old = [e.get(i) for i in d.supersedes]
        if replaces:
            found, notice = find_replaced(e, replaces)
            old += [f for f in found if f.id not in {o.id for o in old}]
            notices += [notice] if notice else []
        contradicted, fact_notices = contradicted_by(e, d)
        old += [c for c in contradicted if c.id not in {o.id for o in old}]
        notices += fact_notices
        told = {n.split()[3] for n in notices if n.startswith(_MAY_BE_SUPERSEDED)}
        notices += [n for n in maybe_superseded(e, d, {o.id for o in old}) if n.split()[3] not in told]
        d.supersedes = [o.id for o in old]
        [memory] = tx.create([d])
        tx.trailers += [("Memory-Id", memory.id), ("Memory-Op", "replace" if old else "save")]
        if old:
            tx.op = "replace"
            tx.trailers.append(("Supersedes", ", ".join(o.id for o in old)))
            for o in old:
                tx.mark_outdated(o, memory.id)
    if topic is None:
        near = tx.closest.get(memory.id) or []
        notices.append(
            f"Filed in {memory.folder or 'the root'}/"
            + (
                f"; closest other topics: {', '.join(near)}."
                if near
                else "; no other topic is close."
                if memory.folder != tree.INBOX
                else ": no topic fits yet; the gardener files it, or save again with a topic."
            )
        )
    saved = e.get(memory.id)
    saved.notices = notices + [f"Marked outdated: {o.title} ({o.id})." for o in old]
    if saved.folder != memory.folder:
        saved.notices.append(f"The gardener then filed it in {saved.folder}/.")
    return saved


def save_many(
    e: Engine,
    items: Sequence[Item | dict],
    source: str | None = None,
    progress: Progress | None = None,
    refused: list[str] | None = None,
) -> list[Memory]:
    """Save many memories as one commit; the memory saved (or already there) for each item kept."""
    return save_items(e, items, source, progress, refused).memories


def save_items(
    e: Engine,
    items: Sequence[Item | dict],
    source: str | None = None,
    progress: Progress | None = None,
    refused: list[str] | None = None,
) -> ImportReport:
    """Save `Item`s (or dicts of a save's fields) as one commit, and say what went where. Any invalid
    item refuses the whole batch, unless `refused` is given: then each invalid item (or attachment) is
    left out and its reason (never its text) appended there. Items refer to each other by `key`
    (supersedes), mapped to the new ids inside the transaction. A run that adds nothing commits nothing."""
    if not items:
        raise BadInput("nothing to save: the list of memories is empty")
    drafts: list[Draft] = []
    kept: list[Item] = []
    labels: list[str] = []
    gone_keys: set[str] = set()  # keys of refused items: a correction of them marks nothing
    for n, raw in enumerate(items):
        where = f"item {n + 1}: "
        try:
            item = raw if isinstance(raw, Item) else Item.of(raw) if isinstance(raw, dict) else None
            if item is None:
                raise BadInput(f"{where}is not a memory (give an object with a 'text' key)")
            where = f"{item.where}: " if item.where else where
            drafts.append(
                make_draft(
                    e,
                    where,
                    text=item.text,
                    title=item.title,
                    topic=item.topic,
                    date=item.date,
                    tags=item.tags,
                    type=item.type,
                    pinned=item.pinned,
                    supersedes=item.supersedes,
                    id=item.id,
                    extra=item.extra,
                    source=item.source or source,
                )
            )
            kept.append(replace(item, attachments=checked_attachments(e, item, where, refused)))
            labels.append(where)
        except BadInput as err:
            if refused is None:
                raise
            refused.append(str(err))
            if isinstance(raw, Item) and raw.key is not None:
                gone_keys.add(str(raw.key))
    if not drafts:
        return ImportReport([], refused or [])
    keys: dict[str, int] = {}
    for n, item in enumerate(kept):
        if item.key is not None:
            if str(item.key) in keys:
                raise BadInput(f"{labels[n]}key {item.key} is given to two items; keys must be unique")
            keys[str(item.key)] = n
    ids = [d.id for d in drafts if d.id]
    if len(ids) != len(set(ids)):
        raise BadInput("two items carry the same id; ids must be unique")
    agent = source or e.config.default_source
    e.refresh()
    with e.transaction("import", f"import: {len(drafts)} memories", [], agent) as tx:
        # Content identity: what the vault already holds (a re-run import), or what this batch holds
        # twice, is saved once: `same[n]` is the vault id, or the batch position, it is the same as.
        same: dict[int, str | int] = {}
        first: dict[str, int] = {}
        todo: list[tuple[int, Draft]] = []
        for n, d in enumerate(drafts):
            digest = notes.digest_of(d.text)
            held = next((r.id for r in e.catalog.by_digest(digest, archived=True)), None)
            if held and (not d.id or d.id == held):
                same[n] = held
            elif digest in first and not d.id:
                same[n] = first[digest]
            else:
                if d.id and e.catalog.by_id(d.id):
                    raise BadInput(f"id {d.id} is already in the vault; leave id out to get a new one")
                first.setdefault(digest, n)
                todo.append((n, d))
        todo_ids: dict[int, str] = {}
        for n, d in todo:  # ids known before writing: corrections by key point at them
            d.id = todo_ids[n] = d.id or notes.new_id()

        def vault_id(n: int) -> str:
            ref = same.get(n, n)
            return ref if isinstance(ref, str) else todo_ids[ref]

        batch = {d.id for _, d in todo}
        for n, d in todo:
            wanted = []
            for old in d.supersedes:
                if old in keys:
                    old = vault_id(keys[old])
                elif old in gone_keys:
                    continue
                if old == d.id:
                    raise BadInput(f"{labels[n]}supersedes itself ({old}); a memory cannot correct itself")
                if old not in batch and not e.catalog.by_id(old):
                    raise BadInput(f"{labels[n]}supersedes {old}, which is neither in the vault nor in this import")
                wanted.append(old)
            d.supersedes = list(dict.fromkeys(wanted))
        created = tx.create([d for _, d in todo], progress) if todo else []
        item_of = {d.id: kept[n] for n, d in todo}
        in_batch = {m.id: m for m in created}
        outdated: set[str] = set()
        for m in created:  # corrections within the import, or of memories already in the vault
            for old in m.supersedes:
                tx.mark_outdated(e.read(in_batch[old].path) if old in in_batch else e.get(old), m.id)
                outdated.add(old)
        copied = 0
        for m in created:
            for src, rel in item_of[m.id].attachments:
                if rel not in tx.paths and not e.layout.abs(rel).exists():  # one copy, never over a file
                    tx.copy_in(rel, src)
                    copied += 1
            if item_of[m.id].archived and not m.pinned:  # as lifecycle.archive does; a core memory stays live
                tx.edit(m, {"status": "archived"})
                tx.move(m.path, f"{tree.ARCHIVE}/{m.folder}".rstrip("/"))
        e.recalls.record_earlier(
            {
                m.id: (min(it.recalls, MAX_INITIAL_RECALLS), _stamp(it.last_recall))
                for m in created
                if (it := item_of[m.id]).recalls > 0
            }
        )
        tx.subject = f"import: {len(created)} {'memory' if len(created) == 1 else 'memories'}" + (
            f" ({len(same)} already there)" if same else ""
        )
        tx.trailers += [("Memory-Op", "import"), ("Memory-Count", str(len(created)))]
        tx.trailers += [("Memory-Id", m.id) for m in created]
        Gardener(tx, e).split_crowded({m.folder for m in created})  # the batch, clustered once
    # what the transaction wrote and still knows, at its final place (re-filed, not re-read)
    known = {m.id: m for m, _ in tx.known.values()}
    made = {n: known[m.id] if m.id in known else e.get(m.id) for (n, _), m in zip(todo, created)}
    out = []
    for n in range(len(kept)):
        ref = same.get(n, n)
        out.append(made[ref] if isinstance(ref, int) else e.get(ref))
    new = list(made.values())
    folders: dict[str, int] = {}
    for m in new:
        folders[m.folder] = folders.get(m.folder, 0) + 1
    return ImportReport(
        out,
        refused or [],
        added=len(new),
        already=len(same),
        folders=folders,
        archived=sum(m.status == "archived" for m in new),
        pinned=sum(m.pinned for m in new),
        outdated=len(outdated),
        attachments=copied,
        commit=tx.commit,
    )


MAX_INITIAL_RECALLS = 50  # a source's heavy use gives an imported memory weight, not years of immunity to decay


def _stamp(at: str | None) -> str:
    """A source's time of last use as the vault writes times (now when unknown or in the future)."""
    when = clock.when(at)
    if when is None or when > clock.now():
        return clock.stamp()
    return when.astimezone(dt.timezone.utc).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def checked_attachments(e: Engine, item: Item, where: str, refused: list[str] | None) -> list[tuple[Path, str]]:
    """An item's attachments that may be copied: a media file of a vault path, not too large, no secret
    in its text. A bad one is refused (reported in `refused`, or raised when there is none)."""
    ok = []
    for src, rel in item.attachments:
        try:
            if e.layout.safe_rel(rel) != rel or not e.layout.is_attachment(rel) or rel.startswith(".obsidian/"):
                raise BadInput(f"{where}attachment {rel!r} is not a media file inside the vault")
            try:
                size = src.stat().st_size
            except OSError:
                raise BadInput(f"{where}attachment {src} cannot be read") from None
            if size > MAX_ATTACHMENT:
                raise BadInput(
                    f"{where}attachment {src.name} is larger than {MAX_ATTACHMENT // 1_000_000} MB; "
                    f"keep it outside the vault"
                )
            try:
                secret = find_secret(src.read_bytes().decode("utf-8")) if size < notes.MAX_BYTES else None
            except UnicodeDecodeError:  # a picture: no text to hold a secret
                secret = None
            if secret:
                raise SecretRefused(
                    f"{where}attachment {src.name} contains what looks like {secret}; it was not copied"
                )
            ok.append((src, rel))
        except BadInput as err:
            if refused is None:
                raise
            refused.append(str(err))
    return ok


def import_file(
    e: Engine,
    path: Path,
    format: str = "auto",
    source: str | None = None,
    progress: Progress | None = None,
    strict: bool = False,
) -> ImportReport:
    """Another store's memories (read by the importer `format`, a plugin or a built-in; `auto`: the
    one that recognises `path`), one commit; an invalid item (a secret in it, say) is reported and
    left out, unless `strict` (all or none). The store itself is only read."""
    from ..plugins import manager as plugins

    if not path.exists():
        raise BadInput(f"{path}: no such file or folder; give the path of the store to import")
    name, importer = plugins.importer_for(path, format)
    refused: list[str] = []
    report = save_items(e, importer.read(path), source=source, progress=progress, refused=None if strict else refused)
    report.importer = name
    return report


def _levels(text):
    """hmem's tab-indented levels as a nested list — not in code, which indents with tabs too."""
    if not isinstance(text, str) or "```" in text or "\n    " in text:
        return text
    return nested.from_tabs(text)


def append(e: Engine, id_or_path: str, content: str, under: str | None = None, source: str | None = None) -> Memory:
    """Add entries to a memory's tree (under the entry at path `under`, else at its top level),
    leaving the rest of the file byte for byte; one commit."""
    if not isinstance(content, str) or not content.strip():
        raise BadInput("the content is empty; give the entries to add")
    m = e.get(id_or_path)
    make_draft(e, text=content)  # the same checks as a save: control characters, secrets
    with e.transaction("edit", f"append: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "edit")], source) as tx:

        def appended(text: str) -> str:
            body = notes.split_front_matter(text)[1]
            head = text[: len(text) - len(body)]
            return notes.update_front_matter(
                head + nested.append(body, under, content), {"updated": notes.now_timestamp()}, path=m.path
            )

        tx.rewrite(m.path, appended)
    return e.get(m.id)


def near_duplicates(e: Engine, d: Draft) -> list[str]:
    """Live memories with the same title and almost the same words: said, the agent decides."""
    words = set(tree.tokens(d.text))
    out = []
    for r in e.catalog.by_title(d.title):
        if r.status == "archived" or not words:
            continue
        try:
            other = set(tree.tokens(e.read(r.path).body))
        except VaultError:
            continue
        if other and len(words & other) / len(words | other) >= 0.8:
            out.append(
                f"Near-duplicate of {r.id} {r.title!r} ({r.path}): if this replaces it, call "
                f"mark_outdated({r.id}, <new id>); if it is the same, nothing needed saving."
            )
    return out


def _meaning_overlap(wanted: set[str], have: set[str]) -> float:
    """The share of a description's words a memory holds, a word matching another that begins
    with it or that it begins with ("postgres" and "PostgreSQL"), words of five letters or more."""
    if not wanted:
        return 0.0
    hit = sum(
        1
        for w in wanted
        if w in have or len(w) >= 5 and any(len(h) >= 5 and (h.startswith(w) or w.startswith(h)) for h in have)
    )
    return hit / len(wanted)


def find_replaced(e: Engine, description: str) -> tuple[list[Memory], str | None]:
    """The memory a correction replaces: ([memory], None), or ([], what to tell the caller). Found by
    search, else by the live memories that hold most of the description's words or words they
    begin with ("staging postgres version" finds "Staging runs PostgreSQL 15")."""
    result = e.search(description, k=5, budget_tokens=e.config.search_tokens)
    live = [h for h in result.hits if h.status == "active"]
    wanted = set(tree.tokens(description))
    if result.status == "found" and live:
        best = e.get(live[0].id)
        have = set(tree.tokens(f"{best.title} {' '.join(best.tags)} {best.body}"))
        # Marking a memory outdated is a strong act: most of the description's words must be in it.
        if _meaning_overlap(wanted, have) > 0.5:
            return [best], None
    if result.status == "ambiguous":
        options = "; ".join(f"{c.id} — {c.title}" for c in (result.candidates or result.hits)[:5])
        return [], (
            f"Several memories match {description!r}: {options}. Nothing was marked outdated; "
            f"call mark_outdated(old_id, new_id) with the right one."
        )
    scored = []
    for r in e.catalog.all():
        if r.status == "active":
            overlap = _meaning_overlap(wanted, set(tree.tokens(f"{r.title} {' '.join(r.tags or [])}")))
            if overlap > 0.5:
                scored.append((overlap, r))
    scored.sort(key=lambda s: -s[0])
    if len(scored) == 1 or len(scored) > 1 and scored[0][0] > scored[1][0]:
        return [e.get(scored[0][1].id)], None
    if scored:
        options = "; ".join(f"{r.id} — {r.title}" for _, r in scored[:5])
        return [], (
            f"Several memories match {description!r}: {options}. Nothing was marked outdated; "
            f"call mark_outdated(old_id, new_id) with the right one."
        )
    return [], f"Nothing found to replace for {description!r}; saved as a new memory."


_MAY_BE_SUPERSEDED = "May be superseded: "


def _superseded_notice(id_: str, title: str, when: str) -> str:
    """What a save tells the agent of an older memory it may correct (the id is the notice's fourth word)."""
    return f"{_MAY_BE_SUPERSEDED}{id_} {title} ({when}); if this corrects it, call mark_outdated({id_}, <new id>)."


SUPERSEDED_LOOKUP = 40  # newest live memories sharing a new memory's first word that are compared with it


def maybe_superseded(e: Engine, d: Draft, outdating: set[str]) -> list[str]:
    """Older live memories about the same subject as a new one (its first word the same and most
    of its words shared), that no fact pattern settled: told, so the agent calls mark_outdated.
    A targeted lookup, the same cost at any size: the newest memories whose keywords hold that
    first word (`catalog.holding`), not a search."""
    words = set(tree.tokens(d.text))
    if len(words) < 2:
        return []
    day = d.date or clock.today().isoformat()
    head = tree.tokens(d.text)[:1]
    out = []
    for r in e.catalog.holding(head[0], SUPERSEDED_LOOKUP):
        if r.status != "active" or r.id in outdating or (r.date or "") > day:
            continue
        for m in e.iter_memories([r.path]):
            other = tree.tokens(m.body or m.title)
            shared = len(words & set(other)) / len(words | set(other)) if other else 0
            if other[:1] == head and shared >= 0.3:
                out.append(_superseded_notice(m.id, m.title, m.date or "undated"))
    return out[:3]


def contradicted_by(e: Engine, d: Draft) -> tuple[list[Memory], list[str]]:
    """Memories a new memory's facts contradict, and what to tell the caller.

    A single-valued attribute (where someone lives) has one value at a time: another value
    contradicts it. A many-valued one ("uses") is contradicted by another version of the same
    thing, by a change that names what it replaces ("bun instead of pnpm", "switched from pnpm
    to bun"), or by a change ("now uses bun") when the subject had one other value; with several,
    which one changed is not sure: they are told as "may be superseded"."""
    probe = Memory(id="", title=d.title, path="", body=d.text, source=d.source, meta=d.extra)
    day = d.date or clock.today().isoformat()
    contradicted: list[Memory] = []
    said: list[str] = []

    def outdate(line, fact):
        said.append(timeline.contradiction_notice(line, fact, day))
        current = line.entries[-1]
        for mid in [current.memory_id, *current.confirmations]:  # every memory that still says it
            m = e.get(mid)
            if m.status == "active" and m.id not in {c.id for c in contradicted}:
                contradicted.append(m)

    live = "AND m.status != 'archived'"
    for fact in facts_of(probe):
        lines = timeline.build(
            [
                (f, day_, i, t)
                for f, day_, i, t, _st in e.catalog.facts(
                    f"WHERE f.slot_subject = ? AND f.slot_attribute = ? AND f.slot_thing = ? {live}",
                    timeline.slot(fact),
                )
            ]
        )
        if lines and lines[0].entries:
            line, current = lines[0], lines[0].entries[-1]
            if timeline.norm(current.value) == timeline.norm(fact.value):
                said.append(
                    f"Confirms what was said on {current.valid_from}: {line.subject} {line.attribute} = "
                    f"'{current.value}'."
                )
            elif day >= current.valid_from:
                outdate(line, fact)
        if not fact.change:
            continue
        subject, attribute, own = timeline.slot(fact)
        named = timeline.thing(fact.replaces) if fact.replaces else None
        others = [
            t
            for t in timeline.build(
                [
                    (f, day_, i, t)
                    for f, day_, i, t, st in e.catalog.facts(
                        f"WHERE f.slot_subject = ? AND f.slot_attribute = ? AND f.slot_thing != ? {live}",
                        (subject, attribute, own),
                    )
                    if st != "outdated"
                ]
            )
            if t.current is not None
            and t.entries[-1].valid_from <= day
            and (named is None or timeline.thing(t.current) == named)
        ]
        if len(others) == 1 or named:
            for line in others:
                outdate(line, fact)
        else:
            for line in others[:3]:
                m = e.get(line.entries[-1].memory_id)
                said.append(_superseded_notice(m.id, m.title, line.entries[-1].valid_from))
    return contradicted, said
