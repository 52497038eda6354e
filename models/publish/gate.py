"""Starting and concluding a gate: ``gate_evaluation`` in the plan's front matter.

While a gate is evaluated, updates are frozen (ADR-002's decision tree answers GATE for every
teammate); concluding it removes the key. One surgical front-matter edit, written atomically
against the plan as it was read.
"""

from __future__ import annotations

from pathlib import Path

from models.text.atomic import FileChangedError, atomic_write, read_for_update
from models.text.surgical import EditError, set_front_key


class GateError(Exception):
    """The plan could not be changed; nothing was written."""


def set_gate_evaluation(plan_path: Path, value: dict[str, object] | None) -> None:
    """Set ``gate_evaluation`` to ``value`` (None removes it)."""
    text, expected = read_for_update(plan_path)
    try:
        atomic_write(plan_path, set_front_key(text, "gate_evaluation", value).encode("utf-8"), expected)
    except (EditError, FileChangedError, OSError) as exc:
        raise GateError(str(exc)) from exc
