"""TEAM-MEMORY edits: safe against concurrent writers, curation, loss detection and restore."""

from __future__ import annotations

import json
import multiprocessing
import re
from pathlib import Path

import pytest

from app.cli.main import main
from models.memory.access import DIRECT, RELAY, access_of
from models.memory.curation import (
    archive_entries,
    archive_where,
    prune_archived,
    prune_section,
    replaced_section,
    set_meta_gc_version,
)
from models.memory.edits import (
    Conflict,
    MemoryEditError,
    SectionEdit,
    _merge,
    add_entry,
    edit_memory,
    section_text,
)
from models.memory.loss import detect_loss, restore
from models.session.memory_entries import TAGS
from models.session.memory_parse import parse_memory
from models.session.team_memory import LINE_LIMIT
from models.text.textfile import split_lines

ROLES = ["implementer-1", "implementer-2", "implementer-3", "implementer-4"]


def _agent(path: str, role: str, count: int) -> None:
    """An agent process appending to its own section with section-anchored edits."""
    for n in range(count):
        add_entry(Path(path), role, "Finding", f"{role} finding number {n}")


def _entries(text: str) -> list[str]:
    return [e.text for s in parse_memory(text).sections for e in s.entries]


def test_concurrent_writers_lose_nothing(demo_copy: Path) -> None:
    path = demo_copy / "TEAM-MEMORY.md"
    before = _entries(path.read_text(encoding="utf-8"))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_agent, args=(str(path), role, 25)) for role in ROLES]
    for p in procs:
        p.start()
    # Meanwhile the app adds Lead entries, archives one and prunes archived entries.
    for n in range(15):
        add_entry(path, "Lead", "Decision", f"lead decision {n}", timestamp="2026-11-22T03:00Z")
        if n == 5:
            edit_memory(
                path,
                [SectionEdit("researcher-1", None, lambda cur: archive_where(cur, lambda e: "Adyen batch" in e.text))],
            )
        if n == 10:
            edit_memory(path, [SectionEdit("Lead", None, prune_section)])
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    text = path.read_text(encoding="utf-8")
    memory = parse_memory(text)
    assert memory.problems == []
    entries = _entries(text)
    for role in ROLES:
        for n in range(25):
            assert entries.count(f"[Finding] {role} finding number {n}".split("] ", 1)[1]) == 1, (role, n)
    for n in range(15):
        assert (
            sum(f"lead decision {n}" == e.split(" ", 1)[1] for e in entries if e.startswith("2026-11-22T03:00Z")) == 1
        )
    pruned = "2026-11-17T16:40Z Research limited to Stripe and Adyen; PayPal deferred to v2.1"
    assert pruned not in entries  # the archived Lead entry was pruned on purpose
    assert all(e in entries for e in before if e != pruned)
    researcher = next(s for s in memory.sections if s.role == "researcher-1")
    assert [e.archived for e in researcher.entries] == [True, True, False, False]


def test_edit_merges_non_overlapping_changes_and_stops_on_overlap(demo_copy: Path) -> None:
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    seen = section_text(text, "implementer-2")
    assert seen is not None
    archived = archive_entries(
        text, "implementer-2", {parse_memory(text).sections[4].span_of(parse_memory(text).sections[4].entries[0])[0]}
    )
    # An agent appends to the same section before the Lead's archive lands:
    agent = text.replace("not str\n", "not str\n- [Pattern] agent line\n")
    path.write_text(agent, encoding="utf-8")
    result = edit_memory(path, [SectionEdit("implementer-2", seen, archived)])
    assert result.merged == ["implementer-2"]
    now = path.read_text(encoding="utf-8")
    assert "- [ARCHIVED] [Pattern] Idempotency" in now and "- [Pattern] agent line" in now
    # The agent rewrites the very line the Lead archives: stop and show both.
    seen = section_text(now, "implementer-2")
    path.write_text(
        now.replace("- [ARCHIVED] [Pattern] Idempotency", "- [Pattern] Idempotency (agent)"), encoding="utf-8"
    )
    ours = seen.replace("- [ARCHIVED] [Pattern] Idempotency", "- [Pattern] Idempotency (Lead)")  # type: ignore[union-attr]
    with pytest.raises(Conflict) as info:
        edit_memory(path, [SectionEdit("implementer-2", seen, ours)])
    assert "(agent)" in info.value.theirs and "(Lead)" in info.value.ours
    assert "(agent)" in path.read_text(encoding="utf-8")  # nothing written


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("ends_with_newline", [True, False])
def test_a_new_roles_section_is_written_in_the_files_line_ends(
    demo_copy: Path, newline: str, ends_with_newline: bool
) -> None:
    """An entry for a role with no section adds one at the end, after one blank line, in the
    file's line ends (a CRLF file got an LF section), and leaves every byte before it."""
    path = demo_copy / "TEAM-MEMORY.md"
    original = path.read_text(encoding="utf-8").replace("\n", newline)
    original = original if ends_with_newline else original.removesuffix(newline)
    path.write_bytes(original.encode())
    add_entry(path, "implementer-9", "Finding", "a new teammate's first finding")
    end = "" if ends_with_newline else newline
    section = f"## implementer-9{newline}- [Finding] a new teammate's first finding{newline}"
    assert path.read_bytes().decode() == original + end + newline + section


