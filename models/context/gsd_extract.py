"""Seed 003's four extractions, made to find what the seed means in real ``.planning/`` files.

The seed's ``sed`` patterns expect ``## Phase 03:`` blocks, ``- [03-01]`` decision tags and
``| ID |`` rows. Real GSD projects write ``### Phase 3: Name`` under ``## Phase Details`` (and
list the phase again as a checklist bullet), tag decisions ``[Phase 03-slug]`` or ``[Phase 3]``,
list requirements as bullets (``- [x] **DATA-01**: ...``) or padded table cells. Each function
here returns "" when it finds nothing, so that the caller can fall back to the full file with a
warning, as the seed does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUM = r"\d+(?:\.\d+)*"
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_PHASE_HEADING = re.compile(rf"^(#{{1,6}})\s+(?:\*\*)?Phase\s+({_NUM})(?![\d.]*\d)")
_PHASE_BULLET = re.compile(rf"^(\s*)[-*]\s+(?:\[[ xX]\]\s+)?(?:\*\*)?Phase\s+({_NUM})(?![\d.]*\d)")
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_FOOTER = re.compile(r"^\s*_[^_].*_\s*$")  # ``_Roadmap created: 2026-03-22_``
_FIELD = re.compile(r"^\s*\*\*[^*]+\*\*\s*:?|^\s*\*\*[^*]+:\*\*|^\s*[A-Z][\w -]*:\s*$")
_GOAL = re.compile(r"^\s*(?:\*\*)?Goal(?:\*\*)?\s*:")
_CRITERIA = re.compile(r"^\s*(?:\*\*)?(?:Success Criteria|Must[- ]haves?)\b", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TAG = re.compile(r"^\s*[-*]\s+(?:\*\*)?\[([^\]]+)\]")


def phase_key(phase: str | int) -> tuple[int, ...] | None:
    """``3``, ``03`` and ``3.0``-free ``2.1`` as comparable numbers; None for anything else."""
    text = str(phase).strip()
    if not re.fullmatch(_NUM, text):
        return None
    return tuple(int(part) for part in text.split("."))


def _trim(lines: list[str]) -> list[str]:
    """Without the blank lines and italic footers (``_Last updated: ..._``) that end a block."""
    end = len(lines)
    while end > 1 and (not lines[end - 1].strip() or _FOOTER.match(lines[end - 1])):
        end -= 1
    return lines[:end]


def _joined(lines: Iterable[str]) -> str:
    text = "\n".join(lines).rstrip("\n")
    return text + "\n" if text else ""


def _fences(lines: list[str]) -> list[bool]:
    """Whether each line lies inside a fenced code block (headings there are not headings)."""
    inside, out = False, []
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            out.append(True)
            inside = not inside
            continue
        out.append(inside)
    return out


def _heading_block(lines: list[str], fenced: list[bool], start: int, level: int, phase: bool = False) -> list[str]:
    """From a heading to the next heading of its level or above; a phase block (as in the seed)
    also ends at another phase's heading of any level and at a ``---`` rule."""
    end = len(lines)
    for j in range(start + 1, len(lines)):
        if fenced[j]:
            continue
        heading = _HEADING.match(lines[j])
        if (heading and len(heading.group(1)) <= level) or (
            phase and (_PHASE_HEADING.match(lines[j]) or _RULE.match(lines[j]))
        ):
            end = j
            break
    return _trim(lines[start:end])


def _bullet_block(lines: list[str], start: int, indent: int) -> list[str]:
    """A checklist line and the lines indented under it."""
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        end += 1
    return _trim(lines[start:end])


