"""The ledger is parsed once per change (issue 16: reviewing 300 messages against a 3,000-line
ledger re-read it per message and took 6 s on the GUI thread), and never served stale."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import DEMO
from models.review.inbox import read_inbox
from models.review.ledger import append_ledger, read_ledger, record_received
from models.review.validation import review
from models.session.folder import open_session
from models.text.tokens import get_tokenizer


def test_the_ledger_is_read_again_after_every_kind_of_change(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    (folder / "messages").mkdir(parents=True)
    ledger = folder / "messages" / "ledger.jsonl"
    assert read_ledger(folder) == []
    append_ledger(folder, [json.dumps({"direction": "sent", "n": 1})])
    assert [e["n"] for e in read_ledger(folder)] == [1]
    append_ledger(folder, [json.dumps({"direction": "sent", "n": 2})])  # an append: size changes
    assert [e["n"] for e in read_ledger(folder)] == [1, 2]
    tmp = ledger.with_name("new")
    tmp.write_text(json.dumps({"direction": "sent", "n": 9}) + "\n" * 9)  # a rewrite (a new inode)
    os.replace(tmp, ledger)
    assert [e["n"] for e in read_ledger(folder)] == [9]
    first = read_ledger(folder)
    first.append({"mutated": True})
    assert read_ledger(folder) == [{"direction": "sent", "n": 9}]  # callers get their own list
    ledger.unlink()
    assert read_ledger(folder) == []


def test_reviewing_300_messages_reads_a_3000_line_ledger_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each review asked the ledger what was sent, and each ask read and parsed all of it (4 s
    for this inbox): the ledger is read once, and again only when it changes (the one
    append of the received lines)."""
    from models.review import ledger as ledger_module

    reads: list[Path] = []
    real = ledger_module.read_bounded

    def counted(path: Path, limit: int | None = None) -> tuple[bytes, int]:
        reads.append(path)
        return real(path, limit)

    monkeypatch.setattr(ledger_module, "read_bounded", counted)
    folder = tmp_path / "s"
    shutil.copytree(DEMO, folder)
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True)
    lines = [
        json.dumps({"ts": f"2026-11-2{i % 9}T00:00:00Z", "direction": "sent", "to": f"implementer-{i % 4 + 1}",
                    "gc_version": 6, "mode": "delta", "file": "messages/outbox/x.md"})
        for i in range(3000)
    ]  # fmt: skip
    (folder / "messages" / "ledger.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for i in range(300):
        (inbox / f"implementer-{i % 4 + 1}-ack-{i}.md").write_text(
            "[ACK-UPDATE] GC-v6 received.\n- Delta items applied: 1/1\n- Action taken: CONTINUE\n", encoding="utf-8"
        )
    session = open_session(folder, get_tokenizer("estimate"))
    messages = read_inbox(folder, [m.role for m in session.teammates()])
    record_received(folder, messages)
    reviews = [review(m, session) for m in messages]
    assert len(reviews) == 300 and all(r.ack is not None for r in reviews)
    assert len(reads) <= 2, len(reads)  # before the append of what was received, and after it
