"""phase-N/gate-record.yaml: a gate's verdict, in either of the two forms seen in practice.

Older records are plain YAML (``phase``, ``result``); newer ones are front matter
(``gate``, ``verdict``, ``gc_version_in/out``) followed by a Markdown report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.session.versions import parse_version
from models.text.frontmatter import parse_yaml_mapping, split_front_matter
from models.text.problems import Problem
from models.text.yaml_load import scalar_text


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
    phase = parse_version(data.get("phase")) or parse_version(data.get("gate"))
    if phase is None:
        phase = folder_phase
    verdict = next((data[k] for k in VERDICT_KEYS if data.get(k) is not None), None)
    if verdict is None and any(p.severity == "error" for p in problems):
        found = _verdict_line(text)  # agents write invalid YAML; the verdict line is still plain
        if found is not None:
            line, verdict = found
            problems = [
                Problem("warning", rel_path, f"not valid YAML; the verdict was read from line {line} alone", line)
            ]
    if verdict is None and not any(p.severity == "error" for p in problems):
        problems.append(Problem("warning", rel_path, "no verdict or result"))
    date = data.get("date")
    return GateRecord(
        phase,
        None if verdict is None else str(verdict),
        None if date is None else scalar_text(date),
        parse_version(data.get("gc_version_in")),
        parse_version(data.get("gc_version_out")),
        rel_path,
        body,
        data,
        problems,
    )


VERDICT_KEYS = ("verdict", "result", "gate_result", "decision", "outcome")
_VERDICT_LINE = re.compile(
    r"^\s*(?:" + "|".join(VERDICT_KEYS) + r")\s*:\s*[\"']?(?P<v>[A-Za-z_][\w -]*?)[\"']?\s*(?:#.*)?$"
)


def _verdict_line(text: str) -> tuple[int, str] | None:
    for number, line in enumerate(text.splitlines(), start=1):
        m = _VERDICT_LINE.match(line)
        if m:
            return number, m.group("v").strip()
    return None


_PLAN_GATE = re.compile(
    r"^\s*[-*+]\s+(?:\*\*)?(?:Phase|Gate)\s+(?P<phase>\d+(?:\.\d+)?)(?P<rest>[^:]*?)(?:\*\*)?\s*(?:→[^:]*)?:\s*"
    r"(?:\*\*)?(?P<verdict>[A-Z][A-Z_]+)(?:\*\*)?(?P<tail>.*)$"
)
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def plan_gates(text: str, file: str = "orchestration-plan.md") -> list[GateRecord]:
    """Gate verdicts a plan lists (``## Gate History``: ``- Phase 2: APPROVED (2026-02-07)``)."""
    out: list[GateRecord] = []
    in_list = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            in_list = bool(re.search(r"\bgate", line, re.I))
            continue
        m = _PLAN_GATE.match(line) if in_list else None
        if m is None or "." in m.group("phase") or m.group("rest").strip():
            continue
        date = _DATE.search(m.group("tail"))
        out.append(
            GateRecord(
                int(m.group("phase")),
                m.group("verdict"),
                date.group(1) if date else None,
                None,
                None,
                f"{file} line {number}",
                line.strip(),
            )
        )
    return out


def phase_number(folder: Path) -> int | None:
    """``phase-6`` → 6; other folder names → None."""
    name = folder.name
    if name.startswith("phase-"):
        return parse_version(name[len("phase-") :])
    return None
