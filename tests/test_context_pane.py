"""The Context pane: link teammates, compose in the background, trust generators, team costs."""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import pytest
import yaml
from pytestqt.qtbot import QtBot

import ui.panes.context_pane as pane_module
from app.controller import Controller
from models.context.links import LINKS_FILE
from ui.node_model import PAYLOAD_ROLE


def _agent(tmp_path: Path) -> tuple[Path, Path]:
    home, cwd = tmp_path / "impl3-home", tmp_path / "impl3-work"
    home.mkdir()
    cwd.mkdir()
    (home / "system_prompt.md").write_text("You implement projection/.\n" * 50, encoding="utf-8")
    (home / "gen.py").write_text(
        "import pathlib, os\np = pathlib.Path(os.environ['DELTA_CWD']) / 'out.md'\np.write_text('generated notes\\n')\n",
        encoding="utf-8",
    )
    (home / "context.yaml").write_text(
        "sources:\n"
        "  - type: file\n    id: system_prompt\n    path: ${AGENT_HOME}/system_prompt.md\n"
        f"  - type: computed_file\n    id: notes\n    generator:\n      command: [{sys.executable!r}, '${{AGENT_HOME}}/gen.py']\n"
        "    output_path: ${CWD}/out.md\n",
        encoding="utf-8",
    )
    return home, cwd


def test_link_compose_trust_and_team_view(
    qtbot: QtBot, controller: Controller, demo_copy: Path, tmp_path: Path
) -> None:
    pane = controller.window.context_pane
    home, cwd = _agent(tmp_path)
    pane.teammate.setCurrentText("implementer-3")
    with qtbot.waitSignal(pane.composed, timeout=10_000):
        pane.link("implementer-3", home, cwd)
    links = yaml.safe_load((demo_copy / LINKS_FILE).read_text(encoding="utf-8"))
    assert links == {"implementer-3": {"agent_home": str(home), "workspace": str(cwd)}}
    statuses = [pane.blocks.index(r, 2).data() for r in range(pane.blocks.rowCount())]
    assert statuses == ["ok", "refused"]
    assert pane.trust_button.isEnabled() and not (cwd / "out.md").exists()
    first = pane.blocks.index(0, 0)
    assert pane.blocks.rowCount(first) > 0  # expandable: the block's first lines
    assert "█" in pane.blocks.index(0, 4).data()

    pane.confirm = lambda box: True  # type: ignore[method-assign]
    with qtbot.waitSignal(pane.composed, timeout=10_000):
        pane._ask_trust()
    statuses = [pane.blocks.index(r, 2).data() for r in range(pane.blocks.rowCount())]
    assert statuses == ["ok", "ok"] and (cwd / "out.md").exists()

    team = {pane.team.index(r, 0).data(): pane.team.index(r, 0).data(PAYLOAD_ROLE) for r in range(pane.team.rowCount())}
    assert set(team) == {"implementer-1", "implementer-2", "implementer-3", "implementer-4", "researcher-1"}
    _role, home_text, context, gc, memory = team["implementer-3"]
    assert home_text == str(home) and context is not None and context > 0 and gc > 2000 and memory > 0
    assert team["implementer-1"][2] is None  # unlinked
    assert pane.team.index(0, 0).data() == "implementer-3"  # the biggest consumer first
    row = next(r for r in range(pane.team.rowCount()) if pane.team.index(r, 0).data() == "implementer-1")
    assert pane.team.index(row, 1).data() == "unlinked"


