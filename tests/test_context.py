"""context.yaml composition (seed 001) and GSD selective loading (seed 003)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from app.cli.main import main
from models.context.compose import compose, journal_messages, load_manifest
from models.context.gsd import (
    AGENT_TYPES,
    delta_enabled,
    extract_mapped_requirements,
    extract_phase_goal,
    extract_phase_section,
    extract_relevant_decisions,
    selective_context,
)
from models.text.tokens import get_tokenizer

TOK = get_tokenizer("o200k_base")
TRUST = lambda manifest: True  # noqa: E731


def _journal(run: Path) -> None:
    events = [
        {
            "seq": 1,
            "timestamp": "2026-11-22T03:00:00Z",
            "type": "USER_MESSAGE",
            "payload": {"content": "Review auth.ts"},
        },
        {
            "seq": 2,
            "timestamp": "t",
            "type": "THOUGHT",
            "payload": {
                "content": "Read it",
                "tool_calls": [
                    {"id": "a1", "type": "function", "function": {"name": "read", "arguments": '{"path": "auth.ts"}'}}
                ],
            },
        },
        {"seq": 3, "timestamp": "t", "type": "ACTION_REQUEST", "payload": {"action_id": "a1"}},
        {
            "seq": 4,
            "timestamp": "t",
            "type": "ACTION_RESULT",
            "payload": {"action_id": "a1", "observation_content": "export function login() {}"},
        },
        {
            "seq": 5,
            "timestamp": "t",
            "type": "THOUGHT",
            "payload": {
                "content": "Check tests",
                "tool_calls": [{"id": "a2", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
            },
        },
        {
            "seq": 6,
            "timestamp": "t",
            "type": "ACTION_RESULT",
            "payload": {"action_id": "a2", "observation_content": {"files": ["auth.test.ts"]}},
        },
        {"seq": 7, "timestamp": "t", "type": "ENGINE_NOTE", "payload": {"text": "skipped"}},
        {"seq": 8, "timestamp": "t", "type": "THOUGHT", "payload": {"content": "Done"}},
    ]
    run.mkdir(parents=True)
    (run / "journal.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n", encoding="utf-8")


@pytest.fixture
def agent(tmp_path: Path) -> tuple[Path, Path]:
    home, cwd = tmp_path / "Reviewer", tmp_path / "workspace"
    (home / "tools").mkdir(parents=True)
    cwd.mkdir()
    (home / "system_prompt.md").write_text("You review code.\n", encoding="utf-8")
    (cwd / "DELTA.md").write_text("# Project Guide\nUse npm test.\n", encoding="utf-8")
    (home / "tools" / "summarize.py").write_text(
        "import os, pathlib\n"
        "out = pathlib.Path(os.environ['DELTA_CWD']) / '.delta' / 'context_artifacts' / 'summary.md'\n"
        "out.parent.mkdir(parents=True, exist_ok=True)\n"
        "out.write_text(f\"run {os.environ['DELTA_RUN_ID']} in {os.getcwd()} for {os.environ['DELTA_AGENT_HOME']}\\n\")\n",
        encoding="utf-8",
    )
    _journal(cwd / ".delta" / "run-42")
    (cwd / ".delta" / "LATEST").write_text("run-42\n", encoding="utf-8")
    (home / "context.yaml").write_text(
        f"""sources:
  - type: file
    id: system_prompt
    path: "${{AGENT_HOME}}/system_prompt.md"
  - type: file
    id: workspace_guide
    path: "${{CWD}}/DELTA.md"
    on_missing: skip
  - type: file
    id: optional_notes
    path: "${{CWD}}/NOTES.md"
    on_missing: skip
  - type: computed_file
    id: summary
    generator:
      command: ["{sys.executable}", "${{AGENT_HOME}}/tools/summarize.py"]
      timeout_ms: 20000
    output_path: "${{CWD}}/.delta/context_artifacts/summary.md"
  - type: journal
    id: recent
    max_iterations: 2
