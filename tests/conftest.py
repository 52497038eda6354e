"""Shared fixtures. Tests run offscreen and never touch the user's settings or data."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from PySide6.QtCore import QAbstractItemModel, QModelIndex
    from PySide6.QtWidgets import QApplication, QWidget
    from pytestqt.qtbot import QtBot

    from app.controller import Controller

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before any Qt import

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
REAL_SESSIONS = SHARED / "sessions"
COW = REAL_SESSIONS / "cow-pipeline-redesign"
CH006 = REAL_SESSIONS / "ch006-dia-v4"
CLAUDE_TEAM = SHARED / "claude-code-team" / "teams" / "cow-execution"
DEMO = ROOT / "resources" / "demo-project" / ".agent" / "teams" / "payments-ledger-v2"
#: The demo and every real session: what a job must work on (without ../shared/, the run
#: stops in ``pytest_sessionstart``, not at this import).
SESSIONS = [DEMO, *sorted(p for p in REAL_SESSIONS.iterdir() if p.is_dir())] if REAL_SESSIONS.is_dir() else [DEMO]


def pytest_sessionstart(session: pytest.Session) -> None:
    """The real sessions are part of the test data; fail loudly instead of skipping."""
    missing = [p for p in (COW, CH006) if not p.is_dir()]
    if missing:
        raise pytest.UsageError(
            f"real session folders not found: {', '.join(map(str, missing))} "
            "(the tests expect ../shared/ beside the repository)"
        )
    if not _is_worker(session):
        _SHARED_STATE_BEFORE.update(_app_state_in_shared())


# The longest tests, started first in each of the two workers' halves of the run (pytest-xdist's
# worksteal hands each worker a contiguous half): a long test left for the end of a half is the
# last thing the run waits for.
LONG_FIRST = ("test_window_states", "test_real_client", "test_delta_scale", "test_memory_race", "test_every_action")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the long tests at the head of each half of the run, alternately."""
    long = [i for i in items if Path(i.nodeid.split("::")[0]).stem in LONG_FIRST]
    if not long:
        return
    chosen = set(long)
    rest = [i for i in items if i not in chosen]
    first, second = long[0::2], long[1::2]
    half = len(rest) // 2
    items[:] = [*first, *rest[:half], *second, *rest[half:]]


def _is_worker(session: pytest.Session) -> bool:
    """Whether this is one of pytest-xdist's workers: the process that started them looks at
    ../shared before the first and after the last has run."""
    return hasattr(session.config, "workerinput")


def _app_state_in_shared() -> set[Path]:
    """The app's state folders in the shared real data and in the bundled demo (the demo is
    opened from copies; a reader that linked it in place would ship the link)."""
    return set(SHARED.glob("**/.lead-console")) | set(DEMO.parent.glob("*/.lead-console"))


