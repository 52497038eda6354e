"""Issue 18: ``split_lines`` takes ``str.splitlines`` where that gives the same lines. Lines end
at ``\\n`` only (a lone CR, a form feed or a Unicode separator stays inside its line, or every
offset after it would shift); the reference below cuts after each ``\\n`` one character at a
time, on every real file and on random text made of every line end ``str.splitlines`` knows."""

from __future__ import annotations

import random

from conftest import ROOT, SHARED
from models.text.textfile import split_lines

BREAKS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
WORDS = ["a", "é", "# h", " ", "-", "漢"]


def _reference(text: str) -> list[str]:
    lines: list[str] = []
    current: list[str] = []
    for char in text:
        current.append(char)
        if char == "\n":
            lines.append("".join(current))
            current = []
    if current:
        lines.append("".join(current))
    return lines


def test_every_real_text_file_splits_at_its_newlines() -> None:
    files = sorted(
        p
        for p in [*SHARED.rglob("*"), *(ROOT / "resources").rglob("*")]
        if p.suffix in (".md", ".yaml", ".json", ".jsonl")
    )
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert split_lines(text) == _reference(text), path


def test_random_text_with_every_kind_of_line_end_splits_at_newlines_only() -> None:
    rng = random.Random(18)
    kinds = {"lf only": 0, "crlf": 0, "other breaks": 0}
    for n in range(20_000):
        # A third of the texts hold LF and CRLF only (the quick path), the rest any line end.
        breaks = BREAKS[:2] if n % 3 == 0 else BREAKS
        text = "".join(rng.choice(WORDS + breaks) for _ in range(rng.randint(0, 25)))
        assert split_lines(text) == _reference(text), repr(text)
        if text.count("\r") != text.count("\r\n") or any(b in text for b in BREAKS[3:]):
            kinds["other breaks"] += 1
        elif "\r\n" in text:
            kinds["crlf"] += 1
        else:
            kinds["lf only"] += 1
    assert min(kinds.values()) > 2_000, kinds
