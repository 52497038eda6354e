"""A test double of a Claude Code teammate, written from ../shared/claude-code-team/PROTOCOL.md.

It imports nothing of the app. It polls its inbox, takes the inbox lock (``mkdir <inbox>.lock``,
stale after 10 s, retried after 5-100 ms), marks what it takes as read (older releases) or drains
it (newer ones), writes a transcript as Claude Code does (usage per response, a compaction when
asked), and answers each [CONTEXT-UPDATE] into the lead's inbox under the lead inbox's lock.

Run: python tests/claude_teammate.py TEAM_DIR MEMBER --expect N [--drain] [--reply ack|clarify|lost]
     [--transcript FILE] [--poll 0.02] [--max-seconds 60]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path


def now() -> str:
    t = datetime.now(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def lock(inbox: Path) -> Path:
    path = Path(str(inbox) + ".lock")
    while True:
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            try:
                if time.time() - os.stat(path).st_mtime > 10:
                    os.rmdir(path)
                    continue
            except OSError:
                continue
            time.sleep(random.uniform(0.005, 0.1))


def read(inbox: Path) -> list[dict[str, object]]:
    if not inbox.exists():
        return []
    raw = inbox.read_text(encoding="utf-8")
    if not raw.strip():
        return []  # another writer created it (an exclusive create) and has not written [] yet
    return json.loads(raw)  # inside the lock: anything else must parse


def write(inbox: Path, items: list[dict[str, object]]) -> None:
    tmp = inbox.with_name(f".{inbox.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(items, indent=2), encoding="utf-8")
    os.replace(tmp, inbox)


def append(inbox: Path, item: dict[str, object]) -> None:
    if not inbox.exists():
        try:
            fd = os.open(inbox, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            os.write(fd, b"[]")
            os.close(fd)
        except FileExistsError:
            pass
    held = lock(inbox)
    try:
        items = read(inbox)
        items.append(item)
        write(inbox, items)
    finally:
        os.rmdir(held)


def take(inbox: Path, me: str, drain: bool) -> list[dict[str, object]]:
    """Unread entries (from anyone but itself, as Claude Code takes them), marked read or
    removed, under the lock."""
    if not inbox.exists():
        return []
    held = lock(inbox)
    try:
        items = read(inbox)
        taken = [i for i in items if i.get("from") != me and not i.get("read")]
        if taken:
            if drain:
                items = [i for i in items if i not in taken]
            else:
                for i in taken:
                    i["read"] = True
            write(inbox, items)
        return taken
    finally:
        os.rmdir(held)


def items_in(text: str) -> int:
    return len(re.findall(r"^- (?:ADDED|CHANGED|REMOVED|REPLACED|RENAMED|MOVED)\b", text, re.MULTILINE))


def answer(text: str, mode: str) -> str | None:
    version = re.search(r"\[CONTEXT-UPDATE\] GC-v\d+(?: → GC-v(\d+))?", text)
    if version is None:
        return None
    number = version.group(1) or re.search(r"GC-v(\d+)", version.group(0)).group(1)  # type: ignore[union-attr]
    n = items_in(text)
    if mode == "clarify":
        return (
            f"[ACK-UPDATE] GC-v{number} received.\n- Delta items applied: 0/{n}\n- Impact on my work: unclear\n"
            "- Action taken: NEED_CLARIFICATION\n- Unclear items: none"
        )
    if "(full injection)" in text:
        return (
            f"[ACK-UPDATE] GC-v{number} received (full injection).\n- Impact on my work: NONE\n"
            "- Action taken: CONTINUE\n- Unclear items: none"
        )
    return (
        f"[ACK-UPDATE] GC-v{number} received.\n- Delta items applied: {n}/{n}\n- Impact on my work: NONE\n"
        "- Action taken: CONTINUE\n- Unclear items: none"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("team")
    parser.add_argument("member")
    parser.add_argument("--lead", default="team-lead")
    parser.add_argument("--expect", type=int, default=1)
    parser.add_argument("--drain", action="store_true")
    parser.add_argument("--reply", default="ack", choices=("ack", "clarify", "lost", "none"))
    parser.add_argument("--transcript")
    parser.add_argument("--poll", type=float, default=0.02)
    parser.add_argument("--max-seconds", type=float, default=60)
    args = parser.parse_args()
    team = Path(args.team)
    inbox = team / "inboxes" / f"{args.member}.json"
    lead_inbox = team / "inboxes" / f"{args.lead}.json"
    transcript = Path(args.transcript) if args.transcript else None
    seen = 0
    deadline = time.monotonic() + args.max_seconds
    while seen < args.expect and time.monotonic() < deadline:
        try:
            taken = take(inbox, args.member, args.drain)
        except ValueError:
            taken = []  # a half-written file of someone else's: try again shortly
        for item in taken:
            seen += 1
            text = str(item.get("text", ""))
            if transcript is not None:
                with transcript.open("a", encoding="utf-8") as fh:
                    common = {"sessionId": transcript.stem, "teamName": team.name, "agentName": args.member}
                    block = f'<teammate-message teammate_id="{item.get("from")}" summary="{item.get("summary")}">'
                    fh.write(json.dumps({**common, "type": "user", "timestamp": now(), "message": {
                        "role": "user", "content": f"{block}\n{text}\n</teammate-message>"
                    }}) + "\n")  # fmt: skip
                    usage = {"input_tokens": 900, "cache_read_input_tokens": 40_000 + 1000 * seen, "output_tokens": 80}
                    fh.write(json.dumps({**common, "type": "assistant", "timestamp": now(), "message": {
                        "id": f"msg_{args.member}_{seen}", "model": "claude-opus-4-6", "usage": usage}}) + "\n")  # fmt: skip
                    if args.reply == "lost":
                        fh.write(json.dumps({**common, "type": "system", "subtype": "compact_boundary",
                                             "timestamp": now()}) + "\n")  # fmt: skip
            if args.reply == "none":
                continue
            reply = "[STATUS] Phase 6 | CONTEXT_LOST" if args.reply == "lost" else answer(text, args.reply)
            if reply is not None:
                append(lead_inbox, {"from": args.member, "text": reply, "timestamp": now(), "read": False})
        time.sleep(args.poll)
    return 0 if seen >= args.expect else 1


if __name__ == "__main__":
    sys.exit(main())
