"""Paste message…: a teammate's reply the Lead pasted, saved into the session's inbox like any
other (and never deleted), under a name of its own."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from models.actions.preview import Preview
from models.session.roles import NOT_A_FILE_NAME, names_a_file
from models.session.snapshot import SessionView
from models.text.transaction import create_write


class PasteError(ValueError):
    """The paste cannot be saved as asked; nothing was written."""


def prepare_paste(session: SessionView, text: str, sender: str | None, now: datetime | None = None) -> Preview:
    """The new file in ``messages/inbox/`` with a ``From:`` line when the sender is known.

    The sender names the file, so it must be a role id: a name with a path in it (``x/../..``)
    would put the file outside the session, and is refused."""
    if sender is not None and not names_a_file(sender):
        raise PasteError(f"{sender!r} {NOT_A_FILE_NAME}")
    inbox = session.folder / "messages" / "inbox"
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    name = f"{sender or 'unknown'}-pasted-{stamp}"
    path, n = inbox / f"{name}.md", 2
    while os.path.lexists(path):  # two pastes in one second: the second gets '-2'
        path, n = inbox / f"{name}-{n}.md", n + 1
    body = text if text.endswith("\n") else text + "\n"
    head = f"From: {sender}\n".encode() if sender else b""
    write = create_write(path, head + body.encode("utf-8"), f"the message from {sender or 'an unknown sender'}")
    return Preview("paste", f"Paste a message from {sender or '?'}", session.folder, (write,))
