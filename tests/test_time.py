"""Time: corrections supersede, OUTDATED travels with old facts, fact timelines, history from git."""

import os
import subprocess

import pytest
from conftest import commits, git

from ihmt_vault import BadInput, NotFound


def test_replace_with_one_clear_candidate_outdates_it_in_one_commit(vault):
    old = vault.save("Staging runs PostgreSQL 15 on db-staging-1.", topic="work/infra", date="2024-03-12")
    vault.save("Backups run nightly with pgBackRest.", topic="work/infra")
    new = vault.save(
        "Staging runs PostgreSQL 17 since the upgrade.",
        topic="work/infra",
        date="2026-02-03",
        replaces="staging postgresql 15",
    )
    assert vault.get(old.id).status == "outdated"
    assert vault.get(old.id).superseded_by == [new.id]
    assert vault.get(new.id).supersedes == [old.id]
    assert f"Marked outdated: Staging runs PostgreSQL 15 on db-staging-1. ({old.id})." in new.notices
    message = git(vault.root, "log", "-1", "--format=%B")
    assert f"Memory-Op: replace\nSupersedes: {old.id}\n" in message
    assert sorted(git(vault.root, "show", "--name-only", "--format=", "HEAD").split()) == sorted(
        ["index.md", "work/index.md", "work/infra/index.md", old.path, new.path]
    )


def test_replace_with_several_candidates_marks_nothing_and_lists_them(vault):
    ids = [
        vault.save(f"{name} is a person Ana knows.", title=f"Luis {name}", topic="people").id
        for name in ("Marín", "Ortega", "Chen")
    ]
    new = vault.save("Luis now lives in Alicante.", topic="people", replaces="Luis")
    assert all(vault.get(i).status == "active" for i in ids)
    [notice] = new.notices
    assert notice.startswith("Several memories match 'Luis': ")
    assert all(i in notice for i in ids)
    assert notice.endswith("Nothing was marked outdated; call mark_outdated(old_id, new_id) with the right one.")


def test_replace_with_no_candidate_still_saves_and_says_so(vault):
    vault.save("Espresso: 18 g in, 36 g out.", topic="coffee")
    new = vault.save("The cat is called Miso.", topic="pets", replaces="name of the dog")
    assert new.notices == ["Nothing found to replace for 'name of the dog'; saved as a new memory."]
    assert vault.get(new.id).supersedes == []


def test_outdated_ranks_below_its_correction_with_the_notice(vault):
    old = vault.save("I live in Madrid.", topic="me", date="2024-03-11")
    new = vault.save("I moved to Valencia.", topic="me", date="2026-02-03")
    result = vault.search("where do I live")
    assert [h.id for h in result.hits] == [new.id, old.id]
    assert result.hits[1].notices == [f"OUTDATED: superseded by {new.id} (2026-02-03) — I moved to Valencia."]


def test_contradiction_notice_and_outdating(vault):
    madrid = vault.save("I live in Madrid.", topic="me", date="2024-03-11")
    valencia = vault.save("I moved to Valencia.", topic="me", date="2026-02-03")
    assert valencia.notices == [
        "On 2024-03-11 you said user location = 'Madrid'; on 2026-02-03 you updated it to 'Valencia'.",
        f"Marked outdated: I live in Madrid. ({madrid.id}).",
    ]
    assert vault.get(madrid.id).status == "outdated"


def test_repeating_a_value_is_a_confirmation_not_a_contradiction(vault):
    first = vault.save("I live in Madrid.", topic="me", date="2024-03-11")
    again = vault.save("Vivo en Madrid, en Lavapiés.", topic="me", date="2025-01-20", source="user")
    assert again.notices == ["Confirms what was said on 2024-03-11: user location = 'Madrid'."]
    assert vault.get(first.id).status == "active"
    [line] = vault.facts("user")
    assert [(e.value, e.valid_from, e.confirmations) for e in line.entries] == [("Madrid", "2024-03-11", [again.id])]


