"""The project tools: a map of the project, and only the symbols that answer."""

import os

import pytest

from ihmt_vault.errors import BadInput
from ihmt_vault.project.codebase import Project, index_dir

INVENTORY = """package shop.inventory;

import java.util.Map;
import java.util.HashMap;

/** Stock levels and reservations. */
public class InventoryService {
    private final Map<String, Integer> stock = new HashMap<>();

    /** A soft hold: the units are kept for the cart but not yet sold. */
    public boolean reserveStock(String sku, int units) {
        int have = stock.getOrDefault(sku, 0);
        if (have < units) { return false; }
        stock.put(sku, have - units);
        return true;
    }

    public void release(String sku, int units) {
        stock.merge(sku, units, Integer::sum);
    }
}
"""

RETRY = '''import time


def with_retries(call, attempts=3):
    """Call again after a timeout, waiting longer each time."""
    for n in range(attempts):
        try:
            return call()
        except TimeoutError:
            time.sleep(2 ** n)
    raise TimeoutError("gave up")


def parse_price(text):
    return float(text.strip("$"))
'''

TEST_RETRY = """from shop.retry import with_retries


def test_with_retries_gives_up_after_a_timeout():
    assert with_retries
"""


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "InventoryService.java").write_text(INVENTORY)
    (root / "src" / "retry.py").write_text(RETRY)
    (root / "tests" / "test_retry.py").write_text(TEST_RETRY)
    (root / "README.md").write_text("# Shop\n")
    return root


def test_the_map_lists_every_file_with_its_size_in_tokens(shop):
    assert Project(shop).map().split("\n") == [
        "shop/ — 4 files, about 265 tokens to read whole",
        "README.md  2 tok",
        "src/InventoryService.java  151 tok  java",
        "src/retry.py  84 tok  python",
        "tests/test_retry.py  28 tok  python",
    ]


def test_the_map_with_symbols_gives_each_function_and_method_its_lines(shop):
    text = Project(shop).map("symbols", subpath="src")
    assert text.split("\n")[1:] == [
        "src/InventoryService.java  151 tok  java",
        "  class:InventoryService 6-7",
        "  field 8-8",
        "  method:reserveStock 10-16",
        "  method:release 18-21",
        "src/retry.py  84 tok  python",
        "  function:with_retries 4-11",
        "  function:parse_price 14-15",
    ]


def test_find_code_answers_with_the_method_not_the_file(shop):
    found = Project(shop).find("reserveStock soft hold")
    assert found.status == "found"
    assert found.text.startswith(
        "src/InventoryService.java:10-16 method:reserveStock  (in public class InventoryService {)"
    )
    assert "public void release" not in found.text


def test_find_code_demotes_tests_unless_asked_for_them(shop):
    assert Project(shop).find("retries timeout").hits[0][1].name == "function:with_retries"
    assert (
        Project(shop).find("retries timeout", scope="test").hits[0][1].name
        == "function:test_with_retries_gives_up_after_a_timeout"
    )


def test_find_code_says_ambiguous_when_two_symbols_tie(tmp_path):
    (tmp_path / "a.py").write_text("def load_config():\n    return 1\n")
    (tmp_path / "b.py").write_text("def load_config():\n    return 2\n")
    found = Project(tmp_path).find("load config")
    assert found.status == "ambiguous"
    assert found.text.split("\n")[1:] == ["1. a.py:1-2 function:load_config", "2. b.py:1-2 function:load_config"]
    assert Project(tmp_path).find("load config", subpath="b.py").hits[0][0].path == "b.py"


def test_the_index_lives_beside_the_vault_and_is_never_stale(shop, isolated_home):
    p = Project(shop).sync()
    assert p.file.parent == index_dir(shop.resolve()) and p.file.is_relative_to(isolated_home / ".ihmt" / "projects")
    (shop / "src" / "retry.py").write_text(RETRY.replace("def parse_price(text)", "def parse_amount(text)"))
    assert [s.name for s in Project(shop).sync().entries["src/retry.py"].symbols] == [
        "function:with_retries",
        "function:parse_amount",
    ]


def test_a_file_touched_but_not_changed_is_not_cut_again(shop):
    Project(shop).sync()
    st = (shop / "src" / "retry.py").stat()
    os.utime(shop / "src" / "retry.py", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert Project(shop).sync().changed == 0


def test_a_query_of_stop_words_only_is_a_clear_error(shop):
    with pytest.raises(BadInput, match="query: give a few words"):
        Project(shop).find("the of and")
