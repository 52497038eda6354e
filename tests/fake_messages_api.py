"""A fake Anthropic Messages API on 127.0.0.1 for one real Claude Code teammate.

Written from ../shared/claude-code-team/REAL-CLIENT.md §4-5; it imports nothing of the app. Every
request is logged (one JSON line: method, path, body) for the test to assert on. The model it
plays acknowledges each [CONTEXT-UPDATE] or [PING] it is given:

- ``--ack sendmessage``: loads SendMessage through ToolSearch when the request's tools lack it,
  then calls it with ``[ACK-UPDATE] GC-vN received.`` to team-lead, then ends its turn;
- ``--ack text``: answers the ACK as plain text and ends its turn (it then reaches the lead
  only as the ``result`` of the teammate's idle notification);
- ``--ack none``: reads it and answers no ACK (received, never ACKed).

A ``/compact`` request gets a ``<summary>``; any other turn a short text. CONNECT and requests
for outside hosts are refused with 403 (the client's marketplace and git fetches).

Run: python tests/fake_messages_api.py PORT_FILE LOG_FILE --ack sendmessage|text|none
(it binds an ephemeral port and writes its number to PORT_FILE once it listens).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

USAGE = {"input_tokens": 1200, "cache_creation_input_tokens": 3400, "cache_read_input_tokens": 15000}
OUTPUT_TOKENS = 40  # every assistant line then holds 1,200 + 3,400 + 15,000 + 40 = 19,640
COMPACT = "CRITICAL: Respond with TEXT ONLY"


def texts_of(content: Any) -> list[str]:
    """The text of a message's content: a string, or the text of its blocks."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return []


def answers_a_tool(content: Any) -> bool:
    """A user message that returns tool results (with a text such as "Tool loaded." or not)."""
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def reply_for(body: dict[str, Any], ack: str) -> tuple[list[dict[str, Any]], str]:
    """(content blocks, stop_reason) the fake model answers ``body`` with."""
    messages = [m for m in body.get("messages", []) if isinstance(m, dict)]
    trigger = max(
        (i for i, m in enumerate(messages) if m.get("role") == "user" and not answers_a_tool(m.get("content"))),
        default=-1,
    )
    said = "\n".join(texts_of(messages[trigger].get("content"))) if trigger >= 0 else ""
    if COMPACT in said:
        return [{"type": "text", "text": "<summary>Worked on the team's tasks; GC acknowledged.</summary>"}], "end_turn"
    update = re.search(r"\[(?:CONTEXT-UPDATE|PING)\][^\n]*", said)
    if update is None or ack == "none":
        return [{"type": "text", "text": "Ready."}], "end_turn"
    version = max(int(v) for v in re.findall(r"GC-v(\d+)", update.group(0)))
    ack_text = f"[ACK-UPDATE] GC-v{version} received.\n- Delta items applied: all\n- Impact on my work: NONE"
    ack_text += "\n- Action taken: CONTINUE\n- Unclear items: none"
    if ack == "text":
        return [{"type": "text", "text": ack_text}], "end_turn"
    called = [
        b.get("name")
        for m in messages[trigger + 1 :]
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    if "SendMessage" in called:
        return [{"type": "text", "text": f"Sent the ACK for GC-v{version} to team-lead."}], "end_turn"
    tools = {t.get("name") for t in body.get("tools", []) if isinstance(t, dict)}
    if "SendMessage" not in tools:
        return [_tool_use("ToolSearch", {"query": "select:SendMessage"})], "tool_use"
    message = {"to": "team-lead", "message": ack_text, "summary": f"ACK GC-v{version}"}
    return [_tool_use("SendMessage", message)], "tool_use"


_ids = iter(range(1, 1 << 30))


def _tool_use(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": name, "input": data}


def events(blocks: list[dict[str, Any]], stop: str, model: str) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events of one streamed reply."""
    start = {"id": f"msg_{next(_ids):04d}", "type": "message", "role": "assistant", "model": model, "content": []}
    start.update(stop_reason=None, stop_sequence=None, usage={**USAGE, "output_tokens": 1})
    out: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for n, block in enumerate(blocks):
        if block["type"] == "text":
            opened: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        out.append(("content_block_start", {"type": "content_block_start", "index": n, "content_block": opened}))
        out.append(("content_block_delta", {"type": "content_block_delta", "index": n, "delta": delta}))
        out.append(("content_block_stop", {"type": "content_block_stop", "index": n}))
    finish = {"stop_reason": stop, "stop_sequence": None}
    out.append(("message_delta", {"type": "message_delta", "delta": finish, "usage": {"output_tokens": OUTPUT_TOKENS}}))
    out.append(("message_stop", {"type": "message_stop"}))
    return out


class Handler(BaseHTTPRequestHandler):
    """One request of the client: logged, then answered as the Messages API would."""

    protocol_version = "HTTP/1.1"
    ack = "sendmessage"
    log: Path
    lock = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log file is the record."""

    def _record(self, body: Any) -> None:
        with self.lock, self.log.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"method": self.command, "path": self.path, "body": body}) + "\n")

    def _refuse(self) -> None:
        self._record(None)
        self.send_response(403)
        self.send_header("content-length", "0")
        self.send_header("connection", "close")
        self.end_headers()

    def do_CONNECT(self) -> None:
        """An outside host through the proxy: refused."""
        self._refuse()

    def do_GET(self) -> None:
        """Nothing is served by GET; an absolute URL (a proxied fetch) is refused."""
        self._refuse()

    def do_POST(self) -> None:
        """``/v1/messages`` streamed, ``count_tokens``, else 404."""
        if not self.path.startswith("/"):
            self._refuse()
            return
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self._record(body)
        if self.path.startswith("/v1/messages/count_tokens"):
            self._json(200, {"input_tokens": 1200})
        elif self.path.startswith("/v1/messages"):
            blocks, stop = reply_for(body, self.ack)
            self._stream(events(blocks, stop, str(body.get("model") or "claude-opus-5-5")))
        else:
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

    def _json(self, status: int, data: dict[str, Any]) -> None:
        raw = json.dumps(data).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _stream(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        raw = b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in items)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(raw)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(raw)
        self.close_connection = True


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("port_file", type=Path)
    parser.add_argument("log", type=Path)
    parser.add_argument("--ack", choices=("sendmessage", "text", "none"), default="sendmessage")
    args = parser.parse_args()
    Handler.ack, Handler.log = args.ack, args.log
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    staged = args.port_file.with_suffix(".part")
    staged.write_text(str(server.server_address[1]), encoding="utf-8")
    staged.replace(args.port_file)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
