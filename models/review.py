"""Reviewing what teammates send back: inboxes, the ledger, validation and the Lead's action.

Messages come from the session's ``messages/inbox/`` (one per file), from a Claude Code team's
mailbox (``~/.claude/teams/<team>/inboxes/<lead>.json``, only ever read) or are pasted. Each
is recorded once in ``messages/ledger.jsonl`` (by content hash and source), checked against
what was actually sent to that teammate (the ledger's ``sent`` lines and their outbox files),
and turned into the action ADR-002 §5 asks of the Lead, made exact:

- applied == total (== items sent) and CONTINUE: confirm the version (teammate_gc_versions);
- applied < total or NEED_CLARIFICATION: re-send the unclear items, or the full GC when more
  than half is unclear; the teammate gets FC-5 on the next update;
- PAUSE: acknowledge and give guidance;
- no ACK within the timeout after a send: ping;
- [STATUS] CONTEXT_LOST: FC-2 until a full injection is confirmed (CONTEXT_RECEIVED GC-vN).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from models.atomic import MISSING, atomic_write, read_for_update
from models.delta import Delta, DeltaItem, Impact
from models.delta_text import parse_message, render_message
from models.messages import Ack, DeltaReport, Kind, Status, classify, parse_ack, parse_delta_report, parse_status
from models.publish import LEDGER, utc_now
from models.session import PLAN_FILE, Session
from models.surgical import set_front_entry
from models.textfile import read_text
from models.update_plan import render_full

INBOX = Path("messages") / "inbox"
DEFAULT_ACK_TIMEOUT_MIN = 10


@dataclass(frozen=True)
class Message:
    """One message seen, from wherever it came."""

    source: str  # "inbox/<file>", "claude:<team>/<n>" or "pasted"
    sender: str | None
    text: str
    timestamp: str | None

    @property
    def kind(self) -> Kind:
        return classify(self.text)

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


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


# -- inboxes --------------------------------------------------------------------------------------


def sender_from(name: str, text: str, roles: list[str]) -> str | None:
    for line in text.splitlines()[:5]:
        if line.lower().startswith("from:"):
            return line.split(":", 1)[1].strip() or None
    matches = [r for r in roles if name.startswith(r)]
    return max(matches, key=len) if matches else None


def read_inbox(folder: Path, roles: list[str]) -> list[Message]:
    """The session's inbox files (.md/.txt), oldest name first; never deleted by the app."""
    inbox = folder / INBOX
    out = []
    for path in sorted(inbox.glob("*")) if inbox.is_dir() else []:
        if path.suffix not in (".md", ".txt") or path.name.startswith("."):
            continue
        loaded = read_text(path)
        stamp = datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        out.append(Message(f"inbox/{path.name}", sender_from(path.name, loaded.text, roles), loaded.text, stamp))
    return out


