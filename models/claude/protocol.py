"""Facts of Claude Code's team protocol that the app's writes depend on, with the release they
were read from (../shared/claude-code-team/PROTOCOL.md describes 2.1.332).

The sender name matters since 2.1.332: a lead signs what it writes as ``team-lead`` (and as
``user`` or ``system``) and its teammates mark an unsigned entry under a reserved name
``verified="false"``. The app cannot sign, so it writes under a name of its own, and since a
teammate cannot answer that name (it is no agent), every message it delivers ends with a line
telling the teammate to reply to the lead with SendMessage.
"""

from __future__ import annotations

import re
import unicodedata

READ_FROM = "2.1.332"  # the Claude Code release these facts were read from
DEFAULT_SENDER = "lead-console"  # says who wrote it; reserved by no release
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")  # a member name Claude Code accepts
RESERVED = ("teamlead", "user", "system")  # folded: a signing lead's names
NOT_A_SENDER = ("main",)  # refused as a teammate name; SendMessage's own target
# Claude Code's writers take the inbox lock in 11 mkdir attempts, 5 ms doubling to 100 ms, then
# drop their message: the app holds it far below this.
CLAUDE_LOCK_PATIENCE_S = 0.655


def fold(name: str) -> str:
    """A name as the reserved check compares it: case, spaces, dashes and underscores ignored,
    look-alike letters (full-width, compatibility forms) folded."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return re.sub(r"[\s\-_‐-―−]", "", folded)


def sender_problem(name: str, members: set[str]) -> tuple[bool, str] | None:
    """(refused, why) when ``name`` should not sign the app's messages, else None. Refused: not a
    member name Claude Code accepts, ``main``, or a member's own name (the member would seem to
    write to itself, and replies to that name reach the member, not the Lead). Allowed with a
    warning: a reserved name, which a signing lead's teammates show as unverified."""
    if not NAME.fullmatch(name):
        return True, f"{name!r} is not a name Claude Code accepts (letters, digits, - and _, up to 64)"
    if name.casefold() in NOT_A_SENDER:
        return True, f"{name} is Claude Code's own name for the main session"
    if name in members:
        return True, f"{name} is a member of the team; its replies would go to it, not to the Lead"
    if fold(name) in RESERVED:
        return False, (
            f"{name} is reserved: a {READ_FROM} lead signs under it, so its teammates see the app's "
            f"unsigned messages as unverified (deliver as {DEFAULT_SENDER} instead)"
        )
    return None


def reply_line(lead: str, version: int | None, kind: str = "ACK-UPDATE") -> str:
    """The last line of every delivered message: whom to answer and how. A teammate cannot
    answer the app's sender name (it is no agent), and plain text reaches nobody."""
    what = f"[{kind}] GC-v{version}" if version is not None else f"[{kind}]"
    return f"Reply to {lead} with SendMessage: {what} (applied/total, impact, action, unclear items)."


def with_reply_line(text: str, lead: str, version: int | None) -> str:
    """``text`` as delivered: the message, a blank line, the reply line."""
    return text.rstrip("\n") + "\n\n" + reply_line(lead, version)
