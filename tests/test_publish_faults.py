"""Publishing is all-or-nothing as the Lead sees it (issue 16): a write failing at any step
(a full disk, a refused permission, a failing rename) leaves every file as it was, and says so."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

import models.text.transaction as transaction
from models.actions.commit import commit
from models.actions.preview import Preview
from models.actions.publish import prepare_publish
from models.publish.composer import Composer
from models.session.folder import open_session
from models.text.tokens import get_tokenizer
from models.text.transaction import WriteRefused


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _plan(folder: Path) -> Preview:
    session = open_session(folder, get_tokenizer("estimate"))
    composer = Composer.open(session)
    composer.working_text = composer.working_text.replace("is the source of truth", "is the single source of truth")
    return prepare_publish(composer)


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EACCES, errno.EXDEV])
def test_a_write_failing_at_any_step_leaves_the_session_as_it_was(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int, error: int
) -> None:
    before = _tree(demo_copy)
    plan = _plan(demo_copy)
    writes = len([w for w in plan.writes if w.kind != "append"])
    real = transaction.atomic_write
    calls = {"n": 0}

    def failing(path: Path, data: bytes, expected: object) -> object:
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise OSError(error, "injected", str(path))
        return real(path, data, expected)  # type: ignore[arg-type]

    monkeypatch.setattr(transaction, "atomic_write", failing)
    if fail_at > writes:
        commit(plan)  # every write went through: published
        assert _tree(demo_copy) != before
        return
    with pytest.raises(WriteRefused) as refused:
        commit(plan)
    assert "nothing was written" in refused.value.reasons[0]
    assert _tree(demo_copy) == before  # every file as it was, no outbox message, no ledger line
    monkeypatch.setattr(transaction, "atomic_write", real)
    commit(_plan(demo_copy))  # and a retry publishes
    assert (demo_copy / "gc-history" / "GC-v7.md").is_file()


def test_a_failing_ledger_append_undoes_every_file_written_before_it(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _tree(demo_copy)

    def no_space(path: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(transaction, "_append", no_space)
    with pytest.raises(WriteRefused, match=r"ledger\.jsonl: No space left on device; nothing was written"):
        commit(_plan(demo_copy))
    assert _tree(demo_copy) == before


def test_a_gate_conclusion_whose_plan_write_fails_leaves_no_record(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 16: the record and the lifted freeze go together; the plan refusing takes the
    record back, so the session still says the gate is being evaluated, as it is."""
    import models.text.transaction as transaction
    from models.actions.commit import commit
    from models.actions.session_edits import prepare_gate_conclude, prepare_gate_start

    session = open_session(demo_copy, get_tokenizer("estimate"))
    commit(prepare_gate_start(session, 6, "2026-11-23T00:00:00Z"))
    session = open_session(demo_copy, get_tokenizer("estimate"))
    before = _tree(demo_copy)
    real = transaction.atomic_write
    calls = {"n": 0}

    def failing(path: Path, data: bytes, expected: object) -> object:
        calls["n"] += 1
        if calls["n"] == 2:  # the record went in; the plan's write fails
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, data, expected)  # type: ignore[arg-type]

    monkeypatch.setattr(transaction, "atomic_write", failing)
    with pytest.raises(WriteRefused, match=r"orchestration-plan\.md: No space left on device; nothing was written"):
        commit(prepare_gate_conclude(session, "APPROVED", "2026-11-23T01:00:00Z"))
    assert _tree(demo_copy) == before


@pytest.mark.parametrize("kind", ["folder", "link loop"])
def test_a_plan_that_cannot_be_read_is_said_by_every_job_that_writes_it(demo_copy: Path, kind: str) -> None:
    """The plan a folder, or a link to itself (found by running every command of the window on
    damaged copies): starting a gate, setting a teammate's state and publishing each refuse in
    their own words, and nothing is written. Each raised the read's OSError into the window's
    slots before."""
    from models.actions.session_edits import prepare_gate_start, prepare_state
    from models.publish.gate import GateError
    from models.publish.teammate_state import StateError, parse_state

    session = open_session(demo_copy, get_tokenizer("estimate"))
    composer = Composer.open(session)
    composer.working_text = composer.working_text.replace("is the source of truth", "is the single source of truth")
    plan = demo_copy / "orchestration-plan.md"
    plan.unlink()
    if kind == "folder":
        plan.mkdir()
    else:
        plan.symlink_to(plan.name)
    before = _tree(demo_copy)
    why = "is a folder, not a file" if kind == "folder" else "Too many levels of symbolic links"
    with pytest.raises(GateError, match=why):
        prepare_gate_start(session, 6, "2026-11-24T07:00:00Z")
    with pytest.raises(StateError, match=why):
        prepare_state(session, "implementer-1", parse_state("finished"))
    assert _tree(demo_copy) == before
    blocked = prepare_publish(composer).refusals
    assert any(b.startswith("orchestration-plan.md cannot be read") and why in b for b in blocked), blocked
    with pytest.raises(WriteRefused):
        commit(prepare_publish(composer))
    assert _tree(demo_copy) == before
