"""ADR-002 §6: every fallback condition, their precedence, the gate freeze, and the costs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import DEMO, REAL_SESSIONS
from models.delta.decisions import plan_update, render_full, snapshot_versions
from models.delta.items import Impact
from models.delta.savings import scenario_rows, team_rows
from models.session.folder import open_session
from models.text.tokens import get_tokenizer

TOK = get_tokenizer("o200k_base")


def _set_front(folder: Path, block: str) -> None:
    """Replace the plan's tracking keys with ``block`` (YAML lines)."""
    path = folder / "orchestration-plan.md"
    text = path.read_text(encoding="utf-8")
    start = text.index("teammate_gc_versions:")
    end = text.index("---", start)
    path.write_text(text[:start] + block + text[end:], encoding="utf-8")


def _decisions(folder: Path, new_text: str | None = None) -> dict[str, tuple[str, list[str]]]:
    plan = plan_update(open_session(folder, TOK), new_text)
    return {d.role: (d.mode, [c.code for c in d.conditions]) for d in plan.decisions}


def test_demo_session_decisions(demo_copy: Path) -> None:
    plan = plan_update(open_session(demo_copy, TOK))
    got = {d.role: (d.mode, [c.code for c in d.conditions], d.base_version) for d in plan.decisions}
    assert got == {
        "implementer-1": ("current", [], None),
        "implementer-2": ("current", [], None),
        "implementer-3": ("delta", [], 5),
        "implementer-4": ("full", ["FC-2"], 5),
        # The plan's table says COMPLETE: finished teammates get updates only when the Lead says so.
        "researcher-1": ("inactive", ["STATE"], 4),
    }
    # The demo's subscriptions.yaml: implementer-3 follows Architecture Decisions but neither
    # Phase Pipeline Status nor Open Questions, so of GC-v5 → GC-v6 (Phase 6 changed, D-8 added,
    # Q-1 removed) it is sent D-8 and told of the two others; implementer-4 lost its context
    # and is sent its nine sections in full, not the GC's thirteen.
    delta = next(d for d in plan.decisions if d.mode == "delta")
    assert delta.delta is not None and delta.scope is not None
    assert [(i.op, i.ref, i.key) for i in delta.delta.items] == [("ADDED", "Architecture Decisions", "D-8")]
    assert (delta.scope.left_out, delta.scope.items_left_out) == (("Phase Pipeline Status", "Open Questions"), 2)
    assert delta.tokens < 250 < delta.full_tokens < plan.full_tokens
    lost = next(d for d in plan.decisions if d.mode == "full")
    assert lost.scope is not None and len(lost.scope.follows) == 9 and len(lost.scope.others) == 4
    assert lost.tokens == lost.full_tokens < plan.full_tokens and lost.unscoped_tokens == plan.full_tokens
    assert plan.sent_tokens == delta.tokens + lost.tokens
    assert plan.all_full_tokens == 2 * plan.full_tokens
    assert 0 < plan.savings_percent < 100


def test_every_condition_in_the_tree_order(demo_copy: Path) -> None:
    """FC-2 first, then FC-3, FC-1, FC-4, FC-5; every condition that fires is listed."""
    _set_front(
        demo_copy,
        "teammate_gc_versions:\n  implementer-1: 5\n  implementer-2: 3\n  implementer-4: 5\n  researcher-1: 5\n"
        "teammate_status:\n  implementer-1: CONTEXT_LOST\n  implementer-2: NEED_CLARIFICATION\n"
        "  implementer-3: CONTEXT_LOST\n  researcher-1: NEED_CLARIFICATION\n",
    )
    got = _decisions(demo_copy)
    assert got["implementer-1"] == ("full", ["FC-2"])
    assert got["implementer-2"] == ("full", ["FC-1", "FC-5"])
    assert got["implementer-3"] == ("full", ["FC-2", "FC-3"])  # CONTEXT_LOST before initial spawn
    assert got["implementer-4"] == ("delta", [])
    assert got["researcher-1"] == ("inactive", ["STATE"])  # COMPLETE in the plan's table


def test_lost_context_needs_full_even_when_current(demo_copy: Path) -> None:
    _set_front(
        demo_copy, "teammate_gc_versions:\n  implementer-1: 6\nteammate_status:\n  implementer-1: CONTEXT_LOST\n"
    )
    assert _decisions(demo_copy)["implementer-1"] == ("full", ["FC-2"])


