"""Behaviour of the search engine: descent, ranking signals, decisions."""

import datetime as dt

from ihmt_vault.search import AMBIGUOUS, FOUND, NOT_FOUND, Doc, SearchIndex


def mem(key, folder, title, body, **kw):
    return Doc(
        key=key,
        kind="memory",
        path=f"{folder}/{key}.md".lstrip("/"),
        folder=folder,
        depth=folder.count("/") + 1 if folder else 0,
        title=title,
        body=body,
        id=key,
        **kw,
    )


def summary(folder, title, body):
    return Doc(
        key=f"dir:{folder}",
        kind="summary",
        path=f"{folder}/index.md".lstrip("/"),
        folder=folder,
        depth=folder.count("/") + 1 if folder else 0,
        title=title,
        body=body,
    )


FILLER = [
    mem("f1", "life", "Sunday market", "Bought tomatoes and bread at the Sunday market."),
    mem("f2", "life", "Running", "Ran ten kilometres along the river before breakfast."),
    mem("f3", "work", "Standup time", "The daily standup is at 9:30 in the small room."),
    mem("f4", "work", "Code review rule", "Every pull request needs one approving review."),
    mem("f5", "life", "Dentist", "The dentist appointment moved to Thursday afternoon."),
]


def build(tmp_path, docs, today=dt.date(2026, 6, 15)):
    ix = SearchIndex(tmp_path / "cache", today=today)
    ix.rebuild(docs, {"generation": "1"})
    return ix


def test_descent_reaches_a_memory_three_levels_down_and_reports_its_path(tmp_path):
    docs = FILLER + [
        summary("", "Vault", "Work and life. Topics: work (infrastructure, databases), life."),
        summary("work", "Work", "Infrastructure, databases, code review, standups."),
        summary("work/infra", "Infrastructure", "Servers, staging, databases and backups."),
        summary("work/infra/db", "Databases", "PostgreSQL on staging; backups of the database."),
        summary("life", "Life", "Market, running, dentist."),
        mem(
            "pg",
            "work/infra/db",
            "Nightly database backups",
            "The staging database is backed up every night at 02:00 to the S3 bucket.",
        ),
    ]
    ix = build(tmp_path, docs)
    res = ix.search("when are database backups taken")
    assert res.status == FOUND
    best = res.hits[0]
    assert best.id == "pg"
    assert best.path == "work/infra/db/pg.md"
    assert best.trail == ["work", "work/infra", "work/infra/db"]
    assert best.via in ("descent", "both")
    assert 0 < res.node_reads < len(docs) + 10


def test_memory_filed_in_the_wrong_folder_is_still_found(tmp_path):
    docs = FILLER + [
        summary("", "Vault", "Work and life."),
        summary("work", "Work", "Standups and code review."),
        summary("life", "Life", "Market, running, dentist."),
        mem(
            "k8s",
            "life",
            "Ingress certificate renewal",
            "cert-manager renews the Kubernetes ingress certificate every 60 days.",
        ),
    ]
    ix = build(tmp_path, docs)
    res = ix.search("kubernetes ingress certificate")
    assert res.status == FOUND
    assert res.hits[0].id == "k8s"
    assert res.hits[0].trail == ["life"]


def test_outdated_memory_ranks_below_its_correction_with_a_notice(tmp_path):
    docs = FILLER + [
        mem(
            "old",
            "work/infra",
            "Staging runs PostgreSQL 15",
            "Staging runs PostgreSQL 15. PostgreSQL 15 staging database, PostgreSQL everywhere.",
            status="outdated",
            date="2025-01-10",
            superseded_by=["new"],
        ),
        mem(
            "new",
            "work/infra",
            "Staging runs PostgreSQL 17",
            "Staging moved to version 17 because of logical replication.",
            date="2026-02-03",
            supersedes=["old"],
        ),
    ]
    ix = build(tmp_path, docs)
    res = ix.search("staging postgresql")
    ids = [h.id for h in res.hits]
    assert ids.index("new") < ids.index("old")
    old = res.hits[ids.index("old")]
    assert old.status == "outdated"
    assert old.notices == ["OUTDATED: superseded by new (2026-02-03) — Staging runs PostgreSQL 17"]


def test_outdated_notice_found_through_supersedes_when_superseded_by_is_missing(tmp_path):
    docs = FILLER + [
        mem("old", "work", "Deploys on Fridays", "We deploy on Fridays.", status="outdated"),
        mem(
            "new",
            "work",
            "No deploys on Fridays",
            "We never deploy on Fridays any more.",
            supersedes=["old"],
            date="2026-03-01",
        ),
    ]
    res = build(tmp_path, docs).search("deploy fridays")
    old = next(h for h in res.hits if h.id == "old")
    assert old.notices == ["OUTDATED: superseded by new (2026-03-01) — No deploys on Fridays"]