def read_claude_team(team_folder: Path, lead: str | None = None) -> tuple[list[str], list[Message], list[str]]:
    """(members, messages to the lead, problems) of a Claude Code team; read only.

    The schema is Claude Code's own and undocumented: unknown fields are ignored, missing
    ones tolerated, and a file that does not parse is reported, not guessed.
    """
    problems: list[str] = []
    members: list[str] = []
    try:
        config = json.loads((team_folder / "config.json").read_text(encoding="utf-8"))
        members = [str(m.get("name")) for m in config.get("members", []) if isinstance(m, dict) and m.get("name")]
        lead = lead or next(
            (
                str(m.get("name"))
                for m in config.get("members", [])
                if isinstance(m, dict) and m.get("agentType") == "team-lead"
            ),
            None,
        )
    except (OSError, json.JSONDecodeError, AttributeError) as exc:
        problems.append(f"config.json: {exc}")
    lead = lead or "team-lead"
    inbox = team_folder / "inboxes" / f"{lead}.json"
    messages: list[Message] = []
    try:
        items = json.loads(inbox.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return members, messages, problems
    except (OSError, json.JSONDecodeError) as exc:
        problems.append(f"inboxes/{lead}.json: {exc}")
        return members, messages, problems
    for n, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            problems.append(f"inboxes/{lead}.json item {n}: no text")
            continue
        sender = item.get("from")
        stamp = item.get("timestamp")
        messages.append(
            Message(
                f"claude:{team_folder.name}/{n}",
                str(sender) if sender else None,
                item["text"],
                str(stamp) if stamp else None,
            )
        )
    return members, messages, problems


# -- the ledger ---------------------------------------------------------------------------------------


def read_ledger(folder: Path) -> list[dict[str, Any]]:
    path = folder / LEDGER
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line being appended right now, or damaged: never guessed
        if isinstance(entry, dict):
            out.append(entry)
    return out


def record_received(folder: Path, messages: list[Message]) -> list[Message]:
    """Append the messages not yet in the ledger (by hash and source); return those new ones."""
    seen = {(e.get("sha256"), e.get("source")) for e in read_ledger(folder) if e.get("direction") == "received"}
    new = [m for m in messages if (m.sha, m.source) not in seen]
    if not new:
        return []
    lines = [
        json.dumps(
            {
                "ts": utc_now(),
                "direction": "received",
                "from": m.sender,
                "source": m.source,
                "kind": m.kind,
                "message_time": m.timestamp,
                "sha256": m.sha,
            },
            ensure_ascii=False,
        )
        for m in new
    ]
    _append_ledger(folder, lines)
    return new


def last_sent(folder: Path, role: str) -> dict[str, Any] | None:
    sent = [e for e in read_ledger(folder) if e.get("direction") == "sent" and e.get("to") == role]
    return sent[-1] if sent else None


def _items_sent(folder: Path, entry: dict[str, Any]) -> int | None:
    """How many delta items the sent message carried (None for a full injection)."""
    if entry.get("mode") != "delta" or not entry.get("file"):
        return None
    try:
        text = (folder / str(entry["file"])).read_text(encoding="utf-8")
    except OSError:
        return None
    return len(parse_message(text).delta.items)


# -- validation and the Lead's action ------------------------------------------------------------------


def review(message: Message, session: Session) -> Review:
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
            result.action, result.summary = "lost", f"{role}: context lost — FC-2 until a full injection is confirmed"
        elif status.status == "CONTEXT_RECEIVED" and status.version is not None:
            sent = last_sent(session.folder, role) if role else None
            confirmed = session.plan.teammate_gc_versions.get(role or "", -1) if session.plan else -1
            if sent is not None and status.version != sent.get("gc_version"):
                result.problems.append(
                    f"stale: received GC-v{status.version}, GC-v{sent.get('gc_version')} was sent since"
                )
                result.summary = f"{role}: an old CONTEXT_RECEIVED, nothing to do"
            elif status.version <= confirmed:
                result.summary = f"{role}: GC-v{status.version} is already confirmed"
            else:
                result.action, result.confirm_version = "confirm", status.version
                result.summary = f"{role}: received GC-v{status.version} — confirm it"
        elif status.status == "BLOCKED":
            result.action, result.summary = "attention", f"{role} is blocked"
        elif status.status:
            result.action, result.summary = "record", f"{role}: {status.status}"
        else:
            result.summary = "unreadable status"
        return result
    if kind == "delta_report":
        report = parse_delta_report(message.text)
        result.report = report
        result.problems += report.unreadable
        levels = ", ".join(r.level or "?" for r in report.risks) or "no risks"
        result.action = "attention" if report.attention else "none"
        result.summary = f"{role}: DELTA report, {len(report.changes)} changes, risks {levels}" + (
            ", needs consult" if report.needs_consult else ""
        )
        return result
    if kind == "protocol":
        result.summary = "Claude Code protocol message (kept out of the way)"
        return result
    result.problems.append("not a protocol message ([ACK-UPDATE], [STATUS], DELTA:) — shown raw")
    result.summary = "unknown message"
    return result


def _review_ack(result: Review, session: Session, role: str | None) -> Review:
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
    items_sent = _items_sent(session.folder, sent) if sent else None
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
        result.summary = f"{role}: a stale ACK, nothing to do"
    elif ack.action == "PAUSE":
        result.action, result.summary = "guide", f"{role} paused: acknowledge and give guidance"
    elif ack.action == "NEED_CLARIFICATION" or (
        ack.applied is not None and ack.total is not None and ack.applied < ack.total
    ):
        missing = len(unclear) if unclear else max(total - (ack.applied or 0), 1)
        if total and missing * 2 > total:
            result.action, result.summary = (
                "full",
                f"{role}: more than half unclear — send the full GC (FC-5 next update)",
            )
        else:
            result.action = "resend"
            result.resend = unclear
            refs = ", ".join(f"§{r}" for r in unclear) or "the items not applied"
            result.summary = f"{role}: re-send {refs} with more context (FC-5 next update)"
    elif (
        ack.action == "CONTINUE"
        and ack.applied is not None
        and ack.applied == ack.total
        and not stale
        and not ack.unreadable
    ):
        if items_sent is None or ack.total == items_sent:
            result.action, result.confirm_version = "confirm", ack.version
            result.summary = f"{role}: applied {ack.applied}/{ack.total} — confirm GC-v{ack.version}"
        else:
            result.action, result.summary = "resend", f"{role}: applied {ack.applied} of {items_sent} sent items"
    else:
        result.summary = f"{role}: ACK needs a look ({'; '.join(result.problems) or 'incomplete'})"
    return result


def due_pings(session: Session, now: datetime, timeout_min: int = DEFAULT_ACK_TIMEOUT_MIN) -> dict[str, str]:
    """Teammates sent an update with no ACK for that version within the timeout → since when."""
    ledger = read_ledger(session.folder)
    due: dict[str, str] = {}
    confirmed = session.plan.teammate_gc_versions if session.plan else {}
    for entry in ledger:
        if entry.get("direction") != "sent":
            continue
        role, version, ts = entry.get("to"), entry.get("gc_version"), entry.get("ts")
        if not role or not ts or confirmed.get(str(role), -1) >= int(version or 0):
            continue
        try:
            when = datetime.strptime(str(ts), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        except ValueError:
            continue
        if (now - when).total_seconds() > timeout_min * 60:
            due[str(role)] = str(ts)
    return due


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


def mark_handled(folder: Path, result: Review) -> None:
    """Record in the ledger that the Lead carried out the action for this message."""
    entry = {
        "ts": utc_now(),
        "direction": "handled",
        "source": result.message.source,
        "sha256": result.message.sha,
        "from": result.message.sender,
        "action": result.action,
    }
    _append_ledger(folder, [json.dumps(entry, ensure_ascii=False)])


def _append_ledger(folder: Path, lines: list[str]) -> None:
    path = folder / LEDGER
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, "".join(line + "\n" for line in lines).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


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


def record_resend(session: Session, result: Review, message: str, mode: str) -> Path:
    """Write the re-send to the outbox and the ledger, like any sent message."""
    role = result.message.sender or "unknown"
    version = session.gc.version if session.gc is not None else None
    stamp = utc_now()
    rel = Path("messages") / "outbox" / f"GC-v{version}-{role}-{mode}-{stamp.replace('-', '').replace(':', '')}.md"
    path = session.folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, message.encode("utf-8"), MISSING)
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
    _append_ledger(session.folder, [json.dumps(entry, ensure_ascii=False)])
    return path
