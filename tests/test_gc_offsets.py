"""Issue 18: a GC's cold parse reads its headings from the text alone (``mdblocks.scan_text``)
and places each section by the offsets of the heading lines, with no list of lines. Every
section's bounds must still be the starts of its lines as the text splits into lines, and
the line count the number of lines: checked on every real Markdown file read as a GC and on
random GCs (front matter, fences, comments, CRLF, no last line end)."""

from __future__ import annotations

import random

from conftest import ROOT, SHARED
from models.session.gc_parse import _parse
from models.text.textfile import line_starts, split_lines
from models.text.tokens import EstimateTokenizer

TOK = EstimateTokenizer()
PIECES = [
    "---\nversion: GC-v3\n---\n", "# Title\n", "## Scope\n", "### Sub\n", "#### Deeper\n", "## Scope\n",
    "- key: value\n", "  more\n", "\n", "```\n", "## in code\n", "<!-- x\n", "-->\n", "<!-- one -->\n",
    "## CRLF\r\n", "- k: v\r\n", "no end", "**Bold:** value\n", "| a | b |\n|---|---|\n| k | v |\n",
]  # fmt: skip


def _check(text: str) -> int:
    gc = _parse(text, TOK, "global-context.md")[0]
    lines = split_lines(text)
    starts = line_starts(lines)
    assert gc.line_count == len(lines)
    assert gc.line_starts == starts  # worked out when asked for
    checked = 0
    for section in gc.walk():
        assert section.start == starts[section.line], section.ref
        assert section.end == starts[section.end_line], section.ref
        assert section.own_end == starts[section.own_end_line], section.ref
        assert text[section.start :].lstrip(" ").startswith("#")
        checked += 1
    return checked


def test_every_real_markdown_file_places_its_sections_at_its_line_starts() -> None:
    files = sorted([*SHARED.rglob("*.md"), *(ROOT / "resources").rglob("*.md")])
    assert len(files) > 100
    assert sum(_check(path.read_text(encoding="utf-8", errors="replace")) for path in files) > 1000


def test_random_gcs_place_their_sections_at_their_line_starts() -> None:
    rng = random.Random(18)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 25))) for _ in range(5_000)]
    assert sum(_check(text) for text in texts) > 10_000
