"""Issue 18: the follow-up paths reuse what did not change (sections memoised by their text,
the loss check looking only at sections whose text changed). They must give exactly what a
cold, full read gives: the same models and the same counts, after appends, edits in the
middle, section renames, moves and whole-file rewrites, on every real GC and TEAM-MEMORY."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from gc_facts import cold_caches, gc_facts, memory_facts

import models.session.gc_parse as gc_module
from conftest import DEMO, REAL_SESSIONS
from gc_edits import random_edit
from models.session.gc import vanished_items
from models.session.gc_parse import parse_gc
from models.session.memory_parse import parse_memory
from models.session.refs import norm
from models.text.tokens import get_tokenizer

GCS = sorted(p for p in [*REAL_SESSIONS.glob("*/global-context.md"), DEMO / "global-context.md"])
MEMORIES = sorted(p for p in [*REAL_SESSIONS.glob("*/TEAM-MEMORY.md"), DEMO / "TEAM-MEMORY.md"])


def _edits(text: str, rng: random.Random) -> list[tuple[str, Callable[[str], str]]]:
    """The writes an agent makes: an append, a line edited or removed in the middle, a heading
    renamed, an item moved to another section, and the whole file rewritten (reversed sections)."""
    lines = text.splitlines(keepends=True)
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    bullets = [i for i, line in enumerate(lines) if line.lstrip().startswith("- ")]

    def append(t: str) -> str:
        return t + ("" if t.endswith("\n") else "\n") + "- appended-key: a new line\n"

    def edit_middle(t: str) -> str:
        ls = t.splitlines(keepends=True)
        if not bullets:
            return t + "x\n"
        i = bullets[len(bullets) // 2]
        ls[i] = ls[i].rstrip("\n") + " (edited)\n"
        return "".join(ls)

    def remove_line(t: str) -> str:
        ls = t.splitlines(keepends=True)
        if bullets:
            del ls[rng.choice(bullets)]
        return "".join(ls)

    def rename(t: str) -> str:
        ls = t.splitlines(keepends=True)
        if headings:
            i = rng.choice(headings)
            ls[i] = ls[i].rstrip("\n") + " (renamed)\n"
        return "".join(ls)

    def move(t: str) -> str:
        ls = t.splitlines(keepends=True)
        if not bullets or len(headings) < 2:
            return t
        line = ls.pop(bullets[0])
        at = headings[-1] if headings[-1] < bullets[0] else headings[-1] - 1
        ls.insert(at + 1, line)
        return "".join(ls)

    def rewrite(t: str) -> str:
        parts = t.split("\n## ")
        return "\n## ".join([parts[0], *reversed(parts[1:])]) if len(parts) > 2 else t + "\n"

    return [
        ("append", append),
        ("edit in the middle", edit_middle),
        ("remove a line", remove_line),
        ("rename a heading", rename),
        ("move an item", move),
        ("rewrite the whole file", rewrite),
    ]


@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_a_gc_reparsed_after_each_edit_equals_a_cold_parse(path: Path) -> None:
    tok = get_tokenizer("o200k_base")
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    for name, edit in _edits(text, rng):
        cold_caches()
        old = parse_gc(text, tok)
        gc_facts(old)  # every section's items read, as the window had before the edit
        new_text = edit(text)
        warm = parse_gc(new_text, tok)
        warm_facts = gc_facts(warm)
        warm_gone = vanished_items(old, warm)
        cold_caches()
        cold = parse_gc(new_text, tok)
        assert warm_facts == gc_facts(cold), name
        # The loss check looks only at sections whose text changed; the definition is "every
        # keyed item of the old version that the new one holds nowhere":
        everywhere = {norm(i.key) for s in cold.walk() for i in s.items}
        expected = [(s.ref, i.key) for s in old.walk() for i in s.items if norm(i.key) not in everywhere]
        assert warm_gone == expected, name


@pytest.mark.parametrize("path", MEMORIES, ids=lambda p: p.parent.name)
def test_a_team_memory_reparsed_after_each_edit_equals_a_cold_parse(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    for name, edit in _edits(text, rng):
        cold_caches()
        parse_memory(text)
        new_text = edit(text)
        warm = memory_facts(parse_memory(new_text))
        cold_caches()
        assert warm == memory_facts(parse_memory(new_text)), name


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_a_gc_read_again_from_its_last_parse_equals_a_cold_parse(path: Path, newline: str) -> None:
    """``parse_gc(new, previous=old)`` re-reads one section when it can; along a chain of
    forty random edits, each read from the one before, every version equals a cold read, and
    the outside-loss check gives what its definition gives (files written on Windows too)."""
    tok = get_tokenizer("o200k_base")
    text = path.read_text(encoding="utf-8").replace("\n", newline)
    rng = random.Random(path.parent.name + newline)
    versions = [*(edit(text) for _, edit in _edits(text, rng)), text]
    for _ in range(40):
        versions.append(random_edit(versions[-1], rng))
    previous = parse_gc(text, tok)
    for version in versions:
        warm = parse_gc(version, tok, previous=previous)
        warm_gone = vanished_items(previous, warm)
        cold_caches()
        cold = parse_gc(version, tok)
        assert gc_facts(warm) == gc_facts(cold), version[:80]
        everywhere = {norm(i.key) for s in cold.walk() for i in s.items}
        assert warm_gone == [(s.ref, i.key) for s in previous.walk() for i in s.items if norm(i.key) not in everywhere]
        previous = warm


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("path", MEMORIES, ids=lambda p: p.parent.name)
def test_a_team_memory_read_again_from_its_last_parse_equals_a_cold_parse(path: Path, newline: str) -> None:
    """``parse_memory(new, previous=old)`` re-reads one section when it can; a chain of forty
    random edits, each read from the one before, gives what a cold read of each version gives
    (a wrong offset kept by one step would show in a later one; files written on Windows too)."""
    text = path.read_text(encoding="utf-8").replace("\n", newline)
    rng = random.Random(path.parent.name + newline)
    named = [edit(text) for _, edit in _edits(text, rng)]
    versions = [*named, text]
    for _ in range(40):
        versions.append(random_edit(versions[-1], rng))
    previous = parse_memory(text)
    for version in versions:
        warm = parse_memory(version, previous=previous)
        cold_caches()
        assert memory_facts(warm) == memory_facts(parse_memory(version)), version[:80]
        previous = warm


def test_an_append_to_one_section_keeps_every_other_sections_entries() -> None:
    """The point of the re-read: the sections before the edit are the same objects, those
    after it hold the same entry objects one line further down, and the edited one is new."""
    text = (DEMO / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    old = parse_memory(text)
    roles = [s for s in old.sections if s.kind == "role"]
    target = roles[0]
    header_line = text.splitlines(keepends=True)[target.line]
    new = parse_memory(text.replace(header_line, header_line + "- [Finding] appended\n", 1), previous=old)
    at = old.sections.index(target)
    assert all(a is b for a, b in zip(old.sections[:at], new.sections[:at], strict=True))
    assert new.sections[at].entries[0].text == "appended"
    assert len(new.sections[at].entries) == len(target.entries) + 1
    for was, now in zip(old.sections[at + 1 :], new.sections[at + 1 :], strict=True):
        assert now.entries is was.entries and now.line == was.line + 1


@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_an_item_put_in_just_before_a_gc_heading_reads_one_section(path: Path) -> None:
    """An agent appends an item at the end of a section whose text runs straight into the next
    heading (or after its blank line): the new bytes start where that heading starts, and they
    belong to the section above it. For every heading of every real GC, the follow-up path is
    taken and gives what a cold parse gives."""
    tok = get_tokenizer("o200k_base")
    text = path.read_text(encoding="utf-8")
    old = parse_gc(text, tok)
    starts = [s.start for s in old.flat()[1:]]
    assert starts  # every real GC has more than one section
    for at in starts:
        new_text = text[:at] + f"- appended-{at}: by an agent\n" + text[at:]
        warm = parse_gc(new_text, tok, previous=old)
        assert warm.follow_up is not None, text[at : at + 60]
        warm_facts = gc_facts(warm)
        cold_caches()
        assert warm_facts == gc_facts(parse_gc(new_text, tok)), text[at : at + 60]
        old = parse_gc(text, tok)


@pytest.mark.parametrize("path", MEMORIES, ids=lambda p: p.parent.name)
def test_an_entry_put_in_just_before_a_memory_heading_reads_one_section(path: Path) -> None:
    """The same for TEAM-MEMORY: an entry appended at the very end of a section belongs to it;
    the sections below keep their text objects (what only the one-section read does), and the
    result is what a cold parse gives."""
    text = path.read_text(encoding="utf-8")
    old = parse_memory(text)
    assert len(old.sections) > 1  # every real TEAM-MEMORY has sections one after another
    for k in range(1, len(old.sections)):
        at = old.offsets[k]
        new_text = text[:at] + "- [Finding] appended by an agent\n" + text[at:]
        warm = parse_memory(new_text, previous=old)
        assert warm.sections[k].body is old.sections[k].body, old.sections[k].header
        warm_facts = memory_facts(warm)
        cold_caches()
        assert warm_facts == memory_facts(parse_memory(new_text)), old.sections[k].header
        old = parse_memory(text)


def test_the_edits_change_what_they_say() -> None:
    """The edit helpers above really edit (an unchanged text would prove nothing)."""
    text = (DEMO / "global-context.md").read_text(encoding="utf-8")
    for name, edit in _edits(text, random.Random(1)):
        assert edit(text) != text, name


def test_a_follow_up_keeps_no_reference_to_the_text_it_replaced() -> None:
    """A section tree holds cycles (child → parent), freed only by a full collection; if its
    sections held the whole text, each replaced version of a 10 MB GC would stay until then.
    No section of either version refers to a whole text, and the new version none to the old."""
    tok = get_tokenizer("o200k_base")
    text = (DEMO / "global-context.md").read_text(encoding="utf-8")
    old = parse_gc(text, tok)
    heading = next(line for line in text.splitlines(keepends=True) if line.startswith("## "))
    new = parse_gc(text.replace(heading, heading + "- added: by an agent\n", 1), tok, previous=old)
    assert new.follow_up is not None  # read from the last parse
    slots = [name for cls in type(old.sections[0]).__mro__ for name in getattr(cls, "__slots__", ())]
    for version in (old, new):
        for section in version.walk():
            values = [getattr(section, name, None) for name in slots]
            assert not any(v is old.text or v is new.text for v in values), section.ref


def _reference_loss(before: str, after: str) -> dict[str, list[str]]:
    """The loss check's definition, from whole-file lines: for each old section whose header
    the new file still has, its entry lines that no section of the new file holds (an
    [ARCHIVED] mark does not count), reported under its header."""
    import re

    def sections(text: str) -> list[tuple[str, list[str]]]:
        lines = text.splitlines(keepends=True)
        memory = parse_memory(text)
        return [
            (s.header, ["".join(lines[slice(*s.span_of(e))]) for e in s.entries])
            for s in memory.sections
            if s.kind != "meta"
        ]

    def strip(entry: str) -> str:
        return re.sub(r"\[ARCHIVED\]\s*", "", entry, flags=re.I)

    new = sections(after)
    headers = {header for header, _ in new}
    everywhere = {strip(e) for _, es in new for e in es}
    out = {}
    for header, es in sections(before):
        lost = [e for e in es if strip(e) not in everywhere]
        if header in headers and lost:
            out[header] = lost
    return out


@pytest.mark.parametrize("path", MEMORIES, ids=lambda p: p.parent.name)
def test_the_loss_check_after_each_edit_matches_its_definition(path: Path) -> None:
    """The loss check compares only sections whose text changed, reading entry lines from each
    section's own text; along a chain of random edits (each parsed from the one before, as the
    window does) it finds exactly what the whole-file definition finds."""
    from models.memory.loss import detect_loss

    text = path.read_text(encoding="utf-8")
    rng = random.Random("loss" + path.parent.name)
    before, old = text, parse_memory(text)
    found = 0
    for _ in range(40):
        after = random_edit(before, rng) if rng.random() < 0.7 else _drop_a_line(before, rng)
        new = parse_memory(after, previous=old)
        loss = detect_loss(before, after, old=old, new=new)
        assert loss.lost_entries == _reference_loss(before, after)
        found += bool(loss.lost_entries)
        before, old = after, new
    assert found  # the chain did drop entries somewhere (an empty check would prove nothing)


def _drop_a_line(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    bullets = [i for i, line in enumerate(lines) if line.startswith("- ")]
    if bullets:
        del lines[rng.choice(bullets)]
    return "".join(lines)


def test_the_version_a_follow_up_replaces_leaves_the_parse_cache() -> None:
    """The parse cache serves the composer's texts (the working GC, the session's, the base
    snapshot); the disk version a follow-up replaced is never asked for again, and on a 10 MB
    GC would hold 20 MB, so it leaves the cache while the others stay."""
    tok = get_tokenizer("o200k_base")
    text = (DEMO / "global-context.md").read_text(encoding="utf-8")
    cold_caches()
    base = parse_gc(text.replace("version: GC-v6", "version: GC-v5"), tok)
    old = parse_gc(text, tok)
    new = parse_gc(text.replace("## Risks\n", "## Risks\n- budget: two engineers\n"), tok, previous=old)
    held = [entry[-1] for entry in gc_module._PARSED]
    assert any(v is new for v in held) and any(v is base for v in held)
    assert not any(v is old for v in held)
