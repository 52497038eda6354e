"""What carrying out the Lead's action for a reviewed reply writes: a version confirmed or a
status set in the plan, a re-send composed for the outbox, the ledger's lines. Nothing here
writes: ``models.actions.carry`` puts it into a preview.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Literal

from models.delta.decisions import render_full, render_role_full
from models.delta.items import Delta, DeltaItem, Impact
from models.delta.message import render_message
from models.publish.publishing import utc_now
from models.review.validation import Review
from models.session.ledger_records import HandledLine, SentLine
from models.session.snapshot import SessionView
from models.text.surgical import set_front_entry
from models.text.transaction import FileWrite, create_write


def plan_edit(session: SessionView, result: Review) -> tuple[Callable[[str], str], str] | None:
    """The plan-side of the Lead's action, as an edit of the plan's text and its summary:
    confirmed versions and statuses. None when the action changes nothing in the plan."""
    role = result.message.sender
    if role is None:
        return None
    plan = session.plan
    if result.action == "confirm" and result.confirm_version is not None:
        version = result.confirm_version
        confirmed = plan.teammate_gc_versions.get(role, -1) if plan else -1
        if version <= confirmed:
            return None  # confirmed versions never go back (an old message carried out late)
        current = plan.teammate_status.get(role) if plan else None
        received = current in ("CONTEXT_LOST", "NEED_CLARIFICATION")

        def confirm(text: str) -> str:
            text = set_front_entry(text, "teammate_gc_versions", role, version)
            return set_front_entry(text, "teammate_status", role, "CONTEXT_RECEIVED") if received else text

        return confirm, f"{role} confirmed GC-v{version}" + ("; CONTEXT_RECEIVED" if received else "")
    status: str | None = None
    if result.action in ("resend", "full"):
        status = "NEED_CLARIFICATION"
    elif result.action in ("record", "lost", "attention") and result.status is not None and result.status.status:
        status = result.status.status
    if status is None:
        return None
    said = status
    return (lambda text: set_front_entry(text, "teammate_status", role, said)), f"teammate_status: {role} {said}"


def handled_line(result: Review, now: str | None = None) -> str:
    """The ledger line saying the Lead carried out the action for this message."""
    m = result.message
    return HandledLine(now or utc_now(), m.source, m.sha, m.sender, result.action).line()


def compose_resend(session: SessionView, result: Review) -> tuple[str, str] | None:
    """(message, mode) re-sending what an ACK found unclear, or the full GC (asked for, or a
    CONTEXT_LOST: FC-2; for a role that follows some sections, those); None if nothing is to
    be sent.

    The unclear references are re-sent whole: a REPLACED of each section they point into, with
    its current text, so the teammate gets the context around the item, not the item alone.
    """
    gc = session.gc
    role = result.message.sender
    if gc is None or role is None or result.action not in ("resend", "full", "lost"):
        return None
    version = gc.version
    follows = session.subscriptions.follows(role) if session.subscriptions is not None else None
    full = render_full(gc.text, version) if follows is None else render_role_full(gc.text, version, follows)
    if result.action in ("full", "lost") or not result.resend:
        return full, "full"
    items: list[DeltaItem] = []
    for ref in result.resend:
        found = gc.resolve(ref)
        if found is None:
            continue
        section = found.section
        body = gc.text[gc.line_starts[section.line + 1] : section.own_end].replace("\r\n", "\n")
        item = DeltaItem("REPLACED", section.ref[1:], content=body)
        if item not in items:
            items.append(item)
    if not items:
        return full, "full"
    reread = "re-read " + ", ".join(f"§{i.ref}" for i in items)
    return render_message(Delta(version, version, tuple(items), Impact((role,), reread))), "resend"


def resend_write(session: SessionView, result: Review, message: str, mode: str, now: str) -> tuple[FileWrite, str]:
    """The re-send's new file in the outbox (a name no file has yet) and its ``sent`` ledger
    line, which the caller appends with the rest of the action's lines."""
    role = result.message.sender or "unknown"
    version = session.gc.version if session.gc is not None else None
    outbox = session.folder / "messages" / "outbox"
    name = f"GC-v{version}-{role}-{mode}-{now.replace('-', '').replace(':', '')}"
    path, n = outbox / f"{name}.md", 2
    while os.path.lexists(path):  # two actions in one second share a time stamp
        path, n = outbox / f"{name}-{n}.md", n + 1
    data = message.encode("utf-8")
    rel = path.relative_to(session.folder).as_posix()
    follows = session.subscriptions.follows(role) if session.subscriptions is not None else None
    covered: tuple[str, ...] | Literal["all"] | None = None  # a re-read of some items: their changes only
    if mode == "full":
        covered = follows if follows is not None else "all"
    digest = hashlib.sha256(data).hexdigest()
    sent = SentLine(now, role, version, mode, rel, digest, reason=result.summary, follows=covered)
    return create_write(path, data, f"{mode} for {role}"), sent.line()
