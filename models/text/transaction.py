"""Several file writes as one: prepared with the stamp of each file as it was read, checked
again before the first write, and written all or nothing.

Every Lead action ends here (``models.actions``): its preview is a tuple of ``FileWrite``, each
holding the exact bytes that will be written, so that what the Lead reviewed is what lands.
Writes go one by one through the atomic helper, creates first, replaced files next and appends
to app-owned logs last, so that a failure half-way is rolled back before anything that records
it (the ledger) was written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from models.text.atomic import MISSING, FileChangedError, LockRefused, Missing, append_log, atomic_write
from models.text.intent import holding_action_lock, record_intent
from models.text.textfile import BOM, Stamp, read_bounded, read_text, stamp_of

WriteKind = Literal["create", "replace", "append"]


@dataclass(frozen=True)
class FileWrite:
    """One file an action will write, with what it expects to find there first.

    ``before`` is the text the file held when the action was prepared (None for a new file or
    an append), so that a review can show the change as a diff.
    """

    path: Path
    kind: WriteKind
    summary: str
    data: bytes
    expected: Stamp | Missing | None  # None: appended to (an app-owned log), not replaced
    before: str | None = None

    @property
    def changes_nothing(self) -> bool:
        """A replace that would leave the file's bytes as they were read."""
        return isinstance(self.expected, Stamp) and self.expected.same_content(Stamp.of_bytes(self.data))


class WriteRefused(Exception):
    """Nothing was written (or what was, was taken back); ``reasons`` says why, one line each."""

    def __init__(self, reasons: Sequence[str]) -> None:
        self.reasons = list(reasons)
        super().__init__("; ".join(self.reasons))


def edit_write(path: Path, edit: Callable[[str], str], summary: str) -> FileWrite:
    """The write of ``edit`` applied to ``path``'s text as it is now (an empty text for no file).

    Raises what reading or the edit raises (``OSError``, ``UnreadableFile``, ``EditError``).
    """
    try:
        loaded = read_text(path)
    except FileNotFoundError:
        return FileWrite(path, "create", summary, edit("").encode("utf-8"), MISSING)
    new = edit(loaded.text).encode("utf-8")
    bom = BOM if loaded.raw.startswith(BOM) else b""  # kept as the file had it
    return FileWrite(path, "replace", summary, bom + new, loaded.stamp, loaded.text)


def create_write(path: Path, data: bytes, summary: str) -> FileWrite:
    """The write of a new file at ``path``; refused at commit if anything is there by then."""
    return FileWrite(path, "create", summary, data, MISSING)


def changed_since(writes: Iterable[FileWrite]) -> list[str]:
    """Files that are no longer what the preview read (empty: safe to write)."""
    changed = []
    for w in writes:
        if w.expected is None:
            continue
        try:
            now = stamp_of(w.path)
        except OSError as exc:  # turned into a folder, a FIFO, a link to nowhere since
            changed.append(f"{w.path.name} cannot be read ({exc.strerror or exc})")
            continue
        if isinstance(w.expected, Missing):
            if now is not None:
                changed.append(f"{w.path.name} was created meanwhile")
        elif not w.expected.same_content(now):
            changed.append(f"{w.path.name} {'was deleted' if now is None else 'changed on disk'} since the preview")
    return changed


_ORDER = {"create": 0, "replace": 1, "append": 2}
UNKNOWN, NEW_LOG = -1, -2  # an append's size before: not read yet, or no log there


def write_all(writes: Sequence[FileWrite], folder: Path, title: str, last: str | None = None) -> tuple[Path, ...]:
    """Write every file, or nothing: refused when anything changed since the preview, and rolled
    back when a write fails half-way (a full disk, a permission, a file an agent changed between
    two of our writes, Ctrl-C), so the Lead sees the session as before or as after. A file named
    ``last`` is replaced after every other replace (publishing's GC: never newer than its
    snapshot and messages). What the writes will do is put down in the session ``folder``
    first (``models.text.intent``), under its action lock, and taken away once they are all
    done or all undone: an action killed half-way is found by the next one."""
    reasons = changed_since(writes)
    if reasons:
        raise WriteRefused(reasons)
    ordered = sorted(writes, key=lambda w: (_ORDER[w.kind], w.path.name == last))
    try:
        with holding_action_lock(folder):  # the record and the writes, one action at a time
            try:
                record = record_intent(folder, title, ordered)
            except OSError as exc:
                raise WriteRefused(
                    [f"the record of this action cannot be written ({exc.strerror or exc}); nothing was written"]
                ) from exc
            return _write_each(ordered, record)
    except LockRefused as exc:
        raise WriteRefused([f"{exc.strerror}; nothing was written"]) from exc