def phase_block(roadmap: str, phase: str | int) -> list[str]:
    """The lines of the phase's block: its detailed heading block when the ROADMAP has one (the
    one with most to say, if it has several), else its checklist bullet with the lines under it."""
    key = phase_key(phase)
    if key is None:
        return []
    lines = roadmap.splitlines()
    fenced = _fences(lines)
    blocks: list[list[str]] = []
    bullets: list[list[str]] = []
    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        heading = _PHASE_HEADING.match(line)
        if heading and phase_key(heading.group(2)) == key:
            blocks.append(_heading_block(lines, fenced, i, len(heading.group(1)), phase=True))
            continue
        bullet = _PHASE_BULLET.match(line)
        if bullet and phase_key(bullet.group(2)) == key:
            bullets.append(_bullet_block(lines, i, len(bullet.group(1))))
    if blocks:
        return max(blocks, key=len)  # max keeps the first of equals
    return max(bullets, key=len) if bullets else []


def extract_phase_section(roadmap: str, phase: str | int) -> str:
    """The phase's block, at whatever heading level the ROADMAP uses."""
    return _joined(phase_block(roadmap, phase))


def _criteria(block: list[str]) -> list[str]:
    """The success criteria (or must-haves) heading and its list, up to the next field."""
    start = next((i for i, line in enumerate(block) if _CRITERIA.match(line)), None)
    if start is None:
        return []
    out = [block[start]]
    seen_item = False
    for line in block[start + 1 :]:
        stripped = line.strip()
        if not stripped:
            out.append(line)
            continue
        if _HEADING.match(line) or _FIELD.match(line) or stripped.startswith("Plans:"):
            break
        if _LIST_ITEM.match(line):
            seen_item = True
        elif not (seen_item and line[:1].isspace()):
            break  # prose after the list is no longer the criteria
        out.append(line)
    return _trim(out)


def extract_phase_goal(roadmap: str, phase: str | int, criteria: bool = True) -> str:
    """The phase's title line and goal, and (for ``gsd-verifier``) its success criteria; ""
    when the phase has neither (a checklist line such as ``- [x] Phase 1: Engine (5/5 plans)``
    alone), so that the agent gets the whole file, with a warning, as the seed falls back."""
    block = phase_block(roadmap, phase)
    if not block:
        return ""
    out = [block[0]]
    goal = next((line for line in block[1:] if _GOAL.match(line)), None)
    if goal is not None:
        out.append(goal)
    found = _criteria(block) if criteria else []
    if found:
        out += ["", *found]
    if goal is None and not found:
        return ""
    return _joined(out)


def _tag_phase(tag: str) -> tuple[int, ...] | None:
    """The phase a decision tag names: ``03-01``, ``Phase 03``, ``Phase phase-2``, ``Phase 04-slug``."""
    text = re.sub(r"^\s*phase\s*", "", tag, flags=re.IGNORECASE)
    text = re.sub(r"^phase-", "", text, flags=re.IGNORECASE)
    number = re.match(_NUM, text)
    if number is None or not re.match(r"$|[-\s:]", text[number.end() :]):
        return None
    return phase_key(number.group(0))


_ROADMAP_TAG = re.compile(r"\broadmap\b", re.IGNORECASE)  # [Roadmap], [v1.1 Roadmap], [Roadmap v1.3]


def relevant_decisions(state: str, phase: str | int) -> list[str]:
    """Decision lines tagged as the roadmap's (``[Roadmap]``, ``[v1.1 Roadmap]``) or with this
    phase, in the file's order. Where STATE.md has a decisions section, only its lines count:
    an item tagged with the phase under "Blockers/Concerns" is no decision."""
    key = phase_key(phase)
    lines = state.splitlines()
    fenced = _fences(lines)
    headings = [(i, m.group(2)) for i, line in enumerate(lines) if not fenced[i] and (m := _HEADING.match(line))]
    sectioned = any("decision" in title.lower() for _, title in headings)
    in_decisions = not sectioned
    out = []
    for i, line in enumerate(lines):
        heading = _HEADING.match(line) if not fenced[i] else None
        if heading is not None:
            in_decisions = not sectioned or "decision" in heading.group(2).lower()
            continue
        tag = _TAG.match(line)
        if tag is None or not in_decisions:
            continue
        name = tag.group(1).strip()
        if _ROADMAP_TAG.search(name) or (key is not None and _tag_phase(name) == key):
            out.append(line)
    return out


