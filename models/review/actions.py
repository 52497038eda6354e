"""Carrying out the Lead's action for a reviewed reply: confirm a version or set a status in
the plan, compose and record a re-send, and mark the message handled.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from models.delta.decisions import render_full
from models.delta.items import Delta, DeltaItem, Impact
from models.delta.message import render_message
from models.publish.publishing import utc_now
from models.review.ledger import append_ledger
from models.review.validation import Review
from models.session.folder import PLAN_FILE, Session
from models.text.atomic import atomic_write, create_new, read_for_update
from models.text.surgical import set_front_entry


def apply_review(session: Session, result: Review) -> bool:
    """Carry out the plan-side of the Lead's action: confirmed versions and statuses."""
    role = result.message.sender
    if role is None:
        return False
    path = session.folder / PLAN_FILE
    text, expected = read_for_update(path)
    new = text
    if result.action == "confirm" and result.confirm_version is not None:
        confirmed = session.plan.teammate_gc_versions.get(role, -1) if session.plan else -1
        if result.confirm_version <= confirmed:
            return False  # confirmed versions never go back (an old message carried out late)
        new = set_front_entry(new, "teammate_gc_versions", role, result.confirm_version)
        current = session.plan.teammate_status.get(role) if session.plan else None
        if current in ("CONTEXT_LOST", "NEED_CLARIFICATION"):
            new = set_front_entry(new, "teammate_status", role, "CONTEXT_RECEIVED")
    elif result.action in ("resend", "full"):
        new = set_front_entry(new, "teammate_status", role, "NEED_CLARIFICATION")
    elif result.action in ("record", "lost", "attention") and result.status is not None and result.status.status:
        new = set_front_entry(new, "teammate_status", role, result.status.status)
    else:
        return False
    if new == text:
        return False
    atomic_write(path, new.encode("utf-8"), expected)
    session.reload({"plan"})
    return True


def handled_line(result: Review) -> str:
    """The ledger line saying the Lead carried out the action for this message."""
    entry = {
        "ts": utc_now(),
        "direction": "handled",
        "source": result.message.source,
        "sha256": result.message.sha,
        "from": result.message.sender,
        "action": result.action,
    }
    return json.dumps(entry, ensure_ascii=False)


def mark_handled(folder: Path, result: Review) -> None:
    """Record in the ledger that the Lead carried out the action for this message."""
    append_ledger(folder, [handled_line(result)])


def compose_resend(session: Session, result: Review) -> tuple[str, str] | None:
    """(message, mode) re-sending what an ACK found unclear, or the full GC; None if nothing to send.

    The unclear references are re-sent whole: a REPLACED of each section they point into, with
    its current text, so the teammate gets the context around the item, not the item alone.
    """
    gc = session.gc
    role = result.message.sender
    if gc is None or role is None or result.action not in ("resend", "full"):
        return None
    version = gc.version
    if result.action == "full" or not result.resend:
        return render_full(gc.text, version), "full"
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
        return render_full(gc.text, version), "full"
    reread = "re-read " + ", ".join(f"§{i.ref}" for i in items)
    return render_message(Delta(version, version, tuple(items), Impact((role,), reread))), "resend"


def write_resend(session: Session, result: Review, message: str, mode: str) -> tuple[Path, str]:
    """Write the re-send to the outbox (a new file, never over another); return it and its
    ``sent`` ledger line, which the caller appends with the rest of the action's lines."""
    role = result.message.sender or "unknown"
    version = session.gc.version if session.gc is not None else None
    stamp = utc_now()
    rel = Path("messages") / "outbox" / f"GC-v{version}-{role}-{mode}-{stamp.replace('-', '').replace(':', '')}.md"
    path = session.folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path = create_new(path, message.encode("utf-8"))
    rel = path.relative_to(session.folder)
    entry = {
        "ts": stamp,
        "direction": "sent",
        "to": role,
        "kind": "CONTEXT-UPDATE",
        "gc_version": version,
        "mode": mode,
        "reason": result.summary,
        "file": rel.as_posix(),
        "sha256": hashlib.sha256(message.encode("utf-8")).hexdigest(),
    }
    return path, json.dumps(entry, ensure_ascii=False)


def record_resend(session: Session, result: Review, message: str, mode: str) -> Path:
    """Write the re-send to the outbox and the ledger, like any sent message."""
    path, line = write_resend(session, result, message, mode)
    append_ledger(session.folder, [line])
    return path
