"""Selective context loading for GSD ``.planning/`` folders (seed 003, Delta Context Helpers).

The context matrix says how each agent type loads each file when ``optimization.delta_context``
is on; the extractions (``gsd_extract``) find the parts on real files. Off, each agent loads
what the seed's backward-compatible mode loads: an executor STATE.md alone, a verifier ROADMAP
and STATE, a planner its files whole; nothing is counted as saved. When an extraction finds
nothing, the full file is used with a warning naming what was looked for: delta context never
fails execution.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from models.context.gsd_extract import (
    LEAD_ID,
    extract_mapped_requirements,
    extract_phase_goal,
    extract_phase_section,
    extract_relevant_decisions,
    extract_v1_scope,
    phase_key,
    requirement_ids,
)
from models.text.frontmatter import split_front_matter
from models.text.textfile import read_text
from models.text.tokens import Tokenizer

# Re-exported: callers and tests use the seed's function names from here.
__all__ = [
    "AGENT_TYPES",
    "FILES",
    "MATRIX",
    "extract_mapped_requirements",
    "extract_phase_goal",
    "extract_phase_section",
    "extract_relevant_decisions",
    "extract_v1_scope",
    "selective_context",
]

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
# The seed's backward-compatible mode (delta context off): the files each agent type loads whole.
FULL_MODE: dict[str, tuple[str, ...]] = {
    "gsd-executor": ("STATE.md",),
    "gsd-executor-core": ("STATE.md",),
    "gsd-verifier": ("ROADMAP.md", "STATE.md"),
    "gsd-verifier-core": ("ROADMAP.md", "STATE.md"),
    "gsd-planner": FILES,
    "gsd-planner-core": FILES,
}
# What each extraction looks for, named in the fallback's warning.
_LOOKED_FOR = {
    _SECTION: "a 'Phase {phase}' heading or checklist line",
    "phase goal": "a 'Phase {phase}' block with a 'Goal:' line or success criteria",
    "phase goal only": "a 'Phase {phase}' block with a 'Goal:' line",
    _DECISIONS: "a 'Current Position' section or decisions tagged [Roadmap] or with phase {phase}",
    "task-mapped": "the lines defining {reqs}",
    "v1 scope": "a 'v1' requirements heading or rows marked v1",
}

# What became of a file: not loaded, loaded whole, a part, whole because no part was found, or
# nothing because nothing was asked for (a plan mapping no requirements).
SKIPPED, FULL, EXTRACTED, FALLBACK, NOTHING, MISSING = "skipped", "full", "extracted", "fallback", "nothing", "missing"


@dataclass(frozen=True)
class Config:
    """``optimization.delta_context`` as read, and what was wrong with config.json."""

    delta: bool
    problem: str | None = None


def read_config(planning: Path) -> Config:
    """``optimization.delta_context`` in config.json: on only when it is ``true`` (the seed's
    default when the key is absent is off); a config.json that cannot be read is named."""
    path = planning / "config.json"
    if not path.exists() and not path.is_symlink():
        return Config(False)
    try:
        data = json.loads(read_text(path).text)
    except (OSError, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        return Config(False, f"config.json: {reason}; delta context taken as off")
    optimization = data.get("optimization") if isinstance(data, dict) else None
    if optimization is not None and not isinstance(optimization, dict):
        return Config(False, "config.json: 'optimization' is not an object; delta context taken as off")
    return Config(isinstance(optimization, dict) and optimization.get("delta_context") is True)


def roadmap_phases(planning: Path) -> list[str]:
    """The phase numbers the ROADMAP names in a heading or checklist line, in numeric order."""
    try:
        roadmap = read_text(planning / "ROADMAP.md").text
    except OSError:
        return []
    found = {
        phase_key(m.group(1)): m.group(1).lstrip("0") or "0"
        for m in re.finditer(r"^(?:#{1,6}|\s*[-*](?:\s+\[[ xX]\])?)\s+(?:\*\*)?Phase\s+(\d+(?:\.\d+)*)", roadmap, re.M)
    }
    return [found[k] for k in sorted(k for k in found if k is not None)]


def phase_plans(planning: Path, phase: str) -> list[Path]:
    """The PLAN files in the phase's folder (``phases/03-slug/``), by name."""
    key = phase_key(phase)
    folder = planning / "phases"
    if key is None or not folder.is_dir():
        return []
    out = []
    for sub in sorted(folder.iterdir()):
        number = re.match(r"\d+(?:\.\d+)*", sub.name)
        if sub.is_dir() and number and phase_key(number.group(0)) == key:
            out += sorted(p for p in sub.glob("*PLAN*.md") if p.is_file())
    return out


