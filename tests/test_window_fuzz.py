"""The window opens damaged copies of every real session without a traceback.

The CLI's fuzz (``bench.fuzz``) runs every subcommand on damaged copies; the window opens
them too. A snapshot the composer could not read made ``Controller.open`` raise, which that
fuzz did not see. Each session meets each kind of damage on one of the fuzz's targets (the
GC, the plan, TEAM-MEMORY, an inbox reply, a gate record, a snapshot); the window must open
it (or refuse in one line), show what is wrong somewhere a person can read it, and write
nothing to the session but the app's own state.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.settings import AppSettings
from bench.fuzz import DAMAGE, TARGETS, damage_at, sessions, tree
from conftest import settle_reviews

APP_OWNED = (".lead-console", "messages/ledger.jsonl")  # the app's own state, written on open


def _session_files(folder: Path) -> dict[str, object]:
    return {k: v for k, v in tree(folder).items() if not k.startswith(APP_OWNED)}


@pytest.mark.parametrize("session", sessions(), ids=lambda p: p.name)
def test_the_window_opens_every_damaged_copy(qtbot: QtBot, tmp_path: Path, session: Path) -> None:
    rng = random.Random(f"window fuzz {session.name}")
    messages: list[str] = []
    controller = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(controller.window)
    controller._error = messages.append  # type: ignore[method-assign]
    controller.window.confirm_discard = lambda: True  # type: ignore[method-assign]
    opened = 0
    try:
        for n, (name, damage) in enumerate(DAMAGE.items()):
            copy = tmp_path / f"{n}" / ".agent" / "teams" / session.name
            shutil.copytree(session, copy, symlinks=True)
            target = rng.choice(TARGETS)
            damage_at(copy / target, damage)
            before = _session_files(copy)
            messages.clear()
            if controller.open(copy):
                opened += 1
                settle_reviews(qtbot, controller)
                controller.window.context_pane.wait()
            else:
                assert len(messages) == 1 and "\n" not in messages[0], (name, target, messages)
            assert _session_files(copy) == before, (name, target)
    finally:
        controller.window.context_pane.wait()
        controller.close()
    assert opened >= len(DAMAGE) // 2


def test_markdown_nested_past_what_the_renderer_follows_is_shown_as_written() -> None:
    """The damage that found it: a list three thousand levels deep made Python-Markdown
    recurse past Python's limit while the window rendered the preview."""
    from models.text.markdown_html import render_markdown

    text = "# x\n" + "- " * 3000 + "deep <b>&</b>\n"
    shown = render_markdown(text)
    assert shown.startswith("<p><i>Nested too deeply to show as Markdown; shown as written.</i></p><pre>")
    assert "deep &lt;b&gt;&amp;&lt;/b&gt;" in shown and "<b>" not in shown
    assert render_markdown("- a\n- b\n") == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"  # the rest renders as before
