"""The memory journal after many outside writes: what it reports and what it holds must be what a
look at the whole file gives, although it walks only the sections whose text changed."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import COW, DEMO
from models.memory.journal import MemoryJournal, identity
from models.session.memory_parse import parse_memory
from models.session.team_memory import TeamMemory


@dataclass
class Reference:
    """The journal's rules applied to the whole file at every look, written out on their own:
    every entry of every section (Meta aside) is present; a journaled entry that is not, and
    was neither reported nor removed on purpose, has vanished; an entry the journal does not
    hold, or holds as removed (or as reported, when the app just wrote it), is journaled."""

    seen: dict[str, tuple[str, str]] = field(default_factory=dict)  # identity → (header, lines)
    reported: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)

    def observe(self, memory: TeamMemory, ours: set[str], report: bool) -> list[str]:
        present = []
        for section in memory.sections:
            if section.kind == "meta":
                continue
            lines = section.body.split("\n")
            for entry in section.entries:
                raw = "".join(line + "\n" for line in lines[entry.first - 1 : entry.stop - 1])
                present.append((section.header, identity(raw), raw.replace("\r\n", "\n").rstrip("\n")))
        everywhere = {key for _, key, _ in present}
        gone = [k for k in self.seen if k not in everywhere and k not in self.reported and k not in self.removed]
        if report:
            self.reported.update(gone)
        for header, key, lines in present:
            if key not in self.seen or key in self.removed or (key in self.reported and key in ours):
                self.seen[key] = (header, lines)
                self.reported.discard(key)
                self.removed.discard(key)
        return [self.seen[k][1] for k in gone]

    def forget(self, keys: list[str]) -> None:
        self.removed.update(k for k in keys if k in self.seen)


def _edit(text: str, rng: random.Random, n: int) -> tuple[str, set[str]]:
    """An agent's write: an entry appended, one dropped (a stale Write), one moved to another
    section, a section doubled under the same heading, or the file as it was; and the
    identities of the entries the app itself wrote, for some appends."""
    lines = text.splitlines(keepends=True)
    bullets = [i for i, line in enumerate(lines) if line.startswith("- ")]
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    kind = rng.choice(["append", "append", "drop", "drop", "move", "double", "same", "back"])
    ours: set[str] = set()
    if kind == "append" and headings:
        at = rng.choice(headings) + 1
        entry = f"- [Finding] note {n}\n"
        lines.insert(at, entry)
        if rng.random() < 0.3:
            ours.add(identity(entry))
    elif kind == "drop" and bullets:
        del lines[rng.choice(bullets)]
    elif kind == "move" and bullets and headings:
        line = lines.pop(rng.choice(bullets))
        lines.insert(rng.choice([h for h in headings if h < len(lines)] or [0]) + 1, line)
    elif kind == "double" and headings:
        head = lines[rng.choice(headings)]
        lines.append(f"\n{head}- [Decision] doubled {n}\n")
    elif kind == "back" and bullets:  # a stale copy brings back an entry dropped before
        lines.insert(rng.choice(bullets), "- [Finding] note 3\n")
    return "".join(lines), ours


def test_the_journal_reports_and_holds_what_the_whole_file_gives(tmp_path: Path) -> None:
    """Sixty writes of each real file, LF and CRLF, looked at by the window's journal and now
    and then by another process's (which sees an entry the window's copy never holds, as a
    writer racing an agent's stale Write does), with pruned entries and unreported looks."""
    texts = [
        (COW / "TEAM-MEMORY.md").read_text(encoding="utf-8"),
        (DEMO / "TEAM-MEMORY.md").read_text(encoding="utf-8"),
    ]
    reports = other_reports = 0
    for seed, start in enumerate(texts * 3):
        rng = random.Random(seed)
        folder = tmp_path / f"run-{seed}"
        window, other, reference = MemoryJournal(folder), MemoryJournal(folder), Reference()
        text = start.replace("\n", "\r\n") if seed >= 4 else start
        memory = parse_memory(text)
        for n in range(60):
            ours: set[str] = set()
            if n:
                text, ours = _edit(text, rng, n)
                memory = parse_memory(text, previous=memory)  # a follow-up: untouched sections shared
            report = rng.random() < 0.8
            journal, looked = window, memory
            if rng.random() < 0.2:
                extra = f"- [Finding] only the other process saw {n}\n"
                journal, looked, ours = (
                    other,
                    parse_memory(text + ("\n" if text.endswith("\n") else "\n\n") + extra),
                    set(),
                )
            got = [v.seen.entry for v in journal.observe(looked, ours, report=report)]
            assert got == reference.observe(looked, ours, report), (seed, n)
            reports += bool(got)
            other_reports += journal is window and any("only the other" in g for g in got)
            if rng.random() < 0.15 and reference.seen:
                keys = rng.sample(sorted(reference.seen), 2)
                journal.forget(keys)
                reference.forget(keys)
            assert {k: (s.header, s.entry) for k, s in journal.seen.items()} == reference.seen, (seed, n)
            assert (journal.reported, journal.removed) == (reference.reported, reference.removed), (seed, n)
        # A third process reads the journal's file to the same state.
        again = MemoryJournal(folder)
        again.vanished(memory)
        assert {k: (s.header, s.entry) for k, s in again.seen.items()} == reference.seen
        assert (again.reported, again.removed) == (reference.reported, reference.removed)
    assert reports > 20 and other_reports > 3  # the edits did take entries away, and they were reported