""",
        encoding="utf-8",
    )
    return home, cwd


def test_every_source_type_in_order(agent: tuple[Path, Path]) -> None:
    home, cwd = agent
    composed = compose(home, cwd, TOK, TRUST)
    assert composed.manifest.problems == []
    got = [(b.source, b.id, b.status) for b in composed.blocks]
    assert got == [
        ("file", "system_prompt", "ok"),
        ("file", "workspace_guide", "ok"),
        ("file", "optional_notes", "skipped"),
        ("computed_file", "summary", "ok"),
        ("journal", "recent", "ok"),
    ]
    assert composed.blocks[0].content == "# Context Block: system_prompt\n\nYou review code.\n"
    summary = composed.blocks[3].content or ""
    assert f"run run-42 in {cwd.resolve()} for {home.resolve()}" in summary  # env and CWD = workspace
    assert all(b.tokens > 0 for b in composed.blocks if b.status == "ok")
    assert composed.tokens == sum(b.tokens for b in composed.blocks)


def test_journal_reconstruction_and_max_iterations(agent: tuple[Path, Path]) -> None:
    _, cwd = agent
    journal = cwd / ".delta" / "run-42" / "journal.jsonl"
    everything, problems = journal_messages(journal, None)
    assert problems == []
    assert [m["role"] for m in everything] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert everything[1]["tool_calls"][0]["id"] == "a1"
    assert everything[2] == {"role": "tool", "content": "export function login() {}", "tool_call_id": "a1"}
    assert json.loads(everything[4]["content"]) == {"files": ["auth.test.ts"]}
    last_two, _ = journal_messages(journal, 2)
    assert [m.get("content") for m in last_two] == ["Check tests", '{"files": ["auth.test.ts"]}', "Done"]
    with_noise = journal.read_text(encoding="utf-8") + "not json\n"
    journal.write_text(with_noise, encoding="utf-8")
    assert journal_messages(journal, None)[1] == ["journal line 9 is not JSON"]


def test_latest_as_a_link(agent: tuple[Path, Path]) -> None:
    home, cwd = agent
    (cwd / ".delta" / "LATEST").unlink()
    (cwd / ".delta" / "LATEST").symlink_to(cwd / ".delta" / "run-42")
    assert compose(home, cwd, TOK).blocks[4].status == "ok"


def test_generators_are_refused_without_trust_and_fail_clearly(agent: tuple[Path, Path]) -> None:
    home, cwd = agent
    refused = compose(home, cwd, TOK).blocks[3]
    assert refused.status == "refused" and "trust" in (refused.reason or "")
    assert refused.command is not None and refused.command[1] == str(home.resolve() / "tools" / "summarize.py")
    assert not (cwd / ".delta" / "context_artifacts").exists()  # nothing ran
    (home / "tools" / "summarize.py").write_text(
        "import sys\nprint('boom', file=sys.stderr)\nsys.exit(3)\n", encoding="utf-8"
    )
    failed = compose(home, cwd, TOK, TRUST).blocks[3]
    assert failed.status == "failed" and failed.reason == "generator exited with 3: boom"
    (home / "tools" / "summarize.py").write_text("import time\ntime.sleep(30)\n", encoding="utf-8")
    text = (home / "context.yaml").read_text(encoding="utf-8").replace("timeout_ms: 20000", "timeout_ms: 300")
    (home / "context.yaml").write_text(text, encoding="utf-8")
    start = time.monotonic()
    slow = compose(home, cwd, TOK, TRUST).blocks[3]
    assert slow.status == "failed" and "timed out after 0.3 s (killed)" in (slow.reason or "")
    assert time.monotonic() - start < 10


def test_missing_required_file_fails_and_default_manifest(tmp_path: Path) -> None:
    home, cwd = tmp_path / "a", tmp_path / "w"
    home.mkdir()
    cwd.mkdir()
    composed = compose(home, cwd, TOK)
    assert composed.manifest.path is None  # the default manifest
    assert [(b.id, b.status) for b in composed.blocks] == [
        ("system_prompt", "failed"),
        ("workspace_guide", "skipped"),
        ("conversation_history", "skipped"),
    ]
    assert "missing file" in (composed.blocks[0].reason or "")


@pytest.mark.parametrize(
    ("yaml_text", "problem"),
    [
        (
            "sources:\n  - type: file\n    path: x\n    colour: red\n",
            "source 1 (file_1): unknown field 'colour' for file",
        ),
        ("sources:\n  - type: file\n    id: a\n    path: 3\n", "source 1 (a): path should be str, not int"),
        ("sources:\n  - type: file\n    id: a\n", "source 1 (a): path is required for file"),
        ("sources:\n  - type: file\n    path: x\n    on_missing: maybe\n", "on_missing should be skip or error"),
        ("sources:\n  - type: vector\n", "source 1: type 'vector' is not file, computed_file or journal"),
        ("sources:\n  - type: journal\n    max_iterations: zero\n", "max_iterations should be int, not str"),
        ("sources:\n  - type: journal\n    max_iterations: 0\n", "max_iterations should be at least 1"),
        (
            "sources:\n  - type: computed_file\n    id: g\n    generator: {command: []}\n    output_path: o\n",
            "generator.command should be a non-empty list",
        ),
        (
            "sources:\n  - type: computed_file\n    id: g\n    generator: {command: [x], timeout_ms: -1, shell: true}\n    output_path: o\n",
            "generator.timeout_ms should be a positive integer",
        ),
        ("sources: []\nbudget: 4000\n", "unknown field 'budget'"),
        ("sources: [\n", "not readable YAML"),
        ("- just a list\n", "not a mapping"),
    ],
)
def test_manifest_problems_name_the_source_and_field(tmp_path: Path, yaml_text: str, problem: str) -> None:
    (tmp_path / "context.yaml").write_text(yaml_text, encoding="utf-8")
    problems = load_manifest(tmp_path).problems
    assert any(problem in p for p in problems), problems


ROADMAP = """# Roadmap

