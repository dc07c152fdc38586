"""The vault's operations on real files and a real git repository."""

from pathlib import Path

from conftest import commits, git, save_tended

from ihmt_vault import Vault
from ihmt_vault.storage.gitlog import parse_trailers


def last_commit(root: Path) -> tuple[str, dict, list[str]]:
    message = git(root, "log", "-1", "--format=%B")
    files = git(root, "show", "--name-only", "--format=", "HEAD").split()
    return message.splitlines()[0], parse_trailers(message), sorted(files)


def test_init_creates_config_gitignore_root_summary_and_one_commit(tmp_path):
    v = Vault.init(tmp_path / "mem")
    root = tmp_path / "mem"
    assert (root / ".ihmt/config.toml").read_text().startswith("# IHMT Vault settings")
    assert ".ihmt/cache/" in (root / ".gitignore").read_text()
    assert (root / "index.md").read_text().startswith("---\ntitle: Memory\ngenerated: true\n")
    assert commits(root) == ["init: Memory"]
    assert git(root, "status", "--porcelain") == ""
    v.close()


def test_init_again_changes_nothing(tmp_path):
    Vault.init(tmp_path / "mem").close()
    before = git(tmp_path / "mem", "rev-parse", "HEAD")
    Vault.init(tmp_path / "mem").close()
    assert git(tmp_path / "mem", "rev-parse", "HEAD") == before


def test_save_with_topic_files_it_there_and_commits_memory_and_summary_chain(vault):
    m = vault.save(
        "Staging moved from PostgreSQL 15 to 17 on 2026-02-03.",
        title="Staging runs PostgreSQL 17",
        topic="work/infrastructure",
        date="2026-02-03",
        tags=["database", "staging"],
        type="fact",
        source="claude-code",
    )
    assert m.path == "work/infrastructure/staging-runs-postgresql-17.md"
    assert (m.title, m.type, m.date, m.tags, m.status, m.source) == (
        "Staging runs PostgreSQL 17",
        "fact",
        "2026-02-03",
        ["database", "staging"],
        "active",
        "claude-code",
    )
    subject, trailers, files = last_commit(vault.root)
    assert subject == "save: Staging runs PostgreSQL 17"
    assert trailers == {"Memory-Id": [m.id], "Memory-Op": ["save"], "Agent": ["claude-code"]}
    assert files == [
        "index.md",
        "work/index.md",
        "work/infrastructure/index.md",
        "work/infrastructure/staging-runs-postgresql-17.md",
    ]
    assert git(vault.root, "status", "--porcelain") == ""


def test_summary_lists_memories_subtopics_and_outdated_ones_struck_through(vault):
    new = vault.save(
        "Staging runs PostgreSQL 17.", title="Staging runs PostgreSQL 17", topic="work/infra", date="2026-02-03"
    )
    old = vault.save(
        "Staging runs PostgreSQL 15.", title="Staging runs PostgreSQL 15", topic="work/infra", date="2024-03-12"
    )
    vault.mark_outdated(old.id, new.id)
    infra = (vault.root / "work/infra/index.md").read_text()
    assert "- 2026-02-03 · [Staging runs PostgreSQL 17](staging-runs-postgresql-17.md)\n" in infra  # no text repeated
    assert (
        "- ~~2024-03-12 · [Staging runs PostgreSQL 15](staging-runs-postgresql-15.md)~~ — OUTDATED → "
        "[Staging runs PostgreSQL 17](staging-runs-postgresql-17.md)"
    ) in infra
    work = (vault.root / "work/index.md").read_text()
    assert "- [Infra](infra/index.md) — 2 memories · " in work
    assert vault.get(old.id).superseded_by == [new.id]
    assert vault.get(new.id).supersedes == [old.id]
    subject, trailers, files = last_commit(vault.root)
    assert subject == "outdate: Staging runs PostgreSQL 15"
    assert trailers["Memory-Op"] == ["outdate"] and trailers["Supersedes"] == [old.id]


