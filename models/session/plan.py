"""orchestration-plan.md: the Lead's tracking front matter and the teammate tables."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from models.session.versions import parse_version
from models.text import mdblocks
from models.text.frontmatter import FrontMatter, split_front_matter
from models.text.problems import Problem, shown
from models.text.textfile import line_starts, split_lines
from models.text.yaml_load import scalar_text

# Header cells that mark a table as a teammate table (first column holds the role id).
_NAME_HEADERS = {"name", "teammate", "role-id", "role id", "agent"}
_ROLE_ID = re.compile(r"^[A-Za-z][\w.-]*$")


@dataclass(frozen=True)
class LastDelta:
    """ADR-002 §9 ``teammate_gc_last_delta`` entry: what was last sent."""

    sent_version: int | None
    delta_size: int | None
    timestamp: str | None


@dataclass(frozen=True)
class TableRow:
    """One row of a teammate table in the plan body, by column header (lower-cased)."""

    name: str
    cells: dict[str, str]
    line: int  # 0-based

    @property
    def status(self) -> str | None:
        return self.cells.get("status") or None

    @property
    def role(self) -> str | None:
        return self.cells.get("role") or None

    @property
    def gc_version(self) -> int | None:
        for header, value in self.cells.items():
            if "gc" in header:
                return parse_version(value)
        return None


@dataclass
class Plan:
    """What the app reads from orchestration-plan.md."""

    text: str
    front: FrontMatter
    gc_version: int | None = None
    teammate_gc_versions: dict[str, int] = field(default_factory=dict)
    teammate_gc_last_delta: dict[str, LastDelta] = field(default_factory=dict)
    teammate_status: dict[str, str] = field(default_factory=dict)
    gate_evaluation: dict[str, Any] | None = None
    table_rows: list[TableRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _mapping(data: dict[str, Any], key: str, file: str, problems: list[Problem]) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(Problem("warning", file, f"{key} should be a mapping of role to value"))
        return {}
    return {str(k): v for k, v in value.items()}


def parse_plan(text: str, file: str = "orchestration-plan.md") -> Plan:
    """Parse the plan; unreadable entries are reported and left out, never guessed."""
    front, problems = split_front_matter(text, file)
    plan = Plan(text, front, problems=problems)
    data = front.data
    if "gc_version" in data:
        plan.gc_version = parse_version(data["gc_version"])
        if plan.gc_version is None:
            problems.append(Problem("warning", file, f"gc_version {shown(data['gc_version'])} is not GC-vN"))
    for role, value in _mapping(data, "teammate_gc_versions", file, problems).items():
        version = parse_version(value)
        if version is None:
            problems.append(Problem("warning", file, f"teammate_gc_versions.{role}: {shown(value)} is not a version"))
        else:
            plan.teammate_gc_versions[role] = version
    for role, value in _mapping(data, "teammate_gc_last_delta", file, problems).items():
        if not isinstance(value, dict):
            problems.append(Problem("warning", file, f"teammate_gc_last_delta.{role} is not a mapping"))
            continue
        size = value.get("delta_size")
        stamp = value.get("timestamp")
        plan.teammate_gc_last_delta[role] = LastDelta(
            parse_version(value.get("sent_version")),
            size if isinstance(size, int) and not isinstance(size, bool) else None,
            None if stamp is None else scalar_text(stamp),
        )
    for role, value in _mapping(data, "teammate_status", file, problems).items():
        plan.teammate_status[role] = str(value)
    gate = data.get("gate_evaluation")
    if gate:
        plan.gate_evaluation = gate if isinstance(gate, dict) else {"value": gate}
    plan.table_rows = _teammate_rows(text, front.body_start, file, problems)
    return plan


def _teammate_rows(text: str, body_start: int, file: str, problems: list[Problem]) -> list[TableRow]:
    lines = split_lines(text)
    first = bisect.bisect_left(line_starts(lines), body_start)
    scan = mdblocks.scan(lines[first:], file, first + 1)
    rows: list[TableRow] = []
    i = first
    while i + 1 < len(lines):
        local = i - first
        if not scan.in_code[local] and mdblocks.is_table_row(lines[i]) and mdblocks.TABLE_DELIMITER.match(lines[i + 1]):
            headers = [h.strip("* ").lower() for h in mdblocks.split_table_row(lines[i])]
            j = i + 2
            # The teammate column wherever it stands (tables come in any column order).
            at = next((k for k, h in enumerate(headers) if h in _NAME_HEADERS), None)
            while j < len(lines) and mdblocks.is_table_row(lines[j]):
                cells = mdblocks.split_table_row(lines[j])
                name = cells[at].strip("* `") if at is not None and at < len(cells) else ""
                if at is not None and _ROLE_ID.match(name):
                    rest = [(h, c) for k, (h, c) in enumerate(zip(headers, cells, strict=False)) if k != at]
                    rows.append(TableRow(name, dict(rest), j))
                j += 1
            i = j
            continue
        i += 1
    return rows
