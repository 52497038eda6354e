"""The TEAM-MEMORY pane's actions: preview, write, undo; loss warnings and one-click restore."""

from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.memory_actions import SETTLE_MS, MemoryActions
from models.session.memory_parse import parse_memory
from ui.node_model import PAYLOAD_ROLE


@pytest.fixture
def controller(controller: Controller) -> Controller:
    """The shared controller, with the memory pane's diff confirmation answered yes."""
    controller.window.memory_pane.memory_actions.confirm = lambda title, diff: True  # type: ignore[method-assign]
    return controller


SETTLED_MS = SETTLE_MS * 5


def _memory(demo_copy: Path) -> str:
    return (demo_copy / "TEAM-MEMORY.md").read_text(encoding="utf-8")


def _wait_memory(qtbot: QtBot, ctl: Controller) -> object:
    return qtbot.waitSignal(ctl.window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts)


def test_write_tool_overwrite_shows_the_loss_and_restores_it(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    w = controller.window
    before = _memory(demo_copy)
    stale = re.sub(r"## implementer-1\n.*?\n\n", "## implementer-1\n\n", before, flags=re.S)
    with _wait_memory(qtbot, controller):
        (demo_copy / "TEAM-MEMORY.md").write_text(stale, encoding="utf-8")
    qtbot.waitUntil(lambda: w.memory_pane.loss_box.isVisibleTo(w), timeout=3000)  # judged once the file holds still
    assert "implementer-1: 4 entries vanished" in w.memory_pane.loss_label.text()
    assert "Posting batches: lock account heads" in w.memory_pane.loss_label.text()
    with _wait_memory(qtbot, controller):
        qtbot.mouseClick(w.memory_pane.restore_button, Qt.MouseButton.LeftButton)
    qtbot.wait(SETTLED_MS)  # past the judgement of the last write
    assert not w.memory_pane.loss_box.isVisibleTo(w)
    restored = parse_memory(_memory(demo_copy))
    one = next(s for s in restored.sections if s.header == "implementer-1")
    assert len(one.entries) == 4


def test_own_writes_are_no_loss_and_undo_restores(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    w, actions = controller.window, controller.window.memory_pane.memory_actions
    before = _memory(demo_copy)
    with _wait_memory(qtbot, controller):
        assert actions.prune()
    assert "[ARCHIVED]" not in _memory(demo_copy)
    assert "-[ARCHIVED]" not in actions.last_preview and "-- [ARCHIVED] [Decision]" in actions.last_preview
    qtbot.wait(SETTLED_MS)  # past the judgement of the last write
    assert not w.memory_pane.loss_box.isVisibleTo(w)  # pruning is ours: no warning
    with _wait_memory(qtbot, controller):
        actions.undo_stack.undo()
    assert _memory(demo_copy) == before


def _full_disk(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _watching_failures(controller: Controller, demo_copy: Path) -> tuple[MemoryActions, str, int, list[str]]:
    """The memory actions, the file and undo depth before, and every failure said from now on."""
    actions = controller.window.memory_pane.memory_actions
    errors: list[str] = []
    actions.failed.connect(errors.append)
    return actions, _memory(demo_copy), actions.undo_stack.count(), errors


def test_add_relay_and_refuse(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    actions = controller.window.memory_pane.memory_actions
    assert actions.add_entry("Lead", "Decision", "ship behind a flag")
    assert actions.add_entry("researcher-1", "Finding", "Adyen sandbox lags")
    assert not actions.add_entry("Lead", "Gossip", "no")  # refused: not one of the seven tags
    text = _memory(demo_copy)
    assert re.search(r"- \[Decision\] \d{4}-\d\d-\d\dT\d\d:\d\dZ ship behind a flag\n", text)
    assert re.search(r"- \[Finding\] \S+ \(relayed by Lead\) Adyen sandbox lags\n", text)
    # an agent appends meanwhile; undoing the relay keeps the agent's line
    with _wait_memory(qtbot, controller):
        (demo_copy / "TEAM-MEMORY.md").write_text(
            text.replace("## implementer-3\n", "## implementer-3\n- [Finding] agent\n"), encoding="utf-8"
        )
    actions.undo_stack.undo()
    after = _memory(demo_copy)
    assert "Adyen sandbox lags" not in after and "- [Finding] agent\n" in after and "ship behind a flag" in after


def test_archive_selected_entries_and_replace_a_teammate(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    w = controller.window
    model = w.memory_pane.memory_model
    section = next(r for r in range(model.rowCount()) if model.index(r, 0).data(PAYLOAD_ROLE).header == "implementer-2")
    parent = model.index(section, 0)
    selection = w.memory_pane.memory_view.selectionModel()
    for r in (0, 2):
        selection.select(
            model.index(r, 0, parent), QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        )
    assert len(w.memory_pane.selected_entries()) == 2
    with _wait_memory(qtbot, controller):
        w.memory_pane.archive_selected()
    two = next(s for s in parse_memory(_memory(demo_copy)).sections if s.header == "implementer-2")
    assert [e.archived for e in two.entries] == [True, False, True]
    with _wait_memory(qtbot, controller):
        assert w.memory_pane.memory_actions.replace_teammate("implementer-3")
    headers = [s.header for s in parse_memory(_memory(demo_copy)).sections]
    assert headers[-4:] == ["[REPLACED] implementer-3", "implementer-3", "[REPLACED] implementer-4", "implementer-4"]
    qtbot.wait(SETTLED_MS)  # past the judgement of the last write
    assert not w.memory_pane.loss_box.isVisibleTo(w)


def test_access_matrix_is_shown_for_the_selected_section(controller: Controller) -> None:
    w = controller.window
    model = w.memory_pane.memory_model
    for header, access in (("researcher-1", "Lead relay"), ("implementer-1", "direct Edit"), ("Lead", "full access")):
        row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(PAYLOAD_ROLE).header == header)
        w.memory_pane.memory_view.setCurrentIndex(model.index(row, 0))
        assert access in w.memory_pane.access_label.text()


def test_who_writes_the_section_is_in_sight_on_a_laptop(qtbot: QtBot, tmp_path: Path) -> None:
    """At 1366×768 the pane is about 460 pixels wide: at the end of the button row the access
    went behind the row's » menu."""
    from conftest import DEMO, copy_session, shown_controller

    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(copy_session(DEMO, tmp_path / "demo"))
    w = controller.window
    model = w.memory_pane.memory_model
    assert not w.memory_pane.access_label.isVisible()  # nothing selected: no line for it
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(PAYLOAD_ROLE).header == "researcher-1")
    w.memory_pane.memory_view.setCurrentIndex(model.index(row, 1))
    label = w.memory_pane.access_label
    assert label.text() == "Who writes researcher-1's section: Lead relay"  # ADR-001 §5
    qtbot.waitUntil(lambda: label.isVisible() and not label.visibleRegion().isEmpty())
    assert label.visibleRegion().boundingRect().width() >= label.fontMetrics().horizontalAdvance(label.text())
    controller.close()


def test_a_conflicting_edit_shows_both_versions(controller: Controller, demo_copy: Path) -> None:
    from models.memory.edits import SectionEdit, section_text

    actions = controller.window.memory_pane.memory_actions
    text = _memory(demo_copy)
    seen = section_text(text, "implementer-2")
    assert seen is not None
    (demo_copy / "TEAM-MEMORY.md").write_text(text.replace("treat as UTC", "treat as UTC (agent)"), encoding="utf-8")
    messages: list[str] = []
    actions.failed.connect(messages.append)
    assert (
        actions.write(
            [SectionEdit("implementer-2", seen, seen.replace("treat as UTC", "treat as UTC (Lead)"))],
            "Edit implementer-2",
        )
        is None
    )
    assert "on disk now:" in messages[0] and "(agent)" in messages[0] and "(Lead)" in messages[0]
    assert "(agent)" in _memory(demo_copy)


def test_a_refused_or_failed_write_leaves_no_undo_step_and_says_why(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 16: a full disk while writing TEAM-MEMORY is said in one line, the file is as it
    was, and no undo step is left for a write that did not happen."""
    import app.memory_actions as actions_module

    actions, before, steps, errors = _watching_failures(controller, demo_copy)
    monkeypatch.setattr(actions_module, "edit_memory", _full_disk)
    assert not actions.add_entry("Lead", "Decision", "this will not fit")
    assert errors == ["TEAM-MEMORY.md: No space left on device; nothing was written"]
    assert actions.undo_stack.count() == steps and _memory(demo_copy) == before


@pytest.mark.parametrize("step", ["write", "journal"])
def test_curation_failing_at_either_step_says_what_happened(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """Issue 16: pruning is one checked write, then the loss journal is told. A full disk at
    the write leaves the file as it was and no undo step; at the journal, the prune stands (with
    its undo step) and the Lead is told that its entries may be reported as lost."""
    import models.memory.edits as edits_module
    from models.memory.journal import MemoryJournal

    actions, before, steps, errors = _watching_failures(controller, demo_copy)
    if step == "write":
        monkeypatch.setattr(edits_module, "atomic_write", _full_disk)
        assert not actions.prune()
        assert _memory(demo_copy) == before and actions.undo_stack.count() == steps
        assert errors == ["TEAM-MEMORY.md: No space left on device; nothing was written"]
        return
    monkeypatch.setattr(MemoryJournal, "forget", _full_disk)
    with _wait_memory(qtbot, controller):
        assert actions.prune()
    assert "[ARCHIVED]" not in _memory(demo_copy) and actions.undo_stack.count() == steps + 1
    assert errors == [
        "TEAM-MEMORY.md was written, but the loss journal could not record it (No space left on device): "
        "entries this edit removed may be reported as lost"
    ]


def test_an_entry_removed_while_the_session_was_away_is_reported_after_it_opens(
    qtbot: QtBot, controller: Controller, demo_copy: Path, cow_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal's first look runs in a worker (issue 18: open shows the session first, and
    a large file's first look journals every entry), and still reports what vanished while the
    Lead was elsewhere."""
    import threading

    from models.memory.journal import MemoryJournal
    from models.memory.loss import Loss

    threads: list[str] = []
    real_observe = MemoryJournal.observe

    def observe(self: MemoryJournal, *args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread().name)
        return real_observe(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MemoryJournal, "observe", observe)

    journal = demo_copy / ".lead-console" / "memory-journal.jsonl"
    qtbot.waitUntil(journal.exists, timeout=3000)  # the demo's entries are journaled
    assert controller.open(cow_copy)
    memory = demo_copy / "TEAM-MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    entry = "- [Pattern] Posting batches: lock account heads"
    line = next(x for x in text.splitlines(keepends=True) if x.startswith(entry))
    memory.write_text(text.replace(line, ""), encoding="utf-8")  # an agent's stale write, meanwhile
    shown: list[Loss] = []
    controller.window.memory_pane.memory_actions.lossFound.connect(shown.append)
    assert controller.open(demo_copy)
    assert shown == []  # open returned before the journal looked
    qtbot.waitUntil(lambda: bool(shown), timeout=3000)
    (vanished,) = shown[-1].vanished
    assert vanished.seen.entry.startswith(entry) and vanished.seen.header == "implementer-1"
    assert threads and threading.current_thread().name not in threads[-1:]  # not the GUI thread


def test_a_write_before_the_first_look_is_judged_once_the_look_is_back(
    qtbot: QtBot, controller: Controller, demo_copy: Path, cow_copy: Path
) -> None:
    """The first look waits until the window has drawn the session; an agent's write in that
    moment starts it in the worker at once, and is judged when it is back: the entries the
    write dropped were journaled by the look, so they are reported, and the window was never
    held up by the look."""
    import threading

    import app.memory_actions as memory_actions
    from models.memory.journal import MemoryJournal
    from models.memory.loss import Loss

    threads: list[str] = []
    real_observe = MemoryJournal.observe

    def observe(self: MemoryJournal, *args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread().name)
        return real_observe(self, *args, **kwargs)  # type: ignore[arg-type]

    actions = controller.window.memory_pane.memory_actions
    actions._look_delay.setInterval(60_000)  # the delay alone would never start it in this test
    original = memory_actions.MemoryJournal.observe
    memory_actions.MemoryJournal.observe = observe  # type: ignore[method-assign]
    try:
        assert controller.open(cow_copy)
        qtbot.waitUntil(lambda: not actions._looker.busy)
        (demo_copy / ".lead-console" / "memory-journal.jsonl").unlink(missing_ok=True)
        assert controller.open(demo_copy)  # a session not journaled yet
        shown: list[Loss] = []
        actions.lossFound.connect(shown.append)
        memory = demo_copy / "TEAM-MEMORY.md"
        text = memory.read_text(encoding="utf-8")
        line = next(x for x in text.splitlines(keepends=True) if x.startswith("- [Pattern] Posting batches"))
        with _wait_memory(qtbot, controller):
            memory.write_text(text.replace(line, ""), encoding="utf-8")
        qtbot.waitUntil(lambda: bool(shown), timeout=5000)
    finally:
        memory_actions.MemoryJournal.observe = original  # type: ignore[method-assign]
    assert [v.seen.entry.split("\n")[0] for v in shown[-1].vanished] == [line.rstrip("\n")]
    assert threads[0] != threading.current_thread().name  # the look: in the worker


def test_a_prune_while_the_first_look_runs_waits_for_it_and_is_no_loss(
    qtbot: QtBot, controller: Controller, demo_copy: Path, cow_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Lead prunes while the journal's first look is still running in the worker: the
    edit waits for the look, so the entries it removes on purpose were journaled first and are
    not reported as lost afterwards."""
    import time

    from models.memory.journal import MemoryJournal

    real_observe = MemoryJournal.observe
    looking: list[bool] = []

    def slow_observe(self: MemoryJournal, *args: object, **kwargs: object) -> object:
        if not looking:  # the first look: slow enough for the prune to come while it runs
            looking.append(True)
            time.sleep(0.3)
        return real_observe(self, *args, **kwargs)  # type: ignore[arg-type]

    w, actions = controller.window, controller.window.memory_pane.memory_actions
    assert controller.open(cow_copy)
    qtbot.waitUntil(lambda: not actions.looking, timeout=5000)
    (demo_copy / ".lead-console" / "memory-journal.jsonl").unlink(missing_ok=True)
    monkeypatch.setattr(MemoryJournal, "observe", slow_observe)
    actions._look_delay.setInterval(0)
    assert controller.open(demo_copy)
    qtbot.waitUntil(lambda: bool(looking), timeout=3000)  # the look is under way in the worker
    assert actions.looking
    with _wait_memory(qtbot, controller):
        assert actions.prune()
    qtbot.wait(SETTLED_MS * 4)
    assert not w.memory_pane.loss_box.isVisibleTo(w)  # pruned on purpose: no warning


def _shown_entries(controller: Controller) -> list[str]:
    """Every entry row the memory view holds, section by section, as shown."""
    model = controller.window.memory_pane.memory_model
    shown = []
    for row in range(model.rowCount()):
        section = model.index(row, 0)
        shown += [model.index(n, 0, section).data() for n in range(model.rowCount(section))]
    return shown


def test_the_tag_filter_offers_other_tags_after_the_first_frame_and_lets_go_of_one_that_leaves(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """ADR-001's seven tags are always offered; one the entries use besides ([Risk] here)
    joins them once the open's first frame is out, and filters as they do. When an agent's
    write takes its last entry away, the filter goes back to all tags and shows them all (the
    demo's file holds 25 entries, Meta's three lines among them)."""
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    anchor = "## implementer-1\n"
    path.write_text(text.replace(anchor, anchor + "- [Risk] ledger lag under load\n"), encoding="utf-8")
    w = controller.window
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    assert controller.open(demo_copy)
    pane = w.memory_pane
    qtbot.waitUntil(lambda: not pane.tags_after.pending, timeout=5000)
    offered = [pane.tag_box.itemText(i) for i in range(pane.tag_box.count())]
    adr_001 = ["Finding", "Pattern", "Decision", "Warning", "Dependency", "Conflict", "Question"]
    assert offered == ["All tags", *adr_001, "Risk"]
    pane.tag_box.setFocus()
    qtbot.keyClicks(pane.tag_box, "Risk")  # typing picks the item, as in any list
    assert pane.tag_box.currentText() == "Risk"
    assert _shown_entries(controller) == ["ledger lag under load"]
    with _wait_memory(qtbot, controller):
        path.write_text(text, encoding="utf-8")  # a write from a copy without it
    assert pane.tag_box.currentText() == "All tags"
    assert [pane.tag_box.itemText(i) for i in range(pane.tag_box.count())] == ["All tags", *adr_001]
    assert len(_shown_entries(controller)) == 25


def test_without_team_memory_only_add_is_offered_and_a_file_gone_meanwhile_is_said_once(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Four of the six real sessions have no TEAM-MEMORY.md: Archive, Archive phase…,
    Replace… and Prune have nothing to work on (Prune raised FileNotFoundError into Qt). A file
    that goes while shown is said in one line when a curation is asked for."""
    pane = controller.window.memory_pane
    buttons = {b.text(): b for b in (*pane.curation_buttons,)}
    assert set(buttons) == {"Archive", "Archive phase…", "Replace…", "Prune"}
    assert all(b.isEnabled() for b in buttons.values())
    said: list[str] = []
    controller.window.memory_pane.memory_actions.failed.connect(said.append)
    (demo_copy / "TEAM-MEMORY.md").unlink()
    assert not controller.window.memory_pane.memory_actions.prune()  # asked before the view has followed
    assert said == ["TEAM-MEMORY.md: No such file or directory; nothing was written"]
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda p: "memory" in p):
        pass
    assert not any(b.isEnabled() for b in buttons.values())
    assert pane.line_count.text() == "no TEAM-MEMORY.md"
