"""A GC section's keyed items: bullets, bold-key paragraphs and table rows.

Read from one section's own text at a time (a section boundary is never inside a code fence),
memoised by that text: a reload after an agent edited one section reads that section's items
again, and no other's.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from models.session.refs import norm
from models.text import mdblocks
from models.text.mdblocks import line_body
from models.text.textfile import line_starts as starts_of
from models.text.textfile import split_lines

ItemKind = Literal["bullet", "bold", "table"]

# Matched whole (``fullmatch``) against a line's ``line_body`` (see there why).
_BULLET = re.compile(r"(?P<indent> {0,3})(?P<mark>[-*+]|\d{1,9}[.)])[ \t]+(?P<content>.*)")
_BOLD_KEY = re.compile(r"\*\*(?P<key>[^*\n]+?)(?::\*\*|\*\*[ \t]*:)[ \t]*(?P<value>.*)")
_BULLET_STARTS = frozenset("-*+0123456789")
_PLAIN_KEY = re.compile(r"(?P<key>[^:`*\n]{1,80}?):(?:[ \t]+(?P<value>.*))?")


@dataclass(eq=False, slots=True)
class Item:
    """A keyed line (with its continuation lines) that a delta can add, change or remove."""

    key: str
    value: str
    kind: ItemKind
    line: int  # 0-based index of the first line in the file
    end_line: int  # exclusive
    start: int  # character offsets into the file's text
    end: int


_RelItem = tuple[str, str, ItemKind, int, int, int, int]


@functools.lru_cache(maxsize=32_768)
def section_body(own_text: str) -> tuple[tuple[_RelItem, ...], tuple[str, ...]]:
    """Items (positions relative to the heading) and duplicate keys of one section's text.

    A section boundary is never inside a code fence (a heading in a fence is no heading), so
    a section can be scanned on its own; memoised by text, a reload after an agent edited one
    section re-parses that section only.
    """
    lines = split_lines(own_text)
    # Where no fence or comment can open (most sections), no scan: it is a third of the work.
    in_code = mdblocks.scan(lines, "").in_code if mdblocks.may_hide_lines(own_text) else [False] * len(lines)
    items = parse_items(lines, 1, len(lines), in_code, starts_of(lines))
    keys = [norm(it.key) for it in items]
    counts = Counter(keys)
    duplicates = tuple(it.key for it, key in zip(items, keys, strict=True) if counts[key] > 1)
    rel = tuple((it.key, it.value, it.kind, it.line, it.end_line, it.start, it.end) for it in items)
    return rel, duplicates


@functools.lru_cache(maxsize=32_768)
def section_keys(own_text: str) -> frozenset[str]:
    """The normalised keys of a section's own text, memoised: the loss check asks every section."""
    return frozenset(norm(key) for key, *_ in section_body(own_text)[0])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def parse_items(lines: list[str], start: int, end: int, in_code: list[bool], line_starts: list[int]) -> list[Item]:
    """Keyed lines of one section body: bullets, bold-key paragraphs and table rows."""
    items: list[Item] = []

    def add(key: str, value: str, kind: ItemKind, first: int, stop: int) -> None:
        key = key.strip().strip("*").strip()
        if key:
            items.append(Item(key, value.strip(), kind, first, stop, line_starts[first], line_starts[stop]))

    i = start
    while i < end:
        line = lines[i]
        if in_code[i] or not line.strip():
            i += 1
            continue
        if (
            mdblocks.is_table_row(line)
            and i + 1 < end
            and not in_code[i + 1]
            and mdblocks.TABLE_DELIMITER.match(lines[i + 1])
        ):
            j = i + 2
            while j < end and not in_code[j] and mdblocks.is_table_row(lines[j]):
                cells = mdblocks.split_table_row(lines[j])
                add(cells[0], " | ".join(cells[1:]), "table", j, j + 1)
                j += 1
            i = j
            continue
        bullet = _BULLET.fullmatch(line_body(line)) if line.lstrip(" ")[:1] in _BULLET_STARTS else None
        if bullet:
            j = _bullet_end(lines, i, end, _indent(line))
            content = bullet.group("content")
            content = line_body(content)  # a line ending in two CRs keeps one in its content
            kv = _BOLD_KEY.fullmatch(content) if content.startswith("**") else _PLAIN_KEY.fullmatch(content)
            if kv:
                add(kv.group("key"), kv.group("value") or "", "bullet", i, j)
            i = j
            continue
        bold = _BOLD_KEY.fullmatch(line_body(line)) if line.startswith("**") else None
        if bold:
            j = i + 1
            if bold.group("value"):
                while (
                    j < end
                    and lines[j].strip()
                    and not in_code[j]
                    and not _BULLET.fullmatch(line_body(lines[j]))
                    and not _BOLD_KEY.fullmatch(line_body(lines[j]))
                    and not mdblocks.is_table_row(lines[j])
                ):
                    j += 1
            else:  # "**In Scope:**" followed by its list: the block up to a blank line
                while j < end and (lines[j].strip() or in_code[j]):
                    j += 1
            add(bold.group("key"), bold.group("value"), "bold", i, j)
            i = j
            continue
        i += 1
    return items


def _bullet_end(lines: list[str], i: int, end: int, indent: int) -> int:
    """First line after a bullet's continuation (deeper-indented lines, blank lines inside)."""
    j = i + 1
    last = j
    while j < end:
        line = lines[j]
        if not line.strip():
            j += 1
            continue
        if _indent(line) > indent:
            j += 1
            last = j
            continue
        break
    return last
