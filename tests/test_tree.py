"""A tree a person would keep: titles, file names, placement, the gardener, summaries, corrections."""

import pytest
from conftest import save_tended

from ihmt_vault import Vault
from ihmt_vault.errors import SecretRefused
from ihmt_vault.frontends.demo import sample_dir
from ihmt_vault.storage.notes import slugify, title_from_body


def test_a_generated_title_is_the_first_sentence():
    body = "We decided to store timestamps in UTC. DST bugs cost us a week in March."
    assert title_from_body(body, "x") == "We decided to store timestamps in UTC."


def test_a_long_first_sentence_is_cut_at_a_word_boundary_without_an_ellipsis():
    body = "langchain - Building applications with LLMs through composability and many more words."
    assert title_from_body(body, "x") == "langchain - Building applications with LLMs through"


def test_a_version_number_does_not_end_the_first_sentence():
    assert (
        title_from_body("Ana uses Neovim 0.11 with lazy.nvim. She likes it.", "x")
        == "Ana uses Neovim 0.11 with lazy.nvim."
    )


def test_the_first_heading_is_the_title():
    assert title_from_body("# Deploy checklist\n\nRun the migrations first.", "x") == "Deploy checklist"


def test_a_file_name_is_never_cut_mid_word():
    assert (
        slugify("Staging runs PostgreSQL 17 and also many more things beyond that which we need")
        == "staging-runs-postgresql-17-and-also-many-more-things-beyond"
    )


def _vault(tmp_path, bf):
    from ihmt_vault import Vault

    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text(f"[vault]\nbranch_factor = {bf}\n")
    return Vault.open(root)


def test_save_without_topic_never_opens_a_folder_named_after_one_of_its_words(vault):
    texts = [
        "Code style: prefer early returns, forbidden to nest deeper than three levels.",
        "We chose FastAPI over Flask because async endpoints were needed.",
        "Luis Fernández is the product owner for billing.",
        "Always pnpm, never npm, in the frontend repo.",
    ]
    assert [vault.save(t).folder for t in texts] == ["inbox", "inbox", "inbox", "inbox"]


def test_a_decision_saved_without_topic_goes_to_the_decisions_folder_wherever_it_is(vault):
    vault.save("We review pull requests within a day.", topic="work/decisions", type="decision")
    m = vault.save("We decided to store timestamps in UTC.", type="decision")
    assert m.folder == "work/decisions"


def test_a_memory_finds_a_deep_folder_its_words_fit_though_the_folders_above_it_are_broader(tmp_path):
    for src in sample_dir().rglob("*.md"):  # the demo's vault: work/ and work/infrastructure/ list many subjects
        if src.name != "index.md":
            (tmp_path / "v" / src.relative_to(sample_dir())).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "v" / src.relative_to(sample_dir())).write_bytes(src.read_bytes())
    with Vault.init(tmp_path / "v", own_repo=True) as v:
        m = v.memories.save("pgBackRest now keeps four weekly full backups of the production database.")
    assert m.folder == "work/infrastructure/databases"


def test_save_says_where_it_filed_the_memory_and_the_closest_other_topics(vault):
    vault.save("Postgres backups run nightly with pgbackrest.", topic="postgres")
    vault.save("Redis eviction policy is allkeys-lru.", topic="redis")
    m = vault.save("Postgres vacuum runs weekly; postgres and redis both on the db host.")
    assert m.folder == "postgres"
    assert m.notices[-1] == "Filed in postgres/; closest other topics: redis."


def test_a_crowded_inbox_is_filed_into_topics_named_by_a_phrase_their_memories_share(tmp_path):
    v = _vault(tmp_path, 6)
    texts = [
        "The web framework Django renders the admin.",
        "Flask is a micro web framework.",
        "Pyramid is a web framework for large apps.",
        "pytest runs the unit tests.",
        "Hypothesis writes property unit tests.",
        "tox runs the unit tests in many environments.",
        "Sphinx builds the documentation.",
    ]
    ms = [save_tended(v, t) for t in texts]
    assert [v.get(m.id).folder for m in ms] == ["web-framework"] * 3 + ["unit-tests"] * 3 + ["inbox"]
    v.close()


