"""Reading a GC from its text: the section tree, each section's tokens, and the last few
parses kept by text.

A parse is the costly step of every view of a GC (about 0.1 s for 20,000 lines): the composer
asks for the same texts again, and an agent's edit inside one section is read from the last
parse (``models.session.gc_follow``).
"""

from __future__ import annotations

import threading

from models.session.gc import GlobalContext, Section
from models.session.gc_follow import reparse_one_section
from models.session.gc_regions import reparse_regions
from models.session.refs import norm, plain_safe, quote, segments
from models.session.versions import parse_version
from models.text import mdblocks
from models.text.frontmatter import split_front_matter
from models.text.problems import Problem, shown
from models.text.tokens import Tokenizer


def parse_gc(
    text: str,
    tokenizer: Tokenizer,
    file: str = "global-context.md",
    previous: GlobalContext | None = None,
) -> GlobalContext:
    """Parse a GC; problems are collected, never raised.

    The last few results are kept by text: planning an update parses the working GC, the
    session's GC and each base snapshot from several places, and a 20,000-line GC costs
    about 0.1 s a parse. A parsed GC is never changed after this returns, so sharing is safe.
    ``previous`` is the version this text replaces (the last parse of the same file): an edit
    inside one section's own text re-reads and re-counts that section only
    (``models.session.gc_follow``), and ``previous`` leaves the cache. The kept parses of the
    same file are tried after it (they stay in the cache): the composer's diff asks for the
    base text and then the new one, which an agent's edit made from the last new one. Edits in
    several places (a new version: its version bump and a few sections) are read by parsing
    only the stretches between the top-level sections kept (``models.session.gc_regions``).
    """
    with _PARSED_LOCK:  # the context pane composes in a worker thread
        found = _cached(text, tokenizer.name, file)
        if found is not None:
            return found
        kept = [e[3] for e in reversed(_PARSED) if e[1] == tokenizer.name and e[2] == file]
    found = None
    tried: list[GlobalContext] = []
    for source in [*([previous] if previous is not None else []), *kept]:
        if any(source is t for t in tried):
            continue
        tried.append(source)
        found = reparse_one_section(source, text, tokenizer, file)
        if found is not None:
            break
    for source in tried if found is None else ():
        found = reparse_regions(source, text, tokenizer, lambda part: _parse(part, tokenizer, file))
        if found is not None:
            break
    if found is None:
        found = _parse_gc(text, tokenizer, file)
    with _PARSED_LOCK:
        if previous is not None:  # replaced by this one: not asked for again, and a 10 MB
            _PARSED[:] = [e for e in _PARSED if e[3] is not previous]  # GC is 20 MB of text
        _PARSED.append((text, tokenizer.name, file, found))
        del _PARSED[:-_PARSED_KEEP]
    return found


def _cached(text: str, tokenizer: str, file: str) -> GlobalContext | None:
    """The kept parse of ``text``, made the most recent. Looked for by comparing, not by
    hashing: a new text (every follow-up's) would be hashed whole for a key, 4 ms for a 10 MB
    GC, where a comparison stops at its length or its first difference."""
    for n, entry in enumerate(_PARSED):
        if entry[1] == tokenizer and entry[2] == file and (entry[0] is text or entry[0] == text):
            _PARSED.append(_PARSED.pop(n))
            return entry[3]
    return None


def kept_parse(text: str, file: str = "global-context.md") -> GlobalContext | None:
    """A kept parse of this very string, whatever its tokens were counted with: its sections
    and items are the same. Found by identity alone, which costs nothing: the composer plans
    the session's own GC text, which the session has just parsed, and reading its structure
    again from the last one took 2–3 ms of a re-plan on a 10 MB GC (comparing the two texts)."""
    with _PARSED_LOCK:
        for entry in reversed(_PARSED):
            if entry[0] is text and entry[2] == file:
                return entry[3]
    return None


_PARSED_KEEP = 3
_PARSED_LOCK = threading.Lock()
_PARSED: list[tuple[str, str, str, GlobalContext]] = []  # (text, tokenizer, file, parse), oldest first


def front_version(text: str, file: str = "global-context.md") -> int | None:
    """The version ``parse_gc(text).version`` gives, read from the front matter alone: the
    composer asks for the working GC's on every change, and parsing its sections for that
    took most of a refresh (half a second for a 200,000-line GC)."""
    front, _ = split_front_matter(text, file)
    return parse_version(front.data.get("version"))


def _parse_gc(text: str, tokenizer: Tokenizer, file: str) -> GlobalContext:
    return _parse(text, tokenizer, file)[0]


