"""Guards against Qt-binding bugs that would crash a long-running window."""

from __future__ import annotations

import sys

from PySide6.QtCore import QModelIndex, QObject, Signal


class _Emitter(QObject):
    index = Signal(QModelIndex)
    parts = Signal(set)


def test_signal_emission_keeps_bool_refcounts() -> None:
    """PySide6 6.12.0 decrements True on every emit; Python 3.11 then aborts (bool_dealloc).

    The window emits thousands of signals an hour (every model sync, every file event), so a
    binding with this bug is pinned out in pyproject.toml; this test notices if it comes back.
    """
    emitter = _Emitter()
    before = sys.getrefcount(True), sys.getrefcount(False), sys.getrefcount(None)
    for _ in range(200):
        emitter.index.emit(QModelIndex())
        emitter.parts.emit({"gc"})
    after = sys.getrefcount(True), sys.getrefcount(False), sys.getrefcount(None)
    # 400 emissions: the broken binding loses 400 references; a little noise is allowed.
    assert [a - b > -10 for a, b in zip(after, before, strict=True)] == [True, True, True]
