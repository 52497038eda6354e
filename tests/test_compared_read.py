"""A file read on both cores and compared with its last version as it is read
(``models.text.compared_read``): the bytes are the file's, and how far they agree with the old
bytes from the start and from the end is what a byte-by-byte walk finds.

The pieces are made small (and the size from which a file is read so, zero) so that a file of a
few kilobytes runs through many pieces on each side of its middle; the expected values are
walked out byte by byte here, not by the module's comparisons.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import DEMO, REAL_SESSIONS
from models.text import compared_read
from models.text.compared_read import read_compared

MEMORIES = sorted([*REAL_SESSIONS.glob("*/TEAM-MEMORY.md"), DEMO / "TEAM-MEMORY.md"])


@pytest.fixture(autouse=True)
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compared_read, "PARALLEL_FROM", 0)
    monkeypatch.setattr(compared_read, "_PIECE", 61)


def _walked(old: bytes, new: bytes) -> tuple[int, int]:
    """(bytes agreeing from the start, from the end), one byte at a time."""
    shorter = min(len(old), len(new))
    prefix = 0
    while prefix < shorter and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < shorter and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return prefix, suffix


def _edited(rng: random.Random, old: bytes) -> bytes:
    """``old`` with a run of bytes put in, taken out or replaced anywhere (the start, the end,
    the middle between the two threads' halves), or left as it was."""
    at = rng.choice([0, len(old), len(old) // 2, rng.randrange(len(old) + 1)])
    cut = rng.choice([0, 1, rng.randrange(1, 200)])
    put = rng.choice([b"", b"-", "- [Finding] 먼저 읽었다\n".encode(), old[at : at + 40]])
    return old[:at] + put + old[at + cut :]


@pytest.mark.parametrize("path", MEMORIES, ids=lambda p: p.parent.name)
def test_the_bytes_and_their_agreement_are_what_a_byte_walk_finds(path: Path, tmp_path: Path) -> None:
    """Every real TEAM-MEMORY and the demo's, edited at random forty times."""
    rng = random.Random(path.parent.name)
    old = path.read_bytes()
    copy = tmp_path / path.name
    for n in range(40):
        new = _edited(rng, old)
        copy.write_bytes(new)
        compared = read_compared(copy, old, 1 << 30)
        assert compared is not None, n
        assert compared.raw == new, n
        assert (compared.prefix, compared.suffix) == _walked(old, new), n
        assert compared.mtime_ns == copy.stat().st_mtime_ns
        old = new


def test_a_file_whose_size_changes_as_it_is_read_is_left_to_the_usual_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grown or cut after its size was taken: None (the caller reads it whole, as before)."""
    path = tmp_path / "TEAM-MEMORY.md"
    old = (DEMO / "TEAM-MEMORY.md").read_bytes()
    opened = compared_read.open_regular
    for change in (b"- [Finding] appended meanwhile\n", b""):

        def changing(p: Path, change: bytes = change) -> object:
            got = opened(p)
            path.write_bytes(old + change if change else old[: len(old) // 3])
            return got

        path.write_bytes(old + b"- [Finding] first\n")
        monkeypatch.setattr(compared_read, "open_regular", changing)
        assert read_compared(path, old, 1 << 30) is None


def test_small_files_and_files_over_the_limit_are_left_to_the_usual_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``PARALLEL_FROM`` a second thread costs more than it saves; over the limit, the
    usual read says why the file is not read."""
    path = tmp_path / "TEAM-MEMORY.md"
    old = (DEMO / "TEAM-MEMORY.md").read_bytes()
    path.write_bytes(old)
    assert read_compared(path, old, len(old) - 1) is None
    monkeypatch.setattr(compared_read, "PARALLEL_FROM", len(old) + 1)
    assert read_compared(path, old, 1 << 30) is None
    monkeypatch.setattr(compared_read, "PARALLEL_FROM", len(old))
    assert read_compared(path, old, 1 << 30) is not None
