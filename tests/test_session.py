"""The session tools: re-reads that cost a few tokens, a scratchpad, log digests."""

import pytest

from ihmt_vault.errors import BadInput
from ihmt_vault.project.digest import digest
from ihmt_vault.project.session import Session

SETTINGS = "DEBUG = False\nRETRIES = 3\nTIMEOUT = 10\n"


@pytest.fixture
def session(tmp_path):
    (tmp_path / "settings.py").write_text(SETTINGS)
    return Session(tmp_path)


def test_the_first_read_gives_the_file_whole(session):
    assert session.read_file("settings.py") == "settings.py (3 lines)\n" + SETTINGS


def test_a_repeated_read_of_an_unchanged_file_answers_unchanged(session):
    session.read_file("settings.py")
    assert session.read_file("settings.py") == "UNCHANGED settings.py (3 lines, as given before in this session)"


def test_a_read_after_an_edit_gives_only_the_diff(session, tmp_path):
    big = SETTINGS + "".join(f"OPTION_{n} = {n}\n" for n in range(40))
    (tmp_path / "settings.py").write_text(big)
    session.read_file("settings.py")
    (tmp_path / "settings.py").write_text(big.replace("RETRIES = 3", "RETRIES = 5"))
    answer = session.read_file("settings.py")
    assert answer.startswith("CHANGED settings.py since given; the diff:\n")
    assert "-RETRIES = 3\n+RETRIES = 5\n" in answer and "OPTION_30" not in answer


def test_force_gives_the_file_whole_again(session):
    session.read_file("settings.py")
    assert session.read_file("settings.py", force=True) == "settings.py (3 lines)\n" + SETTINGS


def test_a_binary_or_missing_file_is_one_clear_error(session, tmp_path):
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\0\0")
    with pytest.raises(BadInput, match="logo.png: binary; read_file gives text files only"):
        session.read_file("logo.png")
    with pytest.raises(BadInput, match="nope.py: no such file"):
        session.read_file("nope.py")


def test_a_note_comes_back_by_its_label_and_by_its_words(session):
    session.note("The flaky test is test_sync_race; it fails only under xdist.", label="flaky")
    session.note("Deploy with make release, never by hand.")
    assert session.recall("flaky").endswith("The flaky test is test_sync_race; it fails only under xdist.")
    found = session.recall("which deploy command")
    assert "make release" in found and "test_sync_race" not in found


def test_recall_says_when_nothing_matches(session):
    session.note("Deploy with make release.")
    assert (
        session.recall("postgres version") == "NOT FOUND: no note of this session matches 'postgres version' (1 notes)"
    )


PYTEST_LOG = (
    "\n".join(
        [
            "============================= test session starts ==============================",
            "platform linux -- Python 3.11.7, pytest-8.3.3",
            "collected 4000 items",
            "",
        ]
        + [f"tests/test_mod{n}.py " + "." * 60 for n in range(2000)]
        + [
            "",
            "=================================== FAILURES ===================================",
            "_________________________________ test_parse __________________________________",
            "    def test_parse():",
            ">       assert parse('1') == 2",
            "E       AssertionError: assert 1 == 2",
            "",
            "tests/test_mod7.py:12: AssertionError",
        ]
        + [f"    line {n} of a long traceback" for n in range(2000)]
        + [
            "_________________________________ test_render _________________________________",
            "E       KeyError: 'title'",
            "=========================== short test summary info ============================",
            "FAILED tests/test_mod7.py::test_parse - AssertionError: assert 1 == 2",
            "FAILED tests/test_mod9.py::test_render - KeyError: 'title'",
            "================= 2 failed, 3998 passed in 81.20s (0:01:21) ====================",
        ]
    )
    + "\n"
)


def test_a_digest_keeps_every_failure_and_the_totals_within_its_budget():
    text = digest(PYTEST_LOG, "pytest", budget_tokens=600)
    assert len(PYTEST_LOG.split("\n")) > 4000 and len(text) <= 600 * 4 + 200
    for line in (
        "FAILED tests/test_mod7.py::test_parse - AssertionError: assert 1 == 2",
        "FAILED tests/test_mod9.py::test_render - KeyError: 'title'",
        "================= 2 failed, 3998 passed in 81.20s (0:01:21) ====================",
        "E       AssertionError: assert 1 == 2",
        "E       KeyError: 'title'",
        "============================= test session starts ==============================",
    ):
        assert line in text.split("\n"), line
    assert text.startswith("[pytest: 4018 lines,")


def test_a_digested_output_stays_recallable_by_its_lines_and_whole(session):
    session.digest_output(PYTEST_LOG, "pytest")
    lines = session.recall("render KeyError").split("\n")
    assert "4017: FAILED tests/test_mod9.py::test_render - KeyError: 'title'" in lines
    assert session.recall("pytest", budget_tokens=200_000) == f"#1 pytest ({session.notes[0].at})\n{PYTEST_LOG}"
