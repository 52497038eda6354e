"""The one way an action is done: its preview written, exactly, all or nothing."""

from __future__ import annotations

from models.actions.preview import Outcome, Preview
from models.text.transaction import WriteRefused, write_all


def commit(preview: Preview) -> Outcome:
    """Write exactly what ``preview`` holds, or nothing: ``WriteRefused`` when it is blocked, a
    write would land outside the session folder, or any file changed since it was prepared
    (and when a write fails, after taking back the writes done so far)."""
    refusals = preview.refusals
    if refusals:
        raise WriteRefused(refusals)
    return Outcome(preview, write_all(preview.writes, preview.folder, preview.title, preview.last))
