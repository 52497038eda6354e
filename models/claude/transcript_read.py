"""Reading a teammate's transcript: the context it holds now, its model's window, its
compactions and the messages its model received, followed by what is appended.

A transcript is JSONL (PROTOCOL.md) that Claude Code only appends to, and a working teammate
appends a response a second: ``TranscriptFollower`` reads each file from where the last read
stopped, keeping per file only what the views need (the last response's usage and model, the
largest context seen, compactions, received messages, where the last whole line ended). A new
file, a truncated one or one rewritten in place (its first bytes differ) is read from the start.
Only lines that can matter are parsed (an assistant line, a compaction, a teammate message); a
last line still being written is left for the next read. One API response may span several
lines (parallel tool calls), so usage is counted once per ``message.id``; the context held now is
the last response's ``input + cache_creation + cache_read + output`` tokens, or after a
compaction its ``postTokens`` until the next response.
"""

from __future__ import annotations

import errno
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.claude.windows import ONE_M, window_for
from models.text.textfile import UnreadableFile, open_regular

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
PRESSURE_SHARE = 0.8  # at 80% of the window the next update may push the teammate into a compaction
HEAD_BYTES = 256  # a file whose first bytes changed was rewritten, not appended to
_BLOCK = re.compile(r"<teammate-message\s+([^>]*)>(.*?)</teammate-message>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_MATTERS = (b"assistant", b"compact_boundary", b"teammate-message")
_RECENT = 16  # response ids kept: one response may span several lines, never sixteen others
_PIECE = 1 << 22


@dataclass(frozen=True)
class Received:
    """A message that reached the model: a ``<teammate-message>`` block in a user turn."""

    sender: str
    summary: str | None
    text: str
    timestamp: str | None


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
    recent: list[str] = field(default_factory=list)  # the last responses' ids, newest last
    last: tuple[str | None, int] | None = None  # the last response's time and context
    seen: int = 0  # the largest context any response held
    model: str = ""
    compactions: list[str] = field(default_factory=list)
    after_compaction: int | None = None  # a compaction's postTokens, until the next response
    received: list[Received] = field(default_factory=list)
    broken: int = 0

    def feed_lines(self, data: bytes) -> None:
        """Whole lines (``data`` ends with a newline): only those holding a word that can
        matter are cut out and parsed; the rest is passed over by ``bytes.find``."""
        starts: set[int] = set()
        for word in _MATTERS:
            at = data.find(word)
            while at != -1:
                start = data.rfind(b"\n", 0, at) + 1
                starts.add(start)
                at = data.find(word, data.find(b"\n", at))
        for start in sorted(starts):
            self.feed(data[start : data.find(b"\n", start)])

    def feed(self, raw: bytes) -> None:
        """One whole line."""
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            self.broken += 1
            return
        if not isinstance(entry, dict):
            self.broken += 1
            return
        stamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
            self.compactions.append(stamp or "?")
            meta = entry.get("compactMetadata")
            post = meta.get("postTokens") if isinstance(meta, dict) else None
            self.after_compaction = int(post) if isinstance(post, int | float) else None
            return
        for attrs, text in blocks_in(entry):
            sender = attrs.get("teammate_id")
            if sender:
                self.received.append(Received(sender, attrs.get("summary"), text, stamp))
        message = entry.get("message")
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            return
        usage, mid = message.get("usage"), message.get("id")
        if not isinstance(usage, dict) or not isinstance(mid, str):
            return
        if isinstance(message.get("model"), str) and message["model"] != "<synthetic>":
            self.model = message["model"]  # the latest response's model: a /model switch counts
        tokens = _usage_tokens(usage)
        if mid not in self.recent:
            self.recent = [*self.recent[-(_RECENT - 1) :], mid]
        if mid == self.recent[-1]:
            self.last = (stamp, tokens)  # a split response: its lines carry the same usage
        self.seen = max(self.seen, tokens)
        self.after_compaction = None

    def context(self, path: Path, member: str, model: str, override: int | None) -> TeammateContext:
        out = TeammateContext(member, path, model=self.model or model)
        out.compactions, out.received, out.broken_lines = list(self.compactions), list(self.received), self.broken
        if self.last is not None:
            out.last_response, out.tokens = self.last
        if self.after_compaction is not None:
            out.tokens = self.after_compaction
        if self.broken:
            out.problems.append(f"{path.name}: {self.broken} broken lines skipped")
        set_window(out, override, self.seen or None)
        return out


class TranscriptFollower:
    """Reads transcripts by what was appended since the last read; safe to share between
    threads (one read at a time)."""

    def __init__(self, kept: dict[Path, Progress] | None = None) -> None:
        self._files: dict[Path, Progress] = dict(kept or {})
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
                progress = Progress(ident)
            if st.st_size - progress.offset > MAX_TRANSCRIPT_BYTES:
                raise UnreadableFile(errno.EFBIG, f"{st.st_size:,} bytes, over what the app reads", str(path))
            if len(progress.head) < HEAD_BYTES:
                progress.head = os.pread(fd, HEAD_BYTES, 0)
            _read_on(fd, progress)
            progress.stamp = stamp
        finally:
            os.close(fd)
        self._files[path] = progress
        self._advanced.add(path)
        return progress


def _read_on(fd: int, progress: Progress) -> None:
    """Feed ``progress`` what the file holds past its offset, a piece at a time (a first read
    of a 100 MB transcript holds one piece and one line, not the file)."""
    carry, at, read = b"", progress.offset, 0
    while True:
        piece = os.pread(fd, _PIECE, at)
        if not piece:
            break
        at, read = at + len(piece), read + len(piece)
        if read > MAX_TRANSCRIPT_BYTES:
            raise UnreadableFile(errno.EFBIG, "over the size the app reads")
        data = carry + piece if carry else piece
        end = data.rfind(b"\n") + 1
        if end:
            progress.feed_lines(data[:end] if end < len(data) else data)
            progress.offset += end
        carry = data[end:]
    if carry.strip() and _is_whole(carry):
        progress.feed(carry)  # a last line without its newline, already whole
        progress.offset += len(carry)


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
