"""Where two versions of a file start and stop differing, found at memory speed.

A follow-up of an agent's write compares the new text with the one it replaces: the bytes
before the first difference and after the last one are the same, so only the part between
them needs reading again. Comparing slices that double in size runs in C, a few dozen Python
steps for a 10 MB file, where a character-by-character loop would take a second.
"""

from __future__ import annotations

_FIRST_STEP = 4096


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    limit = min(len(a), len(b))
    done, step = 0, _FIRST_STEP
    while done < limit:  # doubling steps while they match
        stop = min(limit, done + step)
        if not a.startswith(b[done:stop], done):
            return _narrow_prefix(a, b, done, stop)
        done, step = stop, step * 2
    return limit


def _narrow_prefix(a: str, b: str, lo: int, hi: int) -> int:
    """The first difference lies in [lo, hi): halve the range until it is found."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a.startswith(b[lo:mid], lo):
            lo = mid
        else:
            hi = mid
    return lo if a[lo] != b[lo] else lo + 1


def common_suffix(a: str, b: str, limit: int | None = None) -> int:
    """Length of the longest common suffix of ``a`` and ``b``, at most ``limit`` (used to keep
    the suffix from overlapping a common prefix already found)."""
    bound = min(len(a), len(b)) if limit is None else min(len(a), len(b), limit)
    done, step = 0, _FIRST_STEP
    while done < bound:
        stop = min(bound, done + step)
        if not a.endswith(b[len(b) - stop : len(b) - done], 0, len(a) - done):
            return _narrow_suffix(a, b, done, stop)
        done, step = stop, step * 2
    return bound


def _narrow_suffix(a: str, b: str, lo: int, hi: int) -> int:
    """The last difference lies ``lo`` to ``hi`` characters from the ends: narrow it down."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a.endswith(b[len(b) - mid : len(b) - lo], 0, len(a) - lo):
            lo = mid
        else:
            hi = mid
    return lo if a[len(a) - lo - 1] != b[len(b) - lo - 1] else lo + 1
