"""`ihmt rename ID TITLE`: a new title, the file renamed to match, the id and the history kept."""

from ihmt_vault import BadInput, Vault


def test_a_renamed_memory_keeps_its_id_and_its_file_follows_the_title(tmp_path):
    v = Vault.init(tmp_path / "v")
    m = v.memories.save("Staging runs PostgreSQL 17 since February.", title="Staging database", topic="work")
    renamed = v.memories.rename(m.id, "Staging runs PostgreSQL 17")
    assert (renamed.id, renamed.title, renamed.path) == (
        m.id,
        "Staging runs PostgreSQL 17",
        "work/staging-runs-postgresql-17.md",
    )
    assert not (v.root / m.path).exists()
    assert [c.op for c in v.history.of(m.id)] == ["edit", "save"]


def test_renaming_to_the_same_title_changes_nothing(tmp_path):
    v = Vault.init(tmp_path / "v")
    m = v.memories.save("Deploys go out on Tuesdays.", title="Deploy day", topic="work")
    head = v.repo.head()
    assert v.memories.rename(m.id, "Deploy day").path == m.path and v.repo.head() == head


def test_an_empty_title_is_refused_and_nothing_changes(tmp_path):
    v = Vault.init(tmp_path / "v")
    m = v.memories.save("Deploys go out on Tuesdays.", title="Deploy day", topic="work")
    head = v.repo.head()
    try:
        v.memories.rename(m.id, "   ")
    except BadInput as e:
        assert "title is empty" in str(e)
    else:
        raise AssertionError("an empty title was accepted")
    assert v.repo.head() == head and (v.root / m.path).is_file()
