"""Adopting a session that an agent Lead ran by hand: a baseline to compute deltas from.

Real sessions track no confirmed versions in the front matter and keep no ``gc-history/``:
the first update would be a full GC to everyone. A baseline snapshots the GC as it is into
``gc-history/GC-vN.md`` (nothing is sent), and records in ``teammate_gc_versions`` the versions
the plan's tables and lists already show as confirmed, so that the next update is a delta for
every teammate that holds this version. ``models.actions.session_edits`` writes it.
"""

from __future__ import annotations

from models.session.snapshot import SessionView


class BaselineError(Exception):
    """The baseline could not be taken; nothing was written."""


def to_record(session: SessionView) -> dict[str, int]:
    """Confirmed versions the plan's body shows that its front matter does not hold yet."""
    already = set(session.plan.teammate_gc_versions) if session.plan is not None else set()
    return {m.role: m.confirmed for m in session.teammates() if m.confirmed is not None and m.role not in already}
