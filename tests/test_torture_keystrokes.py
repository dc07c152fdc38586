"""No keystroke lost: a person appends a line to a memory every few milliseconds while ihmt rewrites
the same file again and again (outdate, current); every line they appended is in the file at the end."""

import subprocess
import sys
import time

import pytest

from ihmt_vault import Vault

pytestmark = pytest.mark.torture
SECONDS = 60

APPENDER = """
import sys, time
path, stop_at = sys.argv[1], float(sys.argv[2])
n = 0
while time.time() < stop_at:
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"typed line {n}\\n")
    n += 1
    time.sleep(0.002)
print(n)
"""


def test_appends_made_while_ihmt_rewrites_the_file_are_all_kept(tmp_path):
    v = Vault.init(tmp_path / "v")
    old = v.memories.save("Staging runs PostgreSQL 15.", topic="work")
    new = v.memories.save("Staging runs PostgreSQL 17.", topic="work")
    path = v.root / old.path
    stop_at = time.time() + SECONDS
    person = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path), str(stop_at)], stdout=subprocess.PIPE, text=True
    )
    rewrites = 0
    while time.time() < stop_at:
        v.memories.outdate(old.id, new.id)
        v.memories.current(old.id)
        rewrites += 2
    typed = int(person.communicate(timeout=60)[0])
    text = path.read_text(encoding="utf-8")
    missing = [n for n in range(typed) if f"typed line {n}\n" not in text]
    assert rewrites > 10 and typed > 1000
    assert missing == []
    v.close()