def test_rapid_sequential_updates_use_the_confirmed_not_the_sent_version(demo_copy: Path) -> None:
    """v5 → v6 → v7: a teammate that confirmed v5 (and was sent v6) gets the full v7."""
    _set_front(
        demo_copy,
        "teammate_gc_versions:\n  implementer-1: 5\n  implementer-2: 6\n"
        "teammate_gc_last_delta:\n  implementer-1: {sent_version: 6, delta_size: 187, timestamp: 2026-11-21T14:02:10Z}\n",
    )
    v7 = (demo_copy / "global-context.md").read_text(encoding="utf-8").replace("GC-v6", "GC-v7")
    v7 = v7.replace("- Q-2:", "- Q-3: new question\n- Q-2:")
    got = _decisions(demo_copy, v7)
    assert got["implementer-1"] == ("full", ["FC-1"])
    assert got["implementer-2"] == ("delta", [])


def test_major_restructure_falls_back_to_full(demo_copy: Path) -> None:
    _set_front(demo_copy, "teammate_gc_versions:\n  implementer-1: 6\n")
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8").replace("GC-v6", "GC-v7")
    restructured = re.sub(r"^(## .+)$", r"\1\n- Note: rewritten for phase 7", gc, flags=re.M)
    mode, codes = _decisions(demo_copy, restructured)["implementer-1"]
    assert (mode, codes) == ("full", ["FC-4"])


@pytest.mark.parametrize(("edited", "expected"), [(6, ("delta", [])), (7, ("full", ["FC-4"]))])
def test_a_restructure_is_more_than_half_of_the_sections(
    demo_copy: Path, edited: int, expected: tuple[str, list[str]]
) -> None:
    """ADR-002 §6: "delta_items > 50% of GC sections" falls back to the full GC; exactly half
    does not. The demo's GC has 13 top-level sections; v7 adds a 14th and a line to the first
    ``edited`` of the others: 7 of 14 touched is half, 8 of 14 more than half."""
    _set_front(demo_copy, "teammate_gc_versions:\n  implementer-1: 6\n")
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8").replace("GC-v6", "GC-v7")
    assert len(re.findall(r"^## ", gc, flags=re.M)) == 13
    v7 = re.sub(r"^(## .+)$", r"\1\n- Note: revised for phase 7", gc, count=edited, flags=re.M)
    v7 += "## Phase 7 Notes\n\n- Kickoff: 2026-11-25\n"  # Open Questions keeps its last line as it was
    assert _decisions(demo_copy, v7)["implementer-1"] == expected


def test_a_delta_costing_more_than_the_full_gc_is_refused(demo_copy: Path) -> None:
    _set_front(demo_copy, "teammate_gc_versions:\n  implementer-1: 6\n")
    tiny = "---\nversion: GC-v7\n---\n# Tiny\n## Scope\n- Goal: all new\n"
    plan = plan_update(open_session(demo_copy, TOK), tiny)
    decision = next(d for d in plan.decisions if d.role == "implementer-1")
    assert decision.mode == "full"
    assert any(c.code == "FC-4" and "costs no less than the full GC" in c.reason for c in decision.conditions)


def test_missing_snapshot_means_full(demo_copy: Path) -> None:
    (demo_copy / "gc-history" / "GC-v5.md").unlink()
    assert 5 not in snapshot_versions(demo_copy)
    mode, codes = _decisions(demo_copy)["implementer-3"]
    assert (mode, codes) == ("full", ["NO-BASE"])


def test_without_a_snapshot_of_the_current_version_the_gc_on_disk_is_the_base(demo_copy: Path) -> None:
    """Composing v7 in a session with no gc-history/GC-v6.md: the GC on disk is v6, so a
    teammate that confirmed v6 still gets a delta, computed from it; one that confirmed v5
    is two behind (FC-1)."""
    (demo_copy / "gc-history" / "GC-v6.md").unlink()
    assert 6 not in snapshot_versions(demo_copy)
    v7 = (demo_copy / "global-context.md").read_text(encoding="utf-8").replace("GC-v6", "GC-v7")
    v7 = v7.replace("- Q-2:", "- Q-3: new question\n- Q-2:")
    plan = plan_update(open_session(demo_copy, TOK), v7)
    got = {d.role: (d.mode, [c.code for c in d.conditions], d.base_version) for d in plan.decisions}
    assert got["implementer-1"] == ("delta", [], 6)
    assert got["implementer-3"] == ("full", ["FC-1"], 5)
    # implementer-2 follows Open Questions (subscriptions.yaml); implementer-1 does not: a bump.
    delta = next(d.delta for d in plan.decisions if d.role == "implementer-2")
    assert delta is not None and [(i.op, i.ref, i.key) for i in delta.items] == [("ADDED", "Open Questions", "Q-3")]
    assert next(d for d in plan.decisions if d.role == "implementer-1").bump


