"""Where teammates' replies come from: the session's ``messages/inbox/`` (one message per
file), a Claude Code team's lead mailbox (``~/.claude/teams/<team>/inboxes/<lead>.json``, only
ever read), or a paste.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from models.review.messages import Kind, classify
from models.text.problems import Problem
from models.text.textfile import read_text, read_utf8

INBOX = Path("messages") / "inbox"


@dataclass(frozen=True)
class Message:
    """One message seen, from wherever it came."""

    source: str  # "inbox/<file>", "claude:<team>/<sender>/<sha12>#<k>" or "pasted"
    sender: str | None
    text: str
    timestamp: str | None

    @property
    def kind(self) -> Kind:
        return classify(self.text)

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def sender_from(name: str, text: str, roles: list[str]) -> str | None:
    for line in text.splitlines()[:5]:
        if line.lower().startswith("from:"):
            return line.split(":", 1)[1].strip() or None
    matches = [r for r in roles if name.startswith(r)]
    return max(matches, key=len) if matches else None


def read_inbox(folder: Path, roles: list[str], problems: list[Problem] | None = None) -> list[Message]:
    """The session's inbox files (.md/.txt), oldest name first; never deleted by the app.

    An entry that cannot be read (a folder, a FIFO, a link to nothing, one removed while the
    folder is read) is left out and said in ``problems``: it used to fail the whole Inbox, and
    with it the plan and the team's view."""
    inbox = folder / INBOX
    out = []
    for path in sorted(inbox.glob("*")) if inbox.is_dir() else []:
        if path.suffix not in (".md", ".txt") or path.name.startswith("."):
            continue
        try:
            loaded = read_text(path)
            stamp = datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except OSError as exc:
            if problems is not None:
                said = f"cannot be read ({exc.strerror or exc}); left out of the Inbox"
                problems.append(Problem("warning", f"{INBOX.as_posix()}/{path.name}", said))
            continue
        out.append(Message(f"inbox/{path.name}", sender_from(path.name, loaded.text, roles), loaded.text, stamp))
    return out


def read_claude_team(team_folder: Path, lead: str | None = None) -> tuple[list[str], list[Message], list[str]]:
    """(members, messages to the lead, problems) of a Claude Code team; read only.

    The schema is Claude Code's own and undocumented: unknown fields are ignored, missing
    ones tolerated, and a file that does not parse is reported, not guessed.
    """
    problems: list[str] = []
    members: list[str] = []
    if lead is None:  # a caller that read the team already names the lead: config is not read again
        try:
            config = json.loads(read_utf8(team_folder / "config.json"))
            entries = [m for m in config.get("members", []) if isinstance(m, dict)]
            members = [str(m.get("name")) for m in entries if m.get("name")]
            lead = next((str(m.get("name")) for m in entries if m.get("agentType") == "team-lead"), None)
        except (OSError, ValueError, RecursionError, AttributeError) as exc:
            problems.append(f"config.json: {exc}")
    lead = lead or "team-lead"
    inbox = team_folder / "inboxes" / f"{lead}.json"
    messages: list[Message] = []
    try:
        items = json.loads(read_utf8(inbox))
    except FileNotFoundError:
        return members, messages, problems
    except (OSError, ValueError, RecursionError) as exc:
        problems.append(f"inboxes/{lead}.json: {exc}")
        return members, messages, problems
    seen: dict[tuple[str, str], int] = {}
    for n, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            problems.append(f"inboxes/{lead}.json item {n}: no text")
            continue
        sender = str(item["from"]) if item.get("from") else None
        stamp = str(item["timestamp"]) if item.get("timestamp") else None
        for text in (item["text"], *idle_result(item["text"])):
            messages.append(Message(claude_source(team_folder.name, sender, text, seen), sender, text, stamp))
    return members, messages, problems


def idle_result(text: str) -> tuple[str, ...]:
    """The teammate's last reply carried by an idle notification (its ``result``), when it is a
    protocol message: an [ACK-UPDATE] written as plain text, not sent with SendMessage, reaches
    the lead only there."""
    if not text.lstrip().startswith("{"):
        return ()
    try:
        frame = json.loads(text)
    except (ValueError, RecursionError):
        return ()
    result = frame.get("result") if isinstance(frame, dict) and frame.get("type") == "idle_notification" else None
    if not isinstance(result, str) or classify(result) in ("protocol", "unknown"):
        return ()
    return (result,)


def claude_source(team: str, sender: str | None, text: str, seen: dict[tuple[str, str], int]) -> str:
    """A message's source named by its content, not its position: newer Claude Code releases
    drain the lead's inbox (positions shift) and the same reply is also read back from the lead's
    transcript, and each must be recorded once. ``seen`` numbers repeats of the same text."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    key = (sender or "?", sha)
    seen[key] = seen.get(key, 0) + 1
    return f"claude:{team}/{sender or '?'}/{sha}#{seen[key]}"