def test_garden_dry_run_lists_moves_and_changes_nothing_then_garden_makes_one_move_commit(tmp_path):
    from conftest import commits, git

    v = _vault(tmp_path, 100)
    texts = [
        "The web framework Django renders the admin.",
        "Flask is a micro web framework.",
        "Pyramid is a web framework for large apps.",
        "pytest runs the unit tests.",
        "Hypothesis writes property unit tests.",
        "tox runs the unit tests in many environments.",
        "Sphinx builds the documentation.",
    ]
    for t in texts:
        v.save(t)
    v.close()
    (tmp_path / "v/.ihmt/config.toml").write_text("[vault]\nbranch_factor = 6\n")  # the folder now is crowded
    from ihmt_vault import Vault

    v = Vault.open(tmp_path / "v")
    plan = v.garden(dry_run=True)
    assert (
        sorted((m.before, m.after) for m in plan.moved)
        == [("inbox", "unit-tests")] * 3 + [("inbox", "web-framework")] * 3
    )
    assert len(commits(v.root)) == 8
    done = v.garden()
    assert sorted(m.id for m in done.moved) == sorted(m.id for m in plan.moved)
    assert commits(v.root)[0] == "move: split inbox into subtopics"  # one slice: the crowded inbox
    assert "inbox/ → unit-tests/  pytest runs the unit tests." in git(v.root, "log", "-1", "--format=%b")
    v.close()


def test_a_summary_never_repeats_a_title_in_the_first_line_beside_it(vault):
    vault.save("We decided to store timestamps in UTC. DST bugs cost us a week.", topic="work/decisions")
    text = (vault.root / "work/decisions/index.md").read_text()
    assert "> **We decided to store timestamps in UTC.** — DST bugs cost us a week." in text
    assert "(we-decided-to-store-timestamps-in-utc.md) — DST bugs cost us a week." in text


def test_the_about_line_holds_no_filler_word(vault):
    vault.save("Ask Luis when the build needs a new runner; he means well and chose GitLab.", topic="ops")
    about = next(l for l in (vault.root / "ops/index.md").read_text().splitlines() if l.startswith("About"))
    assert about == "About build, gitlab, luis, runner. 1 memory."


def test_a_folder_description_written_above_the_generated_part_is_kept_and_shown_first(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="infra")
    index = vault.root / "infra/index.md"
    head, _, rest = index.read_text().partition("# Infra\n")
    index.write_text(
        f"{head}# Infra\n\nOur servers and what runs on them.\n\n"
        "<!-- generated below: a description written above this line is kept -->\n{rest}"
    )
    vault.save("Production runs on OVH.", topic="infra")
    assert "# Infra\n\nOur servers and what runs on them.\n\n<!-- generated below" in index.read_text()


def test_production_moved_to_ovh_outdates_hetzner_and_search_answers_ovh_first_with_the_notice(vault):
    old = vault.save("Production is hosted on Hetzner in Falkenstein.", date="2025-03-01")
    new = vault.save("Production moved to OVH in Gravelines.", date="2026-05-01")
    assert vault.get(old.id).status == "outdated"
    hits = vault.search("where is production hosted?").hits
    assert [h.id for h in hits[:2]] == [new.id, old.id]
    assert hits[1].notices == [
        f"OUTDATED: superseded by {new.id} (2026-05-01) — Production moved to OVH in Gravelines."
    ]


def test_replaces_finds_the_memory_by_meaning_not_only_by_its_words(vault):
    old = vault.save("Staging runs PostgreSQL 15.", date="2025-01-10")
    new = vault.save("The staging database is PostgreSQL 17 since the upgrade.", replaces="staging postgres version")
    assert vault.get(old.id).status == "outdated"
    assert vault.get(new.id).supersedes == [old.id]


def test_the_postgresql_15_to_17_chain_is_found_without_replaces(vault):
    old = vault.save("Staging runs PostgreSQL 15.", date="2025-01-10")
    new = vault.save("Staging runs PostgreSQL 17.", date="2026-02-03")
    assert vault.get(old.id).status == "outdated"
    assert (
        new.notices[0]
        == "On 2025-01-10 you said Staging uses = 'PostgreSQL 15'; on 2026-02-03 you updated it to 'PostgreSQL 17'."
    )


def test_an_older_memory_on_the_same_subject_no_pattern_settles_is_returned_as_may_be_superseded(vault):
    old = vault.save("The staging database is PostgreSQL 17 since the upgrade.", date="2026-02-03")
    new = vault.save("The staging database is PostgreSQL 18 since the upgrade last week.", date="2026-09-01")
    assert vault.get(old.id).status == "active"
    assert new.notices[0] == (
        f"May be superseded: {old.id} The staging database is PostgreSQL 17 since the upgrade. "
        f"(2026-02-03); if this corrects it, call mark_outdated({old.id}, <new id>)."
    )


def test_a_version_is_not_cut_at_its_dot():
    from ihmt_vault.storage import timeline

    assert [f.value for f in timeline.extract("Ana uses Neovim 0.11 for everything.", "user")] == ["Neovim 0.11"]


def test_a_topics_description_is_kept_through_regenerations_and_shown_first(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="work/infra")
    vault.describe("work/infra", "Servers, databases and where they run.")
    vault.save("Production runs on OVH.", topic="work/infra")
    text = (vault.root / "work/infra/index.md").read_text()
    body = text.split("\n---\n", 1)[1]
    assert body.startswith("# Infra\n\nServers, databases and where they run.\n\n<!-- generated below")
    assert "Production runs on OVH" in text


