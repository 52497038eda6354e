"""``gate start|conclude``, ``baseline`` and ``teammate ROLE --state`` against the window's
Start gate…/Conclude gate…, Baseline… and the teammate table's state, on every real session.

Each session is copied twice; one copy is changed from the window, the other from the CLI, one
step after the other, and after every step both hold the same files, byte for byte, or both
refused with nothing written and the window said what the CLI said. The clock both read is
fixed, since gates write their times.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

import models.publish.publishing as publishing
import ui.composer.publish_actions as publish_actions
from app.controller import Controller
from conftest import (
    SESSIONS,
    actions_done,
    copy_session,
    run_cli,
    session_files,
    settle_reviews,
    shown_controller,
)
from models.session.folder import open_session
from models.text.tokens import get_tokenizer

NOW = "2026-11-24T07:00:00Z"
FOLDER = "FOLDER"


class _Both:
    """The two copies, the window on one of them, and what the window said went wrong."""

    def __init__(self, qtbot: QtBot, tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.by_cli, self.by_window = copy_session(source, tmp_path / "cli"), copy_session(source, tmp_path / "window")
        self.capsys, self.qtbot = capsys, qtbot
        self.controller: Controller = shown_controller(qtbot, tmp_path)
        assert self.controller.open(self.by_window)
        settle_reviews(qtbot, self.controller)
        self.errors: list[str] = []
        self.controller._error = self.errors.append  # type: ignore[method-assign]
        pane = self.controller.window.composer
        pane.error = self.errors.append  # type: ignore[method-assign]
        pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]

    def step(self, cli: list[str], window: Callable[[], object]) -> bool:
        """One job done both ways (``FOLDER`` in ``cli`` is the CLI's copy); whether it was done
        (else both refused)."""
        before = session_files(self.by_window)
        assert session_files(self.by_cli) == before
        code, _out, err = run_cli(self.capsys, *(str(self.by_cli) if a == FOLDER else a for a in cli))
        self.errors.clear()
        window()
        actions_done(self.qtbot, self.controller)
        if code == 0:
            assert not self.errors, self.errors
            assert session_files(self.by_window) == session_files(self.by_cli)
            return True
        assert code == 2 and err.startswith("lead-console: "), err
        assert session_files(self.by_window) == before and session_files(self.by_cli) == before
        said = err.removeprefix("lead-console: ").strip()
        assert any(said in e for e in self.errors), (said, self.errors)
        return False


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(publishing, "utc_now", lambda: NOW)
    monkeypatch.setattr(publish_actions, "utc_now", lambda: NOW)


@pytest.mark.usefixtures("clock")
@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_gates_are_started_and_concluded_as_the_window_does(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, source: Path
) -> None:
    both = _Both(qtbot, tmp_path, source, capsys)
    session = open_session(source, get_tokenizer("estimate"))
    phase = session.current_phase or 1  # what the window's Start gate… proposes
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (phase, True))
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("APPROVED", True))
    monkeypatch.setattr(QInputDialog, "getMultiLineText", lambda *a, **k: ("", True))  # no notes, as the CLI
    pane = both.controller.window.composer
    both.controller.window.central_tabs.setCurrentWidget(pane)  # its button is kept current when shown
    started = both.step(["gate", "start", FOLDER, "--phase", str(phase)], pane.session_actions.toggle_gate)
    assert started  # a plan to hold it in, or a new one (dia-v5-optimization has none)
    if started:
        assert "gate_evaluation" in (both.by_window / "orchestration-plan.md").read_text(encoding="utf-8")
        assert not pane.publish_button.isEnabled()
    both.step(["gate", "conclude", FOLDER, "--verdict", "APPROVED"], pane.session_actions.toggle_gate)
    if started:  # the record of the phase the gate evaluated, and the freeze lifted
        record = next(iter(sorted((both.by_window / f"phase-{phase}").glob("gate-record*.yaml"))[-1:]), None)
        assert record is not None and "result: APPROVED" in record.read_text(encoding="utf-8")
        assert "gate_evaluation" not in (both.by_window / "orchestration-plan.md").read_text(encoding="utf-8")


@pytest.mark.usefixtures("clock")
@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_a_baseline_is_taken_as_the_window_takes_it(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    both = _Both(qtbot, tmp_path, source, capsys)
    taken = both.step(["baseline", FOLDER], both.controller.window.composer.session_actions.baseline)
    history = both.by_window / "gc-history"
    assert taken is (history.is_dir() and any(history.glob("GC-v*.md")))


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_teammate_states_are_set_as_the_teammate_table_sets_them(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    both = _Both(qtbot, tmp_path, source, capsys)
    session = open_session(source, get_tokenizer("estimate"))
    roles = [m.role for m in session.teammates()]
    assert roles or source.name == "dia-v5-optimization", source.name  # its teammates are folders only
    for n, role in enumerate(roles):
        state = ("finished", "active", "idle", "shut down", "replaced")[n % 5]
        assert both.step(
            ["teammate", FOLDER, role, "--state", state], lambda r=role, s=state: both.controller.set_state(r, s)
        )
    mates = {m.role: m.state for m in open_session(both.by_window, get_tokenizer("estimate")).teammates()}
    assert {r: mates.get(r) for r in roles} == {
        role: ("finished", "active", "idle", "shut down", "replaced")[n % 5] for n, role in enumerate(roles)
    }
