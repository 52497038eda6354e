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
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.controller import Controller
from conftest import DEMO, REAL_SESSIONS, shown_controller

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
