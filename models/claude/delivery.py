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
from typing import Any, Literal

from models.claude.following import follow, received_after, summary_for
from models.claude.mailbox import MailboxError, append_entries, read_inbox_entries
from models.claude.protocol import NAME, sender_problem, with_reply_line
from models.claude.team import Link, Team
from models.claude.transcript_read import read_transcript
from models.claude.transcripts import find_transcript
from models.review.ledger import append_ledger, read_ledger
from models.session.folder import PLAN_FILE
from models.session.ledger_records import DeliveryLine
from models.session.plan import parse_plan
from models.session.roles import role_key
from models.text.textfile import read_text

__all__ = [
    "InboxEntry",
    "Outcome",
    "carry_out",
    "deliver",
    "describe_outcomes",
    "entry_for",
    "plan_delivery",
    "plan_ping",
    "recipient",
    "stamp_ms",
    "summary_for",
]


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
    if not NAME.fullmatch(member):  # config.json is read, not trusted: a name is never a path
        return None, f"{member!r} is not a member name Claude Code accepts; nothing is written for it"
    return member, None


@dataclass(frozen=True)
class InboxEntry:
    """One message's delivery, decided before anything is written: what will be done
    (``write`` the entry, ``record`` an earlier attempt found delivered, mark it ``undecided``,
    or ``refuse``), why, and for a write the exact entry: its sender, summary and text."""

    role: str
    member: str | None
    inbox: Path | None
    file: str  # the outbox file (session-relative), or "ping:<role>:<time>"
    team: str
    gc_version: int | None
    what: Literal["write", "record", "undecided", "refuse"]
    reason: str | None = None
    sender: str = ""
    summary: str = ""
    text: str | None = None  # the entry's text, byte for byte as written
    sha256: str | None = None  # of the outbox file as read: a changed file is not delivered
    entry_ts: str | None = None  # the earlier attempt's, for record and undecided
    found_in: str | None = None
    kind: str | None = None  # "PING" for a reminder

    def describe(self) -> str:
        """One line of a review."""
        target = f"{self.member}'s inbox" if self.member else "no inbox"
        if self.what == "write":
            return f"deliver {self.role}'s {self.summary} into {target} ({self.inbox}) as {self.sender}"
        if self.what == "record":
            return f"record {self.role}'s {self.summary} as delivered: {self.reason}"
        return f"not delivered: {self.role}'s {self.summary or 'message'} ({self.reason})"


def entry_for(
    team: Team, link: Link, role: str, rel: str, version: int | None, summary: str, message: str | None
) -> InboxEntry:
    """The entry ``message`` (an outbox file's text, or None when it cannot be read) becomes in
    ``role``'s member's inbox, or why it is not written."""
    members = {m.name for m in team.members}
    member, why = recipient(team, link, role, members)
    refused = sender_problem(link.sender, members)
    if why is None and refused is not None and refused[0]:
        why = f"not delivered as {refused[1]}"
    if why is None and message is None:
        why = f"{rel} cannot be read"
    inbox = team.inboxes / f"{member}.json" if member else None
    if why is not None or message is None:
        return InboxEntry(role, member, inbox, rel, team.name, version, "refuse", why, link.sender, summary)
    sha = hashlib.sha256(message.encode("utf-8")).hexdigest()
    text = with_reply_line(message, team.lead, version)
    return InboxEntry(role, member, inbox, rel, team.name, version, "write", None, link.sender, summary, text, sha)


def plan_delivery(
    folder: Path, team: Team, link: Link, sent: Iterable[dict[str, Any]], again: frozenset[str] = frozenset()
) -> tuple[InboxEntry, ...]:
    """What delivering each ``sent`` ledger entry to its role's member will do. An attempt whose
    outcome was never recorded is looked for in the inbox and the transcript first; one found
    nowhere is undecided unless its role is in ``again`` (the Lead chose to write it once more).
    A ledger that cannot be read raises ``LedgerUnreadable``: an attempt it cannot see would be
    written twice."""
    ledger = read_ledger(folder, strict=True)
    out = []
    for entry in sent:
        role, rel = str(entry.get("to")), str(entry.get("file"))
        version = entry.get("gc_version") if isinstance(entry.get("gc_version"), int) else None
        try:
            message: str | None = read_text(folder / rel).text
        except OSError:
            message = None
        planned = entry_for(team, link, role, rel, version, summary_for(entry), message)
        attempt = _open_attempt(ledger, rel, planned.member) if planned.what == "write" and planned.member else None
        if attempt is not None:
            ts, sender = attempt
            found = _found(team, str(planned.member), sender, planned.summary, ts)
            if found is not None:
                why = f"an attempt at {ts} is in the {found}"
                planned = replace(planned, what="record", reason=why, entry_ts=ts, found_in=found, sender=sender)
            elif role not in again:
                why = (
                    f"an attempt at {ts} may have reached {planned.member} (its inbox no longer holds it and its "
                    "transcript does not show it yet): not written again until you choose Deliver again"
                )
                planned = replace(planned, what="undecided", reason=why, entry_ts=ts, sender=sender)
        out.append(planned)
    return tuple(out)