## Phase 02: Database
Goal: Schema and migrations
Must-haves:
- Migrations run

## Phase 03: Authentication
Goal: Implement user authentication with JWT
Requirements: AUTH-01, AUTH-02, AUTH-03
Must-haves:
- Login endpoint returns JWT token
- Protected routes reject invalid tokens
- Refresh token mechanism works
Notes: keep sessions short

## Phase 4: Payments
Goal: Charge cards

---
# Appendix
"""

STATE = """# State

## Current Position
Phase: 03-authentication
Status: executing

## Decisions
- [Roadmap] All API responses use JSON format
- [02-01] Postgres 16
- [03-01] Use bcrypt for password hashing (security requirement)
- [03-02] JWT expiry set to 1 hour (from AUTH-02)
"""

REQUIREMENTS = """| ID | Requirement | Priority | Status |
|----|-------------|----------|--------|
| ID | Requirement | Priority | Status |
| AUTH-01 | User can login with email/password | Must | Pending |
| AUTH-02 | JWT token returned on successful login | Must | Pending |
| PAY-01 | Charge cards | Should | Pending |
"""


def test_extraction_functions_with_padded_and_plain_numbers() -> None:
    section = extract_phase_section(ROADMAP, "3")
    assert section.startswith("## Phase 03: Authentication\n") and section.rstrip().endswith(
        "Notes: keep sessions short"
    )
    assert extract_phase_section(ROADMAP, "03") == section
    assert extract_phase_section(ROADMAP, 4).startswith(
        "## Phase 4: Payments"
    ) and "Appendix" not in extract_phase_section(ROADMAP, 4)
    goal = extract_phase_goal(ROADMAP, 3)
    assert goal == (
        "## Phase 03: Authentication\nGoal: Implement user authentication with JWT\n\nMust-haves:\n"
        "- Login endpoint returns JWT token\n- Protected routes reject invalid tokens\n- Refresh token mechanism works\n"
    )
    decisions = extract_relevant_decisions(STATE, "3")
    assert decisions.splitlines() == [  # the seed's example output, one blank line between
        "## Current Position",
        "Phase: 03-authentication",
        "Status: executing",
        "",
        "## Relevant Decisions",
        "- [Roadmap] All API responses use JSON format",
        "- [03-01] Use bcrypt for password hashing (security requirement)",
        "- [03-02] JWT expiry set to 1 hour (from AUTH-02)",
    ]
    mapped = extract_mapped_requirements(REQUIREMENTS, "AUTH-01, AUTH-02")
    assert mapped.splitlines() == [  # the rows, under their table's header
        "| ID | Requirement | Priority | Status |",
        "|----|-------------|----------|--------|",
        "| AUTH-01 | User can login with email/password | Must | Pending |",
        "| AUTH-02 | JWT token returned on successful login | Must | Pending |",
    ]
    assert extract_phase_section(ROADMAP, 9) == "" and extract_mapped_requirements(REQUIREMENTS, "X-1") == ""


@pytest.fixture
def planning(tmp_path: Path) -> Path:
    folder = tmp_path / "project" / ".planning"
    folder.mkdir(parents=True)
    (folder / "PROJECT.md").write_text("# Project\nA web app.\n" * 20, encoding="utf-8")
    (folder / "ROADMAP.md").write_text(ROADMAP, encoding="utf-8")
    (folder / "STATE.md").write_text(STATE, encoding="utf-8")
    (folder / "REQUIREMENTS.md").write_text(REQUIREMENTS, encoding="utf-8")
    (folder / "config.json").write_text(json.dumps({"optimization": {"delta_context": True}}), encoding="utf-8")
    (folder / "03-01-PLAN.md").write_text("---\nrequirements: AUTH-01,AUTH-02\n---\n", encoding="utf-8")
    return folder


def test_selective_context_per_agent_type(planning: Path) -> None:
    plan = planning / "03-01-PLAN.md"
    executor = selective_context(planning, "gsd-executor", "3", TOK, plan)
    modes = {p.file: (p.mode, p.warning) for p in executor.parts}
    assert modes == {
        "PROJECT.md": ("skip", None),
        "ROADMAP.md": ("phase section", None),
        "STATE.md": ("relevant decisions", None),
        "REQUIREMENTS.md": ("task-mapped", None),
    }
    assert executor.tokens < executor.full_tokens and "PAY-01" not in executor.text
    verifier = selective_context(planning, "gsd-verifier", "03", TOK)
    assert {p.file: p.mode for p in verifier.parts}["STATE.md"] == "full"
    planner = selective_context(planning, "gsd-planner", 3, TOK)
    assert planner.tokens <= planner.full_tokens
    for agent in AGENT_TYPES:
        assert (
            selective_context(planning, agent, 3, TOK, plan).tokens
            <= selective_context(planning, agent, 3, TOK, plan).full_tokens
        )


def test_fallbacks_never_fail(planning: Path) -> None:
    (planning / "STATE.md").write_text("# State\nno position section\n", encoding="utf-8")
    result = selective_context(planning, "gsd-executor", 9, TOK)
    parts = {p.file: p for p in result.parts}
    assert parts["ROADMAP.md"].warning == (  # the seed's warning, and what was looked for
        "Delta context extraction failed for ROADMAP.md, using full context"
        " (looked for a 'Phase 9' heading or checklist line)"
    )
    assert parts["ROADMAP.md"].tokens == parts["ROADMAP.md"].full_tokens
    assert parts["STATE.md"].warning is not None and parts["STATE.md"].text.startswith("# State")
    assert parts["REQUIREMENTS.md"].tokens == 0 and "no plan given" in (parts["REQUIREMENTS.md"].warning or "")
    (planning / "config.json").write_text("{}", encoding="utf-8")
    assert not delta_enabled(planning)
    off = selective_context(planning, "gsd-executor", 3, TOK)
    assert off.tokens == sum(p.full_tokens for p in off.parts if p.mode != "skip")
    with pytest.raises(ValueError, match="unknown agent type"):
        selective_context(planning, "gsd-wizard", 3, TOK)


def test_cli_context_and_planning(agent: tuple[Path, Path], planning: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, cwd = agent
    assert main(["context", str(home), "--cwd", str(cwd), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [b["status"] for b in data["blocks"]] == ["ok", "ok", "skipped", "refused", "ok"]
    assert main(["context", str(home), "--cwd", str(cwd), "--allow-exec"]) == 0
    assert "computed_file" in capsys.readouterr().out
    assert (
        main(
            [
                "planning",
                str(planning.parent),
                "--agent",
                "gsd-executor",
                "--phase",
                "3",
                "--plan",
                str(planning / "03-01-PLAN.md"),
                "--json",
            ]
        )
        == 0
    )
    plan = json.loads(capsys.readouterr().out)
    assert plan["delta_context"] is True and plan["saved_tokens"] > 0


def test_a_journal_nested_past_the_parser_or_with_a_seq_that_is_no_number_is_read(
    agent: tuple[Path, Path], tmp_path: Path
) -> None:
    """Issue 45: both ended `context` in a traceback. A line nested deeper than JSON can be
    read is no line; a ``seq`` that is no number is taken as 0, as a line without one is."""
    journal = tmp_path / "journal.jsonl"
    lines = [
        '{"seq": 2, "type": "USER_MESSAGE", "payload": {"content": "second"}}',
        '{"seq": "x", "type": "USER_MESSAGE", "payload": {"content": "no number"}}',
        "[" * 100_000 + "]" * 100_000,
        '{"seq": 1, "type": "USER_MESSAGE", "payload": {"content": "first"}}',
    ]
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    messages, problems = journal_messages(journal, None)
    assert [m["content"] for m in messages] == ["no number", "first", "second"]  # seq 'x' taken as 0
    assert problems == ["journal line 2: seq 'x' is not a number; taken as 0", "journal line 3 is not JSON"]
