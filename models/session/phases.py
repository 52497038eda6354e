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


def is_gate_record(name: str) -> bool:
    """``gate-record.yaml`` and the records beside it: ``gate-record-2.yaml`` (a second gate of
    the phase, as the app writes it), ``gate-record-revision.yaml`` (re-approved after a
    revision), as agents write them."""
    return name == GATE_FILE or (name.startswith("gate-record-") and name.endswith(".yaml"))


def _gate_order(path: Path) -> tuple[bool, list[object]]:
    """A phase's first record first, then the others by name (``-2`` before ``-10``)."""
    return (path.name != GATE_FILE, natural_key(path.name))


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
    """Each phase's gate records, in phase order (a phase's first record before those beside
    it), what is wrong with them, and the stamp of each file read (by its path in the session)."""
    gates: list[GateRecord] = []
    problems: list[Problem] = []
    stamps: dict[str, Stamp | None] = {}
    for folder in phases:
        for path in _gate_files(folder):
            rel = f"{folder.name}/{path.name}"
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
    gates.sort(key=lambda g: (g.phase is None, g.phase or 0, _gate_order(Path(g.path))))
    return gates, problems, stamps


def _gate_files(folder: Path) -> list[Path]:
    """The phase's gate records, the first one first; none when the folder cannot be listed."""
    try:
        names = [name for name in os.listdir(folder) if is_gate_record(name)]
    except OSError:
        return []
    return sorted((folder / name for name in names), key=_gate_order)


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
