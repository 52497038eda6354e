"""How far each teammate's last update got (the table's Delivery column) and whether a
compaction took its GC, read from ledgers written here by hand.

PROTOCOL.md: an entry turning read, or leaving the inbox, means the harness picked the message
up; only the teammate's [ACK-UPDATE] means the model took it in. A compaction after the last
full GC a teammate confirmed leaves that GC a summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from models.claude.following import follow, presumed_lost
from models.claude.team import Link, Member, Team


def _sent(to: str, file: str, version: int, ts: str, mode: str = "delta") -> dict[str, Any]:
    return {"direction": "sent", "to": to, "file": file, "gc_version": version, "mode": mode, "ts": ts}


def _delivered(to: str, file: str, ts: str, member: str | None = None) -> dict[str, Any]:
    entry = {"direction": "delivered", "to": to, "file": file, "ts": ts, "entry_ts": ts}
    return entry if member is None else {**entry, "member": member}


def _team(tmp_path: Path, inbox: list[dict[str, Any]] | None) -> Team:
    folder = tmp_path / "team"
    (folder / "inboxes").mkdir(parents=True)
    if inbox is not None:
        (folder / "inboxes" / "impl-one.json").write_text(json.dumps(inbox), encoding="utf-8")
    return Team(folder, "team", "team-lead", None, [Member("impl-one")])


LINK = Link(Path("team"), {"implementer-1": "impl-one"}, "team-lead")  # as links before 2.1.332 wrote
T_SENT, T_DELIVERED = "2026-11-22T03:00:00Z", "2026-11-22T03:00:01Z"
LEDGER = [_sent("implementer-1", "outbox/u7.md", 7, T_SENT), _delivered("implementer-1", "outbox/u7.md", T_DELIVERED)]


@pytest.mark.parametrize(
    ("inbox", "state"),
    [
        ([{"from": "team-lead", "timestamp": T_DELIVERED, "text": "...", "read": False}], "written"),
        ([{"from": "team-lead", "timestamp": T_DELIVERED, "text": "...", "read": True}], "picked up"),
        ([], "picked up"),  # a release that drains delivered entries: it is gone, so taken
        ([{"from": "someone-else", "timestamp": T_DELIVERED, "text": "...", "read": False}], "picked up"),
        (None, "written"),  # no inbox file to look at: written is all that is known
    ],
)
def test_a_delivered_update_is_written_until_the_inbox_shows_it_taken(
    tmp_path: Path, inbox: list[dict[str, Any]] | None, state: str
) -> None:
    followed = follow(tmp_path, _team(tmp_path, inbox), LINK, {}, LEDGER)["implementer-1"]
    assert (followed.member, followed.delivered_ts, followed.state) == ("impl-one", T_DELIVERED, state)


def test_only_an_ack_or_a_confirmed_version_makes_it_acked(tmp_path: Path) -> None:
    assert follow(tmp_path, None, LINK, {"implementer-1": 6}, LEDGER)["implementer-1"].state == "written"
    assert follow(tmp_path, None, LINK, {"implementer-1": 7}, LEDGER)["implementer-1"].state == "ACKed"
    assert follow(tmp_path, None, LINK, {"implementer-1": 8}, LEDGER)["implementer-1"].state == "ACKed"
    acked = follow(tmp_path, None, LINK, {"implementer-1": 6}, LEDGER, acks={("implementer-1", 7)})
    assert acked["implementer-1"].state == "ACKed"
    other = follow(
        tmp_path, None, LINK, {"implementer-1": 6}, LEDGER, acks={("implementer-1", 6), ("implementer-2", 7)}
    )
    assert other["implementer-1"].state == "written"


def test_a_failed_delivery_says_why_until_a_later_attempt_delivers_it(tmp_path: Path) -> None:
    sent = _sent("implementer-1", "outbox/u7.md", 7, T_SENT)
    failed = {"direction": "undelivered", "to": "implementer-1", "file": "outbox/u7.md", "reason": "inbox lock busy"}
    once = follow(tmp_path, None, LINK, {}, [sent, failed])["implementer-1"]
    assert (once.state, once.reason, once.member) == ("undelivered", "inbox lock busy", "impl-one")
    again = follow(tmp_path, None, LINK, {}, [sent, failed, _delivered("implementer-1", "outbox/u7.md", T_DELIVERED)])
    assert (again["implementer-1"].state, again["implementer-1"].reason) == ("written", None)


def test_the_member_written_to_is_the_one_the_delivery_names(tmp_path: Path) -> None:
    """The link may have changed since: the row names where the message went."""
    ledger = [
        _sent("implementer-1", "outbox/u7.md", 7, T_SENT),
        _delivered("implementer-1", "outbox/u7.md", T_DELIVERED, "old-one"),
    ]
    assert follow(tmp_path, None, LINK, {}, ledger)["implementer-1"].member == "old-one"
    assert follow(tmp_path, None, None, {}, LEDGER)["implementer-1"].member is None


def test_only_the_last_update_sent_to_a_teammate_is_followed(tmp_path: Path) -> None:
    ledger = [*LEDGER, _sent("implementer-1", "outbox/u8.md", 8, "2026-11-22T04:00:00Z")]
    last = follow(tmp_path, None, LINK, {"implementer-1": 7}, ledger)["implementer-1"]
    assert (last.file, last.gc_version, last.state) == ("outbox/u8.md", 8, "undelivered")


# -- presumed_lost: compacted after the last confirmed full GC reached it ---------------------

FULL_V5 = [
    _sent("implementer-1", "outbox/full5.md", 5, "2026-11-21T10:00:00Z", mode="full"),
    _delivered("implementer-1", "outbox/full5.md", "2026-11-21T10:00:05Z"),
]


@pytest.mark.parametrize(
    ("compactions", "confirmed", "ledger", "lost"),
    [
        (["2026-11-21T11:00:00Z"], 5, FULL_V5, "2026-11-21T11:00:00Z"),
        (["2026-11-21T09:00:00Z"], 5, FULL_V5, None),  # compacted before the GC reached it
        (["2026-11-21T10:00:05Z"], 5, FULL_V5, None),  # the same second: not after
        (["2026-11-21T09:00:00Z", "2026-11-21T12:00:00Z"], 5, FULL_V5, "2026-11-21T12:00:00Z"),  # the latest
        (["2026-11-21T11:00:00Z"], 4, FULL_V5, "2026-11-21T11:00:00Z"),  # v5 not confirmed: no full GC counts
        (["2026-11-21T11:00:00Z"], None, FULL_V5, None),  # no confirmed GC, none to lose
        (["2026-11-21T11:00:00Z"], -1, FULL_V5, None),
        ([], 5, FULL_V5, None),
        (  # a delta after the full GC does not move it: the full GC is what a compaction takes
            ["2026-11-21T11:00:00Z"],
            6,
            [*FULL_V5, _sent("implementer-1", "outbox/d6.md", 6, "2026-11-21T10:30:00Z")],
            "2026-11-21T11:00:00Z",
        ),
        (  # a full GC sent to another teammate is not this one's
            ["2026-11-21T11:00:00Z"],
            5,
            [
                _sent("implementer-2", "outbox/full5b.md", 5, "2026-11-21T11:30:00Z", mode="full"),
                _delivered("implementer-2", "outbox/full5b.md", "2026-11-21T11:30:05Z"),
            ],
            "2026-11-21T11:00:00Z",
        ),
        (  # sent, never delivered: its sending time stands for when it reached the teammate
            ["2026-11-21T11:00:00Z"],
            5,
            [_sent("implementer-1", "outbox/full5.md", 5, "2026-11-21T12:00:00Z", mode="full")],
            None,
        ),
    ],
)
def test_a_compaction_after_the_confirmed_full_gc_reached_it_is_a_loss(
    compactions: list[str], confirmed: int | None, ledger: list[dict[str, Any]], lost: str | None
) -> None:
    assert presumed_lost("implementer-1", compactions, confirmed, ledger) == lost
