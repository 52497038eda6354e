"""Write the demo team's four teammate transcripts (resources/demo-project/.claude-demo/).

Each is a working day as Claude Code 2.1.332 writes it (PROTOCOL.md): the GC-v5 full injection
that started the teammate, responses whose usage grows as it works, the GC-v5 → GC-v6 delta the
Lead sent at 14:02 (the session's own, rendered from gc-history), an ACK from the two that
confirmed GC-v6 (a SendMessage to team-lead), and the moments the rest of the demo rests on
(each teammate's last response and context, implementer-2's and implementer-4's compactions)
exactly where they were. Deterministic: run it again and the files are the same.

    .venv/bin/python scripts/demo_transcripts.py
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.delta.decisions import render_full  # noqa: E402
from models.delta.diff import diff_gc  # noqa: E402
from models.delta.message import render_message  # noqa: E402

PROJECT = ROOT / "resources" / "demo-project"
SESSION = PROJECT / ".agent" / "teams" / "payments-ledger-v2"
FOLDER = PROJECT / ".claude-demo" / "projects" / "-home-lead-payments-ledger"
MODEL = "claude-opus-4-6"
SYSTEM = 14_200  # the client's system prompt and tools, before the first message
START = "2026-11-21T11:00:00.000Z"
UPDATE = "2026-11-21T14:02:12.000Z"

# Per teammate: its session, the moments that stay as they were (kind, time, prompt tokens
# read from the cache), the work responses before the update and after it.
TEAMMATES: dict[str, dict[str, object]] = {
    "implementer-1": {
        "session": "5a1e1c00-0000-4000-8000-000000000001",
        "before": 22,
        "anchors": [("update",), ("ack", "2026-11-21T14:02:40.000Z", 54_600), ("work", 6, 58_300),
                    ("last", "2026-11-21T14:40:12.000Z", 58_300)],
    },
    "implementer-2": {
        "session": "5a1e2c00-0000-4000-8000-000000000002",
        "before": 30,
        "anchors": [("update",), ("ack", "2026-11-21T14:02:45.000Z", 147_700), ("work", 8, 172_800),
                    ("plain", "2026-11-21T15:05:00.000Z", 172_800, 1), ("compact", "2026-11-21T15:10:02.000Z", 176_400),
                    ("last", "2026-11-21T15:12:30.000Z", 31_200, 3)],
    },
    "implementer-3": {
        "session": "5a1e3c00-0000-4000-8000-000000000003",
        "before": 26,
        "anchors": [("update",), ("plain", "2026-11-21T14:03:02.000Z", 92_900, 0), ("work", 8, 118_100),
                    ("last", "2026-11-21T14:55:10.000Z", 118_100, 1)],
    },
    "implementer-4": {
        "session": "5a1e4c00-0000-4000-8000-000000000004",
        "before": 0,
        "anchors": [("work", 30, 167_400), ("plain", "2026-11-21T13:10:00.000Z", 167_400, 0),
                    ("compact", "2026-11-21T13:40:27.000Z", 176_400), ("update",),
                    ("last", "2026-11-21T14:03:20.000Z", 164_000, 2)],
    },
}  # fmt: skip


def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _text(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


class Writer:
    """The lines of one transcript, in order, with the context each response held."""

    def __init__(self, member: str, session: str) -> None:
        self.member, self.session = member, session
        self.lines: list[dict[str, object]] = []
        self.prompt = 0  # the last request's prompt tokens
        self.n = 0

    def _common(self, kind: str, uuid: str, when: str) -> dict[str, object]:
        return {
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/lead/payments-ledger",
            "sessionId": self.session,
            "version": "2.1.180",
            "teamName": "payments-ledger",
            "agentName": self.member,
            "type": kind,
            "uuid": uuid,
            "timestamp": when,
        }

    def message(self, when: str, summary: str, text: str, uuid: str) -> None:
        block = f'<teammate-message teammate_id="team-lead" summary="{summary}">{text}</teammate-message>'
        self.lines.append({**self._common("user", uuid, when), "message": {"role": "user", "content": block}})

    def response(self, when: str, read: int, write: int, output: int, content: list[object], number: int) -> None:
        usage = {"input_tokens": 1200 if number >= 0 else 6, "cache_creation_input_tokens": write,
                 "cache_read_input_tokens": read, "output_tokens": output}  # fmt: skip
        ident = f"msg_{self.member}_{number}" if number >= 0 else f"msg_{self.member}_w{self.n}"
        uuid = f"a{number}" if number >= 0 else f"w{self.n}"
        self.n += 1
        message = {"id": ident, "type": "message", "role": "assistant", "model": MODEL, "content": content,
                   "usage": usage}  # fmt: skip
        self.lines.append({**self._common("assistant", uuid, when), "message": message})
        self.prompt = usage["input_tokens"] + write + read

    def work(self, count: int, start: datetime, end: datetime, until: int) -> None:
        """``count`` responses between ``start`` and ``end``, each reading the last one's prompt
        from the cache and writing what it added, up to a prompt of about ``until``."""
        first = self.prompt
        for i in range(count):
            when = start + (end - start) * (i + 1) / (count + 1)
            target = first + (until - first) * (i + 1) // (count + 1)
            read = self.prompt if self.prompt else 0
            write = max(400, target - read - 6)
            edit = {"type": "tool_use", "id": f"toolu_{self.member}_{self.n}", "name": "Edit",
                    "input": {"file_path": f"src/ledger/part_{self.n}.py", "old_string": "pass",
                              "new_string": "return post(entry)"}}  # fmt: skip
            self.response(_text(when), read, write, 250 + 37 * (i % 9), [edit], -1)

    def compact(self, when: str, pre: int) -> None:
        self.lines.append(
            {**self._common("system", f"s{len(self.lines)}", when), "subtype": "compact_boundary",
             "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": pre}}
        )  # fmt: skip
        self.prompt = 0


def ack_text(items: int) -> str:
    return (
        f"[ACK-UPDATE] GC-v6 received.\n- Delta items applied: {items}/{items}\n- Impact on my work: NONE\n"
        "- Action taken: CONTINUE\n- Unclear items: none"
    )


def write(member: str, spec: dict[str, object], full_v5: str, delta_v6: str, items: int) -> None:
    w = Writer(member, str(spec["session"]))
    w.message(START, "GC-v5 full injection", full_v5, "u0")
    w.response(START.replace("00.000Z", "41.000Z"), 0, SYSTEM + 3_000, 620, [{"type": "text", "text": "Read."}], -1)
    anchors = list(spec["anchors"])  # type: ignore[call-overload]
    clock = _stamp(START) + timedelta(minutes=1)
    first_time = next((a[1] for a in anchors if a[0] in ("ack", "plain")), UPDATE)
    if int(spec["before"]):  # type: ignore[call-overload]
        first_read = next(a[2] for a in anchors if a[0] in ("ack", "plain"))
        w.work(int(spec["before"]), clock, _stamp(UPDATE), first_read - 3_200)  # type: ignore[call-overload]
        clock = _stamp(UPDATE)
    for a in anchors:
        if a[0] == "update":
            w.message(UPDATE, "CONTEXT-UPDATE GC-v6", delta_v6, "u1")
            clock = _stamp(UPDATE)
        elif a[0] == "ack":
            send = {"type": "tool_use", "id": f"toolu_{member}_ack", "name": "SendMessage",
                    "input": {"to": "team-lead", "message": ack_text(items), "summary": "ACK GC-v6"}}  # fmt: skip
            w.response(a[1], a[2], 2000, 400, [send], 0)
            clock = _stamp(a[1])
        elif a[0] == "plain":
            w.response(a[1], a[2], 2000, 400, [{"type": "text", "text": "Working on it."}], a[3])
            clock = _stamp(a[1])
        elif a[0] == "work":
            following = next((b for b in anchors[anchors.index(a) + 1 :] if len(b) > 1 and b[0] != "work"), None)
            end = _stamp(following[1]) if following else _stamp(first_time)
            w.work(a[1], clock, end, a[2] - 3_200)
        elif a[0] == "compact":
            w.compact(a[1], a[2])
            clock = _stamp(a[1])
        elif a[0] == "last":
            number = a[3] if len(a) > 3 else 1
            w.response(a[1], a[2], 2000, 400, [{"type": "text", "text": "Working on it."}], number)
    path = FOLDER / f"{spec['session']}.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=True) + "\n" for line in w.lines), encoding="utf-8")


def main() -> int:
    v5 = (SESSION / "gc-history" / "GC-v5.md").read_text(encoding="utf-8")
    v6 = (SESSION / "gc-history" / "GC-v6.md").read_text(encoding="utf-8")
    result = diff_gc(v5, v6)
    delta = render_message(result.delta)
    for member, spec in TEAMMATES.items():
        write(member, spec, render_full(v5, 5), delta, len(result.delta.items))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
