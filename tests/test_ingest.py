"""`ihmt ingest`: files and folders in, one memory per chunk, one commit; a second run changes nothing."""

import json
import subprocess
import sys
import threading
import time

import pytest
from conftest import commits, snapshot

from ihmt_vault.frontends.watch import watch_sources
from ihmt_vault.ops.ingest import detect

JOURNAL = """Trip notes

2024-05-01 Left Madrid at nine and drove to Valencia.

## 3 May 2024
Back home. The car needs new tyres.
"""

GUIDE = """# Deploy guide

Deploys go out on Tuesdays.

## Rollback

Run the rollback job, then tell the on-call SRE.

## Staging

Staging mirrors production every night.
"""

PAELLA = """# Paella valenciana

Ingredientes:
- 400 g de arroz bomba
- un pollo y un conejo

Pasos:

1. Sofreír el pollo y el conejo.
2. Añadir el arroz y el azafrán.
3. Dejar reposar cinco minutos.
"""

STORY = """The lighthouse keeper had not seen a ship in weeks.

Every night he climbed the stairs anyway.
"""


@pytest.fixture
def notes_dir(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "journal.txt").write_text(JOURNAL)
    (folder / "guide.md").write_text(GUIDE)
    (folder / "paella.md").write_text(PAELLA)
    (folder / "story.txt").write_text(STORY)
    return folder


def ingested(vault, source):
    return sorted(
        (m.title, m.folder, m.type, m.date)
        for m in map(vault.get, [r.id for r in vault.engine.catalog.by_source(source)])
    )


def test_each_kind_is_detected_from_the_name_and_the_content():
    assert [
        detect("journal.txt", JOURNAL),
        detect("guide.md", GUIDE),
        detect("paella.md", PAELLA),
        detect("story.txt", STORY),
        detect("data.csv", "a,b\n"),
        detect("x.py", "", "python"),
    ] == ["journal", "markdown", "process", "narrative", None, "code"]


def test_a_folder_comes_in_as_one_commit_with_one_memory_per_chunk(vault, notes_dir):
    r = vault.ingest([notes_dir])
    assert (r.files, r.chunks, len(r.added), r.skipped) == (4, 8, 8, [])
    assert commits(vault.root)[0] == "ingest: 4 files, 8 chunks added, 0 updated, 0 removed"
    assert ingested(vault, "notes/guide.md") == [
        ("Deploy guide", "docs/notes/guide", "document", None),
        ("Rollback", "docs/notes/guide", "document", None),
        ("Staging", "docs/notes/guide", "document", None),
    ]


def test_a_journal_entry_takes_the_date_written_in_it(vault, notes_dir):
    vault.ingest([notes_dir / "journal.txt"])
    assert ingested(vault, "notes/journal.txt") == [
        ("2024-05-01 Left Madrid at nine and drove to Valencia.", "journal/notes/journal", "event", "2024-05-01"),
        ("3 May 2024", "journal/notes/journal", "event", "2024-05-03"),
        ("Trip notes", "journal/notes/journal", "event", None),
    ]


def test_a_chunk_names_its_source_span_and_kind_in_its_front_matter(vault, notes_dir):
    vault.ingest([notes_dir / "guide.md"])
    [row] = [r for r in vault.engine.catalog.by_source("notes/guide.md") if r.title == "Rollback"]
    m = vault.get(row.id)
    assert (m.source, m.meta["lines"], m.meta["kind"]) == ("notes/guide.md", "5-8", "markdown")
    assert m.body == "## Rollback\n\nRun the rollback job, then tell the on-call SRE.\n\n"


def test_a_recipe_keeps_its_steps_with_their_heading_and_is_found_in_spanish(vault, notes_dir):
    vault.ingest([notes_dir / "paella.md"])
    [row] = vault.engine.catalog.by_source("notes/paella.md")
    assert vault.get(row.id).body == PAELLA
    result = vault.search("¿cómo se hace la paella con arroz bomba?")
    assert result.hits[0].id == row.id


