"""Where two texts start and stop differing (models.text.common): the follow-ups' first step.
The reference is ``os.path.commonprefix``, on the texts and on their reversals."""

from __future__ import annotations

import os
import random

import pytest

from models.text.common import common_prefix, common_suffix


def _prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))  # noqa: RUF071 -- character by character is the point


def _suffix(a: str, b: str, limit: int | None = None) -> int:
    n = _prefix(a[::-1], b[::-1])
    return n if limit is None else min(n, limit)


def _edited(rng: random.Random, text: str) -> str:
    out = list(text)
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(out))
        roll = rng.random()
        if roll < 0.4:
            out.insert(at, rng.choice("ab—\n"))
        elif out and roll < 0.7:
            del out[min(at, len(out) - 1)]
        elif out:
            out[min(at, len(out) - 1)] = "c"
    return "".join(out)


@pytest.mark.parametrize("size", [0, 1, 2, 7, 4095, 4096, 4097, 50_000])
def test_random_edits_of_every_size(size: int) -> None:
    rng = random.Random(size)
    for _ in range(300 if size < 10_000 else 30):
        a = "".join(rng.choice("ab—\n") for _ in range(size))
        b = _edited(rng, a)
        assert common_prefix(a, b) == _prefix(a, b)
        limit = rng.choice([None, 0, 3, size // 2])
        assert common_suffix(a, b, limit) == _suffix(a, b, limit)


def test_one_change_in_a_large_text_is_found_at_its_place() -> None:
    base = "- item: value — owner\n" * 500_000  # 11 M characters
    at = 6_543_210
    edited = base[:at] + "X" + base[at:]
    assert common_prefix(base, edited) == at == _prefix(base, edited)
    assert common_suffix(base, edited, len(base) - at) == len(base) - at
