"""The window after agents' writes shows what a window opened afresh on the folder shows.

The window updates what a write changed and skips the rest: the section tree and the memory
tree sync one edited row, the teammate table is gathered again only when the plan, the phase
folders, the GC's version or TEAM-MEMORY's roles moved, and each banner follows its own part.
Each skip is a claim that nothing it leaves could have changed. Here agents write random
changes through the real folder watcher, and after each one the live window's trees, table,
banners and status bar must equal those of a second window that opened the folder from
scratch (its views are what the app shows on open, which the other tests hold to the files).
"""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from gc_facts import reads_clean
from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtWidgets import QTreeView
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.settings import AppSettings
from conftest import COW, DEMO, REAL_SESSIONS, settle_reviews
from gc_edits import random_edit
from ui.main_window import MainWindow
from ui.node_model import NodeTreeModel

TOOLTIP = Qt.ItemDataRole.ToolTipRole


def _rows(model: NodeTreeModel, columns: int, parent: QModelIndex | None = None) -> list[object]:
    parent = parent or QModelIndex()
    out: list[object] = []
    for r in range(model.rowCount(parent)):
        index = model.index(r, 0, parent)
        cells = [model.index(r, c, parent).data() for c in range(columns)]
        out.append((cells, index.data(TOOLTIP), _rows(model, columns, index)))
    return out


def _shown(window: MainWindow, refused: Sequence[str] = ()) -> list[object]:
    """What the Lead reads off the window: every row of the three views, the banners and the
    status bar (``refused``: the lines of the Lead's refused edits, left out of the banners)."""
    return [
        _rows(window.sections_pane.gc_model, window.sections_pane.gc_model.columnCount()),
        _rows(window.teammates_pane.teammate_model, window.teammates_pane.teammate_model.columnCount()),
        _rows(window.memory_pane.memory_model, window.memory_pane.memory_model.columnCount()),
        _rows(window.gates_pane.gate_model, window.gates_pane.gate_model.columnCount()),
        _rows(window.context_pane.team, window.context_pane.team.columnCount()),
        [window.context_pane.teammate.itemText(i) for i in range(window.context_pane.teammate.count())],
        _rows(window.review_pane.model, window.review_pane.model.columnCount()),
        _rows(window.composer.items_model, window.composer.items_model.columnCount()),
        _rows(window.composer.decisions_model, window.composer.decisions_model.columnCount()),
        _rows(window.composer.scenarios_model, window.composer.scenarios_model.columnCount()),
        window.composer.message.toPlainText(),
        _rows(window.planning_pane.model, window.planning_pane.model.columnCount()),
        [
            _banner(b.text(), refused)
            for b in (
                window.sections_pane.gc_banner,
                window.teammates_pane.plan_banner,
                window.memory_pane.memory_banner,
            )
        ],
        window.gates_pane.gates_banner.text(),
        [
            w.text()
            for w in (
                window.status_line.session,
                window.status_line.version,
                window.status_line.tokens,
                window.status_line.problems,
            )
        ],
        window.memory_pane.line_count.text(),
        _plan(window),
    ]


def _where(window: MainWindow) -> list[object]:
    """Where the Lead is in the three views: the current row, the rows selected and, in the
    two trees, the rows expanded (each row by its texts down from the top)."""

    def path(index: QModelIndex) -> tuple[str, ...]:
        return (*path(index.parent()), index.data()) if index.isValid() else ()

    def expanded(view: QTreeView, parent: QModelIndex) -> list[tuple[str, ...]]:
        model, out = view.model(), []
        for row in range(model.rowCount(parent)):
            index = model.index(row, 0, parent)
            if view.isExpanded(index):
                out += [path(index), *expanded(view, index)]
        return out

    views = (window.sections_pane.gc_view, window.teammates_pane.teammate_view, window.memory_pane.memory_view)
    places: list[object] = [
        (path(v.currentIndex()), sorted(path(i) for i in v.selectionModel().selectedRows())) for v in views
    ]
    return [
        *places,
        expanded(window.sections_pane.gc_view, QModelIndex()),
        expanded(window.memory_pane.memory_view, QModelIndex()),
    ]