def test_a_description_holding_a_secret_is_refused(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="work")
    with pytest.raises(SecretRefused):
        vault.describe("work", "Token ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2)


def _placer(keyword_lists):
    from collections import Counter

    from ihmt_vault.storage import tree

    info = {"python": tree.FolderInfo("python", "Python", 10, ["python", "parser"])}
    held = Counter(w for kws in keyword_lists for w in set(kws))
    return tree.Placer(lambda f: ["python"] if not f else [], info.get, 16, 3, lambda: (held, len(keyword_lists)))


def test_a_folder_name_word_few_of_the_vaults_memories_hold_is_strong_evidence():
    vault = [["python", "yaml"]] * 4 + [["redis", "cache"]] * 60
    assert _placer(vault).place(["python", "yaml", "loader"]) == "python"


def test_a_folder_name_word_half_the_vaults_memories_hold_is_weak_evidence():
    vault = [["python", "yaml"]] * 32 + [["redis", "cache"]] * 32
    assert _placer(vault).place(["python", "yaml", "loader"]) == "inbox"


def _two_folders(near: dict[str, float]):
    from collections import Counter

    from ihmt_vault.storage import tree

    info = {
        "python": tree.FolderInfo("python", "Python", 10, ["snake", "mouse", "terrarium"]),  # a pet's
        "code": tree.FolderInfo("code", "Code", 10, ["cli", "pytest", "mypy"]),
    }
    held = Counter({"python": 3, "cli": 3})
    return tree.Placer(
        lambda f: ["python", "code"] if not f else [], info.get, 16, 3, lambda: (held, 64), lambda t: near
    )


def test_the_folder_the_words_propose_is_kept_when_its_memories_are_as_near_in_meaning_as_its_siblings():
    placer = _two_folders({"python": 0.30, "code": 0.32})
    assert placer.place(["python", "version"], text="Python 3.12 is the version we install.") == "python"


def test_the_folder_the_words_propose_is_vetoed_when_its_memories_are_far_in_meaning():
    placer = _two_folders({"python": 0.05, "code": 0.45})
    assert placer.place(["python", "version"], text="Python 3.12 is the version we install.") == "inbox"


def test_the_vault_theme_is_the_keywords_more_than_a_quarter_of_its_memories_hold():
    from collections import Counter

    from ihmt_vault.storage import tree

    held = Counter({"pythons": 20, "web": 10, "cache": 12, "redis": 32})  # of 64 memories
    assert tree.theme(tree.stem_counts(held), 64, 16) == {"python", "redis"}


def test_a_crowded_folder_splits_into_subtopics_never_named_by_the_vault_theme():
    from ihmt_vault.storage import tree

    texts = [
        "Python web framework Django.",
        "Python web framework Flask.",
        "Python web framework Pyramid.",
        "Python unit tests with pytest.",
        "Python unit tests with tox.",
        "Python unit tests with nose.",
    ]
    rows = [{"path": f"inbox/m{i}.md", "text": t, "keywords": []} for i, t in enumerate(texts)]
    assert tree.plan_split(rows, set(), 4, vault_theme={"python"}) == {
        "unit-tests": ["inbox/m3.md", "inbox/m4.md", "inbox/m5.md"],
        "web-framework": ["inbox/m0.md", "inbox/m1.md", "inbox/m2.md"],
    }


_FRAMEWORKS_AND_TESTS = [
    "The web framework Django renders the admin.",
    "Flask is a micro web framework.",
    "Pyramid is a web framework for large apps.",
    "pytest runs the unit tests.",
    "Hypothesis writes property unit tests.",
    "tox runs the unit tests in many environments.",
    "Sphinx builds the documentation.",
]


def test_the_folders_a_split_makes_are_recorded_in_garden_json_committed_with_the_move(tmp_path):
    from conftest import git

    v = _vault(tmp_path, 6)
    for t in _FRAMEWORKS_AND_TESTS:
        save_tended(v, t)
    assert (
        v.root / ".ihmt/garden.json"
    ).read_text() == '{\n "made": {\n  "unit-tests": "inbox",\n  "web-framework": "inbox"\n }\n}\n'
    assert ".ihmt/garden.json" in git(v.root, "show", "--name-only", "--format=", "HEAD").split()
    v.close()


def test_garden_merges_a_folder_it_made_left_with_two_memories_back_into_the_folder_it_came_from(tmp_path):
    v = _vault(tmp_path, 6)
    ms = [save_tended(v, t) for t in _FRAMEWORKS_AND_TESTS]
    v.archive(ms[0].id)
    done = v.garden()
    assert sorted((m.before, m.after) for m in done.moved) == [("web-framework", "inbox")] * 2
    assert [v.get(m.id).folder for m in ms[1:]] == ["inbox"] * 2 + ["unit-tests"] * 3 + ["inbox"]
    assert not (v.root / "web-framework").exists()
    assert (v.root / ".ihmt/garden.json").read_text() == '{\n "made": {\n  "unit-tests": "inbox"\n }\n}\n'
    v.close()


def test_garden_never_merges_a_folder_a_person_made_however_few_memories_it_holds(tmp_path):
    v = _vault(tmp_path, 6)
    ms = [v.save("Sphinx builds the documentation.", topic="docs"), v.save("MkDocs builds the site.", topic="docs")]
    assert v.garden(dry_run=True).moved == []
    assert v.garden().moved == []
    assert [v.get(m.id).folder for m in ms] == ["docs", "docs"]
    v.close()


def test_a_memory_saved_without_a_topic_records_the_folder_placement_chose(vault):
    m = vault.save("Always pnpm, never npm, in the frontend repo.")
    assert "\nplaced: inbox\n" in (vault.root / m.path).read_text()


def test_a_memory_saved_with_a_topic_records_no_placement(vault):
    m = vault.save("Always pnpm, never npm, in the frontend repo.", topic="frontend")
    assert "placed:" not in (vault.root / m.path).read_text()


_TESTS = ["pytest runs the unit tests.", "tox runs the unit tests.", "nose runs the unit tests."]


def test_a_group_is_never_named_by_the_verb_its_members_begin_with():
    from ihmt_vault.storage import clustering, tree

    texts = ["Converts Markdown files to HTML.", "Converts CSV files to JSON.", "Converts Word files to PDF."] + _TESTS
    assert clustering.name_groups(texts, [[0, 1, 2], [3, 4, 5]], tree._STOP, set()) == ["files", "unit-tests"]


def test_a_group_is_never_named_by_the_verb_before_an_article():
    from ihmt_vault.storage import clustering, tree

    texts = ["Sphinx builds the documentation.", "MkDocs builds the site.", "pdoc builds the reference."] + _TESTS
    assert clustering.name_groups(texts, [[0, 1, 2], [3, 4, 5]], tree._STOP, set()) == [None, "unit-tests"]


def test_a_group_is_never_named_by_a_preposition():
    from ihmt_vault.storage import clustering, tree

    texts = [
        "nginx runs behind the load balancer.",
        "The admin app sits behind a VPN.",
        "Grafana stays behind SSO.",
    ] + _TESTS
    assert clustering.name_groups(texts, [[0, 1, 2], [3, 4, 5]], tree._STOP, set()) == [None, "unit-tests"]


def test_a_memory_closer_to_another_folders_centre_by_the_margin_is_misplaced():
    from ihmt_vault.storage import tree

    rows = [
        {"path": f"web-framework/m{i}.md", "text": t, "keywords": [], "movable": True}
        for i, t in enumerate(
            [
                "Django is a web framework.",
                "Flask is a web framework.",
                "Bottle is a web framework.",
                "pytest runs the unit tests quickly.",
            ]
        )
    ] + [
        {"path": f"unit-tests/m{i}.md", "text": t, "keywords": [], "movable": True}
        for i, t in enumerate(
            ["tox runs the unit tests.", "nose runs the unit tests.", "Hypothesis writes unit tests quickly."]
        )
    ]
    assert tree.misplaced(rows, {"web-framework", "unit-tests"}) == {"web-framework/m3.md": "unit-tests"}


def test_a_memory_a_person_placed_is_never_misplaced():
    from ihmt_vault.storage import tree

    rows = [
        {"path": f"web-framework/m{i}.md", "text": t, "keywords": [], "movable": i < 3}
        for i, t in enumerate(
            [
                "Django is a web framework.",
                "Flask is a web framework.",
                "Bottle is a web framework.",
                "pytest runs the unit tests quickly.",
            ]
        )
    ] + [
        {"path": f"unit-tests/m{i}.md", "text": t, "keywords": [], "movable": True}
        for i, t in enumerate(
            ["tox runs the unit tests.", "nose runs the unit tests.", "Hypothesis writes unit tests quickly."]
        )
    ]
    assert tree.misplaced(rows, {"web-framework", "unit-tests"}) == {}


_FOUR_FRAMEWORKS_AND_TESTS = [
    "The web framework Django renders the admin.",
    "Flask is a micro web framework.",
    "Pyramid is a web framework for large apps.",
    "Bottle is a small web framework.",
    "pytest runs the unit tests.",
    "Hypothesis writes property unit tests.",
    "tox runs the unit tests in many environments.",
]


def test_garden_refiles_a_memory_whose_text_now_fits_another_folder_it_made(tmp_path):
    v = _vault(tmp_path, 6)
    ms = [save_tended(v, t) for t in _FOUR_FRAMEWORKS_AND_TESTS]
    file = v.root / v.get(ms[1].id).path
    file.write_text(file.read_text().replace("Flask is a micro web framework.", "Flask's unit tests run with pytest."))
    done = v.garden()
    assert [(m.id, m.before, m.after) for m in done.moved] == [(ms[1].id, "web-framework", "unit-tests")]
    assert "\nplaced: unit-tests\n" in (v.root / v.get(ms[1].id).path).read_text()
    v.close()


def test_garden_never_refiles_a_memory_saved_with_a_topic(tmp_path):
    v = _vault(tmp_path, 6)
    for t in _FOUR_FRAMEWORKS_AND_TESTS:
        v.save(t)
    m = v.save("Flask's unit tests run with pytest.", topic="web-framework")
    v.garden()
    assert v.get(m.id).folder == "web-framework"
    v.close()


def test_garden_never_refiles_a_memory_moved_by_hand(tmp_path):
    v = _vault(tmp_path, 6)
    ms = [save_tended(v, t) for t in _FOUR_FRAMEWORKS_AND_TESTS + ["nose runs the unit tests."]]
    rel = v.get(ms[4].id).path
    (v.root / rel).rename(v.root / "web-framework" / rel.rpartition("/")[2])
    v.garden()
    assert v.get(ms[4].id).folder == "web-framework"
    v.close()


def _hand_written(root, folder, texts, placed=True):
    from ihmt_vault.storage import notes

    for t in texts:
        fields = {"id": notes.new_id(), "title": t, "created": "2026-01-01T00:00:00Z"}
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"{notes.slugify(t)}.md").write_text(
            notes.compose({**fields, **({"placed": folder} if placed else {})}, t)
        )


