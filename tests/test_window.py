"""The window: opening sessions, live updates from disk, broken files, settings, screenshot."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.gui import display_problem
from app.settings import AppSettings
from conftest import COW, ROOT
from ui.node_model import PAYLOAD_ROLE


@pytest.fixture
def settings(tmp_path: Path) -> AppSettings:
    return AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def controller(qtbot: QtBot, settings: AppSettings) -> Controller:
    ctl = Controller(settings, headless=True)
    qtbot.addWidget(ctl.window)
    yield ctl
    ctl.close()


def _memory_texts(ctl: Controller) -> list[str]:
    model = ctl.window.memory_pane.memory_model
    out = []
    for r in range(model.rowCount()):
        section = model.index(r, 0)
        out += [model.index(c, 0, section).data(PAYLOAD_ROLE).text for c in range(model.rowCount(section))]
    return out


def test_opens_the_demo_and_fills_every_pane(controller: Controller, demo_copy: Path) -> None:
    assert controller.open(demo_copy)
    w = controller.window
    session = controller.live.session  # type: ignore[union-attr]
    assert w.sections_pane.gc_model.rowCount() == len(session.gc.sections) == 13  # type: ignore[union-attr]
    assert w.teammates_pane.teammate_model.rowCount() == 5
    assert w.gates_pane.gate_model.rowCount() == 5
    assert w.memory_pane.memory_model.rowCount() == 8
    assert w.status_line.version.text() == "GC-v6"
    assert "2,522 tokens (o200k_base)" in w.status_line.tokens.text()
    assert w.windowTitle() == "Lead Console — payments-ledger-v2"
    assert w.memory_pane.line_count.text() == "43 / 500 lines"
    assert "Global Context — Payments Ledger v2" in w.preview.toPlainText()


def test_selecting_a_section_previews_it(controller: Controller, demo_copy: Path) -> None:
    controller.open(demo_copy)
    w = controller.window
    index = w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Architecture Decisions")
    w.sections_pane.gc_view.setCurrentIndex(index)
    assert w.preview_title.text().startswith("§Architecture Decisions · 403 tokens")
    assert "D-8" in w.preview.toPlainText() and "Risks" not in w.preview.toPlainText()


def test_a_long_gc_previews_its_first_lines_and_says_how_many_it_has(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Past 20,000 characters the preview stops at a line end and says how many lines the
    whole GC body, or the selected section, holds: counted here from the file's lines.

    The part above the GC's last heading is on screen first; the rest, the long section and
    the line that says how many lines there are, follows the window's first paint."""
    gc_file = demo_copy / "global-context.md"
    gc_file.write_text(
        gc_file.read_text(encoding="utf-8") + "\n## Long Notes\n" + "".join(f"- note-{i}: kept\n" for i in range(1500)),
        encoding="utf-8",
    )
    lines = gc_file.read_text(encoding="utf-8").splitlines()
    body = lines.index("---", 1) + 1  # the line after the front matter's closing fence
    controller.open(demo_copy)
    w = controller.window
    first = w.preview.toPlainText()
    assert "Global Context — Payments Ledger v2" in first and "Long Notes" not in first and "note-0" not in first
    w.show()
    qtbot.waitUntil(lambda: "select a section to see it whole." in w.preview.toPlainText(), timeout=5000)
    shown = w.preview.toPlainText()
    assert f" of {len(lines) - body:,} lines; select a section to see it whole." in shown
    assert "Global Context — Payments Ledger v2" in shown and "note-1499" not in shown
    w.sections_pane.gc_view.setCurrentIndex(
        w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Long Notes")
    )
    assert f" of {len(lines) - lines.index('## Long Notes'):,} lines;" in w.preview.toPlainText()
    assert "- note-0: kept" not in w.preview.toPlainText()  # rendered as a list item
    assert "note-0: kept" in w.preview.toPlainText() and "note-1499" not in w.preview.toPlainText()


