"""The session's teammates: one per role id, the union of every place that names it (the
plan's keys, tables and lists, TEAM-MEMORY's sections, phase folders; SESSION-FOLDER.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from models.session.lifecycle import (
    RECEIVING,
    State,
    StateFact,
    current_states,
    front_matter_facts,
    listed_versions,
    plan_facts,
)
from models.session.plan import LastDelta, Plan
from models.session.roles import role_key, role_type
from models.session.team_memory import TeamMemory


def natural_key(text: str) -> list[object]:
    """Sort ``implementer-10`` after ``implementer-9``."""
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text)]


@dataclass(frozen=True)
class Teammate:
    """A teammate as the union of every place that names it (SESSION-FOLDER.md). Frozen: one
    reading is shared by the window, its workers and every snapshot of the session."""

    role: str
    confirmed: int | None = None
    sent: int | None = None
    status: str | None = None
    last_delta: LastDelta | None = None
    agent_type: str | None = None
    sources: tuple[str, ...] = ()
    state: State = "active"
    state_facts: tuple[StateFact, ...] = ()  # newest first; empty: none written

    @property
    def receives(self) -> bool:
        """Sent updates and pinged for ACKs (active or idle); the Lead can say otherwise."""
        return self.state in RECEIVING

    @property
    def state_source(self) -> str:
        return self.state_facts[0].describe() if self.state_facts else "no state written: taken as active"


@dataclass
class _Draft:
    """A teammate while ``read_teammates`` gathers what the files say of it."""

    role: str
    agent_type: str
    confirmed: int | None = None
    sent: int | None = None
    status: str | None = None
    last_delta: LastDelta | None = None
    sources: list[str] = field(default_factory=list)
    state: State = "active"
    state_facts: list[StateFact] = field(default_factory=list)

    def add_source(self, source: str) -> None:
        if source not in self.sources:
            self.sources.append(source)

    def done(self) -> Teammate:
        return Teammate(
            self.role,
            self.confirmed,
            self.sent,
            self.status,
            self.last_delta,
            self.agent_type,
            tuple(self.sources),
            self.state,
            tuple(self.state_facts),
        )


def read_teammates(
    plan: Plan | None, memory: TeamMemory | None, phase_roles: dict[str, list[int]], memory_file: str
) -> list[Teammate]:
    """Teammates from the plan's keys and tables, TEAM-MEMORY and phase folders; one per role
    id compared without case, with its lifecycle state from every statement of it."""
    found: dict[str, _Draft] = {}

    def get(role: str) -> _Draft:
        key = role_key(role)
        if key not in found:
            found[key] = _Draft(role, role_type(role) or re.sub(r"-\d+$", "", role))
        return found[key]

    if plan is not None:
        for role, version in plan.teammate_gc_versions.items():
            get(role).confirmed = version
            get(role).add_source("plan")
        for role, last in plan.teammate_gc_last_delta.items():
            get(role).sent = last.sent_version
            get(role).last_delta = last
            get(role).add_source("plan")
        for role, status in plan.teammate_status.items():
            get(role).status = status
            get(role).add_source("plan")
        # Plans are written top to bottom over time: a later table row is newer news, for
        # the columns it has (a later table without a Status column keeps the earlier one's).
        for row in plan.table_rows:
            mate = get(row.name)
            mate.add_source("plan table")
            if row.gc_version is not None and role_key(row.name) not in _keys(plan.teammate_gc_versions):
                mate.confirmed = row.gc_version
            if row.status and role_key(row.name) not in _keys(plan.teammate_status):
                mate.status = row.status
        for role, (version, _) in listed_versions(plan.text, plan.front.body_start):
            mate = get(role)
            mate.add_source("plan list")
            if mate.confirmed is None:
                mate.confirmed = version
    if memory is not None:
        for section in memory.roles():
            get(section.role).add_source("memory")
    for role, phases in phase_roles.items():
        mate = get(role)
        for number in phases:
            mate.add_source(f"phase-{number}")
    for key, facts in current_states(_state_facts(plan, memory, [m.role for m in found.values()], memory_file)).items():
        if key not in found:  # a role the plan only lists (or TEAM-MEMORY marks) is a teammate too
            get(facts[-1].role).add_source("plan list")
        mate = found[key]
        mate.state_facts = facts
        mate.state = facts[0].state
    # The Lead leads the team: plans list it among their people, yet it is sent no update.
    mates = (draft.done() for draft in found.values() if role_type(draft.role) != "lead")
    return sorted(mates, key=lambda t: natural_key(t.role))


def _state_facts(plan: Plan | None, memory: TeamMemory | None, roles: list[str], memory_file: str) -> list[StateFact]:
    facts: list[StateFact] = []
    if plan is not None:
        facts += front_matter_facts(plan.teammate_status)
        facts += plan_facts(plan.text, plan.front.body_start, tuple(roles))
    if memory is not None:
        for section in memory.roles():
            if section.replaced:
                where = f"{memory_file} line {section.line + 1}"
                facts.append(StateFact(section.role, "replaced", section.header, where, (0, section.line)))
    return facts


def _keys(mapping: Mapping[str, object]) -> set[str]:
    return {role_key(k) for k in mapping}
