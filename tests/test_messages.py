"""Parsers for what teammates send back: every form, real-looking and malformed, never guessing."""

from __future__ import annotations

import json

import pytest

from conftest import CLAUDE_TEAM
from models.review.messages import classify, parse_ack, parse_delta_report, parse_status

# (message, version, applied, total, action, unclear, problems expected)
ACKS = [
    (
        "[ACK-UPDATE] GC-v5 received.\n- Delta items applied: 3/3\n- Impact on my work: NONE\n- Action taken: CONTINUE\n- Unclear items: none",
        5,
        3,
        3,
        "CONTINUE",
        [],
        False,
    ),
    (
        "[ACK-UPDATE] GC-v5 received. Items: 2/3. Impact: auth path moved. Action: NEED_CLARIFICATION",
        5,
        2,
        3,
        "NEED_CLARIFICATION",
        None,
        False,
    ),
    (
        "**[ACK-UPDATE]** GC-v6 received. Items: 1/2. Impact: merge_regions() moves. Action: NEED_CLARIFICATION\nUnclear items: §Interface Contracts.VisionResult",
        6,
        1,
        2,
        "NEED_CLARIFICATION",
        ["Interface Contracts.VisionResult"],
        False,
    ),
    (
        "Thanks!\n\n[ACK-UPDATE] GC-v7 received.\n* **Delta items applied:** 4/4\n* **Impact on my work:** T-5 waits for D-9\n* **Action taken:** CONTINUE\n* **Unclear items:** none\n\nBack to T-5.",
        7,
        4,
        4,
        "CONTINUE",
        [],
        False,
    ),
    (
        "[ACK-UPDATE]  GC-v7  received.\n-  Delta items applied :  2 / 3\n-  Impact on my work : minor\n-  Action taken :  PAUSE\n-  Unclear items :  §Risks, §Scope.Goal",
        7,
        2,
        3,
        "PAUSE",
        ["Risks", "Scope.Goal"],
        False,
    ),
    (
        "[ACK-UPDATE] GC-v8 수신 완료.\n- Delta items applied: 2/2\n- Impact on my work: 없음\n- Action taken: CONTINUE\n- Unclear items: 없음",
        8,
        2,
        2,
        "CONTINUE",
        [],
        False,
    ),
    (
        "[ACK-UPDATE] GC-v8 received.\n- Delta items applied: 1/3\n- Impact on my work: NONE\n- Action taken: need clarification\n- Unclear items: §Decisions.D-7 and §Open Questions",
        8,
        1,
        3,
        "NEED_CLARIFICATION",
        ["Decisions.D-7", "Open Questions"],
        False,
    ),
    ("[ACK-UPDATE] GC-v9 received. Items: 3/3. Impact: none. Action: CONTINUE.", 9, 3, 3, "CONTINUE", None, False),
    (
        "[ACK-UPDATE] received.\n- Delta items applied: 3/3\n- Impact on my work: NONE\n- Action taken: CONTINUE\n- Unclear items: none",
        None,
        3,
        3,
        "CONTINUE",
        [],
        True,
    ),
    (
        "[ACK-UPDATE] GC-v5 received.\n- Impact on my work: NONE\n- Action taken: CONTINUE\n- Unclear items: none",
        5,
        None,
        None,
        "CONTINUE",
        [],
        True,
    ),
    (
        "[ACK-UPDATE] GC-v5 received.\n- Delta items applied: 3/3\n- Impact on my work: NONE\n- Action taken: MAYBE\n- Unclear items: none",
        5,
        3,
        3,
        None,
        [],
        True,
    ),
    (
        "[ACK-UPDATE] GC-v5 received.\n- Delta items applied: 5/3\n- Impact on my work: NONE\n- Action taken: CONTINUE\n- Unclear items: none",
        5,
        5,
        3,
        "CONTINUE",
        [],
        True,
    ),
    (
        "[ACK-UPDATE] GC-v5 received.\n- Delta items applied: 2/3\n- Impact on my work: NONE\n- Action taken: NEED_CLARIFICATION\n- Unclear items: the table thing",
        5,
        2,
        3,
        "NEED_CLARIFICATION",
        [],
        True,
    ),
    ("[ACK-UPDATE] GC-v5", 5, None, None, None, None, True),
    ("[ack-update] gc-v5 received. items: 1/1. impact: none. action: continue", 5, 1, 1, "CONTINUE", None, False),
    # An action word with the model's own words after it: the word is read, the rest left.
    (
        "[ACK-UPDATE] GC-v5 received.\n- Delta items applied: 3/3\n- Impact on my work: NONE\n"
        "- Action taken: CONTINUE with T-5\n- Unclear items: none",
        5,
        3,
        3,
        "CONTINUE",
        [],
        False,
    ),
    (
        "[ACK-UPDATE] GC-v5 received. Items: 1/1. Impact: blocks T-6. Action: Pause until Gate 6",
        5,
        1,
        1,
        "PAUSE",
        None,
        False,
    ),
]


@pytest.mark.parametrize(("text", "version", "applied", "total", "action", "unclear", "problems"), ACKS)
def test_acks(
    text: str,
    version: int | None,
    applied: int | None,
    total: int | None,
    action: str | None,
    unclear: list[str] | None,
    problems: bool,
) -> None:
    assert classify(text) == "ack"
    ack = parse_ack(text)
    assert (ack.version, ack.applied, ack.total, ack.action, ack.unclear) == (version, applied, total, action, unclear)
    assert bool(ack.unreadable) is problems, ack.unreadable


