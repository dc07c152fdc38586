"""Building and serving the site with mkdocs, from a configuration generated into the staging folder.

The configuration is the project's own (Material, `navigation.indexes` + `navigation.prune`, search), or
the vault's own `mkdocs.yml` inherited, with the `ihmt` plugin added when it lacks it. mkdocs is an
optional extra (`ihmt-vault[site]`): it is imported only inside the functions that run it.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path
from typing import Protocol, cast

import yaml

from ...errors import BadInput, VaultError
from ...storage import tree
from ...vault import Vault, expand
from .staging import SOURCE_DIR, Source

DEFAULT_OUT = ".ihmt/cache/site"  # where `ihmt site build` writes without --out
INSTALL_HINT = "pip install 'ihmt-vault[site]'"


# The configuration every vault's site gets (and the root mkdocs.yml repeats for the sample vault).
THEME = {
    "name": "material",
    "font": False,  # system fonts: no request to Google Fonts, works offline
    "features": [
        "navigation.indexes",
        "navigation.prune",
        "navigation.top",
        "search.highlight",
        "search.suggest",
        "toc.follow",
    ],
}
MARKDOWN_EXTENSIONS = ["attr_list", "md_in_html", "tables", {"toc": {"permalink": True}}]


class _Plugin(Protocol):
    """What `build_site` sets and reads on the `ihmt` plugin instance (`mkdocs_plugin.IhmtPlugin`,
    which this module cannot import: that module imports `site`)."""

    vault_object: Vault | None
    skip: tuple[Path, ...]
    source: Source | None
    broken: list[dict]


class SiteUnavailable(VaultError):
    """The site's optional dependencies are not installed."""

    exit_code = 2


def require_mkdocs() -> None:
    """Raise a one-line `SiteUnavailable` saying how to install the site extra when it is missing."""
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError:
        raise SiteUnavailable(f"the site needs mkdocs and mkdocs-material; install them with: {INSTALL_HINT}") from None
    from importlib.metadata import entry_points

    if not any(ep.name == "ihmt" for ep in entry_points(group="mkdocs.plugins")):
        raise SiteUnavailable(
            "mkdocs cannot find the 'ihmt' plugin; reinstall the package "
            f"({INSTALL_HINT}, or pip install -e '.[site]' in a checkout)"
        )


# A folder of notes that is not a vault (the repository's sample): one copy per process and content.
_SAMPLES: dict[tuple[str, str], Path] = {}


def open_for_site(folder: Path, title: str | None = None) -> Vault:
    """The vault at `folder`; a plain folder of Markdown notes (such as the sample in `vault/`) is copied
    to a temporary folder and made a vault there, the folder itself is never written to."""
    folder = expand(folder).resolve()
    if (folder / ".ihmt" / "config.toml").exists():
        return Vault.open(folder)
    if not folder.is_dir():
        raise BadInput(f"{folder}: no such folder; give the site a vault or a folder of notes")
    import atexit
    import hashlib
    import tempfile

    files = sorted(
        p
        for p in folder.rglob("*.md")
        if p.name != tree.INDEX and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )
    digest = hashlib.sha1()
    for p in files:
        digest.update(p.relative_to(folder).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    key = (str(folder), digest.hexdigest())
    if key not in _SAMPLES or not _SAMPLES[key].exists():  # one copy per process and content (serve rebuilds)
        tmp = Path(tempfile.mkdtemp(prefix="ihmt-site-"))
        atexit.register(shutil.rmtree, tmp, True)
        for p in files:
            dest = tmp / "vault" / p.relative_to(folder)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)
        Vault.init(tmp / "vault", title=title).close()
        _SAMPLES[key] = tmp / "vault"
    return Vault.open(_SAMPLES[key])


def _plugin_name(p) -> str:
    return p if isinstance(p, str) else next(iter(p)) if isinstance(p, dict) and p else ""


