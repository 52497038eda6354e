"""The Lead sets a teammate's lifecycle state: ``teammate_status`` in the plan's front matter.

The plan's own statements (tables, lists, prose) stay as agents wrote them; the front matter
entry is newer than all of them (``models.session.lifecycle``), so the composer's recipients
follow it at once. One surgical edit, written atomically against the plan as it was read.
"""

from __future__ import annotations

from pathlib import Path

from models.session.folder import PLAN_FILE, Session
from models.session.lifecycle import STATES, State
from models.session.roles import role_key
from models.text.atomic import FileChangedError, atomic_write, read_for_update
from models.text.surgical import EditError, set_front_entry

STATUS_WORD: dict[State, str] = {
    "active": "ACTIVE",
    "idle": "IDLE",
    "finished": "COMPLETE",
    "shut down": "SHUTDOWN",
    "replaced": "REPLACED",
}


class StateError(Exception):
    """The state could not be written; nothing was."""


def parse_state(text: str) -> State:
    wanted = text.strip().lower().replace("_", " ").replace("-", " ")
    aliases = {"shutdown": "shut down", "complete": "finished", "terminated": "shut down"}
    wanted = aliases.get(wanted, wanted)
    for state in STATES:
        if state == wanted:
            return state
    raise StateError(f"unknown state {text!r}; use one of: {', '.join(STATES)}")


def set_teammate_state(session: Session, role: str, state: State) -> str:
    """Record ``state`` for ``role`` (matched without case); returns the role id as written."""
    mates = {role_key(m.role): m.role for m in session.teammates()}
    written = mates.get(role_key(role))
    if written is None:
        raise StateError(f"no teammate {role} in this session (teammates: {', '.join(sorted(mates.values()))})")
    path: Path = session.folder / PLAN_FILE
    try:
        text, expected = read_for_update(path)
        new = set_front_entry(text, "teammate_status", written, STATUS_WORD[state])
        atomic_write(path, new.encode("utf-8"), expected)
    except (EditError, FileChangedError, OSError) as exc:
        raise StateError(f"{PLAN_FILE}: {exc}") from exc
    return written
