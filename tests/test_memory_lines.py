"""An entry's first line is read by one regular expression when it has the common form; the
general reader (``BULLET`` then ``strip_markers``) is the reference it must agree with on
every line of the real files, on forms written to trip it, and on random lines."""

from __future__ import annotations

import random

import pytest

from conftest import DEMO, REAL_SESSIONS
from models.session.memory_entries import (
    BRACKET,
    BULLET,
    KNOWN_NAMES,
    UNKNOWN_BRACKET,
    count_entries,
    first_line,
    read_entries,
    strip_markers,
)
from models.session.memory_parse import parse_memory
from models.session.team_memory import MemorySection

REAL_LINES = sorted(
    {
        line
        for path in [*REAL_SESSIONS.rglob("*.md"), *DEMO.rglob("*.md")]
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        if line.strip()
    }
)

TRICKY = [
    "- [Finding] plain\n",
    "- [finding]   lower case, spaces\r\n",
    "- [ARCHIVED] [Decision] both\n",
    "- [Archived] only archived\n",
    "- [Decision] [ARCHIVED] other order\n",
    "- **[Warning]** bold marker\n",
    "- [Tag ] trailing space in the name\n",
    "- [Tag]no space after\n",
    "- [Tag]\n",
    "- [Tag] [not a tag because of !]\n",
    "- [1abc] not a name\n",
    "-\t[Pattern]\ttabs\n",
    "* [Question] star bullet\n",
    "+ plus bullet without tag\n",
    "- \u00a0[Finding] a no-break space\n",
    "- text with a\rcarriage return inside\n",
    "- *emphasis* first\n",
    "- ",
    "-  \n",
    "not a bullet [Finding]\n",
    "  - [Finding] indented bullet\n",
    "- [Finding] ends without a newline",
    "- [" + "x" * 31 + "] name too long\n",
    "- [Finding]\u2003em space after\n",
]


def _reference(line: str) -> tuple[str, str | None, bool]:
    bullet = BULLET.match(line)
    return strip_markers(bullet.group("content") if bullet else line.strip())


@pytest.mark.parametrize("line", TRICKY)
def test_a_tricky_line_reads_as_the_general_reader_reads_it(line: str) -> None:
    assert first_line(line) == _reference(line)


def test_every_line_of_the_real_files_reads_as_the_general_reader_reads_it() -> None:
    assert len(REAL_LINES) > 3000  # the real sessions are there
    assert [first_line(line) for line in REAL_LINES] == [_reference(line) for line in REAL_LINES]


def test_random_lines_read_as_the_general_reader_reads_them() -> None:
    rng = random.Random(18)
    pieces = ["- ", "* ", "[", "]", "Finding", "ARCHIVED", "a", " ", "\t", "*", "**", "\r", "\u00a0", "x y", "1"]
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 9))) + "\n" for _ in range(20_000)]
    assert [first_line(line) for line in lines] == [_reference(line) for line in lines]


def _bodies_of_real_files() -> list[str]:
    bodies = []
    for path in [*REAL_SESSIONS.rglob("*.md"), *DEMO.rglob("*.md")]:
        text = path.read_text(encoding="utf-8", errors="replace")
        bodies += [s.body for s in parse_memory(text).sections]
    return bodies


def _read_count(body: str) -> int:
    """The reference: how many entries the reader makes of ``body``."""
    return len(read_entries.__wrapped__(body, False)[0])


def test_a_section_counts_its_entries_as_many_as_it_reads() -> None:
    """The count shown before a section's entries are read (``count_entries``) is the number
    the reader makes, on every section of the real files and on random bodies built of the
    lines that decide it: blank ones (spaces, tabs, CR, a no-break space), ones led by a space
    or tab, and others."""
    real = [b for b in _bodies_of_real_files() if count_entries(b) is not None]
    assert len(real) > 100
    assert [count_entries(b) for b in real] == [_read_count(b) for b in real]
    rng = random.Random(1818)
    lines = ["\n", "  \n", "\t\n", "\r\n", "\u00a0\n", " \u00a0 \n", "- a\n", "- [Finding] b\r\n", "  more\n",
             "\tmore\n", " \u00a0x\n", "\u00a0lead\n", "\rx\n", "plain\n", "- last"]  # fmt: skip
    bodies = ["".join(rng.choice(lines) for _ in range(rng.randrange(0, 12))) for _ in range(5_000)]
    assert [count_entries(b) for b in bodies] == [_read_count(b) for b in bodies]


