"""Selective context loading for GSD ``.planning/`` folders (seed 003, Delta Context Helpers).

The four extraction functions follow the seed's shell semantics: phase numbers match padded
(``03``) and unpadded (``3``); a phase section runs from ``## Phase NN:`` to the next
``## Phase N``, ``---`` or ``# `` line. When an extraction finds nothing, the full file is used
with a warning: delta context never fails execution.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from models.text.tokens import Tokenizer

AGENT_TYPES = (
    "gsd-executor",
    "gsd-executor-core",
    "gsd-verifier",
    "gsd-verifier-core",
    "gsd-planner",
    "gsd-planner-core",
)
FILES = ("PROJECT.md", "ROADMAP.md", "STATE.md", "REQUIREMENTS.md")
# The seed's context matrix: how each agent type loads each file.
_SKIP, _FULL, _SECTION, _DECISIONS = "skip", "full", "phase section", "relevant decisions"
MATRIX: dict[str, dict[str, str]] = {
    "gsd-executor": dict(zip(FILES, (_SKIP, _SECTION, _DECISIONS, "task-mapped"), strict=True)),
    "gsd-executor-core": dict(zip(FILES, (_SKIP, _SECTION, _DECISIONS, _SKIP), strict=True)),
    "gsd-verifier": dict(zip(FILES, (_SKIP, "phase goal", _FULL, _SKIP), strict=True)),
    "gsd-verifier-core": dict(zip(FILES, (_SKIP, "phase goal only", _DECISIONS, _SKIP), strict=True)),
    "gsd-planner": dict(zip(FILES, (_FULL, _FULL, _FULL, "v1 scope"), strict=True)),
    "gsd-planner-core": dict(zip(FILES, (_FULL, _FULL, _FULL, "v1 scope"), strict=True)),
}


def _numbers(phase: str | int) -> tuple[str, str]:
    plain = str(phase).lstrip("0") or "0"
    return plain, plain.zfill(2) if plain.isdigit() else str(phase)


def extract_phase_section(roadmap: str, phase: str | int) -> str:
    """The ``## Phase NN: ...`` block, up to the next phase, ``---`` or top heading."""
    plain, padded = _numbers(phase)
    lines = roadmap.splitlines()
    start = next(
        (i for i, ln in enumerate(lines) if re.match(rf"^## Phase ({re.escape(padded)}|{re.escape(plain)}):", ln)), None
    )
    if start is None:
        return ""
    end = next(
        (j for j in range(start + 1, len(lines)) if re.match(r"^## Phase [0-9]|^---|^# ", lines[j])),
        len(lines),
    )
    return "\n".join(lines[start:end]).rstrip("\n") + "\n"


def extract_relevant_decisions(state: str, phase: str | int) -> str:
    """Current Position plus ``[Roadmap]`` and ``[NN-YY]`` decisions of this phase."""
    _, padded = _numbers(phase)
    lines = state.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("## Current Position")), None)
    if start is None:
        return ""
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
    position = lines[start + 1 : end]
    decisions = [
        ln for ln in lines if ln.startswith("- [Roadmap]") or re.match(rf"^- \[{re.escape(padded)}-[0-9]+\]", ln)
    ]
    out = ["## Current Position", *position, "", "## Relevant Decisions", *decisions]
    return "\n".join(out).rstrip("\n") + "\n"


def extract_phase_goal(roadmap: str, phase: str | int) -> str:
    """The phase header and goal, and its Must-haves list (for verifiers)."""
    section = extract_phase_section(roadmap, phase)
    if not section:
        return ""
    lines = section.splitlines()
    out = lines[:2]
    start = next((i for i, ln in enumerate(lines) if ln.startswith("Must-haves:")), None)
    if start is not None:
        end = next((j for j in range(start + 1, len(lines)) if re.match(r"^[A-Z]", lines[j])), len(lines))
        out += ["", *lines[start:end]]
    return "\n".join(out).rstrip("\n") + "\n"