def test_an_unbumped_edit_is_planned_as_the_next_version(demo_copy: Path) -> None:
    """--new with the same version number: the Lead's working GC, to be published as v7."""
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    edited = gc.replace("| P6 |\n", "| P6 |\n| D-9 | zstd snapshots | smaller | P6 |\n")
    plan = plan_update(open_session(demo_copy, TOK), edited)
    assert plan.current_version == 7
    decisions = {d.role: d for d in plan.decisions}
    assert decisions["implementer-1"].mode == "delta" and decisions["implementer-1"].base_version == 6
    assert decisions["implementer-1"].delta is not None
    assert [i.key for i in decisions["implementer-1"].delta.items] == ["D-9"]
    assert decisions["implementer-3"].mode == "full"  # confirmed v5 is now two behind


def test_gate_evaluation_freezes_every_update(demo_copy: Path) -> None:
    path = demo_copy / "orchestration-plan.md"
    text = path.read_text(encoding="utf-8").replace(
        "---\n\n# Orchestration",
        "gate_evaluation: {phase: 6, started: 2026-11-21T15:00:00Z}\n---\n\n# Orchestration",
        1,
    )
    path.write_text(text, encoding="utf-8")
    plan = plan_update(open_session(demo_copy, TOK))
    assert plan.frozen is not None and "phase 6" in plan.frozen
    modes = {d.role: d.mode for d in plan.decisions}
    assert modes == {
        "implementer-1": "current",
        "implementer-2": "current",
        "implementer-3": "frozen",
        "implementer-4": "frozen",
        "researcher-1": "inactive",
    }
    assert plan.sent_tokens == 0
    four = next(d for d in plan.decisions if d.role == "implementer-4")
    assert [c.code for c in four.conditions] == ["FC-2", "GATE"]


def test_explicit_full_request(demo_copy: Path) -> None:
    plan = plan_update(open_session(demo_copy, TOK), requested_full=frozenset({"implementer-3"}))
    decision = next(d for d in plan.decisions if d.role == "implementer-3")
    assert decision.mode == "full" and [c.code for c in decision.conditions] == ["FC-5"]


@pytest.fixture(scope="module")
def adr_rows() -> list:  # type: ignore[type-arg]
    from conftest import DEMO

    return scenario_rows((DEMO / "global-context.md").read_text(encoding="utf-8"), TOK)


def test_savings_scenarios_stay_within_the_adr_table(adr_rows: list) -> None:  # type: ignore[type-arg]
    rows = {r.scenario: r for r in adr_rows}
    assert rows["1 decision added"].delta is not None and rows["1 decision added"].delta <= 250
    assert rows["1 decision added"].items == 1
    assert rows["Status update only"].delta is not None and rows["Status update only"].delta <= 100
    assert rows["2-3 sections changed"].delta is not None and rows["2-3 sections changed"].delta <= 500
    assert rows["Phase transition"].delta is not None and rows["Phase transition"].delta <= 800
    assert rows["Major restructure (>50%)"].delta is None and "FC-4" in rows["Major restructure (>50%)"].note
    for row in adr_rows:
        assert 2000 < row.full < 3200  # the demo GC is about the ADR's 2,600 tokens


def test_team_table_is_computed_from_the_scenarios(adr_rows: list) -> None:  # type: ignore[type-arg]
    single, three, fallback = team_rows(adr_rows)
    rows = {r.scenario: r for r in adr_rows}
    assert single.delta == 4 * rows["2-3 sections changed"].delta
    assert three.delta == 4 * sum(
        rows[s].delta for s in ("1 decision added", "2-3 sections changed", "Status update only")
    )
    assert three.full == fallback.full and three.delta < fallback.delta < fallback.full
    assert single.savings > 85 and three.savings > 85 and fallback.savings > 50


_GCS = sorted([*REAL_SESSIONS.glob("*/global-context.md"), DEMO / "global-context.md"])


