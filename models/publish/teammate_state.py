"""The Lead sets a teammate's lifecycle state: ``teammate_status`` in the plan's front matter.

The plan's own statements (tables, lists, prose) stay as agents wrote them; the front matter
entry is newer than all of them (``models.session.lifecycle``), so the composer's recipients
follow it at once. One surgical edit, written atomically against the plan as it was read
(``models.actions.session_edits``).
"""

from __future__ import annotations

from models.session.lifecycle import STATES, State

STATUS_WORD: dict[State, str] = {
    "pending": "PENDING_SPAWN",
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
    aliases = {"shutdown": "shut down", "complete": "finished", "terminated": "shut down", "pending spawn": "pending"}
    wanted = aliases.get(wanted, wanted)
    for state in STATES:
        if state == wanted:
            return state
    raise StateError(f"unknown state {text!r}; use one of: {', '.join(STATES)}")
