"""Issue 18: no full garbage collection inside a follow-up. Young collections run rarely and
full ones when the app is idle, and the objects of a replaced GC are still freed then."""

from __future__ import annotations

import gc
import platform
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from gc_facts import cold_caches
from pytestqt.qtbot import QtBot

import app.runtime as runtime
from app.controller import Controller


@pytest.fixture
def tuned(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    before = gc.get_threshold()
    monkeypatch.setattr(runtime, "IDLE_MS", 200)
    runtime.tune_gc()
    yield
    gc.set_threshold(*before)


def test_a_replaced_gc_is_freed_once_the_app_is_idle(
    qtbot: QtBot, tuned: None, tmp_path: Path, demo_copy: Path
) -> None:
    from PySide6.QtCore import QSettings

    from app.settings import AppSettings

    assert gc.get_threshold()[0] == runtime.YOUNG_THRESHOLD
    # The parse cache hands every session of the same text one parsed GC; sessions of earlier
    # tests, whose closed windows' Python objects outlive them, would still hold it.
    cold_caches()
    ctl = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(ctl.window)
    assert ctl.open(demo_copy)
    gc.collect()
    old = ctl.live.session.gc  # type: ignore[union-attr]
    assert old is not None and any(s.parent is not None for s in old.walk())  # child → parent → child: a cycle
    gone = weakref.ref(old)
    del old
    path = demo_copy / "global-context.md"
    with qtbot.waitSignal(ctl.window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        path.write_text(path.read_text(encoding="utf-8") + "\n## Appended\n- key: value\n", encoding="utf-8")
    ctl.window.sections_pane.shown = None  # the pane keeps the last GC it showed, for its loss check
    collected = ctl.collector.collected
    qtbot.waitUntil(lambda: ctl.collector.collected > collected, timeout=3000)  # quiet: one full collection
    assert gone() is None  # the replaced GC's cycle was freed by it
    ctl.window.context_pane.wait()
    ctl.close()


def test_follow_ups_leave_no_cause_to_walk_the_heap_when_the_app_goes_quiet(
    qtbot: QtBot, tuned: None, tmp_path: Path, demo_copy: Path
) -> None:
    """An agent's TEAM-MEMORY append and a GC item edit are read as follow-ups, which leave no
    reference cycles: the quiet spell after them does not walk every live object. Opening
    the session (the one before it is left behind) does."""
    from PySide6.QtCore import QSettings

    from app.settings import AppSettings

    ctl = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(ctl.window)
    collector = ctl.collector
    assert ctl.open(demo_copy)
    qtbot.waitUntil(lambda: collector.collected == 1, timeout=3000)  # the open's quiet spell
    memory, gc_file = demo_copy / "TEAM-MEMORY.md", demo_copy / "global-context.md"
    edits = [
        ("memory", memory, "## implementer-2\n", "## implementer-2\n- [Finding] an agent's append\n"),
        ("gc", gc_file, "## Risks\n", "## Risks\n- R-9: an agent's new risk\n"),
    ]
    for part, path, anchor, replacement in edits:
        text = path.read_text(encoding="utf-8")
        assert anchor in text
        with qtbot.waitSignal(
            ctl.window.viewUpdated, timeout=5000, check_params_cb=lambda parts, part=part: part in parts
        ):
            path.write_text(text.replace(anchor, replacement, 1), encoding="utf-8")
        skipped = collector.skipped
        qtbot.waitUntil(lambda skipped=skipped: collector.skipped > skipped, timeout=3000)
        assert collector.collected == 1, part
    assert ctl.live is not None and ctl.live.session.gc is not None
    assert ctl.live.session.gc.follow_up is not None  # the GC edit was read as a follow-up
    ctl.window.context_pane.wait()
    ctl.close()


def test_python_s_blocks_growing_by_a_quarter_bring_a_full_collection(qtbot: QtBot) -> None:
    """With no change that may leave cycles, the collector still collects once the blocks
    Python holds have grown by ``GROWTH`` since its last collection, and not before."""
    import sys

    collector = runtime.IdleCollector()
    collector.collect()  # the first one is owed: nothing has been collected yet
    assert collector.collected == 1
    collector.poke(cycles=False)
    collector.collect()
    assert (collector.collected, collector.skipped) == (1, 1)
    base = sys.getallocatedblocks()
    kept = [[n] for n in range(int(base * runtime.GROWTH) + 1000)]  # a quarter more blocks, held
    assert sys.getallocatedblocks() >= base * (1 + runtime.GROWTH)
    collector.poke(cycles=False)
    collector.collect()
    assert (collector.collected, collector.skipped) == (2, 1)
    del kept


_FAULTS = """
import resource, sys
from app.runtime import tune_malloc
if sys.argv[1] == "tuned":
    assert tune_malloc()
size = 14 << 20
kept = b"\\x02" * size
start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for n in range(10):  # a follow-up's bytes: the new ones kept, the last ones freed
    new = b"\\x01" * (size + n * 4096)
    kept, new = new, kept
    del new
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_tuned_malloc_reuses_a_freed_block_instead_of_faulting_it_in_again() -> None:
    """Ten 14 MB reads, each freeing the one before: glibc handed each freed block back to the
    system, and every new one was faulted in page by page (3,584 faults a read). Tuned, the
    freed block is reused; only the heap's growth to hold two of them faults, once."""
    root = Path(__file__).resolve().parent.parent
    faults = {
        mode: int(
            subprocess.run([sys.executable, "-c", _FAULTS, mode], capture_output=True, check=True, cwd=root).stdout
        )
        for mode in ("plain", "tuned")
    }
    pages = (14 << 20) // 4096
    assert faults["plain"] > 5 * pages, faults  # the defaults: most reads fault their pages in
    assert faults["tuned"] < 3 * pages, faults  # the first two reads' worth at most