def _oversized_top(tmp_path, placed=True):
    import json

    v = _vault(tmp_path, 3)
    _hand_written(
        v.root,
        "tools/docs",
        ["Sphinx builds the documentation.", "MkDocs builds documentation sites.", "pdoc writes documentation pages."],
        placed,
    )
    _hand_written(v.root, "tools/testing", ["pytest runs unit tests.", "tox runs unit tests.", "nose runs unit tests."])
    _hand_written(v.root, "cache", ["Redis caches sessions.", "Memcached caches sessions.", "Varnish caches sessions."])
    _hand_written(v.root, "deploy", ["Ansible deploys servers.", "Salt deploys servers.", "Fabric deploys servers."])
    made = {"cache": "inbox", "deploy": "inbox", "tools": "inbox", "tools/docs": "tools", "tools/testing": "tools"}
    (v.root / ".ihmt/garden.json").write_text(json.dumps({"made": made}))
    v.reconcile()
    return v


def test_garden_hands_up_the_subfolders_of_a_top_folder_holding_over_a_quarter_of_the_vault(tmp_path):
    v = _oversized_top(tmp_path)
    v.garden()
    assert sorted({m["path"].rpartition("/")[0] for m in v.memories()}) == ["cache", "deploy", "docs", "tools/testing"]
    v.close()


