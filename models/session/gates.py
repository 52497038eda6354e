"""phase-N/gate-record.yaml: a gate's verdict, in either of the two forms seen in practice.

Older records are plain YAML (``phase``, ``result``); newer ones are front matter
(``gate``, ``verdict``, ``gc_version_in/out``) followed by a Markdown report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.session.versions import parse_version
from models.text.frontmatter import parse_yaml_mapping, split_front_matter
from models.text.problems import Problem


@dataclass
class GateRecord:
    """One gate decision."""

    phase: int | None
    verdict: str | None
    date: str | None
    gc_in: int | None
    gc_out: int | None
    path: str
    body: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def parse_gate(text: str, rel_path: str, folder_phase: int | None) -> GateRecord:
    """Parse a gate record; the phase falls back to the folder's number."""
    front, problems = split_front_matter(text, rel_path)
    if front.present:
        data, body = front.data, text[front.body_start :]
    else:
        data, more = parse_yaml_mapping(text, rel_path)
        problems += more
        body = ""
    phase = parse_version(data.get("phase", data.get("gate")))
    if phase is None:
        phase = folder_phase
    verdict = data.get("verdict", data.get("result"))
    if verdict is None and not any(p.severity == "error" for p in problems):
        problems.append(Problem("warning", rel_path, "no verdict or result"))
    date = data.get("date")
    return GateRecord(
        phase,
        None if verdict is None else str(verdict),
        None if date is None else str(date),
        parse_version(data.get("gc_version_in")),
        parse_version(data.get("gc_version_out")),
        rel_path,
        body,
        data,
        problems,
    )


def phase_number(folder: Path) -> int | None:
    """``phase-6`` → 6; other folder names → None."""
    name = folder.name
    if name.startswith("phase-"):
        return parse_version(name[len("phase-") :])
    return None
