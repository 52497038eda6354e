"""Delivering sent messages into teammates' Claude Code inboxes, never twice.

Publishing (and Carry out) write the message to ``messages/outbox/`` and a ``sent`` line to the
ledger, as always. Delivery then appends the outbox text, ended by a line saying to reply to the
lead with SendMessage, to the member's inbox under the link's sender name (not a reserved one:
a signing lead's teammates would see it unverified), with a short summary, under the inbox
lock, and records the outcome in the ledger: ``delivered`` with the entry's timestamp, or
``undelivered`` with the reason. Nothing is dropped silently: an undelivered message stays due,
shown, and is retried by Deliver.

Never twice: each attempt is journaled (``delivering``) before its inbox is written. An attempt
whose outcome was never recorded is looked for in the inbox and then in the teammate's
transcript; found, it is recorded as delivered; not found (Claude Code removes what it takes, and
a busy teammate holds it unseen), it is *undecided* and not written again until the Lead says so
(``again``). How far a delivered message got is ``models.claude.following``'s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from models.claude.following import follow, received_after, summary_for
from models.claude.mailbox import MailboxError, append_entries, read_inbox_entries
from models.claude.protocol import sender_problem, with_reply_line
from models.claude.team import Link, Team
from models.claude.transcripts import find_transcript, read_transcript
from models.review.ledger import append_ledger, read_ledger
from models.session.folder import PLAN_FILE
from models.session.ledger_records import DeliveryLine
from models.session.plan import parse_plan
from models.session.roles import role_key
from models.text.textfile import read_text

__all__ = ["Outcome", "deliver", "describe_outcomes", "ping", "ping_for_last", "recipient", "stamp_ms", "summary_for"]


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


def deliver(
    folder: Path, team: Team, link: Link, sent: Iterable[dict[str, Any]], again: frozenset[str] = frozenset()
) -> list[Outcome]:
    """Deliver each ``sent`` ledger entry to its role's member; record every outcome.

    ``again``: roles whose undecided earlier attempt the Lead chose to write once more. A
    ledger that cannot be read raises ``LedgerUnreadable``: nothing is delivered. A sender name
    that may not be used refuses every delivery, each recorded with why.
    """
    outcomes: list[Outcome] = []
    members = {m.name for m in team.members}
    ledger = read_ledger(folder, strict=True)  # an attempt it cannot see would be written twice
    refused = sender_problem(link.sender, members)
    for entry in sent:
        role, rel = str(entry.get("to")), str(entry.get("file"))
        member, why = recipient(team, link, role, members)
        version = entry.get("gc_version")
        step = partial(DeliveryLine, to=role, member=member, team=team.name, file=rel, gc_version=version)
        if why is None and refused is not None and refused[0]:
            why = f"not delivered as {refused[1]}"
        if why is None:
            try:
                text = read_text(folder / rel).text
            except OSError as exc:
                why = f"{rel}: {exc.strerror or exc}"
        if why is not None:
            outcomes.append(Outcome(role, member, rel, False, why))
            append_ledger(folder, [step(ts=stamp_ms(), direction="undelivered", reason=why).line()])
            continue
        assert member is not None  # named whenever no reason is given
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        open_attempt = _open_attempt(ledger, rel, member)
        if open_attempt is not None:  # written by an attempt that stopped before recording it?
            ts, sender = open_attempt
            found = _found(team, member, sender, summary_for(entry), ts)
            if found is not None:
                line = step(ts=stamp_ms(), direction="delivered", entry_ts=ts, sha256=sha, recovered=True)
                append_ledger(folder, [replace(line, sender=sender, found_in=found).line()])
                outcomes.append(Outcome(role, member, rel, True, None))
                continue
            if role not in again:
                why = (
                    f"an attempt at {ts} may have reached {member} (its inbox no longer holds it and its transcript "
                    "does not show it yet): not written again until you choose Deliver again"
                )
                undecided = step(ts=stamp_ms(), direction="undelivered", entry_ts=ts, reason=why, undecided=True)
                append_ledger(folder, [undecided.line()])
                outcomes.append(Outcome(role, member, rel, False, why))
                continue
        outcomes.append(_write(folder, team, link, entry, text, sha, step))
    return outcomes


def _write(
    folder: Path, team: Team, link: Link, entry: dict[str, Any], text: str, sha: str, step: partial[DeliveryLine]
) -> Outcome:
    """One attempt: journaled, written under the lock, recorded."""
    role, rel, member = str(entry.get("to")), str(entry.get("file")), str(step.keywords["member"])
    entry_ts = stamp_ms()
    append_ledger(folder, [step(ts=entry_ts, direction="delivering", entry_ts=entry_ts, sender=link.sender).line()])
    body = with_reply_line(
        text, team.lead, entry.get("gc_version") if isinstance(entry.get("gc_version"), int) else None
    )
    item = {"from": link.sender, "text": body, "summary": summary_for(entry), "timestamp": entry_ts, "read": False}
    inbox = team.inboxes / f"{member}.json"
    try:
        appended = append_entries(inbox, [item])
    except (MailboxError, OSError) as exc:
        why = str(exc) if isinstance(exc, MailboxError) else f"{inbox.name}: {exc.strerror or exc}; not written"
        append_ledger(folder, [step(ts=stamp_ms(), direction="undelivered", entry_ts=entry_ts, reason=why).line()])
        return Outcome(role, member, rel, False, why)
    held, waited = round(appended.held * 1000, 2), round(appended.waited * 1000)
    done = step(
        ts=entry_ts,
        direction="delivered",
        entry_ts=entry_ts,
        sha256=sha,
        lock_held_ms=held,
        lock_waited_ms=waited,
        sender=link.sender,
    )
    append_ledger(folder, [done.line()])
    return Outcome(role, member, rel, True, None, held, waited)


def _open_attempt(ledger: list[dict[str, Any]], rel: str, member: str) -> tuple[str, str] | None:
    """(entry time stamp, sender) of the last attempt at ``rel`` for ``member`` whose outcome
    was never recorded: no ``delivered`` line, and no ``undelivered`` one that knew it was not
    written (an undecided one leaves it open)."""
    settled = {
        str(e.get("entry_ts"))
        for e in ledger
        if e.get("direction") == "delivered" or (e.get("direction") == "undelivered" and not e.get("undecided"))
    }
    attempts = [
        (str(e.get("entry_ts")), str(e.get("sender") or "team-lead"))
        for e in ledger
        if e.get("direction") == "delivering" and e.get("file") == rel and e.get("member") == member
    ]
    return next((a for a in reversed(attempts) if a[0] not in settled), None)


def _found(team: Team, member: str, sender: str, summary: str, entry_ts: str) -> str | None:
    """Where an attempt written at ``entry_ts`` is found: "inbox" (the entry is there),
    "transcript" (the model got it), or None when neither shows it."""
    held = read_inbox_entries(team.inboxes / f"{member}.json") or []
    if any(isinstance(e, dict) and e.get("from") == sender and e.get("timestamp") == entry_ts for e in held):
        return "inbox"
    listed = team.member(member)
    path = find_transcript(team, listed) if listed is not None else None
    if path is not None and received_after(read_transcript(path, member).received, sender, summary, entry_ts):
        return "transcript"
    return None


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
    refused = sender_problem(link.sender, {m.name for m in team.members})
    if refused is not None and refused[0]:
        return Outcome(role, member, rel, False, f"not delivered as {refused[1]}")
    text = with_reply_line(
        f"[PING] GC-v{version} was sent to you at {since or '?'} and no [ACK-UPDATE] has arrived.", team.lead, version
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
    done = DeliveryLine(
        entry_ts, "delivered", role, member, team.name, rel, version, "PING", entry_ts=entry_ts, sender=link.sender
    )
    append_ledger(folder, [done.line()])
    return Outcome(role, member, rel, True, None, round(appended.held * 1000, 2), round(appended.waited * 1000))
