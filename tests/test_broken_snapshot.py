"""A newest GC snapshot that cannot be read: the session still opens, and the composer says so.

``gc-history/GC-v6.md`` made a folder or written with bytes that are not UTF-8 made
``Composer.open`` raise, and with it opening the session in the window. It is still the
version last published (the update is GC-v7), but no delta can be computed from it: the
teammates that confirmed GC-v6 get the full GC, for the plan's own reason (NO-BASE).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO
from models.publish.composer import Composer
from models.session.folder import open_session
from models.text.tokens import get_tokenizer


def _broken(tmp_path: Path, kind: str) -> Path:
    folder = tmp_path / "broken" / ".agent" / "teams" / DEMO.name
    shutil.copytree(DEMO, folder)
    snapshot = folder / "gc-history" / "GC-v6.md"
    snapshot.unlink()
    if kind == "folder":
        snapshot.mkdir()
    else:
        snapshot.write_bytes(b"---\nversion: GC-v6\n---\n\xff not UTF-8\n")
    return folder


@pytest.mark.parametrize(
    ("kind", "why"),
    [("folder", "is a folder, not a file"), ("not-utf8", "not valid UTF-8 (byte 0xff at offset 23)")],
)
def test_the_composer_opens_on_a_snapshot_it_cannot_read(tmp_path: Path, kind: str, why: str) -> None:
    session = open_session(_broken(tmp_path, kind), get_tokenizer("o200k_base"))
    composer = Composer.open(session)
    assert (composer.base_version, composer.base_text, composer.new_version) == (6, None, 7)
    assert composer.base_problem == f"gc-history/GC-v6.md cannot be read ({why})"
    decisions = {d.role: d for d in composer.plan().decisions}
    for role in ("implementer-1", "implementer-2"):  # the demo's teammates that confirmed GC-v6
        assert decisions[role].mode == "full"
        assert [c.code for c in decisions[role].conditions] == ["NO-BASE"]


def test_the_window_opens_such_a_session_and_says_why(qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    assert controller.open(_broken(tmp_path, "folder"))
    banner = controller.window.composer.banner.text()
    assert "gc-history/GC-v6.md cannot be read (is a folder, not a file)" in banner
    assert "teammates that confirmed it get the full GC" in banner
