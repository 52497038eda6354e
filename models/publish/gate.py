"""Starting and concluding a gate: ``gate_evaluation`` in the plan's front matter.

While a gate is evaluated, updates are frozen (ADR-002's decision tree answers GATE for every
teammate); concluding it removes the key. One surgical front-matter edit, written atomically
against the plan as it was read.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import yaml

from models.session.folder import PLAN_FILE, Session
from models.session.phases import GATE_FILE
from models.text.atomic import MISSING, FileChangedError, atomic_write, read_for_update
from models.text.surgical import EditError, set_front_key


class GateError(Exception):
    """The plan could not be changed; nothing was written."""


def set_gate_evaluation(plan_path: Path, value: dict[str, object] | None) -> None:
    """Set ``gate_evaluation`` to ``value`` (None removes it)."""
    try:
        text, expected = read_for_update(plan_path)
        atomic_write(plan_path, set_front_key(text, "gate_evaluation", value).encode("utf-8"), expected)
    except (EditError, FileChangedError, OSError) as exc:
        raise GateError(str(exc)) from exc


VERDICTS = ("APPROVED", "CONDITIONAL_PASS", "ITERATE", "REJECTED")


def start_gate(session: Session, phase: int | None, now: str) -> int:
    """Freeze updates while ``phase`` (default: the plan's current phase) is evaluated."""
    chosen = phase if phase is not None else session.current_phase
    if chosen is None:
        raise GateError("the plan names no current_phase; say which phase with --phase")
    set_gate_evaluation(session.folder / PLAN_FILE, {"phase": chosen, "started": now})
    return chosen


def gate_record_path(session: Session, phase: int) -> Path:
    """``phase-N/gate-record.yaml``; a second record of a phase gets its own name, never the first's."""
    folder = session.folder / f"phase-{phase}"
    path = folder / GATE_FILE
    n = 2
    while path.exists() or path.is_symlink():
        path = folder / f"gate-record-{n}.yaml"
        n += 1
    return path


def record_text(phase: int, verdict: str, date: str, gc_version: int | None, started: str | None) -> str:
    data: dict[str, object] = {"phase": phase, "result": verdict, "date": date}
    if gc_version is not None:
        data["gc_version"] = f"GC-v{gc_version}"
    if started:
        data["evaluation_started"] = started
    data["recorded_by"] = "Lead Console"
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def conclude_gate(session: Session, verdict: str, now: str, phase: int | None = None) -> Path:
    """Write the gate's record (never over an existing one), then lift the freeze."""
    if verdict not in VERDICTS:
        raise GateError(f"unknown verdict {verdict!r}; use one of: {', '.join(VERDICTS)}")
    evaluation = session.plan.gate_evaluation if session.plan is not None else None
    raw_start = evaluation.get("started") if evaluation else None
    # YAML reads 2026-11-23T00:49:53Z back as a datetime: written again in the same form.
    started = raw_start.strftime("%Y-%m-%dT%H:%M:%SZ") if isinstance(raw_start, datetime) else raw_start
    started = str(started) if started else None
    chosen = phase
    if chosen is None and evaluation is not None:
        raw = evaluation.get("phase")
        chosen = raw if isinstance(raw, int) else None
    chosen = chosen if chosen is not None else session.current_phase
    if chosen is None:
        raise GateError("no gate is being evaluated and the plan names no current_phase; say which with --phase")
    path = gate_record_path(session, chosen)
    text = record_text(chosen, verdict, now[:10], session.gc_version, started)
    try:
        path.parent.mkdir(exist_ok=True)
        atomic_write(path, text.encode("utf-8"), MISSING)
    except (FileChangedError, OSError) as exc:
        raise GateError(f"{path.name}: {exc}") from exc
    if evaluation is not None:
        try:
            set_gate_evaluation(session.folder / PLAN_FILE, None)
        except GateError as exc:
            # All or nothing: without the freeze lifted, the record would say a gate concluded
            # that the plan still evaluates. Take the record back (it is ours, just written).
            path.unlink(missing_ok=True)
            raise GateError(f"{PLAN_FILE}: {exc}; the gate was not concluded ({path.name} taken back)") from exc
    return path
