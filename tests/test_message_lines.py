"""Issue 18: the composer's Message tab says how many lines of a full GC it leaves out, from
the lines the GC's parse knows instead of counting a 10 MB text's line ends on every re-plan.
``GlobalContext.line_count`` must be what counting gives, on every real GC, after follow-ups
and on texts with no sections or no last line end; the tab's text must be the same either way."""

from __future__ import annotations

import random

from gc_facts import cold_caches

from bench.generate import big_gc
from conftest import DEMO, REAL_SESSIONS
from gc_edits import edits, random_edit
from models.session.gc_parse import parse_gc
from models.text.tokens import get_tokenizer
from ui.composer.header import MESSAGE_SHOWN, shown_message

TOK = get_tokenizer("estimate")
GCS = sorted([*REAL_SESSIONS.glob("*/global-context.md"), DEMO / "global-context.md"])


def _counted(text: str) -> int:
    """Lines as a reader counts them: each line end, and a last line without one."""
    return text.count("\n") + (bool(text) and not text.endswith("\n"))


def test_line_count_is_counting_on_real_gcs_their_edits_and_odd_texts() -> None:
    texts = [p.read_text(encoding="utf-8") for p in GCS]
    texts += [t.rstrip("\n") for t in texts]  # no line end after the last line
    texts += ["", "---\nversion: GC-v1\n---\n", "no heading at all\nsecond line", "# Title only\n"]
    assert len(texts) > 14
    for text in texts:
        cold_caches()
        assert parse_gc(text, TOK).line_count == _counted(text), repr(text[:60])


def test_line_count_is_counting_along_chains_of_follow_ups() -> None:
    rng = random.Random(18)
    followed = 0
    for path in GCS:
        text = path.read_text(encoding="utf-8")
        cold_caches()
        gc = parse_gc(text, TOK)
        for _, edited in list(edits(text))[:10]:
            assert parse_gc(edited, TOK, previous=gc).line_count == _counted(edited), path
            followed += 1
        for _ in range(20):
            text = random_edit(text, rng)
            gc = parse_gc(text, TOK, previous=gc)
            assert gc.line_count == _counted(text), path
            followed += 1
    assert followed > 100


def test_the_message_tab_says_the_same_with_the_lines_known() -> None:
    body = big_gc()
    assert len(body) > 2 * MESSAGE_SHOWN
    for text in (body, body.rstrip("\n") + "\nlast line"):
        lines = parse_gc(text, TOK).line_count  # what the pane hands on
        for header in ("[CONTEXT-UPDATE] GC-v40 full\n\n", "x" * (MESSAGE_SHOWN + 10) + "\n", ""):
            shown = shown_message(header, text, lines)
            assert shown == shown_message(header, text)
            assert shown.endswith(" more lines: Copy message copies the whole message\n")
