"""The one clock: every rule that depends on time (decay, grace periods, relative dates, created
stamps) reads it here, so tests and demos can set it — `IHMT_NOW=2027-06-01` in the environment,
or `clock.frozen(...)` in code — and no test sleeps.
"""

from __future__ import annotations

import datetime as dt
import os
from contextlib import contextmanager

from .errors import BadInput

_fixed: dt.datetime | None = None


def _parse(value: str) -> dt.datetime:
    text = value.strip().replace("Z", "+00:00")
    try:
        when = (
            dt.datetime.fromisoformat(text)
            if "T" in text or " " in text
            else dt.datetime.combine(dt.date.fromisoformat(text), dt.time(12, 0))
        )
    except ValueError:
        raise BadInput(f"IHMT_NOW={value!r} is not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS") from None
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def now() -> dt.datetime:
    """The current time, UTC, aware."""
    if _fixed is not None:
        return _fixed
    env = os.environ.get("IHMT_NOW")
    if env:
        return _parse(env).astimezone(dt.timezone.utc)
    return dt.datetime.now(dt.timezone.utc)


def today() -> dt.date:
    return now().date()


def stamp() -> str:
    """Now as the vault writes it: `2026-11-30T10:12:03Z`."""
    return now().replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def when(stamp: str | None) -> dt.datetime | None:
    """A stamp the vault wrote (`created`, a recall's time) as an aware datetime; None if it is not one."""
    if not stamp:
        return None
    try:
        d = dt.datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return None
    return d if d.tzinfo else d.replace(tzinfo=dt.timezone.utc)


@contextmanager
def frozen(when: str | dt.datetime):
    """Time stands at `when` inside the block (tests; a demo run 'a year later')."""
    global _fixed
    before = _fixed
    _fixed = _parse(when) if isinstance(when, str) else when.astimezone(dt.timezone.utc)
    try:
        yield
    finally:
        _fixed = before


def set_to(when: str | dt.datetime | None) -> None:
    """Move the clock (None: back to real time) — for simulations that step through months."""
    global _fixed
    _fixed = None if when is None else (_parse(when) if isinstance(when, str) else when.astimezone(dt.timezone.utc))
