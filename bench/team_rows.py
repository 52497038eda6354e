"""The load a Lead's tools carry all day: a linked Claude Code team of five whose transcripts
are 100 MB each (issue 46).

- ``lead-console team --json``, a fresh process, first with nothing kept (every transcript read
  once) and then after a kilobyte was appended to each (only the appends read), each beside the
  same command on the same team with 1 KB transcripts; the first also beside reading the files.
- The window following that team while each teammate appends one turn a second for a minute
  (``python -m bench.team_rows --follow SESSION SECONDS``, a process of its own so that its CPU
  time and peak memory are its own): the share of a core it used, how long each append took to
  show in its teammate's row, and its peak memory beside the same window with no team linked.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench.rows import Row, absolute_row, ms, ratio_row
from bench.transcripts import append_kb, make_team, turn
from models.claude.transcript_cache import CACHE
from models.claude.transcript_read import TranscriptFollower

ROOT = Path(__file__).resolve().parent.parent
ROLES = ["researcher-1", "implementer-1", "implementer-2", "implementer-3", "implementer-4"]
BIG, SMALL = 100 * 1024 * 1024, 1024


def _session(root: Path, name: str) -> Path:
    from app.demo import bundled_session

    folder = root / name / ".agent" / "teams" / bundled_session().name
    shutil.copytree(bundled_session(), folder)
    return folder


def _team_command(session: Path) -> list[str]:
    return [sys.executable, "-m", "app", "team", str(session), "--json"]


def _timed(args: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, cwd=ROOT)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[2:4])}: {done.stderr.decode()[-300:]}")
    return took


def _read_once(paths: list[Path]) -> float:
    """The floor of a first read: every byte of every transcript read once, nothing done with it."""
    start = time.perf_counter()
    for path in paths:
        with path.open("rb", buffering=0) as fh:
            while fh.read(1 << 22):
                pass
    return time.perf_counter() - start


def cli_rows(root: Path) -> list[Row]:
    """``team --json`` on the big team (first run, then after appends) beside the small team."""
    big, small = _session(root, "big"), _session(root, "small")
    big_paths = make_team(root / "claude-big", big, ROLES, BIG)
    small_paths = make_team(root / "claude-small", small, ROLES, SMALL)
    firsts: tuple[list[float], list[float], list[float]] = ([], [], [])
    for _ in range(5):  # in turns, so that a busy minute weighs on both sides
        for session in (big, small):
            shutil.rmtree(session / CACHE, ignore_errors=True)
        firsts[0].append(_timed(_team_command(big)))
        firsts[1].append(_timed(_team_command(small)))
        firsts[2].append(_read_once(big_paths))
    seconds: tuple[list[float], list[float]] = ([], [])
    for n in range(5):
        append_kb(big_paths, n)
        append_kb(small_paths, n)
        seconds[0].append(_timed(_team_command(big)))
        seconds[1].append(_timed(_team_command(small)))
    first, small_first, read = (statistics.median(t) for t in firsts)
    second, small_second = (statistics.median(t) for t in seconds)
    size = f"{len(ROLES)} teammates, {BIG // (1024 * 1024)} MB transcripts"
    return [
        ratio_row(
            "team --json, first run",
            f"{size}, nothing kept, median of 5 / the same on 1 KB transcripts + reading the files once",
            first,
            small_first + read,
            1.5,
        ),
        ratio_row(
            "team --json, next run",
            f"{size}, 1 KB appended to each, median of 5 / the same on 1 KB transcripts",
            second,
            small_second,
            1.5,
        ),
    ]


def follow_rows(root: Path, seconds: int = 60) -> list[Row]:
    """The window following the big team for ``seconds``, and the same window with no team."""
    linked = _session(root, "followed")
    make_team(root / "claude-followed", linked, ROLES, BIG)
    alone = _session(root, "alone")
    command = [sys.executable, "-m", "bench.team_rows", "--follow"]
    done = subprocess.run([*command, str(linked), str(seconds)], capture_output=True, cwd=ROOT, check=True)
    team = json.loads(done.stdout.decode().strip().splitlines()[-1])
    done = subprocess.run([*command, str(alone), "0"], capture_output=True, cwd=ROOT, check=True)
    bare = json.loads(done.stdout.decode().strip().splitlines()[-1])
    share = team["cpu"] / team["wall"]
    latencies = team["latencies"]
    shown = f"{len(latencies)} of {team['appends']} appends shown"
    return [
        absolute_row(
            "window following the team: CPU",
            f"{len(ROLES)} teammates, 100 MB transcripts, one turn a second each for {seconds} s",
            f"{share:.1%} of a core",
            share <= 0.05,
            "≤ 5%",
        ),
        ratio_row(
            "  each append shown in its row",
            f"median of {shown} (longest {ms(max(latencies, default=0))}) / debounce + reading the append",
            statistics.median(latencies) if latencies else float("inf"),
            team["floor"],
            1.5,
        ),
        absolute_row(
            "  peak memory",
            "that window / the same window on the session with no team linked",
            f"{team['peak_mb']:,.0f} MB / {bare['peak_mb']:,.0f} MB ({team['peak_mb'] / bare['peak_mb']:.2f}×)",
            team["peak_mb"] <= 1.2 * bare["peak_mb"] and len(latencies) == team["appends"],
            "≤ 1.2×",
        ),
    ]


def follow(session: Path, seconds: int) -> dict[str, object]:
    """In this process: open ``session`` in the window, wait for its team's first view, then
    time each append of a writer process in the teammate table until ``seconds`` are over."""
    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from app.settings import AppSettings
    from app.watcher import DEBOUNCE_MS
    from bench.session_rows import open_until_shown, shown_window

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    settings = AppSettings(QSettings(str(session.parents[2] / "settings.ini"), QSettings.Format.IniFormat))
    controller = shown_window(app, settings)
    open_until_shown(app, controller, session)
    controller.settle(timeout_s=120)
    model = controller.window.teammates_pane.teammate_model
    linked = controller.team.team_folder() is not None
    waited = time.perf_counter()
    while (
        linked
        and (controller.team.view is None or not controller.team.view.rows)
        and time.perf_counter() - waited < 120
    ):
        app.processEvents()
    controller.settle(timeout_s=120)
    shown: dict[tuple[str, str], float] = {}

    def look() -> None:
        now = time.perf_counter()
        for row in range(model.rowCount()):
            role = model.index(row, 0).data()
            text = model.index(row, model.CONTEXT).data() or ""
            shown.setdefault((role, text.split()[-1].split("/")[0] if text else ""), now)

    model.dataChanged.connect(look)
    view = controller.team.view
    contexts = [view.rows[r].context for r in ROLES] if linked and view is not None else []
    paths = [c.transcript for c in contexts if c is not None and c.transcript is not None]
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    writer = None
    if seconds:
        writer = subprocess.Popen(
            [sys.executable, "-m", "bench.transcripts", str(seconds), *map(str, paths)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
    loop = QEventLoop()
    QTimer.singleShot(seconds * 1000 + 2000, loop.quit)  # the last append's view included
    loop.exec()
    appended = [line.split() for line in writer.communicate(timeout=60)[0].splitlines()] if writer else []
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    latencies = []
    for role, tokens, at in appended:
        seen = shown.get((role, f"{int(tokens) // 1000}k"))
        if seen is not None:
            latencies.append(seen - float(at))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    floor = DEBOUNCE_MS / 1000 + (_append_read(paths[0]) if paths else 0.0)
    controller.close()
    controller.window.close()
    return {
        "cpu": used,
        "wall": wall,
        "latencies": latencies,
        "appends": len(appended),
        "peak_mb": peak,
        "floor": floor,
    }


def _append_read(path: Path) -> float:
    """Reading one turn appended to a transcript already read: median of 5."""
    follower = TranscriptFollower()
    follower.read(path, "x")
    times = []
    for n in range(5):
        with path.open("ab") as fh:
            fh.write(turn("x", 90_000 + n, 150_000))
        start = time.perf_counter()
        follower.read(path, "x")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.team_rows")
    parser.add_argument("--follow", nargs=2, metavar=("SESSION", "SECONDS"), required=True)
    args = parser.parse_args()
    print(json.dumps(follow(Path(args.follow[0]), int(args.follow[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
