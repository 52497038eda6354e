"""The lines of ``messages/ledger.jsonl``, one frozen type per kind.

The ledger is the session's record of every message sent, received, handled and delivered
(SESSION-FOLDER.md). Each writer builds one of these and appends ``line()``; readers take the
JSON as it comes (``models.review.ledger.read_ledger``): lines of older releases, and of other
tools, hold fewer keys or other ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

LEDGER = Path("messages") / "ledger.jsonl"
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


@dataclass(frozen=True)
class SentLine:
    """A [CONTEXT-UPDATE] written to the outbox for one teammate: by publishing (its decision's
    base, tokens and conditions) or by Carry out (a re-send, and why)."""

    ts: str
    to: str
    gc_version: int | None
    mode: str
    file: str
    sha256: str
    base_version: int | None = None
    tokens: int | None = None
    conditions: tuple[str, ...] = ()
    forced_reason: str | None = None
    reason: str | None = None
    held: str | None = None  # "compaction": not delivered until the teammate's next compaction
    # The GC sections the message covered: their text (a full injection) or their changes (a
    # delta); "all" for every section; None where not recorded (a re-send, a spawn brief).
    follows: tuple[str, ...] | Literal["all"] | None = None

    def line(self) -> str:
        extra: dict[str, object] = {"held": self.held} if self.held is not None else {}
        if self.follows is not None:
            extra["follows"] = self.follows if self.follows == "all" else list(self.follows)
        return _ENCODE(
            {
                "ts": self.ts,
                "direction": "sent",
                "to": self.to,
                "kind": "CONTEXT-UPDATE",
                "gc_version": self.gc_version,
                "base_version": self.base_version,
                "mode": self.mode,
                "tokens": self.tokens,
                "conditions": list(self.conditions),
                "forced_reason": self.forced_reason,
                "reason": self.reason,
                "file": self.file,
                "sha256": self.sha256,
            }
            | extra
        )


@dataclass(frozen=True)
class ReceivedLine:
    """A teammate's message, read once from wherever it was (by its source and content)."""

    ts: str
    sender: str | None
    source: str
    kind: str
    message_time: str | None
    sha256: str

    def line(self) -> str:
        return _ENCODE(
            {
                "ts": self.ts,
                "direction": "received",
                "from": self.sender,
                "source": self.source,
                "kind": self.kind,
                "message_time": self.message_time,
                "sha256": self.sha256,
            }
        )


@dataclass(frozen=True)
class HandledLine:
    """The Lead carried out the action for a message."""

    ts: str
    source: str
    sha256: str
    sender: str | None
    action: str

    def line(self) -> str:
        return _ENCODE(
            {
                "ts": self.ts,
                "direction": "handled",
                "source": self.source,
                "sha256": self.sha256,
                "from": self.sender,
                "action": self.action,
            }
        )


@dataclass(frozen=True)
class ReplyLine:
    """The Lead's reply to one of a teammate's messages (its source and content's hash): kept
    apart from ``sent``, which are updates (a reply is never a teammate's last update)."""

    ts: str
    to: str
    file: str
    sha256: str
    source: str
    in_reply_to: str  # the sha256 of the message answered

    def line(self) -> str:
        return _ENCODE(
            {
                "ts": self.ts,
                "direction": "replied",
                "to": self.to,
                "file": self.file,
                "sha256": self.sha256,
                "source": self.source,
                "in_reply_to": self.in_reply_to,
            }
        )


DeliveryStep = Literal["delivering", "delivered", "undelivered"]


@dataclass(frozen=True)
class DeliveryLine:
    """A step of delivering a sent message (or a ping) into a Claude Code member's inbox:
    ``delivering`` before the inbox is written, then ``delivered`` or ``undelivered``."""

    ts: str
    direction: DeliveryStep
    to: str
    member: str | None
    team: str
    file: str
    gc_version: object
    kind: str | None = None  # "PING" for a reminder; an update has none
    entry_ts: str | None = None
    sha256: str | None = None
    reason: str | None = None
    recovered: bool = False  # found in the inbox after an attempt stopped before recording it
    lock_held_ms: float | None = None
    lock_waited_ms: int | None = None
    sender: str | None = None  # the name the entry was written under
    found_in: str | None = None  # where a recovered attempt was found: "inbox" or "transcript"
    undecided: bool = False  # an earlier attempt may have arrived: not re-sent until the Lead says

    def line(self) -> str:
        data: dict[str, object] = {
            "ts": self.ts,
            "direction": self.direction,
            "to": self.to,
            "member": self.member,
            "team": self.team,
            "file": self.file,
            "gc_version": self.gc_version,
        }
        optional = {
            "kind": self.kind,
            "entry_ts": self.entry_ts,
            "sha256": self.sha256,
            "reason": self.reason,
            "recovered": self.recovered or None,
            "lock_held_ms": self.lock_held_ms,
            "lock_waited_ms": self.lock_waited_ms,
            "sender": self.sender,
            "found_in": self.found_in,
            "undecided": self.undecided or None,
        }
        data.update((k, v) for k, v in optional.items() if v is not None)
        return _ENCODE(data)
