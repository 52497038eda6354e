"""Adding many sections costs one parse, not one per section (issue 16: 1,500 sections added
took 180 s), and gives exactly what adding them one by one gives."""

from __future__ import annotations

import random

import pytest

from bench.generate import big_gc
from models.delta.apply import apply_delta, apply_item, set_version
from models.delta.batches import apply_items
from models.delta.diff import diff_gc
from models.delta.items import ApplyError, DeltaItem, structure


def test_a_chain_of_added_sections_equals_adding_them_one_by_one() -> None:
    old = big_gc(lines=300, sections=30, version=40)
    rng = random.Random(3)
    checked = 0
    for trial in range(80):
        parts = []
        for i in range(rng.randint(2, 6)):
            body = "" if rng.random() < 0.3 else f"- k{i}: v{i}\n"
            sub = f"### Sub {i}\n- s: t\n" if rng.random() < 0.3 else ""
            # Titles with a colon or a dot are quoted in references; one sometimes differs from
            # an existing heading only in case, which quoting keeps apart.
            title = rng.choice(
                [f"New {trial} {i}", f"New: {trial} {i}", f"v{trial}.{i} notes", "AREA 10: SUBSYSTEM 10"]
            )
            parts.append(f"## {title}\n{body}{sub}" + ("\n" if rng.random() < 0.5 else ""))
        new = old.replace("version: GC-v40", "version: GC-v41")
        cut = new.find("## Area 10")
        new = new[:cut] + "".join(parts) + new[cut:] if trial % 2 else new + "\n" + "".join(parts)
        result = diff_gc(old, new)
        one_by_one = old
        for item in result.delta.items:
            one_by_one = apply_item(one_by_one, item)
        one_by_one = set_version(one_by_one, 41)
        assert one_by_one == new  # the independent path: one parse per item
        assert apply_delta(old, result.delta) == new
        checked += 1
    assert checked == 80


def test_a_thousand_five_hundred_sections_added_diff_and_apply_exactly() -> None:
    """Issue 16's 1,500 sections added (which took 180 s): the delta names each and applies to
    the new GC byte for byte. Its time at ten times this is the benchmark's row."""
    old = big_gc(lines=2_000, sections=200, version=40)
    added = "".join(f"\n## Added {i}\n- key-{i}: value {i}\n" for i in range(1_500))
    new = old.replace("version: GC-v40", "version: GC-v41") + added
    result = diff_gc(old, new)
    assert result.exact and apply_delta(old, result.delta) == new
    assert len(result.delta.items) >= 1_500


def test_a_chain_of_added_items_equals_adding_them_one_by_one() -> None:
    """Rows and bullets added each after the one before, in a table and in a list of the demo
    GC: the same bytes as applying the items one at a time (each against a fresh parse)."""
    from conftest import DEMO
    from models.delta.items import Delta, DeltaItem

    gc = (DEMO / "global-context.md").read_text(encoding="utf-8")
    for section, anchor, keys in (
        ("Architecture Decisions", "D-4", ["D-9", "D-10", "D-11"]),
        ("Risks", None, ["RK-5", "RK-6"]),
        ("Constraints", None, ["Budget", "Region"]),
    ):
        items = []
        previous = anchor
        for n, key in enumerate(keys):
            position = f"after:{previous}" if previous else None
            new = f"value {n} | x | P6" if section != "Constraints" else f"value {n}"
            items.append(DeltaItem("ADDED", section, key=key, new=new, position=position))
            previous = key
        delta = Delta(6, 6, tuple(items))
        one_by_one = gc
        for item in items:
            one_by_one = apply_item(one_by_one, item)
        assert apply_delta(gc, delta) == one_by_one
        assert all(k in one_by_one for k in keys)


def test_four_thousand_items_added_to_one_section_diff_and_apply_exactly() -> None:
    """Issue 16's 4,000 items into one section (344 s and 2 GB then); its time at ten times
    this is the benchmark's row."""
    old = big_gc(lines=500, sections=50, version=40)
    cut = old.find("## Area 10")
    end = old.find("\n## ", cut + 5)
    new = old[:end] + "".join(f"\n- new-{i}: value {i}" for i in range(4_000)) + old[end:]
    new = new.replace("version: GC-v40", "version: GC-v41")
    result = diff_gc(old, new)
    assert result.exact and apply_delta(old, result.delta) == new


