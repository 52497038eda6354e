"""A TEAM-MEMORY change of the Lead's, as a review shows it.

The pane's actions (``app.memory_actions``) edit the file surgically at write time, on the file
as it is then, so what an agent wrote meanwhile stays: the review shows the change as the file
stood when it was asked for, and every file the write touches.
"""

from __future__ import annotations

from pathlib import Path

from models.actions.preview import Preview
from models.memory.journal import JOURNAL
from models.text.transaction import FileWrite


def memory_preview(path: Path, title: str, before: str, after: str) -> Preview:
    """A TEAM-MEMORY change as a review shows it: the file's change, and the journal line the
    app adds for it (so that a later look can tell its own removals from someone else's). The
    edit itself is made surgically on the file as it is at write time
    (``models.memory.edits``): what an agent wrote meanwhile stays."""
    folder = path.parent
    journal = "the app's record of this change"
    writes = (
        FileWrite(path, "replace" if before else "create", title, after.encode("utf-8"), None, before or None),
        FileWrite(folder / JOURNAL, "append", journal, b"", None),
    )
    return Preview("memory", title, folder, writes)
