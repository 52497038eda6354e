"""``lead-console memory show`` against the memory pane: the same filter (tag, search, archived)
picks the same entries, and the CLI prints them as the pane's Copy gives them, each section's
heading above its entries. On the demo and every real session with a TEAM-MEMORY.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO, REAL_SESSIONS, copy_session, run_cli, shown_controller

SESSIONS = [DEMO, *sorted(p for p in REAL_SESSIONS.iterdir() if (p / "TEAM-MEMORY.md").is_file())]
SELECT = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows


def _copy_every_row_shown(controller: Controller) -> str:
    """Every entry the pane shows selected (the sections' rows not), then Copy as written."""
    pane = controller.window.memory_pane
    model, selection = pane.memory_model, pane.memory_view.selectionModel()
    selection.clear()
    for row in range(model.rowCount()):
        section = model.index(row, 0)
        while model.canFetchMore(section):
            model.fetchMore(section)
        for child in range(model.rowCount(section)):
            selection.select(model.index(child, 0, section), SELECT)
    return pane.copy_selected()


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_memory_show_picks_and_prints_what_the_pane_shows_and_copies(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    folder = copy_session(source, tmp_path / "project")
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    pane = controller.window.memory_pane
    tags = [pane.tag_box.itemText(n) for n in range(1, pane.tag_box.count())]
    used = sorted({e.tag for s in controller.live.session.memory.sections for e in s.entries if e.tag})  # type: ignore[union-attr]
    queries: list[tuple[str | None, str, bool]] = [(None, "", True), (None, "", False), (None, "the", True)]
    queries += [(tag, "", True) for tag in used if tag in tags]
    compared = 0
    for tag, search, archived in queries:
        pane.tag_box.setCurrentText(tag or pane.tag_box.itemText(0))
        pane.search_box.setText(search)
        pane.archived_box.setChecked(archived)
        copied = _copy_every_row_shown(controller)
        args = ["memory", "show", str(folder)]
        args += [*(["--tag", tag.lower()] if tag else []), *(["--search", search] if search else [])]
        args += [] if archived else ["--no-archived"]
        code, out, _ = run_cli(capsys, *args)
        assert code == 0
        entries = "".join(line for line in out.splitlines(keepends=True) if not line.startswith("#"))
        assert entries == copied + ("\n" if copied and not copied.endswith("\n") else ""), (tag, search, archived)
        compared += bool(copied)
    assert compared >= 2  # every file has entries the first two queries show
    controller.close()


def test_memory_show_of_a_session_without_the_file_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = REAL_SESSIONS / "dia-v5-optimization"
    assert not (folder / "TEAM-MEMORY.md").exists()
    code, out, err = run_cli(capsys, "memory", "show", str(folder))
    assert code == 2 and out == ""
    assert err == f"lead-console: {folder.resolve() / 'TEAM-MEMORY.md'}: no such file\n"  # the folder as resolved
