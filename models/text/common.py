"""Where two versions of a file start differing, and whether they agree after an edit, at
memory speed.

A follow-up of an agent's write compares the new text with the one it replaces: the bytes
before the first difference and after the edited section are the same, so only that section
needs reading again. Comparing slices that double in size runs in C, a few dozen Python
steps for a 10 MB file, where a character-by-character loop would take a second.
"""

from __future__ import annotations

from collections.abc import Callable

_FIRST_STEP = 4096


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    return common_from(a, 0, b, 0)


def common_from(a: str, a_at: int, b: str, b_at: int) -> int:
    """Length of the longest common prefix of ``a[a_at:]`` and ``b[b_at:]``, without copying
    either whole."""
    limit = min(len(a) - a_at, len(b) - b_at)
    return _agreeing(max(limit, 0), lambda lo, hi: a.startswith(b[b_at + lo : b_at + hi], a_at + lo))


_PIECE = 1 << 16  # characters: a copy this size is served from freed memory, and stays in cache


def same_after(old: str, old_at: int, new: str, new_at: int) -> bool:
    """Whether ``old[old_at:]`` and ``new[new_at:]`` are the same text: all a follow-up needs
    to know about what follows the edited section (it used to find the length of the common
    suffix, only to compare that with the section's end). A ``str`` has no view, so ``old`` is
    copied, a piece at a time: copied whole, what follows an edit near the top of a 10 MB GC
    with one character past Latin-1 is a fresh 20 MB block, whose pages the system handed in
    one fault at a time (10 ms of a 1 ms comparison)."""
    if len(old) - old_at != len(new) - new_at:
        return False
    shift = new_at - old_at
    return all(new.startswith(old[lo : lo + _PIECE], lo + shift) for lo in range(old_at, len(old), _PIECE))


def common_prefix_bytes(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of two byte strings. A view of ``b`` is compared
    in place (``bytes.startswith`` takes any buffer): no part of either is copied."""
    view = memoryview(b)
    return _agreeing(min(len(a), len(b)), lambda lo, hi: a.startswith(view[lo:hi], lo))


def common_suffix_bytes(a: bytes, b: bytes) -> int:
    """Length of the longest common suffix of two byte strings, compared in place as
    ``common_prefix_bytes`` compares."""
    view, a_len, b_len = memoryview(b), len(a), len(b)
    return _agreeing(min(a_len, b_len), lambda lo, hi: a.endswith(view[b_len - hi : b_len - lo], 0, a_len - lo))


def same_bytes_after(old: bytes, old_at: int, new: bytes, new_at: int) -> bool:
    """``same_after`` for bytes, compared in place: 0.2 ms for 7 MB, where the text's version
    copies what follows first."""
    return len(old) - old_at == len(new) - new_at and new.endswith(memoryview(old)[old_at:])


def _agreeing(limit: int, agree: Callable[[int, int], bool]) -> int:
    """The largest n ≤ ``limit`` such that positions 0..n agree, where ``agree(lo, hi)`` says
    whether positions lo..hi (counted from the end compared) do: steps that double while they
    agree, then halving inside the first step that does not."""
    done, step = 0, _FIRST_STEP
    while done < limit:
        stop = min(limit, done + step)
        if not agree(done, stop):
            while stop - done > 1:  # done..stop holds a difference
                mid = (done + stop) // 2
                if agree(done, mid):
                    done = mid
                else:
                    stop = mid
            return done
        done, step = stop, step * 2
    return limit