def test_one_persons_i_never_outdates_anothers(vault):
    boston = vault.save("Caroline: I live in Boston.", topic="friends", date="2023-05-01")
    denver = vault.save("Melanie: I live in Denver.", topic="friends", date="2023-06-01")
    assert denver.notices == []
    assert vault.get(boston.id).status == "active"
    assert {(t.subject, t.current) for t in vault.facts()} == {("Caroline", "Boston"), ("Melanie", "Denver")}


def test_timeline_of_a_fact_with_three_values_and_state_at_a_date(vault):
    vault.save("I live in Madrid.", topic="me", date="2020-01-10")
    vault.save("I moved to Berlin.", topic="me", date="2022-09-01")
    vault.save("Me he mudado a Valencia.", topic="me", date="2026-02-03")
    [line] = vault.facts("user")
    assert (line.subject, line.attribute, line.current) == ("user", "location", "Valencia")
    assert [(e.value, e.valid_from, e.valid_to) for e in line.entries] == [
        ("Madrid", "2020-01-10", "2022-09-01"),
        ("Berlin", "2022-09-01", "2026-02-03"),
        ("Valencia", "2026-02-03", None),
    ]
    assert line.value_at("2023-01-01") == "Berlin"
    [then] = vault.facts("user", at="2021-06-30")
    assert then.current == "Madrid"
    assert [t.subject for t in vault.conflicts()] == ["user"]


def test_facts_recorded_by_the_caller_are_kept_in_front_matter(vault):
    m = vault.save(
        "Switched the shop to Adyen.",
        topic="work/payments",
        date="2026-01-01",
        facts=[{"subject": "tienda", "attribute": "payment provider", "value": "Adyen"}],
    )
    text = (vault.root / m.path).read_text()
    assert "facts:\n- subject: tienda\n  attribute: payment provider\n  value: Adyen\n" in text
    assert [(t.subject, t.attribute, t.current) for t in vault.facts("tienda")] == [
        ("tienda", "payment provider", "Adyen")
    ]


def test_as_of_search_returns_the_value_current_on_that_date(vault):
    old = vault.save("I live in Madrid.", topic="me", date="2024-03-11")
    new = vault.save("I moved to Valencia.", topic="me", date="2026-02-03")
    then = vault.search("where do I live", as_of="2025-06-01")
    assert [(h.id, h.status, h.notices) for h in then.hits] == [(old.id, "active", [])]
    assert vault.search("where do I live").hits[0].id == new.id


def test_a_memory_outdated_by_hand_gets_the_other_side_from_doctor(vault):
    old = vault.save("The API is on v1.", topic="work/api", date="2024-01-01")
    new = vault.save("The API moved on to v2 in 2026.", topic="work/api", date="2026-01-01")
    file = vault.root / old.path
    file.write_text(file.read_text().replace("status: active", f"status: outdated\nsuperseded_by: [{new.id}]"))
    vault.refresh(force=True)
    assert [p.kind for p in vault.doctor() if p.kind == "one-sided"] == ["one-sided"]
    vault.doctor(repair=True)
    assert vault.get(new.id).supersedes == [old.id]
    assert (
        "~~2024-01-01 · [The API is on v1.](the-api-is-on-v1.md)~~ — OUTDATED"
        in (vault.root / "work/api/index.md").read_text()
    )
    assert vault.doctor() == []


def test_history_follows_a_moved_memory_and_shows_diffs(vault):
    m = vault.save("Luis Chen climbs at La Pared.", topic="people")
    vault.archive(m.id)
    vault.restore(m.id)
    changes = vault.history(m.id, diff=True)
    assert [(c.op, c.path) for c in changes] == [
        ("restore", "people/luis-chen-climbs-at-la-pared.md"),
        ("archive", "archive/people/luis-chen-climbs-at-la-pared.md"),
        ("save", "people/luis-chen-climbs-at-la-pared.md"),
    ]
    assert "-status: active\n+status: archived" in changes[1].diff


