"""``lead-console publish`` against the composer's Publish, on every real session and the demo.

The same session, copied twice, adopted and with the same edit of its GC on disk: one copy
published from the window (Publish clicked, its review confirmed, with and without "Add ## Meta"),
the other from the CLI. The review is what ``--dry-run`` prints, and both leave the same files,
byte for byte, or refuse with the same reasons and write nothing.
The clock both read is fixed, since every publish writes its time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

import models.publish.publishing as publishing
from conftest import (
    SESSIONS,
    actions_done,
    edited_copy,
    run_cli,
    session_files,
    settle_reviews,
    shown_controller,
)

NOW = "2026-11-24T06:30:00Z"


@pytest.mark.parametrize("add_meta", [False, True], ids=["as-is", "add-meta"])
@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_the_cli_publishes_what_the_window_publishes(
    qtbot: QtBot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    source: Path,
    add_meta: bool,
) -> None:
    monkeypatch.setattr(publishing, "utc_now", lambda: NOW)
    by_cli, by_window = edited_copy(source, tmp_path / "cli"), edited_copy(source, tmp_path / "window")
    before = session_files(by_window)

    dry_code, dry_out, _ = run_cli(capsys, "publish", str(by_cli), "--dry-run")  # writes nothing
    args = ["publish", str(by_cli), *(["--add-meta"] if add_meta else [])]
    code, out, err = run_cli(capsys, *args)

    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(by_window)
    settle_reviews(qtbot, controller)
    pane = controller.window.composer
    errors: list[str] = []
    pane.error = errors.append  # type: ignore[method-assign]

    reviewed: list[str] = []

    def confirm(box: QMessageBox) -> QMessageBox.StandardButton:
        reviewed.append(box.detailedText())
        check = box.checkBox()
        if check is not None:
            check.setChecked(add_meta)
        return QMessageBox.StandardButton.Ok

    pane.confirm = confirm  # type: ignore[method-assign]
    published: list[object] = []
    pane.published.connect(published.append)
    if pane.publish_button.isEnabled():
        qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
        actions_done(qtbot, controller)
    else:
        errors.append(pane.banner.text())
    controller.window.context_pane.wait()

    if code == 0:
        assert published and not errors, errors
        # What the Lead reviewed is what --dry-run prints: every file, decision and reason.
        assert dry_code == 0 and len(reviewed) == 1 and reviewed[0] in dry_out, (reviewed, dry_out)
        assert session_files(by_window) == session_files(by_cli)
        assert session_files(by_window) != before
        memory = before.get("TEAM-MEMORY.md")
        if memory is not None and b"## Meta" not in memory:  # cow-pipeline-redesign, opus46-nlp-conversion
            version = out.split()[1]  # "Published GC-vN to ..."
            after = (by_window / "TEAM-MEMORY.md").read_text(encoding="utf-8")
            assert ("## Meta" in after and f"GC Version: {version}" in after) is add_meta, after[:300]
        return
    # Refused: nothing written by either, and the window says why the CLI did.
    assert not published
    assert session_files(by_window) == before and session_files(by_cli) == before
    said = [*errors, pane.header.text(), pane.banner.text()]
    if not (by_cli / "global-context.md").exists():  # dia-v5-optimization: a phase folder only
        reason = "global-context.md: not found in this session"
        assert f"nothing to publish: {reason}" in err
        controller.window.central_tabs.setCurrentWidget(pane)  # its views are kept current when shown
        assert pane.message.toPlainText() == ""  # no "[CONTEXT-UPDATE] — (full injection)" of nothing
    else:
        reason = out.splitlines()[1].strip()  # "Nothing was published:" and the reasons under it
    assert any(reason in s for s in said), (reason, said)
