"""Validating a teammate's reply against what was actually sent, and the action it asks of
the Lead (ADR-002 §5, made exact):

- applied == total (== items sent) and CONTINUE: confirm the version (teammate_gc_versions);
- applied < total or NEED_CLARIFICATION: re-send the unclear items, or the full GC when more
  than half is unclear; the teammate gets FC-5 on the next update;
- PAUSE: acknowledge and give guidance;
- no ACK within the timeout after a send: ping;
- [STATUS] CONTEXT_LOST: FC-2 until a full injection is confirmed (CONTEXT_RECEIVED GC-vN).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from models.review.inbox import Message
from models.review.ledger import items_sent_in, last_sent, read_ledger
from models.review.messages import Ack, DeltaReport, Status, parse_ack, parse_delta_report, parse_status
from models.session.snapshot import SessionView

DEFAULT_ACK_TIMEOUT_MIN = 10


@dataclass
class Review:
    """What a message says, what is wrong with it, and what the Lead should do."""

    message: Message
    ack: Ack | None = None
    status: Status | None = None
    report: DeltaReport | None = None
    problems: list[str] = field(default_factory=list)
    action: str = "none"  # confirm | resend | full | guide | lost | record | attention | none
    summary: str = ""
    confirm_version: int | None = None
    resend: list[str] = field(default_factory=list)  # the § refs to re-send


def _who(role: str | None) -> str:
    """The sender as a summary names it: a message may arrive with no sender we could read."""
    return role or "unknown sender"


def review(message: Message, session: SessionView) -> Review:
    """Check a message against what was sent and the GC; say what the Lead should do."""
    result = Review(message)
    kind = message.kind
    role = message.sender
    if kind == "ack":
        return _review_ack(result, session, role)
    if kind == "status":
        status = parse_status(message.text)
        result.status = status
        result.problems += status.unreadable
        if status.status == "CONTEXT_LOST":
            result.action, result.summary = (
                "lost",
                f"{_who(role)}: context lost — send the full GC (FC-2 until it confirms one)",
            )
        elif status.status == "CONTEXT_RECEIVED" and status.version is not None:
            sent = last_sent(session.folder, role) if role else None
            confirmed = session.plan.teammate_gc_versions.get(role or "", -1) if session.plan else -1
            if sent is not None and status.version != sent.get("gc_version"):
                result.problems.append(
                    f"stale: received GC-v{status.version}, GC-v{sent.get('gc_version')} was sent since"
                )
                result.summary = f"{_who(role)}: an old CONTEXT_RECEIVED, nothing to do"
            elif status.version <= confirmed:
                result.summary = f"{_who(role)}: GC-v{status.version} is already confirmed"
            else:
                result.action, result.confirm_version = "confirm", status.version
                result.summary = f"{_who(role)}: received GC-v{status.version} — confirm it"
        elif status.status == "BLOCKED":
            why = f": {status.detail}" if status.detail else ""
            result.action, result.summary = "attention", f"{_who(role)} is blocked{why}"
        elif status.status:
            result.action, result.summary = "record", f"{_who(role)}: {status.status}"
        else:
            result.summary = "unreadable status"
        return result
    if kind == "delta_report":
        report = parse_delta_report(message.text)
        result.report = report
        result.problems += report.unreadable
        levels = ", ".join(r.level or "?" for r in report.risks) or "no risks"
        result.action = "attention" if report.attention else "none"
        changes = f"{len(report.changes)} change" + ("" if len(report.changes) == 1 else "s")
        result.summary = f"{_who(role)}: DELTA report, {changes}, risks {levels}" + (
            ", needs consult" if report.needs_consult else ""
        )
        return result
    if kind == "protocol":
        result.summary = "Claude Code protocol message (kept out of the way)"
        return result
    result.problems.append("not a protocol message ([ACK-UPDATE], [STATUS], DELTA:) — shown raw")
    result.summary = "unknown message"
    return result


def _review_ack(result: Review, session: SessionView, role: str | None) -> Review:
    ack = parse_ack(result.message.text)
    result.ack = ack
    result.problems += ack.unreadable
    sent = last_sent(session.folder, role) if role else None
    if role is None:
        result.problems.append("sender unknown: cannot match the ACK to what was sent")
    elif sent is None:
        result.problems.append(f"nothing was sent to {role} (no 'sent' line in the ledger)")
    elif ack.version is not None and ack.version != sent.get("gc_version"):
        older = ack.version < int(sent.get("gc_version") or 0)
        result.problems.append(
            f"stale ACK: for GC-v{ack.version}, GC-v{sent.get('gc_version')} was sent since"
            if older
            else f"ACK for GC-v{ack.version}, which was never sent (last sent GC-v{sent.get('gc_version')})"
        )
    items_sent = items_sent_in(session.folder, sent) if sent else None
    if items_sent is not None and ack.total is not None and ack.total != items_sent:
        result.problems.append(f"says {ack.total} items, {items_sent} were sent")
    gc = session.gc
    unknown = [r for r in (ack.unclear or []) if gc is None or gc.resolve(r) is None]
    if unknown:
        result.problems.append("unknown §refs: " + ", ".join(f"§{r}" for r in unknown))
    stale = any(p.startswith(("stale ACK", "ACK for GC-v")) for p in result.problems)
    total = ack.total or items_sent or 0
    unclear = ack.unclear or []
    if stale:
        result.summary = f"{_who(role)}: a stale ACK, nothing to do"
    elif ack.action == "PAUSE":
        result.action, result.summary = "guide", f"{_who(role)} paused: acknowledge and give guidance"
    elif ack.action == "NEED_CLARIFICATION" or (
        ack.applied is not None and ack.total is not None and ack.applied < ack.total
    ):
        missing = len(unclear) if unclear else max(total - (ack.applied or 0), 1)
        if total and missing * 2 > total:
            result.action, result.summary = (
                "full",
                f"{_who(role)}: more than half unclear — send the full GC (FC-5 next update)",
            )
        else:
            result.action = "resend"
            result.resend = unclear
            refs = ", ".join(f"§{r}" for r in unclear) or "the items not applied"
            result.summary = f"{_who(role)}: re-send {refs} with more context (FC-5 next update)"
    elif (
        ack.action == "CONTINUE"
        and ack.applied is not None
        and ack.applied == ack.total
        and not stale
        and not ack.unreadable
    ):
        if items_sent is None or ack.total == items_sent:
            result.action, result.confirm_version = "confirm", ack.version
            result.summary = f"{_who(role)}: applied {ack.applied}/{ack.total} — confirm GC-v{ack.version}"
        else:
            result.action, result.summary = "resend", f"{_who(role)}: applied {ack.applied} of {items_sent} sent items"
    else:
        result.summary = f"{_who(role)}: ACK needs a look ({'; '.join(result.problems) or 'incomplete'})"
    return result


def due_pings(session: SessionView, now: datetime, timeout_min: int = DEFAULT_ACK_TIMEOUT_MIN) -> dict[str, str]:
    """Teammates sent an update with no ACK for that version within the timeout → since when."""
    ledger = read_ledger(session.folder)
    due: dict[str, str] = {}
    confirmed = session.plan.teammate_gc_versions if session.plan else {}
    resting = {m.role for m in session.teammates() if not m.receives}  # shut down or finished: no ping
    for entry in ledger:
        if entry.get("direction") != "sent":
            continue
        role, version, ts = entry.get("to"), entry.get("gc_version"), entry.get("ts")
        if not role or not ts or role in resting or confirmed.get(str(role), -1) >= int(version or 0):
            continue
        try:
            when = datetime.strptime(str(ts), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        except ValueError:
            continue
        if (now - when).total_seconds() > timeout_min * 60:
            due[str(role)] = str(ts)
    return due