def carry_out(folder: Path, entries: Iterable[InboxEntry]) -> list[Outcome]:
    """Do what each planned entry says, recording every outcome in the ledger: a write is
    journaled (``delivering``), appended under the inbox lock and recorded; an outbox file that
    changed since it was planned is not delivered."""
    outcomes = []
    for e in entries:
        step = partial(
            DeliveryLine, to=e.role, member=e.member, team=e.team, file=e.file, gc_version=e.gc_version, kind=e.kind
        )
        if e.what == "write" and e.sha256 is not None and _sha_now(folder / e.file) != e.sha256:
            e = replace(e, what="refuse", reason=f"{e.file} changed since the preview; deliver it again")
        if e.what == "record":
            line = step(ts=stamp_ms(), direction="delivered", entry_ts=e.entry_ts, sha256=e.sha256, recovered=True)
            append_ledger(folder, [replace(line, sender=e.sender, found_in=e.found_in).line()])
            outcomes.append(Outcome(e.role, e.member, e.file, True, None))
        elif e.what == "write":
            outcomes.append(_write(folder, e, step))
        else:
            line = step(ts=stamp_ms(), direction="undelivered", reason=e.reason, entry_ts=e.entry_ts)
            append_ledger(folder, [replace(line, undecided=e.what == "undecided").line()])
            outcomes.append(Outcome(e.role, e.member, e.file, False, e.reason))
    return outcomes


def deliver(
    folder: Path, team: Team, link: Link, sent: Iterable[dict[str, Any]], again: frozenset[str] = frozenset()
) -> list[Outcome]:
    """Plan and carry out the delivery of each ``sent`` ledger entry (``plan_delivery``)."""
    return carry_out(folder, plan_delivery(folder, team, link, sent, again))


def _sha_now(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_text(path).text.encode("utf-8")).hexdigest()
    except OSError:
        return None


def _write(folder: Path, e: InboxEntry, step: partial[DeliveryLine]) -> Outcome:
    """One attempt: journaled, written under the lock, recorded."""
    assert e.inbox is not None and e.text is not None  # planned writes name both
    entry_ts = stamp_ms()
    append_ledger(folder, [step(ts=entry_ts, direction="delivering", entry_ts=entry_ts, sender=e.sender).line()])
    item = {"from": e.sender, "text": e.text, "summary": e.summary, "timestamp": entry_ts, "read": False}
    try:
        appended = append_entries(e.inbox, [item])
    except (MailboxError, OSError) as exc:
        why = str(exc) if isinstance(exc, MailboxError) else f"{e.inbox.name}: {exc.strerror or exc}; not written"
        append_ledger(folder, [step(ts=stamp_ms(), direction="undelivered", entry_ts=entry_ts, reason=why).line()])
        return Outcome(e.role, e.member, e.file, False, why)
    held, waited = round(appended.held * 1000, 2), round(appended.waited * 1000)
    done = step(
        ts=entry_ts,
        direction="delivered",
        entry_ts=entry_ts,
        sha256=e.sha256,
        lock_held_ms=held,
        lock_waited_ms=waited,
        sender=e.sender,
    )
    append_ledger(folder, [done.line()])
    return Outcome(e.role, e.member, e.file, True, None, held, waited)


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


def plan_ping(folder: Path, team: Team, link: Link, role: str) -> InboxEntry:
    """A reminder to ACK the last update sent to ``role`` (the window's Ping, and ``team
    --ping``): that update's version and when it was sent, as the ledger has them, else as the
    plan's ``teammate_gc_last_delta`` has them (an update sent before the app kept a ledger).
    With neither, there is nothing to ACK, and nothing is written. No outbox file: it is no
    update, and never the last sent."""
    last = follow(folder, team, link, {}, only=role).get(role)
    version, since = (last.gc_version, last.sent_ts) if last else _plan_last_sent(folder, role)
    rel, summary = f"ping:{role}:{stamp_ms()}", f"PING: ACK GC-v{version}"
    if version is None:
        member = link.members.get(role) or None
        why = f"no update was sent to {role} (the ledger and the plan's teammate_gc_last_delta name none)"
        return InboxEntry(role, member, None, rel, team.name, None, "refuse", why, link.sender, "PING", kind="PING")
    text = f"[PING] GC-v{version} was sent to you at {since or '?'} and no [ACK-UPDATE] has arrived."
    entry = entry_for(team, link, role, rel, version, summary, text)
    return replace(entry, sha256=None, kind="PING")


def _plan_last_sent(folder: Path, role: str) -> tuple[int | None, str | None]:
    """The version last sent to ``role`` and when, as the session's plan records them."""
    try:
        plan = parse_plan(read_text(folder / PLAN_FILE).text, PLAN_FILE)
    except OSError:
        return None, None
    last = next((v for k, v in plan.teammate_gc_last_delta.items() if role_key(k) == role_key(role)), None)
    return (last.sent_version, last.timestamp) if last is not None else (None, None)
