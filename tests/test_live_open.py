"""A session is followed from the moment it is read: the watch begins once the window shows
the open, and every part is read again then, so a write in between is not lost."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

import app.live_session as live_session
from app.live_session import LiveSession
from models.session.folder import Session, open_session
from models.text.tokens import Tokenizer, get_tokenizer

ANCHOR = "## implementer-2\n"
APPENDED = "- [Finding] written while the session was read\n"


def test_a_write_made_just_after_the_open_read_the_file_is_followed(
    qtbot: QtBot, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent appends to TEAM-MEMORY right after the open has read it, before the watch
    begins. A watch begun after the read, with nothing read again, never saw that write, and
    the view kept the version before it until the agent's next write."""
    path = demo_copy / "TEAM-MEMORY.md"

    def open_then_an_agent_writes(folder: Path, tokenizer: Tokenizer) -> Session:
        session = open_session(folder, tokenizer)
        text = path.read_text(encoding="utf-8")
        assert ANCHOR in text
        path.write_text(text.replace(ANCHOR, ANCHOR + APPENDED), encoding="utf-8")
        return session

    monkeypatch.setattr(live_session, "open_session", open_then_an_agent_writes)
    live = LiveSession(demo_copy, get_tokenizer("estimate"))
    try:
        memory = live.session.memory
        assert memory is not None and not any(APPENDED in s.body for s in memory.sections)  # read before the write
        with qtbot.waitSignal(live.changed, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
            pass
        memory = live.session.memory
        assert memory is not None
        assert [s.header for s in memory.sections if APPENDED in s.body] == ["implementer-2"]
    finally:
        live.close()


def test_the_open_fingerprints_its_files_after_the_window_shows_them(
    qtbot: QtBot, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks before our writes compare a file with the fingerprint of the bytes read.
    The open used to hash every file before anything was shown (12 ms on the ten-times
    session); now the hashing waits for the next turn of the event loop, as a follow-up's
    does, and gives the fingerprint of the same bytes."""
    hashed: list[int] = []
    real_sha256 = hashlib.sha256

    def counting_sha256(data: bytes) -> Any:
        hashed.append(len(data))
        return real_sha256(data)

    monkeypatch.setattr(hashlib, "sha256", counting_sha256)
    files = {name: (demo_copy / name).read_bytes() for name in ("global-context.md", "TEAM-MEMORY.md")}
    live = LiveSession(demo_copy, get_tokenizer("estimate"))
    try:
        assert not {len(raw) for raw in files.values()} & set(hashed)  # nothing of theirs hashed yet
        qtbot.waitUntil(lambda: {len(raw) for raw in files.values()} <= set(hashed), timeout=5000)
        for name, raw in files.items():
            stamp = live.session.stamps[name]
            assert stamp is not None and stamp.sha256 == real_sha256(raw).hexdigest(), name
    finally:
        live.close()
