"""Publishing what the Lead composed: the decisions of every teammate and every file written."""

from __future__ import annotations

from pathlib import Path

from models.actions.preview import InboxEntry, Preview
from models.claude.delivery import recipient
from models.claude.status import TeamView
from models.publish.composer import Composer
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
        deliveries=deliveries(writes.sent, team),
    )


def deliveries(sent: list[tuple[str, Path]], team: TeamView | None) -> tuple[InboxEntry, ...]:
    """Where each message goes once written, as ``models.claude.delivery`` will deliver it: to
    the member the link names, when the team has that member."""
    if team is None or team.link is None:
        return ()
    out = []
    for role, path in sent:
        if team.team is None:
            out.append(InboxEntry(role, None, None, path, f"{team.link.team_folder} cannot be read"))
            continue
        member, why = recipient(team.team, team.link, role)
        inbox = team.team.inboxes / f"{member}.json" if why is None else None
        out.append(InboxEntry(role, member if why is None else None, inbox, path, why))
    return tuple(out)
