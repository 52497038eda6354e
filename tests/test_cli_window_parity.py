"""Every job of the window also exists in the CLI, and both must say the same thing.

On every real session and the demo, ``lead-console plan --new DRAFT --json`` (what a script or
an LLM Lead reads) must give each teammate the decision, reasons, base version and message
size the composer shows in the window for the same draft: at first the GC as it is on disk,
which publishing would call the next version.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.controller import Controller
from conftest import DEMO, REAL_SESSIONS, settle_reviews, shown_controller

SESSIONS = sorted([*(p for p in REAL_SESSIONS.iterdir() if p.is_dir()), DEMO])


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> object:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _window(qtbot: QtBot, tmp_path: Path, folder: Path) -> Controller:
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    controller.window.central_tabs.setCurrentWidget(controller.window.composer)  # the composer in front
    qtbot.waitUntil(lambda: controller.window.composer.plan is not None, timeout=5000)
    return controller


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_the_cli_plans_what_the_composer_shows(
    qtbot: QtBot, tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    controller = _window(qtbot, tmp_path, folder)
    try:
        composer, plan = controller.window.composer.composer, controller.window.composer.plan
        assert composer is not None and plan is not None
        draft = tmp_path / "draft.md"  # outside the session: the window does not follow it
        draft.write_text(composer.working_text, encoding="utf-8")
        printed = _cli(capsys, "plan", str(folder), "--new", str(draft))
        shown = [
            {
                "role": d.role,
                "mode": d.mode,
                "base_version": d.base_version,
                "tokens": d.tokens,
                "conditions": [{"code": c.code, "reason": c.reason} for c in d.conditions],
            }
            for d in plan.decisions
        ]
        assert isinstance(printed, dict)
        said = [
            {k: t[k] for k in ("role", "mode", "base_version", "tokens", "conditions")} for t in printed["teammates"]
        ]
        assert said == shown
        assert (printed["current_version"], printed["full_tokens"], printed["frozen"]) == (
            plan.current_version,
            plan.full_tokens,
            plan.frozen,
        )
    finally:
        controller.window.context_pane.wait()
        controller.close()


def _tree(model: QAbstractItemModel, columns: int, parent: QModelIndex | None = None) -> list[object]:
    """Each row's cells as the view shows them, and its children."""
    parent = parent or QModelIndex()
    rows: list[object] = []
    for r in range(model.rowCount(parent)):
        if model.canFetchMore(model.index(r, 0, parent)):
            model.fetchMore(model.index(r, 0, parent))
        cells = [model.index(r, c, parent).data() for c in range(columns)]
        rows.append((cells, _tree(model, columns, model.index(r, 0, parent))))
    return rows


def _sections(sections: list[dict[str, object]]) -> list[object]:
    """``inspect``'s GC sections written as the section tree shows them."""
    return [
        ([s["title"], f"{s['tokens']:,}", str(s["items"]) if s["items"] else ""], _sections(s["children"]))  # type: ignore[arg-type]
        for s in sections
    ]


def _version(number: object) -> str:
    return f"GC-v{number}" if number is not None else "—"


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_inspect_says_what_the_window_shows(
    qtbot: QtBot, tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lead-console inspect --json`` and the window, on every real session and the demo: the
    GC's section tree with tokens and item counts, each teammate's versions, state and where
    it was named, TEAM-MEMORY's sections with their entry counts, and the gates."""
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    printed = _cli(capsys, "inspect", str(folder))
    assert isinstance(printed, dict)
    controller = shown_controller(qtbot, tmp_path)
    try:
        assert controller.open(folder)
        settle_reviews(qtbot, controller)
        w = controller.window
        if printed["gc"] is not None:
            assert _tree(w.sections_pane.gc_model, 3) == _sections(printed["gc"]["sections"])
        else:
            assert w.sections_pane.gc_model.rowCount() == 0
        team = w.teammates_pane.teammate_model
        columns = {name: n for n, name in enumerate(team.headers)}
        shown = [
            {name: team.index(r, columns[name]).data() for name in ("Teammate", "Confirmed", "Last sent", "State")}
            | {"Sources": team.index(r, columns["Sources"]).data()}
            for r in range(team.rowCount())
        ]
        said = [
            {
                "Teammate": t["role"],
                "Confirmed": _version(t["confirmed"]),
                "Last sent": _version(t["sent"]),
                "State": t["state"] if t["receives_updates"] else f"{t['state']} (not sent)",
                "Sources": ", ".join(t["sources"]),
            }
            for t in printed["teammates"]
        ]
        assert sorted(shown, key=lambda row: str(row["Teammate"])) == sorted(said, key=lambda row: str(row["Teammate"]))
        memory = printed["memory"]
        headers = [w.memory_pane.memory_model.index(r, 0).data() for r in range(w.memory_pane.memory_model.rowCount())]
        assert len(headers) == (len(memory["sections"]) if memory else 0)
        for header, section in zip(headers, memory["sections"] if memory else [], strict=True):
            assert str(header).startswith(section["header"]) and str(header).endswith(f"({section['entries']})")
        gates = [
            (w.gates_pane.gate_model.index(r, 0).data(), w.gates_pane.gate_model.index(r, 1).data())
            for r in range(w.gates_pane.gate_model.rowCount())
        ]
        assert [(str(g["phase"]), g["verdict"]) for g in printed["gates"]] == [(str(p), v) for p, v in gates]
    finally:
        controller.window.context_pane.wait()
        controller.close()


@pytest.mark.parametrize("source", [s for s in SESSIONS if (s / "TEAM-MEMORY.md").is_file()], ids=lambda p: p.name)
def test_memory_check_and_the_memory_pane_name_the_same_problems(
    qtbot: QtBot, tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What ``lead-console memory check`` finds wrong with TEAM-MEMORY as read (the file's own
    problems, the sections ADR-001 §4 asks for that it lacks), the memory pane's banner says;
    and the banner is hidden when the check finds nothing. (The line limit is the pane's line
    count, in red past 500; unknown tags are the tag filter's; lost entries its loss warning.)"""
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    capsys.readouterr()
    code = main(["memory", "check", str(folder), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == (1 if printed["problems"] else 0)  # 1: the check found something
    said = [p for p in printed["problems"] if not p.startswith(("entry lost", "## ")) and "lines, over" not in p]
    controller = shown_controller(qtbot, tmp_path)
    try:
        assert controller.open(folder)
        banner = controller.window.memory_pane.memory_banner
        assert banner.isVisibleTo(controller.window) == bool(said)
        for problem in said:
            assert problem.split(": ", 1)[-1] in banner.text(), problem
    finally:
        controller.window.context_pane.wait()
        controller.close()