def test_an_entry_under_a_doubled_heading_is_not_reported_lost(tmp_path: Path) -> None:
    """Two sections under one heading (an agent added its section again): the entries of both
    are in the file, and neither's are lost."""
    journal = MemoryJournal(tmp_path)
    first = "# TEAM-MEMORY\n\n## implementer-1\n- [Finding] one\n"
    assert journal.observe(parse_memory(first)) == []
    doubled = first + "\n## implementer-1\n- [Finding] two\n"
    assert journal.observe(parse_memory(doubled)) == []
    assert sorted(s.entry for s in journal.seen.values()) == ["- [Finding] one", "- [Finding] two"]


def test_an_entry_removed_on_purpose_and_written_again_is_watched_again(tmp_path: Path) -> None:
    """The app pruned an entry (its absence is no loss); an agent's stale copy writes it back,
    the text of every section as the journal last saw it: it is journaled again, and its next
    disappearance is reported."""
    text = "# TEAM-MEMORY\n\n## Lead\n- [Decision] keep\n- [Decision] pruned\n"
    journal, memory = MemoryJournal(tmp_path), parse_memory(text)
    journal.observe(memory)
    journal.forget([identity("- [Decision] pruned")])
    assert journal.observe(memory) == []  # the very same sections, looked at again
    assert identity("- [Decision] pruned") not in journal.removed
    gone = journal.observe(parse_memory(text.replace("- [Decision] pruned\n", "")))
    assert [v.seen.entry for v in gone] == ["- [Decision] pruned"]


def test_the_journal_lines_are_the_forms_every_process_reads(tmp_path: Path) -> None:
    """Issue 41: the journal's records are typed (``models.memory.journal_records``), and what
    they write is the JSON form other app processes read back, written out here by hand."""
    import json

    text = "# TEAM-MEMORY\n\n## implementer-1\n- [Finding] one\n- [Finding] two\n"
    journal = MemoryJournal(tmp_path)
    journal.observe(parse_memory(text), ["- [Finding] two"])
    journal.forget(["- [Finding] two"])
    journal.observe(parse_memory(text.replace("- [Finding] one\n", "")))
    lines = [
        json.loads(line) for line in (tmp_path / ".lead-console" / "memory-journal.jsonl").read_text().splitlines()
    ]
    at = [line.pop("at") for line in lines]
    assert all(isinstance(a, str) and a.endswith("Z") for a in at)
    assert lines == [
        {"kind": "seen", "id": "- [Finding] one", "header": "implementer-1", "entry": "- [Finding] one",
         "by": "the file", "after": None},
        {"kind": "seen", "id": "- [Finding] two", "header": "implementer-1", "entry": "- [Finding] two",
         "by": "Lead Console", "after": "- [Finding] one"},
        {"kind": "sections", "headers": ["implementer-1"]},
        {"kind": "removed", "id": "- [Finding] two"},
        {"kind": "lost", "id": "- [Finding] one"},
        {"kind": "seen", "id": "- [Finding] two", "header": "implementer-1", "entry": "- [Finding] two",
         "by": "the file", "after": None},
    ]  # fmt: skip


def test_an_entry_the_app_removes_is_never_reported_lost_by_a_window_reading_in_between(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45.6: with only our own writers, a window's look in the moment between the app's
    write of TEAM-MEMORY.md and its journal lines found the entry it pruned missing, with no
    "removed" record yet, and reported it vanished (1 of 3 trials). The removal is journaled
    before the write: the window looks right after the file is replaced, as a watcher may."""
    from models.memory import edits
    from models.memory.curation import prune_section

    path = tmp_path / "TEAM-MEMORY.md"
    text = "# TEAM-MEMORY\n\n## Lead\n- [Decision] keep\n- [ARCHIVED] [Decision] stale\n"
    path.write_text(text, encoding="utf-8")
    window = MemoryJournal(tmp_path)  # another process's journal: the window's
    assert window.observe(parse_memory(text)) == []
    looks: list[list[str]] = []
    real_write = edits.atomic_write

    def write_then_window_looks(target: Path, data: bytes, expected: object) -> object:
        written = real_write(target, data, expected)  # type: ignore[arg-type]
        looks.append([v.seen.entry for v in window.observe(parse_memory(target.read_text(encoding="utf-8")))])
        return written

    monkeypatch.setattr(edits, "atomic_write", write_then_window_looks)
    edits.edit_memory(path, [edits.SectionEdit("Lead", None, prune_section)])
    assert path.read_text(encoding="utf-8") == "# TEAM-MEMORY\n\n## Lead\n- [Decision] keep\n"
    assert looks == [[]]
    # A real loss is still reported: an agent's write drops the kept entry.
    path.write_text("# TEAM-MEMORY\n\n## Lead\n", encoding="utf-8")
    assert [v.seen.entry for v in window.observe(parse_memory(path.read_text(encoding="utf-8")))] == [
        "- [Decision] keep"
    ]
