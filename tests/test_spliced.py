"""Issue 18: a follow-up's bytes kept as pieces of the last version's, and the read that
compares the file with them as it goes (models.text.spliced).

Every answer is checked against the joined bytes themselves: ``bytes`` slicing, ``find`` and
``hashlib`` for the pieces, and for ``reread`` a plain reading of the whole file (the common
prefix found byte by byte, the tail compared by slicing).
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import pytest

from models.text.spliced import READ_PIECE, Raw, Region, Reread, Spliced, reread, same_raw, spliced, whole


def _random_pieces(rng: random.Random, data: bytes) -> Spliced:
    """``data`` as slices of several blocks, each block with bytes around the slice taken."""
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 6)))) if len(data) > 1 else []
    parts = []
    for lo, hi in zip([0, *cuts], [*cuts, len(data)], strict=True):
        pad_a, pad_b = os.urandom(rng.randint(0, 5)), os.urandom(rng.randint(0, 5))
        parts.append((pad_a + data[lo:hi] + pad_b, len(pad_a), len(pad_a) + hi - lo))
    return Spliced(parts)


def test_pieces_read_as_the_bytes_they_join_to() -> None:
    rng = random.Random(18)
    for _ in range(300):
        data = bytes(rng.choice(b"ab\nc") for _ in range(rng.randint(0, 40)))
        pieces = _random_pieces(rng, data)
        assert len(pieces) == len(data)
        for _ in range(10):
            lo, hi = sorted(rng.randint(-3, len(data) + 3) for _ in range(2))
            assert pieces.span(lo, hi) == data[lo:hi]
            assert pieces.span(lo) == data[lo:]
            start = rng.randint(0, len(data))
            assert pieces.find(b"\n", start) == data.find(b"\n", start)
            probe = data[start : start + rng.randint(0, 8)]
            if rng.random() < 0.3 and probe:
                probe = probe[:-1] + b"x"
            expected = data.startswith(probe, start)
            assert pieces.agrees(start, memoryview(probe)) == expected, (data, start, probe)
            agreed = next((n for n in range(len(probe)) if start + n >= len(data) or data[start + n] != probe[n]), None)
            assert pieces.agreeing(start, memoryview(probe)) == (len(probe) if agreed is None else agreed)
        assert pieces.sha256() == hashlib.sha256(data).hexdigest()
        assert pieces.whole() == data and pieces.part_count <= 1 and pieces.whole() is pieces.whole()


def test_raws_compare_equal_by_their_bytes_whatever_their_pieces() -> None:
    rng = random.Random(3)
    data = b"# T\n## a\n- x\n" * 50
    a, b = _random_pieces(rng, data), _random_pieces(rng, data)
    assert same_raw(a, b) and same_raw(data, b) and same_raw(a, data)
    assert not same_raw(a, data[:-1]) and not same_raw(a, data[:-1] + b"y")
    assert same_raw(b"\xef\xbb\xbf" + data, a, 3, 0) and not same_raw(b"\xef\xbb\xbf" + data, a)
    assert whole(a) == data and spliced(data).whole() is data


def _expected(old: bytes, new: bytes, region: Region) -> tuple[int, int, int] | None:
    """What ``reread`` must say, from the whole files: where they first differ, where the
    region says the change ends, and whether the rest agrees."""
    lo, hi = 0, min(len(old), len(new))  # the longest equal prefix, by halving slices
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if old[:mid] == new[:mid] else (lo, mid - 1)
    same = lo
    if old == new:
        return len(new), len(new), len(new)
    old_stop = region(same, len(new))
    if old_stop is None:
        return None
    new_stop = old_stop + len(new) - len(old)
    if new_stop < same or old[old_stop:] != new[new_stop:]:
        return None
    return same, old_stop, new_stop


def _reread(path: Path, old: Raw, region: Region, size: int | None = None) -> Reread | None:
    fd = os.open(path, os.O_RDONLY)
    try:
        return reread(fd, path.stat().st_size if size is None else size, 7, old, region)
    finally:
        os.close(fd)


def _blocks(rng: random.Random, n: int) -> bytes:
    return b"".join(rng.choice([b"## s\n", b"- entry \xe2\x80\x94 x\n", b"\n", b"text line\n"]) for _ in range(n))


@pytest.mark.parametrize("large", [False, True], ids=["small", "over-several-read-pieces"])
def test_a_reread_finds_what_a_whole_read_finds(tmp_path: Path, large: bool) -> None:
    """Random edits (put in, taken out, replaced; at the start, the end, across read pieces),
    each read against the pieces the last step kept, with regions that end where a section
    would or give up: the answer is the whole read's, and the bytes kept are the file's."""
    rng = random.Random(f"reread{large}")
    path = tmp_path / "f"
    old_bytes = _blocks(rng, 60_000 if large else 40)
    old: Raw = old_bytes
    answered = 0
    for _ in range(40 if large else 400):
        at = rng.randint(0, len(old_bytes))
        cut = rng.choice([0, 0, rng.randint(0, 30), rng.randint(0, 3 * READ_PIECE)])
        new = old_bytes[:at] + _blocks(rng, rng.choice([0, 1, 3])) + old_bytes[at + cut :]
        path.write_bytes(new)
        stops = sorted(rng.sample(range(len(old_bytes) + 1), min(len(old_bytes) + 1, 5)))
        give_up = rng.random() < 0.1

        def region(
            same: int,
            size: int,
            stops: list[int] = stops,
            give_up: bool = give_up,
            new_size: int = len(new),
            old_size: int = len(old_bytes),
        ) -> int | None:
            assert size == new_size
            return None if give_up else next((s for s in stops if s >= same), old_size)

        got = _reread(path, old, region)
        expected = _expected(old_bytes, new, region)
        if expected is None:
            assert got is None
            continue
        assert got is not None and (got.same, got.old_stop, got.new_stop, got.mtime_ns) == (*expected, 7)
        assert whole(got.raw) == new
        if new == old_bytes:
            assert got.raw is old
        answered += 1
        old, old_bytes = got.raw, new
    assert answered >= (10 if large else 100)  # the chain went on from kept pieces


def test_a_file_that_changes_size_while_read_is_left_to_a_full_read(tmp_path: Path) -> None:
    """``size`` is what ``fstat`` said when the file was opened; bytes past it, or fewer than
    it, mean a writer is at work."""
    path = tmp_path / "f"
    old = b"## a\n- x\n## b\n- y\n"
    path.write_bytes(old + b"- z\n")

    def region(same: int, size: int) -> int:
        return len(old)

    assert _reread(path, old, region) is not None
    assert _reread(path, old, region, size=len(old) + 2) is None  # grew since fstat
    assert _reread(path, old, region, size=len(old) + 6) is None  # shorter than fstat said
