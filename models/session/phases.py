"""The session's phase folders (``phase-N/``): the gate record in each and the teammates that
wrote into them, read from the folders alone; the session keeps what changed."""

from __future__ import annotations

import os
from pathlib import Path

from models.session.gates import GateRecord, parse_gate, phase_number
from models.session.teammates import natural_key
from models.text.problems import Problem
from models.text.textfile import Stamp, TextFile, read_text

GATE_FILE = "gate-record.yaml"
# Folders of a phase that are not teammates.
_NOT_ROLES = {"L3-full", "gc-history", "messages"}


def phase_folders(session_folder: Path) -> list[Path]:
    """The ``phase-N`` folders, in their numbers' order; none when the folder cannot be listed."""
    try:
        found = [p for p in session_folder.iterdir() if p.is_dir() and phase_number(p) is not None]
    except OSError:
        return []
    return sorted(found, key=lambda p: natural_key(p.name))


def read_gates(phases: list[Path]) -> tuple[list[GateRecord], list[Problem], dict[str, Stamp | None]]:
    """Each phase's gate record, in phase order, what is wrong with them, and the stamp of each
    file read (by its path in the session)."""
    gates: list[GateRecord] = []
    problems: list[Problem] = []
    stamps: dict[str, Stamp | None] = {}
    for folder in phases:
        path = folder / GATE_FILE
        if not os.path.lexists(path):
            continue
        rel = f"{folder.name}/{GATE_FILE}"
        try:
            loaded: TextFile = read_text(path, rel)
        except FileNotFoundError:
            continue  # gone since, or a link to nothing: no record, as for the session's files
        except OSError as exc:  # a folder or a FIFO where the record should be, say
            problems.append(Problem("error", rel, f"cannot be read: {exc.strerror}"))
            continue
        stamps[rel] = loaded.stamp
        gate = parse_gate(loaded.text, rel, phase_number(folder))
        problems += loaded.problems + gate.problems
        gates.append(gate)
    gates.sort(key=lambda g: (g.phase is None, g.phase or 0, g.path))
    return gates, problems, stamps


def read_phase_roles(phases: list[Path]) -> dict[str, list[int]]:
    """Each teammate that has a folder in a phase, and the phases it has one in."""
    roles: dict[str, list[int]] = {}
    for folder in phases:
        number = phase_number(folder)
        assert number is not None
        try:
            children = sorted(folder.iterdir(), key=lambda p: natural_key(p.name))
        except OSError:
            continue  # removed since it was listed (or unreadable): it names no teammate
        for child in children:
            if child.is_dir() and child.name not in _NOT_ROLES and not child.name.startswith("."):
                roles.setdefault(child.name, []).append(number)
    return roles
