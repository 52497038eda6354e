"""Delivering sent messages into teammates' Claude Code inboxes, and following each one.

Publishing (and Carry out) write the message to ``messages/outbox/`` and a ``sent`` line to the
ledger, as always. Delivery then appends the outbox text to the member's inbox as plain text
with a short summary, under the inbox lock, and records the outcome in the ledger: ``delivered``
with the entry's timestamp, or ``undelivered`` with the reason (a busy lock, an array that does
not parse, no member for the role). Nothing is dropped silently: an undelivered message stays
due, shown, and is retried by Deliver.

Following a delivered message: *written* once the entry is in the inbox, *picked up* when the
entry turned ``read`` or the inbox drained past it, *ACKed* when the teammate confirmed the
version.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from models.claude.mailbox import MailboxError, append_entries, read_inbox_entries
from models.claude.team import Link, Team
from models.review.ledger import append_ledger, read_ledger
from models.session.folder import PLAN_FILE
from models.session.ledger_records import DeliveryLine
from models.session.plan import parse_plan
from models.session.roles import role_key
from models.text.textfile import read_text


def stamp_ms(now: datetime | None = None) -> str:
    """Claude Code's timestamp form: ISO 8601, milliseconds, Z."""
    moment = now or datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class Outcome:
    """What delivering one sent message did."""

    role: str
    member: str | None
    file: str
    delivered: bool
    reason: str | None = None
    lock_held_ms: float = 0.0
    lock_waited_ms: float = 0.0


def describe_outcomes(outcomes: list[Outcome]) -> str:
    """One line for the status bar: how many reached the team's inboxes, the waits for a busy
    inbox lock of a second or more, and each one not delivered with why."""
    failed = [o for o in outcomes if not o.delivered]
    done = len(outcomes) - len(failed)
    text = f"Delivered {done} of {len(outcomes)} into the team's inboxes" if outcomes else "Nothing to deliver"
    slow = [o for o in outcomes if o.delivered and o.lock_waited_ms >= 1000]
    if slow:  # another writer held an inbox lock: delivery waited for it
        text += "; waited for a busy inbox lock: " + ", ".join(
            f"{o.member} {o.lock_waited_ms / 1000:.1f} s" for o in slow
        )
    if failed:
        text += "; not delivered: " + "; ".join(f"{o.role}: {o.reason}" for o in failed) + " (Deliver retries)"
    return text


def summary_for(entry: dict[str, Any]) -> str:
    """A 5-10 word preview Claude Code shows beside the message."""
    version, mode = entry.get("gc_version"), entry.get("mode") or "update"
    kind = entry.get("kind") or "CONTEXT-UPDATE"
    return f"{kind} GC-v{version} ({mode})"


def recipient(team: Team, link: Link, role: str, members: set[str] | None = None) -> tuple[str | None, str | None]:
    """(the member ``role``'s messages go to, why none can): the member the link names, when
    the team has it. A role with no member is never written to: Claude Code would create an
    orphan inbox. ``members``: the team's member names, when the caller has them."""
    member = link.members.get(role) or None
    names = members if members is not None else {m.name for m in team.members}
    if member is None:
        return None, f"{role} is linked to no member of team {team.name}"
    if member not in names:
        return member, f"{member} is no member of team {team.name} (Claude Code would create an orphan inbox)"
    return member, None