def test_garden_never_hands_up_a_subfolder_holding_a_memory_a_person_placed(tmp_path):
    v = _oversized_top(tmp_path, placed=False)
    v.garden()
    assert sorted({m["path"].rpartition("/")[0] for m in v.memories()}) == ["cache", "deploy", "testing", "tools/docs"]
    v.close()


def test_a_folder_whose_name_few_of_its_memories_hold_is_misnamed_and_named_for_what_they_share():
    from ihmt_vault.storage import tree

    texts = [
        "pytest runs the unit tests.",
        "tox runs the unit tests.",
        "nose runs the unit tests.",
        "Hypothesis writes unit tests.",
        "ward runs unit tests in parallel.",
        "Sphinx builds the documentation.",
    ]
    rows = [{"path": f"docs/m{i}.md", "text": t, "keywords": []} for i, t in enumerate(texts)]
    assert tree.misnamed(rows, {"docs"}) == {"docs": "unit-tests"}


def test_a_folder_whose_name_a_third_of_its_memories_hold_keeps_it():
    from ihmt_vault.storage import tree

    texts = [
        "pytest runs the unit tests.",
        "tox runs the unit tests.",
        "nose runs the unit tests.",
        "Hypothesis writes unit tests.",
        "Sphinx builds the docs.",
        "MkDocs builds the docs.",
    ]
    rows = [{"path": f"docs/m{i}.md", "text": t, "keywords": []} for i, t in enumerate(texts)]
    assert tree.misnamed(rows, {"docs"}) == {}


