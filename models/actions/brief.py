"""A spawn brief: everything a teammate that replaces another (or joins) needs, in one message.

A replacement "had to be re-briefed from scratch": the Lead pasted the GC, hunted the replaced
teammate's TEAM-MEMORY lines and tasks, and lost count of the version it started at. The brief
is one [CONTEXT-UPDATE] full injection (so the teammate's ACK is read like any other): the GC,
or the sections the role follows (subscriptions.yaml); the TEAM-MEMORY sections of the role it
takes over (the replaced ones too: they hold what the last one learned) and the Lead's entries
that name the role or no teammate; and the role's rows of the plan's teammate tables (its tasks
and their status). Committing it writes the brief to the outbox, a ``sent`` line to the ledger
and the plan's last-sent entry (and the role's state, active, when it was not): the teammate
is then due to confirm that version, and its ACK confirms it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from models.actions.preview import Preview
from models.delta.decisions import Condition, Decision, render_full, render_role_full
from models.publish.publishing import OUTBOX, utc_now
from models.publish.subscribing import names
from models.publish.teammate_state import STATUS_WORD
from models.session.folder import PLAN_FILE
from models.session.ledger_records import LEDGER, SentLine
from models.session.roles import NOT_A_FILE_NAME, names_a_file, role_key
from models.session.snapshot import SessionView
from models.session.versions import label
from models.text.surgical import EditError, set_front_entry
from models.text.transaction import FileWrite, create_write, edit_write


class BriefError(Exception):
    """No brief can be made as asked (no GC, an unversioned one, a name no file can carry)."""


@dataclass(frozen=True)
class Brief:
    """The brief's text and what it holds, each part with its tokens."""

    role: str
    takes_over: str | None
    version: int
    text: str
    tokens: int
    parts: tuple[tuple[str, int], ...]
    follows: tuple[str, ...] | None = None  # the sections it holds the text of (None: the whole GC)


def compose_brief(session: SessionView, role: str, takes_over: str | None = None) -> Brief:
    """The brief for ``role``, taking over ``takes_over``'s work (``role``'s own when None:
    a teammate replaced under its own name); a new role with no work yet gets the GC alone."""
    gc = session.gc
    if gc is None:
        raise BriefError("this session has no global-context.md: there is nothing to brief a teammate with")
    if gc.version is None:
        raise BriefError("the GC has no version; give it 'version: GC-vN' in its front matter first")
    if not names_a_file(role):
        raise BriefError(f"{role!r} {NOT_A_FILE_NAME}")
    old = takes_over or role
    follows = session.subscriptions.follows(old) if session.subscriptions is not None else None
    count = session.tokenizer.count
    context = render_full(gc.text, gc.version) if follows is None else render_role_full(gc.text, gc.version, follows)
    head, _, body = context.partition("\n\n")
    head = head.replace("(full injection", f"(full injection: spawn brief for {role}", 1).replace(
        ": the sections", ", the sections", 1
    )
    reply = f"[ACK-UPDATE] {label(gc.version)} received (applied/total, impact, action, unclear items)"
    intro = (
        f"You are {role}"
        + (f", taking over from {old}" if old != role else "")
        + f", starting at {label(gc.version)}. "
        "Read the global context, your TEAM-MEMORY and your open items below, then reply to the Lead: " + reply + "."
    )
    memory = _memory_lines(session, old)
    items = _plan_rows(session, old)
    parts = [("global context" if follows is None else "the sections it follows", body)]
    text = f"{head}\n\n{intro}\n\n{body.rstrip(chr(10))}\n"
    if memory:
        block = f"# TEAM-MEMORY: {old} and the Lead\n\n" + "\n\n".join(memory) + "\n"
        parts.append(("TEAM-MEMORY", block))
        text += "\n" + block
    if items:
        block = f"# Open items of {old} (orchestration-plan.md)\n\n" + "\n".join(items) + "\n"
        parts.append(("open items", block))
        text += "\n" + block
    parts_counted = tuple((what, count(t)) for what, t in parts)
    return Brief(role, takes_over, gc.version, text, count(text), parts_counted, follows)


