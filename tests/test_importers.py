"""Importers from the memory tools people use today (FORMATS.md), and `ihmt export` back out.

Each store's shape is built here, small, by hand (SQLite with `sqlite3`, folders as literal text).
Every importer: what maps to what, a second run adds nothing and commits nothing, the original's
bytes and times are untouched; bad input is one line and changes nothing; secrets are refused by
where they were, never shown.
"""

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import commits, git, snapshot

from ihmt_vault import BadInput, Vault
from ihmt_vault.frontends.cli import main

SECRET = "postgres://app:Xk9#mQ2vLp7@db:5432/shop"


# -- the stores ----------------------------------------------------------------------------------
def leaf(meta: dict, text: str) -> str:
    return f"<<<IHMT-META\n{json.dumps(meta)}\nIHMT-META>>>\n{text}"


def make_ihmt(tmp: Path) -> Path:
    root = tmp / "ihmt_memory"
    (root / "layer_0/software.java").mkdir(parents=True)
    (root / "layer_0/personal").mkdir(parents=True)
    (root / "layers/1").mkdir(parents=True)
    (root / "state").mkdir()
    (root / "layer_0/software.java/l1.txt").write_text(
        leaf(
            {
                "leaf_id": "l1",
                "timestamp": "2025-03-01T10:00:00",
                "data_type": "CODE",
                "domain": "software.java",
                "tags": ["method:reserveStock", "lang:java"],
                "span": {"start_line": 10, "end_line": 12},
                "extra": {"context": "class Inventory {"},
            },
            "void reserveStock(int n) {\n  stock -= n;\n}\n",
        )
    )
    (root / "layer_0/personal/l2.txt").write_text(
        leaf(
            {
                "leaf_id": "l2",
                "timestamp": "2024-01-10T09:00:00",
                "data_type": "PERSONAL",
                "domain": "personal",
                "tags": ["home"],
            },
            "I live in Madrid.\n",
        )
    )
    (root / "layer_0/personal/l3.txt").write_text(
        leaf(
            {
                "leaf_id": "l3",
                "timestamp": "2025-06-02T09:00:00",
                "data_type": "PERSONAL",
                "domain": "personal",
                "tags": ["home"],
            },
            "I moved to Valencia.\n",
        )
    )
    (root / "layers/1/b1.json").write_text('{"summary": "generated"}')
    (root / "root.json").write_text('{"trunk": true}')
    (root / "state/catalog.json").write_text('{"l1": {"path": "layer_0/software.java/l1.txt"}}')
    (root / "state/facts.json").write_text(
        json.dumps(
            [
                {
                    "subject": "user",
                    "attribute": "location",
                    "value": "Madrid",
                    "valid_from": "2024-01-10",
                    "leaf_id": "l2",
                },
                {
                    "subject": "user",
                    "attribute": "location",
                    "value": "Valencia",
                    "valid_from": "2025-06-02",
                    "leaf_id": "l3",
                },
                {
                    "subject": "user",
                    "attribute": "employer",
                    "value": "Acme",
                    "valid_from": "2023-05-01",
                    "leaf_id": "gone",
                },
            ]
        )
    )
    return root


