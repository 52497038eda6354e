"""An entry's first line is read by one regular expression when it has the common form; the
general reader (``_BULLET`` then ``_strip_markers``) is the reference it must agree with on
every line of the real files, on forms written to trip it, and on random lines."""

from __future__ import annotations

import random

import pytest

from conftest import DEMO, REAL_SESSIONS
from models.session.team_memory import _BULLET, _first_line, _strip_markers

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
    bullet = _BULLET.match(line)
    return _strip_markers(bullet.group("content") if bullet else line.strip())


@pytest.mark.parametrize("line", TRICKY)
def test_a_tricky_line_reads_as_the_general_reader_reads_it(line: str) -> None:
    assert _first_line(line) == _reference(line)


def test_every_line_of_the_real_files_reads_as_the_general_reader_reads_it() -> None:
    assert len(REAL_LINES) > 3000  # the real sessions are there
    assert [_first_line(line) for line in REAL_LINES] == [_reference(line) for line in REAL_LINES]


def test_random_lines_read_as_the_general_reader_reads_them() -> None:
    rng = random.Random(18)
    pieces = ["- ", "* ", "[", "]", "Finding", "ARCHIVED", "a", " ", "\t", "*", "**", "\r", "\u00a0", "x y", "1"]
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 9))) + "\n" for _ in range(20_000)]
    assert [_first_line(line) for line in lines] == [_reference(line) for line in lines]