def test_other_sections_stay_byte_identical_and_crlf_is_kept(demo_copy: Path) -> None:
    path = demo_copy / "TEAM-MEMORY.md"
    original = path.read_text(encoding="utf-8").replace("\n", "\r\n")
    path.write_bytes(original.encode())
    add_entry(path, "implementer-3", "Warning", "CRLF stays CRLF")
    after = path.read_bytes().decode()
    assert "- [Warning] CRLF stays CRLF\r\n" in after and "\n" not in after.replace("\r\n", "")
    for header in ("Meta", "Lead", "researcher-1", "implementer-1", "implementer-2", "implementer-4"):
        assert section_text(after, header) == section_text(original, header)


@pytest.mark.parametrize("boms", [1, 2])
def test_an_entry_keeps_every_bom_the_file_began_with(demo_copy: Path, boms: int) -> None:
    """Issue 45: a file that begins with two BOMs (an editor added one to a file that had one)
    lost one on the next entry: bytes someone else wrote. Every one is kept."""
    path = demo_copy / "TEAM-MEMORY.md"
    original = b"\xef\xbb\xbf" * boms + path.read_bytes()
    path.write_bytes(original)
    add_entry(path, "implementer-3", "Finding", "the BOMs stay")
    after = path.read_bytes()
    entry = b"- [Finding] the BOMs stay\n"
    assert after.startswith(b"\xef\xbb\xbf" * boms + b"# ") and after.replace(entry, b"") == original


def test_access_matrix_and_relay() -> None:
    assert access_of("implementer-2") == DIRECT and access_of("integrator-1") == DIRECT
    assert access_of("architect-1") == RELAY and access_of("tester-1") == RELAY and access_of("researcher-1") == RELAY
    # ADR-001 §5's table: devils-advocate has no Edit tool, so the Lead relays; the type is the
    # id's known prefix, whatever follows it, in any case.
    assert access_of("devils-advocate-1") == RELAY and access_of("Devils-Advocate-1") == RELAY
    assert access_of("implementer-ws1") == DIRECT and access_of("implementer-infra") == DIRECT
    assert access_of("reviewer-1") == RELAY  # no known type: the Lead writes for it


def test_lead_entries_relays_and_refusals(demo_copy: Path) -> None:
    path = demo_copy / "TEAM-MEMORY.md"
    add_entry(path, "Lead", "Decision", "use zstd", timestamp="2026-11-22T03:05Z")
    add_entry(path, "researcher-1", "Finding", "Adyen sandbox lags 2 s", timestamp="2026-11-22T03:06Z")
    text = path.read_text(encoding="utf-8")
    assert "- [Decision] 2026-11-22T03:05Z use zstd\n" in text
    assert "- [Finding] 2026-11-22T03:06Z (relayed by Lead) Adyen sandbox lags 2 s\n" in text
    add_entry(path, "devils-advocate-1", "Warning", "relayed", timestamp="2026-11-22T03:07Z")
    assert "## devils-advocate-1\n- [Warning] 2026-11-22T03:07Z (relayed by Lead) relayed\n" in path.read_text(
        encoding="utf-8"
    )
    with pytest.raises(MemoryEditError, match="unknown tag"):
        add_entry(path, "Lead", "Gossip", "no")
    add_entry(path, "tester-1", "Question", "first entry of a new section")
    assert "## tester-1\n- [Question]" in path.read_text(encoding="utf-8")


#: One of implementer-1's four entries in the demo's TEAM-MEMORY, as the file writes it.
POSTING = (
    "Posting batches: lock account heads in account_id order to avoid deadlocks\n"
    "  (two batches touching A and B in opposite orders deadlocked in 3 of 200 runs)"
)