def test_every_heading_renamed_equals_the_one_by_one_result() -> None:
    """Issue 16: all headings of a GC renamed (each a REMOVED and an ADDED) took 59 s for 750;
    the delta of 750 applies exactly (ten times as many is the benchmark's row)."""
    import re

    old = big_gc(lines=7_500, sections=750, version=40)
    new = re.sub(r"^## Area (\d+)", r"## Zone \1", old, flags=re.M).replace("version: GC-v40", "version: GC-v41")
    result = diff_gc(old, new)
    assert result.exact and apply_delta(old, result.delta) == new
    assert len(result.delta.items) >= 500  # every renamed (## ) heading is named by the delta
    small_old = big_gc(lines=200, sections=20, version=40)
    small_new = re.sub(r"^## Area (\d+)", r"## Zone \1", small_old, flags=re.M)
    small = diff_gc(small_old, small_new.replace("version: GC-v40", "version: GC-v41"))
    one_by_one = small_old
    for item in small.delta.items:
        one_by_one = apply_item(one_by_one, item)
    assert apply_delta(small_old, small.delta) == set_version(one_by_one, 41)


def test_a_run_of_changed_values_equals_changing_them_one_by_one() -> None:
    """Changed values (bullets, bold keys, table rows, CRLF), each key once or twice, some with
    an old value that does not match: the run on one parse gives the bytes, or the error naming
    the item, that applying the items one by one gives."""
    from models.delta.batches import apply_to_section
    from models.delta.items import ApplyError, DeltaItem

    section = (
        "## Config\n"
        "- alpha: 1\n"
        "- **beta**: two words\n"
        "- gamma: 3\n"
        "| Key | Value |\n|---|---|\n| delta | 4 |\n| epsilon | 5 |\n"
        "- alpha: the second alpha\n"
    )
    keys = ["alpha", "beta", "gamma", "delta", "epsilon"]
    rng = random.Random(7)
    compared = errors = 0
    for text in (section, section.replace("\n", "\r\n")):
        for _trial in range(150):
            items = [
                DeltaItem(
                    "CHANGED", "Config", key, old=rng.choice([None, None, "1", "nope"]), new=f"v{rng.randint(0, 9)}"
                )
                for key in rng.sample([*keys, "alpha", "beta"], rng.randint(2, 6))
            ]
            try:
                expected: str | ApplyError = text
                for item in items:
                    expected = apply_item(str(expected), item)
            except ApplyError as exc:
                expected = exc
            try:
                got: str | ApplyError = apply_to_section(text, items)
            except ApplyError as exc:
                got = exc
            if isinstance(expected, ApplyError):
                errors += 1
                assert isinstance(got, ApplyError) and (got.item, got.reason) == (expected.item, expected.reason)
            else:
                assert got == expected
            compared += 1
    assert compared == 300 and 0 < errors < 300  # both kinds were met


def test_eight_thousand_changed_values_diff_and_apply_exactly() -> None:
    """Issue 45.6: 8,000 items took 242 s and 7.5 GB to apply. Every value of 200 sections of
    40 bullets changed: the delta has 8,000 items and rebuilds the new GC exactly."""
    lines = ["---", "version: GC-v1", "---", "# GC", ""]
    for s in range(200):
        lines += [f"## Area {s}", *(f"- key-{s}-{i}: value {i}" for i in range(40)), ""]
    old = "\n".join(lines) + "\n"
    new = old.replace("version: GC-v1", "version: GC-v2").replace(": value ", ": new value ")
    result = diff_gc(old, new)
    assert result.exact and len(result.delta.items) == 8_000
    assert {i.op for i in result.delta.items} == {"CHANGED"}
    assert apply_delta(old, result.delta) == new


def _repeated(text: str, times: int, rng: random.Random | None = None) -> str:
    """``text`` with its sections (from the first ``## ``) written ``times`` times over, some
    left out at random: the shape of a GC an agent kept appending a copy of itself to."""
    start = text.index("\n## ") + 1
    head, body = text[:start], text[start:]
    pieces = ["## " + p for p in body.split("## ") if p] if rng else [body]
    out = [head]
    for _ in range(times):
        out += [p for p in pieces if rng is None or rng.random() < 0.8]
    return "".join(out)


