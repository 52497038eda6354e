"""Issue 16: delivery into a Claude Code team is all-or-nothing as the Lead sees it. A fault at
any step (journaling the attempt, writing the inbox, recording the outcome) leaves every
update either delivered and recorded, or due; the next delivery finishes it, and no teammate
ever gets the same update twice."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest
from claude_team_steps import entries, make_team

import models.claude.delivery as delivery
from models.claude.delivery import deliver
from models.claude.following import undelivered
from models.claude.team import Link, read_team

UPDATES = {
    "implementer-1": "[CONTEXT-UPDATE] GC-v6 → GC-v7\n## ADDED §Open Questions\n- Q-3: one\n",
    "implementer-2": "[CONTEXT-UPDATE] GC-v6 → GC-v7 (full)\n# the whole GC\n",
}


def _session(tmp_path: Path) -> Path:
    """A session folder with two sent updates in its ledger and their outbox files."""
    folder = tmp_path / "session"
    (folder / "messages" / "outbox").mkdir(parents=True)
    lines = []
    for role, text in UPDATES.items():
        rel = f"messages/outbox/{role}-GC-v7.md"
        (folder / rel).write_text(text, encoding="utf-8")
        lines.append(
            json.dumps({"ts": "2026-11-23T01:00:00Z", "direction": "sent", "to": role, "file": rel, "gc_version": 7})
        )
    (folder / "messages" / "ledger.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _ledger(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]


def _fail_ledger_once(monkeypatch: pytest.MonkeyPatch, direction: str, role: str) -> None:
    real = delivery.append_ledger
    failed: list[int] = []

    def append(folder: Path, lines: list[str]) -> None:
        if not failed and any(f'"direction": "{direction}"' in x and f'"to": "{role}"' in x for x in lines):
            failed.append(1)
            raise OSError(errno.ENOSPC, "No space left on device")
        real(folder, lines)

    monkeypatch.setattr(delivery, "append_ledger", append)


def _fail_inbox_once(monkeypatch: pytest.MonkeyPatch, member: str) -> None:
    real = delivery.append_entries
    failed: list[int] = []

    def append(inbox: Path, items: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        if not failed and inbox.name == f"{member}.json":
            failed.append(1)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(inbox, items, *args, **kwargs)

    monkeypatch.setattr(delivery, "append_entries", append)


@pytest.mark.parametrize(
    "fault",
    [
        "journal implementer-1",  # before anything of implementer-1's is written
        "inbox implementer-1",  # its inbox cannot be written
        "record implementer-1",  # written to the inbox, the record of it fails
        "record implementer-2",  # the second one's record fails after the first was done
    ],
)
def test_a_fault_at_any_step_of_delivery_is_finished_by_the_next_without_a_double(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    folder = _session(tmp_path)
    team_dir = make_team(tmp_path / "claude", members=("implementer-1", "implementer-2"))
    team = read_team(team_dir)
    link = Link(team_dir, {role: role for role in UPDATES})
    step, role = fault.split()
    with monkeypatch.context() as patch:
        if step == "inbox":
            _fail_inbox_once(patch, role)
        else:
            _fail_ledger_once(patch, "delivering" if step == "journal" else "delivered", role)
        try:
            outcomes = deliver(folder, team, link, undelivered(folder))
        except OSError as exc:  # the window and the CLI say this in one line
            assert exc.errno == errno.ENOSPC and step in ("journal", "record")
        else:
            assert step == "inbox"
            (failed,) = [o for o in outcomes if not o.delivered]
            assert failed.role == role and "No space left on device" in (failed.reason or "")
    for member in UPDATES:  # nothing was written twice, whatever happened
        assert len(entries(team_dir / "inboxes" / f"{member}.json")) <= 1
    due = {e["to"] for e in undelivered(folder)}
    assert role in due  # what the fault interrupted is still due, never lost

    retried = deliver(folder, team, link, undelivered(folder))
    assert all(o.delivered for o in retried)
    for member, text in UPDATES.items():
        (item,) = entries(team_dir / "inboxes" / f"{member}.json")  # exactly once each
        reply = (
            "Reply to team-lead with SendMessage: [ACK-UPDATE] GC-v7 (applied/total, impact, action, unclear items)."
        )
        assert item["text"] == text.rstrip("\n") + "\n\n" + reply and item["from"] == "lead-console"
    delivered = [e for e in _ledger(folder) if e["direction"] == "delivered"]
    assert sorted(e["to"] for e in delivered) == sorted(UPDATES)  # one record per update
    assert undelivered(folder) == []
    if step == "record":  # found in the inbox by its time stamp, recorded, not sent again
        (recovered,) = [e for e in delivered if e.get("recovered")]
        assert recovered["to"] == role and recovered["entry_ts"] == item_ts(team_dir, role)


def item_ts(team_dir: Path, member: str) -> object:
    (item,) = entries(team_dir / "inboxes" / f"{member}.json")
    return item["timestamp"]
