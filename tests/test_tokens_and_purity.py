"""Token counting is exact and offline; models/ never imports Qt; Markdown preview is safe."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import DEMO, ROOT, SHARED
from models.text.markdown_html import render_markdown
from models.text.tokens import CACHE_MAX_CHARS, EstimateTokenizer, ExactTokenizer, get_tokenizer

ALL_TEXT_FILES = sorted(
    p for p in [*SHARED.rglob("*"), *DEMO.rglob("*")] if p.is_file() and p.suffix in (".md", ".txt", ".yaml", ".json")
)


@pytest.mark.parametrize(
    ("encoding", "ids"),
    [("cl100k_base", [15339, 1917]), ("o200k_base", [24912, 2375])],
)
def test_counts_match_tiktokens_published_ids(encoding: str, ids: list[int]) -> None:
    import bpe_openai

    assert bpe_openai.get_encoding(encoding).encode("hello world") == ids
    assert get_tokenizer(encoding).count("hello world") == len(ids)


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_counts_agree_with_an_independent_tokenizer_on_every_real_file(encoding: str) -> None:
    """toktok (ours at run time) and bpe-openai (GitHub's bpe crate) must agree exactly."""
    import bpe_openai

    reference = bpe_openai.get_encoding(encoding).encode_ordinary
    ours = ExactTokenizer(encoding, cache_size=0)
    texts = [p.read_text(encoding="utf-8") for p in ALL_TEXT_FILES]
    assert len(texts) > 50
    assert [ours.count(t) for t in texts] == [len(reference(t)) for t in texts]
    assert ours.count("<|endoftext|> hi") == len(reference("<|endoftext|> hi"))  # special tokens as text


def test_estimate_is_four_characters_a_token() -> None:
    est = EstimateTokenizer()
    assert (est.count(""), est.count("abcd"), est.count("abcde")) == (0, 1, 2)
    assert get_tokenizer("estimate").name == "estimate"
    with pytest.raises(ValueError, match="unknown encoding"):
        get_tokenizer("p50k_base")


def test_ten_megabyte_text_is_counted() -> None:
    line = "- D-9: a decision with some words, numbers 12345 and 한국어 text\n"
    text = line * 200_000
    tok = get_tokenizer("o200k_base")
    assert len(text.encode()) > 10_000_000
    assert tok.count(text) == tok.count(line * 1000) * 200


def test_long_texts_are_counted_but_not_remembered() -> None:
    """A whole GC is new after every edit; remembering each one grew the app per write."""
    tokenizer = ExactTokenizer("o200k_base")
    short, long = "§Decisions.D-5 changed", "word " * (CACHE_MAX_CHARS // 5 + 10)
    counts = tokenizer.count_many([short, long, short, long])
    assert counts[0] == counts[2] == tokenizer.count(short) > 0
    assert counts[1] == counts[3] == tokenizer.count(long) > 1000
    assert short in tokenizer._cache and long not in tokenizer._cache


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
        from models.text.tokens import get_tokenizer
        for name in ("o200k_base", "cl100k_base"):
            print(get_tokenizer(name).count("hello world"))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "2"]


QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "PySide2", "shiboken6", "qtpy")


@pytest.mark.parametrize("path", sorted((ROOT / "models").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
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
    modules = [
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in sorted((ROOT / "models").rglob("*.py"))
        if p.stem != "__init__"
    ]
    assert len(modules) > 25  # every model module, in whichever package it lives
    script = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in [*modules, "app.cli.main"])
        + f"print([m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}])"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
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
