"""Item models: Qt's own model checks, and diff-based updates that keep persistent indexes."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from conftest import COW, DEMO
from models.session.folder import open_session
from models.session.gc_parse import parse_gc
from models.session.memory_parse import parse_memory
from models.session.team_memory import MemoryQuery
from models.text.tokens import get_tokenizer
from ui.gc_tree_model import GcTreeModel
from ui.item_models import GateModel, MemoryModel
from ui.node_model import PAYLOAD_ROLE, NodeTreeModel, Spec
from ui.teammate_model import TeammateModel

TOK = get_tokenizer("o200k_base")


class _Names(NodeTreeModel):
    headers = ("Name",)

    def display(self, payload: object, column: int, role: int) -> object:
        return payload if role == 0 else None

    def signature(self, payload: object) -> object:
        return payload


def _names(model: NodeTreeModel, parent: object = None) -> list[str]:
    from PySide6.QtCore import QModelIndex

    index = parent if parent is not None else QModelIndex()
    return [model.index(r, 0, index).data() for r in range(model.rowCount(index))]  # type: ignore[arg-type]


def _filled(kind: str, session_path: Path) -> NodeTreeModel:
    session = open_session(session_path, TOK)
    if kind == "gc":
        gc_model = GcTreeModel()
        gc_model.set_gc(session.gc)
        return gc_model
    if kind == "teammates":
        mates = TeammateModel()
        mates.set_teammates(session.teammates(), session.gc_version)
        return mates
    if kind == "memory":
        memory = MemoryModel()
        memory.set_memory(session.memory)
        return memory
    gates = GateModel()
    gates.set_gates(session.gates)
    return gates


@pytest.mark.parametrize("kind", ["gc", "teammates", "memory", "gates"])
@pytest.mark.parametrize("session_path", [DEMO, COW], ids=lambda p: p.name)
def test_every_model_passes_qt_model_tester(qtmodeltester: ModelTester, session_path: Path, kind: str) -> None:
    model = _filled(kind, session_path)
    assert model.rowCount() > 0
    qtmodeltester.check(model, force_py=True)


@pytest.mark.parametrize("kind", ["gc", "teammates", "memory", "gates"])
def test_every_row_can_be_selected_and_none_edited(kind: str) -> None:
    """The views show the session, they do not edit it in place: every row, at every depth and
    in every column, is enabled and selectable and nothing more (Qt's own default, asked of
    the model in C++ rather than of a Python override on every row a view lays out)."""
    model = _filled(kind, COW)
    wanted = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
    seen, todo = 0, [QModelIndex()]
    while todo:
        parent = todo.pop()
        for row in range(model.rowCount(parent)):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                assert model.flags(index) == wanted, (kind, row, column)
                seen += 1
            todo.append(model.index(row, 0, parent))
    assert seen > 0
    assert model.flags(QModelIndex()) == Qt.ItemFlag.NoItemFlags


def test_memory_filtering_keeps_the_model_consistent(qtmodeltester: ModelTester) -> None:
    """The tester stays connected and checks every remove/insert the filter causes."""
    memory = _filled("memory", DEMO)
    qtmodeltester.check(memory, force_py=True)
    for query in (
        MemoryQuery(tag="Finding"),
        MemoryQuery(search="stripe", show_archived=False),
        MemoryQuery(),
    ):
        memory.set_query(query)  # the connected tester checks each remove/insert as it happens
    assert memory.rowCount() == 8


def test_sync_inserts_and_removes_rows_and_keeps_persistent_indexes(qtbot: QtBot, qtmodeltester: ModelTester) -> None:
    model = _Names()
    model.sync([Spec(k, k, [Spec(k + ".1", k + ".1")]) for k in "abcd"])
    keep = QPersistentModelIndex(model.index(3, 0))
    child = QPersistentModelIndex(model.index(0, 0, model.index(3, 0)))
    with qtbot.waitSignals([model.rowsRemoved, model.rowsInserted]):
        model.sync([Spec(k, k, [Spec(k + ".1", k + ".1")]) for k in "axdy"])
    assert _names(model) == ["a", "x", "d", "y"]
    assert keep.isValid() and keep.row() == 2 and keep.data() == "d"
    assert child.isValid() and child.data() == "d.1"
    qtmodeltester.check(model, force_py=True)


def test_sync_of_equal_keys_only_emits_data_changed(qtbot: QtBot) -> None:
    model = _Names()
    model.sync([Spec(k, k) for k in "abc"])
    inserted: list[object] = []
    model.rowsInserted.connect(lambda *a: inserted.append(a))
    model.rowsRemoved.connect(lambda *a: inserted.append(a))
    model.modelReset.connect(lambda: inserted.append("reset"))
    with qtbot.waitSignal(model.dataChanged) as changed:
        model.sync([Spec(k, k.upper() if k == "b" else k) for k in "abc"])
    assert inserted == [] and _names(model) == ["a", "B", "c"]
    assert (changed.args[0].row(), changed.args[1].row()) == (1, 1)  # only the row that changed
    with qtbot.assertNotEmitted(model.dataChanged):
        model.sync([Spec(k, k.upper() if k == "b" else k) for k in "abc"])


def test_gc_edit_updates_the_tree_in_place(qtmodeltester: ModelTester) -> None:
    text = (DEMO / "global-context.md").read_text(encoding="utf-8")
    model = GcTreeModel()
    model.set_gc(parse_gc(text, TOK))
    risks = model.find(lambda s: s is not None and s.title == "Risks")
    held = QPersistentModelIndex(risks)
    old_start = risks.data(PAYLOAD_ROLE).start
    edited = text.replace("## Risks\n", "## Budget\n- cap: 2 engineers\n\n## Risks\n")
    model.set_gc(parse_gc(edited, TOK))
    assert held.isValid() and held.data() == "Risks"
    assert model.index(held.row() - 1, 0).data() == "Budget"
    assert held.data(PAYLOAD_ROLE).start > old_start  # the payload moved with the edit
    qtmodeltester.check(model, force_py=True)


def test_memory_filter_by_tag_search_and_archived(qtbot: QtBot) -> None:
    memory = MemoryModel()
    memory.set_memory(parse_memory((DEMO / "TEAM-MEMORY.md").read_text(encoding="utf-8")))

    def visible() -> list[str]:
        out = []
        for r in range(memory.rowCount()):
            section = memory.index(r, 0)
            out += [memory.index(c, 0, section).data() for c in range(memory.rowCount(section))]
        return out

    everything = len(visible())
    with qtbot.waitSignal(memory.rowsRemoved):
        memory.set_query(MemoryQuery(tag="Conflict"))
    assert len(visible()) == 2 and all("LedgerAccount" in v or "`Account`" in v for v in visible())
    assert memory.rowCount() == 2  # sections without a match are left out
    memory.set_query(MemoryQuery(search="stripe"))
    assert len(visible()) == 3
    memory.set_query(MemoryQuery(search="STRIPE", show_archived=False))
    assert visible() == ["`stripe` SDK 11.x changed `construct_event` to require the raw bytes, not str"]
    memory.set_query(MemoryQuery())
    assert len(visible()) == everything and memory.rowCount() == 8


def test_memory_query_is_pure() -> None:
    memory = parse_memory((DEMO / "TEAM-MEMORY.md").read_text(encoding="utf-8"))
    entries = [e for s in memory.sections for e in s.entries]
    assert not MemoryQuery().active and MemoryQuery(show_archived=False).active
    assert sum(MemoryQuery(tag="Question").matches(e) for e in entries) == 2
    assert sum(MemoryQuery(show_archived=False).matches(e) for e in entries) == len(entries) - 2


def test_teammate_model_marks_teammates_behind_the_gc() -> None:
    session = open_session(DEMO, TOK)
    model = TeammateModel()
    model.set_teammates(session.teammates(), session.gc_version)
    rows = {model.index(r, 0).data(): r for r in range(model.rowCount())}
    from PySide6.QtCore import Qt

    behind = model.index(rows["implementer-3"], 1)
    current = model.index(rows["implementer-1"], 1)
    assert behind.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert current.data(Qt.ItemDataRole.BackgroundRole) is None
    assert "GC is at GC-v6" in behind.data(Qt.ItemDataRole.ToolTipRole)
    lost = model.index(rows["implementer-4"], 4)
    assert lost.data() == "✖ CONTEXT_LOST" and lost.data(Qt.ItemDataRole.BackgroundRole) is not None