def test_a_gc_that_repeats_its_sections_diffs_and_applies_both_ways_as_one_by_one() -> None:
    """Issue 45.6: the delta of the demo's GC against itself repeated (sections of one title
    many times, named ``"Scope"#7``) applied one item at a time, each parsing the GC again:
    over ten minutes for 10 MB. Both ways, with sections left out at random: the batched
    apply gives the new GC exactly, and what applying each item against a fresh parse gives."""
    from conftest import DEMO

    v5 = (DEMO / "gc-history" / "GC-v5.md").read_text(encoding="utf-8")
    v6 = (DEMO / "gc-history" / "GC-v6.md").read_text(encoding="utf-8")
    rng = random.Random(45)
    checked = exact = 0
    for trial in range(12):
        old = v5 if trial % 3 == 0 else _repeated(v5, rng.randint(2, 5), rng)
        new = _repeated(v6, rng.randint(2, 6), rng if trial % 2 else None)
        for a, b in ((old, new), (new, old)):
            result = diff_gc(a, b)
            one_by_one: str | None = a
            try:
                for item in result.delta.items:
                    one_by_one = apply_item(str(one_by_one), item)
                if result.delta.new_version is not None:
                    one_by_one = set_version(str(one_by_one), result.delta.new_version)
            except ApplyError:
                one_by_one = None
            try:
                batched: str | None = apply_delta(a, result.delta)
            except ApplyError:
                batched = None
            if result.exact:  # the diff proved its delta rebuilds the new GC
                assert batched == one_by_one == b
                exact += 1
            else:  # the app sends the full GC; applied, the delta still gives what one by one gives
                assert batched is None or batched == one_by_one
            checked += 1
    assert checked == 24 and exact >= 12


def test_the_demo_gc_repeated_two_hundred_times_diffs_and_applies_exactly_both_ways() -> None:
    """At a size the one-by-one path took minutes for (its time at 10 MB is the benchmark's
    row): ``"Scope"#200`` and the rest, added in order and removed from the last."""
    from conftest import DEMO

    v5 = (DEMO / "gc-history" / "GC-v5.md").read_text(encoding="utf-8")
    big = _repeated((DEMO / "gc-history" / "GC-v6.md").read_text(encoding="utf-8"), 200)
    for a, b in ((v5, big), (big, v5)):
        result = diff_gc(a, b)
        assert any('"Scope"#200' in i.ref for i in result.delta.items)
        assert apply_delta(a, result.delta) == b


def _one_by_one(text: str, items: tuple[DeltaItem, ...]) -> str | None:
    try:
        for item in items:
            text = apply_item(text, item)
    except ApplyError:
        return None
    return text


def test_sections_replaced_among_item_changes_apply_as_one_by_one() -> None:
    """Sections' texts REPLACED between items added and changed (what ``savings``' major
    restructure asks of a GC that repeats its titles) go in on one parse when their lines hold
    no heading: the same bytes as one item at a time; new text that holds a heading, a fence,
    a comment or a setext underline, or does not end its last line, still goes alone."""
    from conftest import SESSIONS
    from models.delta.items import Delta

    rng = random.Random(46)
    texts = ["- note: rewritten\n", "Plain prose.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", "### Inner\n- x: y\n"]
    texts += ["```\n# not a heading\n```\n", "<!-- c -->\n", "Title\n=====\n", "no line end", "- a\n---\n"]
    compared = 0
    for path in [s / "global-context.md" for s in SESSIONS if (s / "global-context.md").is_file()]:
        gc = path.read_text(encoding="utf-8")
        if "\n## " in gc:
            gc = _repeated(gc, 2)
        sections = [s for s in structure(gc).walk() if s.parent is None]
        for _ in range(10):
            items: list[DeltaItem] = []
            for section in rng.sample(sections, min(len(sections), 5)):
                ref = section.ref[1:] if section.ref.startswith("§") else section.ref
                if section.items and rng.random() < 0.5:  # before its text goes
                    item = rng.choice(section.items)
                    items.append(DeltaItem("CHANGED", ref, key=item.key, new="changed"))
                content = rng.choice(texts[:2] if rng.random() < 0.85 else texts[2:])
                items.append(DeltaItem("REPLACED", ref, content=content))
            expected = _one_by_one(gc, tuple(items))
            try:
                got: str | None = apply_items(gc, Delta(None, None, tuple(items)))
            except ApplyError:
                got = None
            assert got == expected
            compared += expected is not None
    assert compared >= 20
    # A new text that holds a heading renumbers the sections of that title after it: the item
    # after it names another section than it did before the run began.
    gc = _repeated((SESSIONS[0] / "global-context.md").read_text(encoding="utf-8"), 2)
    key = next(s for s in structure(gc).sections if s.ref == '§"Scope"#2').items[0].key
    items = (
        DeltaItem("REPLACED", "Team", content="- x: y\n## Scope\n- k: v\n"),
        DeltaItem("CHANGED", '"Scope"#2', key=key, new="changed"),
    )
    with pytest.raises(ApplyError):  # one by one, §"Scope"#2 is the new one, which has no such key
        _one_by_one_strict(gc, items)
    with pytest.raises(ApplyError):
        apply_items(gc, Delta(None, None, items))


def _one_by_one_strict(text: str, items: tuple[DeltaItem, ...]) -> str:
    for item in items:
        text = apply_item(text, item)
    return text