def _plan(window: MainWindow) -> object:
    """The composer's update plan as its table shows it: each teammate's decision and why."""
    plan = window.composer.plan
    if plan is None:
        return None
    decisions = [(d.role, d.mode, [str(c) for c in d.conditions], d.tokens, d.base_version) for d in plan.decisions]
    return (plan.current_version, plan.full_tokens, plan.frozen, plan.notes, decisions)


def _banner(text: str, refused: Sequence[str]) -> list[str]:
    """A banner's lines but those that report what an outside write removed (the live window
    saw the version before, which a fresh window has not: the loss check's own tests) and why
    an action of the Lead's was refused (a fresh window was asked nothing)."""
    return [
        line
        for line in text.splitlines()
        if line.strip() and "an outside write removed" not in line and not any(r in line for r in refused)
    ]


def _opened(qtbot: QtBot, settings: Path, folder: Path) -> Controller:
    controller = Controller(AppSettings(QSettings(str(settings), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(controller.window)
    controller.window.confirm_discard = lambda: True  # type: ignore[method-assign]
    assert controller.open(folder)
    qtbot.waitUntil(lambda: controller.live is not None and controller.live.watcher is not None, timeout=5000)
    settle_reviews(qtbot, controller)
    return controller


def _closed(controller: Controller) -> None:
    controller.window.context_pane.wait()
    controller.close()


def _put(rng: random.Random, path: Path, text: str) -> None:
    """Write as agents and editors do: in place, or to a temporary file moved over the old one."""
    if rng.random() < 0.5:
        path.write_text(text, encoding="utf-8")
        return
    temp = path.with_name(f".{path.name}.{rng.randint(0, 10**6)}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def _writes(folder: Path) -> list[tuple[str, Callable[[random.Random], None], str | None]]:
    """Writes agents make, each with the part of the session it changes."""
    gc, memory, plan = folder / "global-context.md", folder / "TEAM-MEMORY.md", folder / "orchestration-plan.md"

    def edit(path: Path) -> Callable[[random.Random], None]:
        """A random edit that still reads without an error: a broken file keeps the last good
        version on screen, which a fresh window has not seen (``test_session_states``)."""

        def write(rng: random.Random) -> None:
            text = path.read_text(encoding="utf-8")
            for _ in range(20):
                edited = random_edit(text, rng)
                if reads_clean(path.name, edited):
                    _put(rng, path, edited)
                    return

        return write

    def bump(rng: random.Random) -> None:
        text = gc.read_text(encoding="utf-8")
        _put(rng, gc, re.sub(r"GC-v(\d+)", lambda m: f"GC-v{int(m[1]) + 1}", text, count=1))

    def append(rng: random.Random) -> None:
        text = memory.read_text(encoding="utf-8")
        headings = [m.start() for m in re.finditer(r"^## ", text, re.MULTILINE)]
        at = text.find("\n", rng.choice(headings)) + 1
        entry = f"- [{rng.choice(['Finding', 'Decision', 'Oddity'])}] written by an agent {rng.random():.3f}\n"
        _put(rng, memory, text[:at] + entry + text[at:])

    def replace(rng: random.Random) -> None:
        text = memory.read_text(encoding="utf-8")
        roles = re.findall(r"^## (implementer-\d+)$", text, re.MULTILINE)
        if roles:
            role = rng.choice(roles)
            _put(rng, memory, text.replace(f"## {role}\n", f"## {role} [REPLACED]\n", 1))

    def new_role(rng: random.Random) -> None:
        text = memory.read_text(encoding="utf-8")
        _put(rng, memory, text + f"\n## tester-{rng.randint(1, 4)}\n- [Finding] joined late\n")

    def status(rng: random.Random) -> None:
        text = plan.read_text(encoding="utf-8")
        state = rng.choice(["active", "shutdown", "idle"])
        _put(rng, plan, re.sub(r"(implementer-\d+: )\w+", lambda m: m[1] + state, text, count=1))

    def gate(rng: random.Random) -> None:
        number = rng.randint(1, 7)
        path = folder / f"phase-{number}" / "gate-record.yaml"
        path.parent.mkdir(exist_ok=True)
        verdict = rng.choice(["APPROVED", "ITERATE", "ABORT"])
        note = rng.random()  # never the record that was there
        _put(rng, path, f"phase: {number}\nresult: {verdict}\nnote: {note}\n")

    def phase(rng: random.Random) -> None:  # always a folder not there before
        (folder / f"phase-{rng.randint(6, 9)}" / f"implementer-{rng.randint(5, 99_999)}").mkdir(parents=True)

    return [  # (the part it changes, the write, the file it needs)
        ("gc", edit(gc), gc.name),
        ("gc", bump, gc.name),
        ("memory", append, memory.name),
        ("memory", edit(memory), memory.name),
        ("memory", replace, memory.name),
        ("memory", new_role, memory.name),
        ("plan", edit(plan), plan.name),
        ("plan", status, plan.name),
        ("folders", phase, None),
        ("gates", gate, None),
    ]


def _lead_actions(window: MainWindow, refused: list[str]) -> list[Callable[[random.Random], bool]]:
    """What the Lead does to TEAM-MEMORY from the window (each confirmed, as by the dialog):
    an entry added, a teammate replaced, the last of those undone. Each says whether it wrote;
    the lines of a refusal go into ``refused``."""
    actions = window.memory_pane.memory_actions
    actions.confirm = lambda title, diff: True  # type: ignore[method-assign]
    actions.failed.connect(lambda message: refused.extend(line for line in message.splitlines() if line.strip()))

    def roles() -> list[str]:
        memory = window.session.memory if window.session is not None else None
        return [s.role for s in memory.roles()] if memory is not None else []

    def add(rng: random.Random) -> bool:
        role = rng.choice([*roles(), "Lead"])
        return actions.add_entry(role, rng.choice(["Decision", "Finding", None]), f"the Lead's note {rng.random():.4f}")

    def replace(rng: random.Random) -> bool:
        candidates = [r for r in roles() if r.startswith("implementer")]
        return bool(candidates) and actions.replace_teammate(rng.choice(candidates))

    def undo(rng: random.Random) -> bool:
        if not actions.undo_stack.canUndo():
            return False
        actions.undo_stack.undo()
        return True

    return [add, add, replace, undo]


def _settled(qtbot: QtBot, controller: Controller, memory: Path) -> None:
    """After the Lead's own write: the session holds what the file holds, and the watcher has
    nothing pending."""
    watcher = controller.live.watcher  # type: ignore[union-attr]

    def done() -> bool:
        shown = controller.live.session.memory  # type: ignore[union-attr]
        return shown is not None and shown.text == memory.read_text(encoding="utf-8") and not watcher._timer.isActive()

    qtbot.waitUntil(done, timeout=5000)
    settle_reviews(qtbot, controller)


@pytest.mark.parametrize("source", [DEMO, COW, REAL_SESSIONS / "opus46-nlp-conversion"], ids=lambda p: p.name)
def test_the_live_window_shows_what_a_fresh_window_shows(qtbot: QtBot, tmp_path: Path, source: Path) -> None:
    """Agents' writes, and now and then the Lead's own edit of TEAM-MEMORY from the window."""
    folder = tmp_path / "project" / ".agent" / "teams" / source.name
    shutil.copytree(source, folder)
    rng = random.Random(f"window-{source.name}")
    live = _opened(qtbot, tmp_path / "live.ini", folder)
    window = live.window
    writes = [(part, write) for part, write, name in _writes(folder) if name is None or (folder / name).is_file()]
    refused: list[str] = []
    lead = _lead_actions(window, refused) if (folder / "TEAM-MEMORY.md").is_file() else []
    try:
        for step in range(16):
            if lead and rng.random() < 0.25:
                if not rng.choice(lead)(rng):
                    continue
                _settled(qtbot, live, folder / "TEAM-MEMORY.md")
                part = "memory (the Lead)"
            else:
                part, write = rng.choice(writes)
                before = {p.name: p.read_bytes() for p in folder.glob("*.md")}
                write(rng)
                unchanged = {p.name: p.read_bytes() for p in folder.glob("*.md")} == before
                if part not in ("folders", "gates") and unchanged:
                    continue  # nothing to follow
                with qtbot.waitSignal(
                    window.viewUpdated, timeout=5000, check_params_cb=lambda parts, part=part: part in parts
                ):
                    pass
                settle_reviews(qtbot, live)
            fresh = _opened(qtbot, tmp_path / "fresh.ini", folder)
            try:
                assert _shown(window, refused) == _shown(fresh.window), (step, part)
            finally:
                _closed(fresh)
    finally:
        _closed(live)


def test_a_refused_edit_is_shown_below_what_is_wrong_with_the_file(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """The memory banner said only why the Lead's edit was refused, and hid the file's own
    warnings until the next write."""
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000):
        path.write_text(text + "\n## implementer-1\n- [Finding] a second section\n", encoding="utf-8")
    banner = controller.window.memory_pane.memory_banner
    assert "2 active sections for implementer-1" in banner.text()
    assert not controller.window.memory_pane.memory_actions.add_entry("Lead", "NoSuchTag", "refused")
    lines = banner.text().splitlines()
    assert len(lines) == 2 and "2 active sections for implementer-1" in lines[0] and "unknown tag" in lines[1]


@pytest.mark.parametrize("source", [DEMO, COW], ids=lambda p: p.name)
def test_a_tokenizer_chosen_live_counts_as_a_window_opened_with_it(qtbot: QtBot, tmp_path: Path, source: Path) -> None:
    """Tokens ▸ cl100k_base in an open window: every count the window shows is the new
    tokenizer's, as in a window that opened the session with it."""
    folder = tmp_path / "project" / ".agent" / "teams" / source.name
    shutil.copytree(source, folder)
    live = _opened(qtbot, tmp_path / "live.ini", folder)
    try:
        with qtbot.waitSignal(live.window.viewUpdated, timeout=5000):
            live.set_tokenizer("cl100k_base")
        settle_reviews(qtbot, live)
        settings = QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat)
        settings.setValue("tokenizer", "cl100k_base")
        settings.sync()
        fresh = _opened(qtbot, tmp_path / "fresh.ini", folder)
        try:
            assert "cl100k_base" in fresh.window.status_line.tokens.text()
            assert _shown(live.window) == _shown(fresh.window)
        finally:
            _closed(fresh)
    finally:
        _closed(live)


def test_a_session_opened_in_a_used_window_shows_as_in_a_fresh_one(qtbot: QtBot, tmp_path: Path) -> None:
    """Nothing of the session left stays on screen: open the demo, let agents write, the Lead
    edit, then open another session in the same window, and come back."""
    demo, cow = tmp_path / "a" / DEMO.name, tmp_path / "b" / COW.name
    shutil.copytree(DEMO, demo)
    shutil.copytree(COW, cow)
    live = _opened(qtbot, tmp_path / "live.ini", demo)
    try:
        rng = random.Random("switch")
        for _ in range(6):
            write = rng.choice([w for _, w, _ in _writes(demo)])
            write(rng)
            qtbot.wait(60)
        refused: list[str] = []
        for action in _lead_actions(live.window, refused)[:3]:
            action(rng)
        qtbot.waitUntil(lambda: not live.live.watcher._timer.isActive(), timeout=5000)  # type: ignore[union-attr]
        for folder in (cow, demo):
            # The Lead was somewhere in the last session: a row of each view, a section folded.
            window = live.window
            for view in (
                window.sections_pane.gc_view,
                window.teammates_pane.teammate_view,
                window.memory_pane.memory_view,
            ):
                view.setCurrentIndex(view.model().index(1, 0))
            window.sections_pane.gc_view.collapse(window.sections_pane.gc_model.index(0, 0))
            window.memory_pane.memory_view.collapse(window.memory_pane.memory_model.index(2, 0))
            assert live.open(folder)
            settle_reviews(qtbot, live)
            fresh = _opened(qtbot, tmp_path / "fresh.ini", folder)
            try:
                assert _shown(live.window, refused) == _shown(fresh.window), folder.name
                assert _where(live.window) == _where(fresh.window), folder.name
            finally:
                _closed(fresh)
    finally:
        _closed(live)


@pytest.mark.parametrize("source", [DEMO, COW], ids=lambda p: p.name)
def test_bursts_of_writes_end_as_a_fresh_window_shows(qtbot: QtBot, tmp_path: Path, source: Path) -> None:
    """Agents' writes two to six at a time, with no pause between them: files read as their
    writer closed them are dropped by the next write to them, and the window still ends on
    what the folder holds. A marker written after each burst says when the watcher has passed
    on all of it (a watch delivers its events in order)."""
    folder = tmp_path / "project" / ".agent" / "teams" / source.name
    shutil.copytree(source, folder)
    rng = random.Random(f"bursts-{source.name}")
    live = _opened(qtbot, tmp_path / "live.ini", folder)
    watcher = live.live.watcher  # type: ignore[union-attr]
    assert watcher is not None
    writes = [write for _, write, name in _writes(folder) if name is None or (folder / name).is_file()]
    try:
        for burst in range(8):
            for _ in range(rng.randint(2, 6)):
                rng.choice(writes)(rng)
            marker = str(folder / f"burst-{burst}.txt")
            with qtbot.waitSignal(
                watcher.pathsChanged, timeout=5000, check_params_cb=lambda paths, m=marker: m in paths
            ):
                Path(marker).write_text("the burst is over", encoding="utf-8")
            settle_reviews(qtbot, live)
            fresh = _opened(qtbot, tmp_path / "fresh.ini", folder)
            try:
                assert _shown(live.window) == _shown(fresh.window), burst
            finally:
                _closed(fresh)
    finally:
        _closed(live)


def _fetched(window: MainWindow) -> list[tuple[str, int, bool]]:
    """Per TEAM-MEMORY section row: its title, the entry rows made and whether more wait."""
    model = window.memory_pane.memory_model
    return [
        (model.index(r, 0).data(), model.rowCount(model.index(r, 0)), model.canFetchMore(model.index(r, 0)))
        for r in range(model.rowCount())
    ]


def test_a_large_memory_opened_in_a_used_window_waits_for_its_sections_to_open(qtbot: QtBot, tmp_path: Path) -> None:
    """A TEAM-MEMORY past 2,000 entries opens with its entries made when a section is expanded,
    in a used window as in a fresh one: after the demo, whose implementer-1..4 sections were on
    screen, those of a large file were made there and then (300 rows each on the open)."""
    demo, big = tmp_path / "a" / DEMO.name, tmp_path / "b" / "big"
    shutil.copytree(DEMO, demo)
    big.mkdir(parents=True)
    lines = ["# TEAM-MEMORY — big", ""]
    for n in range(1, 9):
        lines += [f"## implementer-{n}", *(f"- [Finding] note {k} of {n}" for k in range(300)), ""]
    (big / "TEAM-MEMORY.md").write_text("\n".join(lines), encoding="utf-8")
    (big / "global-context.md").write_text("---\nversion: GC-v1\n---\n# GC\n\n## Scope\n- a\n", encoding="utf-8")
    used = _opened(qtbot, tmp_path / "used.ini", demo)
    try:
        assert used.open(big)
        settle_reviews(qtbot, used)
        fresh = _opened(qtbot, tmp_path / "fresh.ini", big)
        try:
            expected = [(f"implementer-{n}", 0, True) for n in range(1, 9)]
            assert [(t.split("  (")[0], n, more) for t, n, more in _fetched(fresh.window)] == expected
            assert _fetched(used.window) == _fetched(fresh.window)
        finally:
            _closed(fresh)
    finally:
        _closed(used)