def extract_mapped_requirements(requirements: str, req_ids: str) -> str:
    """The table's first three lines and the rows of the given ids (``AUTH-01,AUTH-02``)."""
    lines = requirements.splitlines()
    rows = []
    for rid in (r.strip() for r in req_ids.replace(" ", "").split(",") if r.strip()):
        rows += [ln for ln in lines if f"| {rid} |" in ln]
    if not rows:
        return ""
    return "\n".join(lines[:3] + rows) + "\n"


def extract_v1_scope(requirements: str) -> str:
    """Requirements rows marked v1 (a ``## v1`` section, or rows naming v1)."""
    lines = requirements.splitlines()
    start = next((i for i, ln in enumerate(lines) if re.match(r"^##+ .*\bv1\b", ln, re.I)), None)
    if start is not None:
        end = next((j for j in range(start + 1, len(lines)) if re.match(r"^##+ ", lines[j])), len(lines))
        return "\n".join(lines[start:end]).rstrip("\n") + "\n"
    rows = [ln for ln in lines if ln.startswith("|") and re.search(r"\|\s*v1\s*\|", ln, re.I)]
    return "\n".join(lines[:3] + rows) + "\n" if rows else ""


def delta_enabled(planning: Path) -> bool:
    """``optimization.delta_context`` in config.json (default false when absent)."""
    try:
        config = json.loads((planning / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    value = config.get("optimization", {}).get("delta_context", False) if isinstance(config, dict) else False
    return value is True


def task_requirements(plan_path: Path | None) -> str:
    """The ``requirements:`` line of a plan (comma-separated ids)."""
    if plan_path is None or not plan_path.exists():
        return ""
    for line in plan_path.read_text(encoding="utf-8").splitlines():
        if line.startswith("requirements:"):
            return line.split(":", 1)[1].strip()
    return ""


@dataclass
class Part:
    file: str
    mode: str  # the matrix's word for how the file is loaded
    text: str
    full_tokens: int
    tokens: int
    warning: str | None = None


@dataclass
class SelectiveContext:
    agent: str
    phase: str
    enabled: bool
    parts: list[Part] = field(default_factory=list)

    @property
    def full_tokens(self) -> int:
        return sum(p.full_tokens for p in self.parts)

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.parts)

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if p.text)


def _extract(mode: str, name: str, text: str, phase: str, reqs: str) -> str:
    if mode == "phase section":
        return extract_phase_section(text, phase)
    if mode in ("phase goal", "phase goal only"):
        return extract_phase_goal(text, phase)
    if mode == "relevant decisions":
        return extract_relevant_decisions(text, phase)
    if mode == "task-mapped":
        return extract_mapped_requirements(text, reqs) if reqs else ""
    if mode == "v1 scope":
        return extract_v1_scope(text)
    return text


def selective_context(
    planning: Path, agent: str, phase: str | int, tokenizer: Tokenizer, plan_path: Path | None = None
) -> SelectiveContext:
    """What ``agent`` loads for ``phase`` per the matrix, with full and selective tokens."""
    if agent not in MATRIX:
        raise ValueError(f"unknown agent type {agent!r}; one of {', '.join(AGENT_TYPES)}")
    enabled = delta_enabled(planning)
    result = SelectiveContext(agent, str(phase), enabled)
    reqs = task_requirements(plan_path)
    for name in FILES:
        mode = MATRIX[agent][name]
        path = planning / name
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        full = tokenizer.count(text)
        if mode == "skip":
            result.parts.append(Part(name, mode, "", full, 0))
            continue
        if not enabled or mode == "full":
            result.parts.append(Part(name, "full" if not enabled else mode, text, full, full))
            continue
        if not text:
            result.parts.append(Part(name, mode, "", 0, 0, f"{name} is missing"))
            continue
        if mode == "task-mapped" and not reqs:
            result.parts.append(Part(name, mode, "", full, 0, "the plan maps no requirements: none loaded"))
            continue
        selected = _extract(mode, name, text, str(phase), reqs)
        if not selected.strip():
            warning = f"Delta context extraction failed for {name}, using full context"
            result.parts.append(Part(name, f"{mode} (fallback: full)", text, full, full, warning))
        else:
            result.parts.append(Part(name, mode, selected, full, tokenizer.count(selected)))
    return result
