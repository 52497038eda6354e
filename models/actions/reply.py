"""Reply: the Lead's own words to a teammate, answering one of its messages (a question, a
BLOCKED status, a DELTA report that needs the Lead's decision).

The reply is kept in the outbox (the Lead relays it by hand when no Claude Code team is
linked), the ledger says it was sent and that the message it answers is handled (so it leaves
Needs you), and with a linked team it goes into the teammate's inbox, as the preview lists it.
No reply is a [CONTEXT-UPDATE]: it is never the teammate's "last sent", and nothing waits for
its ACK.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace

from models.actions.preview import Preview
from models.claude.delivery import InboxEntry, entry_for
from models.claude.status import TeamView
from models.publish.publishing import utc_now
from models.review.actions import handled_line
from models.review.ledger import LedgerUnreadable, handled_keys
from models.review.validation import Review
from models.session.ledger_records import LEDGER, ReplyLine
from models.session.roles import NOT_A_FILE_NAME, names_a_file
from models.session.snapshot import SessionView
from models.text.transaction import FileWrite, create_write

REPLY = "REPLY"  # the delivery's kind in the ledger, as a ping's is "PING"

# The two answers a DELTA report that needs the Lead's decision most often gets; the Lead
# edits either, or writes another.
DECISIONS = {
    "Go ahead": "Decision: go ahead as you proposed.",
    "Hold": "Decision: hold. Do not apply this change until I say so; keep the current approach.",
}


def prepare_reply(
    session: SessionView, result: Review, text: str, *, team: TeamView | None = None, now: str | None = None
) -> Preview:
    """The preview of replying ``text`` to the message ``result`` read: the reply's outbox
    file, its ledger lines, and its inbox entry when a Claude Code team is linked."""
    role = result.message.sender
    title = f"Reply to {role or 'an unknown sender'}"
    body = text.strip()
    if role is None:
        return Preview("reply", title, session.folder, blocked=("the message names no sender to reply to",))
    if not names_a_file(role):
        return Preview("reply", title, session.folder, blocked=(f"the sender {role!r} {NOT_A_FILE_NAME}",))
    if not body:
        return Preview("reply", title, session.folder, blocked=("the reply is empty",))
    try:  # the handled line must not go to a ledger that cannot be read (it would be torn into)
        handled_keys(session.folder, strict=True)
    except LedgerUnreadable as exc:
        return Preview("reply", title, session.folder, blocked=(str(exc.strerror or exc),))
    now = now or utc_now()
    data = (body + "\n").encode("utf-8")
    outbox = session.folder / "messages" / "outbox"
    name = f"reply-{role}-{now.replace('-', '').replace(':', '')}"
    path, n = outbox / f"{name}.md", 2
    while os.path.lexists(path):  # two replies in one second
        path, n = outbox / f"{name}-{n}.md", n + 1
    rel = path.relative_to(session.folder).as_posix()
    sha = hashlib.sha256(data).hexdigest()
    m = result.message
    lines = (ReplyLine(now, role, rel, sha, m.source, m.sha).line(), handled_line(_as_reply(result), now))
    writes = (
        create_write(path, data, f"the reply to {role}"),
        FileWrite(session.folder / LEDGER, "append", "a reply and a handled line", _lines(lines), None),
    )
    deliveries: tuple[InboxEntry, ...] = ()
    if team is not None and team.team is not None and team.link is not None:
        entry = entry_for(team.team, team.link, role, rel, None, f"Reply from the Lead: {_first(body)}", body + "\n")
        deliveries = (replace(entry, kind=REPLY),)
    return Preview("reply", title, session.folder, writes, messages=((role, path),), deliveries=deliveries)


def _as_reply(result: Review) -> Review:
    """The review as the handled line records it: answered by a reply, whatever it asked."""
    return Review(result.message, action="reply", summary=result.summary)


def _first(body: str, width: int = 60) -> str:
    line = body.splitlines()[0]
    return line if len(line) <= width else line[: width - 1] + "…"


def _lines(lines: tuple[str, ...]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")