@pytest.mark.parametrize("path", _GCS, ids=lambda p: p.parent.name)
def test_the_full_injection_is_counted_as_its_whole_message_is(path: Path) -> None:
    """The plan counts the full-injection message from the GC's parse; the count is the whole
    message's, counted by the tokenizer in one piece: for each real GC as written, bumped, in
    CRLF, and starting with the characters a count may not be split before (line ends, a
    space, ``/``), with both exact encodings and the estimate."""
    from models.delta.decisions import full_tokens, render_full
    from models.session.gc_parse import parse_gc

    text = path.read_text(encoding="utf-8")
    variants = [text, text.replace("\n", "\r\n"), "\n" + text, "\r\n" + text, " " + text, "/" + text, "# T\n" + text]
    assert len(_GCS) >= 6  # five real GCs and the demo's
    for name in ("o200k_base", "cl100k_base", "estimate"):
        tok = get_tokenizer(name)
        for variant in variants:
            for version in (None, 7):
                whole = tok.count(render_full(variant, version))
                assert full_tokens(variant, version, tok) == whole, (name, variant[:20])
                # A parse of another text, or counted by another tokenizer, is not taken for this one's.
                assert full_tokens(variant, version, tok, parse_gc(text + "x", tok)) == whole
                other = get_tokenizer("cl100k_base" if name == "o200k_base" else "o200k_base")
                assert full_tokens(variant, version, tok, parse_gc(variant, other)) == whole