def test_a_folder_is_never_renamed_to_a_siblings_name():
    from ihmt_vault.storage import tree

    texts = [
        "pytest runs the unit tests.",
        "tox runs the unit tests.",
        "nose runs the unit tests.",
        "Hypothesis writes unit tests.",
        "ward runs unit tests in parallel.",
        "Sphinx builds the documentation.",
    ]
    rows = [{"path": f"docs/m{i}.md", "text": t, "keywords": []} for i, t in enumerate(texts)] + [
        {"path": f"unit-tests/m{i}.md", "text": t, "keywords": []} for i, t in enumerate(texts[:3])
    ]
    assert tree.misnamed(rows, {"docs"}) == {}


_DRIFTED = [
    "pytest runs the unit tests.",
    "tox runs the unit tests.",
    "nose runs the unit tests.",
    "Hypothesis writes unit tests.",
    "ward runs unit tests in parallel.",
    "Sphinx builds the documentation.",
]


def _chain(tmp_path, placed=True):
    import json

    v = _vault(tmp_path, 3)
    _hand_written(v.root, "tests/unit/pytest", ["pytest runs unit tests.", "pytest fixtures isolate HOME."], placed)
    plugins = ["xdist plugin spreads work over cores.", "cov plugin reports lines hit.", "mock plugin wraps objects."]
    _hand_written(v.root, "tests/unit/pytest/plugins", plugins)
    _hand_written(v.root, "cache", ["Redis caches sessions.", "Memcached caches sessions.", "Varnish caches sessions."])
    made = {"tests": "inbox", "tests/unit": "tests", "tests/unit/pytest": "tests/unit"}
    made["tests/unit/pytest/plugins"] = "tests/unit/pytest"
    (v.root / ".ihmt/garden.json").write_text(json.dumps({"made": made}))
    v.reconcile()
    return v


def test_garden_drops_the_empty_link_of_a_chain_of_folders_holding_nothing_but_one_subfolder(tmp_path):
    import json

    v = _chain(tmp_path)
    v.garden()
    assert sorted({m["path"].rpartition("/")[0] for m in v.memories()}) == [
        "cache",
        "tests/pytest",
        "tests/pytest/plugins",
    ]
    assert json.loads((v.root / ".ihmt/garden.json").read_text()) == {
        "made": {"tests": "inbox", "tests/pytest": "tests", "tests/pytest/plugins": "tests/pytest"}
    }
    v.close()


def test_a_moved_folders_record_names_the_moved_folder_as_its_subfolders_origin():
    from ihmt_vault.ops.gardener import rebased

    made = {"tools": "inbox", "tools/testing": "tools", "tools/testing/pytest": "tools/testing", "cache": "inbox"}
    assert rebased(made, "tools/testing", "testing") == {
        "tools": "inbox",
        "testing": "tools",
        "testing/pytest": "testing",
        "cache": "inbox",
    }


def test_garden_never_shortens_a_chain_through_a_memory_a_person_placed(tmp_path):
    v = _chain(tmp_path, placed=False)
    v.garden()
    assert "tests/unit/pytest" in {m["path"].rpartition("/")[0] for m in v.memories()}
    v.close()


def test_garden_renames_a_folder_it_made_whose_memories_no_longer_hold_its_name(tmp_path):
    import json

    v = _vault(tmp_path, 16)
    _hand_written(v.root, "docs", _DRIFTED)
    (v.root / ".ihmt/garden.json").write_text(json.dumps({"made": {"docs": "inbox"}}))
    v.reconcile()
    assert sorted((m.before, m.after) for m in v.garden(dry_run=True).moved) == [("docs", "unit-tests")] * 6
    done = v.garden()
    assert sorted((m.before, m.after) for m in done.moved) == [("docs", "unit-tests")] * 6
    assert not (v.root / "docs").exists()
    assert json.loads((v.root / ".ihmt/garden.json").read_text()) == {"made": {"unit-tests": "inbox"}}
    v.close()


def test_garden_never_renames_a_folder_a_person_made(tmp_path):
    v = _vault(tmp_path, 16)
    _hand_written(v.root, "docs", _DRIFTED)
    v.reconcile()
    assert v.garden().moved == []
    v.close()


def test_garden_never_renames_a_folder_someone_described(tmp_path):
    import json

    v = _vault(tmp_path, 16)
    _hand_written(v.root, "docs", _DRIFTED)
    (v.root / ".ihmt/garden.json").write_text(json.dumps({"made": {"docs": "inbox"}}))
    v.reconcile()
    v.describe("docs", "Everything about how we document and test.")
    assert v.garden().moved == []
    v.close()


