"""Words for counts, as the window and the CLI both print them."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """``1 item``, ``2 items``; ``many`` where adding an s is wrong (``entry``, ``entries``)."""
    return f"{n:,} {one if n == 1 else (many if many is not None else one + 's')}"
