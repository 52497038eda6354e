"""Reading a teammate's transcript: the context it holds now, its model's window, its
compactions and the messages its model received, followed by what is appended.

A transcript is JSONL (PROTOCOL.md) that Claude Code only appends to, and a working teammate
appends a response a second: ``TranscriptFollower`` reads each file from where the last read
stopped, keeping per file only what the views need (the last response's context and model, the
largest context a compaction cut down, compactions, received messages, where the last whole line
ended). A new file, a truncated one or one rewritten in place (its first bytes differ) is read
from the start; a file whose size and modification time are as last read is not read at all.

Most of a transcript is what the client keeps beside the model's turns (attachments, request
shapes, tool results), so a read looks for words, not lines: compactions and teammate messages
are found forward by ``bytes.find``, the last response backward from the end, and only those
lines are parsed. What a read reports is therefore the same however the file was cut into
reads: the context held now is the last response's ``input + cache_creation + cache_read +
output`` tokens (one response may span several lines, each with the same usage), or after a
compaction its ``postTokens`` until the next response; the largest context known (which proves
a 1M window) is that, or any compaction's ``preTokens``. A last line still being written is left
for the next read.
"""

from __future__ import annotations

import errno
import json
import os
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from models.claude.usage import ACK_WORD, Response, response_of
from models.claude.windows import ONE_M, window_for
from models.text.textfile import UnreadableFile, open_regular

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
PRESSURE_SHARE = 0.8  # at 80% of the window the next update may push the teammate into a compaction
HEAD_BYTES = 256  # a file whose first bytes changed was rewritten, not appended to
_BLOCK = re.compile(r"<teammate-message\s+([^>]*)>(.*?)</teammate-message>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
# Every one of them matters. Each is as long as the client's form allows (a compaction's
# subtype, whatever the JSON's spacing; a message block opens with its sender, PROTOCOL.md),
# since a longer word is found faster: 87 -> 67 ms a 100 MB transcript.
_FORWARD = (b'compact_boundary"', b"<teammate-message teammate_id=")
_ASSISTANT = b"assistant"  # only the last response matters, unless its spending is asked for
_USAGE = b'"output_tokens"'  # every response's usage: read only by a follower asked for spending
_COPIES = b'{"type":"api-request'  # the client's copies of its requests (blobs, shapes): no turn of the model's
_PIECE = 1 << 22


@dataclass(frozen=True)
class Received:
    """A message that reached the model: a ``<teammate-message>`` block in a user turn."""

    sender: str
    summary: str | None
    text: str
    timestamp: str | None
    turn: int = -1  # how many responses came before it (-1: not counted, spending not asked)


@dataclass(frozen=True)
class Spending:
    """Every response of a transcript in order, and the compactions among them: what the cost of
    its context is worked out from (``models.claude.sharing``)."""

    responses: tuple[Response, ...]
    compaction_turns: tuple[tuple[int, int], ...]  # before each compaction: (responses, messages received)


@dataclass
class TeammateContext:
    """One teammate's context as its transcript shows it."""

    member: str
    transcript: Path | None = None
    tokens: int | None = None  # the context now: the last response's, or a later compaction's result
    window: int = ONE_M
    window_source: str = ""
    model: str = ""
    last_response: str | None = None
    compactions: list[str] = field(default_factory=list)  # timestamps, oldest first
    received: list[Received] = field(default_factory=list)
    broken_lines: int = 0
    problems: list[str] = field(default_factory=list)
    spending: Spending | None = None  # where the follower was asked for it

    @property
    def pressure(self) -> bool:
        return self.tokens is not None and self.tokens >= PRESSURE_SHARE * self.window

    @property
    def share(self) -> float:
        return (self.tokens or 0) / self.window if self.window else 0.0


def _usage_tokens(usage: dict[str, Any]) -> int:
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
    return sum(int(v) for k in keys if isinstance(v := usage.get(k), int | float))


def blocks_in(entry: dict[str, Any]) -> list[tuple[dict[str, str], str]]:
    """(attributes, text) of each ``<teammate-message>`` block of a ``user`` line: what reached
    the model. Other lines (``api-request-blob`` copies among them) are not looked into."""
    if entry.get("type") != "user":
        return []
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        texts = [c["text"] for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]
    else:
        texts = []
    return [(dict(_ATTR.findall(b.group(1))), b.group(2).strip("\n")) for t in texts for b in _BLOCK.finditer(t)]


@dataclass
class Progress:
    """What has been read of one transcript file so far, and what it showed: all a later read
    needs to go on from where this one stopped (``models.claude.transcript_cache`` keeps it
    between CLI runs)."""

    ident: tuple[int, int]  # (device, inode): a replaced file is read again
    head: bytes = b""
    offset: int = 0  # the bytes read, up to the end of the last whole line
    stamp: tuple[int, int] = (-1, -1)  # (size, mtime ns) at the last read: the same again, nothing to read
    last: tuple[str | None, int] | None = None  # the last response's time and context
    peak: int = 0  # the largest context a compaction cut down (its preTokens)
    model: str = ""
    compactions: list[str] = field(default_factory=list)
    after_compaction: int | None = None  # a compaction's postTokens, until the next response
    received: list[Received] = field(default_factory=list)
    broken: int = 0
    spend: bool = False  # every response's usage is kept, and where messages and compactions fall
    responses: list[Response] = field(default_factory=list)
    last_id: str | None = None  # the last response's message id: its later lines are the same response
    compaction_turns: list[tuple[int, int]] = field(default_factory=list)  # (responses, messages) before each
    ack_pending: bool = False  # ACKs alone arrived: the response to them is an ACK round trip's

    def feed(self, data: bytes | bytearray, stop: int) -> None:
        """Whole lines (``data[:stop]``, which ends with a newline; not sliced off, since a
        piece is megabytes): the compactions and teammate messages in them, in order, then the
        last response."""
        compacted_at = -1
        for start, end in _lines_holding(data, stop, (*_FORWARD, _USAGE) if self.spend else _FORWARD):
            entry = self._entry(data[start:end])
            if entry is None:
                continue
            stamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
            if self.spend and entry.get("type") == "assistant":
                self._respond(entry, data.find(ACK_WORD, start, end) != -1)
                continue
            if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
                self.compactions.append(stamp or "?")
                self.compaction_turns.append((len(self.responses), len(self.received)))
                self.ack_pending = False
                meta = entry.get("compactMetadata")
                meta = meta if isinstance(meta, dict) else {}
                post, pre = meta.get("postTokens"), meta.get("preTokens")
                self.after_compaction = int(post) if isinstance(post, int | float) else None
                self.peak = max(self.peak, int(pre) if isinstance(pre, int | float) else 0)
                compacted_at = start
                continue
            blocks = [(a["teammate_id"], a, text) for a, text in blocks_in(entry) if a.get("teammate_id")]
            turn = len(self.responses) if self.spend else -1
            for sender, attrs, text in blocks:
                self.received.append(Received(sender, attrs.get("summary"), text, stamp, turn))
            if blocks:
                self.ack_pending = all(text.lstrip().startswith("[ACK-UPDATE]") for _, _, text in blocks)
        found_at, model = self._last_response(data, stop)
        if model:
            self.model = model  # the latest response's model: a /model switch counts
        if found_at > compacted_at:
            self.after_compaction = None  # a response after the compaction says the context now

    def _respond(self, entry: dict[str, Any], ack: bool) -> None:
        """Count a response once (its other lines carry the same id and usage); a line of it
        that sends an ACK marks it, as does answering ACKs alone."""
        read = response_of(entry, ack)
        if read is None:
            return
        ident, response = read
        if ident is not None and ident == self.last_id and self.responses:
            if ack and not self.responses[-1].ack:
                self.responses[-1] = replace(self.responses[-1], ack=True)
            return
        if self.ack_pending:
            response, self.ack_pending = replace(response, ack=True), False
        self.last_id = ident
        self.responses.append(response)

    def _last_response(self, data: bytes | bytearray, stop: int) -> tuple[int, str]:
        """Where the last response starts (-1: none) and the latest model named, looking back
        from ``stop``; the last response's time and context are kept."""
        found_at, hi = -1, stop
        while hi > 0:
            at = data.rfind(_ASSISTANT, 0, hi)
            if at == -1:
                break
            start = data.rfind(b"\n", 0, at) + 1
            hi = start
            if data.startswith(_COPIES, start):
                continue
            response = _response(data[start : data.find(b"\n", at)])
            if response is None:
                continue
            stamp, tokens, model = response
            if found_at == -1:
                found_at, self.last = start, (stamp, tokens)
            if model and model != "<synthetic>":
                return found_at, model
        return found_at, ""

    def _entry(self, raw: bytes | bytearray) -> dict[str, Any] | None:
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            entry = None
        if not isinstance(entry, dict):
            self.broken += 1
            return None
        return entry

    def context(self, path: Path, member: str, model: str, override: int | None) -> TeammateContext:
        out = TeammateContext(member, path, model=self.model or model)
        out.compactions, out.received, out.broken_lines = list(self.compactions), list(self.received), self.broken
        if self.last is not None:
            out.last_response, out.tokens = self.last
        if self.after_compaction is not None:
            out.tokens = self.after_compaction
        if self.spend:
            out.spending = Spending(tuple(self.responses), tuple(self.compaction_turns))
        if self.broken:
            out.problems.append(f"{path.name}: {self.broken} broken lines skipped")
        set_window(out, override, max(self.peak, self.last[1] if self.last else 0) or None)
        return out


class TranscriptFollower:
    """Reads transcripts by what was appended since the last read; safe to share between
    threads (one read at a time)."""

    def __init__(self, kept: dict[Path, Progress] | None = None, spend: bool = False) -> None:
        """``kept``: what earlier reads kept (the CLI's cache); ``spend``: keep every response's
        usage too (a second search of each transcript: asked where the cost is shown)."""
        self.spend = spend
        self._files: dict[Path, Progress] = {p: k for p, k in (kept or {}).items() if k.spend or not spend}
        self._lock = threading.Lock()
        self._advanced: set[Path] = set()

    def read(self, path: Path, member: str, model: str = "", override: int | None = None) -> TeammateContext:
        """``path`` as it is now. ``model``: the member's configured model, used until a
        response names one; ``override``: the Lead's window for this teammate."""
        with self._lock:
            try:
                progress = self._advance(path)
            except OSError as exc:
                self._files.pop(path, None)
                out = TeammateContext(member, path, model=model)
                out.problems.append(f"{path.name}: {exc.strerror or exc}")
                set_window(out, override, None)
                return out
            return progress.context(path, member, model, override)

    def take_advanced(self) -> dict[Path, Progress]:
        """The files read further since the last call, with what was read of each (to keep)."""
        with self._lock:
            out = {path: self._files[path] for path in self._advanced if path in self._files}
            self._advanced.clear()
            return out

    def _advance(self, path: Path) -> Progress:
        fd, st = open_regular(path)
        try:
            ident, stamp = (st.st_dev, st.st_ino), (st.st_size, st.st_mtime_ns)
            progress = self._files.get(path)
            if progress is not None and progress.ident == ident and progress.stamp == stamp:
                return progress  # not touched since the last read
            if progress is not None and (
                progress.ident != ident
                or st.st_size < progress.offset
                or os.pread(fd, len(progress.head), 0) != progress.head
            ):
                progress = None  # replaced, truncated or rewritten: from the start
            if progress is None:
                progress = Progress(ident, spend=self.spend)
            if st.st_size - progress.offset > MAX_TRANSCRIPT_BYTES:
                raise UnreadableFile(errno.EFBIG, f"{st.st_size:,} bytes, over what the app reads", str(path))
            if len(progress.head) < HEAD_BYTES:
                progress.head = os.pread(fd, HEAD_BYTES, 0)
            _read_on(fd, progress, st.st_size - progress.offset)
            progress.stamp = stamp
        finally:
            os.close(fd)
        self._files[path] = progress
        self._advanced.add(path)
        return progress


def _read_on(fd: int, progress: Progress, expected: int) -> None:
    """Feed ``progress`` what the file holds past its offset, a piece at a time into one buffer
    (a first read of a 100 MB transcript holds one piece, not the file, and makes no new block
    for each piece); a piece ends at its last newline, and the next begins there. ``expected``:
    the bytes there were at the last look; an append of one turn gets a buffer its size, not a
    piece's (a zeroed 4 MB block for 27 KB was a fifth of following a working team)."""
    buffer, read = bytearray(min(_PIECE, max(expected, 0) + 1)), 0
    while True:
        got = os.preadv(fd, [buffer], progress.offset)
        read += got
        if read > MAX_TRANSCRIPT_BYTES:
            raise UnreadableFile(errno.EFBIG, "over the size the app reads")
        end = buffer.rfind(b"\n", 0, got) + 1
        at_end = got < len(buffer)
        if end == 0 and not at_end:
            buffer = bytearray(2 * len(buffer))  # one line longer than a piece: read it whole
            continue
        if end:
            progress.feed(buffer, end)
            progress.offset += end
        if at_end:
            rest = bytes(buffer[end:got])
            if rest.strip() and _is_whole(rest):
                progress.feed(rest + b"\n", len(rest) + 1)  # a last line without its newline, already whole
                progress.offset += len(rest)
            return
        if len(buffer) != _PIECE:
            buffer = bytearray(_PIECE)  # after a longer line, or more than was there at the last look


def _lines_holding(data: bytes | bytearray, stop: int, words: tuple[bytes, ...]) -> list[tuple[int, int]]:
    """(start, end) of each line of ``data[:stop]`` that holds one of ``words``, in order; the
    client's copies of its requests left out."""
    found: set[tuple[int, int]] = set()
    for word in words:
        at = data.find(word, 0, stop)
        while at != -1:
            start, end = data.rfind(b"\n", 0, at) + 1, data.find(b"\n", at, stop)
            if not data.startswith(_COPIES, start):
                found.add((start, end))
            at = data.find(word, end, stop)
    return sorted(found)


def _response(raw: bytes | bytearray) -> tuple[str | None, int, str] | None:
    """(time, context, model) of an assistant line with its usage; None for any other line."""
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "assistant" else None
    if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
        return None
    if not isinstance(message.get("id"), str):
        return None
    stamp, model = entry.get("timestamp"), message.get("model")
    return (
        (stamp if isinstance(stamp, str) else None),
        _usage_tokens(message["usage"]),
        (model if isinstance(model, str) else ""),
    )


def _is_whole(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except (ValueError, RecursionError):
        return False


def read_transcript(path: Path, member: str, model: str = "", override: int | None = None) -> TeammateContext:
    """One transcript read whole (a follower that has read nothing before)."""
    return TranscriptFollower().read(path, member, model, override)


def set_window(out: TeammateContext, override: int | None, seen: int | None) -> None:
    window = window_for(out.model, seen, override)
    out.window, out.window_source = window.tokens, window.source
