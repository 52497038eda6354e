"""Issue 18: a GC changed in several places (a new version: the version bump and a few edits)
is read from its last parse by parsing only the changed stretches between the top-level
sections it kept (``models.session.gc_regions``). Every such read must give what a cold, full
parse of the text gives; where a stretch could read differently inside the whole text, the full
parse is taken instead."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from gc_facts import cold_caches, gc_facts

import models.session.gc_parse as gc_parse
from conftest import DEMO, REAL_SESSIONS
from gc_edits import edits, random_edit
from models.session.gc import GlobalContext
from models.session.gc_parse import parse_gc
from models.session.gc_tail import TopList
from models.text.tokens import Tokenizer, get_tokenizer

GCS = sorted(p for p in [*REAL_SESSIONS.glob("*/global-context.md"), DEMO / "global-context.md"])
TOK = get_tokenizer("o200k_base")


def _by_stretches(gc: GlobalContext) -> bool:
    """Read by this path: kept sections as runs (``TopList``), and not the one-section
    follow-up (which records the section it re-read)."""
    return isinstance(gc.sections, TopList) and gc.follow_up is None


def _bump(text: str) -> str:
    """The version line's number raised by one, found by text alone."""
    head, sep, rest = text.partition("version: GC-v")
    if not sep:
        return text
    digits = len(rest) - len(rest.lstrip("0123456789"))
    return f"{head}{sep}{int(rest[:digits]) + 1}{rest[digits:]}"


def _read_from(old_text: str, new_text: str) -> tuple[GlobalContext, list[object]]:
    """``new_text`` read from a fresh parse of ``old_text``, and its facts."""
    cold_caches()
    old = parse_gc(old_text, TOK)
    gc_facts(old)  # every section looked at, as the window had before the change
    warm = parse_gc(new_text, TOK, previous=old)
    return warm, gc_facts(warm)


def _cold(text: str) -> list[object]:
    cold_caches()
    return gc_facts(parse_gc(text, TOK))


@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_a_new_version_with_edits_in_several_places_reads_as_a_cold_parse(path: Path) -> None:
    """Each single edit of a real GC (``gc_edits``: items changed, added, removed, sections
    added, removed, renamed, moved), with the version bumped and a second edit elsewhere: the
    read from the last parse equals a cold parse, and most take the stretches path."""
    text = path.read_text(encoding="utf-8")
    singles = list(edits(text))
    assert singles
    taken = 0
    for name, edited in singles:
        later = [e for _, e in edits(edited)]
        for new_text in (_bump(edited), _bump(later[-1]) if later else edited):
            warm, facts = _read_from(text, new_text)
            taken += _by_stretches(warm)
            assert facts == _cold(new_text), name
    assert taken >= len(singles)  # the path was taken (full parses each time would prove nothing)


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_a_chain_of_versions_each_read_from_the_last_reads_as_cold_parses(path: Path, newline: str) -> None:
    """Thirty versions, each one to three edits and often a version bump away from the one
    before, each read from the last read (whatever path that took): a wrong place kept by one
    read would show in a later one."""
    text = path.read_text(encoding="utf-8").replace("\n", newline)
    rng = random.Random(path.parent.name + newline)
    cold_caches()
    previous = parse_gc(text, TOK)
    taken = 0
    for _ in range(30):
        for _ in range(rng.choice((1, 2, 3))):
            text = rng.choice([e for _, e in edits(text)] or [text])
        if rng.random() < 0.3:
            text = random_edit(text, rng)
        if rng.random() < 0.5:
            text = _bump(text)
        previous = parse_gc(text, TOK, previous=previous)
        taken += _by_stretches(previous)
        assert gc_facts(previous) == _cold(text)
        previous = parse_gc(text, TOK)  # the cold parse is now the last one: as the app would
    assert taken >= 5


_BASE = "---\nversion: GC-v3\n---\n# Plan\n\nIntro.\n\n" + "".join(
    f"## Area {i}\n- key-{i}: value {i}\n\n### Detail {i}\n- note-{i}: text {i}\n\n" for i in range(12)
)


