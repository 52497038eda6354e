"""Issue 18: a GC follow-up copies the sections its edit moved only when something asks for
them (``models.session.gc_tail``). Whatever is asked, in whatever order, and however long the
chain of follow-ups, every version must read as a cold parse of its text reads."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from gc_facts import cold_caches, gc_facts

import models.session.gc_tail as gc_tail
from conftest import DEMO, REAL_SESSIONS
from gc_edits import random_edit
from models.session.gc import GlobalContext, Section
from models.session.gc_parse import parse_gc
from models.text.tokens import get_tokenizer

GCS = sorted(p for p in [*REAL_SESSIONS.glob("*/global-context.md"), DEMO / "global-context.md"])
TOK = get_tokenizer("o200k_base")


def _many_tops(count: int = 300) -> str:
    """A GC of many top-level sections, each with a subsection (as the benchmark's is)."""
    parts = ["---\nversion: GC-v3\n---\n# Many areas\n\n"]
    for i in range(count):
        parts.append(f"## Area {i}\n- key-{i}: value {i}\n\n### Detail {i}\n- note-{i}: text — {i}\n\n")
    return "".join(parts)


def _add_item(text: str, rng: random.Random, n: int) -> str:
    """An item put in after a random bullet line: an agent's usual edit of a GC, found by
    text alone (the app's parser must not choose the edits it is tested with)."""
    bullets = [m.end() for m in re.finditer(r"^- [^\n]*\n", text, re.M)]
    at = rng.choice(bullets)
    return text[:at] + f"- added-{n}: by an agent\n" + text[at:]


def _look_somewhere(gc: GlobalContext, rng: random.Random) -> None:
    """Ask for a few sections the way views do (a row, a top-level section), copying some
    trees and not others."""
    for _ in range(rng.randrange(4)):
        if gc.flat():
            _ = gc.flat()[rng.randrange(len(gc.flat()))].start
        if gc.sections:
            _ = gc.sections[rng.randrange(len(gc.sections))].children


def _chain(text: str, rng: random.Random, steps: int, targeted: bool) -> tuple[list[tuple[str, GlobalContext]], int]:
    """``steps`` edits (items put in; and unless ``targeted``, one in five a random edit), each
    parsed from the version before, looking at a few sections in between; returns every
    (text, version) and how many were follow-ups."""
    previous = parse_gc(text, TOK)
    versions, followed = [(text, previous)], 0
    for n in range(steps):
        text = _add_item(text, rng, n) if targeted or rng.random() < 0.8 else random_edit(text, rng)
        previous = parse_gc(text, TOK, previous=previous)
        followed += previous.follow_up is not None
        versions.append((text, previous))
        if rng.random() < 0.5:
            _look_somewhere(previous, rng)
    return versions, followed


@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_every_version_of_a_chain_of_real_gc_edits_reads_as_a_cold_parse(path: Path) -> None:
    """Sixty edits of a real GC, each read from the one before, with sections asked for
    here and there; then every version is read in a random order, the old ones after the new
    ones copied the trees they share. Each gives what a cold parse of its text gives."""
    rng = random.Random("tail" + path.parent.name)
    versions, followed = _chain(path.read_text(encoding="utf-8"), rng, 60, targeted=False)
    assert followed >= 10  # the chain took the follow-up path (a full parse each time would prove nothing)
    rng.shuffle(versions)
    for text, version in versions:
        warm = gc_facts(version)
        cold_caches()
        assert warm == gc_facts(parse_gc(text, TOK)), text[:80]


@pytest.mark.parametrize("max_runs", [3, gc_tail.MAX_RUNS])
def test_a_long_chain_of_edits_all_over_a_gc_reads_as_a_cold_parse(
    max_runs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixty items put in at random places of a GC of 120 areas: each follow-up leaves
    more runs of moved sections, and past ``MAX_RUNS`` the follow-up copies them all and starts
    over from one run. Both ways, every version reads as a cold parse does."""
    monkeypatch.setattr(gc_tail, "MAX_RUNS", max_runs)
    rng = random.Random(max_runs)
    versions, followed = _chain(_many_tops(120), rng, 60, targeted=True)
    assert followed == 60
    assert max(len(v.sections._runs) for _, v in versions[1:]) == max_runs  # type: ignore[attr-defined]
    rng.shuffle(versions)
    for text, version in versions:
        warm = gc_facts(version)
        cold_caches()
        assert warm == gc_facts(parse_gc(text, TOK)), text[:80]


def test_a_follow_up_copies_a_moved_tree_once_and_only_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """An item put in under the first area of 300: the areas above the edit are the last
    parse's objects, and none below is copied until asked for; asking twice gives the same
    copy, and reading the whole GC copies each moved tree once."""
    made: list[Section] = []
    real = gc_tail.moved_tree

    def counting(tree: Iterable[Section], chars: int, lines: int) -> list[Section]:
        sections = list(tree)
        made.append(sections[0])
        return real(sections, chars, lines)

    monkeypatch.setattr(gc_tail, "moved_tree", counting)
    text = _many_tops()
    cold_caches()  # read in full, not from an earlier test's parse of a shorter GC
    old = parse_gc(text, TOK)
    at = text.index("\n", text.index("- key-1: ")) + 1
    new = parse_gc(text[:at] + "- added: by an agent\n" + text[at:], TOK, previous=old)
    assert new.follow_up is not None and new.follow_up.top == 1
    assert made == []  # nothing below the edit was copied
    assert new.sections[0] is old.sections[0]  # above the edit: the very objects
    last = new.flat()[-1]
    assert (last.title, last.line - old.flat()[-1].line) == ("Detail 299", 1)
    assert made == [old.sections[-1]]  # one tree copied: the one asked for
    assert new.flat()[-1] is last and new.sections[-1].children[0] is last
    assert len(made) == 1
    walked = list(new.walk())
    assert len(made) == 298  # every area below the edited one, once
    assert [s.title for s in walked] == [s.title for s in old.walk()]
    assert list(new.walk()) == walked and len(made) == 298


class _Unhashable(str):
    """A text that refuses to be hashed: a parse that makes it a dictionary key fails."""

    __hash__ = None  # type: ignore[assignment]


def test_neither_a_parse_nor_a_follow_up_hashes_the_whole_text() -> None:
    """The parse cache finds a text by comparing it (a new text differs in length or early on);
    hashing a 10 MB GC for a key took 4 ms of every follow-up. The cache still answers."""
    cold_caches()
    text = _many_tops(40)
    old = parse_gc(_Unhashable(text), TOK)
    edited = _Unhashable(_add_item(text, random.Random(3), 1))
    new = parse_gc(edited, TOK, previous=old)
    assert new.follow_up is not None
    assert parse_gc(_Unhashable(edited), TOK) is new  # an equal text, another object: kept
    warm = gc_facts(new)
    cold_caches()
    assert warm == gc_facts(parse_gc(str(edited), TOK))


def test_the_structure_memo_finds_a_text_without_hashing_it() -> None:
    """The delta code's memo of parsed structure is looked up once per applied step; hashing
    each new text whole took a tenth of a diff. An equal text, another object, is found; a text
    of the same length that differs is not taken for it."""
    from models.delta.items import structure

    text = _many_tops(40)
    first = structure(_Unhashable(text))
    assert structure(_Unhashable(text)) is first
    same_length = text.replace("value 7\n", "value 8\n", 1)
    assert len(same_length) == len(text)
    other = structure(_Unhashable(same_length))
    assert other is not first and other.text == same_length
    assert [s.own_text for s in other.walk()] != [s.own_text for s in first.walk()]


def test_a_follow_ups_section_lists_index_and_slice_as_lists_do() -> None:
    """``sections`` and ``flat()`` of a follow-up answer indexes, negative ones and slices as
    the lists of a cold parse do (compared by title and place), and refuse one past the end."""
    text = _many_tops(12)
    old = parse_gc(text, TOK)
    new_text = _add_item(text, random.Random(5), 0)
    new = parse_gc(new_text, TOK, previous=old)
    assert new.follow_up is not None
    cold_caches()
    cold = parse_gc(new_text, TOK)
    for warm_list, cold_list in ((new.sections, cold.sections), (new.flat(), cold.flat())):
        assert len(warm_list) == len(cold_list)
        for key in (0, 5, -1, -len(cold_list)):
            assert (warm_list[key].title, warm_list[key].start) == (cold_list[key].title, cold_list[key].start)
        for cut in (slice(2, 7), slice(None, None, 3), slice(-4, None), slice(9, 2)):
            assert [(s.title, s.start) for s in warm_list[cut]] == [(s.title, s.start) for s in cold_list[cut]]
        for past in (len(cold_list), -len(cold_list) - 1):
            with pytest.raises(IndexError):
                warm_list[past]