def write_config(v: Vault, with_archive: bool = False, for_web: bool = True) -> Path:
    """The mkdocs.yml a vault's site is built with, written to `<vault>/.ihmt/cache/site-src/mkdocs.yml`:
    the project's configuration, or the vault's own mkdocs.yml inherited with the `ihmt` plugin added.
    `for_web` keeps mkdocs' folder URLs (`work/`, for a web server); without it pages are files
    (`work/index.html`), so a site opened from disk follows its links."""
    src = v.root / SOURCE_DIR
    (src / "docs").mkdir(parents=True, exist_ok=True)  # mkdocs checks docs_dir exists before plugins run
    own = next((v.root / n for n in ("mkdocs.yml", "mkdocs.yaml") if (v.root / n).is_file()), None)
    ours = {"ihmt": {"vault": str(v.root), "with_archive": bool(with_archive)}}
    cfg: dict[str, object]
    if own:
        from mkdocs.utils.yaml import yaml_load

        with open(own, "rb") as f:
            theirs = yaml_load(f) or {}
        plugins = theirs.get("plugins", ["search"])
        if isinstance(plugins, dict):
            plugins = [{k: val} if val else k for k, val in plugins.items()]
        cfg = {
            "INHERIT": str(own),
            "docs_dir": "docs",
            "plugins": [p for p in plugins if _plugin_name(p) != "ihmt"] + [ours],
        }
    else:
        # The theme puts site_name into HTML as it is (text and attributes); `&` is left alone since
        # Material escapes the name again in a tooltip.
        name = v.config.title.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        cfg = {
            "site_name": name,
            "docs_dir": "docs",
            "theme": THEME,
            "plugins": ["search", ours],
            "markdown_extensions": MARKDOWN_EXTENSIONS,
        }
    if not for_web:
        cfg["use_directory_urls"] = False
    file = src / "mkdocs.yml"
    text = (
        "# Generated by `ihmt site` for this vault; edits are overwritten (add a mkdocs.yml to the vault instead).\n"
    ) + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)
    if not file.exists() or file.read_text(encoding="utf-8") != text:
        file.write_text(text, encoding="utf-8")
    return file


def _check_out(out: Path, root: Path) -> Path:
    out = expand(out).resolve()
    if out == root or root.is_relative_to(out):
        raise BadInput(f"--out {out}: would hold the vault itself; give a folder of its own for the site")
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {out}: is a file; give a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not (out / "sitemap.xml").exists() and not (out / "404.html").exists():
        raise BadInput(
            f"--out {out}: is not empty and holds no site built before (it would be wiped); give an empty or new folder"
        )
    return out


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def build_site(v: Vault, out: str | Path | None = None, with_archive: bool = False, for_web: bool = True) -> dict:
    """Build the vault's site into `out` (default `<vault>/.ihmt/cache/site`); return a report with the
    broken wikilinks and any warning mkdocs logged. Broken links are reported, never fatal. Without
    `for_web` the pages are files (`page.html`), for a site opened from disk (see `write_config`)."""
    require_mkdocs()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    out = _check_out(Path(out) if out else v.root / DEFAULT_OUT, v.root)
    started = time.perf_counter()
    capture = _Capture()
    mk_log = logging.getLogger("mkdocs")
    mk_log.addHandler(capture)
    try:
        cfg = load_config(config_file=str(write_config(v, with_archive, for_web)), site_dir=str(out))
        # mkdocs types its plugins as BasePlugin; the one named ihmt is ours (write_config names it)
        plugin = cast(_Plugin, cfg.plugins["ihmt"])
        plugin.vault_object = v  # the CLI's open vault: no second catalog
        plugin.skip = (out,)
        cfg.plugins.on_startup(command="build", dirty=False)
        try:
            build(cfg)
        finally:
            cfg.plugins.on_shutdown()
            plugin.vault_object, plugin.skip = None, ()  # mkdocs keeps plugin instances for the process
    except MkDocsException as e:
        raise VaultError(f"the site did not build: {e}") from None
    finally:
        mk_log.removeHandler(capture)
    src = plugin.source
    assert src is not None  # on_config staged the docs
    return {
        "vault": str(v.root),
        "out": str(out),
        "index": str(out / "index.html"),
        "for_web": for_web,
        "memories": src.published,
        "sections": src.sections,
        "pages": [*src.generated],
        "excluded": src.excluded,
        "broken_links": plugin.broken,
        "warnings": capture.messages,
        "seconds": round(time.perf_counter() - started, 2),
    }


def serve_site(v: Vault, addr: str = "127.0.0.1:8000", with_archive: bool = False, open_browser: bool = False) -> None:
    """Serve the vault's site with live reload: edits to memories show up after a moment."""
    require_mkdocs()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.serve import serve
    from mkdocs.exceptions import MkDocsException

    mk_log = logging.getLogger("mkdocs")
    if not mk_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
        mk_log.addHandler(handler)
        mk_log.setLevel(logging.INFO)
    try:
        serve(
            config_file=str(write_config(v, with_archive, for_web=True)),
            dev_addr=addr,
            livereload=True,
            open_in_browser=open_browser,
        )
    except MkDocsException as e:
        raise VaultError(f"the site did not build: {e}") from None
