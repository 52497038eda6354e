"""Plan, TEAM-MEMORY, gate records and the session as a whole, on the real folders."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from app.cli.report import session_data
from conftest import CH006, COW, DEMO, snapshot_tree
from models.session.folder import open_session
from models.session.gates import parse_gate
from models.session.locate import find_sessions, part_of
from models.session.memory_entries import TAGS
from models.session.memory_parse import parse_memory
from models.session.plan import parse_plan
from models.text.tokens import get_tokenizer

TOK = get_tokenizer("o200k_base")


def test_cow_plan_front_matter_and_teammate_tables() -> None:
    plan = parse_plan((COW / "orchestration-plan.md").read_text(encoding="utf-8"))
    assert plan.problems == []
    assert plan.gc_version == 6
    assert plan.teammate_gc_versions == {} and plan.gate_evaluation is None
    names = [r.name for r in plan.table_rows]
    assert names == [
        "architect-1",
        "devils-advocate-1",
        "implementer-1",
        "implementer-2",
        "implementer-3",
    ]
    assert plan.table_rows[-1].status == "COMPLETE"


def test_demo_plan_tracking_maps() -> None:
    plan = parse_plan((DEMO / "orchestration-plan.md").read_text(encoding="utf-8"))
    assert plan.problems == []
    assert plan.teammate_gc_versions["implementer-3"] == 5
    last = plan.teammate_gc_last_delta["implementer-4"]
    assert (last.sent_version, last.delta_size) == (6, 187)
    assert plan.teammate_status == {"implementer-4": "CONTEXT_LOST"}


def test_plan_with_odd_values_reports_instead_of_guessing() -> None:
    text = (
        "---\ngc_version: GC-vX\nteammate_gc_versions:\n  a-1: GC-v3\n  b-1: soon\n"
        "teammate_gc_last_delta: [1, 2]\ngate_evaluation: {phase: 6, started: 2026-02-09T11:00:00Z}\n---\n"
        "| Teammate | Current GC | Status |\n|---|---|---|\n| c-1 | GC-v2 | SPAWNING |\n\n"
        "| Phase | Verdict |\n|---|---|\n| 1 | APPROVED |\n"
    )
    plan = parse_plan(text)
    assert plan.gc_version is None
    assert plan.teammate_gc_versions == {"a-1": 3}
    messages = " | ".join(p.message for p in plan.problems)
    assert "gc_version" in messages and "b-1" in messages and "teammate_gc_last_delta" in messages
    assert plan.gate_evaluation is not None and plan.gate_evaluation["phase"] == 6
    assert [(r.name, r.gc_version, r.status) for r in plan.table_rows] == [("c-1", 2, "SPAWNING")]


def test_real_team_memory_sections_and_entries() -> None:
    memory = parse_memory((COW / "TEAM-MEMORY.md").read_text(encoding="utf-8"))
    assert memory.problems == []
    assert memory.title == "TEAM-MEMORY — COW Pipeline Redesign"
    assert [(s.role, s.kind) for s in memory.sections] == [
        ("Lead", "lead"),
        ("implementer-1", "role"),
        ("implementer-2", "role"),
        ("implementer-3", "role"),
        ("architect-1", "role"),
    ]
    arch = memory.sections[-1]
    assert arch.header == "architect-1 (Phase 4 — COMPLETE)"
    lead = memory.sections[0]
    assert len(lead.entries) == 3
    assert lead.entries[2].text.count("\n") == 4  # four indented continuation lines
    assert memory.line_count == 56


def test_demo_memory_has_all_tags_markers_and_meta() -> None:
    memory = parse_memory((DEMO / "TEAM-MEMORY.md").read_text(encoding="utf-8"))
    tags = {e.tag for s in memory.sections for e in s.entries}
    assert set(TAGS) <= tags
    assert memory.gc_version_label == "GC-v6"
    replaced = [s for s in memory.sections if s.replaced]
    assert [s.role for s in replaced] == ["implementer-4"]
    archived = [e for s in memory.sections for e in s.entries if e.archived]
    assert {e.tag for e in archived} == {"Decision", "Finding"}
    assert memory.problems == []  # a replaced and an active section may share a role


def test_memory_markers_in_either_order_and_fenced_headers() -> None:
    text = (
        "# TEAM-MEMORY — x\n\n## Lead\n- [Finding] [ARCHIVED] a\n- **[Warning]** b\n- [Gate] c\n"
        "```\n## not-a-section\n```\n## implementer-1 [REPLACED]\n- plain\n"
        "## implementer-1\n## implementer-1\n"
    )
    memory = parse_memory(text)
    lead = memory.sections[0]
    assert [(e.tag, e.archived, e.text) for e in lead.entries] == [
        ("Finding", True, "a"),
        ("Warning", False, "b"),
        ("Gate", False, "c"),
    ]
    assert not lead.entries[2].known_tag
    assert [s.role for s in memory.sections] == [
        "Lead",
        "implementer-1",
        "implementer-1",
        "implementer-1",
    ]
    assert any("2 active sections for implementer-1" in p.message for p in memory.problems)


@pytest.mark.parametrize("session", [COW, CH006, DEMO], ids=lambda p: p.name)
def test_gate_records_in_both_forms(session: Path) -> None:
    gates = open_session(session, TOK).gates
    assert gates and all(g.verdict for g in gates)
    assert [g.phase for g in gates] == sorted(g.phase for g in gates if g.phase is not None)


def test_gate_record_fields_and_fallbacks() -> None:
    front = parse_gate(
        "---\ngate: 5\nverdict: CONDITIONAL_PASS\ngc_version_in: GC-v4\ngc_version_out: GC-v5\n---\n# x\n",
        "p",
        None,
    )
    assert (front.phase, front.verdict, front.gc_in, front.gc_out) == (5, "CONDITIONAL_PASS", 4, 5)
    plain = parse_gate("result: APPROVED\n", "p", 3)
    assert (plain.phase, plain.verdict) == (3, "APPROVED")
    broken = parse_gate("phase: [1\n", "p", 2)
    assert broken.phase == 2 and broken.problems and broken.problems[0].severity == "error"


def test_teammates_are_the_union_of_all_sources() -> None:
    session = open_session(DEMO, TOK)
    mates = {t.role: t for t in session.teammates()}
    assert list(mates) == [
        "implementer-1",
        "implementer-2",
        "implementer-3",
        "implementer-4",
        "researcher-1",
    ]
    four = mates["implementer-4"]
    assert (four.confirmed, four.sent, four.status) == (5, 6, "CONTEXT_LOST")
    assert four.sources == ("plan", "plan table", "memory", "phase-6")
    assert mates["researcher-1"].sources == ("plan", "plan table", "memory", "phase-2")
    ch = {t.role: t for t in open_session(CH006, TOK).teammates()}
    assert ch["architect-1"].confirmed == 2  # from the plan's "Current GC" table column
    assert ch["researcher-1"].sources == ("phase-2",)


def test_session_version_falls_back_to_the_plan(tmp_path: Path) -> None:
    (tmp_path / "global-context.md").write_text("# GC without front matter\n## A\n", encoding="utf-8")
    (tmp_path / "orchestration-plan.md").write_text("---\ngc_version: GC-v9\n---\n", encoding="utf-8")
    assert open_session(tmp_path, TOK).gc_version == 9


@pytest.mark.parametrize("session", [COW, CH006, DEMO], ids=lambda p: p.name)
def test_reading_a_session_changes_no_file(session: Path) -> None:
    before = snapshot_tree(session)
    data = session_data(open_session(session, TOK))
    json.dumps(data)
    assert snapshot_tree(session) == before


def test_broken_file_keeps_the_last_good_reading(demo_copy: Path) -> None:
    session = open_session(demo_copy, TOK)
    good_titles = [s.title for s in session.gc.walk()]  # type: ignore[union-attr]
    (demo_copy / "global-context.md").write_text("---\nversion: GC-v7\nfeature: [half\n", encoding="utf-8")
    assert session.reload(["gc"]) == {"gc"}
    assert [s.title for s in session.gc.walk()] == good_titles  # type: ignore[union-attr]
    messages = [p.message for p in session.problems["gc"]]
    assert any("never ends" in m for m in messages) and any("last good" in m for m in messages)
    (demo_copy / "global-context.md").write_bytes(b"")
    session.reload(["gc"])
    assert any("empty" in p.message for p in session.problems["gc"])
    (demo_copy / "global-context.md").write_text("---\nversion: GC-v7\n---\n# New\n## Only\n", encoding="utf-8")
    session.reload(["gc"])
    assert session.gc_version == 7 and session.problems["gc"] == []


@pytest.mark.parametrize("name", ["global-context.md", "TEAM-MEMORY.md", "orchestration-plan.md"])
def test_the_good_bytes_back_after_a_broken_write_clear_its_warning(demo_copy: Path, name: str) -> None:
    """An agent's write caught half-way (here: bytes that are not UTF-8) shows the last good
    version with a warning; when the file holds the good bytes again, the warning goes. The
    follow-up had found the shown text unchanged and kept the warning."""
    session = open_session(demo_copy, TOK)
    path = demo_copy / name
    good = path.read_bytes()
    path.write_bytes(good.replace(b"\n", b"\xff\n", 1))
    assert session.reload() != set()
    part = {"global-context.md": "gc", "TEAM-MEMORY.md": "memory", "orchestration-plan.md": "plan"}[name]
    assert any("not valid UTF-8" in p.message for p in session.problems[part])  # type: ignore[index]
    path.write_bytes(good)
    assert session.reload() == {part}
    assert session.problems[part] == []  # type: ignore[index]


def test_unchanged_file_is_not_reparsed_and_missing_files_are_reported(demo_copy: Path) -> None:
    session = open_session(demo_copy, TOK)
    assert session.reload(["gc", "plan", "memory", "gates", "folders"]) == set()
    os.remove(demo_copy / "TEAM-MEMORY.md")
    assert session.reload(["memory"]) == {"memory"}
    assert session.memory is None and session.problems["memory"] == []
    shutil.rmtree(demo_copy / "phase-2")
    assert session.reload(["folders", "gates"]) == {"folders", "gates"}
    assert "researcher-1" in {t.role for t in session.teammates()}  # still named by the plan


def test_part_of_maps_paths_to_parts(demo_copy: Path) -> None:
    assert part_of(demo_copy, demo_copy / "global-context.md") == "gc"
    assert part_of(demo_copy, demo_copy / "phase-7" / "gate-record.yaml") == "gates"
    assert part_of(demo_copy, demo_copy / "phase-7" / "implementer-5") == "folders"
    assert part_of(demo_copy, demo_copy / "phase-7" / "implementer-5" / "L2-summary.md") is None
    assert part_of(demo_copy, demo_copy / "gc-history" / "GC-v1.md") is None
    assert part_of(demo_copy, demo_copy.parent / "elsewhere.md") is None


def test_find_sessions_in_projects_and_session_folders(demo_copy: Path) -> None:
    project = demo_copy.parents[2]
    assert find_sessions(project) == [demo_copy.resolve()]
    assert find_sessions(demo_copy) == [demo_copy.resolve()]
    # Read by hand: five of the six shared folders hold a global-context.md or a plan;
    # dia-v5-optimization holds only phase-6/ teammates' outputs, a session all the same.
    assert {p.name for p in find_sessions(COW.parent)} == {
        "dia-v5-optimization",
        "ch001-ldap",
        "ch006-dia-v4",
        "cow-pipeline-redesign",
        "opus46-nlp-conversion",
        "skl006-delivery",
    }
    assert find_sessions(project / ".agent") == [demo_copy.resolve()]
    assert find_sessions(demo_copy / "phase-1") == []


def test_a_follow_up_read_is_fingerprinted_after_it_is_shown_and_still_guards_writes(demo_copy: Path) -> None:
    """A file read again by a follow-up is compared by its text and shown first; its stamp's
    fingerprint waits for ``settle_stamps`` (the window calls it once the change is painted).
    Before and after that, a write with the session's stamp succeeds on the file as read and
    is refused once someone else changed it."""
    import hashlib

    from models.text.atomic import FileChangedError, atomic_write

    gc_file = demo_copy / "global-context.md"
    session = open_session(demo_copy, TOK)
    text = gc_file.read_text(encoding="utf-8")
    edited = text.replace("version: GC-v6", "version: GC-v8")  # the same size: a digit changed
    assert len(edited) == len(text) and edited != text
    gc_file.write_text(edited, encoding="utf-8")
    assert session.reload(["gc"]) == {"gc"} and session.gc_version == 8
    stamp = session.stamps["global-context.md"]
    assert stamp is not None and stamp._sha256 is None  # not fingerprinted on the way to the view
    session.settle_stamps()
    assert stamp._sha256 == hashlib.sha256(edited.encode("utf-8")).hexdigest() and stamp._raw is None
    gc_file.write_bytes(gc_file.read_bytes())  # rewritten with the same bytes: nothing to show
    assert session.reload(["gc"]) == set()
    later = session.stamps["global-context.md"]
    assert later is not None and later is not stamp and later._sha256 is None  # the new read's stamp, unsettled
    atomic_write(gc_file, text.encode("utf-8"), later)  # fingerprinted when the write asks
    assert session.reload(["gc"]) == {"gc"}
    gc_file.write_text(edited, encoding="utf-8")  # someone else's write in between
    with pytest.raises(FileChangedError):
        atomic_write(gc_file, b"ours\n", session.stamps["global-context.md"])
    assert gc_file.read_text(encoding="utf-8") == edited


def test_teammates_follow_each_reload_and_cannot_be_changed_by_a_caller(demo_copy: Path) -> None:
    """``teammates()`` is read once per version of the plan, TEAM-MEMORY and phase folders: a
    change written to the plan shows after its reload, and a caller (a worker, say) cannot
    change a teammate that others share: the attempt raises."""
    import dataclasses

    session = open_session(demo_copy, TOK)
    first = {m.role: m for m in session.teammates()}
    assert first["implementer-3"].confirmed == 5  # the plan says so (line 10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first["implementer-3"].confirmed = 99  # type: ignore[misc]
    assert isinstance(first["implementer-3"].sources, tuple)
    plan = demo_copy / "orchestration-plan.md"
    plan.write_text(plan.read_text(encoding="utf-8").replace("  implementer-3: 5\n", "  implementer-3: 6\n", 1))
    assert "plan" in session.reload(["plan"])
    assert {m.role: m for m in session.teammates()}["implementer-3"].confirmed == 6
    (demo_copy / "phase-6" / "reviewer-9").mkdir()  # a phase folder names a teammate too
    assert "folders" in session.reload(["folders"])
    assert "phase-6" in {m.role: m for m in session.teammates()}["reviewer-9"].sources


def test_teammates_keep_no_replaced_file_alive(demo_copy: Path) -> None:
    """What ``teammates()`` remembers its answer by must not keep a replaced TEAM-MEMORY (14 MB
    on a large session) alive until the next call."""
    import gc
    import weakref

    session = open_session(demo_copy, TOK)
    before = {m.role for m in session.teammates()}
    assert session.memory is not None
    replaced = weakref.ref(session.memory)
    memory = demo_copy / "TEAM-MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "\n## reviewer-1\n- [Finding] new\n", encoding="utf-8")
    assert "memory" in session.reload(["memory"])
    gc.collect()
    assert replaced() is None
    assert {m.role for m in session.teammates()} == before | {"reviewer-1"}


def test_times_in_front_matter_are_kept_as_written() -> None:
    """The demo's plan says ``timestamp: 2026-11-21T14:02:11Z`` (YAML reads it as a datetime,
    whose str() is ``2026-11-21 14:02:11+00:00``) and its gate records ``date: 2026-11-17``."""
    plan = parse_plan((DEMO / "orchestration-plan.md").read_text(encoding="utf-8"))
    assert plan.teammate_gc_last_delta["implementer-2"].timestamp == "2026-11-21T14:02:11Z"
    text = "phase: 3\nresult: APPROVED\ndate: 2026-11-18T09:30:00Z\n"
    assert parse_gate(text, "phase-3/gate-record.yaml", 3).date == "2026-11-18T09:30:00Z"
    assert parse_gate("phase: 2\nresult: APPROVED\ndate: 2026-11-17\n", "g", 2).date == "2026-11-17"
