"""Issue 15.6: YAML that expands without bound (an alias bomb, deep nesting) is refused with one
line, before anything walks or prints it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.cli.main import main
from models.text.frontmatter import split_front_matter

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)
)


def test_an_alias_bomb_in_front_matter_is_refused_quickly() -> None:
    start = time.monotonic()
    front, problems = split_front_matter(f"---\nversion: GC-v2\n{BOMB}---\n# GC\n", "global-context.md")
    assert time.monotonic() - start < 1.0
    assert front.data == {}
    assert [p.message for p in problems] == [
        "front matter is not valid YAML: YAML expands to more than 100,000 values (aliases repeated)"
    ]


def test_deep_nesting_is_refused() -> None:
    _, problems = split_front_matter("---\nv: " + "[" * 3000 + "]" * 3000 + "\n---\n", "plan.md")
    assert len(problems) == 1 and "nested" in problems[0].message


def test_inspect_of_a_session_whose_gc_version_is_a_bomb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "---\n" + BOMB + "version: *i\n---\n# GC\n\n## Scope\n- Goal: x\n"
    (tmp_path / "global-context.md").write_text(text, encoding="utf-8")
    start = time.monotonic()
    assert main(["inspect", str(tmp_path), "--json", "--tokenizer", "estimate"]) == 0
    assert time.monotonic() - start < 5.0
    out = capsys.readouterr().out
    assert "YAML expands to more than 100,000 values" in out
    assert len(out) < 20_000


def test_a_wide_version_value_is_quoted_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "---\nversion: [" + ", ".join(["GC-v1"] * 5000) + "]\n---\n# GC\n"
    (tmp_path / "global-context.md").write_text(text, encoding="utf-8")
    assert main(["inspect", str(tmp_path), "--json", "--tokenizer", "estimate"]) == 0
    out = capsys.readouterr().out
    assert "is not GC-vN" in out and len(out) < 5_000
