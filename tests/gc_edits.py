"""Single edits of a real GC, made line by line without the app's parser (an independent
reading): what a Lead or an agent does to a GC between two versions."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

_HEADING = re.compile(r"^(#{2,6})[ \t]+\S")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _outside_fences(lines: list[str]) -> list[bool]:
    out, fenced = [], False
    for line in lines:
        if _FENCE.match(line):
            out.append(False)
            fenced = not fenced
            continue
        out.append(not fenced)
    return out


def _front_end(lines: list[str]) -> int:
    if lines and lines[0].rstrip("\r\n") == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip("\r\n") in ("---", "..."):
                return i + 1
    return 0


def headings(lines: list[str]) -> list[int]:
    ok = _outside_fences(lines)
    start = _front_end(lines)
    return [i for i in range(start, len(lines)) if ok[i] and _HEADING.match(lines[i])]


def _nl(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _item_runs(lines: list[str]) -> list[list[int]]:
    """Runs of consecutive one-line bullets ``- key: value`` / table body rows, outside fences."""
    ok = _outside_fences(lines)
    runs: list[list[int]] = []
    run: list[int] = []
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        keyed = ok[i] and (
            re.match(r"^- (\*\*[^*]+\*\*|[A-Za-z0-9][^:`*]{0,60}): \S", body)
            or (
                body.startswith("|")
                and not re.match(r"^\|[\s:|-]+\|?$", body)
                and i > 1
                and lines[i - 1].startswith("|")
            )
        )
        if keyed:
            run.append(i)
        else:
            if len(run) >= 2:
                runs.append(run)
            run = []
    if len(run) >= 2:
        runs.append(run)
    return runs


def edits(text: str) -> Iterator[tuple[str, str]]:
    """``(name, new_text)`` for each kind of single edit this GC allows."""
    lines = _lines(text)
    nl = _nl(text)
    heads = headings(lines)
    runs = _item_runs(lines)
    front = _front_end(lines)
    version = next((i for i in range(front) if lines[i].startswith("version:")), None)
    if version is not None:
        m = re.search(r"GC-v(\d+)", lines[version])
        if m:
            bumped = lines[version].replace(m.group(0), f"GC-v{int(m.group(1)) + 1}")
            yield "version bump only", "".join([*lines[:version], bumped, *lines[version + 1 :]])
    if front:
        yield "front matter key added", "".join([*lines[: front - 1], f"reviewer: lead{nl}", *lines[front - 1 :]])
    for n, run in enumerate(runs[:3]):
        first, middle, last = run[0], run[len(run) // 2], run[-1]
        line = lines[middle]
        body = line.rstrip("\r\n")
        changed = body + " (revised)" + line[len(body) :]
        yield f"run {n}: item changed", "".join([*lines[:middle], changed, *lines[middle + 1 :]])
        words = body.rsplit(" ", 1)
        if len(words) == 2 and words[1]:
            spaced = words[0] + "  " + words[1] + line[len(body) :]
            yield f"run {n}: doubled space", "".join([*lines[:middle], spaced, *lines[middle + 1 :]])
        yield f"run {n}: item removed", "".join(lines[:middle] + lines[middle + 1 :])
        new = _new_item(lines[first], nl, n)
        yield f"run {n}: item inserted in the middle", "".join([*lines[:middle], new, *lines[middle:]])
        yield f"run {n}: item appended", "".join([*lines[: last + 1], new, *lines[last + 1 :]])
        yield f"run {n}: item inserted first", "".join([*lines[:first], new, *lines[first:]])
    if len(heads) >= 3:
        a, b = heads[1], heads[2]
        level = len(_HEADING.match(lines[a]).group(1))  # type: ignore[union-attr]
        block = [f"{'#' * level} Added Section{nl}", nl, f"- Owner: lead{nl}", nl]
        yield "section added", "".join(lines[:b] + block + lines[b:])
        yield "section removed", "".join(lines[:a] + lines[b:])
        renamed = lines[a].rstrip("\r\n") + " (renamed)" + lines[a][len(lines[a].rstrip("\r\n")) :]
        yield "heading renamed", "".join([*lines[:a], renamed, *lines[a + 1 :]])
        section_b_end = heads[3] if len(heads) > 3 else len(lines)
        if len(_HEADING.match(lines[b]).group(1)) == level:  # type: ignore[union-attr]
            moved = lines[:a] + lines[b:section_b_end] + lines[a:b] + lines[section_b_end:]
            yield "section moved", "".join(moved)
        body_line = a + 1
        yield "section text changed", "".join([*lines[:body_line], f"A new paragraph.{nl}", nl, *lines[body_line:]])


def _new_item(template: str, nl: str, n: int) -> str:
    body = template.rstrip("\r\n")
    if body.startswith("|"):
        cells = body.strip("|").split("|")
        return "| " + " | ".join([f"NEW-{n}"] + [" added" for _ in cells[1:]]) + " |" + nl
    return f"- New Item {n}: added{nl}"


def two_edits(text: str) -> Iterator[tuple[str, str]]:
    """Two edits in different places, applied one after the other to the same GC."""
    singles = [e for e in edits(text) if "run" in e[0] and ("changed" in e[0] or "appended" in e[0])]
    first = next(iter(singles), None)
    if first is None:
        return
    for name, new in edits(first[1]):
        if "section" in name or "heading" in name:
            yield f"{first[0]} + {name}", new


_PIECES = ("x", "\n", "- [Finding] new entry\n", "\n## new-role\n", "```\n", "<!-- ", "-->", "  more\n", "# T\n")


def random_edit(text: str, rng: random.Random) -> str:
    """One change in one place, as an agent's write makes it: text put in, taken out or both,
    with pieces that can open a section, a fence or a comment."""
    at = rng.randrange(len(text) + 1)
    cut = rng.choice((0, 0, 1, rng.randrange(1, 200)))
    put = "".join(rng.choice(_PIECES) for _ in range(rng.choice((0, 1, 1, 2))))
    return text[:at] + put + text[at + cut :]
