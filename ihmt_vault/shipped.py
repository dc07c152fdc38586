"""Files shipped with the package: the hook scripts, the templates, the sample vault.

In a source checkout (an editable install) they are the repository's `hooks/`, `templates/` and
`vault/` folders; in a wheel they are the package data `ihmt_vault._hooks`, `_templates` and
`_sample` (pyproject.toml). Either way a real path a person can open.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def shipped_dir(checkout_dir: str, package_dir: str) -> Path:
    """The folder `checkout_dir` of the checkout, else the installed package's `package_dir`."""
    checkout = CHECKOUT / checkout_dir
    if checkout.is_dir():
        return checkout
    # files() of the package itself: a data folder has no __init__.py, and files() of a namespace
    # package is a MultiplexedPath, whose str() is not a path
    return Path(str(resources.files("ihmt_vault"))) / package_dir