LUISES = FILLER + [
    mem(
        "luis-marin",
        "people",
        "Luis Marín",
        "Luis Marín is the DBA of the payments team; he owns the database migrations.",
    ),
    mem(
        "luis-garcia",
        "people",
        "Luis García",
        "Luis García is my neighbour in Benidorm; he keeps a spare key to the flat.",
    ),
    mem(
        "luis-ortega",
        "people",
        "Luis Ortega",
        "Luis Ortega is the landlord of the Valencia office; rent is due on the 5th.",
    ),
]


def test_luis_with_three_different_people_is_ambiguous_with_three_candidates(tmp_path):
    res = build(tmp_path, LUISES).search("Luis")
    assert res.status == AMBIGUOUS
    assert sorted(c.id for c in res.candidates) == ["luis-garcia", "luis-marin", "luis-ortega"]
    assert all(c.title and c.snippet for c in res.candidates)
    text = res.render()
    assert "AMBIGUOUS" in text and "Luis García" in text and "Luis Ortega" in text


def test_clue_resolves_the_ambiguous_luis(tmp_path):
    res = build(tmp_path, LUISES).search("Luis", clue="Benidorm")
    assert res.status == FOUND
    assert res.hits[0].id == "luis-garcia"
    assert res.candidates == []


def test_clue_that_matches_nothing_keeps_it_ambiguous(tmp_path):
    res = build(tmp_path, LUISES).search("Luis", clue="Tokyo")
    assert res.status == AMBIGUOUS


def test_question_naming_one_luis_is_found(tmp_path):
    res = build(tmp_path, LUISES).search("who is the DBA Luis")
    assert res.status == FOUND
    assert res.hits[0].id == "luis-marin"


def test_only_stop_words_is_not_found(tmp_path):
    res = build(tmp_path, LUISES).search("what is the and of it")
    assert res.status == NOT_FOUND
    assert res.hits == []


def test_unrelated_words_are_not_found(tmp_path):
    res = build(tmp_path, LUISES).search("quantum banana spaceship")
    assert res.status == NOT_FOUND
    assert "NOT FOUND" in res.render()


def test_one_stray_word_among_unknown_ones_is_not_found(tmp_path):
    res = build(tmp_path, LUISES).search("zeppelin maintenance schedule for the hangar at Luton airport")
    assert res.status == NOT_FOUND


def test_title_naming_the_thing_ranks_at_least_as_high_as_a_passing_mention(tmp_path):
    docs = FILLER + [
        mem(
            "notes",
            "work",
            "Weekly meeting notes",
            "Talked about the roadmap, hiring, the Redis cache, the office move, budgets and the offsite.",
        ),
        mem(
            "redis",
            "work",
            "Redis cache eviction policy",
            "We use allkeys-lru with a 2 GB limit; keys without TTL are a bug.",
        ),
    ]
    res = build(tmp_path, docs).search("redis cache")
    ids = [h.id for h in res.hits]
    assert ids.index("redis") < ids.index("notes")


def test_archived_memories_are_searched_only_when_nothing_live_matches(tmp_path):
    docs = FILLER + [
        mem("arc", "archive/work", "Old VPN setup", "The OpenVPN server ran on the Hetzner box.", status="archived"),
        mem("live", "work", "VPN today", "We use WireGuard for the VPN now."),
    ]
    ix = build(tmp_path, docs)
    res = ix.search("openvpn hetzner")
    assert res.archived_fallback is True
    assert res.hits[0].id == "arc"
    assert "archive" in res.render()
    res2 = ix.search("vpn")
    assert res2.archived_fallback is False
    assert [h.id for h in res2.hits] == ["live"]


def test_under_and_level_restrict_the_search(tmp_path):
    docs = FILLER + [
        mem("a", "work/infra", "Backup policy", "Backups are kept for 30 days."),
        mem("b", "life", "Photo backup", "Phone photos back up to the NAS."),
    ]
    ix = build(tmp_path, docs)
    assert [h.id for h in ix.search("backup", under="work/infra").hits] == ["a"]
    assert [h.id for h in ix.search("backup", level=1).hits] == ["b"]


def test_query_with_last_may_prefers_memories_dated_then(tmp_path):
    docs = FILLER + [
        mem("jan", "work", "Offsite planning", "Offsite planning meeting, venue ideas.", date="2026-01-12"),
        mem("may", "work", "Offsite decided", "Offsite decided: Lisbon.", date="2026-05-20"),
    ]
    ix = build(tmp_path, docs, today=dt.date(2026, 6, 15))
    assert ix.search("offsite planning last May").hits[0].id == "may"
    assert ix.search("offsite planning in January 2026").hits[0].id == "jan"


