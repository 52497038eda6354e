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
from models.text.textfile import read_bounded

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
PRESSURE_SHARE = 0.8  # at 80% of the window the next update may push the teammate into a compaction


def context_window(model: str) -> int:
    """The model's context window: 1M for the ``[1m]`` variants, else 200k (Claude's default)."""
    return 1_000_000 if re.search(r"\[1m\]|-1m\b", model, re.IGNORECASE) else 200_000


@dataclass
class TeammateContext:
    """One teammate's context as its transcript shows it."""

    member: str
    transcript: Path | None = None
    tokens: int | None = None  # the last response's context; None when no response was read
    window: int = 200_000
    model: str = ""
    last_response: str | None = None
    compactions: list[str] = field(default_factory=list)  # timestamps, oldest first
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


def read_transcript(path: Path, member: str, model: str = "") -> TeammateContext:
    """Parse one transcript file."""
    out = TeammateContext(member, path, model=model, window=context_window(model))
    try:
        raw, _ = read_bounded(path, MAX_TRANSCRIPT_BYTES)
    except OSError as exc:
        out.problems.append(f"{path.name}: {exc.strerror or exc}")
        return out
    last: dict[str, tuple[str | None, int]] = {}
    order: list[str] = []
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
            continue
        message = entry.get("message")
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            continue
        usage = message.get("usage")
        mid = message.get("id")
        if not isinstance(usage, dict) or not isinstance(mid, str):
            continue
        if isinstance(message.get("model"), str) and not out.model:
            out.model = message["model"]
            out.window = context_window(out.model)
        if mid not in last:
            order.append(mid)
        last[mid] = (stamp, _usage_tokens(usage))  # a split response: its lines carry the same usage
    if order:
        out.last_response, out.tokens = last[order[-1]]
    if out.broken_lines:
        out.problems.append(f"{path.name}: {out.broken_lines} broken lines skipped")
    return out


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


def team_context(team: Team) -> dict[str, TeammateContext]:
    """Member name → context, for every member but the lead."""
    out = {}
    for member in team.members:
        if member.name == team.lead:
            continue
        path = find_transcript(team, member)
        if path is None:
            out[member.name] = TeammateContext(member.name, model=member.model, window=context_window(member.model))
        else:
            out[member.name] = read_transcript(path, member.name, member.model)
    return out


_LEAD_BLOCKS: dict[Path, tuple[tuple[str, int, int, int], list[tuple[str, str, str | None]]]] = {}
_BLOCK = re.compile(r"<teammate-message\s+([^>]*)>(.*?)</teammate-message>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


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
        if not isinstance(entry, dict) or entry.get("type") != "user":
            continue
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        texts = (
            [content]
            if isinstance(content, str)
            else [c.get("text") for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]
            if isinstance(content, list)
            else []
        )
        for text in texts:
            for block in _BLOCK.finditer(str(text)):
                attrs = dict(_ATTR.findall(block.group(1)))
                sender = attrs.get("teammate_id")
                if sender and sender != team.lead:
                    stamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
                    out.append((sender, block.group(2).strip("\n"), stamp))
    if len(raw) == st.st_size:  # parsed what was stat'ed: nothing appended in between
        _LEAD_BLOCKS.clear()  # one lead transcript is followed at a time
        _LEAD_BLOCKS[path] = (key, out)
    return list(out)