def make_memorytree(tmp: Path) -> Path:
    db = tmp / "hermes/memories/mindmap.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE nodes (id INTEGER PRIMARY KEY, topic TEXT, content TEXT, score REAL, last_access TEXT,
            parent_id INTEGER, children_ids TEXT, is_core INTEGER, deleted INTEGER, deleted_at TEXT,
            is_deep INTEGER, created_at TEXT);
        CREATE TABLE meta (key TEXT, value TEXT);
        INSERT INTO meta VALUES ('version', '2');
        INSERT INTO nodes VALUES (1, 'preferences', 'The user prefers dark mode everywhere.', 4.6,
            '2026-01-05T08:00:00', NULL, '[2]', 1, 0, NULL, 0, '2025-11-01T10:00:00');
        INSERT INTO nodes VALUES (2, 'preferences', 'Editor theme: Solarized dark.', 1.2, '2026-01-04T08:00:00',
            1, '[]', 0, 0, NULL, 0, '2025-11-02T10:00:00');
        INSERT INTO nodes VALUES (3, 'travel', 'Visited Lisbon in 2019.', 0.1, '2024-01-01T08:00:00', NULL, '[]',
            0, 0, NULL, 1, '2019-06-01T10:00:00');
        INSERT INTO nodes VALUES (4, 'travel', 'A deleted thought.', 0, NULL, NULL, '[]', 0, 1,
            '2025-01-01', 0, '2025-01-01');
    """)
    conn.commit()
    conn.close()
    return db


def make_hermes(tmp: Path) -> Path:
    f = tmp / "notes/MEMORY.md"
    f.parent.mkdir()
    f.write_text("The user's name is Ana.\n§\nDeploys happen on Tuesdays.\n§\nAna prefers short answers.\n")
    return f


def make_hmem(tmp: Path) -> Path:
    db = tmp / "agent.hmem"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript("""
        CREATE TABLE memories (id TEXT PRIMARY KEY, prefix TEXT, title TEXT, level_1 TEXT, access_count INTEGER,
            last_accessed TEXT, links TEXT, min_role TEXT, obsolete INTEGER, favorite INTEGER, irrelevant INTEGER,
            pinned INTEGER, active INTEGER, created_at TEXT, updated_at TEXT);
        CREATE TABLE memory_nodes (id TEXT PRIMARY KEY, root_id TEXT, depth INTEGER, content TEXT);
        CREATE TABLE memory_tags (memory_id TEXT, tag TEXT);
        INSERT INTO memories VALUES ('L0001', 'L', 'Run migrations before deploys', 'Always run migrations first.',
            7, '2026-02-01T12:00:00', '["D0004"]', 'worker', 0, 1, 0, 0, 1, '2025-09-01T10:00:00', NULL);
        INSERT INTO memories VALUES ('E0002', 'E', 'Port 5432 refused', 'The DB port was blocked. [✓E0003]', 1,
            NULL, '[]', 'al', 1, 0, 0, 0, 1, '2025-09-02T10:00:00', NULL);
        INSERT INTO memories VALUES ('E0003', 'E', 'DB port is 6432 (pgbouncer)', 'Connect through pgbouncer on 6432.',
            2, NULL, '[]', 'worker', 0, 0, 0, 0, 1, '2025-09-03T10:00:00', NULL);
        INSERT INTO memories VALUES ('D0004', 'D', 'Use Alembic', 'We chose Alembic for migrations.', 0, NULL,
            '[]', NULL, 0, 0, 1, 0, 1, '2025-09-04T10:00:00', NULL);
        INSERT INTO memory_nodes VALUES ('L0001.1', 'L0001', 2, 'Check the migration list.');
        INSERT INTO memory_nodes VALUES ('L0001.1.1', 'L0001', 3, 'alembic history shows it.');
        INSERT INTO memory_nodes VALUES ('L0001.1.1.1', 'L0001', 4, 'Look for heads.');
        INSERT INTO memory_nodes VALUES ('L0001.2', 'L0001', 2, 'Then deploy.');
        INSERT INTO memory_tags VALUES ('L0001', 'deploy');
    """)
    conn.commit()
    conn.close()
    assert not db.with_name("agent.hmem-wal").exists()
    return db


def make_mcp(tmp: Path) -> Path:
    f = tmp / "memory.jsonl"
    f.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {
                    "type": "entity",
                    "name": "Luis Marin",
                    "entityType": "person",
                    "observations": ["Works on payments", "Based in Madrid"],
                },
                {"type": "entity", "name": "Acme", "entityType": "organization", "observations": ["Payments company"]},
                {"type": "relation", "from": "Luis Marin", "to": "Acme", "relationType": "works_at"},
            ]
        )
        + "\n"
    )
    return f


def make_agent_md(tmp: Path) -> Path:
    project = tmp / "shop"
    (project / "docs").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(
        "# Shop\n\n## Build\n\n- Use pnpm, not npm.\n- Run `pnpm test` before a commit.\n  It takes a minute.\n\n"
        "The build needs Node 22.\n\n```sh\nnvm use 22\n```\n\n@docs/style.md\n\n"
        "## Team\n\nAsk @maria about payments.\n"
    )
    (project / "docs/style.md").write_text("- Two spaces, no tabs.\n")
    return project / "CLAUDE.md"


def make_obsidian(tmp: Path) -> Path:
    root = tmp / "MyVault"
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian/app.json").write_text("{}")
    (root / "Projects").mkdir()
    (root / "attachments").mkdir()
    (root / "attachments/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (root / "attachments/unused.png").write_bytes(b"\x89PNG\r\n\x1a\nunused")
    (root / "Projects/Shop Plan.md").write_text(
        "---\ntags: [shop, plan]\nstatus: draft\nrating: 5\n---\n"
        "The shop opens in May. See [[Ideas]].\n\n![[diagram.png]]\n"
    )
    (root / "Ideas.md").write_text("A loyalty card for regulars. #idea\n")
    return root


def make_basic_memory(tmp: Path) -> Path:
    root = tmp / "basic-memory"
    (root / "people").mkdir(parents=True)
    (root / "people/luis.md").write_text(
        "---\ntitle: Luis Marin\ntype: person\npermalink: people/luis-marin\ntags: [team]\n---\n"
        "- [role] Payments lead #team\n- works_at [[Acme]]\n"
    )
    return root


MEM0 = {
    "results": [
        {
            "id": "a1b2",
            "memory": "Prefers dark roast coffee",
            "hash": "9f8e",
            "metadata": {"source": "chat"},
            "categories": ["food", "preferences"],
            "created_at": "2025-03-04T10:16:05.490548-07:00",
            "updated_at": "2025-03-05T08:00:00-07:00",
            "user_id": "alice",
            "agent_id": None,
        },
        {
            "id": "c3d4",
            "memory": "Works at Harbor Labs as a platform engineer",
            "hash": "7a6b",
            "metadata": None,
            "categories": [],
            "created_at": "2025-04-01T09:00:00Z",
            "updated_at": None,
            "user_id": "alice",
        },
    ]
}


def make_mem0(tmp: Path) -> Path:
    f = tmp / "mem0-export.json"
    f.write_text(json.dumps(MEM0, indent=2))
    return f


LETTA = {
    "agents": [
        {
            "id": "agent-0",
            "name": "support_bot",
            "block_ids": ["block-0", "block-1"],
            "memory_blocks": [],
            "messages": [{"role": "system", "content": [{"type": "text", "text": "You are a bot."}]}],
            "passages": [{"id": "passage-0", "text": "Order 1182 was refunded.", "created_at": "2025-02-11T12:00:00Z"}],
        }
    ],
    "groups": [],
    "blocks": [
        {"id": "block-0", "label": "human", "value": "Name: Chad\nStudies at UC Berkeley\n", "limit": 20000},
        {"id": "block-1", "label": "persona", "value": "I am Sam, a patient support agent.", "limit": 20000},
        {"id": "block-2", "label": "scratch", "value": "", "limit": 100},
    ],
    "files": [],
    "sources": [],
    "tools": [],
    "mcp_servers": [],
}


def make_letta(tmp: Path) -> Path:
    f = tmp / "support_bot.af"
    f.write_text(json.dumps(LETTA, indent=2))
    return f


STORES = {
    "ihmt": make_ihmt,
    "memorytree": make_memorytree,
    "hermes": make_hermes,
    "hmem": make_hmem,
    "mcp-memory": make_mcp,
    "agent-md": make_agent_md,
    "obsidian": make_obsidian,
    "mem0": make_mem0,
    "letta": make_letta,
}


def by_title(vault: Vault) -> dict:
    return {m["title"]: vault.get(m["id"]) for m in vault.memories()}


@pytest.fixture(autouse=True)
def _src(tmp_path):
    for sub in ("src", "h", "o"):
        (tmp_path / sub).mkdir()


def originals(path: Path) -> dict:
    """Every file of a store (the file, or a folder's files), with its bytes and modification time."""
    files = [path] if path.is_file() else [p for p in path.parent.rglob("*") if p.is_file()]
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} | {"names": sorted(os.listdir(path.parent))}


