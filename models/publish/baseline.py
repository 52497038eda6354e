"""Adopting a session that an agent Lead ran by hand: a baseline to compute deltas from.

Real sessions track no confirmed versions in the front matter and keep no ``gc-history/``:
the first update would be a full GC to everyone. A baseline snapshots the GC as it is into
``gc-history/GC-vN.md`` (nothing is sent), and records in ``teammate_gc_versions`` the versions
the plan's tables and lists already show as confirmed, so that the next update is a delta for
every teammate that holds this version.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.delta.decisions import snapshot_path
from models.session.folder import PLAN_FILE, Session
from models.text.atomic import MISSING, FileChangedError, atomic_write, read_for_update
from models.text.surgical import EditError, set_front_entry
from models.text.textfile import read_bounded, stamp_of


class BaselineError(Exception):
    """The baseline could not be taken; nothing was written."""


@dataclass
class Baseline:
    version: int
    snapshot_written: bool
    recorded: dict[str, int] = field(default_factory=dict)  # role → version, newly in the front matter


def baseline_preview(session: Session) -> str:
    """What ``take_baseline`` would write, in words, for the Lead to confirm."""
    gc = session.gc
    if gc is None or gc.version is None:
        return "nothing: " + ("no global-context.md yet" if gc is None else "the GC has no version")
    shown = ", ".join(f"{role}: GC-v{v}" for role, v in sorted(_to_record(session).items())) or "nothing to record"
    return "\n".join(
        [
            f"write gc-history/GC-v{gc.version}.md (the GC as it is; nothing is sent)",
            f"record in {PLAN_FILE} teammate_gc_versions: {shown}",
        ]
    )


def _to_record(session: Session) -> dict[str, int]:
    """Confirmed versions the plan's body shows that its front matter does not hold yet."""
    already = set(session.plan.teammate_gc_versions) if session.plan is not None else set()
    return {m.role: m.confirmed for m in session.teammates() if m.confirmed is not None and m.role not in already}


def take_baseline(session: Session) -> Baseline:
    """Snapshot the GC and record the confirmed versions the plan's body shows."""
    gc = session.gc
    if gc is None:
        raise BaselineError("this session has no global-context.md yet; there is nothing to take a baseline of")
    if gc.version is None:
        raise BaselineError("the GC has no version; give it 'version: GC-vN' in its front matter first")
    snapshot = snapshot_path(session.folder, gc.version)
    current = stamp_of(snapshot)
    data = gc.text.encode("utf-8")
    written = False
    if current is None:
        snapshot.parent.mkdir(exist_ok=True)
        atomic_write(snapshot, data, MISSING)
        written = True
    elif read_bounded(snapshot)[0] != data:
        raise BaselineError(f"{snapshot.relative_to(session.folder)} already exists with other content")
    result = Baseline(gc.version, written)
    shown = _to_record(session)
    if not shown:
        return result
    path = session.folder / PLAN_FILE
    try:
        text, expected = read_for_update(path)
        for role, version in sorted(shown.items()):
            text = set_front_entry(text, "teammate_gc_versions", role, version)
        atomic_write(path, text.encode("utf-8"), expected)
    except (EditError, FileChangedError, OSError) as exc:
        raise BaselineError(f"{PLAN_FILE}: {exc} (the snapshot was written)") from exc
    result.recorded = shown
    return result
