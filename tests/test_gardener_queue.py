"""The gardener off the save path: a save does bounded work, a crowded folder is queued, and a later
slice (`Vault.topics.tend`, what `ihmt mcp` and `ihmt watch` run when idle) splits it."""

import subprocess
import sys
import threading

from conftest import git

from ihmt_vault import Vault

TEXTS = [
    "Postgres vacuum settings",
    "Postgres replication lag alert",
    "Postgres upgrade to 17",
    "Redis eviction policy allkeys-lru",
    "Redis memory limit 2GB",
    "Redis persistence off",
    "Nginx gzip on",
]


def crowded(tmp_path, branch_factor: int = 6) -> Vault:
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text(f"[vault]\nbranch_factor = {branch_factor}\n")
    v = Vault.open(root)
    for t in TEXTS:
        v.memories.save(t, topic="infra")
    return v


def test_a_save_commits_only_its_memory_and_the_summaries_on_its_path(tmp_path):
    v = crowded(tmp_path)
    touched = git(v.root, "show", "--name-only", "--format=", "HEAD").split()
    assert [p for p in touched if not p.startswith(".ihmt/stats/")] == [
        "index.md",
        "infra/index.md",
        "infra/nginx-gzip-on.md",
    ]
    assert sorted({m["folder"] for m in v.memories.list()}) == ["infra"]  # crowded, and not split by the save
    v.close()


def test_a_folder_a_save_crowds_is_queued_and_a_later_slice_splits_it(tmp_path):
    v = crowded(tmp_path)
    assert v.topics.queued() == ["infra"]
    report = v.topics.tend()
    assert report is not None and git(v.root, "log", "-1", "--format=%s").strip() == "move: split infra into subtopics"
    assert sorted({m["folder"] for m in v.memories.list()}) == ["infra", "infra/postgres", "infra/redis"]
    assert v.topics.queued() == [] and v.topics.tend() is None
    v.close()


def test_a_folder_whose_split_found_nothing_is_tried_again_only_after_it_grew(tmp_path):
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text("[vault]\nbranch_factor = 4\n")
    v = Vault.open(root)
    for t in ["Apples are red.", "Bananas are long.", "Cherries are small.", "Dates are sweet.", "Elderberries grow."]:
        v.memories.save(t, topic="misc")
    assert v.topics.queued() == ["misc"]
    v.topics.tend()  # nothing to split by: the memories share no word
    assert v.topics.queued() == []
    v.memories.save("Figs are soft.", topic="misc")
    assert v.topics.queued() == []  # one more is not half a branch factor more
    v.memories.save("Grapes hang in bunches.", topic="misc")
    assert v.topics.queued() == ["misc"]
    v.close()


def test_the_dry_run_says_what_is_queued_and_changes_nothing(tmp_path):
    v = crowded(tmp_path)
    head = v.repo.head()
    plan = v.topics.garden(dry_run=True)
    assert plan.queued == ["infra"] and v.repo.head() == head
    v.close()


def test_a_slice_running_beside_another_process_saving_loses_no_save(tmp_path):
    v = crowded(tmp_path, branch_factor=4)
    script = (
        "import sys\nfrom ihmt_vault import Vault\nv = Vault.open(sys.argv[1])\n"
        "for i in range(12):\n    v.memories.save(f'Postgres note {i}: the pool size is {i + 10}.', topic='infra')\n"
    )
    saver = subprocess.Popen([sys.executable, "-c", script, str(v.root)])
    stop = threading.Event()

    def garden():
        gardener = Vault.open(v.root)
        while not stop.is_set():
            gardener.topics.tend()
        gardener.close()

    thread = threading.Thread(target=garden)
    thread.start()
    assert saver.wait(timeout=300) == 0
    stop.set()
    thread.join(timeout=120)
    v.refresh(force=True)
    saved = [m for m in v.memories.list() if m["title"].startswith("Postgres note ")]
    assert len(saved) == 12
    assert git(v.root, "status", "--porcelain", "--", "infra", "index.md").strip() == ""  # every save committed
    v.close()
