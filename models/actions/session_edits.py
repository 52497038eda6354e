"""The Lead's small edits of a session: a baseline, a gate started or concluded, a teammate's
lifecycle state. Each is prepared into a ``Preview`` (raising the edit's own error when the
request cannot be met) and committed with ``models.actions.preview.commit``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from models.actions.preview import Preview
from models.delta.decisions import snapshot_path
from models.publish.baseline import BaselineError, to_record
from models.publish.gate import VERDICTS, GateError, gate_record_path, record_text, same_record
from models.publish.teammate_state import STATUS_WORD, StateError
from models.session.folder import PLAN_FILE
from models.session.lifecycle import State
from models.session.roles import role_key
from models.session.snapshot import SessionView
from models.session.versions import label
from models.text.surgical import EditError, set_front_entry, set_front_key
from models.text.textfile import read_bounded, stamp_of
from models.text.transaction import FileWrite, create_write, edit_write


def _plan_write(session: SessionView, edit: Callable[[str], str], summary: str, error: type[Exception]) -> FileWrite:
    """The plan's write of ``edit`` (a function of its text), or ``error`` saying why not."""
    try:
        return edit_write(session.folder / PLAN_FILE, edit, summary)
    except (EditError, OSError) as exc:
        raise error(f"{PLAN_FILE}: {exc}") from exc


def prepare_baseline(session: SessionView) -> Preview:
    """Snapshot the GC as it is and record the confirmed versions the plan's body shows, so
    that the next update can be a delta (nothing is sent)."""
    gc = session.gc
    if gc is None:
        raise BaselineError("this session has no global-context.md yet; there is nothing to take a baseline of")
    if gc.version is None:
        raise BaselineError("the GC has no version; give it 'version: GC-vN' in its front matter first")
    writes: list[FileWrite] = []
    skipped: list[str] = []
    snapshot = snapshot_path(session.folder, gc.version)
    data = gc.text.encode("utf-8")
    if stamp_of(snapshot) is None:
        writes.append(create_write(snapshot, data, f"the GC as it is, {label(gc.version)}"))
    elif read_bounded(snapshot)[0] != data:
        raise BaselineError(f"{snapshot.relative_to(session.folder)} already exists with other content")
    else:
        skipped.append(f"{snapshot.relative_to(session.folder)} holds this GC already")
    shown = to_record(session)
    if shown:

        def record(text: str) -> str:
            for role, version in sorted(shown.items()):
                text = set_front_entry(text, "teammate_gc_versions", role, version)
            return text

        said = ", ".join(f"{role} {label(v)}" for role, v in sorted(shown.items()))
        writes.append(_plan_write(session, record, f"teammate_gc_versions: {said}", BaselineError))
    else:
        skipped.append("no confirmed version to record in the plan's front matter")
    return Preview("baseline", f"Baseline {label(gc.version)}", session.folder, tuple(writes), skipped=tuple(skipped))


def proposed_gate_phase(session: SessionView) -> int:
    """The phase a gate is most likely for: the plan's current phase; without one, the phase
    after the last verdict (not phase 1)."""
    if session.current_phase is not None:
        return session.current_phase
    return max((g.phase for g in session.all_gates if g.phase is not None), default=0) + 1


def gate_question(session: SessionView, phase: int) -> str:
    """What the Lead is asked before a gate of ``phase`` starts: the freeze, and the verdicts
    the phase has already (another gate of it is then a second record)."""
    earlier = "; ".join(f"{g.verdict or '?'} ({g.path})" for g in session.all_gates if g.phase == phase)
    said = f"Phase {phase} already has a verdict: {earlier}.\n" if earlier else ""
    return f"{said}Start the gate of phase {phase}? Updates freeze until it concludes."


def prepare_gate_start(session: SessionView, phase: int | None, now: str) -> Preview:
    """Freeze updates while ``phase`` (default: the plan's current phase) is evaluated."""
    chosen = phase if phase is not None else session.current_phase
    if chosen is None:
        raise GateError("the plan names no current_phase; say which phase is evaluated")
    value = {"phase": chosen, "started": now}
    write = _plan_write(
        session,
        lambda text: set_front_key(text, "gate_evaluation", value),
        f"gate_evaluation: phase {chosen}; updates are frozen until the gate concludes",
        GateError,
    )
    return Preview("gate-start", f"Start the gate of phase {chosen}", session.folder, (write,))


def _started(evaluation: dict[str, object] | None) -> str | None:
    raw = evaluation.get("started") if evaluation else None
    # YAML reads 2026-11-23T00:49:53Z back as a datetime: written again in the same form.
    started = raw.strftime("%Y-%m-%dT%H:%M:%SZ") if isinstance(raw, datetime) else raw
    return str(started) if started else None


def prepare_gate_conclude(
    session: SessionView, verdict: str, now: str, phase: int | None = None, notes: str | None = None
) -> Preview:
    """Write the gate's record (never over an existing one) and lift the freeze, together."""
    if verdict not in VERDICTS:
        raise GateError(f"unknown verdict {verdict!r}; use one of: {', '.join(VERDICTS)}")
    evaluation = session.plan.gate_evaluation if session.plan is not None else None
    chosen = phase
    if chosen is None and evaluation is not None:
        raw = evaluation.get("phase")
        chosen = raw if isinstance(raw, int) else None
    chosen = chosen if chosen is not None else session.current_phase
    if chosen is None:
        raise GateError("no gate is being evaluated and the plan names no current_phase; say which phase")
    path = gate_record_path(session, chosen)
    text = record_text(chosen, verdict, now[:10], session.gc_version, _started(evaluation), notes)
    writes = [create_write(path, text.encode("utf-8"), f"phase {chosen}: {verdict}")]
    if evaluation is not None:
        lift = _plan_write(
            session, lambda t: set_front_key(t, "gate_evaluation", None), "gate_evaluation removed", GateError
        )
        writes.append(lift)
    title = f"Conclude the gate of phase {chosen}: {verdict}"
    repeat = same_record(session, chosen, text)
    if repeat is not None:
        where = repeat.relative_to(session.folder).as_posix()
        blocked = (f"{where} records this conclusion already; start the gate again to record another",)
        return Preview("gate-conclude", title, session.folder, tuple(writes), blocked=blocked)
    return Preview("gate-conclude", title, session.folder, tuple(writes))


def prepare_state(session: SessionView, role: str, state: State) -> Preview:
    """Record ``state`` for ``role`` (matched without case) in the plan's front matter."""
    mates = {role_key(m.role): m.role for m in session.teammates()}
    written = mates.get(role_key(role))
    if written is None:
        raise StateError(f"no teammate {role} in this session (teammates: {', '.join(sorted(mates.values()))})")
    write = _plan_write(
        session,
        lambda text: set_front_entry(text, "teammate_status", written, STATUS_WORD[state]),
        f"teammate_status: {written} {STATUS_WORD[state]}",
        StateError,
    )
    return Preview("state", f"{written}: {state}", session.folder, (write,))
