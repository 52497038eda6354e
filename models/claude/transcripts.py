"""What a teammate's transcript says about its context: tokens held now, window, compactions.

A transcript is JSONL (PROTOCOL.md). One API response may span several lines (parallel tool
calls), so usage is counted once per ``message.id``; the context held now is the last
response's ``input + cache_creation + cache_read + output`` tokens. A ``compact_boundary``
system line is a compaction: what came before, the GC included, is now a summary. Broken lines
are counted and skipped, never fatal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.claude.team import Member, Team
from models.claude.windows import ONE_M, window_for
from models.text.textfile import read_bounded

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
PRESSURE_SHARE = 0.8  # at 80% of the window the next update may push the teammate into a compaction
_BLOCK = re.compile(r"<teammate-message\s+([^>]*)>(.*?)</teammate-message>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


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


def read_transcript(path: Path, member: str, model: str = "", override: int | None = None) -> TeammateContext:
    """Parse one transcript file. ``model``: the member's configured model, used until a
    response names one; ``override``: the Lead's window for this teammate."""
    out = TeammateContext(member, path, model=model)
    try:
        raw, _ = read_bounded(path, MAX_TRANSCRIPT_BYTES)
    except OSError as exc:
        out.problems.append(f"{path.name}: {exc.strerror or exc}")
        _set_window(out, override, None)
        return out
    last: dict[str, tuple[str | None, int]] = {}
    order: list[str] = []
    after_compaction: int | None = None  # a compaction's postTokens, until the next response
    seen = 0
    for line in raw.decode("utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            out.broken_lines += 1
            continue
        if not isinstance(entry, dict):
            out.broken_lines += 1
            continue
        stamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
            out.compactions.append(stamp or "?")
            meta = entry.get("compactMetadata")
            post = meta.get("postTokens") if isinstance(meta, dict) else None
            after_compaction = int(post) if isinstance(post, int | float) else None
            continue
        for attrs, text in blocks_in(entry):
            sender = attrs.get("teammate_id")
            if sender:
                out.received.append(Received(sender, attrs.get("summary"), text, stamp))
        message = entry.get("message")
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            continue
        usage = message.get("usage")
        mid = message.get("id")
        if not isinstance(usage, dict) or not isinstance(mid, str):
            continue
        if isinstance(message.get("model"), str) and message["model"] != "<synthetic>":
            out.model = message["model"]  # the latest response's model: a /model switch counts
        if mid not in last:
            order.append(mid)
        tokens = _usage_tokens(usage)
        last[mid] = (stamp, tokens)  # a split response: its lines carry the same usage
        seen = max(seen, tokens)
        after_compaction = None
    if order:
        out.last_response, out.tokens = last[order[-1]]
    if after_compaction is not None:
        out.tokens = after_compaction
    if out.broken_lines:
        out.problems.append(f"{path.name}: {out.broken_lines} broken lines skipped")
    _set_window(out, override, seen or None)
    return out


def _set_window(out: TeammateContext, override: int | None, seen: int | None) -> None:
    window = window_for(out.model, seen, override)
    out.window, out.window_source = window.tokens, window.source


def _candidates(team: Team, member: Member) -> list[Path]:
    """Transcript files that may be this member's, newest first."""
    root = team.claude_root
    folders = [root / "transcripts"]
    projects = root / "projects"
    if member.cwd:
        folders.append(projects / re.sub(r"[^A-Za-z0-9]", "-", member.cwd))
    if projects.is_dir():
        folders += sorted(p for p in projects.iterdir() if p.is_dir())
    seen: list[Path] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        if member.session_id and (folder / f"{member.session_id}.jsonl").is_file():
            return [folder / f"{member.session_id}.jsonl"]
        for path in [*folder.glob("*.jsonl"), *folder.glob("*/subagents/agent-*.jsonl")]:
            if path not in seen:
                seen.append(path)
    return sorted(seen, key=lambda p: p.stat().st_mtime, reverse=True)


def _names(path: Path) -> tuple[str | None, str | None]:
    """(teamName, agentName) from the first lines that carry them."""
    try:
        with path.open("rb") as fh:
            for _ in range(20):
                line = fh.readline(1 << 20)
                if not line:
                    break
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("agentName"), str):
                    team = entry.get("teamName")
                    return (team if isinstance(team, str) else None), entry["agentName"]
    except OSError:
        return None, None
    return None, None


def find_transcript(team: Team, member: Member) -> Path | None:
    """The member's transcript: by its session id where config.json gives one, else the newest
    file whose lines name this member of this team."""
    for path in _candidates(team, member):
        if member.session_id and path.stem == member.session_id:
            return path
        team_name, agent = _names(path)
        if agent == member.name and team_name in (None, team.name):
            return path
    return None


def team_context(team: Team, windows: dict[str, int] | None = None) -> dict[str, TeammateContext]:
    """Member name → context, for every member but the lead. ``windows``: the Lead's window
    per member, where it overrides what the model and transcript say."""
    out = {}
    for member in team.members:
        if member.name == team.lead:
            continue
        override = (windows or {}).get(member.name)
        path = find_transcript(team, member)
        if path is None:
            context = TeammateContext(member.name, model=member.model)
            _set_window(context, override, None)
            out[member.name] = context
        else:
            out[member.name] = read_transcript(path, member.name, member.model, override)
    return out


_LEAD_BLOCKS: dict[Path, tuple[tuple[str, int, int, int], list[tuple[str, str, str | None]]]] = {}


def lead_transcript_messages(team: Team) -> list[tuple[str, str, str | None]]:
    """(sender, text, timestamp) of every ``<teammate-message>`` block in the lead's transcript:
    the lasting record of replies on releases that drain the lead's inbox."""
    if not team.lead_session:
        return []
    lead = Member(team.lead, session_id=team.lead_session)
    path = find_transcript(team, lead)
    if path is None:
        return []
    try:
        st = path.stat()
    except OSError:
        return []
    key = (team.lead, st.st_ino, st.st_size, st.st_mtime_ns)
    cached = _LEAD_BLOCKS.get(path)
    if cached is not None and cached[0] == key:
        return list(cached[1])  # every Inbox refresh asks; the transcript is parsed once per change
    try:
        raw, _ = read_bounded(path, MAX_TRANSCRIPT_BYTES)
    except OSError:
        return []
    out = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        stamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        for attrs, text in blocks_in(entry):
            sender = attrs.get("teammate_id")
            if sender and sender != team.lead:
                out.append((sender, text, stamp))
    if len(raw) == st.st_size:  # parsed what was stat'ed: nothing appended in between
        _LEAD_BLOCKS.clear()  # one lead transcript is followed at a time
        _LEAD_BLOCKS[path] = (key, out)
    return list(out)