def test_agent_edit_of_team_memory_shows_up_live(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    controller.open(demo_copy)
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    anchor = "## implementer-2\n"
    with qtbot.waitSignal(
        controller.window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts
    ) as blocker:
        path.write_text(text.replace(anchor, anchor + "- [Finding] Live edits arrive\n"), encoding="utf-8")
    assert "memory" in blocker.args[0]
    assert "Live edits arrive" in _memory_texts(controller)
    assert controller.window.memory_pane.line_count.text() == "44 / 500 lines"


def test_team_memory_roles_reach_the_teammate_table_and_appends_leave_it(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """A TEAM-MEMORY section names a teammate (the demo's plan lists five); an append to an
    existing section changes no teammate, and the table is not gathered again for it."""
    controller.open(demo_copy)
    w = controller.window
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")

    def roles() -> list[str]:
        return [
            w.teammates_pane.teammate_model.index(r, 0).data()
            for r in range(w.teammates_pane.teammate_model.rowCount())
        ]

    assert "reviewer-9" not in roles()
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        path.write_text(text + "\n## reviewer-9\n- [Finding] joined late\n", encoding="utf-8")
    assert any(r.startswith("reviewer-9") for r in roles())
    gathered: list[object] = []
    real = w.teammates_pane.show_teammates
    w.teammates_pane.show_teammates = lambda session: gathered.append(real(session))  # type: ignore[method-assign]
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        path.write_text(
            text.replace("## implementer-2\n", "## implementer-2\n- [Finding] one more\n"), encoding="utf-8"
        )
    assert gathered == [None]  # reviewer-9's section went away with this write: gathered again
    assert not any(r.startswith("reviewer-9") for r in roles())
    gathered.clear()
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        path.write_text(
            text.replace("## implementer-2\n", "## implementer-2\n- [Finding] and more\n"), encoding="utf-8"
        )
    assert gathered == []  # the same roles: nothing to gather
    assert "and more" in _memory_texts(controller)


def test_the_teammate_table_follows_the_gc_version_not_every_gc_edit(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Of the GC, the teammate table shows who is behind its version: a bump on disk reaches it;
    an edit that keeps the version does not gather the teammates again."""
    controller.open(demo_copy)
    w = controller.window
    path = demo_copy / "global-context.md"
    text = path.read_text(encoding="utf-8")
    assert w.teammates_pane.teammate_model.current == 6
    gathered: list[object] = []
    real = w.teammates_pane.show_teammates
    w.teammates_pane.show_teammates = lambda session: gathered.append(real(session))  # type: ignore[method-assign]
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        path.write_text(text.replace("## Risks\n", "## Risks\n- budget: 2 engineers\n"), encoding="utf-8")
    assert gathered == []
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        path.write_text(text.replace("version: GC-v6", "version: GC-v7"), encoding="utf-8")
    assert gathered == [None] and w.teammates_pane.teammate_model.current == 7


def test_gc_bump_on_disk_keeps_the_selection(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    controller.open(demo_copy)
    w = controller.window
    w.sections_pane.gc_view.setCurrentIndex(
        w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Risks")
    )
    path = demo_copy / "global-context.md"
    text = path.read_text(encoding="utf-8").replace("version: GC-v6", "version: GC-v7")
    text = text.replace("## Scope\n", "## Summary\n- Status: on track\n\n## Scope\n")
    tmp = path.with_name("global-context.md.tmp.4242.1770515558129")
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)  # the way agents save: a temp file renamed over the original
    assert w.status_line.version.text() == "GC-v7"
    current = w.sections_pane.gc_view.currentIndex()
    assert current.isValid() and current.data() == "Risks"
    assert w.sections_pane.gc_model.index(0, 0).data() == "Summary"
    assert w.preview_title.text().startswith("§Risks")


def test_a_followed_file_is_fingerprinted_after_the_view_shows_it(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """The fingerprint our writes check against is worked out once the view shows the change,
    not before (6 ms of a 10 MB GC's follow-up): unsettled when the view updates, the file's
    SHA-256 right after."""
    import hashlib

    from models.text.textfile import Stamp

    controller.open(demo_copy)
    qtbot.waitUntil(lambda: controller.live.watcher is not None, timeout=5000)  # type: ignore[union-attr]
    path = demo_copy / "global-context.md"
    text = path.read_text(encoding="utf-8").replace("version: GC-v6", "version: GC-v7")
    session = controller.live.session  # type: ignore[union-attr]
    at_view: list[Stamp | None] = []
    controller.window.viewUpdated.connect(lambda _: at_view.append(session.stamps["global-context.md"]))
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        path.write_text(text, encoding="utf-8")
    stamp = session.stamps["global-context.md"]
    assert stamp is at_view[-1] and stamp is not None and stamp._sha256 is None
    qtbot.waitUntil(lambda: stamp._sha256 is not None, timeout=2000)
    assert stamp.sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest() and stamp._raw is None


def test_an_agent_edit_above_keeps_selection_scroll_and_preview(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """A follow-up of an edit inside one section touches that section's rows only: the Lead's
    selection below it, the tree's scroll position and the preview (moved down a line in the
    file) stay, and the edited section shows its new count."""
    controller.open(demo_copy)
    w = controller.window
    w.show()
    w.sections_pane.gc_view.setFixedHeight(140)  # a short tree, so that it scrolls
    qtbot.waitExposed(w)
    risks = w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Risks")
    w.sections_pane.gc_view.setCurrentIndex(risks)
    w.sections_pane.gc_view.scrollTo(risks)
    scroll = w.sections_pane.gc_view.verticalScrollBar().value()
    assert scroll > 0  # scrolled: the check below means something
    before_line = risks.data(PAYLOAD_ROLE).line
    path = demo_copy / "global-context.md"
    text = path.read_text(encoding="utf-8")
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        path.write_text(text.replace("## Scope\n", "## Scope\n- budget: two engineers\n"), encoding="utf-8")
    assert controller.live.session.gc.follow_up is not None  # type: ignore[union-attr]  # read from the last parse
    current = w.sections_pane.gc_view.currentIndex()
    assert current.isValid() and current.data() == "Risks"
    assert current.data(PAYLOAD_ROLE).line == before_line + 1  # the row shows the moved section
    assert w.sections_pane.gc_view.verticalScrollBar().value() == scroll
    assert w.preview_title.text().startswith("§Risks") and f"line {before_line + 2}" in w.preview_title.text()
    scope = w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Scope")
    assert scope.siblingAtColumn(2).data() == str(len(scope.data(PAYLOAD_ROLE).items))


def test_half_written_file_warns_and_keeps_the_last_good_view(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    controller.open(demo_copy)
    w = controller.window
    before = _memory_texts(controller)
    path = demo_copy / "TEAM-MEMORY.md"
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        path.write_bytes(path.read_bytes()[:200] + b"\xe2\x82")  # cut inside a UTF-8 sequence
    assert w.memory_pane.memory_banner.isVisibleTo(w)
    assert "not valid UTF-8" in w.memory_pane.memory_banner.text() and "last good" in w.memory_pane.memory_banner.text()
    assert _memory_texts(controller) == before
    assert "warnings" in w.status_line.problems.text()


def test_broken_plan_yaml_is_shown_in_the_teammates_pane(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    controller.open(demo_copy)
    w = controller.window
    path = demo_copy / "orchestration-plan.md"
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "plan" in parts):
        path.write_text(
            path.read_text(encoding="utf-8").replace("gc_version: GC-v6", "gc_version: [GC-v6"),
            encoding="utf-8",
        )
    assert "front matter is not valid YAML" in w.teammates_pane.plan_banner.text()
    assert w.teammates_pane.teammate_model.rowCount() == 5


def test_new_gate_record_and_teammate_folder_appear(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    controller.open(demo_copy)
    w = controller.window
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gates" in parts):
        (demo_copy / "phase-7" / "tester-1").mkdir(parents=True)
        (demo_copy / "phase-7" / "gate-record.yaml").write_text("phase: 7\nresult: APPROVED\n", encoding="utf-8")
    qtbot.waitUntil(lambda: w.gates_pane.gate_model.rowCount() == 6, timeout=3000)
    qtbot.waitUntil(lambda: w.teammates_pane.teammate_model.rowCount() == 6, timeout=3000)


def test_settings_keep_recent_sessions_tokenizer_and_layout(
    qtbot: QtBot, settings: AppSettings, demo_copy: Path, cow_copy: Path
) -> None:
    first = Controller(settings, headless=True)
    qtbot.addWidget(first.window)
    first.open(demo_copy)
    first.open(cow_copy)  # a copy: an open writes TEAM-MEMORY's journal into the session folder
    first.set_tokenizer("cl100k_base")
    assert "(cl100k_base)" in first.window.status_line.tokens.text()
    first.window.memory_pane.archived_box.setChecked(False)
    first.window.close()
    first.close()
    again = Controller(settings, headless=True)
    qtbot.addWidget(again.window)
    assert settings.recent_sessions()[:2] == [cow_copy.resolve(), demo_copy.resolve()]
    assert settings.tokenizer == "cl100k_base"
    assert not again.window.memory_pane.archived_box.isChecked()
    assert next(a.text() for a in again.window.menus.recent_menu.actions()).startswith("&1 cow-pipeline-redesign")
    again.close()


def test_opening_a_folder_without_a_session_keeps_the_current_one(
    controller: Controller, demo_copy: Path, tmp_path: Path
) -> None:
    controller.open(demo_copy)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not controller.open(empty)
    assert controller.live is not None and controller.live.session.folder == demo_copy.resolve()


@pytest.mark.parametrize("how", ["script", "module"])
def test_no_display_gives_one_clear_line_naming_the_command_as_typed(how: str) -> None:
    """The README's command is ``.venv/bin/lead-console`` (not on PATH): the line says to run
    that again under xvfb-run, not a bare ``lead-console`` the shell cannot find."""
    assert display_problem({"DISPLAY": ":0"}) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    script = str(Path(sys.executable).with_name("lead-console"))
    command = [script] if how == "script" else [sys.executable, "-m", "app"]
    typed = script if how == "script" else f"{sys.executable} -m app"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT)}
    result = subprocess.run([*command, str(COW)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "lead-console: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). "
        f"Run it on a desktop, under `xvfb-run -a {typed}`, or render the window to a PNG "
        f"with `{typed} --screenshot OUT.png [FOLDER]`."
    ]


def test_screenshot_renders_a_png(tmp_path: Path, cow_copy: Path) -> None:
    out = tmp_path / "shot.png"
    result = subprocess.run(
        [sys.executable, "-m", "app", "--screenshot", str(out), str(cow_copy)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_the_window_fits_a_laptop_screen(qtbot: QtBot, controller: Controller) -> None:
    """Issue 13.4, in part: every dock's buttons may shrink, so the window's minimum fits 1366
    pixels; a saved size larger than the screen is brought back within it."""
    from PySide6.QtCore import QByteArray

    w = controller.window
    assert w.minimumSizeHint().width() <= 1366 - 100
    room = w.screen().availableGeometry()
    w.resize(room.width() + 800, room.height() + 600)
    w.move(room.x() + 500, room.y() + 500)
    w.settings.setValue("window/geometry", QByteArray(w.saveGeometry()))
    w.restore_layout()
    # The offscreen screen is 800 pixels wide, under the window's minimum: as narrow as allowed.
    assert w.width() <= max(room.width(), w.minimumSizeHint().width()) and w.height() <= room.height()
    assert room.contains(w.frameGeometry().topLeft())


def test_an_outside_write_that_drops_gc_items_is_named(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    """Issue 13.6: as for TEAM-MEMORY, a GC write that takes items away says which."""
    assert controller.open(demo_copy)  # this file's controller starts with no session
    w = controller.window
    gc = demo_copy / "global-context.md"
    text = gc.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| D-7 |"))
    gc.write_text(text.replace(row + "\n", ""), encoding="utf-8")
    qtbot.waitUntil(
        lambda: "an outside write removed §Architecture Decisions: D-7" in w.sections_pane.gc_banner.text(),
        timeout=5000,
    )
    gc.write_text(text, encoding="utf-8")  # put back: nothing removed by this write
    qtbot.waitUntil(lambda: "removed" not in w.sections_pane.gc_banner.text(), timeout=5000)
    # Twelve rows of the decisions table taken away: ten are named, and the rest counted in a
    # line that says what it counts.
    rows = [line for line in text.splitlines(keepends=True) if re.match(r"\| [A-Z]+-\d+ \|", line)][:12]
    assert len(rows) == 12
    gc.write_text("".join(line for line in text.splitlines(keepends=True) if line not in rows), encoding="utf-8")
    qtbot.waitUntil(lambda: "more items" in w.sections_pane.gc_banner.text(), timeout=5000)
    lines = [line for line in w.sections_pane.gc_banner.text().splitlines() if "outside write" in line]
    assert len(lines) == 11 and lines[-1].endswith("an outside write removed 2 more items")


def test_with_no_snapshot_the_gc_on_disk_is_the_base(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    """The demo's GC says GC-v6; with no snapshot of it, it is what teammates hold, and the
    message of an edit is the delta from it to GC-v7 (``test_first_publish.py`` publishes one)."""
    import shutil

    shutil.rmtree(demo_copy / "gc-history")
    assert controller.open(demo_copy)  # opened anew: a composer with no snapshot to start from
    pane = controller.window.composer
    assert pane.message.toPlainText() == ""
    assert pane.header.text().startswith("No gc-history snapshot: GC-v6 on disk is taken as the version")
