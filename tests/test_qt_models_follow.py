"""Item models after follow-ups: rows read from the last version of a GC or TEAM-MEMORY show
what a model filled afresh shows, and a large file makes its rows when they are first shown."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

import models.session.gc_parse as gc_module
from conftest import DEMO, REAL_SESSIONS
from gc_edits import random_edit
from models.session.gc_parse import parse_gc
from models.session.memory_entries import TAGS
from models.session.memory_follow import follow_bytes
from models.session.memory_parse import parse_memory
from models.session.team_memory import MemoryQuery
from models.text.tokens import get_tokenizer
from ui.gc_tree_model import GcTreeModel
from ui.item_models import TOOLTIP, MemoryModel
from ui.node_model import PAYLOAD_ROLE, SORT_ROLE, NodeTreeModel

TOK = get_tokenizer("o200k_base")


def _rows(model: NodeTreeModel) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Every row as shown: section text and tooltip (its lines), and its entries' (text, tag)."""
    out = []
    for r in range(model.rowCount()):
        section = model.index(r, 0)
        entries = [
            (model.index(c, 0, section).data(), model.index(c, 1, section).data())
            for c in range(model.rowCount(section))
        ]
        out.append((section.data(), section.data(TOOLTIP), entries))
    return out


@pytest.mark.parametrize("from_last", [True, False], ids=["read-from-last", "read-whole"])
@pytest.mark.parametrize("query", [MemoryQuery(), MemoryQuery(tag="Finding")], ids=["all", "findings"])
def test_memory_follow_ups_show_what_a_fresh_model_shows(
    qtbot: QtBot, qtmodeltester: ModelTester, query: MemoryQuery, from_last: bool
) -> None:
    """A follow-up hands untouched sections' rows over as they were, and the sync skips them;
    after each of a chain of edits, the rows (and their lines, which the edit moved) are
    exactly those of a model built afresh from a cold parse, and only the edited section's
    rows are signalled. Read from the last parse, a follow-up says which section it changed,
    and the rows are not compared one by one (``_follow``); read whole, they are."""
    text = (DEMO / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    live = MemoryModel()
    live.set_query(query)
    memory = parse_memory(text)
    live.set_memory(memory)
    qtmodeltester.check(live, force_py=True)
    full_syncs: list[int] = []
    real_sync = live.sync
    live.sync = lambda specs: (full_syncs.append(1), real_sync(specs))[1]  # type: ignore[method-assign]
    compared: list[int] = []
    real_follow = live._follow
    live._follow = lambda memory: (compared.append(1), real_follow(memory))[1]  # type: ignore[method-assign]
    lines = text.splitlines(keepends=True)
    heading = next(line for line in lines if line.startswith("## implementer"))
    edits = [
        text.replace(heading, heading + "- [Finding] appended by an agent\n", 1),
        text.replace(heading, heading + "- [Finding] appended by an agent\n- [Decision] and another\n", 1),
        text.replace(heading, heading + "- [Finding] appended, then edited\n- [Decision] and another\n", 1),
        text,
    ]
    for edited in edits:
        touched: list[int] = []

        def note(parent: QModelIndex, first: int, last: int, touched: list[int] = touched) -> None:
            touched.append(parent.row())

        live.rowsInserted.connect(note)
        live.rowsRemoved.connect(note)
        memory = parse_memory(edited, previous=memory if from_last else None)
        assert (memory.follow_up is not None) == from_last
        live.set_memory(memory)
        live.rowsInserted.disconnect(note)
        live.rowsRemoved.disconnect(note)
        fresh = MemoryModel()
        fresh.set_query(query)
        fresh.set_memory(parse_memory(edited))
        assert _rows(live) == _rows(fresh)
        shown = [live.index(r, 0).data() for r in range(live.rowCount())]
        assert {shown[r] for r in touched} <= {s for s in shown if s.startswith(heading[3:].strip())}
    # Without a query each follow-up updates the rows in place; a query's rows are synced whole.
    assert len(full_syncs) == (0 if not query.active else len(edits))
    assert len(compared) == (len(edits) if query.active or not from_last else 0)


def _tree(model: NodeTreeModel, parent: QModelIndex | None = None) -> list[object]:
    """Every row, depth first, as shown in its three columns."""
    parent = parent or QModelIndex()
    out: list[object] = []
    for r in range(model.rowCount(parent)):
        index = model.index(r, 0, parent)
        out.append(([model.index(r, c, parent).data() for c in range(3)], _tree(model, index)))
    return out


def test_gc_follow_ups_show_what_a_fresh_model_shows(qtbot: QtBot, qtmodeltester: ModelTester) -> None:
    """The sections above an edit are handed over as they were and skipped; after each edit
    read from the last parse, the tree equals one built afresh from a cold parse, and the
    rows above the edited section get no signal."""
    text = (DEMO / "global-context.md").read_text(encoding="utf-8")
    live = GcTreeModel()
    gc = parse_gc(text, TOK)
    live.set_gc(gc)
    qtmodeltester.check(live, force_py=True)
    last = gc.sections[-1]
    line = text[last.start : last.own_end].splitlines(keepends=True)[0]
    edits = [
        text.replace(line, line + "- budget: 2 engineers\n", 1),
        text.replace(line, line + "- budget: 3 engineers, for a longer while\n", 1),
        text.replace(line, line + "- budget: 3 engineers, for a longer while\n", 1).replace(
            "\n## ", "\n## New\n\n## ", 1
        ),
        text.replace(line, line + "- budget: 4\n", 1).replace("\n## ", "\n## New\n\n## ", 1),
        text,
    ]
    for edited in edits:
        signalled: list[int] = []

        def note(first: QModelIndex, *rest: object, signalled: list[int] = signalled) -> None:
            top = first
            while top.parent().isValid():
                top = top.parent()
            signalled.append(top.row())

        live.dataChanged.connect(note)
        live.rowsInserted.connect(note)
        gc = parse_gc(edited, TOK, previous=gc)
        assert (gc.follow_up is not None) == (edited not in (text, edits[2]))  # which path was taken
        live.set_gc(gc)
        live.dataChanged.disconnect(note)
        live.rowsInserted.disconnect(note)
        fresh = GcTreeModel()
        fresh.set_gc(parse_gc(edited, TOK))
        assert _tree(live) == _tree(fresh)
        if edited != edits[2]:  # a new heading near the top moves rows: only a follow-up is narrow
            assert signalled and set(signalled) <= {len(gc.sections) - 1, -1}


def _gc_rows(model: GcTreeModel, parent: QModelIndex | None = None) -> list[object]:
    """Every row, depth first: what it shows in each column (text, sort key, tooltip) and the
    place in the file of the section it hands to the preview and the editor."""
    parent = parent or QModelIndex()
    out: list[object] = []
    for r in range(model.rowCount(parent)):
        index = model.index(r, 0, parent)
        shown = [model.index(r, c, parent).data(role) for c in range(3) for role in (0, SORT_ROLE, TOOLTIP)]
        s = index.data(PAYLOAD_ROLE)
        out.append((shown, (s.ref, s.line, s.end_line, s.start, s.own_end, s.end, s.tokens), _gc_rows(model, index)))
    return out


@pytest.mark.parametrize(
    "path",
    sorted([*REAL_SESSIONS.glob("*/global-context.md"), DEMO / "global-context.md"]),
    ids=lambda p: p.parent.name,
)
def test_gc_rows_along_a_chain_of_edits_show_what_a_fresh_model_shows(path: Path, qtmodeltester: ModelTester) -> None:
    """Rows keep their section's place in the file order, and a follow-up hands the model the
    new version's sections without touching the rows: along thirty random edits of each real
    GC (most of them an item added), each read from the one before, every row shows, and hands on, what a model built
    afresh from a cold parse of that version does."""
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.parent.name)
    live = GcTreeModel()
    gc = parse_gc(text, TOK)
    live.set_gc(gc)
    followed = 0
    for step in range(30):
        lines = text.splitlines(keepends=True)
        bullets = [n for n, line in enumerate(lines) if line.startswith("- ") and line.endswith("\n")]
        if step % 3 and bullets:  # an item added under another, as an agent adds one
            at = rng.choice(bullets) + 1
            text = "".join([*lines[:at], f"- note-{step}: added in step {step}\n", *lines[at:]])
        else:
            text = random_edit(text, rng)
        gc = parse_gc(text, TOK, previous=gc)
        followed += gc.follow_up is not None
        live.set_gc(gc)
        gc_module._PARSED.clear()
        fresh = GcTreeModel()
        fresh.set_gc(parse_gc(text, TOK))
        assert _gc_rows(live) == _gc_rows(fresh), text[:80]
    assert followed >= 10  # most edits stay inside one section: the path under test
    qtmodeltester.check(live, force_py=True)


