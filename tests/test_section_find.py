"""Go to section (Ctrl+K) in the section tree, and ``lead-console section --find``.

The window's expectations are a person's reading of cow-pipeline-redesign's GC: "stage" is in
the title of Component Map's "Pipeline Stages (6)" and of the six "Stage …" contracts under
Interface Contracts, in that order. The CLI is held, on every real GC, to a filter written
here over the section tree ``inspect --json`` prints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO, REAL_SESSIONS, activate, copy_session, run_cli, shown_controller

COW = REAL_SESSIONS / "cow-pipeline-redesign"
SESSIONS = [DEMO, *sorted(p for p in REAL_SESSIONS.iterdir() if (p / "global-context.md").is_file())]
CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
STAGES = [
    "Pipeline Stages (6)",
    "Stage 1 → 2 (INGEST → OCR)",
    "Stage 2 → 3 (OCR → VISION)",
    "Stage 3 → 4 (VISION → VERIFY)",
    "Stage 4 → 5 (VERIFY → COMPOSE)",
    "Stage 5 → 6 (COMPOSE → EXPORT)",
    "Stage 6 Output (EXPORT)",
]


def _window(qtbot: QtBot, tmp_path: Path, folder: Path) -> Controller:
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    window = controller.window
    activate(qtbot, window)  # keys go to the active window
    return controller


def _current_title(controller: Controller) -> str:
    return str(controller.window.sections_pane.gc_view.currentIndex().siblingAtColumn(0).data())


def test_ctrl_k_types_and_steps_through_the_sections_found(qtbot: QtBot, tmp_path: Path) -> None:
    controller = _window(qtbot, tmp_path, copy_session(COW, tmp_path / "s"))
    w = controller.window
    pane = w.sections_pane
    w.teammates_pane.teammate_view.setFocus()  # the key works from another pane
    qtbot.keyClick(w.teammates_pane.teammate_view, Qt.Key.Key_K, CTRL)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.find_box)
    QTest.keyClicks(pane.find_box, "stage")
    assert _current_title(controller) == STAGES[0]
    assert pane.found_label.text() == "1 of 7"
    assert w.sections_pane.gc_view.visualRect(
        w.sections_pane.gc_view.currentIndex()
    ).isValid()  # scrolled to, its parents open
    seen = [_current_title(controller)]
    for _ in range(7):  # Return: the next one, round the GC
        qtbot.keyClick(pane.find_box, Qt.Key.Key_Return)
        seen.append(_current_title(controller))
    assert seen == [*STAGES, STAGES[0]]
    qtbot.keyClick(pane.find_box, Qt.Key.Key_Return, SHIFT)  # back one, round the other way
    assert _current_title(controller) == STAGES[-1]
    assert pane.found_label.text() == "7 of 7"
    # The preview follows the selection, as for a click.
    assert "Stage 6 Output" in w.preview.toPlainText()
    # Escape: back in the tree on the section found, the box cleared.
    qtbot.keyClick(pane.find_box, Qt.Key.Key_Escape)
    assert QApplication.focusWidget() is w.sections_pane.gc_view
    assert pane.find_box.text() == "" and pane.found_label.text() == ""
    assert _current_title(controller) == STAGES[-1]
    # Found nowhere: said so, the selection stays (no title of this GC holds a "~").
    qtbot.keyClick(w.sections_pane.gc_view, Qt.Key.Key_K, CTRL)
    QTest.keyClicks(pane.find_box, "§~")
    assert pane.found_label.text() == "no section"
    assert _current_title(controller) == STAGES[-1]
    # A reference as the tree's Copy reference gives it (quoted segment and all) finds it.
    pane.find_box.clear()
    QTest.keyClicks(pane.find_box, '§Interface Contracts."Stage 3')
    assert _current_title(controller) == STAGES[3]
    qtbot.keyClick(pane.find_box, Qt.Key.Key_Down)  # down into the tree, there to go on
    assert QApplication.focusWidget() is w.sections_pane.gc_view
    controller.close()


def test_a_section_whose_row_an_open_put_off_is_found(qtbot: QtBot, tmp_path: Path) -> None:
    """An open makes the first screenful of top-level rows, the others after its first paint;
    a section among those is found at once, before the paint."""
    folder = tmp_path / ".agent" / "teams" / "wide"
    folder.mkdir(parents=True)
    gc = "---\nversion: GC-v3\n---\n\n# Wide\n\n" + "".join(
        f"## Area {n}\n- a-{n}: x\n\n### Detail {n}\n- d-{n}: y\n\n" for n in range(300)
    )
    (folder / "global-context.md").write_text(gc, encoding="utf-8")
    controller = Controller(controller_settings(tmp_path), headless=True)
    assert controller.open(folder)
    pane = controller.window.sections_pane
    assert controller.window.sections_pane.gc_model.rowCount() < 300  # not painted yet: the rest is put off
    pane.find_box.setText("Detail 297")
    assert _current_title(controller) == "Detail 297"
    assert controller.window.sections_pane.gc_view.currentIndex().parent().data() == "Area 297"
    controller.close()


def controller_settings(tmp_path: Path) -> Any:
    from PySide6.QtCore import QSettings

    from app.settings import AppSettings

    return AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


def _tree_refs(sections: list[dict[str, Any]], titles: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(the titles joined by ".", the § reference) of every section, depth first."""
    out: list[tuple[str, str]] = []
    for s in sections:
        path = (*titles, s["title"])
        out.append((".".join(path), s["ref"]))
        out += _tree_refs(s["children"], path)
    return out


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_the_cli_finds_what_a_filter_of_the_printed_tree_finds(
    capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    code, out, _ = run_cli(capsys, "inspect", str(source), "--json")
    assert code == 0
    tree = _tree_refs(json.loads(out)["gc"]["sections"])
    words = {w for path, _ in tree for w in path.split()[:2]}
    needles = [*sorted(words)[:8], "e", "§" + tree[-1][0].upper()]
    for needle in needles:
        plain = needle.lstrip("§").casefold()
        expected = [ref for path, ref in tree if plain in path.casefold() or plain in ref.casefold()]
        code, out, err = run_cli(capsys, "section", str(source), "--find", needle, "--json")
        assert [f["ref"] for f in json.loads(out)] == expected, needle
        assert code == (0 if expected else 1)
        code, out, err = run_cli(capsys, "section", str(source), "--find", needle)
        assert [line.split("\t")[0] for line in out.splitlines()] == expected
        assert err == ("" if expected else f"no section's title or reference holds {needle!r}\n")


def test_section_wants_a_reference_or_find_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    for args in ((), ("§Scope", "--find", "x")):
        code, out, err = run_cli(capsys, "section", str(COW), *args)
        assert (code, out) == (2, "")
        assert err == "lead-console: section: give a § reference or --find TEXT (one of the two)\n"


def test_ctrl_f_in_the_tree_finds_sections_and_elsewhere_memory(qtbot: QtBot, tmp_path: Path) -> None:
    controller = _window(qtbot, tmp_path, copy_session(COW, tmp_path / "s"))
    w = controller.window
    w.sections_pane.gc_view.setFocus()
    qtbot.keyClick(w.sections_pane.gc_view, Qt.Key.Key_F, CTRL)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.sections_pane.find_box)
    w.teammates_pane.teammate_view.setFocus()
    qtbot.keyClick(w.teammates_pane.teammate_view, Qt.Key.Key_F, CTRL)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.memory_pane.search_box)
    controller.close()
