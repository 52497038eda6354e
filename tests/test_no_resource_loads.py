"""Issue 15.4: Markdown and text from session files, shown anywhere in the window, never make
Qt open a file. Evidence: inotify counts every open of a probe image while the window shows it."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel, QTextBrowser
from pytestqt.qtbot import QtBot

from ui.node_model import PAYLOAD_ROLE
from ui.widgets import MarkdownView

IN_OPEN = 0x20
IN_NONBLOCK = 0o4000


class OpenCounter:
    """Counts opens of one file by any thread of this process (inotify IN_OPEN)."""

    def __init__(self, path: Path) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = libc.inotify_init1(IN_NONBLOCK)
        assert self.fd >= 0
        assert libc.inotify_add_watch(self.fd, str(path).encode(), IN_OPEN) >= 0
        self.count = 0

    def opens(self) -> int:
        QApplication.processEvents()
        while True:
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                return self.count
            self.count += len(data) // 16  # one event, no name (the watch is on the file itself)

    def close(self) -> None:
        os.close(self.fd)


@pytest.fixture
def probe(tmp_path: Path) -> Iterator[tuple[Path, OpenCounter]]:
    path = tmp_path / "probe.png"
    image = QImage(4, 4, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.red)
    assert image.save(str(path))
    counter = OpenCounter(path)
    yield path, counter
    counter.close()


def test_the_counter_sees_a_plain_text_browser_load_the_image(qtbot: QtBot, probe: tuple[Path, OpenCounter]) -> None:
    """The detector has teeth: Qt's own browser does open the file."""
    path, counter = probe
    browser = QTextBrowser()
    qtbot.addWidget(browser)
    browser.setHtml(f'<p>x <img src="{path}"></p>')
    browser.show()
    browser.grab()
    assert counter.opens() >= 1


def test_the_preview_opens_nothing(qtbot: QtBot, probe: tuple[Path, OpenCounter]) -> None:
    path, counter = probe
    view = MarkdownView()
    qtbot.addWidget(view)
    view.show_markdown(f"## Risks\n\n![diagram]({path})\n\n![rel](probe.png)\n\n[link]({path})\n")
    view.show()
    view.grab()
    assert counter.opens() == 0
    assert "diagram" in view.toHtml()  # the image is there as an element, not loaded


def test_a_session_with_html_in_headings_and_entries_opens_nothing(
    qtbot: QtBot, controller: object, demo_copy: Path, probe: tuple[Path, OpenCounter]
) -> None:
    path, counter = probe
    from app.controller import Controller

    assert isinstance(controller, Controller)
    gc = demo_copy / "global-context.md"
    tag = f'<img src="{path}">'
    gc.write_text(
        gc.read_text(encoding="utf-8").replace("## Risks", f"## Risks {tag}") + f"\n## Pictures\n\n![a]({path})\n",
        encoding="utf-8",
    )
    memory = demo_copy / "TEAM-MEMORY.md"
    memory.write_text(
        memory.read_text(encoding="utf-8").replace("## Lead\n", f"## Lead\n- [Decision] look {tag}\n", 1),
        encoding="utf-8",
    )
    controller.reload()
    window = controller.window
    window.show()
    # Select the section with the tag, so the preview title and the preview show it.
    for row in range(window.sections_pane.gc_model.rowCount()):
        index = window.sections_pane.gc_model.index(row, 0)
        if "Risks" in index.data():
            window.sections_pane.gc_view.setCurrentIndex(index)
    assert "Risks <img src=" in window.preview_title.text()  # shown as written
    assert window.preview_title.textFormat() == Qt.TextFormat.PlainText
    # Every tooltip of the GC tree and the memory tree, drawn as Qt's tooltip label draws it
    # (a QLabel deciding rich or plain text by itself; QToolTip itself needs a real screen).
    for model in (window.sections_pane.gc_model, window.memory_pane.memory_model):
        pending = [model.index(r, 0) for r in range(model.rowCount())]
        while pending:
            index = pending.pop()
            pending += [model.index(r, 0, index) for r in range(model.rowCount(index))]
            tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
            if tip:
                assert "<img" not in tip
                shown = QLabel(tip)
                qtbot.addWidget(shown)
                shown.grab()
    window.grab()
    entry_tips = [
        window.memory_pane.memory_model.data(
            window.memory_pane.memory_model.index(r, 0, window.memory_pane.memory_model.index(s, 0)),
            Qt.ItemDataRole.ToolTipRole,
        )
        for s in range(window.memory_pane.memory_model.rowCount())
        for r in range(window.memory_pane.memory_model.rowCount(window.memory_pane.memory_model.index(s, 0)))
    ]
    assert any("&lt;img" in (t or "") for t in entry_tips)  # shown as written
    assert window.memory_pane.memory_model.data(window.memory_pane.memory_model.index(0, 0), PAYLOAD_ROLE) is not None
    assert counter.opens() == 0