@pytest.mark.parametrize(
    "path",
    sorted([*REAL_SESSIONS.glob("*/TEAM-MEMORY.md"), DEMO / "TEAM-MEMORY.md"]),
    ids=lambda p: p.parent.name,
)
def test_memory_rows_along_a_chain_of_edits_show_what_a_fresh_model_shows(
    path: Path, qtmodeltester: ModelTester
) -> None:
    """As the window reads an agent's writes: from the bytes that changed when they can say,
    else from the last parse. Along thirty writes of each real TEAM-MEMORY (most of them an
    entry appended under another, some an entry with a tag outside ADR-001's list taken out,
    the rest random edits that may rename a heading, open a fence or cut across sections),
    every row shows what a model built afresh from a cold parse does (its text, its lines, its
    entries and their tags), and the tags on offer are those the cold parse's entries hold
    outside ADR-001's list."""
    raw = path.read_bytes()
    rng = random.Random(path.parent.name)
    live = MemoryModel()
    memory = parse_memory(raw.decode("utf-8"))
    live.set_memory(memory)
    read_from_last = 0
    for step in range(30):
        text = raw.decode("utf-8")
        lines = text.splitlines(keepends=True)
        bullets = [n for n, line in enumerate(lines) if line.startswith("- ") and line.endswith("\n")]
        odd = [n for n, line in enumerate(lines) if "[Oddity]" in line]
        if step % 3 and bullets:  # an entry put in under another, as an agent appends one
            at = rng.choice(bullets) + 1
            tag = rng.choice(["Finding", "Decision", "Oddity"])
            text = "".join([*lines[:at], f"- [{tag}] added in step {step} — 단계\n", *lines[at:]])
        elif step % 2 and odd:  # an entry with a tag outside the list taken out again
            text = "".join(lines[: odd[0]] + lines[odd[0] + 1 :])
        else:
            text = random_edit(text, rng)
        new = text.encode("utf-8")
        memory = follow_bytes(memory, raw, new) or parse_memory(text, previous=memory)
        read_from_last += memory.follow_up is not None
        live.set_memory(memory)
        raw = new
        cold = parse_memory(text)
        fresh = MemoryModel()
        fresh.set_memory(cold)
        assert _rows(live) == _rows(fresh), text[:80]
        held = {e.tag for s in cold.sections for e in s.entries if e.tag and e.tag not in TAGS}
        assert memory.unknown_tags() == held, step
    assert read_from_last >= 10  # most writes stay inside one section's body: the path under test
    qtmodeltester.check(live, force_py=True)


