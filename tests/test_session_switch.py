"""Switching sessions releases the old ones: sessions, their watchers and their threads (issue 16)."""

from __future__ import annotations

import gc
import shutil
import threading
import weakref
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO, REAL_SESSIONS


def _holders(obj: object, skip: frozenset[int], depth: int = 3) -> str:
    """What holds ``obj``, ``depth`` referrers up: a session left alive is only fixed by
    knowing who keeps it."""
    lines: list[str] = []

    def walk(target: object, level: int) -> None:
        for holder in gc.get_referrers(target)[:8]:
            if id(holder) in skip or holder is lines or type(holder).__name__ == "frame":
                continue
            lines.append("  " * level + f"{type(holder).__module__}.{type(holder).__qualname__}: {repr(holder)[:100]}")
            if level + 1 < depth:
                walk(holder, level + 1)

    walk(obj, 0)
    return "\n".join(lines)


def _settle() -> None:
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    gc.collect()


def test_six_switches_leave_one_session_one_watcher_alive(qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    folders = []
    for n, source in enumerate([DEMO, *sorted(p for p in REAL_SESSIONS.iterdir() if p.is_dir())][:7]):
        target = tmp_path / f"p{n}" / ".agent" / "teams" / source.name
        shutil.copytree(source, target)
        folders.append(target)
    threads_before = set(threading.enumerate())  # the threads themselves: an ident is reused once its thread ends
    lives, sessions = [], []
    for folder in folders:
        assert controller.open(folder)
        assert controller.live is not None
        lives.append(weakref.ref(controller.live))
        sessions.append(weakref.ref(controller.live.session))
    controller.window.context_pane.wait()
    controller.team.pool.waitForDone(5000)
    controller.reviewer.wait()  # an Inbox pass still running holds the session it reads
    # The watch begins a turn of the event loop after the open; the five sessions left in
    # the same turn as their open never begin one.
    qtbot.waitUntil(lambda: controller.live is not None and controller.live.watcher is not None, timeout=5000)
    _settle()
    alive = [ref() for ref in lives if ref() is not None]
    assert alive == [controller.live]  # only the open session's LiveSession is left
    live = controller.live
    assert live is not None
    left = [ref() for ref in sessions if ref() is not None and ref() is not live.session]
    assert left == [], _holders(left[0], frozenset({id(left), id(sessions)}))
    observers = [
        t
        for t in threading.enumerate()
        if t not in threads_before and t.is_alive() and type(t).__module__.startswith("watchdog.")
    ]
    # One watchdog observer for the open session's folder (its observer, emitter and inotify
    # reader threads); none for the six sessions left. Only watchdog's threads are counted: a
    # worker an earlier test's window starts late (its journal look) is no watcher.
    assert len(observers) <= 3, [t.name for t in observers]
    assert sum(1 for t in observers if type(t).__name__.endswith("Observer")) == 1


def test_open_recent_asks_before_it_drops_an_unpublished_draft(
    qtbot: QtBot, controller: Controller, demo_copy: Path, tmp_path: Path
) -> None:
    """Issue 42.1: File ▸ Open Recent discarded the composer's draft without asking (Quit asked)."""
    from composer_steps import Q2_END, composer_pane, select_section, type_into_section

    from conftest import copy_session

    other = copy_session(REAL_SESSIONS / "ch006-dia-v4", tmp_path / "other")
    window = controller.window
    window.menus.set_recent([other])
    pane = composer_pane(controller)
    window.central_tabs.setCurrentWidget(pane)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: a draft\n")
    asked: list[bool] = []
    window.confirm_discard = lambda: asked.append(False) or False  # type: ignore[method-assign]
    (recent,) = window.menus.recent_menu.actions()
    recent.trigger()
    assert asked == [False]
    assert controller.live is not None and controller.live.session.folder == demo_copy.resolve()
    assert "- Q-3: a draft" in pane.composer.working_text  # type: ignore[union-attr]
    window.confirm_discard = lambda: asked.append(True) or True  # type: ignore[method-assign]
    recent.trigger()
    assert asked == [False, True]
    assert controller.live.session.folder == other.resolve()
