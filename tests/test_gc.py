"""The GC model on real files and on malformed input."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from conftest import CH006, COW, DEMO, SHARED
from models.session.gc_parse import parse_gc
from models.session.refs import norm, plain_safe, quote, segments
from models.text.textfile import decode
from models.text.tokens import EstimateTokenizer, get_tokenizer

TOK = get_tokenizer("o200k_base")
REAL_GCS = [COW / "global-context.md", CH006 / "global-context.md", DEMO / "global-context.md"]
MARKDOWN_FILES = sorted(
    [
        *SHARED.joinpath("sessions").rglob("*.md"),
        *DEMO.rglob("*.md"),
        *SHARED.joinpath("seeds").glob("*.txt"),
    ]
)


def commonmark_headings(text: str) -> list[tuple[int, str]]:
    """Top-level ATX headings as markdown-it-py (CommonMark) sees them."""
    tokens = MarkdownIt("commonmark").parse(text)
    out = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.level == 0 and tok.markup.startswith("#"):
            out.append((len(tok.markup), tokens[i + 1].content))
    return out


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_headings_agree_with_commonmark(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    gc = parse_gc(text, EstimateTokenizer())
    body = text[gc.front.body_start :]
    ours = ([(1, gc.title)] if gc.title is not None else []) + [(s.level, s.title) for s in gc.walk()]
    assert ours == commonmark_headings(body)
    assert len(ours) > 0


@pytest.mark.parametrize("path", REAL_GCS, ids=lambda p: p.parent.name)
def test_real_gc_parses_cleanly_and_counts_exactly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    gc = parse_gc(text, TOK)
    assert gc.problems == []
    assert gc.version is not None and gc.title
    # Section counts are computed per part; they must add up to the whole file's count.
    assert gc.tokens == TOK.count(text)
    for section in gc.walk():
        assert section.tokens == section.own_tokens + sum(c.tokens for c in section.children)


@pytest.mark.parametrize("path", REAL_GCS, ids=lambda p: p.parent.name)
def test_ranges_tile_the_file_exactly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    gc = parse_gc(text, TOK)
    pieces = [text[: gc.sections[0].start]]
    for section in gc.walk():
        pieces.append(text[section.start : section.own_end])
    assert "".join(pieces) == text


def test_replacing_one_section_leaves_every_other_byte() -> None:
    text = (COW / "global-context.md").read_text(encoding="utf-8")
    gc = parse_gc(text, TOK)
    target = gc.resolve("§Constraints")
    assert target is not None and target.item is None
    s = target.section
    edited = text[: s.start] + "## Constraints\n- Only one: be exact\n\n" + text[s.end :]
    again = parse_gc(edited, TOK)
    assert [x.title for x in again.walk()] == [x.title for x in gc.walk()]
    assert edited[: s.start] == text[: s.start] and edited.endswith(text[s.end :])
    moved = again.resolve("§Constraints")
    assert moved is not None and [i.key for i in moved.section.items] == ["Only one"]


def test_versions_titles_and_items_of_the_real_cow_gc() -> None:
    gc = parse_gc((COW / "global-context.md").read_text(encoding="utf-8"), TOK)
    assert gc.version == 6
    assert gc.title == "Global Context — COW Pipeline Redesign"
    scope = gc.resolve("§Scope")
    assert scope is not None
    assert [(i.kind, i.key) for i in scope.section.items] == [
        ("bold", "Goal"),
        ("bold", "In Scope"),
        ("bold", "Out of Scope"),
        ("bold", "Success Criteria"),
    ]
    in_scope = scope.section.find_item("in_scope")
    assert in_scope is not None and in_scope.end_line - in_scope.line == 9  # header + 8 bullets
    decisions = gc.resolve("§Architecture Decisions")
    assert decisions is not None
    assert [i.key for i in decisions.section.items] == [f"D-{n}" for n in range(1, 10)]
    d5 = decisions.section.find_item("D-5")
    assert d5 is not None and d5.kind == "table" and d5.value.startswith("XeLaTeX + kotex primary")


@pytest.mark.parametrize(
    ("ref", "section", "item"),
    [
        ("§Decisions Log.D-5", "§Decisions Log", "D-5"),
        ("§Scope.in_scope", "§Scope", "In Scope"),
        ("Scope.Goal", "§Scope", "Goal"),
        # A section's own reference quotes a title holding ": " (README: delta rules); the
        # hand-written plain forms still resolve.
        (
            "§Phase 2 Research Findings Summary.D1: Team Memory (TEAM-MEMORY.md)",
            '§Phase 2 Research Findings Summary."D1: Team Memory (TEAM-MEMORY.md)"',
            None,
        ),
        (
            "§Phase 2 Research Findings Summary.D1: Team Memory (TEAM-MEMORY.md).위치",
            '§Phase 2 Research Findings Summary."D1: Team Memory (TEAM-MEMORY.md)"',
            "위치",
        ),
        (
            '§Phase 2 Research Findings Summary."D1: Team Memory (TEAM-MEMORY.md)".위치',
            '§Phase 2 Research Findings Summary."D1: Team Memory (TEAM-MEMORY.md)"',
            "위치",
        ),
        (
            "§D2: Context Delta Protocol.Token 절감",
            '§Phase 2 Research Findings Summary."D2: Context Delta Protocol"',
            "Token 절감",
        ),
    ],
)
def test_resolve_references_in_the_korean_gc(ref: str, section: str, item: str | None) -> None:
    gc = parse_gc((CH006 / "global-context.md").read_text(encoding="utf-8"), TOK)
    found = gc.resolve(ref)
    assert found is not None
    assert found.section.ref == section
    assert (found.item.key if found.item else None) == item


def test_dotted_headings_resolve_longest_first() -> None:
    text = "# T\n\n## v1\n- a: 1\n\n## v1.6 Notes\n- b: 2\n\n### Parser 2.0\n- c: 3\n"
    gc = parse_gc(text, TOK)
    assert gc.resolve("§v1.a").item.key == "a"  # type: ignore[union-attr]
    assert gc.resolve("§v1.6 Notes.b").item.key == "b"  # type: ignore[union-attr]
    assert gc.resolve("§v1.6 Notes.Parser 2.0.c").item.key == "c"  # type: ignore[union-attr]
    assert gc.resolve("§v1.6 Notes.nothing") is None
    assert gc.resolve("§Unknown") is None
    assert gc.resolve("§") is None


def test_fenced_headings_and_keys_are_not_structure() -> None:
    text = (
        "# T\n\n## Real\n```\n## Not a heading\n- key: not an item\n```\n"
        "~~~~\n## still code\n~~~\n~~~~~\n## Second\n    ## indented code\n"
        "``` info `with backtick\n## heading, that fence was no fence\n"
    )
    gc = parse_gc(text, TOK)
    assert [s.title for s in gc.walk()] == ["Real", "Second", "heading, that fence was no fence"]
    assert gc.resolve("§Real") is not None and gc.resolve("§Real").section.items == []  # type: ignore[union-attr]


def test_unterminated_fence_is_reported_and_swallows_headings() -> None:
    gc = parse_gc("# T\n\n## A\n```python\ncode\n## B\n", TOK)
    assert [s.title for s in gc.walk()] == ["A"]
    assert any("never closed" in p.message and p.line == 4 for p in gc.problems)


def test_item_kinds_continuations_and_duplicates() -> None:
    text = (
        "# T\n\n## S\n"
        "- plain: value\n  continued line\n\n  still the same item\n"
        "- **Bold:** bolded\n"
        "* no key here\n"
        "1. first: ordered\n"
        "**Para:** a paragraph value\nthat wraps\n\n"
        "**Block:**\n- one\n- two\n\n"
        "| Key | A | B |\n|-----|---|---|\n| K-1 | x | y |\n| **K-2** | z | \\| w |\n\n"
        "- plain: again\n"
    )
    gc = parse_gc(text, TOK)
    section = gc.sections[0]
    got = [(i.kind, i.key, i.value, i.end_line - i.line) for i in section.items]
    assert got == [
        ("bullet", "plain", "value", 4),
        ("bullet", "Bold", "bolded", 1),
        ("bullet", "first", "ordered", 1),
        ("bold", "Para", "a paragraph value", 2),
        ("bold", "Block", "", 3),
        ("table", "K-1", "x | y", 1),
        ("table", "K-2", "z | \\| w", 1),
        ("bullet", "plain", "again", 1),
    ]
    assert section.duplicate_keys == ["plain", "plain"]


def test_crlf_file_parses_like_lf_and_keeps_its_bytes() -> None:
    lf = (COW / "global-context.md").read_text(encoding="utf-8")
    crlf = lf.replace("\n", "\r\n")
    a, b = parse_gc(lf, TOK), parse_gc(crlf, TOK)
    assert [s.ref for s in a.walk()] == [s.ref for s in b.walk()]
    assert [[(i.key, i.value) for i in s.items] for s in a.walk()] == [
        [(i.key, i.value) for i in s.items] for s in b.walk()
    ]
    assert b.version == 6 and b.title == a.title
    first = b.sections[0]
    assert crlf[first.start : first.end].startswith("## Scope\r\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\nversion: [GC-v3\n---\n# T\n## A\n", "front matter is not valid YAML"),
        ("---\nversion: GC-v3\n# T\n## A\n", "never ends"),
        ("---\n- a\n- b\n---\n# T\n## A\n", "not a YAML mapping"),
    ],
)
def test_broken_front_matter_is_an_error_not_a_crash(text: str, message: str) -> None:
    gc = parse_gc(text, TOK)
    assert any(p.severity == "error" and message in p.message for p in gc.problems)
    assert gc.version is None


def test_bad_yaml_reports_the_line() -> None:
    gc = parse_gc("---\nfeature: x\nversion: [GC-v3\n---\n# T\n", TOK)
    (problem,) = [p for p in gc.problems if p.severity == "error"]
    assert problem.line is not None and problem.line >= 3


def test_unversioned_and_empty_gcs() -> None:
    assert parse_gc("# Only a title\n", TOK).version is None
    empty = parse_gc("", TOK)
    assert empty.sections == [] and empty.tokens == 0 and empty.title is None
    odd = parse_gc("---\nversion: seven\n---\n## A\n", TOK)
    assert odd.version is None and any("not GC-vN" in p.message for p in odd.problems)
    assert odd.title is None and [s.title for s in odd.walk()] == ["A"]


def test_binary_and_non_utf8_bytes_are_reported() -> None:
    text, problems = decode(b"\x00\x01binary", "global-context.md")
    assert text == "" and "binary" in problems[0].message
    text, problems = decode("## Scope\n- 한: 글\n".encode() + b"\xff\xfe bad\n", "global-context.md")
    assert "\ufffd" in text and problems[0].line == 3 and "not valid UTF-8" in problems[0].message
    text, problems = decode("\ufeff# BOM\n".encode(), "x")
    assert text == "# BOM\n" and problems == []


def test_duplicate_sibling_titles_warn() -> None:
    """Each later twin among siblings, in file order (the lines read off the text)."""
    gc = parse_gc("# T\n## A\n### N\n### N\n## A\n### M\n### m\n### Other\n", TOK)
    twins = [(p.line, p.message.split("'")[1]) for p in gc.problems if "both called" in p.message]
    assert twins == [(4, "N"), (5, "A"), (7, "m")]


def test_parses_are_shared_by_text_and_tokenizer() -> None:
    """Planning asks for the same GC from several places; it is parsed once per tokenizer."""
    text = (DEMO / "global-context.md").read_text(encoding="utf-8")
    first = parse_gc(text, EstimateTokenizer())
    assert parse_gc("".join(list(text)), EstimateTokenizer()) is first  # equal text, another object
    exact = parse_gc(text, get_tokenizer("o200k_base"))
    assert exact is not first and exact.tokenizer == "o200k_base" and exact.tokens != first.tokens
    assert parse_gc(text + "\n", EstimateTokenizer()) is not first


VERSIONS = {
    "---\nversion: GC-v12\n---\n# T\n## A\n": 12,
    "---\nversion: 7\n---\n## A\n": 7,
    "---\nversion: [1, 2]\n---\n## A\n": None,
    "---\nfeature: x\n---\n## A\n": None,
    "## A\nversion: GC-v3\n": None,
    "---\nversion: GC-v4\nnot: [closed\n---\n## A\n": None,
}


@pytest.mark.parametrize("text", [*VERSIONS, *(p.read_text(encoding="utf-8") for p in REAL_GCS)])
def test_the_front_matter_version_is_the_parsed_version(text: str) -> None:
    """``front_version`` reads what a parse's ``version`` says, without the sections: the
    numbers a person reads in the front matter above, and every real GC's own."""
    from models.session.gc_parse import front_version

    assert front_version(text) == parse_gc(text, TOK).version
    if text in VERSIONS:
        assert front_version(text) == VERSIONS[text]