def test_one_line_impact_stops_at_action() -> None:
    ack = parse_ack("[ACK-UPDATE] GC-v5 received. Items: 2/3. Impact: auth path moved. Action: NEED_CLARIFICATION")
    assert ack.impact == "auth path moved" and ack.form == "one-line"


STATUSES = [
    ("[STATUS] Phase 6 | CONTEXT_RECEIVED | GC-v5", 6, "CONTEXT_RECEIVED", 5, False),
    ("[STATUS] Phase 6 | CONTEXT_LOST", 6, "CONTEXT_LOST", None, False),
    ("**[STATUS]** Phase 7 | BLOCKED", 7, "BLOCKED", None, False),
    ("[STATUS] Phase 6 | COMPLETE", 6, "COMPLETE", None, False),
    ("[STATUS] Phase 6 | IN_PROGRESS", 6, "IN_PROGRESS", None, False),
    ("[STATUS] Phase 6 | CONTEXT_PRESSURE", 6, "CONTEXT_PRESSURE", None, False),
    ("Heads up: [STATUS] Phase 3 | context received | GC-v2", 3, "CONTEXT_RECEIVED", 2, False),
    ("[STATUS] Phase 6 | CONTEXT_RECEIVED", 6, "CONTEXT_RECEIVED", None, True),
    ("[STATUS] Phase 6 | SLEEPING", 6, None, None, True),
    ("[STATUS]", None, None, None, True),
]


@pytest.mark.parametrize(("text", "phase", "status", "version", "problems"), STATUSES)
def test_statuses(text: str, phase: int | None, status: str | None, version: int | None, problems: bool) -> None:
    assert classify(text) == "status"
    parsed = parse_status(text)
    assert (parsed.phase, parsed.status, parsed.version) == (phase, status, version)
    assert bool(parsed.unreadable) is problems, parsed.unreadable


REPORT = """Finished T-7.

DELTA:
  changes:
    - "cow_mcp/export/latex.py: XeLaTeX + kotex preamble"
  risks:
    - level: high
      desc: "Existing sessions will be invalidated"
  alternatives:
    - "Dual support during transition: Adds complexity"
  needs_consult: yes
"""

STATE_AND_DELTA = """STATE:
  objective: "Ledger"
  current_state: "Step 3/5 complete"
  next_action: "Step 4: replay"

DELTA:
  changes: ["a", "b"]
  risks:
    - level: low
      desc: "All tests pass"
  alternatives: []
  needs_consult: no
"""


def test_delta_reports_with_and_without_state() -> None:
    report = parse_delta_report(REPORT)
    assert classify(REPORT) == "delta_report"
    assert report.changes == ["cow_mcp/export/latex.py: XeLaTeX + kotex preamble"]
    assert [(r.level, r.desc) for r in report.risks] == [("high", "Existing sessions will be invalidated")]
    assert report.needs_consult is True and report.attention and report.unreadable == []
    both = parse_delta_report(STATE_AND_DELTA)
    assert both.state == {"objective": "Ledger", "current_state": "Step 3/5 complete", "next_action": "Step 4: replay"}
    assert both.changes == ["a", "b"] and both.needs_consult is False and not both.attention


@pytest.mark.parametrize(
    ("consult", "level", "attention"),
    [
        ('"yes"', "low", True),  # quoted: a string, not YAML's boolean; asked to consult, the Lead looks
        ("Yes", "medium", True),
        ('"No"', "critical", True),  # no consult asked, but a critical risk
        ('"no"', "high", True),
        ("no", "medium", False),
        ('"NO"', "low", False),
    ],
)
def test_a_report_needs_the_lead_when_it_asks_to_consult_or_names_a_high_risk(
    consult: str, level: str, attention: bool
) -> None:
    """Seed 004's DELTA block: ``needs_consult: yes`` or a critical or high risk asks for the Lead,
    however the yes or no is written."""
    text = f"DELTA:\n  changes: [a]\n  risks:\n    - level: {level}\n      desc: d\n  alternatives: []\n"
    report = parse_delta_report(text + f"  needs_consult: {consult}\n")
    assert report.unreadable == []
    assert report.needs_consult is (consult.strip('"').lower() == "yes")
    assert report.attention is attention


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("DELTA:\n  changes: [a\n", "not readable YAML"),
        (
            "DELTA:\n  changes:\n    - x\n  risks:\n    - level: severe\n      desc: y\n  alternatives: []\n  needs_consult: no\n",
            "risk level 'severe'",
        ),
        (
            "DELTA:\n  changes:\n    - x\n  risks: []\n  alternatives: []\n  needs_consult: maybe\n",
            "needs_consult is not yes or no",
        ),
        ("DELTA:\n  changes:\n    - x\n  risks: []\n  needs_consult: no\n  mood: good\n", "unknown DELTA field 'mood'"),
        ("DELTA:\n  risks:\n    - just a sentence\n  alternatives: []\n  needs_consult: no\n", "no changes"),
    ],
)
def test_malformed_delta_reports_say_why(text: str, problem: str) -> None:
    assert any(problem in u for u in parse_delta_report(text).unreadable)


def test_claude_code_inbox_items_are_classified() -> None:
    items = json.loads((CLAUDE_TEAM / "inboxes" / "team-lead.json").read_text(encoding="utf-8"))
    assert [classify(i["text"]) for i in items] == ["status", "protocol", "ack", "ack", "status", "delta_report"]


@pytest.mark.parametrize(
    "text",
    ["just chatting", '{"not": "protocol"}', "", "[CONTEXT-UPDATE] GC-v5 → GC-v6\n## Delta\n- REMOVED §A: k"],
)
def test_other_messages_are_not_mistaken(text: str) -> None:
    assert classify(text) in ("unknown", "context_update")
