"""Markdown to HTML for the preview panes, with raw HTML shown as text, never interpreted.

Session files are written by language models and may contain anything, including
``<script>``, ``<img src=http://...>`` or ``<a href=file:///...>``. Python-Markdown has no safe
mode any more, so its two HTML pass-through processors are removed: raw HTML is then escaped
like any other text. The viewer additionally refuses to load resources and follow links.
"""

from __future__ import annotations

import functools
import html
import itertools
import re

import markdown
from markdown.extensions.fenced_code import FencedCodeExtension
from markdown.extensions.sane_lists import SaneListExtension
from markdown.extensions.tables import TableExtension

from models.text import mdblocks
from models.text.textfile import split_lines

_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]")
_REMEMBERED_CHARS = 64 * 1024  # texts up to this long are remembered with their HTML


def _safe_markdown() -> markdown.Markdown:
    # Extension objects, not names: a name makes Python-Markdown list every installed package's
    # entry points first, 40 ms of the first preview on opening a session.
    extensions = [FencedCodeExtension(), TableExtension(), SaneListExtension()]
    md = markdown.Markdown(extensions=extensions, output_format="html")
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md


def _separate_lists(text: str) -> str:
    """Put a blank line before a list that directly follows a paragraph line.

    CommonMark lets a list interrupt a paragraph (``**In Scope:**`` then ``- item``, as every
    real GC writes it); Python-Markdown does not and would run the items into the paragraph.
    """
    lines = split_lines(text)
    in_code = mdblocks.scan(lines, "preview").in_code
    out: list[str] = []
    for i, line in enumerate(lines):
        if i and not in_code[i] and _LIST_ITEM.match(line):
            before = lines[i - 1]
            if before.strip() and not before[0].isspace() and not _LIST_ITEM.match(before) and not in_code[i - 1]:
                out.append("\n")
        out.append(line)
    return "".join(out)


def first_part_end(text: str, at_least: int) -> int | None:
    """Where a first part of ``text`` may end for a preview that renders the rest a moment
    later: the start of the first heading line at or past ``at_least`` characters, outside code
    fences and comments. Everything before a heading renders as it will in the whole, where a
    cut inside a list or a table would show it broken until the rest came. None when there is
    no such heading (the caller renders the whole at once)."""
    if len(text) <= at_least:
        return None
    lines = split_lines(text)
    starts = list(itertools.accumulate(map(len, lines), initial=0))
    for heading in mdblocks.scan(lines, "preview", joined=(text, starts)).headings:
        if starts[heading.line] >= at_least:
            return starts[heading.line]
    return None


def render_markdown(text: str) -> str:
    """HTML for ``text`` with every raw tag escaped. Text nested deeper than Python-Markdown
    can follow (a list thousands of levels deep) is shown as it is written, and said so: it
    used to stop the session from opening.

    The last few texts of up to ``_REMEMBERED_CHARS`` are remembered with their HTML: the
    Lead goes back and forth between a few sections and views, and the same text rendered
    again took Python-Markdown 10 ms for a section of the demo's GC."""
    if len(text) <= _REMEMBERED_CHARS:
        return _rendered(text)
    return _render(text)


@functools.lru_cache(maxsize=32)
def _rendered(text: str) -> str:
    return _render(text)


def _render(text: str) -> str:
    try:
        return _safe_markdown().convert(_separate_lists(text))
    except RecursionError:
        note = "<p><i>Nested too deeply to show as Markdown; shown as written.</i></p>"
        return f"{note}<pre>{html.escape(text)}</pre>"