def test_a_teammates_decision_does_not_depend_on_who_else_is_in_the_team(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: teammates alike (the same confirmed version, the same request) are decided
    and priced once per plan. Each decision must be the one a plan for that teammate alone
    gives: on the demo with every condition in play (versions behind, lost context, a status
    that asks for the full GC, a pending reply, a forced full) and on the real sessions."""
    _set_front(
        demo_copy,
        "teammate_gc_versions:\n  implementer-1: GC-v5\n  implementer-2: GC-v5\n"
        "  implementer-3: GC-v5\n  implementer-4: GC-v3\n  researcher-1: GC-v5\n",
    )
    cases = [(demo_copy, {"implementer-2": ("NEED_CLARIFICATION", "inbox/msg-7.md")}, {"implementer-1": "tests"})]
    cases += [(p, {}, {}) for p in sorted(REAL_SESSIONS.iterdir()) if p.is_dir()]
    compared = 0
    for folder, pending, forced in cases:
        session = open_session(folder, TOK)
        mates = session.teammates()
        impact = Impact(tuple(m.role for m in mates), "NONE")
        whole = plan_update(session, impact=impact, pending=pending, forced_full=forced)
        for mate in mates:
            with monkeypatch.context() as m:
                m.setattr(session, "teammates", lambda mate=mate: [mate])
                alone = plan_update(session, impact=impact, pending=pending, forced_full=forced)
            assert [d for d in whole.decisions if d.role == mate.role] == alone.decisions, (folder.name, mate.role)
            compared += 1
    modes = {d.mode for d in plan_update(open_session(demo_copy, TOK), pending=cases[0][1]).decisions}
    assert compared > 15 and {"delta", "full"} <= modes


def test_a_decision_made_for_a_teammate_is_the_decision_replaced(demo_copy: Path) -> None:
    """Issue 18: the plan makes each teammate's decision directly (``_for``) instead of through
    ``dataclasses.replace``; on every decision of the demo's and the real sessions' plans, with
    a role, a delta and a cost of another, both give the same decision, every field of it."""
    from dataclasses import fields, replace

    from models.delta.decisions import Decision, _for

    assert [f.name for f in fields(Decision)] == [
        "role", "mode", "conditions", "tokens", "full_tokens", "base_version", "delta", "scope", "unscoped_tokens",
    ]  # fmt: skip
    decisions = [d for p in (demo_copy, *sorted(REAL_SESSIONS.iterdir())) if p.is_dir()
                 for d in plan_update(open_session(p, TOK)).decisions]  # fmt: skip
    deltas = [d.delta for d in decisions if d.delta is not None]
    assert len(decisions) > 15 and deltas
    for decision in decisions:
        assert _for(decision, "someone") == replace(decision, role="someone")
        assert _for(decision, "someone", deltas[0], 7) == replace(decision, role="someone", delta=deltas[0], tokens=7)


def _shape(gc: object) -> list[tuple[object, ...]]:
    from models.session.gc import GlobalContext

    assert isinstance(gc, GlobalContext)
    return [
        (s.ref, s.level, s.line, s.start, s.end, s.own_end, [(i.key, i.value, i.start, i.end) for i in s.items])
        for s in gc.walk()
    ]


@pytest.mark.parametrize(
    "folder",
    [DEMO, *(p for p in sorted(REAL_SESSIONS.iterdir()) if (p / "global-context.md").is_file())],
    ids=lambda p: p.name,
)
def test_the_structure_of_the_sessions_gc_is_its_own_parse(folder: Path) -> None:
    """Issue 18: a plan reads the structure of the GC the session has just parsed from that
    parse (the token counts differ, the sections and items do not) instead of reading it
    again. Both are held to a cold parse; an edit of the text after it is read as before."""
    from models.delta import items
    from models.delta.items import structure
    from models.session.gc_parse import _parse
    from models.text.tokens import EstimateTokenizer

    with items._MEMO_LOCK:
        items._MEMO.clear()  # no text another test asked for stands in for this one
    session = open_session(folder, TOK)
    assert session.gc is not None
    text = session.gc.text
    cold = _parse(text, EstimateTokenizer(), "global-context.md")[0]
    assert structure(text) is session.gc
    assert _shape(structure(text)) == _shape(cold)
    edited = text.replace("\n- ", "\n- edited: yes\n- ", 1)
    assert _shape(structure(edited)) == _shape(_parse(edited, EstimateTokenizer(), "global-context.md")[0])


def test_a_draft_not_yet_bumped_is_planned_as_the_version_publishing_gives_it() -> None:
    """``plan --new`` with a draft that still says GC-v6 (the demo's GC as it is): publishing
    calls it GC-v7, so the plan is for GC-v7, and so are its messages and their sizes. They
    used to say "GC-v6 → GC-v6" and be counted a token short of what the composer sends."""
    from models.delta.message import render_message
    from models.publish.composer import Composer

    session = open_session(DEMO, get_tokenizer("o200k_base"))
    assert session.gc is not None and session.gc.version == 6
    plan = plan_update(session, session.gc.text)
    sent = Composer.open(session).plan()
    assert plan.current_version == 7
    for role in ("implementer-1", "implementer-2"):
        decision = next(d for d in plan.decisions if d.role == role)
        assert decision.delta is not None
        assert render_message(decision.delta).startswith("[CONTEXT-UPDATE] GC-v6 → GC-v7\n")
        assert decision.tokens == next(d.tokens for d in sent.decisions if d.role == role)


@pytest.mark.parametrize("version", [2, 1000, 123456], ids=["v2", "v1000", "v123456"])
def test_the_full_gc_of_a_bump_is_counted_as_the_text_publishing_writes(version: int) -> None:
    """``full_tokens(..., bump=True)`` counts only the bumped front matter again; the answer is
    that of counting the whole message with the version set, new digits included."""
    from models.delta.apply import set_version
    from models.delta.decisions import full_tokens, render_full
    from models.session.gc_parse import parse_gc

    tokenizer = get_tokenizer("o200k_base")
    checked = 0
    for path in [DEMO / "global-context.md", *sorted(REAL_SESSIONS.glob("*/global-context.md"))]:
        text = path.read_text(encoding="utf-8")
        if "version:" not in text.split("\n---", 1)[0]:
            continue
        parsed = parse_gc(text, tokenizer)
        whole = tokenizer.count(render_full(set_version(text, version), version))
        assert full_tokens(text, version, tokenizer, parsed, bump=True) == whole, path.parent.name
        checked += set_version(text, version) != text  # a GC already at this version proves less
    assert checked >= 4


_WITH_GC = sorted(p for p in REAL_SESSIONS.iterdir() if (p / "global-context.md").is_file())


@pytest.mark.parametrize("folder", [DEMO, *_WITH_GC], ids=lambda p: p.name)
def test_the_composer_plans_what_the_bumped_copy_would_give(folder: Path, tmp_path: Path) -> None:
    """The composer plans a working GC that still says the session's version as it is (the
    plan bumps it), not a copy set to the next version. Each teammate's decision, delta and
    message size must be those of the bumped copy publishing writes, and a message's size
    its rendered text's count."""
    from models.delta.message import render_message
    from models.publish.composer import Composer

    session = open_session(folder, TOK)
    composer = Composer.open(session)
    assert session.gc is not None and session.gc.version is not None
    assert composer.new_version == session.gc.version + 1
    ours, copy = composer.plan(), plan_update(session, composer.new_text)
    assert (ours.current_version, ours.full_tokens) == (copy.current_version, copy.full_tokens)
    assert ours.full_tokens == TOK.count(render_full(composer.new_text, composer.new_version))
    assert [(d.role, d.mode, d.delta, d.tokens) for d in ours.decisions] == [
        (d.role, d.mode, d.delta, d.tokens) for d in copy.decisions
    ]
    for decision in ours.decisions:
        if decision.delta is not None:
            assert decision.tokens == TOK.count(render_message(decision.delta)), decision.role
