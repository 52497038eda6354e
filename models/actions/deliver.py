"""Delivering into a linked Claude Code team's inboxes: the updates still undelivered, one
written again at the Lead's word, and a reminder to ACK.

Each is prepared into a ``Preview`` whose ``deliveries`` say, per message, what will be done
(written, recorded as delivered by an earlier attempt, undecided, refused), with the exact entry
text, and committed by ``commit_delivery``, which does exactly that; an outbox file that changed
since the preview is not delivered. A publish's preview carries its own deliveries, committed
the same way once its files are written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from models.actions.preview import Preview
from models.claude.delivery import Outcome, carry_out, plan_delivery, plan_ping
from models.claude.following import last_sent_to, undelivered
from models.claude.status import TeamView
from models.review.ledger import LedgerUnreadable, read_ledger
from models.text.transaction import WriteRefused


def prepare_delivery(folder: Path, view: TeamView, again: Sequence[str] = (), due: bool = True) -> Preview:
    """Deliver every update still undelivered (Deliver, ``team --deliver``; ``due`` False leaves
    them), and the last update of each role in ``again`` once more (Deliver again, ``team
    --deliver-again``)."""
    title = "Deliver again to " + ", ".join(again) if again else "Deliver the undelivered updates"
    if view.team is None or view.link is None:
        return Preview("deliver", title, folder, blocked=(_unlinked(view),))
    try:
        ledger = read_ledger(folder, strict=True)  # an attempt it cannot see would be written twice
        compactions = {role: row.context.compactions for role, row in view.rows.items() if row.context is not None}
        waiting = [e for e in undelivered(folder, ledger, compactions) if e.get("to") not in again] if due else []
        entries = plan_delivery(folder, view.team, view.link, waiting)
        if again:
            entries += plan_delivery(
                folder, view.team, view.link, last_sent_to(folder, again, ledger), frozenset(again)
            )
    except LedgerUnreadable as exc:
        return Preview("deliver", title, folder, blocked=(str(exc),))
    return Preview("deliver", title, folder, deliveries=entries)


def prepare_ping(folder: Path, view: TeamView, role: str) -> Preview:
    """A reminder to ACK ``role``'s last update, into its member's inbox."""
    title = f"Ping {role}"
    if view.team is None or view.link is None:
        return Preview("ping", title, folder, blocked=(_unlinked(view),))
    return Preview("ping", title, folder, deliveries=(plan_ping(folder, view.team, view.link, role),))


def commit_delivery(preview: Preview) -> list[Outcome]:
    """Do exactly what ``preview``'s deliveries say, recording each outcome in the ledger;
    ``WriteRefused`` (nothing done) when the preview is blocked."""
    refusals = preview.refusals
    if refusals:
        raise WriteRefused(refusals)
    return carry_out(preview.folder, preview.deliveries)


def _unlinked(view: TeamView) -> str:
    if view.link is None:
        return "this session is linked to no Claude Code team: give --team ~/.claude/teams/<team>/"
    return f"{view.link.team_folder}: the team folder cannot be read"