def delta_enabled(planning: Path) -> bool:
    """Whether the project turned delta context on."""
    return read_config(planning).delta


@dataclass(frozen=True)
class PlanRequirements:
    """The requirement ids a plan maps, and where they were read."""

    ids: tuple[str, ...]
    source: str  # "front matter", "'Requirements' section", or "" when the plan names none
    problem: str | None = None  # the plan is not valid UTF-8: read with replacement characters


def plan_requirements(plan_path: Path | None) -> PlanRequirements:
    """The plan's ``requirements`` in any YAML form (also from front matter that is not valid
    YAML, read line by line), else the ids listed under a Requirements heading in its body; an
    empty list maps nothing."""
    if plan_path is None:
        return PlanRequirements((), "")
    loaded = read_text(plan_path)
    reqs = _plan_requirements(plan_path, loaded.text)
    if loaded.problems and not loaded.exact:
        return replace(reqs, problem=f"{plan_path.name}: {loaded.problems[0].message}")
    return reqs


def _plan_requirements(plan_path: Path, text: str) -> PlanRequirements:
    front, problems = split_front_matter(text, plan_path.name)
    if "requirements" in front.data:
        return PlanRequirements(tuple(requirement_ids(front.data["requirements"])), "front matter")
    lines = text.splitlines()
    for i, line in enumerate(lines):
        key = re.match(r"^requirements:[ \t]*(.*)$", line)
        if key is None:
            continue
        source = "front matter, read line by line (not valid YAML)" if problems else "a requirements: line"
        if key.group(1).strip():
            return PlanRequirements(tuple(requirement_ids(key.group(1))), source)
        items = []
        for follow in lines[i + 1 :]:  # the block list right under the key
            item = re.match(r"^\s*-\s+(.+)$", follow)
            if item is None:
                break
            items.append(item.group(1))
        return PlanRequirements(tuple(requirement_ids(items)), source)
    heading = re.search(r"^#{1,6}\s+requirements\s*$", text, re.MULTILINE | re.IGNORECASE)
    if heading is None:
        return PlanRequirements((), "")
    ids: list[str] = []
    for body_line in text[heading.end() :].splitlines()[1:]:
        if body_line.startswith("#"):
            break
        item = LEAD_ID.match(body_line)
        if item:
            ids += [i for i in requirement_ids(item.group(1)) if i not in ids]
    return PlanRequirements(tuple(ids), "'Requirements' section" if ids else "")


@dataclass
class Part:
    """One file's contribution: how the matrix loads it, what came of it, and its tokens."""

    file: str
    mode: str  # the matrix's word for how the file is loaded
    text: str
    full_tokens: int
    tokens: int
    warning: str | None = None
    status: str = FULL

    @property
    def loaded(self) -> bool:
        return self.status not in (SKIPPED, NOTHING, MISSING)


