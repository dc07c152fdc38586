"""Multilingual analysis: Chinese, Spanish, identifiers, accents, dates."""

import datetime as dt

from ihmt_vault.search import FOUND, Doc, SearchIndex
from ihmt_vault.search.analysis import analyze
from ihmt_vault.search.dates import find_dates


def mem(key, title, body, folder="notes", **kw):
    return Doc(
        key=key, kind="memory", path=f"{folder}/{key}.md", folder=folder, depth=1, title=title, body=body, id=key, **kw
    )


DOCS = [
    mem("zh-db", "数据库机房", "我们的数据库部署在北京机房，每天凌晨备份。"),
    mem("zh-cat", "家里的猫", "我家的猫叫小白，喜欢睡在窗台上。"),
    mem("es-med", "Consejo de la médica", "La médica me recomendó caminar treinta minutos al día por la espalda."),
    mem("es-piso", "El piso de Valencia", "El alquiler del piso de Valencia se paga el día cinco de cada mes."),
    mem("id-fn", "Stock reservation", "Call reserveStock inside the order transaction, never outside it."),
    mem("id-other", "Warehouse notes", "The warehouse counts the stock every Monday."),
    mem("pg", "Staging database", "Staging runs PG17 since the February upgrade."),
    mem("en-1", "Team lunch", "Team lunch is on Fridays at the Thai place."),
]


def build(tmp_path):
    ix = SearchIndex(tmp_path / "cache", today=dt.date(2026, 6, 15))
    ix.rebuild(DOCS, {})
    return ix


def test_chinese_memory_found_by_chinese_question(tmp_path):
    ix = build(tmp_path)
    res = ix.search("数据库在哪个机房？")
    assert res.status == FOUND
    assert res.hits[0].id == "zh-db"
    assert ix.search("小白是谁").hits[0].id == "zh-cat"


def test_spanish_memory_found_by_spanish_question_with_other_inflections(tmp_path):
    ix = build(tmp_path)
    res = ix.search("¿Qué recomendaciones me dio la médica?")
    assert res.status == FOUND
    assert res.hits[0].id == "es-med"
    assert ix.search("¿cuándo se paga el alquiler?").hits[0].id == "es-piso"


def test_accents_do_not_matter(tmp_path):
    ix = build(tmp_path)
    assert ix.search("medica recomendacion").hits[0].id == "es-med"


def test_identifier_found_by_its_words_and_by_itself(tmp_path):
    ix = build(tmp_path)
    assert ix.search("reserve stock").hits[0].id == "id-fn"
    res = ix.search("reserveStock")
    assert res.hits[0].id == "id-fn"
    assert ix.search("where is reserve_stock called").hits[0].id == "id-fn"


def test_pg17_found_written_together_or_apart(tmp_path):
    ix = build(tmp_path)
    assert ix.search("PG17").hits[0].id == "pg"
    assert ix.search("pg 17").hits[0].id == "pg"


def test_analysis_splits_identifiers_and_keeps_them():
    assert analyze("reserveStock") == ["reservestock", "reserv", "stock"]
    assert analyze("PG17") == ["pg17", "pg", "17"]
    assert analyze("HTTPServer", "en") == ["httpserver", "http", "server"]


def test_analysis_drops_english_and_spanish_stop_words_and_folds_accents():
    assert analyze("What is the plan for the team?") == ["plan", "team"]
    assert analyze("¿Dónde está el piso de Valencia?", "es") == ["pis", "valenci"]
    assert analyze("Ñandú", "en") == ["nandu"]


def test_analysis_cuts_chinese_into_words_then_the_pairs_that_are_not_words():
    assert analyze("北京机房") == ["北京", "机房", "北京", "京机", "机房"]


def test_relative_dates_resolve_against_the_reference_day():
    ref = dt.date(2026, 6, 15)
    spans = find_dates("we met yesterday", ref)
    assert [(s.start, s.end) for s in spans] == [(dt.date(2026, 6, 14), dt.date(2026, 6, 14))]
    spans = find_dates("what did we decide last May", ref)
    assert [(s.start, s.end) for s in spans] == [(dt.date(2026, 5, 1), dt.date(2026, 5, 31))]
    spans = find_dates("en 2023", ref)
    assert [(s.start, s.end) for s in spans] == [(dt.date(2023, 1, 1), dt.date(2023, 12, 31))]
    spans = find_dates("昨天", ref)
    assert [s.start for s in spans] == [dt.date(2026, 6, 14)]
    assert find_dates("you may go", ref) == []


def test_chinese_is_cut_into_dictionary_words_and_character_pairs():
    assert analyze("北京大学生物系") == [
        "北京",
        "大学",
        "北京大学",
        "生物",
        "生物系",
        "北京",
        "京大",
        "大学",
        "学生",
        "生物",
        "物系",
    ]


def test_a_chinese_word_hidden_across_a_word_boundary_does_not_outrank_the_word(tmp_path):
    # character pairs alone: 大学生 is also in 北京大学|生物系 (大学 + 学生); the dictionary word is not
    ix = SearchIndex(tmp_path / "cache", today=dt.date(2026, 6, 15))
    ix.rebuild(
        [
            mem("lab", "实验室", "北京大学生物系的实验室搬到了新楼。"),
            mem("job", "暑假", "那个大学生暑假在咖啡店打工。"),
        ],
        {},
    )
    assert ix.search("大学生").hits[0].id == "job"


def test_placement_keywords_of_a_chinese_memory_are_its_words():
    from ihmt_vault.storage.tree import keywords

    assert keywords("", "我们的数据库部署在北京机房", []) == ["北京", "据库", "数据", "数据库", "机房", "部署"]