def test_a_group_is_never_named_by_an_identifier_out_of_code():
    from ihmt_vault.storage import clustering, tree

    texts = [
        "Set airtable_base_id in the env.",
        "Read airtable_base_id from config.",
        "Never log airtable_base_id.",
    ] + _TESTS
    assert clustering.name_groups(texts, [[0, 1, 2], [3, 4, 5]], tree._STOP, set()) == [None, "unit-tests"]


def test_a_group_is_never_named_by_an_adverb():
    from ihmt_vault.storage import clustering, tree

    texts = ["Explicitly pin versions.", "Explicitly close files.", "Explicitly name exports."] + _TESTS
    assert clustering.name_groups(texts, [[0, 1, 2], [3, 4, 5]], tree._STOP, set()) == [None, "unit-tests"]


def test_a_subtopic_the_inbox_splits_off_joins_the_top_folder_of_the_same_name():
    from ihmt_vault.storage import tree

    texts = [
        "pytest runs the unit tests.",
        "tox runs the unit tests.",
        "nose runs the unit tests.",
        "Django is a web framework.",
        "Flask is a web framework.",
        "Bottle is a web framework.",
    ]
    rows = [{"path": f"inbox/m{i}.md", "text": t, "keywords": []} for i, t in enumerate(texts)]
    assert tree.plan_split(rows, {"unit-test", "inbox", "archive"}, 4) == {
        "unit-test": ["inbox/m0.md", "inbox/m1.md", "inbox/m2.md"],
        "web-framework": ["inbox/m3.md", "inbox/m4.md", "inbox/m5.md"],
    }


_LOOSE = [
    "Grafana keeps sessions and tokens.",
    "Prometheus keeps hosts and disks.",
    "Loki keeps incidents and disks.",
    "Tempo keeps certificates and alerts.",
    "Jaeger keeps certificates and tokens.",
    "Sentry keeps dashboards and metrics.",
    "PagerDuty keeps metrics and jobs.",
    "Statuspage keeps sessions and traces.",
    "Vault keeps errors and dashboards.",
    "Ansible keeps dashboards and logs.",
]


def test_a_split_never_files_memories_under_a_name_few_of_them_hold():
    # k-means lumps the ten memories that share little into one cluster, and three of them say
    # "dashboards": such a cluster is clustered again, and what still fits nothing stays
    from ihmt_vault.storage import clustering, tree

    texts = [
        "pytest runs the unit tests.",
        "tox runs the unit tests.",
        "nose runs the unit tests.",
        "Hypothesis writes unit tests.",
        "ward runs unit tests in parallel.",
        "green runs unit tests fast.",
        "Django is a web framework.",
        "Flask is a web framework.",
        "Bottle is a web framework.",
        "Pyramid is a web framework.",
        "Falcon is a web framework.",
        "Sanic is an async web framework.",
    ] + _LOOSE
    assert clustering.plan(texts, 5, tree._STOP) == (
        {
            "unit-tests": [0, 1, 2, 3, 4, 5],
            "web-framework": [6, 7, 8, 9, 10, 11],
            "certificates": [12, 13, 14, 15, 16, 19],
            "dashboards": [17, 20, 21],
        },
        [18],
    )


def test_the_commit_of_a_split_lists_the_memories_renamed_around_it(tmp_path):
    import json

    from conftest import git

    v = _vault(tmp_path, 6)
    _hand_written(v.root, "docs", _DRIFTED)
    _hand_written(
        v.root,
        "web",
        [
            "Django is a web framework.",
            "Flask is a web framework.",
            "Bottle is a web framework.",
            "Jinja renders templates.",
            "Mako renders templates.",
            "Chameleon renders templates.",
        ],
    )
    (v.root / ".ihmt/garden.json").write_text(json.dumps({"made": {"docs": "inbox", "web": "inbox"}}))
    v.reconcile()
    save_tended(v, "Pyramid is a web framework.", topic="web")
    v.topics.garden()  # the slice split web/; the whole-tree pass renames docs/
    body = git(v.root, "log", "-2", "--format=%B")
    assert sorted({m["path"].rpartition("/")[0] for m in v.memories()}) == [
        "unit-tests",
        "web/framework",
        "web/templates",
    ]
    assert body.count("docs/ → unit-tests/") == 6 and body.count("web/ → web/templates/") == 3
    v.close()


def test_what_the_inbox_holds_beyond_two_branch_factors_goes_where_placement_has_any_evidence(tmp_path):
    v = _vault(tmp_path, 3)
    for t in ["Redis caches the sessions.", "Memcached caches the pages.", "Varnish caches the assets."]:
        save_tended(v, t, topic="cache")
    texts = [
        "Grafana charts the metrics.",
        "The sessions expire after an hour.",
        "Ansible deploys the hosts.",
        "Loki ships the logs.",
        "Vault guards the secrets.",
        "Nomad schedules the jobs.",
        "Consul finds the services.",
    ]
    ms = [save_tended(v, t) for t in texts]
    assert [v.get(m.id).folder for m in ms] == ["inbox", "cache", "inbox", "inbox", "inbox", "inbox", "inbox"]
    v.close()


