"""A GC read again after an edit that stays inside one section's own text.

An agent edits the GC a line at a time: a value changed, an item added under a heading. The
bytes before and after the edit are those of the last parse, so the sections before it are
the very objects of that parse, the edited section is read and counted again, and the rest
are the same sections moved by the lines and characters the edit added (copied when first
asked for: ``models.session.gc_tail``). Anything the shortcut
cannot be sure of (a heading touched, a fence or comment that could run past the section, the
front matter, a problem in the last scan) gives None, and the caller reads the whole file.
"""

from __future__ import annotations

import bisect
import dataclasses
import weakref

from models.session.gc import FollowUp, GlobalContext, Section
from models.session.gc_tail import FlatList, TopList, moved_tree
from models.text import mdblocks
from models.text.common import common_prefix, same_after
from models.text.problems import Problem
from models.text.textfile import split_lines
from models.text.tokens import Tokenizer


@dataclasses.dataclass(frozen=True)
class _Edit:
    """Where the edit lies, and how far it moves what follows it."""

    section: Section  # the section of the last parse whose own text changed
    top: int  # the index of its top-level section
    stop: int  # where its own text ended in the old text: offsets from here on move
    stop_line: int  # the same as a line index
    shift: int  # characters added (negative when removed)
    moved: int  # lines added


def reparse_one_section(previous: GlobalContext, text: str, tokenizer: Tokenizer, file: str) -> GlobalContext | None:
    """``text`` parsed from ``previous`` by re-reading one section, or None (read it all)."""
    if not previous.scan_clean or previous.tokenizer != tokenizer.name:
        return None
    tops = TopList.of(previous)
    edit = _locate(previous, tops, text, file)
    if edit is None:
        return None
    was = edit.section
    own = text[was.start : edit.stop + edit.shift]
    own_tokens = tokenizer.count(own)
    grew = own_tokens - was.own_tokens
    # The edited section's tree is copied now (some of it lies before the edit, some after);
    # the trees below it move as a whole and are copied when first asked for (gc_tail).
    tree = tops.tree(edit.top)
    copied = moved_tree(tree, edit.shift, edit.moved, edit.stop, edit.stop_line, was)
    edited = copied[tree.index(was)]
    edited.own_tokens, edited._own, edited._items = own_tokens, own, None
    node: Section | None = edited
    while node is not None:
        node.tokens += grew
        node = node.parent
    new_tops = tops.moved(edit.top, copied, edit.shift, edit.moved)
    problems = [_moved_problem(p, edit) for p in previous.problems]
    gc = GlobalContext(
        text,
        previous.front,
        previous.version,
        previous.title,
        new_tops,
        None,
        previous.tokens + grew,
        previous.tokenizer,
        problems,
        True,
        FlatList(new_tops),
        _places=new_tops.places,
    )
    gc.follow_up = FollowUp(weakref.ref(previous), [(was.ref, it.key) for it in was.items], edited, edit.top)
    return gc


def _locate(previous: GlobalContext, tops: TopList, text: str, file: str) -> _Edit | None:
    """The edit, when it lies in one section's own text below its heading line and leaves
    that text a single section on its own."""
    old = previous.text
    if not tops:
        return None
    same_start = common_prefix(old, text)
    j = tops.top_at(same_start)
    if j < 0:
        return None  # the front matter, the title or what stands before the first heading
    tree = tops.tree(j)
    k = bisect.bisect_right(tree, same_start, key=_start) - 1
    if tree[k].start == same_start:  # put in just before a heading: the end of the section
        if k > 0 and tree[k - 1].own_end == same_start:  # above it (an item appended)
            k -= 1
        elif k == 0 and j > 0 and tops.tree(j - 1)[-1].own_end == same_start:
            j, tree = j - 1, tops.tree(j - 1)
            k = len(tree) - 1
    was = tree[k]
    heading_end = old.find("\n", was.start) + 1
    if heading_end == 0 or same_start < heading_end:
        return None  # the heading line itself
    stop = was.own_end
    shift = len(text) - len(old)
    if stop + shift < same_start or not same_after(old, stop, text, stop + shift):
        return None  # the edit runs into the next heading
    last = j == len(tops) - 1 and k == len(tree) - 1
    if not last and text[stop + shift - 1] != "\n":
        return None  # the next heading would no longer start a line
    lines = split_lines(text[was.start : stop + shift])
    scan = mdblocks.scan(lines, file)
    if scan.problems or len(scan.headings) != 1 or scan.in_code[-1]:
        return None
    moved = len(lines) - (was.own_end_line - was.line)
    return _Edit(was, j, stop, was.own_end_line, shift, moved)


def _start(section: Section) -> int:
    return section.start


def _moved_problem(problem: Problem, edit: _Edit) -> Problem:
    """A problem found at a line below the edit, where that line is now."""
    if problem.line is None or problem.line - 1 < edit.stop_line:
        return problem
    return dataclasses.replace(problem, line=problem.line + edit.moved)
