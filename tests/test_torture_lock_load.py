"""No writer refused while the holder is alive and working: six writers saving at once beside CPU
burners (a load far above the cores), with a short lock timeout; every save lands."""

import os
import subprocess
import sys

import pytest

from ihmt_vault import Vault

pytestmark = pytest.mark.torture

WRITER = """
import sys
from ihmt_vault import Vault
v = Vault.open(sys.argv[1])
for i in range(4):
    v.memories.save(f"Writer {sys.argv[2]} note {i}: the queue drains at {i} per second.", topic="load")
v.close()
"""
BURNER = "while True: pass"


def test_six_writers_beside_cpu_burners_are_all_let_through(tmp_path):
    root = tmp_path / "v"
    Vault.init(root).close()
    config = root / ".ihmt" / "config.toml"
    config.write_text(config.read_text().replace("lock_timeout = 10.0", "lock_timeout = 2.0"))
    burners = [subprocess.Popen([sys.executable, "-c", BURNER]) for _ in range(5 * (os.cpu_count() or 2))]
    try:
        writers = [
            subprocess.Popen([sys.executable, "-c", WRITER, str(root), str(w)], stderr=subprocess.PIPE, text=True)
            for w in range(6)
        ]
        errors = [w.communicate(timeout=600)[1] for w in writers]
    finally:
        for b in burners:
            b.kill()
            b.wait()
    assert [w.returncode for w in writers] == [0] * 6, errors
    with Vault.open(root) as v:
        assert len([m for m in v.memories.list() if m["title"].startswith("Writer ")]) == 24
