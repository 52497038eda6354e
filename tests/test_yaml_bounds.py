"""Issue 15.6: YAML that expands without bound (an alias bomb, deep nesting) is refused with one
line, before anything walks or prints it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from app.cli.main import main
from conftest import SHARED
from models.text import yaml_load
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


def _real_yaml_documents() -> list[tuple[str, str]]:
    """Every YAML file and every front matter in the shared folders, as agents wrote them."""
    docs = []
    for path in sorted(SHARED.rglob("*")):
        if not path.is_file() or path.suffix not in (".yaml", ".yml", ".md"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".md":
            parts = text.split("\n---", 1) if text.startswith("---\n") else []
            if len(parts) != 2:
                continue
            text = parts[0][4:]
        docs.append((str(path.relative_to(SHARED)), text))
    return docs


def test_the_loader_reads_every_real_document_as_pure_python_pyyaml_does() -> None:
    """The app loads with libyaml's parser for speed; PyYAML's own Python parser is the
    reference: the same value for every document, and an error where it has one."""
    docs = _real_yaml_documents()
    assert len(docs) > 100 and yaml_load._LOADER is yaml.CSafeLoader
    errors = 0
    for name, text in docs:
        try:
            expected = yaml.load(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            errors += 1
            with pytest.raises(yaml.YAMLError):
                yaml_load.safe_load(text)
            continue
        assert yaml_load.safe_load(text) == expected, name
    assert errors >= 5  # the real folders hold broken YAML too (two documents, a stray scalar)