def test_get_at_a_date_returns_the_memory_as_it_was(vault):
    env = {**os.environ, "GIT_COMMITTER_DATE": "2025-01-01T12:00:00Z", "GIT_AUTHOR_DATE": "2025-01-01T12:00:00Z"}
    m = vault.save("Staging runs PostgreSQL 15.", topic="infra")
    # move the first commit back in time, as if saved on 2025-01-01
    git(vault.root, "commit", "--amend", "--no-edit", "--date=2025-01-01T12:00:00Z", "-q")
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--amend", "--no-edit", "-q"],
        cwd=vault.root,
        env=env,
        check=True,
    )
    file = vault.root / m.path
    file.write_text(file.read_text().replace("PostgreSQL 15", "PostgreSQL 17"))
    vault.doctor(repair=True)
    assert vault.get(m.id).body == "Staging runs PostgreSQL 17.\n"
    assert vault.get(m.id, at="2025-06-01").body == "Staging runs PostgreSQL 15.\n"
    with pytest.raises(NotFound, match="did not exist yet on 2024-12-31"):
        vault.get(m.id, at="2024-12-31")


def test_undo_of_a_replace_restores_both_files_in_a_new_commit(vault):
    old = vault.save("Deploys happen on Fridays.", topic="work/process", date="2024-01-01")
    before = {p: (vault.root / p).read_text() for p in (old.path, "work/process/index.md")}
    new = vault.save("Never deploy on Fridays.", topic="work/process", supersedes=[old.id])
    result = vault.undo()
    assert commits(vault.root)[:2] == ["undo: save: Never deploy on Fridays.", "save: Never deploy on Fridays."]
    assert {p: (vault.root / p).read_text() for p in before} == before
    assert not (vault.root / new.path).exists()
    assert vault.get(old.id).status == "active"
    assert f"Reverts: {result.reverted}" in git(vault.root, "log", "-1", "--format=%B")


def test_restore_current_undoes_an_outdate(vault):
    a = vault.save("Office in Madrid.", topic="work", date="2024-01-01")
    b = vault.save("Office moved to Valencia.", topic="work", date="2025-01-01")
    vault.mark_outdated(a.id, b.id)
    vault.restore_current(a.id)
    assert (vault.get(a.id).status, vault.get(a.id).superseded_by, vault.get(b.id).supersedes) == ("active", [], [])
    with pytest.raises(BadInput, match="is not outdated"):
        vault.restore_current(a.id)


def test_purge_leaves_no_trace_of_the_text_in_any_commit(vault):
    secret = vault.save(
        "The office door code is 4711-XYZZY, changed monthly.", title="Office door code", topic="work/office"
    )
    vault.save("The office is at Calle Mayor 5.", topic="work/office")
    vault.pin(secret.id)
    asked = []
    result = vault.forget(secret.id, purge=True, confirm=lambda n: asked.append(n) or True)
    assert asked == [4] and result.to_dict() == {"id": secret.id, "purged": True, "commits": 4}
    everything = git(vault.root, "log", "-p", "--all")
    assert "XYZZY" not in everything and "door code" not in everything
    assert commits(vault.root) == [
        f"forget: purged memory {secret.id}",
        "pin: (purged)",
        "save: The office is at Calle Mayor 5.",
        "save: (purged)",
        "init: Memory",
    ]
    assert git(vault.root, "status", "--porcelain") == ""
    subprocess.run(["git", "fsck", "--no-progress"], cwd=vault.root, check=True, capture_output=True)
    assert vault.search("door code XYZZY").status == "not_found"
    assert vault.doctor() == []


def test_purge_cancelled_changes_nothing_and_forget_without_purge_archives(vault):
    m = vault.save("A thing to forget.", topic="misc")
    head = git(vault.root, "rev-parse", "HEAD")
    assert vault.forget(m.id, purge=True, confirm=lambda n: False).cancelled is True
    assert git(vault.root, "rev-parse", "HEAD") == head
    assert vault.forget(m.id).path == "archive/misc/a-thing-to-forget.md"
