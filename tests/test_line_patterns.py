"""Issue 18: the patterns of a line's parts (headings, fences, GC items) match the line without
its ending, taken off first (``mdblocks.line_body``), instead of ending in a lazy
``(.*?)\\r?\\n?$`` that tried the ending at every character. The patterns as they were are
kept here: on every line of every real file and on random lines made of what the patterns
look for (carriage returns anywhere among them), each must match where it did and find the
same parts."""

from __future__ import annotations

import random
import re

from conftest import ROOT, SHARED
from models.session import gc_items
from models.text import mdblocks
from models.text.mdblocks import line_body
from models.text.textfile import split_lines

OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|\r?\n?$)(.*?)\r?\n?$")
OLD_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*?)\r?\n?$")
OLD_BULLET = re.compile(r"^(?P<indent> {0,3})(?P<mark>[-*+]|\d{1,9}[.)])[ \t]+(?P<content>.*?)\r?\n?$")
OLD_BOLD_KEY = re.compile(r"^\*\*(?P<key>[^*\n]+?)(?::\*\*|\*\*[ \t]*:)[ \t]*(?P<value>.*?)\r?\n?$")
OLD_PLAIN_KEY = re.compile(r"^(?P<key>[^:`*\n]{1,80}?):(?:[ \t]+(?P<value>.*?))?\r?\n?$")

PAIRS = [
    (OLD_ATX, mdblocks._ATX),
    (OLD_FENCE_OPEN, mdblocks._FENCE_OPEN),
    (OLD_BULLET, gc_items._BULLET),
    (OLD_BOLD_KEY, gc_items._BOLD_KEY),
    (OLD_PLAIN_KEY, gc_items._PLAIN_KEY),
]
PIECES = [
    "#",
    "##",
    " ",
    "   ",
    "\t",
    "\r",
    "`",
    "```",
    "~~~",
    "-",
    "*",
    "**",
    "+",
    "1.",
    "2)",
    ":",
    "a",
    "key",
    "é",
    "漢",
    "#x",
]
ENDINGS = ["", "\n", "\r\n", "\r", "\r\r\n", "\r\r", " \n", "\t\r\n"]


def _real_lines() -> list[str]:
    lines: set[str] = set()
    for folder in (SHARED / "sessions", SHARED / "gsd-projects", ROOT / "resources"):
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix in (".md", ".yaml", ".yml"):
                lines.update(split_lines(path.read_text(encoding="utf-8", errors="replace")))
    return sorted(lines)


def _random_lines(count: int) -> list[str]:
    rng = random.Random(18)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8))) + rng.choice(ENDINGS) for _ in range(count)]


def _agree(lines: list[str]) -> int:
    """How many lines some pattern matched; fails on the first line a pair reads apart."""
    matched = 0
    for line in lines:
        # A bullet's content is what the key patterns read: as the line itself, those too.
        candidates = [line]
        bullet = OLD_BULLET.match(line)
        if bullet:
            candidates.append(bullet.group("content"))
        for text in candidates:
            for old, new in PAIRS:
                before = old.match(text)
                after = new.fullmatch(line_body(text))
                assert (before is None) == (after is None), (old.pattern, text)
                if before is not None and after is not None:
                    assert before.groups() == after.groups(), (old.pattern, text)
                    matched += 1
    return matched


def test_every_real_line_matches_as_before() -> None:
    lines = _real_lines()
    assert len(lines) > 5000
    assert _agree(lines) > 2000


def test_random_lines_with_carriage_returns_anywhere_match_as_before() -> None:
    lines = _random_lines(30_000)
    assert sum("\r" in line[:-2] for line in lines) > 1000  # inside a line, not only its ending
    assert _agree(lines) > 5000


def test_a_line_body_loses_its_ending_and_nothing_else() -> None:
    """Read off the rule: a last LF, then one CR before it (or last of all)."""
    assert line_body("## a\n") == "## a"
    assert line_body("## a\r\n") == "## a"
    assert line_body("## a\r\r\n") == "## a\r"
    assert line_body("## a\r") == "## a"
    assert line_body("## a") == "## a"
    assert line_body("a\rb\n") == "a\rb"
    assert line_body("\n") == "" and line_body("") == ""