def test_changed_context_yaml_asks_again(qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    pane = controller.window.context_pane
    home, cwd = _agent(tmp_path)
    pane.teammate.setCurrentText("implementer-3")
    with qtbot.waitSignal(pane.composed, timeout=10_000):
        pane.link("implementer-3", home, cwd)
    pane.confirm = lambda box: True  # type: ignore[method-assign]
    with qtbot.waitSignal(pane.composed, timeout=10_000):
        pane._ask_trust()
    (home / "context.yaml").write_text(
        (home / "context.yaml").read_text(encoding="utf-8") + "# edited\n", encoding="utf-8"
    )
    with qtbot.waitSignal(pane.composed, timeout=10_000):
        pane.link("implementer-3", home, cwd)
    statuses = [pane.blocks.index(r, 2).data() for r in range(pane.blocks.rowCount())]
    assert statuses == ["ok", "refused"]  # a different file: trust is asked again


def test_a_failed_compose_says_so_and_a_late_result_from_another_session_is_dropped(
    qtbot: QtBot, controller: Controller, demo_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 16: an exception in the worker ends "Composing…" with the reason; a result that
    arrives after the Lead switched sessions is not shown for the new one."""
    pane = controller.window.context_pane
    home, cwd = _agent(tmp_path)

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("the agent home vanished")

    monkeypatch.setattr(pane_module, "compose", broken)
    pane.teammate.setCurrentText("implementer-3")
    pane.link("implementer-3", home, cwd)
    qtbot.waitUntil(lambda: pane.status.text() == "Composing implementer-3 failed: the agent home vanished")

    gate = threading.Event()

    def slow(*args: object, **kwargs: object) -> object:
        gate.wait(10)
        raise RuntimeError("from the session left behind")

    monkeypatch.setattr(pane_module, "compose", slow)
    pane.refresh()
    pane._start("implementer-3")  # composing for the demo session...
    other = tmp_path / "other" / ".agent" / "teams" / demo_copy.name
    shutil.copytree(demo_copy, other)
    (other / LINKS_FILE).unlink()
    assert controller.open(other)  # ...while the Lead opens another one
    gate.set()
    pane.wait()
    qtbot.wait(50)
    assert "from the session left behind" not in pane.status.text()


def test_the_cli_links_and_lists_what_the_team_table_shows(
    qtbot: QtBot, demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lead-console contexts --link``: the link the pane's Link… saves, and the pane's team
    table as the pane shows it once it has composed (generators refused, as before trust)."""
    import json

    from app.cli.main import main
    from conftest import settle_reviews, shown_controller

    home, cwd = _agent(tmp_path)
    capsys.readouterr()
    args = ["contexts", str(demo_copy), "--link", f"implementer-3={home}", "--workspace", str(cwd), "--json"]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)["teammates"]
    links = yaml.safe_load((demo_copy / LINKS_FILE).read_text(encoding="utf-8"))
    assert links == {"implementer-3": {"agent_home": str(home), "workspace": str(cwd)}}
    assert not (cwd / "out.md").exists()  # no generator ran
    controller = shown_controller(qtbot, tmp_path)
    try:
        assert controller.open(demo_copy)
        settle_reviews(qtbot, controller)
        pane = controller.window.context_pane
        controller.window.context_dock.raise_()  # its tab in front: the pane composes and fills the table
        qtbot.waitUntil(lambda: "implementer-3" in pane.results, timeout=10_000)
        pane.refresh()
        shown = [pane.team.index(r, 0).data(PAYLOAD_ROLE) for r in range(pane.team.rowCount())]
    finally:
        controller.window.context_pane.wait()
        controller.close()
    assert [list(row) for row in shown] == [
        [t["role"], t["agent_home"], t["context"], t["gc"], t["memory"]] for t in printed
    ]
    assert printed[0]["role"] == "implementer-3" and printed[0]["context"] > 0  # the only one linked: the most
    assert all(t["context"] is None and t["agent_home"] == "" for t in printed[1:])


@pytest.mark.parametrize("trusted", [False, True], ids=["generators-refused", "trusted"])
def test_the_cli_composes_what_the_pane_shows(
    qtbot: QtBot,
    controller: Controller,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    trusted: bool,
) -> None:
    """``lead-console context HOME --cwd CWD [--allow-exec]``: the blocks the pane lists for a
    linked teammate, before and after Trust…, with their status and tokens."""
    import json

    from app.cli.main import main

    pane = controller.window.context_pane
    home, cwd = _agent(tmp_path)
    pane.teammate.setCurrentText("implementer-3")
    with qtbot.waitSignal(pane.composed, timeout=10_000):
        pane.link("implementer-3", home, cwd)
    if trusted:
        pane.confirm = lambda box: True  # type: ignore[method-assign]
        with qtbot.waitSignal(pane.composed, timeout=10_000):
            pane._ask_trust()
    shown = [tuple(pane.blocks.index(r, c).data() for c in range(4)) for r in range(pane.blocks.rowCount())]
    (cwd / "out.md").unlink(missing_ok=True)  # the CLI's generator writes it afresh
    capsys.readouterr()
    args = ["context", str(home), "--cwd", str(cwd), "--json", "--tokenizer", controller.settings.tokenizer]
    code = main([*args, *(["--allow-exec"] if trusted else [])])
    printed = json.loads(capsys.readouterr().out)["blocks"]
    assert code == 0  # a refused generator is said, not failed
    assert shown == [(b["id"], b["source"], b["status"], f"{b['tokens']:,}") for b in printed]
    assert [s[2] for s in shown] == (["ok", "ok"] if trusted else ["ok", "refused"])


def test_an_unlinked_teammate_is_said_so_in_sight_on_a_laptop(qtbot: QtBot, tmp_path: Path) -> None:
    """At 1366×768 the Context pane is about 460 pixels wide: the status at the end of its
    button row went behind the row's » menu, and an unlinked teammate's empty table said
    nothing."""
    from conftest import DEMO, activate, copy_session, shown_controller

    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(copy_session(DEMO, tmp_path / "demo"))
    from PySide6.QtCore import Qt

    window = controller.window
    activate(qtbot, window)  # keys go to the active window
    qtbot.keyClick(window, Qt.Key.Key_6, Qt.KeyboardModifier.ControlModifier)  # the Context pane forward
    pane = window.context_pane
    qtbot.waitUntil(lambda: pane.isVisible() and not pane.visibleRegion().isEmpty())
    pane.teammate.setCurrentText("researcher-1")  # the demo links implementer-3 only
    qtbot.waitUntil(lambda: pane.status.text() == "researcher-1 is not linked to an agent home")
    assert pane.status.isVisible()
    shown = pane.status.visibleRegion().boundingRect()
    assert shown.width() >= pane.status.fontMetrics().horizontalAdvance(pane.status.text())
    controller.close()


def test_the_team_row_cut_by_the_narrow_dock_is_read_whole_under_it(qtbot: QtBot, tmp_path: Path) -> None:
    """Issue 42.9: at 1366×768 the team table's last columns (TEAM-MEMORY, Total) lie past the
    dock's edge; a click on a row writes every column of it, titled, under the table."""
    from PySide6.QtCore import Qt

    from conftest import DEMO, activate, copy_session, shown_controller

    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(copy_session(DEMO, tmp_path / "demo"))
    window = controller.window
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_6, Qt.KeyboardModifier.ControlModifier)  # the Context pane forward
    pane = window.context_pane
    view, model = pane.team_view, pane.team
    qtbot.waitUntil(lambda: model.rowCount() == 5, timeout=10_000)  # the demo's five teammates
    total = model.headers.index("Total")
    qtbot.waitUntil(lambda: view.columnViewportPosition(total) + view.columnWidth(total) > view.viewport().width())
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "researcher-1")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(model.index(row, 0)).center())
    detail = pane.team_detail.toPlainText()
    assert detail.startswith("researcher-1 · Agent home: unlinked · ")  # the demo links implementer-3 only
    assert f"Total: {model.index(row, total).data()}" in detail
    assert pane.team_detail.horizontalScrollBar().maximum() == 0  # wrapped, not scrolled
    controller.close()
