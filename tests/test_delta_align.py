"""Issue 18: a diff and its proof skip the top-level sections two versions have in common,
found from the text (``models.delta.align``). What they skip must be the same text on both
sides, what they leave must hold every change, and the deltas must be those a diff that walks
every section computes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from gc_facts import cold_caches

import models.delta.diff as diff_module
from conftest import DEMO, REAL_SESSIONS
from gc_edits import edits, random_edit
from models.delta.align import Same, gaps, same_runs
from models.delta.apply import apply_delta, check_result
from models.delta.diff import diff_gc
from models.delta.items import ApplyError, structure
from models.session.gc import GlobalContext
from models.session.gc_parse import parse_gc
from models.text.tokens import get_tokenizer

GCS = sorted(p for p in [*REAL_SESSIONS.glob("*/global-context.md"), DEMO / "global-context.md"])
TOK = get_tokenizer("o200k_base")


def _chunks(gc: GlobalContext) -> list[str]:
    return [gc.text[s.start : s.end] for s in gc.sections]


def _check_runs(old: GlobalContext, new: GlobalContext, runs: tuple[Same, ...]) -> None:
    """Runs in order, not overlapping, and each pair of sections the same text (read from a
    cold parse of each version, not from the bounds the alignment used)."""
    cold_caches()
    o, n = _chunks(parse_gc(old.text, TOK)), _chunks(parse_gc(new.text, TOK))
    i = j = 0
    for run in runs:
        assert run.count > 0 and run.old >= i and run.new >= j
        assert o[run.old : run.old + run.count] == n[run.new : run.new + run.count]
        i, j = run.old + run.count, run.new + run.count
    assert i <= len(o) and j <= len(n)


def _many_tops(count: int) -> str:
    parts = ["---\nversion: GC-v7\n---\n# Areas\n\n"]
    for i in range(count):
        parts.append(f"## Area {i}\n- key-{i}: value {i}\n\n### Detail {i}\n- note-{i}: text {i}\n\n")
    return "".join(parts)


def test_in_place_edits_leave_exactly_the_changed_sections_out_of_the_runs() -> None:
    """Edits inside five sections of 300 (and the version bumped): the gaps are those five."""
    old = _many_tops(300)
    new = old.replace("version: GC-v7", "version: GC-v8")
    for area in (0, 41, 42, 150, 299):
        new = new.replace(f"- key-{area}: value {area}\n", f"- key-{area}: changed\n", 1)
    runs = same_runs(parse_gc(old, TOK), parse_gc(new, TOK))
    left = [(a, b, c, d) for a, b, c, d in gaps(runs, 300, 300)]
    assert left == [(0, 1, 0, 1), (41, 43, 41, 43), (150, 151, 150, 151), (299, 300, 299, 300)]


def test_sections_added_and_removed_are_the_gaps() -> None:
    old = _many_tops(50)
    gone = "## Area 10\n- key-10: value 10\n\n### Detail 10\n- note-10: text 10\n\n"
    added = "## New area\n- fresh: yes\n\n"
    new = old.replace(gone, "").replace("## Area 30\n", added + "## Area 30\n")
    runs = same_runs(parse_gc(old, TOK), parse_gc(new, TOK))
    assert list(gaps(runs, 50, 50)) == [(10, 11, 10, 10), (30, 30, 29, 30)]


def test_one_parse_against_itself_is_one_run_of_all_its_top_level_sections() -> None:
    """A composer whose working GC is the one on disk plans the teammates one version behind
    from that very parse. Its runs are answered without reading any section's bounds; they
    must be those of two separate parses of the same text (the alignment's own walk), and
    one run of every top-level section a cold parse finds."""
    for path in GCS:
        text = path.read_text(encoding="utf-8")
        cold_caches()
        gc = parse_gc(text, TOK)
        cold_caches()
        twin = parse_gc("".join([text[:1], text[1:]]), TOK)  # the same text, another string
        assert twin is not gc and twin.text is not gc.text
        count = len(gc.sections)
        assert count > 0, path
        assert same_runs(gc, gc) == (Same(0, 0, count),), path
        assert same_runs(gc, twin) == (Same(0, 0, count),), path


@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_real_gcs_every_edit_and_random_ones_diff_as_a_full_walk_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On each real GC: every single edit of gc_edits (independent of the parser), and chains
    of random edits. The runs hold the same text; the delta is exact whenever the full walk's
    is, and has the same items."""
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    pairs = [(text, new) for _, new in edits(text)]
    current = text
    for _ in range(12):
        changed = current
        for _ in range(rng.randrange(1, 4)):
            changed = random_edit(changed, rng)
        pairs.append((current, changed))
        current = changed
    assert len(pairs) > 12
    for old_text, new_text in pairs:
        old, new = structure(old_text), structure(new_text)
        _check_runs(old, new, same_runs(old, new))
        skipping = diff_gc(old_text, new_text)
        with monkeypatch.context() as m:
            m.setattr(diff_module, "same_runs", lambda o, n: ())
            walking = diff_gc(old_text, new_text)
        assert skipping.delta == walking.delta
        assert skipping.exact == walking.exact
        if skipping.exact:
            assert apply_delta(old_text, skipping.delta) == new_text


def test_the_proof_still_refuses_damage_far_from_what_the_delta_names() -> None:
    """The proof compares only the sections the versions do not share: damage to a section
    no item names is one of those, and is refused."""
    old = _many_tops(200)
    new = old.replace("- key-5: value 5\n", "- key-5: changed\n")
    result = diff_gc(old, new)
    assert result.exact and [i.ref for i in result.delta.items] == ["Area 5"]
    damaged = new.replace("- note-150: text 150\n", "")
    with pytest.raises(ApplyError, match=r"§Area 150\.Detail 150"):
        check_result(old, damaged, result.delta)
