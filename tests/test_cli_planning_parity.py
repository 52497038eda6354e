"""``lead-console planning --json`` against the Planning pane, on the three real GSD projects.

For every phase the pane offers, every agent type, and for the executor every plan of the
phase, the pane's rows (file, loaded, how, whole file, given), the text each file gives the
agent and the summary's token counts must be what the CLI prints for the same choice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from conftest import SHARED, run_cli
from models.text.tokens import get_tokenizer
from ui.panes.planning_pane import PlanningPane

PROJECTS = sorted(p for p in (SHARED / "gsd-projects").iterdir() if (p / ".planning").is_dir())


def _shown(pane: PlanningPane) -> list[tuple[object, ...]]:
    """Each row as the table shows it, with the text the pane shows for its file."""
    model, parts = pane.model, pane.parts()
    rows = []
    for row in range(model.rowCount()):
        cells = tuple(model.index(row, column).data() for column in range(model.columnCount()))
        rows.append((*cells, parts[str(cells[0])].text))
    return rows


def _printed(capsys: pytest.CaptureFixture[str], project: Path, agent: str, phase: str, plan: str | None) -> dict:
    args = ["planning", str(project), "--agent", agent, "--phase", phase, "--json"]
    code, out, err = run_cli(capsys, *args, *(["--plan", plan] if plan else []))
    assert code == 0, err
    data: dict = json.loads(out)
    return data


def _expected(data: dict) -> list[tuple[object, ...]]:
    return [
        (f["file"], f["status"], f["mode"], f"{f['full_tokens']:,}", f"{f['tokens']:,}", f["text"])
        for f in data["files"]
    ]


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_the_planning_pane_shows_what_the_cli_prints(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    pane = PlanningPane(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(pane)
    pane.set_tokenizer(get_tokenizer("o200k_base"))  # the CLI's default
    assert pane.open_project(project)
    compared = 0
    for p in range(pane.phase.count()):
        pane.phase.setCurrentIndex(p)
        phase = str(pane.phase.currentData())
        for a in range(pane.agent.count()):
            pane.agent.setCurrentIndex(a)
            agent = pane.agent.currentText()
            plans = range(pane.plan.count()) if agent == "gsd-executor" else range(1)
            for n in plans:
                pane.plan.setCurrentIndex(n)
                plan = pane.plan.currentData()
                data = _printed(capsys, project, agent, phase, plan)
                assert _shown(pane) == _expected(data), (agent, phase, plan)
                assert f"{data['full_tokens']:,} → {data['tokens']:,} tokens" in pane.summary.text()
                compared += 1
    assert compared >= pane.phase.count() * pane.agent.count()  # every phase, every agent type