def test_save_with_supersedes_is_one_replace_commit(vault):
    old = vault.save("We deploy on Fridays.", topic="work/process")
    new = vault.save("We never deploy on Fridays.", topic="work/process", supersedes=[old.id])
    assert vault.get(old.id).status == "outdated"
    subject, trailers, files = last_commit(vault.root)
    assert trailers["Memory-Op"] == ["replace"] and trailers["Supersedes"] == [old.id]
    assert trailers["Memory-Id"] == [new.id]
    assert old.path in files and new.path in files


def test_summaries_are_byte_identical_when_regenerated_without_changes(vault):
    vault.save("Coffee: flat white.", topic="personal/food")
    vault.save("Tea in the afternoon.", topic="personal/food")
    head = git(vault.root, "rev-parse", "HEAD")
    before = {p: p.read_bytes() for p in vault.root.rglob("index.md")}
    result = vault.rebuild()
    assert result.summaries_changed == 0 and result.commit is None
    assert {p: p.read_bytes() for p in vault.root.rglob("index.md")} == before
    assert git(vault.root, "rev-parse", "HEAD") == head


def test_only_the_changed_path_of_summaries_is_regenerated(vault):
    vault.save("Postgres backups with pgBackRest.", topic="work/db")
    vault.save("Espresso at 9 grams.", topic="personal/coffee")
    vault.save("Nightly backups are kept 14 days.", topic="work/db")
    _, _, files = last_commit(vault.root)
    assert [f for f in files if f.endswith("index.md")] == ["index.md", "work/db/index.md", "work/index.md"]


def test_save_without_topic_descends_to_the_best_matching_folder(vault):
    vault.save("Staging runs PostgreSQL 17 on the db host.", title="Staging database", topic="work/infrastructure")
    vault.save("Production database backups with pgbackrest.", title="Backups", topic="work/infrastructure")
    vault.save("Tortilla de patatas de la abuela.", title="Tortilla", topic="personal/recetas")
    m = vault.save(
        "The staging database gets a nightly restore test from the production backups.",
        title="Restore test of staging database",
    )
    assert m.folder == "work/infrastructure"


def test_save_without_topic_goes_to_the_inbox_when_nothing_fits(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="work/infrastructure")
    m = vault.save("Climbing at La Pared every Tuesday with Luis.", title="Climbing on Tuesdays")
    assert m.folder == "inbox"
    assert (vault.root / "inbox/index.md").exists()


def test_save_many_is_one_import_commit_with_ids_in_order(vault):
    items = [
        {"text": f"Fact number {i} about the warehouse.", "title": f"Warehouse fact {i}", "topic": "work/warehouse"}
        for i in range(5)
    ]
    ms = vault.save_many(items, source="importer")
    assert [m.title for m in ms] == [f"Warehouse fact {i}" for i in range(5)]
    assert [m.id for m in ms] == sorted(m.id for m in ms)
    subject, trailers, files = last_commit(vault.root)
    assert subject == "import: 5 memories"
    assert trailers["Memory-Op"] == ["import"] and trailers["Memory-Id"] == [m.id for m in ms]
    assert trailers["Agent"] == ["importer"]
    assert len(commits(vault.root)) == 2


def test_crowded_folder_is_split_into_subtopics_by_shared_keywords_keeping_ids(tmp_path):
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text("[vault]\nbranch_factor = 6\n")
    v = Vault.open(root)
    texts = [
        "Postgres vacuum settings",
        "Postgres replication lag alert",
        "Postgres upgrade to 17",
        "Redis eviction policy allkeys-lru",
        "Redis memory limit 2GB",
        "Redis persistence off",
        "Nginx gzip on",
    ]
    ms = [save_tended(v, t, topic="infra") for t in texts]
    by_id = {m.id: v.get(m.id).path for m in ms}
    assert by_id[ms[0].id] == "infra/postgres/postgres-vacuum-settings.md"
    assert by_id[ms[3].id] == "infra/redis/redis-eviction-policy-allkeys-lru.md"
    assert by_id[ms[6].id] == "infra/nginx-gzip-on.md"
    assert commits(root)[0] == "move: split infra into subtopics"
    _, trailers, _ = last_commit(root)
    assert trailers["Memory-Op"] == ["move"]
    assert "- [Postgres](postgres/index.md) — 3 memories" in (root / "infra/index.md").read_text()
    v.close()


