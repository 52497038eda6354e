"""The few CommonMark block rules the session files need: headings, fences, tables.

A full Markdown parser would also find the headings, but it gives no exact character
ranges and it would cost a dependency at run time. This scanner follows CommonMark where it
matters for section boundaries: ATX headings with at most three spaces of indentation, fenced
code (backticks or tildes, closed by a fence of the same character at least as long; an
unclosed fence runs to the end of the document) and HTML comments. The test suite checks the
headings it finds against markdown-it-py on every real file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from models.text.problems import Problem

_ATX = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|\r?\n?$)(.*?)\r?\n?$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*?)\r?\n?$")
_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")
_BLOCK_STARTS = frozenset("`~<#")
TABLE_DELIMITER = re.compile(r"^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*\r?\n?$")


@dataclass(frozen=True)
class Heading:
    """An ATX heading: its line index (0-based), level and text with closing #s removed."""

    line: int
    level: int
    text: str


@dataclass
class BlockScan:
    """Per-line facts about a Markdown body."""

    headings: list[Heading]
    in_code: list[bool]  # True for fence lines and everything inside a fence or comment
    problems: list[Problem]


def heading_text(rest: str) -> str:
    """Strip the optional closing sequence of an ATX heading (``## Title ##``)."""
    return _CLOSING_HASHES.sub("", rest.strip()).strip()


def scan(lines: list[str], file: str, first_line_number: int = 1) -> BlockScan:
    """Find headings and code regions in ``lines`` (each keeping its line end)."""
    headings: list[Heading] = []
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
            headings.append(Heading(i, len(match.group(1)), heading_text(match.group(2))))
    if fence is not None:
        problems.append(
            Problem(
                "warning",
                file,
                "code fence is never closed; everything after it is treated as code",
                fence[2] + first_line_number,
            )
        )
    return BlockScan(headings, in_code, problems)


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
