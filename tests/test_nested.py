"""Nested entries: written with tabs as hmem does, kept as a Markdown nested list, read level by level."""

import pytest
from conftest import commits

from ihmt_vault.errors import BadInput
from ihmt_vault.storage import nested

CHECKLIST = (
    "Deploy checklist for the billing service\n"
    "\tBuild\n\t\tRun make release\n\t\tTag the commit\n"
    "\tRollout\n\t\tCanary 5% for an hour\n\t\t\tWatch the error rate dashboard\n"
    "\tRollback\n\t\tRun the rollback job\n"
)

AS_LIST = """Deploy checklist for the billing service

- Build
  - Run make release
  - Tag the commit
- Rollout
  - Canary 5% for an hour
    - Watch the error rate dashboard
- Rollback
  - Run the rollback job
"""


@pytest.fixture
def checklist(vault):
    return vault.save(CHECKLIST, title="Deploy checklist", topic="work/ops")


def test_tab_indented_levels_are_written_as_a_nested_markdown_list(vault, checklist):
    assert checklist.body == AS_LIST


def test_level_1_is_the_top_line_with_a_hint_of_what_is_below(vault, checklist):
    assert vault.read(checklist.id, 1)[1] == (
        "Deploy checklist for the billing service\n[+8 →] read at level 2 for the entries\n"
    )


def test_level_2_shows_the_entries_with_their_paths_and_what_is_cut(vault, checklist):
    assert vault.read(checklist.id, 2)[1] == (
        "Deploy checklist for the billing service\n- Build  (1) [+2 →]\n- Rollout  (2) [+2 →]\n- Rollback  (3) [+1 →]\n"
    )


def test_level_3_unfolds_one_more_level(vault, checklist):
    assert vault.read(checklist.id, 3)[1] == (
        "Deploy checklist for the billing service\n"
        "- Build  (1)\n  - Run make release  (1.1)\n  - Tag the commit  (1.2)\n"
        "- Rollout  (2)\n  - Canary 5% for an hour  (2.1) [+1 →]\n"
        "- Rollback  (3)\n  - Run the rollback job  (3.1)\n"
    )


def test_append_adds_a_child_in_one_commit_and_keeps_every_other_line(vault, checklist):
    before = (vault.root / checklist.path).read_text().split("\n")
    m = vault.append(checklist.id, "Page the SRE if errors rise", under="2.1")
    after = (vault.root / m.path).read_text().split("\n")
    assert commits(vault.root)[0] == "append: Deploy checklist"
    added = [line for line in after if line not in before and not line.startswith("updated:")]
    assert added == ["    - Page the SRE if errors rise"]
    assert m.body == AS_LIST.replace(
        "    - Watch the error rate dashboard\n",
        "    - Watch the error rate dashboard\n    - Page the SRE if errors rise\n",
    )


def test_append_under_an_entry_that_does_not_exist_is_refused_and_changes_nothing(vault, checklist):
    with pytest.raises(BadInput, match="under '7': no such entry"):
        vault.append(checklist.id, "x", under="7")
    assert commits(vault.root)[0] == "save: Deploy checklist"


def test_a_search_hit_on_a_nested_entry_comes_with_its_ancestors_not_the_whole_memory(vault, checklist):
    result = vault.search("error rate dashboard during the canary")
    assert result.hits[0].id == checklist.id
    assert result.hits[0].body == (
        "Deploy checklist for the billing service\n- Rollout  (2)\n  - Canary 5% for an hour\n"
        "    - Watch the error rate dashboard\n[entry 2.1; read_memory(id, level=5) for the rest]"
    )


def test_code_indented_with_tabs_is_not_taken_for_levels(vault):
    go = 'func main() {\n\tfmt.Println("hi")\n}\n'
    assert vault.save(f"```go\n{go}```", title="Hello in Go", topic="code").body == f"```go\n{go}```\n"


def test_a_list_inside_a_code_fence_is_code_not_entries(vault):
    m = vault.save(
        "Compose file for staging\n\n```yaml\nservices:\n  - web\n  - db\n```\n", title="Staging compose", topic="work"
    )
    assert vault.read(m.id, 2)[1] == "Compose file for staging\n\n```yaml\nservices:\n  - web\n  - db\n```\n"


def test_append_under_the_last_entry_keeps_the_list_tight_and_the_final_newline(vault):
    m = vault.save("Release steps\n\n- Build\n- Ship\n", title="Release steps", topic="work/ops")
    m = vault.append(m.id, "Tell the channel", under="2")
    assert m.body == "Release steps\n\n- Build\n- Ship\n  - Tell the channel\n"
    m = vault.append(m.id, "Close the ticket")
    assert m.body == "Release steps\n\n- Build\n- Ship\n  - Tell the channel\n- Close the ticket\n"
    assert (vault.root / m.path).read_text().endswith("\n- Close the ticket\n")


def test_a_sixth_tab_level_is_refused_naming_its_line_and_nothing_is_saved(vault):
    text = "Levels\n\tTwo\n\t\tThree\n\t\t\tFour\n\t\t\t\tFive\n\t\t\t\t\tSix\n"
    with pytest.raises(BadInput) as e:
        vault.save(text, topic="work")
    assert str(e.value) == "line 6 ('Six'): 5 tabs is level 6; entries go down to level 5 (4 tabs): indent it less"
    assert not any(c.startswith("save:") for c in commits(vault.root))


def test_appending_a_sixth_level_is_refused_naming_the_entry(vault):
    m = vault.save("Levels\n\tTwo\n\t\tThree\n\t\t\tFour\n\t\t\t\tFive\n", topic="work")
    with pytest.raises(BadInput) as e:
        vault.append(m.id, "Two\n\tThree", under="1.1.1")
    assert str(e.value) == "'Three' would be level 6; entries go down to level 5: indent it less"


def test_a_list_written_deeper_by_hand_keeps_its_depth_at_level_5():
    body = "Levels\n\n- 2\n  - 3\n    - 4\n      - 5\n        - 6\n"
    assert nested.render(body, 5) == (
        "Levels\n- 2  (1)\n  - 3  (1.1)\n    - 4  (1.1.1)\n      - 5  (1.1.1.1)\n        - 6  (1.1.1.1.1)\n"
    )
    assert nested.render(body, 4) == "Levels\n- 2  (1)\n  - 3  (1.1)\n    - 4  (1.1.1) [+2 →]\n"
