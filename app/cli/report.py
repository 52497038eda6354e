"""What ``lead-console inspect`` prints: a session as JSON-ready data and as a summary."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.session.versions import label
from models.text.wording import counted

if TYPE_CHECKING:  # types only: `inspect` must not import what review and context commands need
    from models.context.compose import Composed
    from models.context.gsd import SelectiveContext
    from models.review.validation import Review
    from models.session.folder import Session
    from models.session.gc import Section


def _section(section: Section) -> dict[str, Any]:
    return {
        "title": section.title,
        "ref": section.ref,
        "level": section.level,
        "tokens": section.tokens,
        "items": len(section.items),
        "children": [_section(c) for c in section.children],
    }


def session_data(session: Session) -> dict[str, Any]:
    """The ``inspect --json`` document (shape fixed by issue 2)."""
    gc = session.gc
    memory = session.memory
    return {
        "session": session.id,
        "gc": {
            "version": session.gc_version,
            "title": gc.title if gc else None,
            "tokens": gc.tokens if gc else 0,
            "tokenizer": session.tokenizer.name,
            "sections": [_section(s) for s in gc.sections] if gc else [],
        },
        "teammates": [
            {
                "role": t.role,
                "confirmed": t.confirmed,
                "sent": t.sent,
                "status": t.status,
                "state": t.state,
                "state_read_from": t.state_source,
                "receives_updates": t.receives,
                "sources": t.sources,
            }
            for t in session.teammates()
        ],
        "memory": {
            "lines": memory.line_count if memory else 0,
            "sections": [
                {
                    "role": s.role,
                    "header": s.header,
                    "entries": len(s.entries),
                    "tags": s.tag_counts(),
                    "replaced": s.replaced,
                }
                for s in (memory.sections if memory else [])
            ],
        },
        # Gate records, and the plan's gate list for the phases without one, as the window
        # shows them; each says where it was read.
        "gates": [
            {"phase": g.phase, "verdict": g.verdict, "date": g.date, "read_from": g.path} for g in session.all_gates
        ],
        "warnings": [*_cut_short(session.folder), *(str(p) for p in session.all_problems)],
    }


def session_summary(session: Session) -> str:
    """A readable summary for a terminal."""
    out: list[str] = []
    gc = session.gc
    out.append(f"Session  {session.id}  ({session.folder})")
    if gc is not None:
        out.append(
            f"GC       {label(session.gc_version)}  {gc.title or '(no title)'}  "
            f"{gc.tokens:,} tokens ({session.tokenizer.name}), {gc.section_count} sections"
        )
        for s in gc.walk():
            indent = "  " * (s.level - 1)
            items = f", {counted(len(s.items), 'item')}" if s.items else ""
            out.append(f"  {indent}{s.title}  [{s.tokens:,} tok{items}]")
    else:
        out.append("GC       (none yet: no global-context.md in this session)")
    mates = session.teammates()
    out.append(f"Teammates ({len(mates)})")
    # As the window's table says it: a teammate in a state that is sent no updates says so.
    states = [t.state if t.receives else f"{t.state} (not sent)" for t in mates]
    width = max(9, *(len(state) for state in states)) if states else 9
    for t, state in zip(mates, states, strict=True):
        out.append(
            f"  {t.role:<22} {state:<{width}} confirmed {label(t.confirmed):<7} sent {label(t.sent):<7} "
            f"{t.status or '':<16} {', '.join(t.sources)}"
        )
    memory = session.memory
    if memory is not None:
        out.append(f"TEAM-MEMORY  {memory.line_count} lines, {len(memory.sections)} sections")
        for part in memory.sections:
            tags = ", ".join(f"{k} {v}" for k, v in sorted(part.tag_counts().items()))
            mark = " [REPLACED]" if part.replaced else ""
            n = len(part.entries)
            out.append(f"  {part.role:<22} {n:>3} {'entry' if n == 1 else 'entries'}{mark}  {tags}")
    gates = session.all_gates
    if gates:
        out.append("Gates")
        for g in gates:
            out.append(f"  Phase {g.phase}: {g.verdict or '?'}  ({g.path})")
    problems = [*_cut_short(session.folder), *(str(p) for p in session.all_problems)]
    if problems:
        out.append(f"Warnings ({len(problems)})")
        out.extend(f"  {p}" for p in problems)
    return "\n".join(out)


def _cut_short(folder: Path) -> list[str]:
    """An action of ours cut short in the session, as ``inspect`` warns of it first."""
    from models.text.intent import read_interrupted

    found = read_interrupted(folder)
    return [found.describe(folder)] if found is not None else []


def review_data(result: Review) -> dict[str, Any]:
    """What ``ack`` prints: the fields read, what could not be read, problems and the action."""
    fields: dict[str, Any] = {}
    if result.ack is not None:
        a = result.ack
        fields = {
            "version": a.version,
            "applied": a.applied,
            "total": a.total,
            "impact": a.impact,
            "action": a.action,
            "unclear": a.unclear,
            "form": a.form,
        }
    elif result.status is not None:
        s = result.status
        fields = {"phase": s.phase, "status": s.status, "version": s.version}
    elif result.report is not None:
        r = result.report
        fields = {
            "changes": r.changes,
            "risks": [{"level": k.level, "desc": k.desc} for k in r.risks],
            "alternatives": r.alternatives,
            "needs_consult": r.needs_consult,
            "state": r.state,
            "attention": r.attention,
        }
    return {
        "kind": result.message.kind,
        "from": result.message.sender,
        "fields": fields,
        "problems": result.problems,
        "lead_action": result.action,
        "summary": result.summary,
        "confirm_version": result.confirm_version,
    }


def review_text(data: dict[str, Any]) -> str:
    out = [f"{data['kind']} from {data['from'] or 'unknown sender'}"]
    out += [f"  {k}: {v}" for k, v in data["fields"].items()]
    out += [f"  problem: {p}" for p in data["problems"]]
    if data["summary"]:
        out.append(f"Lead action: {data['lead_action']} — {data['summary']}")
    return "\n".join(out)


def composed_data(composed: Composed) -> dict[str, Any]:
    """What ``context`` prints: the blocks in order, their tokens and failures."""
    total = composed.tokens or 1
    return {
        "manifest": str(composed.manifest.path) if composed.manifest.path else "(default manifest)",
        "sha256": composed.manifest.sha256,
        "problems": composed.manifest.problems,
        "tokens": composed.tokens,
        "blocks": [
            {
                "source": b.source,
                "id": b.id,
                "status": b.status,
                "tokens": b.tokens,
                "share_percent": round(100 * b.tokens / total, 1),
                "reason": b.reason,
                "command": b.command,
                "content": b.content,
                "messages": b.messages if b.source == "journal" else None,
            }
            for b in composed.blocks
        ],
    }


def composed_text(data: dict[str, Any]) -> str:
    out = [f"Context of {data['manifest']}: {data['tokens']:,} tokens"]
    out += [f"  problem: {p}" for p in data["problems"]]
    for b in data["blocks"]:
        bar = "█" * round(b["share_percent"] / 5)
        share = f"{b['share_percent']:>5.1f}%"
        line = f"  {b['source']:<13} {b['id']:<24} {b['status']:<8} {b['tokens']:>7,} tok {share} {bar}"
        out.append(line)
        if b["command"]:
            out.append(f"      command: {' '.join(b['command'])}")
        if b["reason"]:
            out.append(f"      {b['reason']}")
    return "\n".join(out)


def planning_data(result: SelectiveContext, texts: bool = True) -> dict[str, Any]:
    """Per file: how it is loaded, what came of it, its tokens against the whole file, and the
    text (so that a script can check what an agent is given)."""
    full = result.full_tokens
    return {
        "agent": result.agent,
        "phase": result.phase,
        "delta_context": result.enabled,
        "requirements": list(result.requirements),
        "problems": list(result.problems),
        "files": [
            {
                "file": p.file,
                "mode": p.mode,
                "status": p.status,
                "full_tokens": p.full_tokens,
                "tokens": p.tokens,
                "warning": p.warning,
                **({"text": p.text} if texts else {}),
            }
            for p in result.parts
        ],
        "full_tokens": full,
        "tokens": result.tokens,
        "saved_tokens": result.saved_tokens,
        "savings_percent": round(100 * result.saved_tokens / full, 1) if full else 0.0,
    }


def planning_text(data: dict[str, Any], text: str) -> str:
    state = "on" if data["delta_context"] else "off (the seed's full-context mode; nothing is saved)"
    out = [f"{data['agent']}, phase {data['phase']}: delta context {state}"]
    out += [f"  problem: {p}" for p in data["problems"]]
    if data["requirements"]:
        out.append(f"  plan maps {', '.join(data['requirements'])}")
    for f in data["files"]:
        out.append(f"  {f['file']:<16} {f['status']:<9} {f['mode']:<20} {f['full_tokens']:>6,} → {f['tokens']:>6,} tok")
        if f["warning"]:
            out.append(f"      warning: {f['warning']}")
    saved = f"{data['saved_tokens']:,} saved, {data['savings_percent']}%" if data["delta_context"] else "none saved"
    out.append(f"Total {data['full_tokens']:,} → {data['tokens']:,} tokens ({saved})")
    return "\n".join([*out, "", text.rstrip()])
