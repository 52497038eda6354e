"""Publishing what the Lead composed: the decisions of every teammate and every file written."""

from __future__ import annotations

from pathlib import Path

from models.actions.preview import Preview
from models.claude.delivery import InboxEntry, entry_for, summary_for
from models.claude.fit import Fit, fit_of
from models.claude.status import TeamView
from models.delta.decisions import Decision
from models.publish.composer import Composer
from models.publish.publishing import PublishPlan
from models.session.folder import GC_FILE
from models.session.versions import label


def prepare_publish(
    composer: Composer, *, add_meta: bool = False, now: str | None = None, team: TeamView | None = None
) -> Preview:
    """The preview of publishing ``composer``'s update: its ``pending`` must hold what the
    teammates' replies ask (``models.actions.replies``), as the window and the CLI both set it.
    With a linked Claude Code ``team``, it says into which member's inbox each message goes."""
    plan = composer.plan()
    writes = composer.publish_plan(now=now, add_meta=add_meta, plan=plan)
    recipients = len(plan.recipients)
    return Preview(
        "publish",
        f"Publish {label(writes.version)} to {recipients} teammate{'s' if recipients != 1 else ''}",
        composer.session.folder,
        tuple(writes.writes),
        tuple(plan.decisions),
        tuple(writes.blocked),
        tuple(writes.skipped),
        last=GC_FILE,
        messages=tuple(writes.sent),
        version=writes.version,
        deliveries=deliveries(writes, {d.role: d.mode for d in plan.decisions}, composer.session.folder, team),
        fits=fits(plan.recipients, team),
    )


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
