"""Boot the window: check for a display, open a session, follow it live, or take a screenshot."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from app.resolve import EXIT_OK, EXIT_USAGE, UsageError

NO_DISPLAY = (
    "lead-console: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). "
    "Run it on a desktop, under `xvfb-run -a {command}`, or render the window to a PNG "
    "with `{command} --screenshot OUT.png [FOLDER]`."
)


def invoked_as(argv0: str | None = None, python: str | None = None) -> str:
    """The command to type again, as it was typed: ``.venv/bin/lead-console`` (the README's,
    which is not on PATH), or ``python -m app``."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    if Path(argv0).name == "lead-console":
        return argv0
    return f"{python or sys.executable} -m app"


NO_QT_LIBS = (
    "lead-console: Qt cannot load its system libraries ({error}). "
    "Run the README's start command (scripts/bootstrap.sh app) once as root to install them."
)


def display_problem(env: dict[str, str] | None = None, command: str | None = None) -> str | None:
    """The one line to print when a window cannot be shown, or None when it can; it names the
    command as the Lead ran it (``invoked_as``)."""
    env = dict(os.environ) if env is None else env
    if env.get("QT_QPA_PLATFORM") or not sys.platform.startswith("linux"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return NO_DISPLAY.format(command=command or invoked_as())


def run_window(args: argparse.Namespace) -> int:
    """Entry point of ``lead-console [FOLDER] [--screenshot OUT.png]``."""
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    else:
        problem = display_problem()
        if problem:
            print(problem, file=sys.stderr)
            return EXIT_USAGE
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        print(NO_QT_LIBS.format(error=exc), file=sys.stderr)
        return EXIT_USAGE

    from app.controller import Controller
    from app.crash import CrashHandler
    from app.demo import demo_session
    from app.runtime import tune_gc, tune_malloc
    from app.settings import APPLICATION, ORGANIZATION, AppSettings

    QApplication.setOrganizationName(ORGANIZATION)
    QApplication.setApplicationName(APPLICATION)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    tune_gc()
    tune_malloc()
    settings = AppSettings()
    if args.tokenizer:
        settings.tokenizer = args.tokenizer
    controller = Controller(settings, headless=bool(args.screenshot))
    window = controller.window
    crash = CrashHandler(lambda: controller.window, interactive=not args.screenshot)
    crash.install()  # an escape is shown with a copyable report; the app keeps running
    folder = Path(args.folder) if args.folder else demo_session(reset=args.reset_demo)
    if not folder.exists():
        raise UsageError(f"{folder}: no such folder")
    if not args.screenshot:
        # The window first, then the session: what is not on screen (the composer's plan) is
        # then computed when first shown, not before the Lead sees anything.
        window.restore_layout()
        window.show()
        app.processEvents()
    if not controller.open(folder, session_id=args.session):
        controller.close()
        return EXIT_USAGE
    if args.screenshot:
        window.resize(1440, 900)
        window.show()
        controller.settle()  # the Inbox and the team, read off the GUI thread, are in the picture
        ok = window.grab().save(args.screenshot)
        controller.close()
        if not ok:
            print(f"lead-console: could not write {args.screenshot}", file=sys.stderr)
            return 1
        print(args.screenshot)
        return EXIT_OK
    app.aboutToQuit.connect(controller.close)
    return int(app.exec())
