"""Where each teammate is in its life: pending (not spawned yet), active, idle, finished, shut
down or replaced.

Real plans say it in many shapes, added to over time: a Status column in a table (several
tables, in any column order), ``- researcher-1: SHUTDOWN (Phase 2 complete)`` under
``## Teammates``, lists under ``## Active Teammates`` / ``## Terminated Teammates``,
``- researcher-1: GC-v1 (shutdown)`` under ``## Teammate Context Versions``, prose such as
``- **architect-1:** shutdown clean`` or ``- **All implementers:** shutdown clean``, and the
``teammate_status`` front matter the app writes when the Lead sets a state. Every statement is
kept as a fact with the line it came from; the newest wins (front matter, then the plan body
from the bottom up, then TEAM-MEMORY's [REPLACED] sections). Text that names no state is not
guessed at.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from models.session.roles import AGENT_TYPES, role_key, role_type
from models.text import mdblocks
from models.text.textfile import split_lines

State = Literal["pending", "active", "idle", "finished", "shut down", "replaced"]
STATES: tuple[State, ...] = ("pending", "active", "idle", "finished", "shut down", "replaced")
RECEIVING: frozenset[State] = frozenset({"active", "idle"})  # sent updates and pinged for ACKs

# Words that name a state, strongest first: "SHUTDOWN (Phase 2 complete)" is shut down.
_WORDS: tuple[tuple[State, re.Pattern[str]], ...] = (
    ("shut down", re.compile(r"\b(?:shut[\s_-]?down|terminated|killed|stopped|retired|exited)\b", re.I)),
    ("replaced", re.compile(r"\breplaced\b", re.I)),
    ("finished", re.compile(r"\b(?:complete|completed|done|finished|delivered)\b", re.I)),
    # Before "active", whose "spawned" is in "not yet spawned".
    (
        "pending",
        re.compile(r"\b(?:pending[\s_-]?spawn|not[\s_-](?:yet[\s_-])?spawned|to[\s_-]be[\s_-]spawned)\b", re.I),
    ),
    ("idle", re.compile(r"\b(?:idle|waiting|paused)\b", re.I)),
    (
        "active",
        re.compile(
            r"\b(?:active|in[\s_-]?progress|spawning|spawned|running|working|blocked|context[\s_]lost"
            r"|need[\s_]clarification)\b",
            re.I,
        ),
    ),
)
_ARROW = re.compile(r"\s*(?:→|->)\s*")
_HEADING_STATE: tuple[tuple[re.Pattern[str], State], ...] = (
    (re.compile(r"terminated|shut[\s-]?down|inactive|retired|former", re.I), "shut down"),
    (re.compile(r"\bactive\b", re.I), "active"),
)
_BULLET = re.compile(r"^\s*[-*+]\s+(?:\*\*)?(?P<who>[^:*\n]{1,60}?)(?:\*\*)?\s*(?::\*\*|\*\*:|:)\s*(?P<text>.*)$")
_NONE_ALL = re.compile(r"^\s*\(?\s*none\b.*\ball\b", re.I)


def state_of(text: str) -> State | None:
    """The state a status text names (the last step of ``COMPLETE → SHUTDOWN``), or None."""
    last = _ARROW.split(text.strip())[-1] if text.strip() else ""
    for candidate in (last, text):
        for state, pattern in _WORDS:
            if pattern.search(candidate):
                return state
    return None


@dataclass(frozen=True)
class StateFact:
    """One statement of a teammate's state, and where it was read."""

    role: str  # as written there
    state: State
    said: str  # the words that said it
    source: str  # "orchestration-plan.md line 16"
    rank: tuple[int, int]  # larger is newer: (kind of source, line)

    def describe(self) -> str:
        return f"{self.state} ({self.source}: {self.said.strip()[:80]})"


