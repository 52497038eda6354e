"""GSD (seed 003) on forms real ``.planning/`` folders write that the extraction misread
(issue 44), each in a file written here by hand, with what a person picks out of it."""

from __future__ import annotations

from pathlib import Path

from models.context.gsd import selective_context
from models.context.gsd_extract import extract_phase_goal, relevant_decisions
from models.text.tokens import get_tokenizer

STATE = """# Project State

## Current Position
Phase: 2 of 4 (Exporter)

## Accumulated Context

### Decisions
- [v1.1 Roadmap]: Ship the CSV exporter before the S3 one
- [Roadmap v1.3]: Drop the XML format
- [Phase 2]: Stream rows instead of building the file in memory
- [03-01]: Retry uploads three times

### Blockers/Concerns
- [Phase 2]: The S3 bucket policy is not approved yet
- [Roadmap]: Budget review pending
"""


def test_roadmap_tags_in_other_forms_and_only_the_decisions_section_count() -> None:
    assert relevant_decisions(STATE, 2) == [
        "- [v1.1 Roadmap]: Ship the CSV exporter before the S3 one",
        "- [Roadmap v1.3]: Drop the XML format",
        "- [Phase 2]: Stream rows instead of building the file in memory",
    ]
    assert relevant_decisions(STATE, 3) == [
        "- [v1.1 Roadmap]: Ship the CSV exporter before the S3 one",
        "- [Roadmap v1.3]: Drop the XML format",
        "- [03-01]: Retry uploads three times",
    ]


def test_without_a_decisions_section_every_tagged_line_is_read() -> None:
    flat = "# State\n\n- [Roadmap]: One exporter per format\n- [Phase 2]: Stream rows\n"
    assert relevant_decisions(flat, 2) == ["- [Roadmap]: One exporter per format", "- [Phase 2]: Stream rows"]


CHECKLIST_ROADMAP = """# Roadmap

## Phases
- [x] Phase 1: Engine (5/5 plans) — completed
- [ ] Phase 2: Exporter

### Phase 2: Exporter
**Goal:** Export every ledger as CSV
**Success Criteria:**
1. A ledger of 1M rows exports in one pass
"""


def test_a_phase_with_neither_goal_nor_criteria_gets_the_whole_roadmap_with_a_warning(tmp_path: Path) -> None:
    assert extract_phase_goal(CHECKLIST_ROADMAP, 1) == ""  # the checklist line alone: no goal to give
    assert extract_phase_goal(CHECKLIST_ROADMAP, 2) == (
        "### Phase 2: Exporter\n**Goal:** Export every ledger as CSV\n\n"
        "**Success Criteria:**\n1. A ledger of 1M rows exports in one pass\n"
    )
    planning = tmp_path / ".planning"
    planning.mkdir()
    (planning / "ROADMAP.md").write_text(CHECKLIST_ROADMAP, encoding="utf-8")
    (planning / "STATE.md").write_text(STATE, encoding="utf-8")
    result = selective_context(planning, "gsd-verifier", "1", get_tokenizer("estimate"), delta=True)
    roadmap = next(p for p in result.parts if p.file == "ROADMAP.md")
    assert roadmap.status == "fallback" and roadmap.text == CHECKLIST_ROADMAP
    assert roadmap.warning == (
        "Delta context extraction failed for ROADMAP.md, using full context "
        "(looked for a 'Phase 1' block with a 'Goal:' line or success criteria)"
    )


def test_a_plan_that_is_not_utf8_is_read_and_said(tmp_path: Path) -> None:
    """Issue 45: a PLAN.md with a byte that is no UTF-8 gave its requirements with no word of
    it; they are read (the byte replaced) and the result names the file and the byte."""
    planning = tmp_path / ".planning"
    planning.mkdir()
    (planning / "STATE.md").write_text(STATE, encoding="utf-8")
    plan = planning / "02-01-PLAN.md"
    plan.write_bytes(b"---\nrequirements: [EXP-01]\nowner: J\xf6rg\n---\n# Plan\n")
    result = selective_context(planning, "gsd-executor", "2", get_tokenizer("estimate"), plan, delta=True)
    assert result.requirements == ("EXP-01",)
    assert result.problems == [
        "02-01-PLAN.md: not valid UTF-8 (byte 0xf6 at offset 35); shown with replacement characters, never written back"
    ]
