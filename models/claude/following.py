"""How far the last update sent to each teammate got: undelivered → written → picked up →
received → ACKed, or lost.

*Written*: the entry is in the member's inbox. *Picked up*: it left the inbox (2.1.332 removes
what it takes; older releases set ``read: true``): it is inside the teammate process, which a
busy teammate holds in memory until its turn ends. *Received*: the teammate's transcript shows
it as a ``<teammate-message>`` in a user turn, so the model has it. *ACKed*: its [ACK-UPDATE]
arrived, or the plan confirms the version. *Lost*: picked up, never received, and the
teammate compacted after it was delivered or its session ended (it left the team's members):
what it held in memory is gone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from models.claude.mailbox import read_inbox_entries
from models.claude.team import Link, Team
from models.claude.transcript_read import Received
from models.review.ledger import read_ledger

UNRECEIVED_AFTER_S = 10 * 60  # picked up this long ago and not in the transcript: flagged


def summary_for(entry: dict[str, Any]) -> str:
    """A 5-10 word preview Claude Code shows beside the message (its ``summary``)."""
    version, mode = entry.get("gc_version"), entry.get("mode") or "update"
    kind = entry.get("kind") or "CONTEXT-UPDATE"
    return f"{kind} GC-v{version} ({mode})"


def received_after(received: Sequence[Received], sender: str, summary: str, since: str) -> str | None:
    """When the model got the message ``sender`` wrote with ``summary`` at ``since`` (the first
    such block in a user turn at or after that time), else None."""
    for item in received:
        if item.sender == sender and item.summary == summary and (item.timestamp or "") >= since:
            return item.timestamp
    return None


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
    received_ts: str | None = None  # when the transcript shows the model got it
    lost_at: str | None = None  # the compaction that lost it before it was received
    sender: str | None = None
    undecided: bool = False  # an attempt may have arrived: re-sending waits for the Lead
    held: bool = False  # kept back until the teammate's next compaction, which has not come yet

    @property
    def state(self) -> str:
        """One word for the table: undelivered, written, picked up, received, ACKed, lost."""
        if self.acked:
            return "ACKed"
        if self.received_ts is not None:
            return "received"
        if self.lost_at is not None:
            return "lost"
        if self.delivered_ts is None:
            return "undecided" if self.undecided else "held" if self.held else "undelivered"
        return "picked up" if self.picked_up else "written"

    @property
    def lost_why(self) -> str | None:
        """Why it was lost, in the Lead's words."""
        if self.lost_at is None:
            return None
        if self.lost_at[:1].isdigit():
            return f"the teammate compacted at {self.lost_at} before its model received it"
        return self.lost_at

    def unreceived(self, now: datetime) -> bool:
        """Picked up long enough ago that the model should have it, and the transcript does not
        show it: offered for re-delivery."""
        if self.state != "picked up" or self.delivered_ts is None:
            return False
        try:
            since = datetime.fromisoformat(self.delivered_ts.replace("Z", "+00:00"))
        except ValueError:
            return False
        return (now - since).total_seconds() > UNRECEIVED_AFTER_S


def _picked_up(team: Team, member: str, sender: str, entry_ts: str) -> bool | None:
    entries = read_inbox_entries(team.inboxes / f"{member}.json")
    if entries is None:
        return None
    for item in entries:
        if isinstance(item, dict) and item.get("timestamp") == entry_ts and item.get("from") == sender:
            return item.get("read") is True
    return True  # drained past it: the teammate took it


def follow(
    folder: Path,
    team: Team | None,
    link: Link | None,
    confirmed: dict[str, int],
    ledger: list[dict[str, Any]] | None = None,
    acks: set[tuple[str, int]] | None = None,
    seen: Mapping[str, tuple[Sequence[Received], Sequence[str]]] | None = None,
    only: str | None = None,
) -> dict[str, Followed]:
    """Role → the last update sent to it (a CONTEXT-UPDATE or a re-send) and its state. An
    update is ACKed when the teammate's [ACK-UPDATE] for its version arrived (``acks``: role and
    version), or the plan already confirms that version. ``seen``: member → (what its
    transcript shows received, its compactions). ``only``: that role's alone (a ping asks for
    one teammate's last update; the others' inboxes are not read)."""
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
        if only is not None and role != only:
            continue
        rel = str(sent.get("file"))
        done = delivered.get(rel)
        member = (done or {}).get("member") or (link.members.get(role) if link else None)
        version = sent.get("gc_version") if isinstance(sent.get("gc_version"), int) else None
        acked = version is not None and (confirmed.get(role, -1) >= version or (role, version) in (acks or set()))
        sender = str((done or {}).get("sender") or (link.sender if link else "team-lead"))
        picked = received = lost = None
        if done is not None and member:
            entry_ts = str(done.get("entry_ts") or done.get("ts"))
            if team is not None:
                picked = _picked_up(team, str(member), sender, entry_ts)
            got, compactions = (seen or {}).get(str(member), ((), ()))
            received = received_after(got, sender, summary_for(sent), entry_ts)
            if received is None and picked:
                lost = next((c for c in compactions if c >= entry_ts), None)
                if lost is None and team is not None and team.member(str(member)) is None:
                    lost = "its session ended (no longer a member of the team)"  # what it held went with it
        miss = failed.get(rel) or {}
        compacted = (seen or {}).get(str(member), ((), ()))[1] if member else ()
        held = done is None and still_held(sent, compacted)
        out[role] = Followed(
            role,
            str(member) if member else None,
            rel,
            version,
            sent.get("mode"),
            sent.get("ts"),
            done.get("ts") if done else None,
            str(miss["reason"]) if done is None and miss.get("reason") else None,
            picked,
            acked,
            received,
            lost,
            sender,
            done is None and bool(miss.get("undecided")),
            held,
        )
    return out


def still_held(sent: Mapping[str, Any], compactions: Sequence[str]) -> bool:
    """Whether a message the Lead held until the teammate's next compaction (it would have
    tipped it into one) is still held: no compaction since it was written."""
    since = str(sent.get("ts") or "")
    return sent.get("held") == "compaction" and not any(c >= since for c in compactions)


def undelivered(
    folder: Path, ledger: list[dict[str, Any]] | None = None, compactions: Mapping[str, Sequence[str]] | None = None
) -> list[dict[str, Any]]:
    """The last ``sent`` entry of each role when it was never delivered: Deliver's list (an
    older message superseded by a newer one is not delivered late). One held until its
    teammate's next compaction waits for it (``compactions``: role → its compactions' times)."""
    entries = ledger if ledger is not None else read_ledger(folder)
    done = {str(e.get("file")) for e in entries if e.get("direction") == "delivered"}
    last: dict[str, dict[str, Any]] = {}
    for e in entries:
        if e.get("direction") == "sent" and e.get("to"):
            last[str(e["to"])] = e
    return [
        e
        for role, e in last.items()
        if str(e.get("file")) not in done and not still_held(e, (compactions or {}).get(role, ()))
    ]


def last_sent_to(
    folder: Path, roles: Iterable[str], ledger: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The last ``sent`` entry of each of ``roles``, delivered or not: what Deliver again writes
    once more (a lost update, an undecided attempt, one the model never received)."""
    wanted = set(roles)
    last: dict[str, dict[str, Any]] = {}
    for e in ledger if ledger is not None else read_ledger(folder):
        if e.get("direction") == "sent" and e.get("to") in wanted:
            last[str(e["to"])] = e
    return list(last.values())


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
