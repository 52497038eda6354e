"""Lines of a teammate's transcript as Claude Code 2.1.332 writes them (PROTOCOL.md): a
response with its usage, an update received as a ``<teammate-message>`` block, lines that cannot
matter, a compaction."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest


def response(n: int, tokens: int, model: str = "claude-opus-5-5", split: bool = False) -> list[dict[str, Any]]:
    usage = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": tokens,
        "output_tokens": 5,
    }
    line = {"type": "assistant", "timestamp": f"2026-11-29T01:{n:02d}:00.000Z", "agentName": "implementer-1",
            "message": {"id": f"msg_{n}", "model": model, "usage": usage, "content": [{"type": "text", "text": "x"}]}}  # fmt: skip
    return [line, line] if split else [line]


def update(n: int) -> dict[str, Any]:
    block = f'<teammate-message teammate_id="lead-console" summary="CONTEXT-UPDATE GC-v{n} (delta)">\n'
    return {"type": "user", "timestamp": f"2026-11-29T01:{n:02d}:30.000Z",
            "message": {"role": "user", "content": block + f"[CONTEXT-UPDATE] GC-v{n}\n</teammate-message>"}}  # fmt: skip


def noise(n: int) -> dict[str, Any]:
    return {"type": "attachment", "timestamp": f"2026-11-29T01:{n:02d}:40.000Z", "attachment": {"kind": "x" * 300}}


def compaction(n: int, post: int, pre: int = 150_000) -> dict[str, Any]:
    meta = {"trigger": "auto", "preTokens": pre, "postTokens": post}
    return {"type": "system", "subtype": "compact_boundary", "timestamp": f"2026-11-29T01:{n:02d}:50.000Z",
            "compactMetadata": meta}  # fmt: skip


def lines(items: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(i).encode("utf-8") + b"\n" for i in items)


def reply(n: int, sender: str, text: str) -> dict[str, Any]:
    """A teammate's message as the lead's transcript keeps it."""
    block = f'<teammate-message teammate_id="{sender}" summary="reply">\n{text}\n</teammate-message>'
    return {
        "type": "user",
        "timestamp": f"2026-11-29T02:{n:02d}:00.000Z",
        "message": {"role": "user", "content": block},
    }


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes each read of a transcript returns from now on (``os.pread`` for a file's first
    bytes, ``os.preadv`` for what it holds past the last read)."""
    import models.claude.transcript_read as transcript_read

    read: list[int] = []
    real, real_v = os.pread, os.preadv

    def counting(fd: int, n: int, offset: int) -> bytes:
        data = real(fd, n, offset)
        read.append(len(data))
        return data

    def counting_v(fd: int, buffers: list[bytearray], offset: int) -> int:
        got = real_v(fd, buffers, offset)
        read.append(got)
        return got

    monkeypatch.setattr(transcript_read.os, "pread", counting)
    monkeypatch.setattr(transcript_read.os, "preadv", counting_v)
    return read