def current_position(state: str) -> list[str] | None:
    """The body of the ``Current Position`` section (None when there is none)."""
    lines = state.splitlines()
    fenced = _fences(lines)
    for i, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading and not fenced[i] and heading.group(2).strip().lower().startswith("current position"):
            block = _heading_block(lines, fenced, i, len(heading.group(1)))[1:]
            while block and not block[0].strip():
                block.pop(0)
            return block
    return None


def extract_relevant_decisions(state: str, phase: str | int) -> str:
    """Current Position and the phase's and the roadmap's decisions ("" when neither is there)."""
    position = current_position(state)
    decisions = relevant_decisions(state, phase)
    if position is None and not decisions:
        return ""
    out = ["## Current Position", *(position or []), "", "## Relevant Decisions", *decisions]
    return _joined(out)


_ID = re.compile(r"[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)*")
# A list item led by an id: ``- [x] **DATA-01**: ...``, ``1. [R01] ...``, ``- COMP-02: ...``.
LEAD_ID = re.compile(
    r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(?:\*\*|`)?\[?([A-Za-z][\w.-]*\w)\]?(?:\*\*|`)?(?=[\s:—–]|$)"
)


def requirement_ids(value: object) -> list[str]:
    """Requirement ids from a plan's ``requirements`` value in any YAML form: a list, a
    comma- or space-separated string, ``[A, B]`` written as a string; an empty list gives none."""
    items: list[object] = list(value) if isinstance(value, (list, tuple)) else [value]
    out: list[str] = []
    for item in items:
        if item is None:
            continue
        for token in re.split(r"[\s,\[\]]+", str(item)):
            token = token.strip("'\"`*")
            if token and _ID.fullmatch(token) and any(c.isdigit() for c in token) and token not in out:
                out.append(token)
    return out


def _row_cells(line: str) -> list[str]:
    return [c.strip().strip("*`") for c in line.strip().strip("|").split("|")]


def mapped_requirement_lines(requirements: str, ids: list[str]) -> list[str]:
    """The lines that define each id: a list item led by it (``- [x] **DATA-01**: ...``,
    ``1. [R01] ...``) or a table row whose first cell it is, with that table's header once."""
    wanted = set(ids)
    lines = requirements.splitlines()
    out: list[str] = []
    header_of: dict[int, int] = {}
    table_start = None
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|"):
            if table_start is None:
                table_start = i
            header_of[i] = table_start
        else:
            table_start = None
    shown_tables: set[int] = set()
    for i, line in enumerate(lines):
        if i in header_of:
            cells = _row_cells(line)
            if cells and cells[0] in wanted and i - header_of[i] >= 2:
                start = header_of[i]
                if start not in shown_tables:
                    shown_tables.add(start)
                    out += lines[start : start + 2]
                out.append(line)
            continue
        item = LEAD_ID.match(line)
        if item and item.group(1) in wanted:
            out.append(line)
    return out


def extract_mapped_requirements(requirements: str, req_ids: str | list[str]) -> str:
    """The requirement lines of the given ids (``AUTH-01,AUTH-02`` or a list)."""
    ids = requirement_ids(req_ids)
    return _joined(mapped_requirement_lines(requirements, ids)) if ids else ""


def extract_v1_scope(requirements: str) -> str:
    """The whole ``v1`` requirements section (not v1.1 or v2), or the table rows marked v1."""
    lines = requirements.splitlines()
    fenced = _fences(lines)
    for i, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading and not fenced[i] and re.search(r"\bv1(?![.\d])", heading.group(2), re.IGNORECASE):
            return _joined(_heading_block(lines, fenced, i, len(heading.group(1))))
    rows = [ln for ln in lines if ln.lstrip().startswith("|") and re.search(r"\|\s*v1\s*\|", ln, re.I)]
    return _joined(lines[:3] + rows) if rows else ""