# -- what maps to what ---------------------------------------------------------------------------
def test_ihmt_leaves_facts_and_outdated_leaves(vault, tmp_path):
    r = vault.import_file(make_ihmt(tmp_path))
    assert r.importer == "ihmt" and r.added == 4 and r.outdated == 1
    ms = by_title(vault)
    code = ms["reserveStock"]
    assert code.folder == "software/java" and code.date == "2025-03-01"
    assert code.body.startswith("```java\nvoid reserveStock") and code.meta["context"] == "class Inventory {"
    assert {"method:reserveStock", "lang:java", "code"} <= set(code.tags)
    madrid, valencia = ms["I live in Madrid."], ms["I moved to Valencia."]
    assert madrid.folder == "personal" and madrid.type == "fact"
    assert (madrid.status, madrid.superseded_by, valencia.supersedes) == ("outdated", [valencia.id], [madrid.id])
    assert valencia.meta["facts"] == [{"subject": "user", "attribute": "location", "value": "Valencia"}]
    assert ms["user employer: Acme"].folder == "facts"  # its leaf is gone: a memory of its own
    assert [t.entries[-1].value for t in vault.facts("user") if t.attribute == "location"] == ["Valencia"]


def test_memorytree_topics_core_archive_and_scores(vault, tmp_path):
    r = vault.import_file(make_memorytree(tmp_path))
    assert (r.importer, r.added, r.pinned, r.archived) == ("memorytree", 3, 1, 1)
    ms = by_title(vault)
    core, child, deep = (
        ms[t]
        for t in ("The user prefers dark mode everywhere.", "Editor theme: Solarized dark.", "Visited Lisbon in 2019.")
    )
    assert core.pinned and core.folder == "preferences" and core.date == "2025-11-01"
    assert "- part of [[The user prefers dark mode everywhere.]]" in child.body
    assert (deep.folder, deep.status) == ("archive/travel", "archived")
    assert "A deleted thought." not in ms
    weights = {w.id: w for w in vault.weights()}
    assert (weights[core.id].recalls, weights[child.id].recalls, weights[deep.id].recalls) == (5, 1, 0)
    assert r.folders == {"preferences": 2, "archive/travel": 1}


