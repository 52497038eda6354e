"""Carry out: the Lead's action for a reviewed reply done on disk, all of it or none of it.

The window's Carry out and ``lead-console inbox --carry-out`` do the same writes in the same
order: the re-send into the outbox, then the plan, then every ledger line in one append, so
that the ledger never names a re-send that is not there; a failure at any step undoes what
came before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from models.review.actions import apply_review, compose_resend, handled_line, write_resend
from models.review.ledger import append_ledger
from models.review.validation import Review
from models.session.folder import PLAN_FILE, Session
from models.text.atomic import FileChangedError, atomic_write
from models.text.surgical import EditError
from models.text.textfile import read_bounded


class CarryError(Exception):
    """A carry-out that failed; the message says why and what was put back."""


@dataclass(frozen=True)
class Carried:
    """What a carry-out wrote: the re-send (its text and mode) and where, when there was one."""

    resend: tuple[str, str] | None
    written: Path | None


def carry_out(session: Session, result: Review) -> Carried:
    """Do ``result``'s action: confirm a version or set a status in the plan, write a re-send
    into the outbox when the action asks for one, and mark the message handled in the ledger."""
    plan_path = session.folder / PLAN_FILE
    plan_before = read_bounded(plan_path)[0] if plan_path.is_file() else None
    composed = compose_resend(session, result)  # no write yet
    written: Path | None = None
    lines: list[str] = []
    try:
        if composed is not None:
            written, sent_line = write_resend(session, result, *composed)
            lines.append(sent_line)
        apply_review(session, result)
        append_ledger(session.folder, [*lines, handled_line(result)])
    except (EditError, FileChangedError, OSError) as exc:
        undone = _undo(written, plan_path, plan_before)
        raise CarryError(f"Could not carry out {result.action}: {exc}. {undone}") from exc
    return Carried(composed, written)


def _undo(written: Path | None, plan_path: Path, plan_before: bytes | None) -> str:
    """Put back what a failed carry-out wrote before the ledger: the re-send and the plan."""
    notes = []
    try:
        if written is not None:
            written.unlink(missing_ok=True)
            notes.append("the re-send was removed")
        if plan_before is not None and plan_path.is_file() and read_bounded(plan_path)[0] != plan_before:
            atomic_write(plan_path, plan_before, None)
            notes.append("the plan was put back")
    except OSError as exc:
        return f"Undoing it failed too ({exc}); check {plan_path.name} and messages/outbox."
    return ("Nothing was changed: " + ", ".join(notes) + ".") if notes else "Nothing was changed."
