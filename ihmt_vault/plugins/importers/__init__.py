"""The built-in importers: other memory tools' stores read as `Item`s (see hookspecs.py).

One module per store (FORMATS.md says what each looks like); `reading.py` holds what they share:
reading text, JSON lines and SQLite without ever writing the original. Each importer has
`read(path) -> list[Item]` and `recognises(path) -> bool` (what `--format auto` asks, in the order
registered here) and a `what` line naming the store. They come in through the same pluggy hook as
a plugin's importers.
"""

from __future__ import annotations

from ..hookspecs import hookimpl
from .agent_md import AgentMarkdown
from .hermes import Hermes
from .hmem import Hmem
from .ihmt import Ihmt
from .jsonl import JsonLines
from .letta import Letta
from .mcp_memory import McpMemory
from .mem0 import Mem0
from .memorytree import MemoryTree
from .obsidian import Obsidian


@hookimpl
def register_importers(register):
    for name, importer in (
        ("jsonl", JsonLines()),
        ("mcp-memory", McpMemory()),
        ("mem0", Mem0()),
        ("letta", Letta()),
        ("memorytree", MemoryTree()),
        ("hmem", Hmem()),
        ("ihmt", Ihmt()),
        ("hermes", Hermes()),
        ("agent-md", AgentMarkdown()),
        ("obsidian", Obsidian()),
    ):
        register(name, importer)
