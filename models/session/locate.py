"""Where sessions are and what their paths are: the sessions a folder holds, and which part
of a session a changed path belongs to (what the watcher hands over is a path)."""

from __future__ import annotations

from pathlib import Path

from models.session.folder import GC_FILE, MEMORY_FILE, PLAN_FILE
from models.session.gates import phase_number
from models.session.phases import GATE_FILE, is_gate_record
from models.session.snapshot import Part
from models.session.subscriptions import SUBSCRIPTIONS_FILE

SESSION_MARKERS = (GC_FILE, PLAN_FILE, MEMORY_FILE)
_FILE_PARTS: dict[str, Part] = {
    GC_FILE: "gc",
    PLAN_FILE: "plan",
    MEMORY_FILE: "memory",
    SUBSCRIPTIONS_FILE: "subscriptions",
}


def part_of(session_folder: Path, path: Path) -> Part | None:
    """Which part of the session a changed path belongs to (None: not ours to read)."""
    try:
        rel = path.relative_to(session_folder)
    except ValueError:
        return None
    parts = rel.parts
    if not parts:
        return None
    if len(parts) == 1:
        return _FILE_PARTS.get(parts[0])
    if parts[:2] == ("messages", "inbox") and len(parts) == 3:
        return "inbox"
    if parts[0].startswith("phase-"):
        if len(parts) == 2 and is_gate_record(parts[1]):
            return "gates"
        if len(parts) == 2:
            return "folders"
    return None


def is_session_folder(path: Path) -> bool:
    """A folder with a GC, a plan or TEAM-MEMORY; or, before any of them exists, one holding
    ``phase-N/`` folders of teammates' outputs or gate records."""
    if not path.is_dir():
        return False
    if any((path / name).is_file() for name in SESSION_MARKERS):
        return True
    try:
        phases = [p for p in path.iterdir() if p.is_dir() and phase_number(p) is not None]
        return any((p / GATE_FILE).is_file() or any(c.is_dir() for c in p.iterdir()) for p in phases)
    except OSError:
        return False


def find_sessions(path: Path) -> list[Path]:
    """Sessions reachable from ``path``: the folder itself, a project's ``.agent/teams/``
    children, or the children of a folder of sessions."""
    path = path.expanduser().resolve()
    if is_session_folder(path):
        return [path]
    for base in (path / ".agent" / "teams", path / "teams", path):
        if base.is_dir():
            found = [p for p in base.iterdir() if is_session_folder(p)]
            if found:
                return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)
    return []
