"""A session as read at one moment, frozen: what a worker thread or an action is handed.

The live ``Session`` (``models.session.folder``) reloads part by part on the GUI thread as
agents write; a worker that held it read half of one version and half of the next. A snapshot
takes the parts as they are (the parsed GC, plan and TEAM-MEMORY are replaced on reload, never
changed, so they are shared, not copied), in frozen fields, tuples and read-only mappings: an
attempt to change one raises. ``SessionView`` is what read-only code asks of either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from models.session.gates import GateRecord, plan_gates
from models.session.gc import GlobalContext
from models.session.plan import Plan
from models.session.subscriptions import Subscriptions
from models.session.team_memory import TeamMemory
from models.session.teammates import Teammate
from models.text.problems import Problem
from models.text.textfile import Stamp
from models.text.tokens import Tokenizer

#: The parts of a session read (and reloaded) one by one.
Part = Literal["gc", "plan", "memory", "gates", "folders", "inbox", "subscriptions"]


class SessionView(Protocol):
    """What read-only code (a review, the Inbox pass, an action's prepare) reads of a session:
    the live ``Session`` on the GUI thread, or a ``SessionSnapshot`` anywhere."""

    @property
    def folder(self) -> Path: ...
    @property
    def tokenizer(self) -> Tokenizer: ...
    @property
    def gc(self) -> GlobalContext | None: ...
    @property
    def plan(self) -> Plan | None: ...
    @property
    def memory(self) -> TeamMemory | None: ...
    @property
    def subscriptions(self) -> Subscriptions | None: ...
    @property
    def gc_version(self) -> int | None: ...
    @property
    def current_phase(self) -> int | None: ...
    @property
    def all_gates(self) -> list[GateRecord]: ...

    @property
    def stamps(self) -> Mapping[str, Stamp | None]: ...
    @property
    def problems(self) -> Mapping[Part, Sequence[Problem]]: ...

    def teammates(self) -> list[Teammate]: ...
    def roles(self) -> tuple[str, ...]: ...
    def receiving_roles(self) -> tuple[str, ...]: ...
    def snapshot(self) -> SessionSnapshot:
        """The session as it is now, frozen (a snapshot is its own)."""
        ...


def gc_version_of(gc: GlobalContext | None, plan: Plan | None) -> int | None:
    """The GC's own version, else the plan's ``gc_version`` (SESSION-FOLDER.md)."""
    if gc is not None and gc.version is not None:
        return gc.version
    return plan.gc_version if plan is not None else None


def current_phase_of(plan: Plan | None) -> int | None:
    """The plan's ``current_phase`` (``3``, ``"3 COMPLETE → Phase 4 next"``: the first number)."""
    value = plan.front.data.get("current_phase") if plan is not None else None
    found = re.search(r"\d+", str(value)) if value is not None else None
    return int(found.group()) if found else None


def all_gates_of(gates: tuple[GateRecord, ...] | list[GateRecord], plan: Plan | None) -> list[GateRecord]:
    """Gate records from phase folders, and the plan's gate list for phases without one."""
    have = {g.phase for g in gates}
    listed = plan_gates(plan.text) if plan is not None else []
    merged = [*gates, *(g for g in listed if g.phase not in have)]
    return sorted(merged, key=lambda g: (g.phase is None, g.phase or 0))  # stable: a phase's records keep their order


@dataclass(frozen=True)
class SessionSnapshot:
    """Everything the app knew of one session folder at one moment."""

    folder: Path
    tokenizer: Tokenizer
    gc: GlobalContext | None
    plan: Plan | None
    memory: TeamMemory | None
    gates: tuple[GateRecord, ...]
    phase_roles: Mapping[str, tuple[int, ...]]
    problems: Mapping[Part, tuple[Problem, ...]]
    stamps: Mapping[str, Stamp | None]
    mates: tuple[Teammate, ...]
    subscriptions: Subscriptions | None = None

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def gc_version(self) -> int | None:
        return gc_version_of(self.gc, self.plan)

    @property
    def current_phase(self) -> int | None:
        return current_phase_of(self.plan)

    @property
    def all_gates(self) -> list[GateRecord]:
        return all_gates_of(self.gates, self.plan)

    def teammates(self) -> list[Teammate]:
        return list(self.mates)

    def roles(self) -> tuple[str, ...]:
        return tuple(m.role for m in self.mates)

    def receiving_roles(self) -> tuple[str, ...]:
        return tuple(m.role for m in self.mates if m.receives)

    def snapshot(self) -> SessionSnapshot:
        return self