def _swap(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


# Each changes two places, the version among them, so the one-section follow-up cannot take it;
# each is a case where a stretch read on its own would differ from the same stretch in the file.
# Most replace one piece of text and bump the version: (what, by what).
_SWAPS = {
    "a comment opened in one stretch runs over the kept sections below": (
        "- key-3: value 3\n",
        "- key-3: value 3\n<!-- a note\n",
    ),
    "a fence opened and never closed": ("- key-3: value 3\n", "```\n"),
    "a new section takes a kept section's title": ("## Area 5\n", "## Area 2\n- again: the same title\n\n## Area 5\n"),
    "a section turned into a level-1 heading": ("## Area 4\n", "# Area 4\n"),
    "a section turned one level deeper nests under the one above": ("## Area 4\n", "### Area 4\n"),
    "a kept section after a deeper one": ("### Detail 4\n", "#### Detail 4\n"),
    "text put in before a heading joins the section above": ("## Area 6\n", "loose line\n## Area 6\n"),
    "text and a section put in before a heading": ("## Area 6\n", "loose line\n## New\n- n: 1\n\n## Area 6\n"),
    "the title changed, to one as long": ("# Plan\n", "# Plot\n"),
    "the preamble grew": ("Intro.\n", "Intro, longer.\n"),
    "two subsections of one title in a stretch": ("### Detail 4\n", "### Detail 4\n- x: 1\n\n### Detail 4\n"),
}


def _bumped_swap(old: str, new: str) -> Callable[[str], str]:
    return lambda text: _bump(_swap(text, old, new))


_TRAPS: dict[str, Callable[[str], str]] = {
    **{name: _bumped_swap(old, new) for name, (old, new) in _SWAPS.items()},
    "the last section loses its line end and gets text after it": lambda t: (
        _bump(t.rstrip("\n")) + "\n## Area 12\n- key-12: new\n"
    ),
    "sections removed ahead of everything else": lambda t: _bump(t[: t.index("## Area 0")] + t[t.index("## Area 3") :]),
    "the version is no GC-vN": lambda t: _swap(_swap(t, "GC-v3", "three"), "value 7\n", "value seven\n"),
    "front matter broken": lambda t: _swap(_swap(t, "version: GC-v3", "version: [GC-v3"), "value 7\n", "seven\n"),
}


@pytest.mark.parametrize("name", list(_TRAPS))
def test_a_stretch_that_could_read_differently_is_never_kept_wrong(name: str) -> None:
    """Each trap changes what the sections around a stretch would be; the read from the last
    parse still equals a cold parse (by the stretches path or by the full parse)."""
    new_text = _TRAPS[name](_BASE)
    assert new_text != _BASE
    _, facts = _read_from(_BASE, new_text)
    assert facts == _cold(new_text)


def test_an_untitled_gc_losing_its_first_section_gets_a_title() -> None:
    """Without a title, the first heading is a section; when it is of level 2 and the sections
    after it of level 1, removing it makes the next one the first heading, which is the title."""
    text = "---\nversion: GC-v1\n---\n## First\n- a: 1\n\n# Second\n- b: 2\n\n# Third\n- c: 3\n\n# Fourth\n"
    new_text = _bump(text[: text.index("## First")] + text[text.index("# Second") :])
    _, facts = _read_from(text, new_text)
    assert facts == _cold(new_text)


@pytest.fixture
def parsed_parts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text parsed on its own as a stretch (or whole), from the moment it is asked for."""
    parts: list[str] = []
    real = gc_parse._parse

    def recording(part: str, tokenizer: Tokenizer, file: str) -> tuple[GlobalContext, bool]:
        parts.append(part)
        return real(part, tokenizer, file)

    monkeypatch.setattr(gc_parse, "_parse", recording)
    return parts


def _read_by_stretches(old_text: str, new_text: str, parts: list[str]) -> GlobalContext:
    """``new_text`` read from a cold parse of ``old_text``; ``parts`` then holds what that read
    parsed, and the read equals a cold parse."""
    cold_caches()
    old = parse_gc(old_text, TOK)
    parts.clear()
    warm = parse_gc(new_text, TOK, previous=old)
    read = list(parts)
    assert _by_stretches(warm)
    assert gc_facts(warm) == _cold(new_text)
    parts[:] = read  # not the cold parse's
    return warm


def test_only_the_changed_stretches_are_parsed(parsed_parts: list[str]) -> None:
    """The point of the path: a new version of a 5,000-line GC with the version bumped, four
    items changed in four sections and a section added at the end parses a few hundred
    characters, not the file."""
    from bench.generate import big_gc

    text = big_gc(lines=5_000, sections=500, version=40)
    new_text = _bump(text)
    for area in (10, 120, 250, 400):
        new_text = _swap(new_text, f"- item-{area}-1: value 1", f"- item-{area}-1: value 2")
    new_text += "\n## Area 500: added\n- key: value\n"
    _read_by_stretches(text, new_text, parsed_parts)
    assert len(parsed_parts) == 5 and sum(map(len, parsed_parts)) < len(new_text) // 50


def test_a_section_put_in_before_another_parses_only_itself(parsed_parts: list[str]) -> None:
    """A section put in between two kept ones (and the version bumped) is the one stretch
    parsed: the section after it is found where it now stands, not read again."""
    added = "## Inserted\n- fresh: yes\n\n"
    _read_by_stretches(_BASE, _bump(_swap(_BASE, "## Area 4\n", added + "## Area 4\n")), parsed_parts)
    assert parsed_parts == [added]