def deliver(folder: Path, team: Team, link: Link, sent: Iterable[dict[str, Any]]) -> list[Outcome]:
    """Deliver each ``sent`` ledger entry to its role's member; record every outcome.

    Each delivery is journaled in the ledger before its inbox is written (``delivering``) and
    recorded after (``delivered``), one at a time, so that a failure anywhere leaves nothing
    half-known: an attempt whose record is missing is found in the inbox by its time stamp on
    the next delivery and recorded then, never written to the teammate a second time. A ledger
    that cannot be read raises ``LedgerUnreadable``: nothing is delivered.
    """
    outcomes: list[Outcome] = []
    members = {m.name for m in team.members}
    ledger = read_ledger(folder, strict=True)  # an attempt it cannot see would be written twice
    for entry in sent:
        role, rel = str(entry.get("to")), str(entry.get("file"))
        member, why = recipient(team, link, role, members)
        version = entry.get("gc_version")

        step = partial(DeliveryLine, to=role, member=member, team=team.name, file=rel, gc_version=version)

        if why is not None:
            outcomes.append(Outcome(role, member, rel, False, why))
            append_ledger(folder, [step(ts=stamp_ms(), direction="undelivered", reason=why).line()])
            continue
        assert member is not None  # named whenever no reason is given
        try:
            text = read_text(folder / rel).text
        except OSError as exc:
            why = f"{rel}: {exc.strerror or exc}"
            outcomes.append(Outcome(role, member, rel, False, why))
            append_ledger(folder, [step(ts=stamp_ms(), direction="undelivered", reason=why).line()])
            continue
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        inbox = team.inboxes / f"{member}.json"
        earlier = _arrived_unrecorded(ledger, inbox, link.sender, rel, member)
        if earlier is not None:  # written by an attempt that stopped before recording it
            append_ledger(
                folder,
                [step(ts=stamp_ms(), direction="delivered", entry_ts=earlier, sha256=sha, recovered=True).line()],
            )
            outcomes.append(Outcome(role, member, rel, True, None))
            continue
        entry_ts = stamp_ms()
        append_ledger(folder, [step(ts=entry_ts, direction="delivering", entry_ts=entry_ts).line()])
        item = {"from": link.sender, "text": text, "summary": summary_for(entry), "timestamp": entry_ts, "read": False}
        try:
            appended = append_entries(inbox, [item])
        except (MailboxError, OSError) as exc:
            why = str(exc) if isinstance(exc, MailboxError) else f"{inbox.name}: {exc.strerror or exc}; not written"
            outcomes.append(Outcome(role, member, rel, False, why))
            append_ledger(folder, [step(ts=stamp_ms(), direction="undelivered", reason=why).line()])
            continue
        held, waited = round(appended.held * 1000, 2), round(appended.waited * 1000)
        done = step(
            ts=entry_ts, direction="delivered", entry_ts=entry_ts, sha256=sha, lock_held_ms=held, lock_waited_ms=waited
        )
        append_ledger(folder, [done.line()])
        outcomes.append(Outcome(role, member, rel, True, None, held, waited))
    return outcomes


def _arrived_unrecorded(ledger: list[dict[str, Any]], inbox: Path, sender: str, rel: str, member: str) -> str | None:
    """The time stamp of an earlier attempt at ``rel`` that reached ``member``'s inbox but was
    never recorded as delivered; None when there was none, or it never arrived."""
    attempts = [
        str(e.get("entry_ts"))
        for e in ledger
        if e.get("direction") == "delivering" and e.get("file") == rel and e.get("member") == member
    ]
    if not attempts:
        return None
    held = read_inbox_entries(inbox) or []
    stamps = {str(e.get("timestamp")) for e in held if isinstance(e, dict) and e.get("from") == sender}
    return next((ts for ts in reversed(attempts) if ts in stamps), None)


def ping_for_last(folder: Path, team: Team, link: Link, role: str) -> Outcome:
    """Remind ``role`` to ACK the last update sent to it (the window's Ping, and ``team
    --ping``): that update's version and when it was sent, as the ledger has them, else as the
    plan's ``teammate_gc_last_delta`` has them (an update sent before the app kept a ledger).
    With neither, there is nothing to ACK, and nothing is delivered."""
    last = follow(folder, team, link, {}).get(role)
    version, since = (last.gc_version, last.sent_ts) if last else _plan_last_sent(folder, role)
    if version is None:
        member = link.members.get(role) or None
        reason = f"no update was sent to {role} (the ledger and the plan's teammate_gc_last_delta name none)"
        return Outcome(role, member, f"ping:{role}", False, reason)
    return ping(folder, team, link, role, version, since)


def _plan_last_sent(folder: Path, role: str) -> tuple[int | None, str | None]:
    """The version last sent to ``role`` and when, as the session's plan records them."""
    try:
        plan = parse_plan(read_text(folder / PLAN_FILE).text, PLAN_FILE)
    except OSError:
        return None, None
    last = next((v for k, v in plan.teammate_gc_last_delta.items() if role_key(k) == role_key(role)), None)
    return (last.sent_version, last.timestamp) if last is not None else (None, None)


def ping(folder: Path, team: Team, link: Link, role: str, version: int | None, since: str | None) -> Outcome:
    """Deliver a reminder to ACK (no outbox file: it is no update, and never the last sent)."""
    member = link.members.get(role) or None
    rel = f"ping:{role}:{stamp_ms()}"
    if member is None or team.member(member) is None:
        return Outcome(role, member, rel, False, f"{role} is linked to no member of team {team.name}")
    text = (
        f"[PING] GC-v{version} was sent to you at {since or '?'} and no [ACK-UPDATE] has arrived. "
        f"Please reply with [ACK-UPDATE] GC-v{version} (applied/total, impact, action, unclear items)."
    )
    entry_ts = stamp_ms()
    item = {
        "from": link.sender,
        "text": text,
        "summary": f"PING: ACK GC-v{version}",
        "timestamp": entry_ts,
        "read": False,
    }
    try:
        appended = append_entries(team.inboxes / f"{member}.json", [item])
    except MailboxError as exc:
        failed = DeliveryLine(stamp_ms(), "undelivered", role, member, team.name, rel, version, "PING", reason=str(exc))
        append_ledger(folder, [failed.line()])
        return Outcome(role, member, rel, False, str(exc))
    done = DeliveryLine(entry_ts, "delivered", role, member, team.name, rel, version, "PING", entry_ts=entry_ts)
    append_ledger(folder, [done.line()])
    return Outcome(role, member, rel, True, None, round(appended.held * 1000, 2), round(appended.waited * 1000))


