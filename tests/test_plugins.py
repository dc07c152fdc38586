"""The extension door: importers, chunkers and rankers come in through pluggy hooks, built-ins too."""

import json

from ihmt_vault import Vault
from ihmt_vault.plugins import manager as plugins
from ihmt_vault.plugins.hookspecs import hookimpl
from ihmt_vault.search import RankItem

MARKDOWN = """---
tags: [demo]
---
# Setup

Install with pip.

```python
# a comment that looks like a heading
print("hi")
```

## Usage

- one
- two

| a | b |
|---|---|
| 1 | 2 |

## Notes
last line without a newline"""


def test_the_built_ins_come_through_the_hooks():
    assert "jsonl" in plugins.importers_by_name()
    assert "markdown" in plugins.chunkers_by_name()


def test_the_markdown_chunker_cuts_at_headings_and_joins_back_byte_for_byte():
    chunks = plugins.chunkers_by_name()["markdown"].chunk(MARKDOWN)
    assert "".join(c.text for c in chunks) == MARKDOWN
    assert [c.heading for c in chunks] == ["Setup", "Usage", "Notes"]
    assert chunks[0].text.startswith("---\ntags: [demo]\n---\n# Setup") and 'print("hi")\n```\n' in chunks[0].text
    assert [(c.first_line, c.last_line) for c in chunks] == [(1, 12), (13, 21), (22, 23)]


def test_import_reads_a_file_through_the_named_importer(vault, tmp_path):
    file = tmp_path / "m.jsonl"
    file.write_text(json.dumps({"text": "Staging runs PostgreSQL 17.", "topic": "work"}) + "\n")
    [m] = vault.import_file(file, format="jsonl").memories
    assert (m.title, m.folder) == ("Staging runs PostgreSQL 17.", "work")


class _Plugin:
    """A plugin registering an importer and a ranker, as a third-party package would."""

    class Upper:
        def read(self, path):
            return [{"text": line.upper(), "topic": "shouted"} for line in path.read_text().splitlines()]

    class Backwards:
        """Ranks the candidates in reverse title order: enough to see fusion at work."""

        def rank(self, query, candidates):
            return sorted(range(len(candidates)), key=lambda i: candidates[i].title, reverse=True)

    @hookimpl
    def register_importers(self, register):
        register("upper", self.Upper())

    @hookimpl
    def register_rankers(self, register):
        register("backwards", self.Backwards())


def test_a_plugin_adds_an_importer_and_a_ranker_through_the_same_door(tmp_path):
    plugin = _Plugin()
    plugins.manager().register(plugin)
    try:
        file = tmp_path / "lines.txt"
        file.write_text("deploy on tuesdays\n")
        v = Vault.init(tmp_path / "v")
        [m] = v.import_file(file, format="upper").memories
        assert (m.body, m.folder) == ("DEPLOY ON TUESDAYS\n", "shouted")
        for n, where in enumerate(["by the school gate", "at the market square", "on the harbour road"]):
            v.save(f"The zebra crossing {where}.", title=f"{'abc'[n]} zebra", topic="z")
        lexical = [h.title for h in v.search("zebra crossing").hits]
        assert sorted(lexical) == ["a zebra", "b zebra", "c zebra"]
        v.close()
        config = tmp_path / "v" / ".ihmt" / "config.toml"
        config.write_text(config.read_text().replace("rankers = []", 'rankers = ["backwards"]'))
        with Vault.open(tmp_path / "v") as fused:
            # one lexical vote and one reversed vote: the fused order is decided by the ranker's
            # preference between the lexical first and last, ties by lexical position
            assert [h.title for h in fused.search("zebra crossing").hits] == [lexical[0], lexical[2], lexical[1]]
    finally:
        plugins.manager().unregister(plugin)


def test_a_ranker_that_fails_leaves_the_lexical_order():
    from ihmt_vault.search.rankers import fuse

    class Broken:
        def rank(self, query, candidates):
            raise RuntimeError("model missing")

    items = ["first", "second", "third"]
    assert fuse("q", items, [Broken()], lambda x: RankItem(x, x, x), lambda x: 1.0) == items