def test_ingesting_unchanged_files_again_adds_nothing_and_makes_no_commit(vault, notes_dir):
    vault.ingest([notes_dir])
    before = snapshot(vault.root), commits(vault.root)
    r = vault.ingest([notes_dir])
    assert (r.chunks, r.added, r.updated, r.removed, r.commit) == (8, [], [], [], None)
    assert (snapshot(vault.root), commits(vault.root)) == before


def test_a_changed_section_updates_only_its_chunk_in_an_edit_commit_with_history_kept(vault, notes_dir):
    vault.ingest([notes_dir])
    rows = {r.title: r for r in vault.engine.catalog.by_source("notes/guide.md")}
    files = {t: (vault.root / r.path).read_bytes() for t, r in rows.items()}
    (notes_dir / "guide.md").write_text(GUIDE.replace("every night", "every hour"))
    r = vault.ingest([notes_dir])
    assert (r.added, r.updated, r.removed) == ([], [rows["Staging"].id], [])
    assert vault.get(rows["Staging"].id).body == "## Staging\n\nStaging mirrors production every hour.\n"
    assert {t: (vault.root / rows[t].path).read_bytes() for t in ("Deploy guide", "Rollback")} == {
        t: files[t] for t in ("Deploy guide", "Rollback")
    }
    assert len(vault.history(rows["Staging"].id)) == 2


def test_a_vanished_section_and_a_vanished_file_are_removed(vault, notes_dir):
    vault.ingest([notes_dir])
    rollback = next(r for r in vault.engine.catalog.by_source("notes/guide.md") if r.title == "Rollback")
    story = [x.id for x in vault.engine.catalog.by_source("notes/story.txt")]
    (notes_dir / "guide.md").write_text(
        GUIDE.replace("## Rollback\n\nRun the rollback job, then tell the on-call SRE.\n\n", "")
    )
    (notes_dir / "story.txt").unlink()
    r = vault.ingest([notes_dir])
    assert sorted(r.removed) == sorted([rollback.id] + story)
    assert not vault.engine.catalog.by_source("notes/story.txt")
    assert not (vault.root / rollback.path).exists()


def test_a_chunk_edited_by_hand_is_never_overwritten_by_a_later_ingest(vault, notes_dir):
    vault.ingest([notes_dir])
    row = next(r for r in vault.engine.catalog.by_source("notes/guide.md") if r.title == "Staging")
    file = vault.root / row.path
    file.write_text(file.read_text().replace("every night", "every night (checked by Ana)"))
    vault.reconcile()
    (notes_dir / "guide.md").write_text(GUIDE.replace("every night", "every week"))
    r = vault.ingest([notes_dir])
    assert (r.updated, r.kept) == ([], [row.path])
    assert "checked by Ana" in file.read_text()


def test_binary_too_big_and_secret_holding_input_is_skipped_with_its_reason_and_the_rest_comes_in(vault, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    with open(folder / "dump.txt", "wb") as f:
        f.truncate(50_000_000)
    (folder / "ops.md").write_text(
        "# Access\n\nThe token is ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2 + "\n\n# Deploys\n\nOn Tuesdays.\n"
    )
    r = vault.ingest([folder])
    assert [(w, y.split(" (")[0].split(";")[0]) for w, y in r.skipped] == [
        ("mixed/dump.txt", "too big"),
        ("mixed/logo.md", "binary"),
        ("mixed/ops.md:1-4", "the text contains what looks like a GitHub token"),
    ]
    assert [m.title for m in map(vault.get, r.added)] == ["Deploys"]
    assert (
        "ghp_"
        not in subprocess.run(["git", "log", "-p", "--all"], cwd=vault.root, capture_output=True, text=True).stdout
    )


def test_a_missing_path_is_one_clear_line_and_changes_nothing(vault, tmp_path):
    before = snapshot(vault.root)
    run = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "--vault", str(vault.root), "ingest", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
    )
    assert (run.returncode, run.stderr.strip().splitlines()) == (
        2,
        [f"error: {tmp_path / 'nope'}: no such file or folder; give a path that exists"],
    )
    assert snapshot(vault.root) == before