def test_a_body_with_a_fence_or_comment_is_counted_by_reading_it() -> None:
    for body in ("- a\n```\n- b\n```\n", "- a\n<!-- - b -->\n", "~~~\n- x\n"):
        assert count_entries(body) is None
        section = parse_memory(f"# TEAM-MEMORY\n## r\n{body}").sections[0]
        assert section.entry_count == len(section.entries)


def _section(body: str) -> MemorySection:
    return parse_memory(f"# TEAM-MEMORY\n## r\n{body}").sections[0]


def test_whether_a_section_has_entries_is_what_the_reader_says() -> None:
    """``has_entries`` (the tree's expander, asked of every section row) answers without
    counting; the reader is the reference, on every real section and on random bodies with
    blank lines of every kind, fences and comments, leading or following an entry."""
    real = _bodies_of_real_files()
    assert [_section(b).has_entries for b in real] == [_read_count(b) > 0 for b in real]
    rng = random.Random(1819)
    lines = ["\n", "  \n", "\t\n", "\r\n", "\u00a0\n", " \u00a0 \n", "- a\n", "  more\n", "\u00a0lead\n",
             "```\n", "```python\n", "~~~\n", "<!-- note\n", "-->\n", "- x <!-- y -->\n", "code\n"]  # fmt: skip
    bodies = ["".join(rng.choice(lines) for _ in range(rng.randrange(0, 8))) for _ in range(5_000)]
    assert sum(_read_count(b) == 0 for b in bodies) > 500  # empty ones, and ones all fence or comment
    assert [_section(b).has_entries for b in bodies] == [_read_count(b) > 0 for b in bodies]


def test_unknown_tags_are_found_without_reading_when_every_bracket_is_known() -> None:
    text = "# TEAM-MEMORY\n## r\n- [Finding] a [Decision] in text\n- [ARCHIVED] [pattern] b\n## s\n- [Odd] c [x]\n"
    known, odd = parse_memory(text).sections
    assert known.unknown_tags() == frozenset() and known._entries is None
    assert odd.unknown_tags() == frozenset({"Odd"}) and odd._entries is not None


def _unknown_reference(body: str) -> bool:
    """Whether ``body`` holds a bracket whose name is no known tag, as the entries' readers
    compare names: stripped and lower-cased."""
    return not all(name.strip().lower() in KNOWN_NAMES for name in BRACKET.findall(body))


_NAMES = [
    *sorted(KNOWN_NAMES),
    "FINDING",
    "Finding   ",
    "Finding" + " " * 24,  # 31 characters: still a name
    "Finding" + " " * 25,  # 32: not a name at all
    "Findings",
    "Find ing",
    "F\u0131nding",  # a dotless i
    "Fİnding",
    "Wa\u212arning",  # a Kelvin sign, which re.IGNORECASE takes for k
    "Que\u017ftion",  # a long s, which re.IGNORECASE takes for s
    "Custom",
    "x" * 31,
    "x" * 32,
    "1abc",
    "Tag!",
]


def test_one_search_finds_a_tag_outside_the_list_as_reading_every_name_does() -> None:
    """``MemorySection.unknown_tags`` asks one search (``UNKNOWN_BRACKET``) instead of reading
    every bracket's name; on real files and on random bodies of tricky names, both agree."""
    rng = random.Random(18)
    bodies = ["".join(REAL_LINES), *TRICKY]
    for _ in range(3000):
        parts = [rng.choice(["[", "]", " text ", "- ", "\n", f"[{rng.choice(_NAMES)}]"]) for _ in range(6)]
        bodies.append("".join(parts))
    bodies += [f"- [{name}] entry\n" for name in _NAMES]
    outcomes = set()
    for body in bodies:
        expected = _unknown_reference(body)
        outcomes.add(expected)
        assert (UNKNOWN_BRACKET.search(body) is not None) == expected, body
    assert outcomes == {True, False}