def test_memorytree_parent_topics_become_folders_holding_their_childrens(vault, tmp_path):
    db = tmp_path / "mt/mindmap.db"
    db.parent.mkdir()
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE nodes (id INTEGER PRIMARY KEY, topic TEXT, content TEXT, score REAL, last_access TEXT,
            parent_id INTEGER, children_ids TEXT, is_core INTEGER, deleted INTEGER, deleted_at TEXT,
            is_deep INTEGER, created_at TEXT);
        INSERT INTO nodes VALUES (1, 'Python', 'Python is the team language.', 1, NULL, NULL, '[2]', 0, 0, NULL, 0,
            '2025-11-01T10:00:00');
        INSERT INTO nodes VALUES (2, 'asyncio', 'Use asyncio.TaskGroup, not gather.', 1, NULL, 1, '[3]', 0, 0, NULL, 0,
            '2025-11-02T10:00:00');
        INSERT INTO nodes VALUES (3, 'pitfalls', 'Never block the event loop.', 1, NULL, 2, '[]', 0, 0, NULL, 0,
            '2025-11-03T10:00:00');
    """)
    conn.commit()
    conn.close()
    vault.import_file(db)
    assert sorted(m["folder"] for m in vault.memories()) == ["python", "python/asyncio", "python/asyncio/pitfalls"]


def test_hermes_memory_md_entries(vault, tmp_path):
    r = vault.import_file(make_hermes(tmp_path))
    assert r.importer == "hermes" and sorted(by_title(vault)) == [
        "Ana prefers short answers.",
        "Deploys happen on Tuesdays.",
        "The user's name is Ana.",
    ]


def test_hmem_levels_favourites_obsolete_and_roles(vault, tmp_path):
    r = vault.import_file(make_hmem(tmp_path))
    assert (r.importer, r.added, r.pinned, r.archived, r.outdated) == ("hmem", 4, 1, 1, 1)
    ms = by_title(vault)
    lesson = ms["Run migrations before deploys"]
    assert lesson.body == (
        "Always run migrations first.\n\n- Check the migration list.\n  - alembic history shows it.\n"
        "    - Look for heads.\n- Then deploy.\n\n- related [[Use Alembic]]\n"
    )
    assert (
        lesson.pinned
        and lesson.folder == "lessons"
        and lesson.tags == ["deploy"]
        and lesson.meta["min_role"] == "worker"
    )
    old, fix = ms["Port 5432 refused"], ms["DB port is 6432 (pgbouncer)"]
    assert (old.status, old.superseded_by, old.folder) == ("outdated", [fix.id], "errors")
    decision = ms["Use Alembic"]
    assert (decision.type, decision.status, decision.folder) == ("decision", "archived", "archive/decisions")
    assert {w.id: w.recalls for w in vault.weights()}[lesson.id] == 7


def test_mcp_memory_entities_and_relations(vault, tmp_path):
    r = vault.import_file(make_mcp(tmp_path))
    assert r.importer == "mcp-memory"
    ms = by_title(vault)
    luis = ms["Luis Marin"]
    assert luis.body == "- Works on payments\n- Based in Madrid\n- works_at [[Acme]]\n"
    assert (luis.type, luis.folder) == ("person", "person") and ms["Acme"].folder == "organization"


def test_agent_md_headings_bullets_paragraphs_and_imports(vault, tmp_path):
    r = vault.import_file(make_agent_md(tmp_path))
    assert r.importer == "agent-md"
    ms = by_title(vault)
    assert ms["Use pnpm, not npm."].folder == "shop/build"
    assert ms["Run `pnpm test` before a commit."].body == "Run `pnpm test` before a commit.\nIt takes a minute.\n"
    assert ms["The build needs Node 22."].body == "The build needs Node 22.\n\n```sh\nnvm use 22\n```\n"
    assert ms["Two spaces, no tabs."].folder == "shop/build"  # @docs/style.md, filed where it is imported
    assert ms["Ask @maria about payments."].folder == "shop/team"  # a mention, not a file: kept as it is
    assert not any(t.startswith("@docs") for t in ms)


def test_obsidian_notes_with_front_matter_links_and_attachments(vault, tmp_path):
    r = vault.import_file(make_obsidian(tmp_path))
    assert (r.importer, r.added, r.attachments) == ("obsidian", 2, 1)
    ms = by_title(vault)
    plan = ms["Shop Plan"]
    assert plan.folder == "projects" and plan.tags == ["shop", "plan"]
    assert (plan.meta["rating"], plan.meta["original_status"], plan.status) == (5, "draft", "active")  # theirs kept
    assert "[[Ideas]]" in plan.body and "![[diagram.png]]" in plan.body
    tracked = git(vault.root, "ls-files").splitlines()
    assert "attachments/diagram.png" in tracked and "attachments/unused.png" not in tracked
    assert (vault.root / "attachments/diagram.png").read_bytes() == (
        tmp_path / "MyVault/attachments/diagram.png"
    ).read_bytes()
    assert not any(p.startswith(".obsidian") for p in tracked) and "app.json" not in " ".join(tracked)


def test_basic_memory_is_recognised_by_its_permalinks(vault, tmp_path):
    r = vault.import_file(make_basic_memory(tmp_path))
    [luis] = r.memories
    assert r.importer == "obsidian" and (luis.title, luis.type, luis.folder) == ("Luis Marin", "person", "people")
    assert luis.meta["permalink"] == "people/luis-marin" and "- works_at [[Acme]]" in luis.body


# -- every importer: idempotent, one commit, originals untouched ---------------------------------
@pytest.mark.parametrize("name", sorted(STORES))
def test_each_import_twice_adds_nothing_and_leaves_the_original_alone(vault, tmp_path, name):
    path = STORES[name](tmp_path / "src")
    before = originals(path)
    first = vault.import_file(path)
    assert first.importer == name and first.added > 0 and first.commit
    assert commits(vault.root)[0].startswith("import: ") and len(commits(vault.root)) == 2
    head, files = git(vault.root, "rev-parse", "HEAD"), snapshot(vault.root)
    again = vault.import_file(path, format=name)
    assert (again.added, again.already, again.commit) == (0, len(first.memories), None)
    assert [m.id for m in again.memories] == [m.id for m in first.memories]
    assert git(vault.root, "rev-parse", "HEAD") == head and snapshot(vault.root) == files
    assert originals(path) == before  # bytes, times, and no -wal / -shm beside a database
    assert git(vault.root, "status", "--porcelain") == ""


# -- bad input: one line, nothing changed --------------------------------------------------------
def bad_inputs(tmp: Path) -> dict:
    broken = tmp / "mindmap.db"
    broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    binary = tmp / "CLAUDE.md"
    binary.write_bytes(b"\x00\x01\x02binary\x00")
    (tmp / "plain.txt").write_text("just words\n")
    claude = tmp / "proj/CLAUDE.md"
    claude.parent.mkdir()
    claude.write_text("- a rule\n")
    (tmp / "broken.af").write_text('{"agents": [')
    return {
        "broken agent file": ([str(tmp / "broken.af"), "--format", "letta"], "is not JSON (Expecting value"),
        "broken sqlite": ([str(broken)], "is not a readable SQLite database"),
        "binary as CLAUDE.md": ([str(binary)], "is a binary file, not text"),
        "missing path": ([str(tmp / "nope.db")], "no such file or folder"),
        "wrong format": ([str(claude), "--format", "hmem"], "is not an SQLite database"),
        "unknown format": ([str(claude), "--format", "evernote"], "no importer called 'evernote'"),
        "unrecognised": ([str(tmp / "plain.txt")], "not a store ihmt recognises; give --format, one of: agent-md"),
    }


def test_bad_input_is_one_clear_line_and_changes_nothing(vault, tmp_path):
    for case, (args, says) in bad_inputs(tmp_path).items():
        before = snapshot(vault.root)
        r = CliRunner().invoke(main, ["import", *args, "--vault", str(vault.root)])
        assert r.exit_code == 2, (case, r.output)
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and says in r.stderr, (case, r.stderr)
        assert (args[0] in r.stderr or case == "unknown format") and "Traceback" not in r.output, case
        assert snapshot(vault.root) == before, case


# -- secrets: refused by where they were, never shown --------------------------------------------
def test_a_secret_is_refused_by_where_it_was_in_every_family(vault, tmp_path):
    hermes = tmp_path / "MEMORY.md"
    hermes.write_text(f"Fine entry.\n§\nConnect with {SECRET}\n")
    db = make_hmem(tmp_path / "h")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE memories SET level_1 = ? WHERE id = 'E0003'", (f"Use {SECRET}",))
    conn.commit()
    conn.close()
    claude = tmp_path / "p/AGENTS.md"
    claude.parent.mkdir()
    claude.write_text(f"## Db\n\n- Fine rule.\n- The URL is {SECRET}\n")
    notes = make_obsidian(tmp_path / "o")
    (notes / "Secret.md").write_text(f"Prod: {SECRET}\n")
    (notes / "Projects/keys.txt").write_text(f"{SECRET}\n")
    (notes / "Ideas.md").write_text("A loyalty card. Keys in [keys](Projects/keys.txt)\n")
    for path, where in (
        (hermes, "MEMORY.md line 3"),
        (db, "agent.hmem E0003"),
        (claude, "AGENTS.md:4"),
        (notes, "Secret.md"),
    ):
        r = vault.import_file(path)
        assert r.added and any(x.startswith(f"{where}: ") for x in r.refused), (where, r.refused)
        assert "Xk9#mQ2vLp7" not in " ".join(r.refused)
    assert any("attachment keys.txt contains what looks like" in x for x in r.refused)
    assert "Xk9#mQ2vLp7" not in git(vault.root, "log", "-p", "--all")
    # the correction was refused: the entry it corrects stays current, nothing points at nothing
    assert by_title(vault)["Port 5432 refused"].status == "active"


# -- export --------------------------------------------------------------------------------------
def test_export_jsonl_imports_back_into_an_equal_vault(vault, tmp_path):
    vault.import_file(make_hmem(tmp_path))
    vault.import_file(make_ihmt(tmp_path))
    vault.save("Pinned note about backups.", topic="ops", pinned=True, tags=["backup"])
    (vault.root / "ops/leak.md").write_text(f"---\ntitle: Leak\n---\n{SECRET}\n")  # a person's file, refused
    out = tmp_path / "export.jsonl"
    r = vault.export("jsonl", out)
    assert r.memories == 9 and "Xk9#mQ2vLp7" not in out.read_text()
    with Vault.init(tmp_path / "fresh") as fresh:
        back = fresh.import_file(out)
        assert back.importer == "jsonl" and back.added == 9 and not back.refused

        def shape(v):
            return sorted(
                (
                    m["id"],
                    m["title"],
                    m["path"],
                    m["status"],
                    tuple(v.get(m["id"]).supersedes),
                    v.get(m["id"]).body,
                    v.get(m["id"]).pinned,
                )
                for m in v.memories()
            )

        assert shape(fresh) == shape(vault)
        assert fresh.import_file(out).added == 0


def test_export_markdown_is_one_plain_document(vault, tmp_path):
    vault.import_file(make_hmem(tmp_path))
    r = vault.export("markdown")
    assert r.memories == 4 and r.text.startswith("# Memory\n")
    assert "## lessons\n\n### Run migrations before deploys\n" in r.text
    assert "*2025-09-02 · note · outdated · superseded by DB port is 6432 (pgbouncer)*" in r.text
    assert "\n---\n" not in r.text and "id: " not in r.text  # no front matter of ours
    with pytest.raises(BadInput, match="inside the vault"):
        vault.export("markdown", vault.root / "all.md")


def test_the_cli_says_which_importer_and_what_went_where(vault, tmp_path):
    path = make_memorytree(tmp_path)
    r = CliRunner().invoke(main, ["import", str(path), "--vault", str(vault.root)])
    assert r.exit_code == 0, r.output
    assert f"{path}: recognised as memorytree\nimported 3 memories in one commit\n" in r.stdout
    assert "  archive/travel/  1\n  preferences/  2\n  1 pinned, 1 archived\n" in r.stdout
    r = CliRunner().invoke(main, ["import", str(path), "--vault", str(vault.root), "--json"])
    data = json.loads(r.stdout)
    assert (data["importer"], data["added"], data["already_there"], data["commit"]) == ("memorytree", 0, 3, None)
    r = CliRunner().invoke(
        main, ["export", "--format", "markdown", "--out", str(tmp_path / "m.md"), "--vault", str(vault.root)]
    )
    assert r.exit_code == 0 and "### Editor theme: Solarized dark." in (tmp_path / "m.md").read_text()


def test_agent_md_recognises_each_agents_files_and_claude_codes_memory_folder(vault, tmp_path, isolated_home):
    project = tmp_path / "src/shop"
    (project / ".cursor/rules").mkdir(parents=True)
    (project / ".github").mkdir()
    (project / ".cursor/rules/testing.mdc").write_text("---\ndescription: tests\nglobs: ['*.py']\n---\n- Use pytest.\n")
    (project / ".github/copilot-instructions.md").write_text("Prefer small functions.\n")
    (project / ".cursorrules").write_text("Never commit secrets.\n")
    (project / "GEMINI.md").write_text("## Style\n\nBlack formatting.\n")
    memory = isolated_home / f".claude/projects/{str(isolated_home).replace('/', '-')}-code-shop/memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- See [debugging](debugging.md).\n")
    (memory / "debugging.md").write_text("## Flaky tests\n\n- Rerun with -p no:randomly.\n")
    (isolated_home / ".claude/CLAUDE.md").write_text("- Answer briefly.\n")
    for path in (
        project / ".cursor/rules/testing.mdc",
        project / ".github/copilot-instructions.md",
        project / ".cursorrules",
        project / "GEMINI.md",
        memory,
        isolated_home / ".claude/CLAUDE.md",
    ):
        assert vault.import_file(path).importer == "agent-md", path
    folders = {m["title"]: m["path"].rpartition("/")[0] for m in vault.memories()}
    assert folders == {
        "Use pytest.": "shop/testing",
        "Prefer small functions.": "shop",
        "Never commit secrets.": "shop",
        "Black formatting.": "shop/style",
        "See [debugging](debugging.md).": "code-shop",
        "Rerun with -p no:randomly.": "code-shop/debugging/flaky-tests",
        "Answer briefly.": "user",
    }


def test_a_project_folder_with_claude_md_and_a_memory_folder_is_recognised_as_agent_md(vault, tmp_path):
    project = tmp_path / "src/harbor"
    (project / "memory").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# Harbor\n\n## Conventions\n\n- Run make lint before pushing.\n")
    (project / "memory/MEMORY.md").write_text("- Staging is a single box.\n")
    (project / "memory/deploys.md").write_text("- Deploys go out on Tuesdays.\n")
    (project / "README.md").write_text("Not an agent file.\n")
    r = vault.import_file(project)
    assert (r.importer, r.added) == ("agent-md", 3)
    folders = {m["title"]: m["path"].rpartition("/")[0] for m in vault.memories()}
    assert folders == {
        "Run make lint before pushing.": "harbor/conventions",
        "Staging is a single box.": "harbor",
        "Deploys go out on Tuesdays.": "harbor/deploys",
    }


def test_claude_codes_project_folder_holding_its_memory_folder_is_recognised(vault, tmp_path, isolated_home):
    folder = isolated_home / ".claude/projects/-work-harbor"
    (folder / "memory").mkdir(parents=True)
    (folder / "memory/MEMORY.md").write_text("- The API is behind Caddy.\n")
    (folder / "0b1c.jsonl").write_text('{"type": "user"}\n')  # a session transcript: not a memory
    r = vault.import_file(folder)
    assert (r.importer, r.added) == ("agent-md", 1)
    assert [(m["title"], m["path"].rpartition("/")[0]) for m in vault.memories()] == [
        ("The API is behind Caddy.", "work-harbor")
    ]


def test_a_notes_vault_holding_a_claude_md_stays_a_notes_vault(tmp_path):
    from ihmt_vault.plugins.manager import importer_for

    notes = tmp_path / "src/notes"
    (notes / ".obsidian").mkdir(parents=True)
    (notes / "CLAUDE.md").write_text("- Be brief.\n")
    assert importer_for(notes)[0] == "obsidian"


def test_mem0_memories_with_their_day_categories_and_owner(vault, tmp_path):
    r = vault.import_file(make_mem0(tmp_path / "src"))
    assert (r.importer, r.added) == ("mem0", 2)
    coffee = by_title(vault)["Prefers dark roast coffee"]
    assert (coffee.body, coffee.date, coffee.tags) == (
        "Prefers dark roast coffee\n",
        "2025-03-04",
        ["food", "preferences"],
    )
    assert coffee.meta["mem0"] == {"id": "a1b2", "user_id": "alice", "metadata": {"source": "chat"}}
    assert coffee.meta["about"] == "alice"
    work = by_title(vault)["Works at Harbor Labs as a platform engineer"]
    assert (work.date, work.tags, work.meta["mem0"]) == ("2025-04-01", [], {"id": "c3d4", "user_id": "alice"})


@pytest.mark.parametrize(
    "name, text",
    [
        ("list.json", json.dumps(MEM0["results"])),
        ("lines.jsonl", "\n".join(json.dumps(m) for m in MEM0["results"]) + "\n"),
    ],
)
def test_mem0_as_a_plain_list_or_json_lines_is_recognised_too(vault, tmp_path, name, text):
    f = tmp_path / "src" / name
    f.write_text(text)
    r = vault.import_file(f)
    assert (r.importer, r.added) == ("mem0", 2)


def test_letta_core_blocks_are_pinned_memories_and_passages_memories_in_the_agents_folder(vault, tmp_path):
    r = vault.import_file(make_letta(tmp_path / "src"))
    assert (r.importer, r.added, r.pinned) == ("letta", 3, 2)
    got = {(m["path"], m["pinned"]) for m in vault.memories()}
    assert got == {
        ("support_bot/human.md", True),
        ("support_bot/persona.md", True),
        ("support_bot/order-1182-was-refunded.md", False),
    }
    human = vault.get("support_bot/human.md")
    assert (human.title, human.body) == ("human", "Name: Chad\nStudies at UC Berkeley\n")
    assert human.meta["letta"] == {"label": "human", "id": "block-0"}
    assert vault.get("support_bot/order-1182-was-refunded.md").date == "2025-02-11"


def test_a_first_format_agent_file_and_one_saved_as_a_json_string_are_read(vault, tmp_path):
    first = tmp_path / "src/old.af"
    first.write_text(json.dumps({"name": "memgpt", "core_memory": [{"label": "human", "value": "Likes sailing."}]}))
    twice = tmp_path / "src/twice.af"
    twice.write_text(json.dumps(json.dumps(LETTA)))  # what json.dump(client.agents.export_file(...)) writes
    assert vault.import_file(first).importer == "letta"
    assert vault.get("memgpt/human.md").body == "Likes sailing.\n"
    r = vault.import_file(twice)
    assert (r.importer, r.added) == ("letta", 3)
