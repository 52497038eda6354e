"""Publishing what the Lead composed: the decisions of every teammate and every file written."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from models.actions.preview import Preview
from models.claude.delivery import InboxEntry, entry_for, summary_for
from models.claude.fit import Fit, fit_of
from models.claude.status import TeamView
from models.delta.decisions import Decision
from models.publish.composer import Composer
from models.publish.publishing import PublishPlan
from models.publish.subscribing import propose
from models.session.folder import GC_FILE
from models.session.versions import label

FitChoice = Literal["anyway", "sections", "hold"]
FIT_CHOICES: tuple[FitChoice, ...] = ("anyway", "sections", "hold")


def prepare_publish(
    composer: Composer,
    *,
    add_meta: bool = False,
    now: str | None = None,
    team: TeamView | None = None,
    fit_choices: Mapping[str, FitChoice] | None = None,
) -> Preview:
    """The preview of publishing ``composer``'s update: its ``pending`` must hold what the
    teammates' replies ask (``models.actions.replies``), as the window and the CLI both set it.
    With a linked Claude Code ``team``, it says into which member's inbox each message goes.

    ``fit_choices`` is the Lead's answer for a teammate the message would tip into a compaction
    (``fits``): send it ``anyway``, send only its ``sections`` (those it follows, or else those
    the session's proposal gives it), or ``hold`` it: written and recorded, but delivered only
    after its next compaction (Deliver sends it then)."""
    choices = dict(fit_choices or {})
    narrowed, notes = _narrowed(composer, [role for role, c in choices.items() if c == "sections"])
    plan = composer.plan(narrowed or None)
    recipients = {d.role for d in plan.recipients}
    held = frozenset(role for role, c in choices.items() if c == "hold" and role in recipients)
    writes = composer.publish_plan(now=now, add_meta=add_meta, plan=plan, held=held)
    notes += [f"{role}: held until its next compaction; Deliver (Ctrl+Shift+D) sends it then" for role in sorted(held)]
    count = len(recipients)
    entries = deliveries(writes, {d.role: d.mode for d in plan.decisions}, composer.session.folder, team)
    return Preview(
        "publish",
        f"Publish {label(writes.version)} to {count} teammate{'s' if count != 1 else ''}",
        composer.session.folder,
        tuple(writes.writes),
        tuple(plan.decisions),
        tuple(writes.blocked),
        (*writes.skipped, *notes),
        last=GC_FILE,
        messages=tuple(writes.sent),
        version=writes.version,
        deliveries=tuple(e for e in entries if e.role not in held),
        fits=fits(plan.recipients, team),
    )


def _narrowed(composer: Composer, roles: list[str]) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """The sections each of ``roles`` is sent instead of the whole update: those it follows, or
    else those the session's proposal gives it; a note for a role both give every section."""
    session, gc = composer.session, composer.session.gc
    if not roles or gc is None:
        return {}, []
    proposal = propose(gc, list(session.roles()))
    out: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []
    for role in roles:
        follows = session.subscriptions.follows(role) if session.subscriptions is not None else None
        if follows is None:
            follows = tuple(c.section for c in proposal.get(role, ()))
        if len(follows) >= len(gc.sections):
            notes.append(f"{role}: its sections are every section of the GC; it is sent the whole update")
            continue
        out[role] = follows
    return out, notes


def fits(recipients: list[Decision], team: TeamView | None) -> tuple[Fit, ...]:
    """Each recipient's context (its transcript's last usage) with its message, against Claude
    Code's auto-compact threshold; only those whose size the team's transcripts show."""
    if team is None:
        return ()
    out = []
    for d in recipients:
        row = team.rows.get(d.role)
        fit = fit_of(d.role, row.context if row is not None else None, d.tokens)
        if fit is not None:
            out.append(fit)
    return tuple(out)


def deliveries(
    writes: PublishPlan, modes: dict[str, str], folder: Path, team: TeamView | None
) -> tuple[InboxEntry, ...]:
    """What each message becomes in its member's inbox once written, exactly as
    ``models.claude.delivery`` will write it: the message's bytes with the reply line, under
    the link's sender, or why it is not delivered."""
    if team is None or team.link is None:
        return ()
    data, version = {w.path: w.data for w in writes.writes}, writes.version
    out = []
    for role, path in writes.sent:
        rel = path.relative_to(folder).as_posix() if path.is_relative_to(folder) else str(path)
        summary = summary_for({"gc_version": version, "mode": modes.get(role)})
        if team.team is None:
            why = f"{team.link.team_folder} cannot be read"
            entry = InboxEntry(role, None, None, rel, team.link.team_folder.name, version, "refuse", why, "", summary)
            out.append(entry)
            continue
        raw = data.get(path)
        message = raw.decode("utf-8") if raw is not None else None
        out.append(entry_for(team.team, team.link, role, rel, version, summary, message))
    return tuple(out)