def test_a_path_inside_the_vault_is_refused(vault):
    with pytest.raises(Exception, match="is inside the vault"):
        vault.ingest([vault.root / "index.md"])


def test_the_cli_reports_what_it_did_as_json(vault, notes_dir):
    run = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "--vault", str(vault.root), "--json", "ingest", str(notes_dir)],
        capture_output=True,
        text=True,
    )
    report = json.loads(run.stdout)
    assert (report["files"], report["chunks"], len(report["added"]), report["skipped"]) == (4, 8, 8, [])


def test_watching_a_folder_takes_a_changed_file_in(vault, notes_dir):
    vault.ingest([notes_dir])
    stop, runs = threading.Event(), []

    def again():
        runs.append(vault.ingest([notes_dir]))

    watcher = threading.Thread(
        target=watch_sources, args=([notes_dir], again), kwargs={"debounce": 0.2, "log": lambda s: None, "stop": stop}
    )
    watcher.start()
    try:
        time.sleep(0.5)  # the observer is scheduled
        (notes_dir / "story.txt").write_text(STORY + "\nOne night a ship came.\n")
        deadline = time.monotonic() + 20
        while not any(r.updated for r in runs) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        stop.set()
        watcher.join(10)
    [row] = vault.engine.catalog.by_source("notes/story.txt")
    assert "One night a ship came." in vault.get(row.id).body


INVENTORY = """package shop.inventory;

import java.util.Map;

public class InventoryService {
    private final Map<String, Integer> stock = new java.util.HashMap<>();

    /** A soft hold: the units are kept for the cart but not yet sold. */
    public boolean reserveStock(String sku, int units) {
        int have = stock.getOrDefault(sku, 0);
        if (have < units) { return false; }
        stock.put(sku, have - units);
        return true;
    }

    public void release(String sku, int units) {
        stock.merge(sku, units, Integer::sum);
    }
}
"""


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "src" / "InventoryService.java").write_text(INVENTORY)
    return root


def test_code_comes_in_one_memory_per_member_under_its_module(vault, shop):
    vault.ingest([shop])
    rows = sorted(vault.engine.catalog.by_source("shop/src/InventoryService.java"), key=lambda r: r.path)
    memories = sorted((vault.get(r.id) for r in rows), key=lambda m: int(m.meta["lines"].split("-")[0]))
    assert [(m.title, m.meta["symbol"], m.meta["lines"]) for m in memories] == [
        ("InventoryService.java: imports", "imports", "1-4"),
        ("InventoryService (InventoryService.java)", "class:InventoryService", "5-5"),
        ("InventoryService.field (InventoryService.java)", "field", "6-7"),
        ("InventoryService.reserveStock (InventoryService.java)", "method:reserveStock", "8-15"),
        ("InventoryService.release (InventoryService.java)", "method:release", "16-19"),
    ]
    assert {m.folder for m in memories} == {"code/shop/src/inventoryservice"}
    assert {(m.type, m.meta["language"]) for m in memories} == {("code", "java")}
    assert memories[3].meta["header"] == "public class InventoryService {"


def test_the_memories_of_a_code_file_join_back_into_the_file_byte_for_byte(vault, shop):
    vault.ingest([shop])
    memories = [vault.get(r.id) for r in vault.engine.catalog.by_source("shop/src/InventoryService.java")]
    memories.sort(key=lambda m: int(m.meta["lines"].split("-")[0]))
    unfenced = ["".join(m.body.split("\n", 1)[1].rsplit("```", 1)[0]) for m in memories]
    assert "".join(unfenced) == INVENTORY


def test_a_query_for_a_method_finds_the_method_not_the_class(vault, shop):
    vault.ingest([shop])
    hit = vault.search("reserveStock soft hold").hits[0]
    assert (hit.title, vault.get(hit.id).meta["symbol"]) == (
        "InventoryService.reserveStock (InventoryService.java)",
        "method:reserveStock",
    )