@pytest.mark.parametrize("path", REAL_GCS, ids=lambda p: p.parent.name)
def test_a_heading_ends_where_its_next_line_starts(path: Path) -> None:
    """``heading_end`` finds the end of a section's heading line from the heading alone; it is
    where the line after the heading starts, also for a heading on the last line of a file
    without a final line break."""
    text = path.read_text(encoding="utf-8")
    for version in (text, text.rstrip("\n") + "\n## Last heading"):
        gc = parse_gc(version, TOK)
        lines = version.splitlines(keepends=True)
        starts = [sum(len(line) for line in lines[:n]) for n in range(len(lines) + 1)]
        assert [gc.heading_end(s) for s in gc.flat()] == [starts[s.line + 1] for s in gc.flat()]
    assert gc.heading_end(gc.flat()[-1]) == len(version)


def _titles(rng: random.Random) -> list[str]:
    """Titles as agents write them, and the characters that make one hard to compare or to
    write plain: emphasis, code, underscores, runs of spaces, tabs, Unicode spaces, a dot."""
    pieces = ["Scope", "in", "IN", "Ä", "결정", " ", "  ", "_", "*", "`", "\t", "\u00a0", "\u2003", ".", "#", "(first)"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 8))]


def test_norm_and_segments_follow_their_rules_on_random_titles() -> None:
    """``norm`` has a quick path for plain titles and ``segments`` one for levels without two
    alike titles; both must give what the written rules give (refs' module docstring): drop
    ``*`` and backticks, join runs of spaces and underscores into one space, strip, lower; a
    title is written plain when it is unique up to ``norm`` among its siblings and safe, else
    quoted with ``#N`` for its N-th exact occurrence."""
    rng = random.Random(18)
    for _ in range(3000):
        siblings = _titles(rng)
        keys = [re.sub(r"[\s_]+", " ", t.replace("*", "").replace("`", "")).strip().lower() for t in siblings]
        assert [norm(t) for t in siblings] == keys
        expected = []
        for n, (title, key) in enumerate(zip(siblings, keys, strict=True)):
            if keys.count(key) == 1 and plain_safe(title, key):
                expected.append(title)
            else:
                expected.append(quote(title, siblings[: n + 1].count(title)))
        assert segments(siblings) == expected, siblings


def test_every_section_is_named_among_its_own_siblings() -> None:
    """A parse names each section by ``segments`` of its level's titles: on the real GCs and on
    random ones where many sections are an only child (a parse names those on a path of its
    own) with titles that must be quoted."""
    rng = random.Random(33)
    texts = [path.read_text(encoding="utf-8") for path in REAL_GCS]
    for _ in range(200):
        lines = ["# GC"]
        for _ in range(rng.randint(1, 6)):
            lines.append(f"## {rng.choice(_titles(rng))}")
            for _ in range(rng.choice([0, 1, 1, 2])):
                lines.append(f"### {rng.choice(_titles(rng))}")
                lines += [f"#### {rng.choice(_titles(rng))}"] * rng.choice([0, 1])
        texts.append("\n".join(lines) + "\n")
    only_children = 0
    for text in texts:
        gc = parse_gc(text, EstimateTokenizer())
        for group in [gc.sections, *(s.children for s in gc.flat() if s.children)]:
            expected = segments([s.title for s in group])
            assert [s.segment for s in group] == expected, [s.title for s in group]
            only_children += len(group) == 1
    assert only_children > 100
