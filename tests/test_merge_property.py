"""The Lead's draft merged with an agent's write loses nothing either side wrote.

``merge_drafts`` compares the GC by top-level section. Here the real GCs are cut into their
``##`` sections by a reader of our own (``gc_edits.headings``, not the app's parser); the Lead
edits some sections, an agent others (a line put in, a line changed, a section's body cut
short), and the merge must equal the base with each side's sections put in. Sections both
sides changed the same way merge without a question; changed differently, they are the
conflicts, each side's text given whole.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from conftest import CH006, COW, DEMO
from gc_edits import headings
from models.publish.merge import merge_drafts

GCS = [DEMO / "global-context.md", COW / "global-context.md", CH006 / "global-context.md"]


def _sections(text: str) -> tuple[str, list[str]]:
    """The text before the first ``##`` heading, and each ``##`` section to the next one."""
    lines = text.splitlines(keepends=True)
    starts = [i for i in headings(lines) if lines[i].startswith("## ")]
    head = "".join(lines[: starts[0]]) if starts else text
    bounds = [*starts, len(lines)]
    return head, ["".join(lines[a:b]) for a, b in itertools.pairwise(bounds)]


def _plain(line: str) -> bool:
    """A line an edit may change or cut after: no heading, and no fence to unbalance."""
    return not line.lstrip().startswith(("#", "```", "~~~", "<!--", "-->"))


def _edit(section: str, rng: random.Random, who: str) -> str:
    """A change inside one section's body: a bullet put in after a plain line, a plain line's
    text changed, or the body cut short after a plain line outside any fence. The heading
    line stays, and no fence is opened or closed."""
    lines = section.splitlines(keepends=True)
    fenced, outside = False, []
    for n, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif n and not fenced and _plain(line):
            outside.append(n)
    kind = rng.choice(["put", "change", "cut"])
    if not outside:
        kind = "heading"
    at = rng.choice(outside) if outside else 0
    if kind in ("put", "heading"):
        return "".join([*lines[: at + 1], f"- {who} wrote this {rng.random():.6f}\n", *lines[at + 1 :]])
    if kind == "change":
        return "".join([*lines[:at], f"{who} changed this line {rng.random():.6f}\n", *lines[at + 1 :]])
    return "".join(lines[: at + 1])


@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_disjoint_edits_of_the_draft_and_the_disk_both_survive_the_merge(path: Path) -> None:
    base = path.read_text(encoding="utf-8")
    head, sections = _sections(base)
    assert len(sections) >= 4
    rng = random.Random(path.parent.name)
    for _ in range(60):
        chosen = rng.sample(range(len(sections)), rng.randint(2, min(6, len(sections))))
        split = rng.randint(1, len(chosen) - 1)
        mine_edits = {k: _edit(sections[k], rng, "the Lead") for k in chosen[:split]}
        theirs_edits = {k: _edit(sections[k], rng, "an agent") for k in chosen[split:]}
        mine = head + "".join(mine_edits.get(k, s) for k, s in enumerate(sections))
        theirs = head + "".join(theirs_edits.get(k, s) for k, s in enumerate(sections))
        expected = head + "".join(mine_edits.get(k, theirs_edits.get(k, s)) for k, s in enumerate(sections))
        merged, conflicts = merge_drafts(base, mine, theirs)
        assert conflicts == [] and merged == expected


@pytest.mark.parametrize("path", GCS, ids=lambda p: p.parent.name)
def test_a_section_both_sides_changed_is_a_conflict_with_both_texts(path: Path) -> None:
    base = path.read_text(encoding="utf-8")
    head, sections = _sections(base)
    rng = random.Random(f"both-{path.parent.name}")
    decided = 0
    for _ in range(40):
        k = rng.randrange(len(sections))
        ours, theirs_text = _edit(sections[k], rng, "the Lead"), _edit(sections[k], rng, "an agent")
        mine = head + "".join(ours if n == k else s for n, s in enumerate(sections))
        theirs = head + "".join(theirs_text if n == k else s for n, s in enumerate(sections))
        same = head + "".join(ours if n == k else s for n, s in enumerate(sections))
        assert merge_drafts(base, mine, same) == (mine, [])  # the same change on both sides
        merged, conflicts = merge_drafts(base, mine, theirs)
        if sections[k] in (ours, theirs_text) or ours == theirs_text:
            continue  # a cut after the last line changes nothing: not both sides changed it
        assert len(conflicts) == 1 and (conflicts[0].mine, conflicts[0].theirs) == (ours, theirs_text)
        assert merged == mine  # unchosen, the draft's side stands (and the conflict is returned)
        chosen, left = merge_drafts(base, mine, theirs, {conflicts[0].key: "theirs"})
        assert left == [] and chosen == theirs
        decided += 1
    assert decided >= 20
