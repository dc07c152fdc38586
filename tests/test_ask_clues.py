"""`ihmt ask`: when the answer is AMBIGUOUS it asks for a clue, at most `search_clue_rounds` times
(a setting of `.ihmt/config.toml`, 3 by default), and searches again with each clue."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from ihmt_vault import Vault
from ihmt_vault.config import Config
from ihmt_vault.errors import BadInput
from ihmt_vault.frontends import cli


class Searches:
    def __init__(self, statuses):
        self.statuses, self.clues = list(statuses), []

    def __call__(self, query, clue=None):
        self.clues.append(clue)
        return SimpleNamespace(status=self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0])


def run(statuses, rounds, answers):
    search, answers, shown = Searches(statuses), list(answers), []
    asked = []

    def ask_clue():
        asked.append(True)
        return answers.pop(0)

    cli.clue_rounds(search, "the kettle", rounds, ask_clue, shown.append)
    return search.clues, len(asked), len(shown)


def test_an_ambiguous_answer_asks_for_a_clue_at_most_the_rounds_set_and_searches_with_each():
    assert run(["ambiguous"], 2, ["blue", "kitchen", "never asked"]) == ([None, "blue", "kitchen"], 2, 3)


def test_a_clue_that_settles_it_ends_the_rounds():
    assert run(["ambiguous", "found"], 3, ["blue"]) == ([None, "blue"], 1, 2)


def test_an_empty_clue_stops_and_a_found_answer_never_asks():
    assert run(["ambiguous"], 3, [""]) == ([None], 1, 1)
    assert run(["found"], 3, []) == ([None], 0, 1)


def test_zero_rounds_never_asks():
    assert run(["ambiguous"], 0, []) == ([None], 0, 1)


def test_the_setting_defaults_to_three_and_is_checked():
    assert Config().search_clue_rounds == 3
    with pytest.raises(BadInput, match="search_clue_rounds"):
        Config(search_clue_rounds=-1)


def test_ihmt_ask_takes_its_rounds_from_the_vaults_config_at_a_terminal_and_none_otherwise(tmp_path, monkeypatch):
    root = tmp_path / "v"
    Vault.init(root).close()
    cfg = root / ".ihmt" / "config.toml"
    assert "search_clue_rounds = 3" in cfg.read_text()  # written with the defaults
    cfg.write_text(cfg.read_text().replace("search_clue_rounds = 3", "search_clue_rounds = 1"))
    seen = []
    monkeypatch.setattr(cli, "clue_rounds", lambda search, query, rounds, ask_clue, show: seen.append((query, rounds)))
    monkeypatch.setattr(cli, "_interactive", lambda: True)
    assert CliRunner().invoke(cli.main, ["ask", "the", "kettle", "--vault", str(root)]).exit_code == 0
    monkeypatch.setattr(cli, "_interactive", lambda: False)
    assert CliRunner().invoke(cli.main, ["ask", "the", "kettle", "--vault", str(root)]).exit_code == 0
    assert seen == [("the kettle", 1), ("the kettle", 0)]
