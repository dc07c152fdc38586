"""`ihmt ingest` measured: rate on real code (click, and the standard library's json, email and
asyncio), on a 5 MB journal, bytes round-tripped from the vault's memories back to each file, a
second ingest of the same tree (time, commits: the target is 0), and what search answers for
IHMT's own example queries after ingesting files written for them.

    python bench/ingest.py          # prints the figures
"""

from __future__ import annotations

import asyncio
import email
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import click

from ihmt_vault import Vault

TREES = {
    "click": Path(click.__file__).parent,
    "json": Path(json.__file__).parent,
    "email": Path(email.__file__).parent,
    "asyncio": Path(asyncio.__file__).parent,
}

EXAMPLES = {
    "inventory/InventoryService.java": """package shop.inventory;

import java.util.HashMap;
import java.util.Map;

public class InventoryService {
    private final Map<String, Integer> stock = new HashMap<>();
    private final Map<String, Integer> held = new HashMap<>();

    /** Puts a soft hold on units for a cart: they stay in stock until the order is paid. */
    public boolean reserveStock(String sku, int units) {
        int free = stock.getOrDefault(sku, 0) - held.getOrDefault(sku, 0);
        if (free < units) {
            return false;
        }
        held.merge(sku, units, Integer::sum);
        return true;
    }

    public void commitSale(String sku, int units) {
        held.merge(sku, -units, Integer::sum);
        stock.merge(sku, -units, Integer::sum);
    }

    public int available(String sku) {
        return stock.getOrDefault(sku, 0) - held.getOrDefault(sku, 0);
    }
}
""",
    "people/contacts.md": """# Contacts

## Luis Fernández
Luis Fernández is the product owner of the billing team; he prefers written specs.

## Luis Ortega
Luis Ortega is the SRE on call for the database; page him for PostgreSQL incidents.
""",
    "diary/2024.txt": """2024-03-02 Packed the van in Madrid.

2024-03-03 Drove from Madrid to Valencia, five hours with a stop in Requena.

2024-03-10 First week in Valencia: the flat near the beach is noisy at night.
""",
    "recetas/paella.md": """# Paella valenciana

Ingredientes:
- 400 g de arroz bomba
- un pollo y un conejo troceados
- judía verde, garrofó, azafrán

Pasos:
1. Sofreír el pollo y el conejo en la paella con aceite.
2. Añadir la verdura y el agua; hervir veinte minutos.
3. Echar el arroz y el azafrán; dieciocho minutos sin remover.
4. Dejar reposar cinco minutos antes de servir.
""",
}
QUERIES = [
    ("reserveStock soft hold", None),
    ("Luis", "database"),
    ("Madrid → Valencia", None),
    ("¿cómo se hace la paella?", None),
]


def journal(target_bytes: int) -> str:
    rng = random.Random(7)
    words = (
        "ran walked met cooked read wrote slept trained called visited fixed planned bought "
        "Ana Luis Marta Valencia Madrid bike garden paper code kitchen river market"
    ).split()
    out, size, day = [], 0, 0
    while size < target_bytes:
        date = time.strftime("%Y-%m-%d", time.gmtime(1577836800 + 86400 * day))
        entry = f"{date} " + " ".join(rng.choice(words) for _ in range(rng.randint(40, 160))) + ".\n\n"
        out.append(entry)
        size += len(entry.encode())
        day += 1
    return "".join(out)


def round_trip(v: Vault, tree: Path, name: str) -> tuple[int, int]:
    """(bytes of files whose memories join back exactly, bytes in all)."""
    exact = total = 0
    by_source: dict[str, list] = {}
    for row in v.engine.catalog.by_source_prefix(name + "/"):
        by_source.setdefault(row.source, []).append(v.get(row.id))
    for source, memories in by_source.items():
        memories.sort(key=lambda m: int(m.meta["lines"].split("-")[0]))
        parts = []
        for m in memories:
            body = m.body
            if m.type == "code":
                body = body.split("\n", 1)[1]
                body = body[: body.rstrip("\n").rstrip("`").rfind("\n") + 1] if body.rstrip().endswith("`") else body
            parts.append(body)
        original = (tree.parent / source).read_bytes()
        total += len(original)
        exact += len(original) if "".join(parts).encode() == original else 0
    return exact, total


def commits(root: Path) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True).stdout)


def main() -> None:
    os.environ["HOME"] = tempfile.mkdtemp()
    work = Path(tempfile.mkdtemp())
    for name, tree in TREES.items():
        copy = work / name
        shutil.copytree(tree, copy, ignore=shutil.ignore_patterns("__pycache__"))
        v = Vault.init(work / f"vault-{name}")
        t = time.perf_counter()
        r = v.ingest([copy])
        first = time.perf_counter() - t
        before = commits(v.root)
        t = time.perf_counter()
        again = v.ingest([copy])
        second = time.perf_counter() - t
        exact, total = round_trip(v, copy, name)
        print(
            f"{name:8} {r.files:4} files {r.chunks:5} chunks in {first:6.1f} s ({r.files / first:5.1f} files/s, "
            f"{r.chunks / first:6.1f} chunks/s, {r.oversized} oversized, {len(r.skipped)} skipped); "
            f"round trip {exact:,}/{total:,} bytes exact; second ingest {second:4.1f} s, "
            f"{commits(v.root) - before} commits, {len(again.added) + len(again.updated)} changed"
        )
        v.close()
    folder = work / "life"
    folder.mkdir()
    (folder / "journal.txt").write_text(journal(5_000_000))
    v = Vault.init(work / "vault-journal")
    t = time.perf_counter()
    r = v.ingest([folder])
    took = time.perf_counter() - t
    dated = sum(1 for row in v.engine.catalog.by_source("life/journal.txt") if row.date)
    print(
        f"journal  5 MB: {r.chunks} chunks in {took:.1f} s ({5 / took:.2f} MB/s), {dated} with the date from their text"
    )
    v.close()
    examples = work / "examples"
    for rel, text in EXAMPLES.items():
        (examples / rel).parent.mkdir(parents=True, exist_ok=True)
        (examples / rel).write_text(text)
    v = Vault.init(work / "vault-examples")
    v.ingest([examples])
    for query, clue in QUERIES:
        result = v.search(query, clue=clue)
        top = result.hits[0] if result.hits else None
        print(
            f"{query!r}{f' (clue {clue!r})' if clue else ''}: {result.status}"
            + (f" → {top.title} [{v.get(top.id).meta.get('symbol') or v.get(top.id).meta.get('kind')}]" if top else "")
        )
    v.close()


if __name__ == "__main__":
    main()