def _big_memory(sections: int, per: int) -> str:
    out = ["# TEAM-MEMORY — big", ""]
    for n in range(sections):
        out += [f"## implementer-{n + 1}", *(f"- [Finding] note {k} of {n + 1}" for k in range(per)), ""]
    return "\n".join(out) + "\n"


def test_a_large_memory_makes_entry_rows_when_a_section_is_expanded(qtbot: QtBot, qtmodeltester: ModelTester) -> None:
    """Past 2,000 entries the sections keep their entries pending: no rows until the view
    expands one (Qt's fetchMore), and a follow-up of a collapsed section announces nothing."""
    from PySide6.QtWidgets import QTreeView

    memory = parse_memory(_big_memory(10, 300))
    model = MemoryModel()
    model.set_memory(memory)
    assert model.rowCount() == 10 and model.entry_count() == 3000
    third = model.index(2, 0)
    assert model.rowCount(third) == 0 and model.hasChildren(third) and model.canFetchMore(third)
    view = QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.show()
    qtbot.waitExposed(view)
    with qtbot.waitSignal(model.rowsInserted) as inserted:
        view.expand(third)
    assert inserted.args[1:] == [0, 299]
    assert [model.index(r, 0, third).data() for r in (0, 299)] == ["note 0 of 3", "note 299 of 3"]
    assert not model.canFetchMore(third) and model.rowCount(model.index(3, 0)) == 0
    # An append to the expanded section and one to a collapsed one, read from the last parse:
    text = memory.text.replace("## implementer-3\n", "## implementer-3\n- [Finding] new three\n")
    text = text.replace("## implementer-7\n", "## implementer-7\n- [Finding] new seven\n")
    changed: list[int] = []
    model.rowsInserted.connect(lambda parent, first, last: changed.append(parent.row()))
    model.set_memory(parse_memory(text, previous=memory))
    assert changed == [2]  # the collapsed section has nothing shown to change
    assert model.index(0, 0, third).data() == "new three" and model.entry_count() == 3002
    seventh = model.index(6, 0)
    assert model.index(6, 0).data() == "implementer-7  (301)"
    model.fetchMore(seventh)
    assert model.index(0, 0, seventh).data() == "new seven"
    qtmodeltester.check(model, force_py=True)  # it fetches the rest as it walks the tree


def test_another_memory_after_clear_is_made_as_in_a_fresh_model(qtbot: QtBot, qtmodeltester: ModelTester) -> None:
    """``clear`` (another session) is one reset, after which a large file's sections keep their
    entries pending as in a fresh model; synced instead, the sections named as the last file's
    (fetched, 300 rows each) had theirs made at once. On an empty model it signals nothing."""
    model = MemoryModel()
    resets: list[str] = []
    model.modelAboutToBeReset.connect(lambda: resets.append("about"))
    model.modelReset.connect(lambda: resets.append("done"))
    model.clear()
    assert resets == []
    model.set_memory(parse_memory(_big_memory(3, 5)))  # 15 entries: every row made
    assert [model.rowCount(model.index(r, 0)) for r in range(3)] == [5, 5, 5]
    model.clear()
    assert resets == ["about", "done"] and model.rowCount() == 0 and model.memory is None
    model.set_memory(parse_memory(_big_memory(8, 300)))
    firsts = [model.index(r, 0) for r in range(3)]
    assert [(model.rowCount(i), model.canFetchMore(i)) for i in firsts] == [(0, True)] * 3
    qtmodeltester.check(model, force_py=True)  # last: it fetches every section as it walks
