"""Issue 18: the Markdown scanner finds block starts with one regular expression over the text
instead of a Python loop over every line. It must find exactly what the line-by-line scanner
found (kept here as the reference) on every real file and on random Markdown made of the
constructs that decide section boundaries."""

from __future__ import annotations

import random
import re

from conftest import ROOT, SHARED
from models.text import mdblocks
from models.text.problems import Problem
from models.text.textfile import split_lines

_BLOCK_STARTS = frozenset("`~<#")
# The patterns as the scanner had them, matched against the whole line with its ending.
_ATX = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|\r?\n?$)(.*?)\r?\n?$")
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*?)\r?\n?$")
_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")
ATOMS = [
    "# h\n", "## h2 ##\n", "   ### x\n", "    # not\n", "```\n", "```py\n", "~~~\n", "````\n", "``` a`b\n",
    "<!-- c\n", "-->\n", "<!-- one -->\n", "text\n", "\t```\n", "  ```  \n", "<div>\n", "#nospace\n", "- a\n",
    "", "x -->\n", "\r\n", "# cr\r\n", "  ~~~~  \n", " <!--x-->y\n", "#", "```", "#\r\r\n", "## a\r\r\n",
    "#\r", "## b\rc\n", "```\r\r\n", "~~~ x\r",
]  # fmt: skip


def _reference_scan(lines: list[str], first_line_number: int) -> tuple[object, ...]:
    """The scanner as it was, walking every line: the independent reading of the rules."""
    headings: list[mdblocks.Heading] = []
    in_code = [False] * len(lines)
    problems: list[Problem] = []
    fence: tuple[str, int, int] | None = None  # (char, length, opening line index)
    in_comment = False
    for i, line in enumerate(lines):
        if fence is not None:
            in_code[i] = True
            stripped = line.rstrip("\r\n")
            indent = len(stripped) - len(stripped.lstrip(" "))
            body = stripped.strip()
            char, length, _ = fence
            if indent <= 3 and body and set(body) == {char} and len(body) >= length:
                fence = None
            continue
        if in_comment:
            in_code[i] = True
            if "-->" in line:
                in_comment = False
            continue
        first = line[:4].lstrip(" ")[:1]
        if first not in _BLOCK_STARTS:
            continue  # most lines: no fence, comment or heading can start here
        opened = _FENCE_OPEN.match(line)
        if opened and not (opened.group(2)[0] == "`" and "`" in opened.group(3)):
            fence = (opened.group(2)[0], len(opened.group(2)), i)
            in_code[i] = True
            continue
        if _COMMENT_OPEN.match(line):
            in_code[i] = True
            in_comment = "-->" not in line.split("<!--", 1)[1]
            continue
        match = _ATX.match(line)
        if match:
            headings.append(mdblocks.Heading(i, len(match.group(1)), mdblocks.heading_text(match.group(2))))
    if fence is not None:
        problems.append(
            Problem(
                "warning",
                "f",
                "code fence is never closed; everything after it is treated as code",
                fence[2] + first_line_number,
            )
        )
    return ([(h.line, h.level, h.text) for h in headings], in_code, [str(p) for p in problems])


def _scanned(lines: list[str], first_line_number: int) -> tuple[object, ...]:
    scan = mdblocks.scan(lines, "f", first_line_number)
    return ([(h.line, h.level, h.text) for h in scan.headings], scan.in_code, [str(p) for p in scan.problems])


def test_every_real_markdown_file_scans_as_line_by_line() -> None:
    files = sorted([*SHARED.rglob("*.md"), *(ROOT / "resources").rglob("*.md")])
    assert len(files) > 100
    for path in files:
        lines = split_lines(path.read_text(encoding="utf-8", errors="replace"))
        assert _scanned(lines, 3) == _reference_scan(lines, 3), path


def test_random_markdown_scans_as_line_by_line() -> None:
    rng = random.Random(18)
    fences = 0
    for _ in range(20_000):
        lines = split_lines("".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 30))))
        expected = _reference_scan(lines, 1)
        assert _scanned(lines, 1) == expected, "".join(lines)
        fences += bool(expected[2])
    assert fences > 1000  # unclosed fences were among the cases


def test_may_hide_lines_answers_as_the_three_searches_it_replaces() -> None:
    """``may_hide_lines`` looks for each opener's first character before the opener; its
    answer must be the plain searches' on every real file and on random text that holds the
    first characters alone, in pairs and whole openers."""
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SHARED.rglob("*.md"))]
    rng = random.Random(18)
    pieces = ["`", "``", "~", "~~", "<", "<!", "<!-", "-->", "a", "\n", *ATOMS]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(20_000)]
    answers = [("```" in t or "~~~" in t or "<!--" in t, mdblocks.may_hide_lines(t)) for t in texts]
    assert all(expected == got for expected, got in answers)
    assert 2_000 < sum(expected for expected, _ in answers) < len(texts) - 2_000  # both answers common


def _text_scanned(lines: list[str], first_line_number: int, skip: int = 0) -> tuple[object, ...]:
    """``scan_text``'s reading of the joined lines from line ``skip`` on, in the reference's
    terms (lines counted from ``skip``); the offsets must be where each heading's line starts,
    the line count the whole text's."""
    text = "".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    scan = mdblocks.scan_text(text, "f", first_line_number, start=starts[skip])
    assert scan.offsets == [starts[h.line] for h in scan.headings]
    assert scan.line_count == len(lines)
    headings = [(h.line - skip, h.level, h.text) for h in scan.headings]
    return (headings, [str(p) for p in scan.problems], scan.ends_in_code)


def test_the_text_scan_finds_what_the_line_scan_finds() -> None:
    """Issue 18: TEAM-MEMORY's and the GC's headings are read from the text alone
    (``scan_text``), with no list of lines. Its headings, their lines and offsets, its problems,
    whether the last line is code and its line count are the line-by-line reference's, from
    the first line and from a later one, on every real file and on random Markdown (which holds
    unclosed fences and comments, CRLF and text with no last line end)."""
    files = sorted([*SHARED.rglob("*.md"), *(ROOT / "resources").rglob("*.md")])
    cases = [split_lines(path.read_text(encoding="utf-8", errors="replace")) for path in files]
    rng = random.Random(18)
    cases += [split_lines("".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 30)))) for _ in range(20_000)]
    headings = ends_in_code = 0
    for lines in cases:
        for skip in (0, len(lines) // 3):  # the whole text, and from a line on (a GC's body)
            reference = _reference_scan(lines[skip:], 2 + skip)
            in_code = reference[1]
            assert isinstance(in_code, list)
            expected = (reference[0], reference[2], bool(in_code) and in_code[-1])
            assert _text_scanned(lines, 2, skip) == expected, ("".join(lines), skip)
            headings += len(reference[0])
            ends_in_code += expected[2]
    assert headings > 20_000 and ends_in_code > 1000
