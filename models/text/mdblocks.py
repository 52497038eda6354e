"""The few CommonMark block rules the session files need: headings, fences, tables.

A full Markdown parser would also find the headings, but it gives no exact character
ranges and it would cost a dependency at run time. This scanner follows CommonMark where it
matters for section boundaries: ATX headings with at most three spaces of indentation, fenced
code (backticks or tildes, closed by a fence of the same character at least as long; an
unclosed fence runs to the end of the document) and HTML comments. The test suite checks the
headings it finds against markdown-it-py on every real file.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass
from typing import NamedTuple

from models.text.problems import Problem
from models.text.textfile import line_count

# Matched whole (``fullmatch``) against a line's ``line_body``.
_ATX = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)(.*)")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE_OPEN = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")
# A line that may open a block: at the offset given, or after the next line end. A search that
# starts with a literal line end skips ahead at memory speed, where ``^`` under re.M is tried at
# every character (ten times slower on a 14 MB TEAM-MEMORY).
_CANDIDATE_HERE = re.compile(r" {0,3}[#`~<]")
_CANDIDATE_NEXT = re.compile(r"\n {0,3}[#`~<]")
# The same lines for ``scan_text``, where a heading is matched whole (its hashes in group 2,
# its text after them): what ``_ATX`` matches of the line without its ending.
_BLOCK = r"( {0,3})(?:(#{1,6})(?=[ \t]|\r?\n|\r?\Z)|```|~~~|<!--)"
_BLOCK_HERE = re.compile(_BLOCK)
_BLOCK_NEXT = re.compile(r"\n" + _BLOCK)
TABLE_DELIMITER = re.compile(r"^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*\r?\n?$")


class Heading(NamedTuple):
    """An ATX heading: its line index (0-based), level and text with closing #s removed. A
    tuple: a GC has thousands, and a frozen dataclass took three times as long to make."""

    line: int
    level: int
    text: str


@dataclass
class BlockScan:
    """Per-line facts about a Markdown body."""

    headings: list[Heading]
    in_code: list[bool]  # True for fence lines and everything inside a fence or comment
    problems: list[Problem]


def line_body(line: str) -> str:
    """``line`` without its line end: a last ``\\n``, and one ``\\r`` before it (or last of the
    text), which the patterns of a line's parts then match whole. Patterns that ended in a
    lazy ``(.*?)\\r?\\n?$`` tried that ending at every character: 2 µs a heading, four times
    taking the ending off first (3 ms of reading a 2,000-section GC)."""
    if line.endswith("\n"):
        line = line[:-1]
    return line[:-1] if line.endswith("\r") else line


def may_hide_lines(text: str) -> bool:
    """Whether ``text`` may hold a fence or a comment, which can hide the lines after it: a
    reader that finds none need not scan ``text`` for them. Each opener's first character is
    looked for alone first, at memory speed: the three-character searches took 2 ms for the
    sections a memory view shows on opening, most of which hold no such character at all."""
    return ("`" in text and "```" in text) or ("~" in text and "~~~" in text) or ("<" in text and "<!--" in text)


def heading_text(rest: str) -> str:
    """Strip the optional closing sequence of an ATX heading (``## Title ##``)."""
    stripped = rest.strip()
    if not stripped.endswith("#"):  # the usual heading: no closing sequence to look for
        return stripped
    return _CLOSING_HASHES.sub("", stripped).strip()


def scan(
    lines: list[str],
    file: str,
    first_line_number: int = 1,
    joined: tuple[str, list[int]] | None = None,
) -> BlockScan:
    """Find headings and code regions in ``lines`` (each keeping its line end).

    Outside fences and comments only lines that can open a block matter (a ``#``, a fence
    character or ``<`` after at most three spaces); a regular expression over the joined text
    finds them, so a 20,000-line GC is not walked line by line in Python on every reload.
    Inside a fence or a comment, lines are read one by one for its end. A caller that holds
    the text the lines come from passes it as ``joined`` (the text and where each line starts
    in it, one more than the lines): joining 200,000 lines again would copy the file.
    """
    headings: list[Heading] = []
    n = len(lines)
    in_code = [False] * n
    problems: list[Problem] = []
    if joined is None:
        joined = "".join(lines), list(itertools.accumulate(map(len, lines), initial=0))
    text, starts = joined
    at = starts[0]  # the text offset from which lines are still to be read
    end_of_text = starts[-1]
    while True:
        if _CANDIDATE_HERE.match(text, at, end_of_text):
            found = at
        else:
            following = _CANDIDATE_NEXT.search(text, at, end_of_text)
            if following is None:
                break
            found = following.start() + 1
        i = bisect.bisect_right(starts, found) - 1
        line = lines[i]
        at = starts[i + 1]
        if line.lstrip(" ").startswith("#"):  # a heading or nothing: no fence or comment to try
            match = _ATX.fullmatch(line_body(line))
            if match:
                headings.append(Heading(i, len(match.group(1)), heading_text(match.group(2))))
            continue
        opened = _FENCE_OPEN.fullmatch(line_body(line))
        if opened and not (opened.group(2)[0] == "`" and "`" in opened.group(3)):
            end, closed = _fence_end(lines, i, opened.group(2)[0], len(opened.group(2)))
            in_code[i:end] = [True] * (end - i)
            if not closed:
                problems.append(
                    Problem(
                        "warning",
                        file,
                        "code fence is never closed; everything after it is treated as code",
                        i + first_line_number,
                    )
                )
            at = starts[end]
            continue
        if _COMMENT_OPEN.match(line):
            end = i + 1
            if "-->" not in line.split("<!--", 1)[1]:
                while end < n and "-->" not in lines[end]:
                    end += 1
                end = min(end + 1, n)
            in_code[i:end] = [True] * (end - i)
            at = starts[end]
    return BlockScan(headings, in_code, problems)


@dataclass
class TextScan:
    """``scan``'s headings and problems, with where each heading's line starts in the text and
    how many lines the text has."""

    headings: list[Heading]
    offsets: list[int]  # of each heading's line
    problems: list[Problem]
    line_count: int  # of the whole text
    ends_in_code: bool  # the last line lies inside a fence or a comment (or is one's last)


def scan_text(text: str, file: str, first_line_number: int = 1, start: int = 0) -> TextScan:
    """What ``scan`` finds of headings and problems in ``text``, read from the text alone.

    A reader that wants only the headings (TEAM-MEMORY's sections, a GC's read whole) split
    the text into lines for ``scan`` and listed where each starts: on a 200,000-line file,
    50 ms and 200,000 strings, for 400 headings. Here a line is cut out only where a block may open, and lines
    are counted between them at memory speed. The rules are ``scan``'s, and the tests hold the
    two to each other on every real file and on random Markdown. ``start`` is where a line
    starts (a GC's body, below its front matter): the lines before it are counted, not read.
    """
    headings: list[Heading] = []
    offsets: list[int] = []
    problems: list[Problem] = []
    end_of_text = len(text)
    at, line = start, text.count("\n", 0, start)  # the offset of the line still to be read, and its index
    code_until = -1  # where the last fence or comment read ends

    def line_end(offset: int) -> int:  # where the line holding ``offset`` ends (the next one starts)
        return text.find("\n", offset, end_of_text) + 1 or end_of_text

    while True:
        block = _BLOCK_HERE.match(text, at, end_of_text) or _BLOCK_NEXT.search(text, at, end_of_text)
        if block is None:
            break
        found = block.start(1)
        i = line + text.count("\n", at, found)
        stop = line_end(found)
        at, line = stop, i + 1
        hashes = block.group(2)
        if hashes is not None:  # a heading, matched whole: most blocks a GC opens are
            headings.append(Heading(i, len(hashes), heading_text(line_body(text[block.end() : stop]))))
            offsets.append(found)
            continue
        content = text[found:stop]
        opened = _FENCE_OPEN.fullmatch(line_body(content))
        if opened and not (opened.group(2)[0] == "`" and "`" in opened.group(3)):
            char, length = opened.group(2)[0], len(opened.group(2))
            closed = False
            while at < end_of_text and not closed:
                following_line = line_end(at)
                closed = _closes(text[at:following_line], char, length)
                at, line = following_line, line + 1
            if not closed:
                message = "code fence is never closed; everything after it is treated as code"
                problems.append(Problem("warning", file, message, i + first_line_number))
            code_until = at
            continue
        if _COMMENT_OPEN.match(content):
            if "-->" not in content.split("<!--", 1)[1]:
                close = text.find("-->", at, end_of_text)
                after = end_of_text if close < 0 else line_end(close)
                at, line = after, line + text.count("\n", at, after)
            code_until = at
    ends_in_code = start < end_of_text and code_until == end_of_text
    return TextScan(headings, offsets, problems, line_count(text), ends_in_code)


def _closes(line: str, char: str, length: int) -> bool:
    """Whether ``line`` (a line after the opening one) closes a fence of ``length`` ``char``s."""
    stripped = line.rstrip("\r\n")
    indent = len(stripped) - len(stripped.lstrip(" "))
    body = stripped.strip()
    return indent <= 3 and bool(body) and set(body) == {char} and len(body) >= length


def _fence_end(lines: list[str], opening: int, char: str, length: int) -> tuple[int, bool]:
    """The line after the fence's closing line and True; the end of the lines and False when
    it never closes (everything after it is code)."""
    for j in range(opening + 1, len(lines)):
        if _closes(lines[j], char, length):
            return j + 1, True
    return len(lines), False


def split_table_row(line: str) -> list[str]:
    """Cells of a pipe-table row, honouring ``\\|`` escapes and code spans."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells: list[str] = []
    current: list[str] = []
    in_code = False
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            current.append("\\|")
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    cells.append("".join(current).strip())
    return cells


def is_table_row(line: str) -> bool:
    """A line that can belong to a pipe table."""
    return line.lstrip(" ").startswith("|")
