"""``messages/ledger.jsonl``: every message sent and received, recorded once (by content hash
and source), appended under the file's own check so that no line of another writer is lost.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from models.delta.message_parse import parse_message
from models.publish.publishing import utc_now
from models.review.inbox import Message
from models.session.ledger_records import LEDGER, ReceivedLine
from models.text.atomic import append_log
from models.text.textfile import read_bounded, read_utf8

# The last parse of each ledger, by its identity on disk: a review of 300 messages asks for the
# ledger once per message, and re-reading 3,000 lines each time took seconds.
_PARSED: dict[Path, tuple[tuple[int, int, int], list[dict[str, Any]]]] = {}


class LedgerUnreadable(OSError):
    """The ledger is there but cannot be read (a folder, over the size limit, no permission):
    a guard against doing something twice must refuse, not take it for empty."""


def read_ledger(folder: Path, strict: bool = False) -> list[dict[str, Any]]:
    """Every ledger entry, oldest first; parsed again only when the file changed (its inode,
    size or modification time), and always a fresh list the caller may keep.

    A ledger that is there but cannot be read reads as empty for what only shows it, and with
    ``strict`` raises ``LedgerUnreadable`` (for the guards against carrying out or delivering
    twice, which fail closed)."""
    path = folder / LEDGER
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        if strict:
            raise LedgerUnreadable(exc.errno, f"{LEDGER.as_posix()} cannot be read ({exc.strerror or exc})") from exc
        return []
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    cached = _PARSED.get(path)
    if cached is not None and cached[0] == key:
        return list(cached[1])
    try:
        raw, _ = read_bounded(path)
    except FileNotFoundError:
        return []
    except OSError as exc:  # no regular file, too large, no permission: nothing we can read
        if strict:
            raise LedgerUnreadable(exc.errno, f"{LEDGER.as_posix()} cannot be read ({exc.strerror or exc})") from exc
        return []
    out = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line being appended right now, or damaged: never guessed
        if isinstance(entry, dict):
            out.append(entry)
    if len(raw) == st.st_size:  # what was parsed is what was stat'ed (no append in between)
        if len(_PARSED) > 16:
            _PARSED.clear()
        _PARSED[path] = (key, out)
    return list(out)


def record_received(folder: Path, messages: list[Message]) -> list[Message]:
    """Append the messages not yet in the ledger (by hash and source); return those new ones.
    Raises ``LedgerUnreadable`` for a ledger it cannot read: every message would look new."""
    seen = {
        (e.get("sha256"), e.get("source")) for e in read_ledger(folder, strict=True) if e.get("direction") == "received"
    }
    new = [m for m in messages if (m.sha, m.source) not in seen]
    if not new:
        return []
    now = utc_now()
    lines = [ReceivedLine(now, m.sender, m.source, m.kind, m.timestamp, m.sha).line() for m in new]
    append_ledger(folder, lines)
    return new


def last_sent(folder: Path, role: str) -> dict[str, Any] | None:
    sent = [e for e in read_ledger(folder) if e.get("direction") == "sent" and e.get("to") == role]
    return sent[-1] if sent else None


def items_sent_in(folder: Path, entry: dict[str, Any]) -> int | None:
    """How many delta items the sent message carried (None for a full injection)."""
    if entry.get("mode") != "delta" or not entry.get("file"):
        return None
    try:
        text = read_utf8(folder / str(entry["file"]))
    except OSError:
        return None
    return len(parse_message(text).delta.items)


def append_ledger(folder: Path, lines: list[str]) -> None:
    path = folder / LEDGER
    path.parent.mkdir(parents=True, exist_ok=True)
    append_log(path, "".join(line + "\n" for line in lines).encode("utf-8"))  # whole lines or none


Handled = dict[tuple[str, str], str]


def handled_keys(folder: Path, strict: bool = False) -> Handled:
    """(source, sha256) of every message the Lead has carried out → what was done, and when
    (``resend at 2026-11-23T01:02:03Z``; the last time, when it was done more than once).
    ``strict``: raise ``LedgerUnreadable`` rather than answer "nothing" for a ledger that
    cannot be read."""
    out: Handled = {}
    for e in read_ledger(folder, strict):
        if e.get("direction") == "handled":
            out[(str(e.get("source")), str(e.get("sha256")))] = f"{e.get('action', '?')} at {e.get('ts', '?')}"
    return out