_SHARED_STATE_BEFORE: set[Path] = set()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The real sessions are read, never written: a test that opened one in place (not a
    copy) left the app's journal there, and a later run read its own past as an outside loss."""
    if _is_worker(session):
        return
    written = sorted(_app_state_in_shared() - _SHARED_STATE_BEFORE)
    if written:
        print(f"\ntests wrote into the shared real data: {', '.join(map(str, written))}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _shared_left_alone() -> Iterator[None]:
    """Fail the test that left the app's state in the shared real data (a session opened in
    place, not a copy), and take it away again: copies made by later tests would carry it, and
    read its journal as losses of their own."""
    before = _app_state_in_shared()
    yield
    written = sorted(_app_state_in_shared() - before)
    for path in written:
        shutil.rmtree(path, ignore_errors=True)
    assert not written, f"the test wrote into the shared real data or the bundled demo: {', '.join(map(str, written))}"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep demo copies and settings out of the real home folder."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))


@pytest.fixture(autouse=True)
def _desktop_looks(qapp: QApplication) -> Iterator[None]:
    """Each test starts with the platform's palette and font: View ▸ Appearance and Larger
    Text (which the smoke tests choose too) set the application's, which outlive the window."""
    from PySide6.QtGui import QFont, QPalette

    font = QFont(qapp.font())
    yield
    if qapp.palette().resolveMask():
        qapp.styleHints().unsetColorScheme()
        qapp.setPalette(QPalette())
    if qapp.font() != font:
        qapp.setFont(font)


@pytest.fixture
def controller(qtbot: QtBot, tmp_path: Path, demo_copy: Path) -> Iterator[Controller]:
    """A headless controller on a copy of the demo session, with its own settings file.

    Discarding unsaved edits is confirmed up front so that tests which switch sessions do
    not stop on a modal dialog; the context pane's background job is joined before close.
    """
    from PySide6.QtCore import QSettings

    from app.controller import Controller
    from app.settings import AppSettings

    ctl = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(ctl.window)
    ctl.window.confirm_discard = lambda: True  # type: ignore[method-assign]
    ctl.inbox.review_write = lambda preview, question: True  # type: ignore[method-assign]
    assert ctl.open(demo_copy)
    settle_reviews(qtbot, ctl)  # the Inbox is read in a worker: start from the window as loaded
    yield ctl
    ctl.window.context_pane.wait()
    ctl.close()


def shown_controller(qtbot: QtBot, tmp_path: Path, size: tuple[int, int] = (1366, 768)) -> Controller:
    """A headless controller with its own settings file, its window on screen at ``size`` and
    no session open yet: as the app starts."""
    from PySide6.QtCore import QSettings

    from app.controller import Controller
    from app.settings import AppSettings

    controller = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(controller.window)
    controller.window.resize(*size)
    controller.window.show()
    qtbot.waitExposed(controller.window)
    return controller


def when_modal(kind: type, then: Callable[[Any], None], tries: int = 1000) -> None:
    """Run ``then(dialog)`` once a modal dialog of ``kind`` is up (``exec`` runs its own loop,
    so a test answers it from a timer, as the Lead's clicks would). A dialog that never comes
    stops the looking after ``tries`` looks: it must not go on into the next test."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    def look(left: int) -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, kind):
            then(dialog)
        elif left:
            QTimer.singleShot(10, lambda: look(left - 1))

    QTimer.singleShot(0, lambda: look(tries))


def activate(qtbot: QtBot, window: QWidget) -> None:
    """Show ``window`` and wait until it is the active window, as the Lead's is: keys go to the
    active window, and offscreen or under Xvfb no window manager makes it so."""
    from PySide6.QtWidgets import QApplication

    window.show()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def settle_reviews(qtbot: QtBot, controller: Controller) -> None:
    """Wait until the actions asked of the runner are written and shown, the Inbox shows the
    last pass asked for and the teammate table the last read of the team: all run in workers.
    The reviewer is idle only once every requested pass has been shown. A team read hands its
    result over in a queued call, posted before its thread goes idle: once the pool is idle,
    the calls are delivered here, and what they started (a finished read may ask for another
    pass) is waited for in turn."""
    from PySide6.QtWidgets import QApplication

    def idle() -> bool:
        if controller.runner.busy or controller.team.pool.activeThreadCount() > 0:
            return False
        QApplication.processEvents()  # the results the finished reads posted
        return not controller.reviewer.busy and controller.team.pool.activeThreadCount() == 0

    qtbot.waitUntil(idle, timeout=10_000)


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """A private, writable copy of the demo session."""
    target = tmp_path / "project" / ".agent" / "teams" / DEMO.name
    shutil.copytree(DEMO, target)
    return target


@pytest.fixture
def cow_copy(tmp_path: Path) -> Path:
    target = tmp_path / "cow" / COW.name
    shutil.copytree(COW, target)
    return target


def snapshot_tree(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``folder`` with its mtime and bytes, to prove nothing was written."""
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def copy_session(source: Path, root: Path) -> Path:
    """``source`` copied to ``root/.agent/teams/<its name>``, links kept as links."""
    folder = root / ".agent" / "teams" / source.name
    shutil.copytree(source, folder, symlinks=True)
    return folder


def session_files(folder: Path) -> dict[str, bytes]:
    """Every file of a session by its path in it, but the window's own journal: what two copies
    of a session changed by the window and by the CLI must hold alike."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".lead-console" not in p.relative_to(folder).parts
    }


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``lead-console ARGS`` in this process: its exit code, stdout and stderr."""
    from app.cli.main import main

    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def report_lost_context(qtbot: QtBot, controller: Controller, folder: Path, role: str = "implementer-3") -> None:
    """``role`` reports CONTEXT_LOST in the session's inbox, and the window's Inbox has read it."""
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / f"{role}-status.md").write_text("[STATUS] Phase 6 | CONTEXT_LOST\n", encoding="utf-8")
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)