def _memory_lines(session: SessionView, role: str) -> list[str]:
    """The role's TEAM-MEMORY sections (a replaced one's too) and the Lead's entries that name
    the role or no teammate, in the file's order, as the file writes them; one block each."""
    memory = session.memory
    if memory is None:
        return []
    others = [r for r in session.roles() if role_key(r) != role_key(role)]
    out: list[str] = []
    for section in memory.sections:
        if section.kind == "role" and role_key(section.role) == role_key(role):
            kept = [memory.written(section, e).rstrip("\n") for e in section.entries]
        elif section.kind == "lead":
            kept = [
                memory.written(section, e).rstrip("\n")
                for e in section.entries
                if not e.archived and (names(e.text, role) or not any(names(e.text, r) for r in others))
            ]
        else:
            continue
        if kept:
            out.append("\n".join([f"## {section.header}", *kept]))
    return out


def _plan_rows(session: SessionView, role: str) -> list[str]:
    """The role's rows of the plan's teammate tables, each cell with its column."""
    plan = session.plan
    if plan is None:
        return []
    return [
        "- " + "; ".join(f"{header}: {value}" for header, value in row.cells.items() if value)
        for row in plan.table_rows
        if role_key(row.name) == role_key(role)
    ]


def prepare_brief(session: SessionView, role: str, takes_over: str | None = None, now: str | None = None) -> Preview:
    """The brief's writes: the outbox file, the plan's last-sent entry for ``role`` (and its
    state, active, if it is not receiving updates now) and the ledger's ``sent`` line."""
    brief = compose_brief(session, role, takes_over)
    now = now or utc_now()
    stamp = now.replace("-", "").replace(":", "")
    rel = OUTBOX / f"GC-v{brief.version}-{role}-spawn-{stamp}.md"
    data = brief.text.encode("utf-8")
    mate = next((m for m in session.teammates() if role_key(m.role) == role_key(role)), None)
    activate = mate is None or not mate.receives

    def edit(text: str) -> str:
        entry = {"sent_version": brief.version, "delta_size": brief.tokens, "timestamp": now}
        text = set_front_entry(text, "teammate_gc_last_delta", role, entry)
        return set_front_entry(text, "teammate_status", role, STATUS_WORD["active"]) if activate else text

    said = f"teammate_gc_last_delta: {role} sent {label(brief.version)}" + (
        f"; teammate_status: {role} {STATUS_WORD['active']}" if activate else ""
    )
    try:
        plan = edit_write(session.folder / PLAN_FILE, edit, said)
    except (EditError, OSError) as exc:
        raise BriefError(f"{PLAN_FILE}: {exc}") from exc
    line = SentLine(
        now,
        role,
        brief.version,
        "full",
        rel.as_posix(),
        hashlib.sha256(data).hexdigest(),
        tokens=brief.tokens,
        conditions=("FC-3",),
        reason="spawn brief" + (f", taking over from {takes_over}" if takes_over and takes_over != role else ""),
        follows=brief.follows if brief.follows is not None else "all",
    )
    ledger = FileWrite(session.folder / LEDGER, "append", "1 sent message", (line.line() + "\n").encode("utf-8"), None)
    parts = ", ".join(f"{what} {tokens:,}" for what, tokens in brief.parts)
    message = create_write(session.folder / rel, data, f"spawn brief for {role}: {brief.tokens:,} tokens ({parts})")
    why = Condition("FC-3", "a new teammate: no confirmed GC version yet; its ACK confirms " + label(brief.version))
    decision = Decision(role, "full", (why,), brief.tokens, brief.tokens, None)
    return Preview(
        "brief",
        f"Spawn brief for {role} at {label(brief.version)}",
        session.folder,
        (message, plan, ledger),
        decisions=(decision,),
        messages=((role, session.folder / rel),),
        version=brief.version,
    )
