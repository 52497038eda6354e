"""What the follow-up tests compare: everything a view or a command reads from a parsed GC
or TEAM-MEMORY, as plain values, and a way to make the next parse a cold one."""

from __future__ import annotations

import models.session.gc_items as gc_items
import models.session.gc_parse as gc_module
import models.session.memory_entries as memory_entries
from models.session.gc import GlobalContext
from models.session.memory_parse import parse_memory
from models.session.plan import parse_plan
from models.session.team_memory import TeamMemory
from models.text.problems import has_errors
from models.text.tokens import EstimateTokenizer


def cold_caches() -> None:
    """Forget every memo, so that the next parse reads the whole text afresh."""
    gc_module._PARSED.clear()
    gc_items.section_body.cache_clear()
    gc_items.section_keys.cache_clear()
    memory_entries.read_entries.cache_clear()


def gc_facts(gc: GlobalContext) -> list[object]:
    """Everything a view or a command reads from a parsed GC, as plain values."""
    # The line count and the titles first: asked before the line starts are worked out, they
    # come from the sections (and a follow-up's titles from the parse it came from).
    facts: list[object] = [gc.version, gc.title, gc.tokens, [str(p) for p in gc.problems]]
    facts += [gc.line_count, sorted(gc.top_titles())]
    for s in gc.walk():
        items = [(i.key, i.value, i.kind, i.line, i.end_line, i.start, i.end) for i in s.items]
        facts.append(
            (s.ref, s.level, s.line, s.start, s.end, s.own_end, s.tokens, s.own_tokens, items, s.duplicate_keys)
        )
        facts.append((s.end_line, s.own_end_line, s.own_text == gc.text[s.start : s.own_end]))
        facts.append(all(c.parent is s for c in s.children))
    walked = list(gc.walk())
    same = len(gc.flat()) == len(walked) and all(a is b for a, b in zip(gc.flat(), walked, strict=False))
    facts.append((gc.line_starts, gc.section_count, same, gc.places()))
    return facts


def memory_facts(memory: TeamMemory) -> list[object]:
    facts: list[object] = [memory.title, memory.line_count, [str(p) for p in memory.problems]]
    for s in memory.sections:
        entries = [(e.text, e.tag, e.archived, s.span_of(e)) for e in s.entries]
        facts.append((s.header, s.role, s.kind, s.replaced, s.line, s.end_line, entries, sorted(s.meta.items())))
    return facts


def reads_clean(name: str, text: str) -> bool:
    """Whether ``text`` as the session file ``name`` reads without an error: a broken file
    keeps the last good version on screen, which a fresh open has not seen."""
    parse = {
        "global-context.md": lambda: gc_module.parse_gc(text, EstimateTokenizer()).problems,
        "orchestration-plan.md": lambda: parse_plan(text).problems,
        "TEAM-MEMORY.md": lambda: parse_memory(text).problems,
    }[name]
    return not has_errors(parse())
