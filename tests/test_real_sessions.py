"""Issue 11, done when: on every real session folder in ../shared/sessions/ (copies), the everyday
jobs work, and each changes only the files it names, byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.controller import Controller
from conftest import REAL_SESSIONS, snapshot_tree
from models.actions.commit import commit
from models.actions.publish import prepare_publish
from models.delta.decisions import plan_update
from models.publish.composer import Composer
from models.session.folder import PLAN_FILE, open_session
from models.session.memory_parse import parse_memory
from models.text.surgical import set_front_entry
from models.text.tokens import EstimateTokenizer

TOK = EstimateTokenizer()
SESSIONS = sorted(p.name for p in REAL_SESSIONS.iterdir() if p.is_dir())


def _changed(before: dict[str, tuple[int, bytes]], folder: Path) -> set[str]:
    after = snapshot_tree(folder)
    return {k for k in before.keys() | after.keys() if before.get(k, (0, b""))[1] != after.get(k, (0, b""))[1]}


@pytest.fixture(params=SESSIONS)
def copy(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    target = tmp_path / str(request.param)
    shutil.copytree(REAL_SESSIONS / str(request.param), target)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # the shared copies are read-only
    return target


def test_six_real_sessions_are_there() -> None:
    assert len(SESSIONS) == 6


def test_everyday_jobs_on_a_real_session(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Open it: the CLI inspects every one, including a folder of phase outputs only.
    assert main(["inspect", str(copy), "--tokenizer", "estimate"]) == 0
    capsys.readouterr()
    session = open_session(copy, TOK)

    # Plan: only active and idle teammates receive anything.
    plan = plan_update(session)
    receiving = {m.role for m in session.teammates() if m.receives}
    assert {d.role for d in plan.recipients} <= receiving

    # A memory entry: TEAM-MEMORY.md is created where missing, and only it (and the app's journal).
    had_memory = (copy / "TEAM-MEMORY.md").exists()
    before = snapshot_tree(copy)
    assert main(["memory", "add", str(copy), "--role", "Lead", "--tag", "Decision", "adopted by Lead Console"]) == 0
    assert "created" in capsys.readouterr().err or had_memory
    assert _changed(before, copy) <= {"TEAM-MEMORY.md", ".lead-console/memory-journal.jsonl"}
    memory = parse_memory((copy / "TEAM-MEMORY.md").read_text(encoding="utf-8"))
    assert any("adopted by Lead Console" in e.text for s in memory.sections if s.kind == "lead" for e in s.entries)

    if session.gc is None:  # a session of phase outputs only: nothing to take a baseline of, said in one line
        assert main(["baseline", str(copy)]) == 2
        assert "no global-context.md yet" in capsys.readouterr().err
        return

    # Baseline: the snapshot and the plan's confirmed versions, nothing else.
    before = snapshot_tree(copy)
    assert main(["baseline", str(copy)]) == 0
    capsys.readouterr()
    version = session.gc.version
    assert _changed(before, copy) <= {f"gc-history/GC-v{version}.md", PLAN_FILE}
    assert (copy / "gc-history" / f"GC-v{version}.md").read_bytes() == (copy / "global-context.md").read_bytes()

    # One teammate holds this version and is active (as after its ACK, in a session where none does).
    session = open_session(copy, TOK)
    holders = [m for m in session.teammates() if m.receives and m.confirmed == version]
    if not holders:
        role = session.teammates()[0].role
        assert main(["teammate", str(copy), role, "--state", "active"]) == 0
        plan_path = copy / PLAN_FILE
        plan_path.write_text(
            set_front_entry(plan_path.read_text(encoding="utf-8"), "teammate_gc_versions", role, version),
            encoding="utf-8",
        )
        capsys.readouterr()
        session = open_session(copy, TOK)
        holders = [m for m in session.teammates() if m.role == role]

    # Publish a one-item edit: the holder gets a delta; only the files publishing names change.
    composer = Composer.open(session)
    section = next(s for s in session.gc.walk() if s.items)  # type: ignore[union-attr]
    item = max(section.items, key=lambda it: it.end)
    text = session.gc.text  # type: ignore[union-attr]
    nl = "\r\n" if "\r\n" in text else "\n"
    composer.working_text = text[: item.end] + f"- Lead Console Check: one new item{nl}" + text[item.end :]
    decisions = {d.role: d for d in composer.plan().decisions}
    for mate in holders:
        assert decisions[mate.role].mode == "delta", decisions[mate.role].conditions
    publish = prepare_publish(composer)
    assert publish.refusals == (), publish.refusals
    before = snapshot_tree(copy)
    written = {p.relative_to(copy).as_posix() for p in commit(publish).written}
    names = {
        "global-context.md",
        f"gc-history/GC-v{version + 1}.md",
        PLAN_FILE,
        "TEAM-MEMORY.md",
        "messages/ledger.jsonl",
    }
    assert _changed(before, copy) == written
    assert {w for w in written if not w.startswith("messages/outbox/")} <= names
    assert "- Lead Console Check: one new item" in (copy / "global-context.md").read_text(encoding="utf-8")

    # Conclude a gate: a record of its own, next to any record agents wrote.
    before = snapshot_tree(copy)
    assert main(["gate", "start", str(copy), "--phase", "7"]) == 0
    assert main(["gate", "conclude", str(copy), "--verdict", "APPROVED"]) == 0
    capsys.readouterr()
    changed = _changed(before, copy)
    assert changed <= {PLAN_FILE, "phase-7/gate-record.yaml"}
    assert "phase-7/gate-record.yaml" in changed
    assert (copy / PLAN_FILE).read_bytes() == before[PLAN_FILE][1]  # the freeze came and went
    gates = {g.phase: g.verdict for g in open_session(copy, TOK).all_gates}
    assert gates[7] == "APPROVED"


@pytest.mark.parametrize("name", [n for n in SESSIONS if (REAL_SESSIONS / n / "global-context.md").exists()])
def test_savings_on_every_real_gc(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """ADR-002 §7's scenarios built from the session's own GC, each naming what it edited."""
    assert main(["savings", str(REAL_SESSIONS / name), "--json", "--tokenizer", "estimate"]) == 0
    rows = json.loads(capsys.readouterr().out)["per_update"]
    assert [r["scenario"] for r in rows][:4] == [
        "1 decision added",
        "2-3 sections changed",
        "Status update only",
        "Phase transition",
    ]
    for row in rows[:4]:
        assert row["ours"]["delta"] is not None and row["ours"]["delta"] < row["ours"]["full"], row
        assert row["note"].startswith(("ADDED §", "CHANGED §")), row
    assert rows[4]["ours"]["delta"] is None and rows[4]["note"].startswith("FC-4")  # a restructure goes out in full


def test_publishing_offers_to_add_meta(tmp_path: Path) -> None:
    """cow's TEAM-MEMORY.md has no ## Meta: the preview says the line is skipped; asked to,
    publishing adds ADR-001 §4's Meta after the title and leaves every other byte."""
    copy = tmp_path / "cow"
    shutil.copytree(REAL_SESSIONS / "cow-pipeline-redesign", copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    memory_before = (copy / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    composer = Composer.open(open_session(copy, TOK))
    composer.working_text = composer.working_text.replace("## Scope\n", "## Scope\n\nOne more line.\n", 1)
    skipped = composer.publish_plan().skipped
    assert len(skipped) == 1 and "no ## Meta section" in skipped[0] and "Add ## Meta" in skipped[0]
    commit(prepare_publish(composer, now="2026-11-23T01:00:00Z", add_meta=True))
    after = (copy / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    meta = "## Meta\n- Created: 2026-11-23\n- Session: cow\n- GC Version: GC-v7\n\n"
    assert after.startswith("# TEAM-MEMORY — COW Pipeline Redesign\n\n" + meta + "## Lead\n")  # after the title
    assert after.replace(meta, "", 1) == memory_before


@pytest.mark.parametrize("name", SESSIONS)
def test_every_real_session_in_the_window(name: str, qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    """Open each real session in the window, walk its teammates, compose, and look at the
    savings tab: nothing raises and Qt warns of nothing (the pytest configuration fails on both)."""
    copy = tmp_path / name
    shutil.copytree(REAL_SESSIONS / name, copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert controller.open(copy)
    w = controller.window
    assert w.teammates_pane.teammate_model.rowCount() == len(open_session(copy, TOK).teammates())
    for row in range(w.teammates_pane.teammate_model.rowCount()):
        w.teammates_pane.teammate_view.setCurrentIndex(w.teammates_pane.teammate_model.index(row, 0))
        w._copy_teammate_message()
    w.central_tabs.setCurrentWidget(w.composer)
    pane = w.composer
    pane.preview_tabs.setCurrentWidget(pane.scenarios_view)
    if (copy / "global-context.md").exists():
        assert pane.scenarios_model.rowCount() == 5
        first = pane.scenarios_model.index(0, 6).data()
        assert first.startswith(("ADDED §", "CHANGED §"))
    else:
        assert pane.scenarios_model.rowCount() == 0
    w.grab()


@pytest.mark.parametrize("name", SESSIONS)
def test_the_default_impact_names_every_teammate_that_receives_updates(name: str) -> None:
    """Issue 18: the composer's default impact is read without copying every teammate three
    times a re-plan; it must still name, in the table's order, each teammate whose state lets
    it receive updates (active or idle), and no other."""
    session = open_session(REAL_SESSIONS / name, TOK)
    mates = session.teammates()
    expected = tuple(m.role for m in mates if m.state in ("active", "idle"))
    assert Composer.open(session).default_impact().affected == expected
    assert session.receiving_roles() == expected


def test_inspect_counts_items_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    """ch001-ldap's "Active Teammates" holds one item (implementer-1's line) and "Phase Status"
    four: one item, not "1 items"."""
    assert main(["inspect", str(REAL_SESSIONS / "ch001-ldap"), "--tokenizer", "estimate"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.strip().startswith("Active Teammates  [") and line.endswith(", 1 item]") for line in lines)
    assert any(line.strip().startswith("Phase Status  [") and line.endswith(", 4 items]") for line in lines)


def test_memory_check_counts_entries_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A section of one entry and one of two: "1 entry", "2 entries"."""
    folder = tmp_path / "s"
    shutil.copytree(REAL_SESSIONS / "opus46-nlp-conversion", folder)
    (folder / "TEAM-MEMORY.md").write_text(
        "# TEAM-MEMORY — x\n\n## Meta\n- GC Version: GC-v4\n\n## Lead\n- [Decision] one\n- [Finding] two\n\n"
        "## architect-1\n- [Finding] only this\n",
        encoding="utf-8",
    )
    assert main(["memory", "check", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "## architect-1: 1 entry (0 archived)" in out and "## Lead: 2 entries (0 archived)" in out
