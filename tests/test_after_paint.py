"""Work put off until after the first paint: the preview's rest and the rest of the GC tree.

What a person sees first must be what they see once the rest has come: the same lines at the
top of the preview, the same rows at the top of the tree.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QAbstractItemView, QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.demo import copy_session
from bench.session_rows import ViewPaints
from models.text.markdown_html import first_part_end, render_markdown
from tests.conftest import COW, REAL_SESSIONS, shown_controller
from ui.after_paint import AfterPaint
from ui.panes.sections_pane import SCREEN_ROWS
from ui.widgets import PREVIEW_LIMIT, MarkdownView


def test_work_waits_for_a_paint_and_runs_once(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    after = AfterPaint(widget)
    ran: list[str] = []
    after.arm(lambda: ran.append("first"))
    after.arm(lambda: ran.append("second"))  # in place of the first
    qtbot.wait(60)  # out of sight: nothing paints, nothing runs
    assert ran == [] and after.pending
    widget.show()
    qtbot.waitUntil(lambda: ran == ["second"], timeout=5000)
    assert not after.pending
    widget.update()
    qtbot.wait(60)
    assert ran == ["second"]


def test_cancelled_work_never_runs_and_flush_runs_it_now(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    after = AfterPaint(widget)
    ran: list[int] = []
    after.arm(lambda: ran.append(1))
    after.cancel()
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(60)
    assert ran == []
    after.arm(lambda: ran.append(2))
    after.flush()
    assert ran == [2] and not after.pending
    after.flush()
    assert ran == [2]


def test_a_next_step_runs_a_moment_later_without_a_paint_and_flush_runs_every_step(qtbot: QtBot) -> None:
    """Long work hands its next step on: it runs after a turn of the event loop in which other
    events are handled, with no paint needed (rows added below the fold repaint nothing)."""
    widget = QWidget()
    qtbot.addWidget(widget)
    after = AfterPaint(widget)
    ran: list[str] = []
    handled: list[str] = []

    def first() -> None:
        ran.append("rows")
        QTimer.singleShot(0, lambda: handled.append(f"input after {ran}"))  # what the Lead did meanwhile
        after.then(lambda: ran.append("expanded"))

    after.arm(first)
    widget.show()  # its one paint starts the first step
    qtbot.waitUntil(lambda: ran == ["rows", "expanded"], timeout=5000)
    assert handled == ["input after ['rows']"] and not after.pending
    after.arm(first)
    after.flush()  # all of it, now
    assert ran == ["rows", "expanded", "rows", "expanded"] and not after.pending


def test_first_part_ends_at_the_first_heading_past_the_limit_outside_code() -> None:
    head = "# Title\n\n" + "".join(f"- item {n}: some words\n" for n in range(40))
    fenced = "```\n## not a heading, in code\n```\n"
    text = head + fenced + "<!--\n## nor in a comment\n-->\n" + "## Real\n- x\n### Deeper\n- y\n"
    limit = len(head)  # the fence starts exactly at the limit; its inner line lies past it
    assert first_part_end(text, limit) == text.index("## Real")
    assert first_part_end(text, text.index("## Real") + 1) == text.index("### Deeper")
    assert first_part_end(text, text.index("### Deeper") + 1) is None
    assert first_part_end(text, len(text)) is None


def test_the_preview_shows_its_first_part_then_the_whole_at_the_same_place(qtbot: QtBot) -> None:
    sections = "".join(f"## Area {n}\n" + "".join(f"- item-{n}-{k}: value {k}\n" for k in range(8)) for n in range(100))
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    qtbot.waitExposed(view)
    limit = view.first_part()  # as the view is before it shows the text (no scroll bar yet)
    assert limit < len(sections) < PREVIEW_LIMIT
    view.show_markdown(sections)  # no event is handled until the wait below: the rest waits
    cut = sections.index("## Area ", limit)  # the first heading past the first part's limit
    first = view.toPlainText()
    assert view.rest.pending
    assert "item-0-0: value 0" in first and sections[: cut - 1].splitlines()[-1][2:] in first
    assert sections[cut:].splitlines()[0][3:] not in first  # the heading the first part stops at
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)  # the Lead scrolled before the rest came
    top = view.cursorForPosition(view.viewport().rect().topLeft()).block().text()
    assert top.startswith(("item-", "Area "))  # a line of the text, wherever the middle fell
    qtbot.waitUntil(lambda: not view.rest.pending, timeout=5000)
    whole = QTextDocument()
    whole.setHtml(render_markdown(sections))  # the text rendered in one step
    assert view.toPlainText() == whole.toPlainText()
    assert view.cursorForPosition(view.viewport().rect().topLeft()).block().text() == top


@pytest.mark.parametrize("size", [(500, 300), (700, 1000), (1000, 900)])
def test_the_first_part_fills_the_view_it_is_shown_in(qtbot: QtBot, size: tuple[int, int]) -> None:
    """The first frame shows no blank space below a first part: real GCs, one after another
    (headings, tables, lists, code), in a small, a tall and a wide view."""
    names = ("cow-pipeline-redesign", "opus46-nlp-conversion", "skl006-delivery")
    text = "\n".join((REAL_SESSIONS / name / "global-context.md").read_text(encoding="utf-8") for name in names)
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.show_markdown(text)
    assert view.rest.pending  # only the first part is in
    assert view.document().size().height() >= view.viewport().height()


def _wide_session(root: Path) -> Path:
    """A session whose GC has 300 sections, each with one subsection: 600 rows when all are
    expanded, and more text than the preview renders before its first paint."""
    folder = root / ".agent" / "teams" / "wide"
    folder.mkdir(parents=True)
    gc = "---\nversion: GC-v3\n---\n\n# Wide\n\n" + "".join(
        f"## Area {n}\n- a-{n}: x\n\n### Detail {n}\n- d-{n}: y\n\n" for n in range(300)
    )
    (folder / "global-context.md").write_text(gc, encoding="utf-8")
    return folder


def test_a_large_gc_tree_shows_its_top_rows_first_and_expands_the_rest_after_painting(
    qtbot: QtBot, controller: Controller, tmp_path: Path
) -> None:
    assert controller.open(_wide_session(tmp_path))
    w = controller.window
    view, model = w.sections_pane.gc_view, w.sections_pane.gc_model

    def shown_rows(count: int) -> list[str]:
        titles: list[str] = []
        index = model.index(0, 0, QModelIndex())
        while index.isValid() and len(titles) < count:
            titles.append(str(index.data()))
            index = view.indexBelow(index)
        return titles

    # As a person reads the tree, top down: area, its detail, the next area, ...
    expected = [title for n in range(300) for title in (f"Area {n}", f"Detail {n}")]
    assert shown_rows(SCREEN_ROWS) == expected[:SCREEN_ROWS]
    assert model.rowCount() == SCREEN_ROWS  # the other 180 areas come after the first paint
    # Their expansion is a step of its own, a moment later: the Lead's input goes in between.
    # Seen when it begins: the rows are all there, and an event posted as they went in (what
    # the Lead did meanwhile) has been handled.
    handled: list[bool] = []
    model.rowsInserted.connect(lambda *_: QTimer.singleShot(0, lambda: handled.append(True)))
    at_expansion: list[tuple[int, bool, bool]] = []
    expand_all = view.expandAll

    def expanding() -> None:
        at_expansion.append((model.rowCount(), view.isExpanded(model.index(299, 0, QModelIndex())), bool(handled)))
        expand_all()

    view.expandAll = expanding  # type: ignore[method-assign]
    w.show()
    qtbot.waitUntil(lambda: not w.sections_pane.expand_rest.pending, timeout=5000)
    assert at_expansion == [(300, False, True)]
    assert shown_rows(1000) == expected


def test_an_outside_edit_before_the_rest_came_shows_every_row_and_the_rest_changes_nothing(
    qtbot: QtBot, controller: Controller, tmp_path: Path
) -> None:
    folder = _wide_session(tmp_path)
    assert controller.open(folder)
    w = controller.window
    model = w.sections_pane.gc_model
    assert w.sections_pane.expand_rest.pending and model.rowCount() == SCREEN_ROWS
    path = folder / "global-context.md"
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        path.write_text(path.read_text(encoding="utf-8") + "## Area 300\n- a-300: x\n", encoding="utf-8")
    tops = [f"Area {n}" for n in range(301)]
    assert [model.index(row, 0, QModelIndex()).data() for row in range(model.rowCount())] == tops
    inserted: list[int] = []
    model.rowsInserted.connect(lambda *_: inserted.append(1))
    w.show()
    qtbot.waitUntil(lambda: not w.sections_pane.expand_rest.pending, timeout=5000)
    assert inserted == [] and model.rowCount() == 301
    assert w.sections_pane.gc_view.isExpanded(model.index(299, 0, QModelIndex()))  # expanded as an open leaves it


def test_the_first_frame_of_an_open_holds_the_sections_teammates_and_memory(qtbot: QtBot, tmp_path: Path) -> None:
    """A real session opened into an empty window on screen, as the app starts: the turn of
    the event loop after the open paints each view with its rows. (A view left to lay itself
    out does so in a later turn, and until then the screen shows it as it was: empty.)"""
    controller = shown_controller(qtbot, tmp_path)
    w = controller.window
    QApplication.processEvents()  # the empty window as painted, before the open
    paints = ViewPaints(
        {
            "sections": w.sections_pane.gc_view,
            "teammates": w.teammates_pane.teammate_view,
            "memory": w.memory_pane.memory_view,
        }
    )
    try:
        assert controller.open(copy_session(COW, tmp_path))
        QApplication.processEvents()  # one turn: the first frame
        assert paints.first_had_rows == {"sections": True, "teammates": True, "memory": True}
    finally:
        w.context_pane.wait()
        controller.close()


def test_a_session_opened_before_the_last_ones_rest_came_shows_only_its_own(
    qtbot: QtBot, controller: Controller, tmp_path: Path
) -> None:
    """The Lead opens another session at once, one whose GC is short enough to render whole:
    what the first session put off must not land on it."""
    w = controller.window
    assert controller.open(_wide_session(tmp_path / "wide"))
    assert w.preview.rest.pending and w.sections_pane.expand_rest.pending
    assert controller.open(copy_session(REAL_SESSIONS / "ch001-ldap", tmp_path / "short"))
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(100)  # past the put-off work's delay: anything stale would have run by now
    assert not w.preview.rest.pending and not w.sections_pane.expand_rest.pending
    shown = w.preview.toPlainText()
    assert "Global Context — CH-001 LDAP" in shown and "Phase Status" in shown and "Area 0" not in shown
    titles = [
        str(w.sections_pane.gc_model.index(row, 0, QModelIndex()).data())
        for row in range(w.sections_pane.gc_model.rowCount())
    ]
    assert titles == [
        "Project Summary",
        "Design Reference",
        "Key Design Decisions",
        "Scope",
        "Cross-Reference Integrity Requirement [CRITICAL]",
        "Active Teammates",
        "Phase Status",
    ]


class _ListsFirst(QObject):
    """What the preview holds when the section tree, the teammate table and the memory view
    have each painted rows (the first frame of an open, as a person sees it)."""

    def __init__(self, controller: Controller) -> None:
        super().__init__()
        window = controller.window
        self.preview = window.preview
        views: tuple[QAbstractItemView, ...] = (
            window.sections_pane.gc_view,
            window.teammates_pane.teammate_view,
            window.memory_pane.memory_view,
        )
        self.views: dict[QObject, QAbstractItemView] = {v.viewport(): v for v in views}
        self.painted: set[QObject] = set()
        self.preview_then: str | None = None
        for viewport in self.views:
            viewport.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        view = self.views.get(watched)
        if event.type() == QEvent.Type.Paint and view is not None and view.indexAt(QPoint(4, 4)).isValid():
            self.painted.add(watched)
            if len(self.painted) == len(self.views) and self.preview_then is None:
                self.preview_then = self.preview.toPlainText()
        return False


def test_an_open_paints_the_lists_first_and_the_preview_a_moment_later(qtbot: QtBot, tmp_path: Path) -> None:
    """Rendering the GC's Markdown took 13 ms of the benchmark's open, before any list could
    paint. A window on screen now paints its lists first; the preview follows on its own, and
    a section the Lead picks is previewed at once."""
    controller = shown_controller(qtbot, tmp_path)
    window = controller.window
    watch = _ListsFirst(controller)
    # A copy: the memory journal's first look writes into the session it finds open.
    assert controller.open(copy_session(COW, tmp_path / "cow"))
    qtbot.waitUntil(lambda: watch.preview_then is not None, timeout=5000)
    assert watch.preview_then == ""  # not the text of a session shown before, nor this one's yet
    # cow's GC as its file reads: the title line, then the first section.
    qtbot.waitUntil(lambda: "Global Context — COW Pipeline Redesign" in window.preview.toPlainText(), timeout=5000)
    assert "Scope" in window.preview.toPlainText()
    view = window.sections_pane.gc_view
    row = window.sections_pane.gc_model.index(1, 0, QModelIndex())
    assert row.data() == "Phase Pipeline Status"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(row).center())
    assert window.preview_title.text().startswith("§Phase Pipeline Status")
    assert window.preview.toPlainText().startswith("Phase Pipeline Status")  # no wait: at once
    for viewport in watch.views:
        viewport.removeEventFilter(watch)
    controller.close()
