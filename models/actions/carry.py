"""Carry out: the Lead's action for a reviewed reply, on disk, all of it or none of it: the
re-send into the outbox, the plan's confirmed version or status, and the ledger's lines (a
re-send's ``sent`` and the message's ``handled``), in one preview."""

from __future__ import annotations

from pathlib import Path

from models.actions.preview import Preview
from models.claude.delivery import InboxEntry, entry_for, summary_for
from models.claude.status import TeamView
from models.publish.publishing import utc_now
from models.review.actions import compose_resend, handled_line, plan_edit, resend_write
from models.review.ledger import LedgerUnreadable, handled_keys
from models.review.validation import Review
from models.session.folder import PLAN_FILE
from models.session.ledger_records import LEDGER
from models.session.roles import NOT_A_FILE_NAME, names_a_file
from models.session.snapshot import SessionView
from models.text.surgical import EditError
from models.text.transaction import FileWrite, edit_write


class CarriedAlready(Exception):
    """The message was carried out before (``done`` says what, and when); carrying it out again
    would write a second re-send and second ledger lines, so it takes the Lead's word."""

    def __init__(self, sender: str | None, done: str) -> None:
        self.done = done
        super().__init__(f"this message from {sender or '?'} was carried out already ({done})")


def prepare_carry_out(
    session: SessionView,
    result: Review,
    *,
    again: bool = False,
    now: str | None = None,
    team: TeamView | None = None,
) -> Preview:
    """The preview of carrying out ``result``. Raises ``CarriedAlready`` for a message carried
    out before, unless ``again``; a ledger that cannot be read blocks it (whether it was carried
    out cannot be told), as does a plan that cannot be edited. With a linked Claude Code
    ``team``, a re-send's inbox entry is in the preview, exactly as it will be delivered."""
    role = result.message.sender or "?"
    title = f"Carry out {result.action} for {role}"
    try:
        done = handled_keys(session.folder, strict=True).get((result.message.source, result.message.sha))
    except LedgerUnreadable as exc:
        why = f"{exc.strerror}: whether this message was carried out already cannot be told, so it is not"
        return Preview("carry-out", title, session.folder, blocked=(why,))
    if done is not None and not again:
        raise CarriedAlready(result.message.sender, done)
    now = now or utc_now()
    writes: list[FileWrite] = []
    lines: list[str] = []
    blocked: list[str] = []
    messages: tuple[tuple[str, Path], ...] = ()
    deliveries: tuple[InboxEntry, ...] = ()
    composed = compose_resend(session, result)
    if composed is not None and not names_a_file(role):
        blocked.append(f"the sender {role!r} {NOT_A_FILE_NAME}: its re-send would name no file of the outbox")
        composed = None
    if composed is not None:
        write, line = resend_write(session, result, *composed, now)
        writes.append(write)
        lines.append(line)
        messages = ((role, write.path),)
        if team is not None and team.team is not None and team.link is not None:
            rel = write.path.relative_to(session.folder).as_posix()
            version = session.gc.version if session.gc is not None else None
            summary = summary_for({"gc_version": version, "mode": composed[1]})
            deliveries = (entry_for(team.team, team.link, role, rel, version, summary, composed[0]),)
    edit = plan_edit(session, result)
    if edit is not None:
        try:
            write = edit_write(session.folder / PLAN_FILE, edit[0], edit[1])
        except (EditError, OSError) as exc:
            blocked.append(f"{PLAN_FILE}: {exc}")
        else:
            if not write.changes_nothing:
                writes.append(write)
    lines.append(handled_line(result, now))
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    said = "a sent and a handled line" if len(lines) == 2 else "a handled line"
    writes.append(FileWrite(session.folder / LEDGER, "append", said, data, None))
    return Preview(
        "carry-out",
        title,
        session.folder,
        tuple(writes),
        blocked=tuple(blocked),
        messages=messages,
        deliveries=deliveries,
    )