def _write_each(ordered: Sequence[FileWrite], record: Path) -> tuple[Path, ...]:
    """Write ``ordered`` one by one, rolling back on the first failure; ``record``, the
    action's record, goes once all are written or all undone."""
    written: list[Path] = []
    undo: list[tuple[FileWrite, bytes | None, int]] = []  # what each write replaced
    for w in ordered:
        before: bytes | None = None
        size = UNKNOWN  # the log's size before an append (NEW_LOG: there was none)
        try:
            w.path.parent.mkdir(parents=True, exist_ok=True)
            before = read_bounded(w.path)[0] if w.kind == "replace" and w.path.is_file() else None
            size = (w.path.stat().st_size if w.path.is_file() else NEW_LOG) if w.kind == "append" else 0
            if w.kind == "append":
                _append(w.path, w.data)
            else:
                atomic_write(w.path, w.data, w.expected)
            undo.append((w, before, size))
        except BaseException as exc:
            # A write can fail after its bytes landed (an fsync refused after the append): it
            # is taken back with the others, or a "nothing was written" would leave it behind.
            # A changed file refuses before anything is written: what is there is another's.
            if not isinstance(exc, FileChangedError) and _landed(w, size):
                undo.append((w, before, size))
            undone, whole = _roll_back(undo)
            if whole:
                record.unlink(missing_ok=True)
            if not isinstance(exc, (FileChangedError, OSError)):
                raise  # Ctrl-C between two writes: taken back, then on its way
            why = str(exc) if isinstance(exc, FileChangedError) else f"{w.path.name}: {exc.strerror or exc}"
            raise WriteRefused([f"{why}; nothing was written ({undone})"]) from exc
        written.append(w.path)
    record.unlink(missing_ok=True)
    return tuple(written)


def _landed(w: FileWrite, size: int) -> bool:
    """Whether ``w``'s bytes are on disk though its write raised: an append that grew the log
    from ``size``, or a file that now holds exactly the new bytes."""
    try:
        if w.kind == "append":  # grew, or made (an empty log, when the write itself failed)
            return size != UNKNOWN and ((size == NEW_LOG and w.path.exists()) or w.path.stat().st_size > max(size, 0))
        return read_bounded(w.path)[0] == w.data
    except OSError:
        return False


def _roll_back(undo: list[tuple[FileWrite, bytes | None, int]]) -> tuple[str, bool]:
    """Undo the writes done so far, newest first: what was undone and what could not be, and
    whether every one was."""
    failed: list[str] = []
    for w, before, size in reversed(undo):
        try:
            if w.kind == "create":
                w.path.unlink(missing_ok=True)
            elif w.kind == "append" and size == NEW_LOG:
                w.path.unlink(missing_ok=True)  # the append made it
            elif w.kind == "append":
                with open(w.path, "r+b") as fh:
                    fh.truncate(size)
            elif before is not None:
                if read_bounded(w.path)[0] != w.data:
                    failed.append(f"{w.path.name} (changed by someone else since; kept)")
                    continue
                atomic_write(w.path, before, None)
        except OSError as exc:
            failed.append(f"{w.path.name} ({exc.strerror or exc})")
    if failed:
        return f"{len(undo) - len(failed)} of {len(undo)} writes undone; left as written: {', '.join(failed)}", False
    return (f"{len(undo)} writes undone" if undo else "nothing had been written"), True


def _append(path: Path, data: bytes) -> None:
    """Append to an app-owned log, whole lines or none (the tests put a fault here)."""
    append_log(path, data)
