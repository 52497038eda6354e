"""Starting and concluding a gate: ``gate_evaluation`` in the plan's front matter.

While a gate is evaluated, updates are frozen (ADR-002's decision tree answers GATE for every
teammate); concluding it removes the key. One surgical front-matter edit, written atomically
against the plan as it was read (``models.actions.session_edits``).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from models.session.phases import GATE_FILE
from models.session.snapshot import SessionView
from models.text.textfile import read_bounded


class GateError(Exception):
    """The plan could not be changed; nothing was written."""


VERDICTS = ("APPROVED", "CONDITIONAL_PASS", "ITERATE", "REJECTED")


def gate_record_path(session: SessionView, phase: int) -> Path:
    """``phase-N/gate-record.yaml``; a second record of a phase gets its own name, never the first's."""
    folder = session.folder / f"phase-{phase}"
    path = folder / GATE_FILE
    n = 2
    while path.exists() or path.is_symlink():
        path = folder / f"gate-record-{n}.yaml"
        n += 1
    return path


def same_record(session: SessionView, phase: int, text: str) -> Path | None:
    """An existing record of ``phase`` that says what ``text`` says (its day aside): the same
    verdict on the same GC, with the same notes and evaluation. Written again it would be a
    second record of one conclusion (a retry after a run cut short, or a second click)."""

    def essence(record: str) -> list[str]:
        return [line for line in record.splitlines() if not line.startswith("date:")]

    wanted = essence(text)
    for path in sorted((session.folder / f"phase-{phase}").glob("gate-record*.yaml")):
        try:
            if essence(read_bounded(path)[0].decode("utf-8")) == wanted:
                return path
        except (OSError, UnicodeDecodeError):
            continue  # not one of ours, as written: the new record is no repeat of it
    return None


def record_text(
    phase: int, verdict: str, date: str, gc_version: int | None, started: str | None, notes: str | None = None
) -> str:
    data: dict[str, object] = {"phase": phase, "result": verdict, "date": date}
    if gc_version is not None:
        data["gc_version"] = f"GC-v{gc_version}"
    if started:
        data["evaluation_started"] = started
    if notes:
        data["notes"] = notes  # the Lead's conditions (CONDITIONAL_PASS) or what the gate found
    data["recorded_by"] = "Lead Console"
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