@functools.lru_cache(maxsize=8)
def plan_facts(
    text: str, body_start: int, known_roles: tuple[str, ...], file: str = "orchestration-plan.md"
) -> tuple[StateFact, ...]:
    """Every state the plan's body states, in document order (later lines are newer).

    Memoised by text: the teammate list is derived again on every view update, and the plan
    changes far less often than that."""
    lines = split_lines(text)
    first = text.count("\n", 0, body_start)
    scan = mdblocks.scan(lines[first:], file, first + 1)
    facts: list[StateFact] = []
    heading_state: State | None = None
    table_headers: list[str] | None = None
    for local, line in enumerate(lines[first:]):
        number = first + local
        if scan.in_code[local]:
            continue
        stripped = line.strip()
        if stripped.startswith("#"):
            title = stripped.lstrip("#").strip()
            heading_state = next((s for p, s in _HEADING_STATE if p.search(title)), None)
            table_headers = None
            continue
        where = f"{file} line {number + 1}"
        if mdblocks.is_table_row(line):
            cells = [c.strip() for c in mdblocks.split_table_row(line)]
            if table_headers is None:
                table_headers = [c.strip("* ").lower() for c in cells]
                continue
            if mdblocks.TABLE_DELIMITER.match(line):
                continue
            fact = _row_fact(table_headers, cells, heading_state, where, number)
            if fact is not None:
                facts.append(fact)
            continue
        table_headers = None
        if _NONE_ALL.match(stripped):  # "(none — all shutdown after Gate 3)" under Active Teammates
            state = state_of(stripped)
            if state is not None:
                facts += [StateFact(r, state, stripped, where, (1, number)) for r in known_roles]
            continue
        bullet = _BULLET.match(line)
        if bullet is None:
            continue
        who, said = bullet.group("who").strip("`* "), bullet.group("text")
        state = state_of(said) or heading_state
        if state is None:
            continue
        if is_role_id(who):
            facts.append(StateFact(who, state, said or stripped, where, (1, number)))
            continue
        group = re.match(r"^all\s+(?P<kind>[\w-]+?)s?$", who, re.I)  # "All implementers"
        kind = group.group("kind").lower() if group else None
        if kind in AGENT_TYPES:
            facts += [StateFact(r, state, said, where, (1, number)) for r in known_roles if role_type(r) == kind]
    return tuple(facts)


_NAME_HEADERS = ("teammate", "name", "role id", "role-id", "agent", "member", "role", "id")


def _row_fact(
    headers: list[str], cells: list[str], heading_state: State | None, where: str, number: int
) -> StateFact | None:
    """A teammate table's row, in any column order: the teammate from the column its header
    names (else the first), its state from a Status (or State) column, or, in a table without
    one, from the heading it stands under (``## Terminated Teammates``: name, reason, date)."""
    by_header = dict(zip(headers, cells, strict=False))
    column = next((h for name in _NAME_HEADERS for h in headers if h == name), headers[0] if headers else None)
    who = by_header.get(column or "", "").strip("*` ")
    if not is_role_id(who):
        return None  # "(all slots empty)", a phase number, a file: no teammate
    status_column = next((h for h in headers if "status" in h or h == "state"), None)
    if status_column is not None:
        said = by_header.get(status_column, "")
        state = state_of(said)
    else:
        said = " | ".join(c for c in cells if c)
        state = heading_state
    return StateFact(who, state, said, where, (1, number)) if state is not None else None


def is_role_id(text: str) -> bool:
    """A teammate's role id as plans write it: of a known agent type, and never holding a
    space (``- implementer-batch2 owns: a.md`` is prose about one, not a teammate)."""
    return bool(text) and not any(c.isspace() for c in text) and role_type(text) is not None


# Protocol statuses that share teammate_status with the lifecycle but say nothing of it.
PROTOCOL_STATUSES = frozenset({"CONTEXT_LOST", "CONTEXT_RECEIVED", "NEED_CLARIFICATION", "FULL_REQUESTED", "BLOCKED"})


_GC_VERSION = re.compile(r"\bGC-v(\d+)\b", re.I)


@functools.lru_cache(maxsize=8)
def listed_versions(
    text: str, body_start: int, file: str = "orchestration-plan.md"
) -> tuple[tuple[str, tuple[int, str]], ...]:
    """GC versions that bullet lists give teammates (``- researcher-1: GC-v1 (shutdown)`` under
    ``## Teammate Context Versions``): role → (version, source), the last line winning."""
    lines = split_lines(text)
    first = text.count("\n", 0, body_start)
    scan = mdblocks.scan(lines[first:], file, first + 1)
    found: dict[str, tuple[int, str]] = {}
    for local, line in enumerate(lines[first:]):
        bullet = _BULLET.match(line) if not scan.in_code[local] else None
        if bullet is None:
            continue
        who = bullet.group("who").strip("`* ")
        version = _GC_VERSION.search(bullet.group("text"))
        if version and is_role_id(who):
            found[who] = (int(version.group(1)), f"{file} line {first + local + 1}")
    return tuple(found.items())  # memoised: immutable, so no caller can change the cache


def front_matter_facts(statuses: dict[str, str], file: str = "orchestration-plan.md") -> list[StateFact]:
    """``teammate_status`` in the plan's front matter: the newest word (the app writes it when
    the Lead sets a state); protocol statuses such as CONTEXT_LOST are no state."""
    facts = []
    for role, status in statuses.items():
        if status.strip().upper() in PROTOCOL_STATUSES:
            continue
        state = state_of(status)
        if state is not None:
            facts.append(StateFact(role, state, status, f"{file} teammate_status", (2, 0)))
    return facts


def current_states(facts: list[StateFact]) -> dict[str, list[StateFact]]:
    """Per role key, its facts newest first."""
    by_role: dict[str, list[StateFact]] = {}
    for fact in facts:
        by_role.setdefault(role_key(fact.role), []).append(fact)
    return {key: sorted(found, key=lambda f: f.rank, reverse=True) for key, found in by_role.items()}
