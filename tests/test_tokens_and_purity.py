"""Token counting is exact and offline; models/ never imports Qt; Markdown preview is safe."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import COW, ROOT

from models.markdown_html import render_markdown
from models.tokens import EstimateTokenizer, chunks, get_tokenizer


@pytest.mark.parametrize(
    ("encoding", "ids"),
    [("cl100k_base", [15339, 1917]), ("o200k_base", [24912, 2375])],
)
def test_token_ids_match_tiktokens_published_ids(encoding: str, ids: list[int]) -> None:
    import bpe_openai

    assert bpe_openai.get_encoding(encoding).encode("hello world") == ids
    assert get_tokenizer(encoding).count("hello world") == len(ids)


def test_estimate_is_four_characters_a_token() -> None:
    est = EstimateTokenizer()
    assert (est.count(""), est.count("abcd"), est.count("abcde")) == (0, 1, 2)
    assert get_tokenizer("estimate").name == "estimate"
    with pytest.raises(ValueError, match="unknown encoding"):
        get_tokenizer("p50k_base")


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_chunked_counts_equal_whole_counts(encoding: str) -> None:
    import bpe_openai

    encode = bpe_openai.get_encoding(encoding).encode_ordinary
    text = (COW / "global-context.md").read_text(encoding="utf-8") * 3 + "한국어 문장입니다.\n" * 50
    parts = chunks(text, size=700)
    assert len(parts) > 10 and "".join(parts) == text
    assert sum(len(encode(p)) for p in parts) == len(encode(text))


def test_ten_megabyte_text_is_counted() -> None:
    line = "- D-9: a decision with some words, numbers 12345 and 한국어 text\n"
    thousands = 10_000_000 // len(line) // 1000
    text = line * 1000 * thousands
    tok = get_tokenizer("o200k_base")
    assert len(text.encode()) > 10_000_000
    assert tok.count(text) == tok.count(line * 1000) * thousands


def test_counting_never_touches_the_network() -> None:
    """A fresh interpreter with every socket call refused still counts both encodings."""
    script = textwrap.dedent(
        """
        import socket
        def refuse(*a, **k):
            raise OSError("network is blocked in this test")
        socket.socket.connect = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        from models.tokens import get_tokenizer
        for name in ("o200k_base", "cl100k_base"):
            print(get_tokenizer(name).count("hello world"))
        """
    )
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "2"]


QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "PySide2", "shiboken6", "qtpy")


@pytest.mark.parametrize("path", sorted((ROOT / "models").glob("*.py")), ids=lambda p: p.name)
def test_models_never_import_qt(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            assert name.split(".")[0] not in QT_MODULES, f"{path.name} imports {name}"
            assert name.split(".")[0] not in ("ui", "app"), f"{path.name} imports {name}"


def test_importing_every_model_and_the_cli_loads_no_qt() -> None:
    modules = [f"models.{p.stem}" for p in sorted((ROOT / "models").glob("*.py")) if p.stem != "__init__"]
    script = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in [*modules, "app.cli"])
        + f"print([m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}])"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_markdown_preview_escapes_raw_html() -> None:
    html = render_markdown(
        "## T\n\n<script>alert(1)</script>\n\nhi <img src=http://evil/x.png> <b>bold</b>\n\n"
        "| a | b |\n|---|---|\n| <i>x</i> | 2 |\n"
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html and "&lt;img" in html
    assert "<b>" not in html and "<i>" not in html
    assert "<table>" in html and "<h2>T</h2>" in html


def test_markdown_preview_lets_lists_interrupt_paragraphs() -> None:
    html = render_markdown("**In Scope:**\n- one\n- two\n\n```\nnot\n- a list\n```\n")
    assert html.count("<li>") == 2
    assert "- a list" in html