@dataclass(frozen=True)
class Followed:
    """The last update sent to one role, and how far it got."""

    role: str
    member: str | None
    file: str
    gc_version: int | None
    mode: str | None
    sent_ts: str | None
    delivered_ts: str | None  # None: not (yet) written to the inbox
    reason: str | None  # why the last attempt failed, when it did
    picked_up: bool | None  # None: unknown (no inbox to look at)
    acked: bool

    @property
    def state(self) -> str:
        """One word for the table: undelivered, written, picked up, ACKed."""
        if self.acked:
            return "ACKed"
        if self.delivered_ts is None:
            return "undelivered"
        return "picked up" if self.picked_up else "written"


def _picked_up(team: Team, member: str, sender: str, entry_ts: str) -> bool | None:
    entries = read_inbox_entries(team.inboxes / f"{member}.json")
    if entries is None:
        return None
    for item in entries:
        if isinstance(item, dict) and item.get("timestamp") == entry_ts and item.get("from") == sender:
            return item.get("read") is True
    return True  # drained past it: the harness took it


def follow(
    folder: Path,
    team: Team | None,
    link: Link | None,
    confirmed: dict[str, int],
    ledger: list[dict[str, Any]] | None = None,
    acks: set[tuple[str, int]] | None = None,
) -> dict[str, Followed]:
    """Role → the last update sent to it (a CONTEXT-UPDATE or a re-send) and its state. An
    update is ACKed when the teammate's [ACK-UPDATE] for its version arrived (``acks``: role and
    version), or the plan already confirms that version."""
    entries = ledger if ledger is not None else read_ledger(folder)
    last_sent: dict[str, dict[str, Any]] = {}
    delivered: dict[str, dict[str, Any]] = {}
    failed: dict[str, dict[str, Any]] = {}
    for e in entries:
        direction, rel = e.get("direction"), str(e.get("file"))
        if direction == "sent" and e.get("to"):
            last_sent[str(e["to"])] = e
        elif direction == "delivered":
            delivered[rel] = e
            failed.pop(rel, None)
        elif direction == "undelivered":
            failed[rel] = e
    out = {}
    for role, sent in last_sent.items():
        rel = str(sent.get("file"))
        done = delivered.get(rel)
        member = (done or {}).get("member") or (link.members.get(role) if link else None)
        version = sent.get("gc_version") if isinstance(sent.get("gc_version"), int) else None
        acked = version is not None and (confirmed.get(role, -1) >= version or (role, version) in (acks or set()))
        picked = None
        if done is not None and team is not None and member:
            picked = _picked_up(team, str(member), link.sender if link else "team-lead", str(done.get("entry_ts")))
        reason = (failed.get(rel) or {}).get("reason") if done is None else None
        out[role] = Followed(
            role,
            str(member) if member else None,
            rel,
            version,
            sent.get("mode"),
            sent.get("ts"),
            done.get("ts") if done else None,
            str(reason) if reason else None,
            picked,
            acked,
        )
    return out


def undelivered(folder: Path, ledger: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The last ``sent`` entry of each role when it was never delivered: Deliver's list (an
    older message superseded by a newer one is not delivered late)."""
    entries = ledger if ledger is not None else read_ledger(folder)
    done = {str(e.get("file")) for e in entries if e.get("direction") == "delivered"}
    last: dict[str, dict[str, Any]] = {}
    for e in entries:
        if e.get("direction") == "sent" and e.get("to"):
            last[str(e["to"])] = e
    return [e for e in last.values() if str(e.get("file")) not in done]


def presumed_lost(role: str, compactions: list[str], confirmed: int | None, ledger: list[dict[str, Any]]) -> str | None:
    """The compaction's time when the teammate compacted after its last confirmed full injection
    reached it (its GC is now a summary), else None. A teammate with no confirmed GC loses none."""
    if confirmed is None or confirmed < 0 or not compactions:
        return None
    reached: dict[str, str] = {}
    for e in ledger:
        if e.get("direction") == "delivered" and e.get("to") == role:
            reached[str(e.get("file"))] = str(e.get("ts"))
    full = ""
    for e in ledger:
        if e.get("direction") == "sent" and e.get("to") == role and e.get("mode") == "full":
            version = e.get("gc_version")
            if isinstance(version, int) and version <= confirmed:
                full = max(full, reached.get(str(e.get("file")), str(e.get("ts") or "")))
    latest = max(compactions)
    return latest if latest > full else None