def _parse(text: str, tokenizer: Tokenizer, file: str) -> tuple[GlobalContext, bool]:
    """The parse, and whether its last line lies inside a fence or a comment (a stretch parsed
    on its own must not: ``models.session.gc_regions``).

    The headings are read from the text alone (``mdblocks.scan_text``): splitting the text into
    lines and listing where each starts took 4 ms of a 20,000-line GC's first parse, 40 ms of
    the ten-times one's, for its headings. The line starts are worked out when first asked
    for (``GlobalContext.line_starts``), as a follow-up's are."""
    front, problems = split_front_matter(text, file)
    body = front.body_start
    if body and text[body - 1] != "\n":  # the body's first line: the one starting at or after it
        body = text.find("\n", body) + 1 or len(text)
    scan = mdblocks.scan_text(text, file, 1, start=body)
    problems += scan.problems

    version = parse_version(front.data.get("version"))
    if front.data.get("version") is not None and version is None:
        problems.append(Problem("warning", file, f"version {shown(front.data['version'])} is not GC-vN"))

    headings, offsets = scan.headings, scan.offsets
    title: str | None = None
    if headings and headings[0].level == 1:
        title = headings[0].text
        headings, offsets = headings[1:], offsets[1:]

    sections: list[Section] = []
    stack: list[Section] = []
    for h, at in zip(headings, offsets, strict=True):
        while stack and stack[-1].level >= h.level:
            _close(stack.pop(), h.line, at)
        section = Section(h.text, h.level, h.line, at)
        if stack:
            section.parent = stack[-1]
            stack[-1].children.append(section)
        else:
            sections.append(section)
        stack.append(section)
    while stack:
        _close(stack.pop(), scan.line_count, len(text))

    first_start = sections[0].start if sections else len(text)
    for top in sections:
        _finish(top)
    flat = [s for top in sections for s in top.walk()]
    _count_tokens(flat, text, tokenizer)
    total = tokenizer.count(text[:first_start]) + sum(s.tokens for s in sections)
    _name_sections(sections, flat, problems, file)
    clean = not scan.problems
    gc = GlobalContext(text, front, version, title, sections, None, total, tokenizer.name, problems, clean)
    return gc, scan.ends_in_code


def _close(section: Section, end_line: int, end: int) -> None:
    """End ``section`` at the line ``end_line``, which starts at ``end`` in the text."""
    section.end_line = end_line
    section.end = end


def _finish(section: Section) -> None:
    """Fill own ranges of a section and its subsections (the own texts are cut while counting
    their tokens; items follow on first use): its own text ends where its first subsection
    starts."""
    first = section.children[0] if section.children else None
    section.own_end_line = first.line if first is not None else section.end_line
    section.own_end = first.start if first is not None else section.end
    for child in section.children:
        _finish(child)


def _count_tokens(flat: list[Section], text: str, tokenizer: Tokenizer) -> None:
    """Own tokens of every section (``flat``: in file order) in one batch, then subtree totals
    bottom-up."""
    owns = [text[s.start : s.own_end] for s in flat]
    for section, own in zip(flat, owns, strict=True):
        section._own = own  # one string for the count cache's key and the section's own text
    counts = tokenizer.count_many(owns)
    for section, n in zip(flat, counts, strict=True):
        section.own_tokens = n
    for section in reversed(flat):  # children come after their parent in walk order
        section.tokens = section.own_tokens + sum(c.tokens for c in section.children)


def _name_sections(sections: list[Section], flat: list[Section], problems: list[Problem], file: str) -> None:
    """Each section's segment among its siblings, and a warning for each title that a sibling
    before it already has, in file order. One pass over the levels: a recursion into all 2,000
    sections of a GC, most of them leaves, took most of the time this takes."""
    twins: list[Section] = []
    for group in (sections, *(s.children for s in flat if s.children)):
        if len(group) == 1:  # a third of the groups of a large GC: no sibling to tell apart
            only = group[0]
            only.segment = only.title if plain_safe(only.title) else quote(only.title)
            continue
        titles = [s.title for s in group]
        keys = [norm(t) for t in titles]
        for section, written in zip(group, segments(titles, keys), strict=True):
            section.segment = written
        if len(set(keys)) < len(keys):
            seen: set[str] = set()
            for section, key in zip(group, keys, strict=True):
                if key in seen:
                    twins.append(section)
                seen.add(key)
    problems += [
        Problem(
            "warning",
            file,
            f"two sections are both called {s.title!r}; a reference written by hand reaches the first only",
            s.line + 1,
        )
        for s in sorted(twins, key=lambda s: s.line)
    ]