def test_write_tool_overwrite_is_detected_and_restored(demo_copy: Path) -> None:
    path = demo_copy / "TEAM-MEMORY.md"
    before = path.read_text(encoding="utf-8")
    # implementer-2 rewrites the whole file from its stale copy: implementer-1's entries are gone.
    stale = re.sub(r"## implementer-1\n.*?\n\n", "## implementer-1\n\n", before, flags=re.S)
    stale = stale.replace("## implementer-3\n", "## implementer-3\n- [Finding] written by implementer-2\n")
    stale = stale.replace("## implementer-4\n", "## implementer-4 (Phase 6)\n")
    path.write_text(stale, encoding="utf-8")
    loss = detect_loss(before, stale)
    assert list(loss.lost_entries) == ["implementer-1"] and len(loss.lost_entries["implementer-1"]) == 4
    assert loss.removed_sections == {} and ("implementer-4", "implementer-4 (Phase 6)") in loss.renamed
    assert any("implementer-1: 4 entries vanished" in d for d in loss.describe())
    restore(path, loss)
    now = path.read_text(encoding="utf-8")
    assert _entries(now).count(POSTING) == 1
    assert detect_loss(before, now).lost_entries == {}


def test_restore_of_an_entry_that_is_back_already_writes_no_second_copy(demo_copy: Path) -> None:
    """Issue 45.6: a loss reported, then the entry written back by its agent (or the same loss
    reported twice): Restore wrote a second copy of it."""
    path = demo_copy / "TEAM-MEMORY.md"
    before = path.read_text(encoding="utf-8")
    stale = re.sub(r"## implementer-1\n.*?\n\n", "## implementer-1\n\n", before, flags=re.S)
    loss = detect_loss(before, stale)
    assert len(loss.lost_entries["implementer-1"]) == 4
    restore(path, loss)  # nothing was lost on disk: the file still holds all four
    assert path.read_text(encoding="utf-8") == before
    path.write_text(stale, encoding="utf-8")
    restore(path, loss)
    restore(path, loss)  # the loss acted on twice
    now = path.read_text(encoding="utf-8")
    assert _entries(now).count(POSTING) == 1
    assert detect_loss(before, now).lost_entries == {}


def test_curation_on_the_real_cow_session(cow_copy: Path) -> None:
    path = cow_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    memory = parse_memory(text)
    arch = next(s for s in memory.sections if s.role == "architect-1")
    archived = archive_entries(text, arch.header, {arch.span_of(e)[0] for e in arch.entries})
    edit_memory(path, [SectionEdit(arch.header, section_text(text, arch.header), archived)])
    after = parse_memory(path.read_text(encoding="utf-8"))
    assert all(e.archived for e in next(s for s in after.sections if s.role == "architect-1").entries)
    # replacing implementer-3: its section is marked, a new one follows
    text = path.read_text(encoding="utf-8")
    old = section_text(text, "implementer-3")
    assert old is not None
    edit_memory(
        path, [SectionEdit("implementer-3", old, replaced_section(old, "implementer-3") + "\n## implementer-3\n")]
    )
    sections = parse_memory(path.read_text(encoding="utf-8")).sections
    assert [(s.header, s.replaced) for s in sections if s.role == "implementer-3"] == [
        ("[REPLACED] implementer-3", True),
        ("implementer-3", False),
    ]
    assert detect_loss(text, path.read_text(encoding="utf-8")).lost_entries == {}


def test_meta_version_update_on_the_demo(demo_copy: Path) -> None:
    path = demo_copy / "TEAM-MEMORY.md"
    text = path.read_text(encoding="utf-8")
    edit_memory(
        path, [SectionEdit("Meta", section_text(text, "Meta"), section_text(set_meta_gc_version(text, 7), "Meta"))]
    )  # type: ignore[arg-type]
    assert parse_memory(path.read_text(encoding="utf-8")).gc_version_label == "GC-v7"


def _big_memory() -> str:
    """608 lines: five implementers with 118 entries each, every second one archived."""
    out = ["# TEAM-MEMORY — big", "", "## Meta", "- GC Version: GC-v3", "", "## Lead", "- [Decision] keep", ""]
    for r in range(1, 6):
        out.append(f"## implementer-{r}")
        for n in range(118):
            mark = "[ARCHIVED] " if n % 2 == 0 else ""
            out.append(f"- {mark}[{TAGS[n % 7]}] implementer-{r} note {n}")
        out.append("")
    return "\n".join(out) + "\n"