def test_dates_named_in_the_text_are_searchable(tmp_path):
    docs = FILLER + [
        mem("lease", "life", "Flat lease", "We signed the lease on 3 March 2024 for two years.", date="2024-06-01"),
        mem("lease2", "life", "Lease renewal idea", "Maybe renegotiate the lease.", date="2025-02-01"),
        mem("y", "life", "Dinner", "Yesterday we had dinner at Casa Pepe.", date="2025-10-11"),
        mem("y2", "life", "Dinner plans", "Dinner at Casa Pepe again soon.", date="2025-12-01"),
    ]
    ix = build(tmp_path, docs)
    assert ix.search("lease March 2024").hits[0].id == "lease"
    assert ix.search("dinner Casa Pepe on 10 October 2025").hits[0].id == "y"


def test_query_naming_only_a_time_returns_memories_of_that_time(tmp_path):
    docs = FILLER + [
        mem("d1", "life", "Concert", "Went to the Rosalía concert.", date="2026-06-14"),
        mem("d2", "life", "Haircut", "Got a haircut.", date="2026-03-02"),
    ]
    res = build(tmp_path, docs, today=dt.date(2026, 6, 15)).search("what happened yesterday?")
    assert res.status == FOUND
    assert [h.id for h in res.hits] == ["d1"]


def test_a_pasted_paragraph_as_query_still_answers(tmp_path):
    docs = FILLER + [mem("k8s", "work", "Ingress certificate renewal", "cert-manager renews the ingress certificate.")]
    query = " ".join(f"word{i}" for i in range(200)) + " ingress certificate"
    res = build(tmp_path, docs).search(query)
    assert res.hits[0].id == "k8s"


def test_a_long_query_is_answered_with_a_bounded_number_of_its_words(tmp_path):
    from ihmt_vault.search import Doc, SearchIndex
    from ihmt_vault.search.candidates import MAX_GROUPS

    docs = [
        Doc(
            key=f"m{i}",
            kind="memory",
            path=f"m{i}.md",
            folder="",
            depth=0,
            title=f"Note {i}",
            body=f"word{i} common text about things",
            id=f"m{i}",
        )
        for i in range(60)
    ]
    docs.append(
        Doc(
            key="kafka",
            kind="memory",
            path="kafka.md",
            folder="",
            depth=0,
            title="Kafka retention",
            body="Kafka keeps seven days of events on the Zurich cluster.",
            id="kafka",
        )
    )
    ix = SearchIndex(tmp_path)
    ix.rebuild(docs, {})
    query = " ".join(f"word{i}" for i in range(60)) + " common text Kafka Kafka retention Zurich"
    res = ix.search(query)
    assert len(res.words) == MAX_GROUPS
    assert {"Kafka", "retention", "Zurich"} <= set(res.words)
    assert res.hits[0].id == "kafka"


def test_the_newer_of_two_memories_about_the_same_subject_ranks_first_and_the_older_may_be_outdated(tmp_path):
    from ihmt_vault.search import Doc, SearchIndex

    def m(key, body, date):
        return Doc(
            key=key, kind="memory", path=f"{key}.md", folder="", depth=0, title=body, body=body, id=key, date=date
        )

    ix = SearchIndex(tmp_path)
    ix.rebuild(
        [
            m("old", "The team offsite will be held in Lisbon in the first week of June.", "2026-01-10"),
            m("new", "The team offsite will be held in Porto, first week of June.", "2026-03-02"),
            m("other", "Lunch with the design team on Fridays.", "2026-02-01"),
        ],
        {},
    )
    res = ix.search("where is the team offsite held in June")
    assert [h.id for h in res.hits[:2]] == ["new", "old"]
    assert res.hits[1].notices == ["may be outdated: new (2026-03-02)"]
    assert res.hits[0].notices == []


def test_confidence_is_coverage_times_half_plus_half_the_margin():
    from ihmt_vault.search import FOUND, NOT_FOUND, Hit, SearchResult

    hit = Hit(id="a", title="A", path="a.md", snippet="", score=1.0)
    assert SearchResult(status=FOUND, hits=[hit], coverage=0.8, margin=0.5).confidence == 0.8 * 0.75
    assert SearchResult(status=NOT_FOUND, hits=[hit], coverage=0.8, margin=0.5).confidence == 0.0


def test_the_vaults_search_settings_reach_the_search(tmp_path):
    from ihmt_vault import Vault

    root = tmp_path / "v"
    Vault.init(root).close()
    with Vault.open(root) as v:
        v.save("Staging runs PostgreSQL 17.", topic="work/infra")
        assert v.search("staging PostgreSQL version").status == "found"
    (root / ".ihmt" / "config.toml").write_text("[vault]\nsearch_not_found_coverage = 0.9\nsearch_beam = 1\n")
    with Vault.open(root) as v:
        assert v.search("staging PostgreSQL version").status == "not_found"