def test_history_follows_a_memory_through_a_split_move(tmp_path):
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text("[vault]\nbranch_factor = 4\n")
    v = Vault.open(root)
    ms = [
        save_tended(v, t, topic="infra")
        for t in ["Postgres vacuum", "Postgres lag", "Postgres upgrade", "Redis lru", "Nginx gzip"]
    ]
    assert v.get(ms[0].id).folder == "infra/postgres"
    assert [c.op for c in v.history(ms[0].id)] == ["move", "save"]
    v.close()


def test_vault_inside_an_existing_repository_commits_only_its_own_paths(tmp_path):
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("print('hi')\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-qm", "app")
    (repo / "app.py").write_text("print('changed, not staged')\n")
    (repo / "notes.txt").write_text("staged by the person\n")
    git(repo, "add", "notes.txt")
    v = Vault.init(repo / "memory")
    m = v.save("We use uv for Python environments.", topic="tooling")
    assert sorted(git(repo, "show", "--name-only", "--format=", "HEAD").split()) == [
        "memory/index.md",
        "memory/tooling/index.md",
        f"memory/{m.path}",
    ]
    assert git(repo, "status", "--porcelain").splitlines() == [" M app.py", "A  notes.txt"]
    assert v.history(m.id)[0].op == "save"
    v.close()


def test_get_by_id_and_by_path(vault):
    m = vault.save("Luis Marín is the DBA.", topic="people")
    assert vault.get(m.id).path == m.path
    assert vault.get(m.path).id == m.id
    assert vault.get(str(vault.root / m.path)).id == m.id


def test_hand_written_file_is_found_and_doctor_fills_in_its_keys(vault):
    (vault.root / "ideas").mkdir()
    (vault.root / "ideas/garden.md").write_text("---\nmood: hopeful\n---\nPlant tomatoes in April.\n")
    problems = {(p.kind, p.path) for p in vault.doctor()}
    assert ("missing-keys", "ideas/garden.md") in problems and ("uncommitted", "ideas/garden.md") in problems
    vault.doctor(repair=True)
    m = vault.get("ideas/garden.md")
    assert m.title == "Plant tomatoes in April." and m.id and m.created
    assert m.meta["mood"] == "hopeful"
    assert vault.doctor() == []
    assert git(vault.root, "status", "--porcelain") == ""


def test_tree_shows_folders_counts_and_memories(vault):
    vault.save("A", title="Alpha", topic="work/infra", date="2025-01-01")
    vault.save("B", title="Beta", topic="personal", date="2025-02-01")
    t = vault.tree(depth=1)
    assert [(c["path"], c["count"]) for c in t["children"]] == [("personal", 1), ("work", 1)]
    assert t["children"][1]["more"] == 1
    t2 = vault.tree(depth=3)
    assert t2["children"][1]["children"][0]["memories"][0]["title"] == "Alpha"


def test_stats_counts_by_status_and_type(vault):
    a = vault.save("Old.", topic="t", type="fact")
    vault.save("New.", topic="t", type="fact", supersedes=[a.id])
    s = vault.stats()
    assert (s["memories"], s["status"], s["types"]) == (2, {"active": 1, "outdated": 1}, {"fact": 2})


def test_a_file_changed_outside_the_tool_is_noticed_by_search(vault):
    m = vault.save("The build server is called jenkins-01.", topic="work/ci")
    file = vault.root / m.path
    file.write_text(file.read_text().replace("jenkins-01", "buildkite-7"))  # by hand, not committed
    with Vault.open(vault.root) as other:  # another process
        assert other.search("buildkite").hits[0].id == m.id
    vault.refresh(force=True)  # this one, after refresh_interval
    assert vault.search("buildkite").hits[0].id == m.id
    assert vault.search("jenkins").status == "not_found"
