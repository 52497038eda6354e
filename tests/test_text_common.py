"""Where two texts start differing, and whether they agree after given places
(models.text.common): the follow-ups' first step. The references are ``os.path.commonprefix``
and a comparison of the two tails character by character."""

from __future__ import annotations

import os
import random

import pytest

from models.text.common import common_prefix, common_prefix_bytes, common_suffix_bytes, same_after


def _prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))  # noqa: RUF071 -- character by character is the point


def _same_after(a: str, i: int, b: str, j: int) -> bool:
    tail_a, tail_b = list(a)[i:], list(b)[j:]
    return len(tail_a) == len(tail_b) and all(x == y for x, y in zip(tail_a, tail_b, strict=True))


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
    outcomes = set()
    for _ in range(300 if size < 10_000 else 30):
        a = "".join(rng.choice("ab—\n") for _ in range(size))
        b = _edited(rng, a)
        assert common_prefix(a, b) == _prefix(a, b)
        i = rng.randint(0, len(a))
        j = max(0, min(len(b), i + len(b) - len(a) + rng.choice([0, 0, -1, 1])))
        outcomes.add(same_after(a, i, b, j))
        assert same_after(a, i, b, j) == _same_after(a, i, b, j)
    assert outcomes == {True, False} or size < 2  # both answers were checked


@pytest.mark.parametrize("size", [0, 1, 2, 4095, 4096, 4097, 50_000])
def test_bytes_agree_from_the_start_and_the_end_as_far_as_a_byte_walk_says(size: int) -> None:
    """``common_prefix_bytes`` and ``common_suffix_bytes`` against ``os.path.commonprefix`` of
    the bytes and of the bytes reversed."""
    rng = random.Random(size)
    for _ in range(100 if size < 10_000 else 20):
        a = "".join(rng.choice("ab—\n") for _ in range(size)).encode("utf-8")
        b = _edited(rng, a.decode("utf-8")).encode("utf-8")
        assert common_prefix_bytes(a, b) == len(os.path.commonprefix([a, b]))  # noqa: RUF071
        assert common_suffix_bytes(a, b) == len(os.path.commonprefix([a[::-1], b[::-1]]))  # noqa: RUF071


def test_one_change_in_a_large_text_is_found_at_its_place() -> None:
    base = "- item: value — owner\n" * 500_000  # 11 M characters
    at = 6_543_210
    edited = base[:at] + "X" + base[at:]
    assert common_prefix(base, edited) == at == _prefix(base, edited)
    assert same_after(base, at, edited, at + 1) and not same_after(base, at - 1, edited, at)


@pytest.mark.parametrize("offset", [0, 1, 65_535, 65_536, 65_537, 131_071, 196_609])
def test_a_change_at_either_side_of_a_piece_boundary_is_seen(offset: int) -> None:
    """``same_after`` compares in pieces of 65,536 characters counted from ``old_at``; one
    character changed just before, at or after a piece's end is seen from any start."""
    rng = random.Random(offset)
    base = "".join(rng.choice("ab—\n") for _ in range(3 * 65_536 + 7))
    for start in (0, 3, 65_535):
        changed = start + offset
        if changed >= len(base):
            continue
        edited = base[:changed] + ("c" if base[changed] != "c" else "d") + base[changed + 1 :]
        assert same_after(base, start, edited, start) is False is _same_after(base, start, edited, start)
        grown = "xy" + base
        assert same_after(base, start, grown, start + 2) is True is _same_after(base, start, grown, start + 2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "\n"),
        ("a\nb\n", "\n"),
        ("a\r\nb\r\n", "\r\n"),
        ("a\rb\nc", "\n"),  # a lone carriage return is no line end
        ("a\rb\r\nc\n", "\r\n"),  # a pair after a lone one
        ("x — y\n" * 100 + "z\r\n", "\r\n"),  # past non-ASCII text, at the very end
        ("\r", "\n"),
    ],
)
def test_the_line_end_a_write_keeps_is_crlf_exactly_when_the_text_holds_one(text: str, expected: str) -> None:
    """``newline_of`` finds the lone character first (at memory speed); its answer is the
    definition's: ``\\r\\n`` when the text holds the pair anywhere."""
    from models.text.textfile import newline_of

    assert newline_of(text) == expected
