"""`ihmt ingest` keeps what is clean: a key drops only its own paragraph (said by its lines, never
its text), and every file a folder's walk leaves out (a `.env`, dependencies) is listed with why."""

import subprocess
import sys

TOKEN = "ghp_" + "R8vQ2kLm9XzT4wYb7NcJ1pHd6sFg3aEu5iKo"
OPS = f"""# Access

The deploy job runs at nine and pages the on-call SRE.

The CI token is {TOKEN} for now.

# Deploys

On Tuesdays.
"""


def git_log(root) -> str:
    return subprocess.run(["git", "log", "-p", "--all"], cwd=root, capture_output=True, text=True).stdout


def test_a_clean_paragraph_beside_a_key_comes_in_and_only_the_keys_paragraph_is_skipped(vault, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "ops.md").write_text(OPS)
    r = vault.ingest([folder])
    assert r.skipped == [
        (
            "notes/ops.md:5-5",
            "contains what looks like a GitHub token (detect-secrets: GitHubTokenDetector); this paragraph "
            "was left out and the rest of lines 1-6 came in: remove it from the file (keep a pointer such "
            "as 'in 1Password')",
        )
    ]
    memories = {m.title: m.body for m in map(vault.get, r.added)}
    assert memories == {
        "Access": "# Access\n\nThe deploy job runs at nine and pages the on-call SRE.\n",
        "Deploys": "# Deploys\n\nOn Tuesdays.\n",
    }
    assert TOKEN not in git_log(vault.root) and "ghp_" not in git_log(vault.root)
    again = vault.ingest([folder])
    assert (again.commit, again.added, again.updated) == (None, [], [])


def test_a_chunk_that_is_only_a_heading_and_a_key_stays_out_whole(vault, tmp_path):
    (tmp_path / "keys.md").write_text(f"# Keys\n\n{TOKEN}\n")
    r = vault.ingest([tmp_path / "keys.md"])
    assert [w for w, _ in r.skipped] == [f"{tmp_path.name}/keys.md:1-3"] and r.added == []


def test_every_file_a_folder_leaves_out_is_listed_with_its_reason(vault, tmp_path):
    folder = tmp_path / "proj"
    (folder / "node_modules/left").mkdir(parents=True)
    (folder / "node_modules/left/index.js").write_text("module.exports = 1;\n")
    (folder / ".cache").mkdir()
    (folder / ".cache/state.md").write_text("# State\n\nWarm.\n")
    (folder / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    (folder / "README.md").write_text("# Proj\n\nA small project.\n")
    r = vault.ingest([folder])
    assert r.skipped == [
        ("proj/.cache/", "a hidden folder: not ingested from a folder"),
        ("proj/node_modules/", "dependencies or build output: not ingested from a folder"),
        (
            "proj/.env",
            "a hidden file: not ingested from a folder (dotfiles such as .env often hold keys); "
            "give its path to ingest it",
        ),
    ]
    assert [vault.get(i).title for i in r.added] == ["Proj"]
    cli = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "--vault", str(vault.root), "ingest", str(folder)],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0 and "skipped proj/.env: a hidden file: not ingested from a folder" in cli.stderr
    assert TOKEN not in git_log(vault.root)