def test_pruning_a_600_line_file(tmp_path: Path) -> None:
    path = tmp_path / "TEAM-MEMORY.md"
    path.write_text(_big_memory(), encoding="utf-8")
    memory = parse_memory(path.read_text(encoding="utf-8"))
    assert memory.line_count > LINE_LIMIT
    kept = {e.text for s in memory.sections for e in s.entries if not e.archived}
    text = path.read_text(encoding="utf-8")
    edits = [
        SectionEdit(s.header, section_text(text, s.header), prune_archived(text, s.header))
        for s in memory.sections
        if any(e.archived for e in s.entries)
    ]
    edit_memory(path, edits)
    after = parse_memory(path.read_text(encoding="utf-8"))
    assert after.line_count <= LINE_LIMIT
    assert {e.text for s in after.sections for e in s.entries} == kept
    assert not any(e.archived for s in after.sections for e in s.entries)
    expected_gone = {
        line
        for s in memory.sections
        for e in s.entries
        if e.archived
        for line in ["".join(split_lines(text)[slice(*s.span_of(e))])]
    }
    assert not detect_loss(text, path.read_text(encoding="utf-8"), expected_gone).lost_entries


def test_cli_memory_add_and_check(demo_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            ["memory", "add", str(demo_copy), "--role", "implementer-2", "--tag", "Pattern", "retry", "with", "jitter"]
        )
        == 0
    )
    assert "- [Pattern] retry with jitter\n" in (demo_copy / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    assert main(["memory", "add", str(demo_copy), "--role", "devils-advocate-1", "x"]) == 0
    capsys.readouterr()
    assert main(["memory", "check", str(demo_copy), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["lines"] == 47 and data["problems"] == []  # 44, and the relayed devils-advocate section (3 lines)
    assert {s["header"]: s["access"] for s in data["sections"]}["researcher-1"] == RELAY
    from conftest import COW

    assert main(["memory", "check", str(COW)]) == 1
    assert "no ## Meta section" in capsys.readouterr().out


# -- the three-way merge of one section, at its edges ------------------------------------------
# The section as the Lead's edit read it; each case: what an agent and the Lead each replaced in
# it, and the merge a person expects (its bullets; None when both changed the same lines).
_BASE = "## implementer-2\n- a\n- b\n- c\n- d\n"
_BCD, _BC = "- b\n- c\n- d\n", "- b\n- c\n"
_MERGES: list[tuple[str, tuple[str, str], tuple[str, str], str | None]] = [
    (
        "next-door lines are no conflict",
        ("- c\n", "- c (agent)\n"),
        ("- b\n", "- b (Lead)\n"),
        "a|b (Lead)|c (agent)|d",
    ),
    ("next-door the other way round", ("- b\n", "- b (agent)\n"), ("- c\n", "- c (Lead)\n"), "a|b (agent)|c (Lead)|d"),
    ("the same line changed twice", ("- b\n", "- b (agent)\n"), ("- b\n", "- b (Lead)\n"), None),
    ("an insert inside the Lead's rewrite", ("- c\n", "- c\n- agent's\n"), (_BCD, "- bcd (Lead)\n"), None),
    ("the Lead's insert inside the agent's rewrite", (_BCD, "- bcd (agent)\n"), ("- c\n", "- c\n- Lead's\n"), None),
    (
        "an insert before the Lead's rewrite",
        ("- a\n", "- a\n- agent's\n"),
        (_BC, "- bc (Lead)\n"),
        "a|agent's|bc (Lead)|d",
    ),
    (
        "an insert after the Lead's rewrite",
        ("- c\n", "- c\n- agent's\n"),
        (_BC, "- bc (Lead)\n"),
        "a|bc (Lead)|agent's|d",
    ),
    (
        "the Lead's insert before the agent's rewrite",
        (_BC, "- bc (agent)\n"),
        ("- a\n", "- a\n- Lead's\n"),
        "a|Lead's|bc (agent)|d",
    ),
    (
        "the Lead's insert after the agent's rewrite",
        (_BC, "- bc (agent)\n"),
        ("- c\n", "- c\n- Lead's\n"),
        "a|bc (agent)|Lead's|d",
    ),
    (
        "two appends: the agent's first, on disk first",
        ("- d\n", "- d\n- agent's\n"),
        ("- d\n", "- d\n- Lead's\n"),
        "a|b|c|d|agent's|Lead's",
    ),
    ("the same change on both sides, once", ("- b\n", "- b (both)\n"), ("- b\n", "- b (both)\n"), "a|b (both)|c|d"),
]


@pytest.mark.parametrize(("theirs", "ours", "expected"), [m[1:] for m in _MERGES], ids=[m[0] for m in _MERGES])
def test_an_edit_merges_with_an_agents_write_unless_both_changed_the_same_lines(
    theirs: tuple[str, str], ours: tuple[str, str], expected: str | None
) -> None:
    merged = _merge(_BASE, _BASE.replace(*theirs), _BASE.replace(*ours))
    bullets = None if expected is None else "## implementer-2\n" + "".join(f"- {b}\n" for b in expected.split("|"))
    assert merged == bullets