def test_a_group_is_never_named_by_what_a_folder_name_leaves_of_a_symbol():
    from ihmt_vault.storage import clustering, tree

    texts = ["Bindings for C++ code.", "A C++ compiler front end.", "Parses C++ headers."] + _TESTS
    assert clustering.name_groups(texts, [[0, 1, 2], [3, 4, 5]], tree._STOP, set()) == [None, "unit-tests"]


def test_a_folder_the_inbox_overflow_fills_past_the_branch_factor_is_split(tmp_path):
    # saves try a split only in the folder they save into: one that other moves fill is split by them
    v = _vault(tmp_path, 3)
    _hand_written(
        v.root,
        "cache",
        [
            "Redis keeps the sessions.",
            "Memcached keeps the sessions.",
            "Hazelcast keeps the sessions.",
            "Varnish keeps the pages.",
            "Squid keeps the pages.",
        ],
    )
    v.reconcile()
    texts = [
        "The pages expire after an hour.",
        "Grafana charts the metrics.",
        "Ansible deploys the hosts.",
        "Loki ships the logs.",
        "Vault guards the secrets.",
        "Nomad schedules the jobs.",
        "Consul finds the services.",
    ]
    ms = [save_tended(v, t) for t in texts]
    while v.topics.tend():  # the folders those moves filled are queued: later slices split them
        pass
    assert v.get(ms[0].id).folder == "cache/pages"
    assert sorted({m["path"].rpartition("/")[0] for m in v.memories()}) == ["cache/pages", "cache/sessions", "inbox"]
    v.close()


def test_a_split_into_one_subtopic_holding_most_of_the_folder_splits_that_subtopic_instead():
    # "dashboard/" holding 8 of 15 would be the folder under another name, split next into a chain
    from ihmt_vault.storage import clustering, tree

    texts = [
        "Nomad keeps the jobs for the dashboard.",
        "Docker keeps the jobs for the dashboard.",
        "Argo keeps the jobs for the dashboard.",
        "Sentry keeps the jobs for the dashboard.",
        "Ansible keeps the jobs for the dashboard.",
        "Docker keeps the hosts for the dashboard.",
        "Loki keeps the hosts for the dashboard.",
        "Consul keeps the hosts for the dashboard.",
        "parking permits renew in March",
        "the printer needs toner",
        "the wifi password changes monthly",
        "the badge reader opens at seven",
        "Luis moved to Lisbon",
        "holiday requests go to Marta",
        "the plants get water on mondays",
    ]
    assert clustering.plan(texts, 8, tree._STOP) == (
        {"jobs": [0, 1, 2, 3, 4], "hosts": [5, 6, 7]},
        [8, 9, 10, 11, 12, 13, 14],
    )


def test_a_split_refiles_a_memory_anywhere_in_the_tree_that_another_folder_fits_better(tmp_path):
    import json

    v = _vault(tmp_path, 3)
    _hand_written(
        v.root,
        "ops/monitoring",
        [
            "Grafana charts the metrics.",
            "Prometheus scrapes the metrics.",
            "Loki charts the metrics.",
            "Memcached caches the sessions.",
        ],
    )
    _hand_written(
        v.root,
        "data",
        [
            "Redis caches the sessions.",
            "Hazelcast caches the sessions.",
            "Aerospike caches the sessions.",
            "Postgres stores the orders.",
            "MySQL stores the orders.",
        ],
    )
    (v.root / ".ihmt/garden.json").write_text(
        json.dumps({"made": {"data": "inbox", "ops": "inbox", "ops/monitoring": "ops"}})
    )
    v.reconcile()
    save_tended(v, "Dynamo stores the orders.", topic="data")
    v.topics.garden()  # a slice re-files around its split; the whole-tree pass, anywhere
    # the split of data/ (orders/ made) re-files what it now fits better from the whole tree, not
    # only from the folders around it
    assert sorted(m["path"] for m in v.memories()) == [
        "data/aerospike-caches-the-sessions.md",
        "data/hazelcast-caches-the-sessions.md",
        "data/memcached-caches-the-sessions.md",
        "data/orders/dynamo-stores-the-orders.md",
        "data/orders/mysql-stores-the-orders.md",
        "data/orders/postgres-stores-the-orders.md",
        "data/redis-caches-the-sessions.md",
        "ops/monitoring/grafana-charts-the-metrics.md",
        "ops/monitoring/loki-charts-the-metrics.md",
        "ops/monitoring/prometheus-scrapes-the-metrics.md",
    ]
    v.close()