def drop_two_replies(inbox: Path) -> None:
    """Two replies as teammates write them into ``inbox``: implementer-2's NEED_CLARIFICATION
    ACK of GC-v6 and implementer-4's DELTA report with a high risk that asks to consult."""
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "implementer-2-ack.md").write_text(
        "[ACK-UPDATE] GC-v6 received. Items: 0/1. Impact: unsure which table. Action: NEED_CLARIFICATION\n",
        encoding="utf-8",
    )
    (inbox / "implementer-4-report.md").write_text(
        'Replay done.\n\nDELTA:\n  changes:\n    - "replay order"\n  risks:\n    - level: high\n'
        '      desc: "2,914 manual corrections have no source event"\n  needs_consult: yes\n',
        encoding="utf-8",
    )


def model_indexes(model: QAbstractItemModel, every_column: bool = False) -> Iterator[QModelIndex]:
    """Every row of ``model`` (its first column, or ``every_column``), each parent before its
    children's turn comes, rows a model makes when asked made first."""
    from PySide6.QtCore import QModelIndex

    pending = [QModelIndex()]
    while pending:
        parent = pending.pop()
        while model.canFetchMore(parent):
            model.fetchMore(parent)
        for row in range(model.rowCount(parent)):
            for column in range(model.columnCount(parent) if every_column else 1):
                yield model.index(row, column, parent)
            pending.append(model.index(row, 0, parent))


def fail_carry_out_at(monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """The disk refuses one of a carry-out's writes: the re-send's new file, the plan, or the
    ledger's append (every write goes through ``models.text.transaction``)."""
    import errno

    import models.text.transaction as transaction

    real = transaction.atomic_write

    def refuse(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    def failing(path: Path, data: bytes, expected: object) -> object:
        if (step == "resend" and path.parent.name == "outbox") or (
            step == "plan" and path.name == "orchestration-plan.md"
        ):
            refuse(path)
        return real(path, data, expected)  # type: ignore[arg-type]

    monkeypatch.setattr(transaction, "atomic_write", failing)
    if step == "ledger":
        monkeypatch.setattr(transaction, "_append", lambda path, data: refuse(path))


def adopt(folder: Path) -> None:
    """Take a baseline of a session that has a versioned GC and no gc-history snapshot yet, as
    the Lead adopts a session run by hand: from then on an edit of the GC on disk is an update
    (without a snapshot, the GC on disk is the version the teammates hold)."""
    from models.actions.commit import commit
    from models.actions.session_edits import prepare_baseline
    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer

    session = open_session(folder, get_tokenizer("estimate"))
    if session.gc is not None and session.gc.version is not None and not (folder / "gc-history").exists():
        commit(prepare_baseline(session))


def edited_copy(source: Path, root: Path) -> Path:
    """``source`` copied under ``root``, adopted (``adopt``), its GC then edited as a Lead edits
    it in an editor (a line at its end): a session with an update to publish."""
    folder = copy_session(source, root)
    adopt(folder)
    gc = folder / "global-context.md"
    if gc.is_file():
        gc.write_bytes(gc.read_bytes().rstrip(b"\n") + b"\n- Parity: a line the Lead added to the GC on disk\n")
    return folder


def actions_done(qtbot: QtBot, controller: Controller, timeout: int = 15_000) -> None:
    """Wait until the window's runner has ended every action asked of it (written or refused)
    and the window shows how: actions are written off the GUI thread."""
    qtbot.waitUntil(lambda: not controller.runner.busy, timeout=timeout)


def demo_follows(role: str) -> list[str] | None:
    """What the demo's subscriptions.yaml says ``role`` follows (None: every section), read
    with PyYAML alone."""
    import yaml

    value = yaml.safe_load((DEMO / "subscriptions.yaml").read_text(encoding="utf-8")).get(role)
    return None if value in (None, "all") else [str(v) for v in value]


def role_full(gc: str, version: str, follows: list[str]) -> str:
    """The full injection of a role that follows ``follows``: ``gc`` cut at its ``## `` lines
    here (not by the app's parser), the sections it follows kept, the others named."""
    import re

    head, *chunks = re.split(r"(?m)^(?=## )", gc)
    titles = [c.split("\n", 1)[0][3:].strip() for c in chunks]
    kept = "".join(c for c, t in zip(chunks, titles, strict=True) if t in follows)
    others = ", ".join(f"§{t}" for t in titles if t not in follows)
    return (
        f"[CONTEXT-UPDATE] {version} (full injection: the sections you follow)\n\n"
        + (head + kept).rstrip("\n")
        + f"\n\n## Not Sent\n- {others} (sections you do not follow; ask the Lead for any by name)\n"
    )
