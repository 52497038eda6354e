"""Issue 18: the teammate table is gathered again after a TEAM-MEMORY write only when the
write changed what the table reads of it: the roles, and where the [REPLACED] sections stand.
An append read by re-reading one section keeps the roles, and is decided without reading the
sections; an append that moves a [REPLACED] section still gathers the table again."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.controller import Controller
from models.session.team_memory import MemorySection, TeamMemory


def _write_and_wait(qtbot: QtBot, controller: Controller, path: Path, text: str) -> None:
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        path.write_text(text, encoding="utf-8")


def _counting(controller: Controller, monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], list[object]]:
    """Calls of the teammate table's gathering, and the window's reads of TEAM-MEMORY's roles
    for deciding on it (other readers, the teammates' own, read them too), from here on."""
    gathered: list[object] = []
    walked: list[object] = []
    pane = controller.window.teammates_pane
    real_show = pane.show_teammates
    monkeypatch.setattr(pane, "show_teammates", lambda session: gathered.append(real_show(session)))
    real_roles = TeamMemory.roles

    def roles(memory: TeamMemory) -> Iterator[MemorySection]:
        if sys._getframe(1).f_code.co_name == "_memory_roles_changed":  # the window's own mark
            walked.append(memory)
        return real_roles(memory)

    monkeypatch.setattr(TeamMemory, "roles", roles)
    return gathered, walked


def test_an_append_above_a_replaced_section_gathers_the_table_again(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's TEAM-MEMORY has '## [REPLACED] implementer-4' below implementer-2: an
    append to implementer-2 moves it, and the table (which shows where it stands) follows."""
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    assert text.index("## implementer-2\n") < text.index("## [REPLACED] implementer-4\n")
    gathered, walked = _counting(controller, monkeypatch)
    _write_and_wait(qtbot, controller, path, text.replace("## implementer-2\n", "## implementer-2\n- [Finding] x\n"))
    memory = controller.live.session.memory  # type: ignore[union-attr]
    assert memory is not None and memory.follow_up is not None  # read from the last version
    assert gathered == [None] and walked


def test_an_append_without_replaced_sections_reads_no_section_for_the_table(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    # Without the [REPLACED] section (a whole read: a heading went), then two appends.
    text = text.replace("## [REPLACED] implementer-4\n", "### earlier notes of implementer-4\n")
    _write_and_wait(qtbot, controller, path, text)
    gathered, walked = _counting(controller, monkeypatch)
    for n in range(2):
        text = text.replace("## implementer-2\n", f"## implementer-2\n- [Finding] append {n}\n")
        _write_and_wait(qtbot, controller, path, text)
        memory = controller.live.session.memory  # type: ignore[union-attr]
        assert memory is not None and memory.follow_up is not None
    assert gathered == [] and walked == []
    roles = [controller.window.teammates_pane.teammate_model.index(r, 0).data() for r in range(5)]
    assert "implementer-2" in roles  # the table still holds what the session says


def test_whether_a_follow_up_keeps_what_memory_says_of_the_teammates() -> None:
    """``teammate_facts_kept``, which the composer and the team's columns go by: only a
    follow-up of one section's body that moves no [REPLACED] heading says of the teammates
    what the version before said. The expectations are read off each write by hand."""
    from models.session.memory_parse import parse_memory
    from models.session.team_memory import teammate_facts_kept

    text = (
        "# TEAM-MEMORY — roles\n\n## implementer-1\n- [Finding] one\n\n"
        "## implementer-2 [REPLACED]\n- [Finding] two\n\n## implementer-3\n- [Finding] three\n"
    )
    old = parse_memory(text)
    cases = [
        # an entry added below the [REPLACED] heading: nothing it cites moved
        (text + "- [Finding] four\n", True),
        # a line changed above it, the line count kept
        (text.replace("- [Finding] one", "- [Finding] one, edited"), True),
        # an entry added above it: its heading is now a line further down
        (text.replace("- [Finding] one\n", "- [Finding] one\n- [Finding] more\n"), False),
        # a heading changed: read whole, not a follow-up
        (text.replace("## implementer-3\n", "## implementer-3 [REPLACED]\n"), False),
        # a section for a new teammate
        (text + "\n## tester-1\n- [Finding] joined\n", False),
    ]
    for written, kept in cases:
        assert teammate_facts_kept(parse_memory(written, previous=old)) is kept, written
    assert teammate_facts_kept(old) is False  # read whole: nothing to compare with
    assert teammate_facts_kept(None) is False
