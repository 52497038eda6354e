"""GC version labels: ``GC-v6`` in files, plain integers in the plan's tracking maps."""

from __future__ import annotations

import re
from typing import Any

_VERSION = re.compile(r"^\s*(?:GC-?)?v?(\d+)\s*$", re.I)


def parse_version(value: Any) -> int | None:
    """``GC-v6``, ``v6``, ``6`` and ``6`` (int) all mean 6; anything else is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str):
        m = _VERSION.match(value)
        if m:
            return int(m.group(1))
    return None


def label(version: int | None) -> str:
    """How a version is shown: ``GC-v6``, or an em dash for unknown."""
    return f"GC-v{version}" if version is not None else "—"
