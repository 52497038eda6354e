"""A working Claude Code team for the benchmark: transcripts as 2.1.332 writes them, and a
process that appends to them as working teammates do.

A transcript is mostly what the client keeps beside the model's turns (PROTOCOL.md, and the real
client's files in tests/test_real_client.py): attachments, the request's shape and blobs, tool
results. Each response here is one such turn: an ``api-request-shape`` every third turn (about
45 KB), a request, a blob that names the assistant role, the assistant line with its usage, a tool
result and an attachment; about 27 KB a turn, so a 100 MB transcript holds some 3,700 turns,
with an update received as a ``<teammate-message>`` every 500 and a compaction every 1,500.

``python -m bench.transcripts SECONDS PATH...`` appends one turn a second to each path (the
teammates staggered across the second) and prints, per append, the path, the context it reports
and the monotonic time the write returned: the window under test times each append from there.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from models.claude.team import Link, write_link

TEAM = "bench-team"
LEAD = "team-lead"
MODEL = "claude-opus-4-6"
_WORDS = (  # noqa: SIM905 - a sentence reads better than forty quoted words
    "def class return import self the of and to in is that for it with as from await async if "
    "else not None path text line file read write test value result error team lead context update version"
).split()


def _filler(size: int, seed: int) -> str:
    """Text as a turn's content is: words and code, not one letter repeated (which no search
    meets in a real transcript, and which slows a substring search down)."""
    words, out, n, length = _WORDS, [], seed, 0
    while length < size:
        n = (n * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(words[n % len(words)])
        length += len(out[-1]) + 1
    return " ".join(out)[:size]


_TEXT = [_filler(45_000, seed) for seed in range(7)]
_SHAPE = json.dumps({"type": "api-request-shape", "sessionId": "s", "shapeHash": "h", "shape": _TEXT[0]})


def _text(size: int, n: int) -> str:
    start = (n * 7919) % 30_000
    return _TEXT[n % 7][start : start + size]


def turn(member: str, n: int, tokens: int) -> bytes:
    """One response of ``member`` whose context is ``tokens`` after it."""
    stamp = f"2026-11-29T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"
    common = {"teamName": TEAM, "agentName": member, "timestamp": stamp}
    usage = {
        "input_tokens": 3,
        "cache_creation_input_tokens": 800,
        "cache_read_input_tokens": tokens - 813,
        "output_tokens": 10,
        "service_tier": "standard",
    }
    edit = {"type": "tool_use", "name": "Edit", "input": {"x": _text(900, n + 2)}}
    message = {"id": f"msg_{member}_{n}", "model": MODEL, "role": "assistant", "usage": usage, "content": [edit]}
    result = {"role": "user", "content": [{"type": "tool_result", "content": _text(3000, n + 3)}]}
    lines = [
        {"type": "api-request", "sessionId": "s", "id": f"req_{n}", "params": {"model": MODEL}, "x": _text(1200, n)},
        {"type": "api-request-blob", "sessionId": "s", "message": {"role": "assistant", "content": _text(300, n + 1)}},
        {**common, "type": "assistant", "uuid": f"u{n}", "message": message},
        {**common, "type": "user", "uuid": f"r{n}", "message": result},
        {**common, "type": "attachment", "uuid": f"t{n}", "attachment": {"content": _text(6000, n + 4)}},
    ]
    out = [json.dumps(line) for line in lines]
    if n % 3 == 0:
        out.insert(0, _SHAPE)
    if n % 500 == 499:
        block = f'<teammate-message teammate_id="lead-console" summary="CONTEXT-UPDATE GC-v{n // 500 + 1} (delta)">'
        content = block + _text(2000, n + 5) + "</teammate-message>"
        out.append(json.dumps({**common, "type": "user", "message": {"role": "user", "content": content}}))
    if n % 1500 == 1499:
        meta = {"trigger": "auto", "preTokens": tokens, "postTokens": 30_000}
        out.append(json.dumps({**common, "type": "system", "subtype": "compact_boundary", "compactMetadata": meta}))
    return ("\n".join(out) + "\n").encode("utf-8")


def write_transcript(path: Path, member: str, size: int) -> int:
    """A transcript of about ``size`` bytes; returns the turns it holds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n, written = 0, 0
    with path.open("wb") as fh:
        head = {"type": "user", "teamName": TEAM, "agentName": member, "message": {"role": "user", "content": member}}
        written += fh.write((json.dumps(head) + "\n").encode("utf-8"))
        while written < size:
            written += fh.write(turn(member, n, 40_000 + 20 * (n % 1500)))
            n += 1
    return n


def make_team(root: Path, session: Path, roles: list[str], size: int) -> list[Path]:
    """A Claude Code team under ``root`` whose members are ``roles``, each with a transcript
    of ``size`` bytes (the lead's a tenth of it), linked to ``session``; its transcripts."""
    team = root / "teams" / TEAM
    (team / "inboxes").mkdir(parents=True)
    members = [{"name": LEAD, "agentType": "team-lead", "model": MODEL}]
    members += [{"name": r, "agentType": "general", "model": MODEL, "sessionId": f"s-{r}"} for r in roles]
    config = {"name": TEAM, "leadAgentId": f"{LEAD}@{TEAM}", "leadSessionId": "lead", "members": members}
    (team / "config.json").write_text(json.dumps(config), encoding="utf-8")
    work = root / "projects" / "-work"
    paths = [work / f"s-{r}.jsonl" for r in roles]
    for role, path in zip(roles, paths, strict=True):
        write_transcript(path, role, size)
    write_transcript(work / "lead.jsonl", LEAD, max(1024, size // 10))
    write_link(session, Link(team, {r: r for r in roles}))
    return paths


def append_kb(paths: list[Path], n: int) -> None:
    """About a kilobyte more in each transcript: one small response."""
    for path in paths:
        usage = {"input_tokens": 3, "cache_read_input_tokens": 90_000 + n, "output_tokens": 7}
        text = [{"type": "text", "text": _text(700, n)}]
        message = {"id": f"msg_kb_{n}", "model": MODEL, "role": "assistant", "usage": usage, "content": text}
        line = {"type": "assistant", "teamName": TEAM, "agentName": path.stem, "message": message}
        with path.open("ab") as fh:
            fh.write((json.dumps(line) + "\n").encode("utf-8"))


def main(argv: list[str]) -> int:
    """Append one turn a second to each transcript for ``argv[0]`` seconds."""
    seconds, paths = float(argv[0]), [Path(p) for p in argv[1:]]
    fds = [os.open(p, os.O_WRONLY | os.O_APPEND) for p in paths]
    start = time.perf_counter()
    k = 0
    while True:
        for i, (path, fd) in enumerate(zip(paths, fds, strict=True)):
            due = start + k + i / len(paths)
            if due - start >= seconds:
                return 0
            time.sleep(max(0.0, due - time.perf_counter()))
            tokens = 100_000 + 1_000 * k  # a thousand more each turn: the table shows thousands
            os.write(fd, turn(path.stem.removeprefix("s-"), 10_000 + k, tokens))
            print(path.stem.removeprefix("s-"), tokens, time.perf_counter(), flush=True)
        k += 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
