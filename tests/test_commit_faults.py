"""Issue 45.4: a write that fails after its bytes landed is taken back with the rest, and a
write that landed is not reported as failed because the file could not be read again.

Each case publishes the demo's one-line edit through the application layer (prepare_publish,
then commit), with one fault injected where the issue's harness found it."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

import models.text.atomic as atomic
import models.text.transaction as transaction
from models.actions.commit import commit
from models.actions.preview import Preview
from models.actions.publish import prepare_publish
from models.publish.composer import Composer
from models.session.folder import open_session
from models.session.gc_parse import front_version
from models.text.tokens import get_tokenizer
from models.text.transaction import WriteRefused


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _preview(folder: Path) -> Preview:
    composer = Composer.open(open_session(folder, get_tokenizer("estimate")))
    composer.working_text = composer.working_text.replace("is the source of truth", "is the single source of truth")
    return prepare_publish(composer, now="2026-11-29T10:00:00Z")


def test_an_fsync_refused_after_the_ledger_append_takes_the_lines_back(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines are in the ledger when its fsync fails: the commit said "nothing was written"
    and left them, so the messages counted as sent though no file said so (the issue's
    harness: a carry out then refused as done)."""
    before = _tree(demo_copy)
    real = transaction._append

    def append_then_eio(path: Path, data: bytes) -> None:
        real(path, data)  # the bytes land, then the disk refuses to make them durable
        raise OSError(errno.EIO, "Input/output error", str(path))

    monkeypatch.setattr(transaction, "_append", append_then_eio)
    with pytest.raises(WriteRefused, match=r"ledger\.jsonl: Input/output error; nothing was written"):
        commit(_preview(demo_copy))
    assert _tree(demo_copy) == before  # the ledger as it was, and every file before it undone
    monkeypatch.setattr(transaction, "_append", real)
    commit(_preview(demo_copy))  # a retry publishes once
    lines = (demo_copy / "messages" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    # One line for each of the demo's four active implementers (researcher-1 is finished).
    assert sorted(json.loads(line)["to"] for line in lines) == [f"implementer-{n}" for n in range(1, 5)]
    assert all(json.loads(line)["gc_version"] == 7 for line in lines)


@pytest.mark.parametrize("after_rename", ["unreadable", "removed"])
def test_a_file_that_cannot_be_read_again_after_its_rename_is_written(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch, after_rename: str
) -> None:
    """The GC's new bytes are in place when its re-read fails (EACCES) or finds it gone: the
    commit ended in an AssertionError with nothing undone, or refused with the GC left at
    GC-v7 (a retry then published GC-v8). The write landed, so the publish is whole."""
    preview = _preview(demo_copy)
    gc = demo_copy / "global-context.md"
    new_gc = next(w.data for w in preview.writes if w.path == gc)
    real = atomic.stamp_of

    def failing_reread(path: Path) -> object:
        if path == gc and path.read_bytes() == new_gc:  # only once the rename has put it there
            if after_rename == "unreadable":
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return None
        return real(path)

    monkeypatch.setattr(atomic, "stamp_of", failing_reread)
    outcome = commit(preview)
    assert gc in outcome.written
    assert front_version(gc.read_text(encoding="utf-8")) == 7
    assert (demo_copy / "gc-history" / "GC-v7.md").read_bytes() == new_gc