@dataclass
class SelectiveContext:
    """What one agent type loads for one phase (and plan), file by file."""

    agent: str
    phase: str
    enabled: bool
    parts: list[Part] = field(default_factory=list)
    requirements: tuple[str, ...] = ()
    problems: list[str] = field(default_factory=list)

    @property
    def full_tokens(self) -> int:
        """The files this agent loads, each whole: what the seed's savings are measured from (a
        file not loaded at all, skipped or with no requirements to map, saves nothing)."""
        return sum(p.full_tokens for p in self.parts if p.loaded)

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.parts)

    @property
    def saved_tokens(self) -> int:
        """Counted only where delta context is on: off, nothing is saved."""
        return self.full_tokens - self.tokens if self.enabled else 0

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if p.text)


def _extract(mode: str, text: str, phase: str, reqs: list[str]) -> str:
    if mode == _SECTION:
        return extract_phase_section(text, phase)
    if mode in ("phase goal", "phase goal only"):
        return extract_phase_goal(text, phase, criteria=mode == "phase goal")
    if mode == _DECISIONS:
        return extract_relevant_decisions(text, phase)
    if mode == "task-mapped":
        return extract_mapped_requirements(text, reqs)
    if mode == "v1 scope":
        return extract_v1_scope(text)
    return text


def _read(path: Path) -> tuple[str | None, str | None]:
    """(text, None), or (None, why) for a file that is missing or cannot be read."""
    if not path.exists() and not path.is_symlink():
        return None, f"{path.name} is missing"
    try:
        loaded = read_text(path)
    except OSError as exc:
        return None, f"{path.name}: {exc.strerror or exc}"
    if loaded.problems and not loaded.exact:
        return loaded.text, f"{path.name}: {loaded.problems[0].message}"
    return loaded.text, None


def selective_context(
    planning: Path,
    agent: str,
    phase: str | int,
    tokenizer: Tokenizer,
    plan_path: Path | None = None,
    delta: bool | None = None,
) -> SelectiveContext:
    """What ``agent`` loads for ``phase`` (and ``plan_path``'s requirements), per file, with full
    and selective tokens. ``delta`` overrides the project's config (a preview of either mode)."""
    if agent not in MATRIX:
        raise ValueError(f"unknown agent type {agent!r}; one of {', '.join(AGENT_TYPES)}")
    if phase_key(phase) is None:
        raise ValueError(f"phase {phase!r} is no phase number (3, 03 or 2.1)")
    config = read_config(planning)
    enabled = config.delta if delta is None else delta
    result = SelectiveContext(agent, str(phase), enabled)
    if config.problem:
        result.problems.append(config.problem)
    reqs = plan_requirements(plan_path) if plan_path is not None else PlanRequirements((), "")
    result.requirements = reqs.ids
    if reqs.problem:
        result.problems.append(reqs.problem)
    for name in FILES:
        mode = MATRIX[agent][name] if enabled else (_FULL if name in FULL_MODE[agent] else _SKIP)
        text, problem = _read(planning / name)
        full = tokenizer.count(text) if text else 0
        if mode == _SKIP:
            result.parts.append(Part(name, mode, "", full, 0, status=SKIPPED))
        elif text is None:
            result.parts.append(Part(name, mode, "", 0, 0, problem, MISSING))
        elif mode == _FULL:
            result.parts.append(Part(name, mode, text, full, full, problem, FULL))
        elif mode == "task-mapped" and not reqs.ids:
            why = "the plan maps no requirements" if plan_path is not None else "no plan given (--plan)"
            result.parts.append(Part(name, mode, "", full, 0, f"{why}: none loaded", NOTHING))
        else:
            selected = _extract(mode, text, str(phase), list(reqs.ids))
            if selected.strip():
                result.parts.append(Part(name, mode, selected, full, tokenizer.count(selected), problem, EXTRACTED))
            else:
                looked = _LOOKED_FOR[mode].format(phase=phase, reqs=", ".join(reqs.ids))
                warning = f"Delta context extraction failed for {name}, using full context (looked for {looked})"
                result.parts.append(Part(name, mode, text, full, full, warning, FALLBACK))
    return result
