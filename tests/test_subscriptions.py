"""Issue 47 (subscriptions): each role is sent only the changes in the GC sections it follows.

The expected messages are written out by hand from the demo's GC (its Scope's Goal and Open
Questions' Q-2 edited), as ADR-002 §4 writes a delta, with the block that says what the role
follows; a full injection of a role's sections is cut from the GC's text at its ``## `` lines
here, independently of the app's parser.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.session.subscriptions import parse_subscriptions, render_subscriptions
from models.text.tokens import get_tokenizer
from tests.conftest import DEMO, copy_session, run_cli

GOAL_OLD = (
    "Replace the single-table balance store of the payments service with a double-entry ledger that never "
    "loses a cent, survives replays from the card processor, and reports balances in under 50 ms at p99."
)
GOAL_NEW = GOAL_OLD.replace("under 50 ms", "under 40 ms")
Q2_OLD = (
    "Retention of raw webhook bodies beyond 30 days for disputes? Card-scheme disputes can arrive 120 days "
    "later; legal must confirm whether bodies count as personal data (owner: Lead)"
)
Q2_NEW = Q2_OLD.replace("(owner: Lead)", "(owner: legal)")
SUBSCRIPTIONS = """\
# what each implementer follows
implementer-1: [Scope, Architecture Decisions]
implementer-2:
  - §Risks
implementer-3: Task Decomposition
researcher-1: all
"""
AFFECTED = "implementer-1, implementer-2, implementer-3, implementer-4"


def _edited_demo(root: Path, subscriptions: str | None = SUBSCRIPTIONS) -> Path:
    folder = copy_session(DEMO, root)
    if subscriptions is not None:
        (folder / "subscriptions.yaml").write_text(subscriptions, encoding="utf-8")
    gc = folder / "global-context.md"
    text = gc.read_text(encoding="utf-8")
    assert GOAL_OLD in text and Q2_OLD in text
    gc.write_text(text.replace(GOAL_OLD, GOAL_NEW).replace(Q2_OLD, Q2_NEW), encoding="utf-8")
    return folder


def _section(text: str, title: str) -> str:
    """The ``## title`` section of ``text``, up to the next ``## `` line."""
    start = text.index(f"\n## {title}\n") + 1
    end = text.find("\n## ", start)
    return text[start : end + 1 if end != -1 else len(text)]


def test_the_file_is_read_leniently_and_fails_safe() -> None:
    text = (
        "subscriptions:\n"
        "  implementer-1: [Scope, '§Risks', \"Open Questions\"]\n"
        "  implementer-2: Scope, Constraints\n"
        "  implementer-3: all\n"
        "  implementer-4:\n"
        "  researcher-1: []\n"
        "  architect-1: {Scope: yes}\n"
    )
    subs = parse_subscriptions(text)
    assert subs.follows("implementer-1") == ("Scope", "Risks", "Open Questions")
    assert subs.follows("implementer-2") == ("Scope", "Constraints")
    assert subs.follows("implementer-3") is None  # all
    assert subs.follows("researcher-1") == ()  # none: version bumps only
    assert subs.follows("implementer-4") is None  # named with nothing: every section, and said
    assert subs.follows("architect-1") is None
    assert subs.follows("tester-1") is None  # not named
    assert [(p.severity, p.line) for p in subs.problems] == [("warning", 5), ("warning", 7)]
    assert "names no sections (write [] for none); it follows every section" in str(subs.problems[0])
    broken = parse_subscriptions("implementer-1: [Scope\n")
    assert broken.roles == {} and broken.problems[0].severity == "error"
    assert "every role follows every section" in str(broken.problems[0])
    listed = parse_subscriptions("- Scope\n- Risks\n")
    assert listed.roles == {} and "is not a mapping of roles to sections" in str(listed.problems[0])


def test_what_the_app_writes_reads_back_as_written() -> None:
    matrix = {
        "implementer-1": ("Scope", "Risks [CRITICAL]", "R-1: Mathpix API", "Phase 3: 'Design'"),
        "implementer-2": None,
        "implementer-3": (),
    }
    text = render_subscriptions(matrix)
    assert text.endswith("implementer-2: all\nimplementer-3: []\n")
    back = parse_subscriptions(text)
    assert {role: back.follows(role) for role in matrix} == matrix
    assert back.problems == ()


def test_publish_sends_each_role_its_sections_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """implementer-1 follows Scope and Architecture Decisions: it gets the Goal's change, and is
    told that an item in Open Questions was not sent. implementer-2 follows Risks: nothing
    changed there, so a one-line bump to ACK. implementer-3 is two versions behind (FC-1): its
    sections in full, and the titles of the rest. implementer-4 follows every section and lost
    its context (FC-2): the whole GC."""
    folder = _edited_demo(tmp_path)
    code, _, err = run_cli(capsys, "publish", str(folder))
    assert code == 0, err
    outbox = {p.name.split("-2026")[0].removeprefix("GC-v7-"): p for p in (folder / "messages" / "outbox").iterdir()}
    gc = (folder / "global-context.md").read_text(encoding="utf-8")
    assert gc.startswith("---\nversion: GC-v7\n")
    assert outbox["implementer-1"].read_text(encoding="utf-8") == (
        "[CONTEXT-UPDATE] GC-v6 → GC-v7\n"
        "\n"
        "## Delta\n"
        f"- CHANGED §Scope: Goal: {GOAL_OLD} → {GOAL_NEW}\n"
        "\n"
        "## Not Sent\n"
        "- 1 item in §Open Questions (sections you do not follow)\n"
        "\n"
        "## Impact Assessment\n"
        f"- Affected teammates: {AFFECTED}\n"
        "- Required actions: NONE\n"
    )
    assert outbox["implementer-2"].read_text(encoding="utf-8") == (
        "[CONTEXT-UPDATE] GC-v6 → GC-v7 | Delta: nothing in your sections | Impact: NONE\n"
    )
    preamble = gc[: gc.index("\n## ") + 1]
    others = [line[3:] for line in gc.splitlines() if line.startswith("## ") and line != "## Task Decomposition"]
    assert outbox["implementer-3"].read_text(encoding="utf-8") == (
        "[CONTEXT-UPDATE] GC-v7 (full injection: the sections you follow)\n\n"
        + (preamble + _section(gc, "Task Decomposition")).rstrip("\n")
        + "\n\n## Not Sent\n- "
        + ", ".join(f"§{t}" for t in others)
        + " (sections you do not follow; ask the Lead for any by name)\n"
    )
    assert outbox["implementer-4"].read_text(encoding="utf-8") == f"[CONTEXT-UPDATE] GC-v7 (full injection)\n\n{gc}"


def test_the_plan_counts_the_team_with_and_without_subscriptions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each role's tokens are those of the message it is sent (counted here from the texts
    above); without subscriptions implementer-1 and -2 would get the team's delta of two items
    and implementer-3 the whole GC."""
    folder = copy_session(DEMO, tmp_path)
    (folder / "subscriptions.yaml").write_text(SUBSCRIPTIONS, encoding="utf-8")
    gc = (folder / "global-context.md").read_text(encoding="utf-8")
    gc = gc.replace(GOAL_OLD, GOAL_NEW).replace(Q2_OLD, Q2_NEW).replace("version: GC-v6", "version: GC-v7", 1)
    (tmp_path / "next.md").write_text(gc, encoding="utf-8")
    args = ("plan", str(folder), "--new", str(tmp_path / "next.md"), "--tokenizer", "o200k_base")
    code, out, err = run_cli(capsys, *args, "--json")
    assert code == 0, err
    plan = json.loads(out)
    rows = {t["role"]: t for t in plan["teammates"]}
    count = get_tokenizer("o200k_base").count
    full = count(f"[CONTEXT-UPDATE] GC-v7 (full injection)\n\n{gc}")
    team_delta = (
        "[CONTEXT-UPDATE] GC-v6 → GC-v7\n\n## Delta\n"
        f"- CHANGED §Scope: Goal: {GOAL_OLD} → {GOAL_NEW}\n"
        f"- CHANGED §Open Questions: Q-2: {Q2_OLD} → {Q2_NEW}\n"
        f"\n## Impact Assessment\n- Affected teammates: {AFFECTED}\n- Required actions: NONE\n"
    )
    bump = "[CONTEXT-UPDATE] GC-v6 → GC-v7 | Delta: nothing in your sections | Impact: NONE\n"
    assert rows["implementer-2"]["tokens"] == count(bump)
    assert rows["implementer-2"]["bump"] is True and rows["implementer-2"]["follows"] == ["Risks"]
    assert rows["implementer-2"]["tokens_following_every_section"] == count(team_delta)
    assert rows["implementer-1"]["not_sent"] == {"items": 1, "in": ["Open Questions"], "sections": []}
    assert rows["implementer-1"]["tokens_following_every_section"] == count(team_delta)
    assert rows["implementer-3"]["mode"] == "full" and rows["implementer-3"]["tokens_following_every_section"] == full
    assert rows["implementer-4"]["follows"] is None and rows["implementer-4"]["tokens"] == full
    sent = sum(rows[r]["tokens"] for r in ("implementer-1", "implementer-2", "implementer-3", "implementer-4"))
    assert plan["team"]["sent_tokens"] == sent
    assert plan["team"]["sent_tokens_without_subscriptions"] == 2 * count(team_delta) + 2 * full
    code, text, _ = run_cli(capsys, *args)
    assert "version bump: nothing changed in its sections (delta from GC-v6)" in text
    assert "It follows §Risks; not sent 2 items in §Scope, §Open Questions (" in text
    assert f"Without subscriptions: {2 * count(team_delta) + 2 * full:,} tokens sent" in text


def test_an_ack_is_checked_against_what_its_role_was_sent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """implementer-1 was sent one item, implementer-2 none: 1/1 and 0/0 confirm GC-v7; an ACK
    of the team's two items from implementer-1 is not what it was sent."""
    folder = _edited_demo(tmp_path)
    assert run_cli(capsys, "publish", str(folder))[0] == 0
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)

    def ack(applied: str) -> str:
        return (
            f"[ACK-UPDATE] GC-v7 received.\n- Delta items applied: {applied}\n- Impact on my work: NONE\n"
            "- Action taken: CONTINUE\n- Unclear items: none\n"
        )

    (inbox / "implementer-1-ack.md").write_text(ack("1/1"), encoding="utf-8")
    (inbox / "implementer-2-ack.md").write_text(ack("0/0"), encoding="utf-8")
    code, out, err = run_cli(capsys, "inbox", str(folder), "--json")
    assert code == 0, err
    found = {r["from"]: r for r in json.loads(out)["messages"]}
    assert (found["implementer-1"]["summary"], found["implementer-1"]["lead_action"]) == (
        "applied 1/1 — confirm GC-v7",
        "confirm",
    )
    assert (found["implementer-2"]["summary"], found["implementer-2"]["lead_action"]) == (
        "applied 0/0 — confirm GC-v7",
        "confirm",
    )
    (inbox / "implementer-1-ack.md").write_text(ack("2/2"), encoding="utf-8")
    code, out, err = run_cli(capsys, "inbox", str(folder), "--json")
    found = {r["from"]: r for r in json.loads(out)["messages"]}
    assert found["implementer-1"]["problems"] == ["says 2 items, 1 were sent"]
    assert found["implementer-1"]["lead_action"] != "confirm"


def test_the_proposal_follows_the_demos_ownership(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Read from the demo's GC: Team, Task Decomposition and File Ownership Map name every
    implementer; Phase 5 Validation Results names implementer-3 and -4 (COND-1, COND-2) only;
    every other section names no teammate and is shared."""
    folder = copy_session(DEMO, tmp_path)
    (folder / "subscriptions.yaml").unlink()  # none yet, as in every real session
    code, out, err = run_cli(capsys, "subscriptions", str(folder), "--propose", "--json")
    assert code == 0, err
    rows = {r["role"]: r for r in json.loads(out)["roles"]}
    every = [
        "Scope",
        "Phase Pipeline Status",
        "Team",
        "Architecture Decisions",
        "Interface Contracts",
        "Task Decomposition",
        "File Ownership Map",
        "Research Findings",
        "Risks",
        "Constraints",
        "Phase 5 Validation Results",
        "Phase 6 Entry Conditions",
        "Open Questions",
    ]
    but_phase5 = [t for t in every if t != "Phase 5 Validation Results"]
    assert rows["implementer-1"]["follows"] == but_phase5
    assert rows["implementer-2"]["follows"] == but_phase5
    assert rows["implementer-3"]["follows"] is None  # every section: it follows them all, as "all"
    assert list(rows["implementer-3"]["why"]) == every
    assert rows["implementer-3"]["why"]["Phase 5 Validation Results"] == "names implementer-3"
    assert rows["implementer-1"]["why"]["Scope"] == "names no teammate: shared by all"
    assert not (folder / "subscriptions.yaml").exists()  # a proposal writes nothing
    code, out, err = run_cli(capsys, "subscriptions", str(folder), "--propose", "--write")
    assert code == 0, err
    written = parse_subscriptions((folder / "subscriptions.yaml").read_text(encoding="utf-8"))
    assert written.follows("implementer-1") == tuple(but_phase5)


def test_a_teams_short_names_count_as_its_roles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """cow's Task Decomposition and File Ownership Map write implementers as Impl-1..3: each
    implementer is proposed those two sections; its Phase 5 Validation Targets name
    implementer-1 alone."""
    from tests.conftest import COW

    folder = copy_session(COW, tmp_path)
    code, out, err = run_cli(capsys, "subscriptions", str(folder), "--propose", "--json")
    assert code == 0, err
    rows = {r["role"]: r for r in json.loads(out)["roles"]}
    for n in (1, 2, 3):
        why = rows[f"implementer-{n}"]["why"]
        assert why["Task Decomposition"] == f"names Impl-{n}"
        assert why["File Ownership Map"] == f"names Impl-{n}"
    assert rows["implementer-1"]["why"]["Phase 5 Validation Targets"] == "names Implementer-1"  # as cow writes it
    assert rows["implementer-1"]["follows"] is None  # proposed every section: written as "all"
    assert "Phase 5 Validation Targets" not in rows["implementer-2"]["follows"]
    assert "Task Decomposition" not in rows["architect-1"]["follows"]


def test_follow_writes_through_its_preview(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The demo's file: implementer-1 follows eight sections, implementer-2 nine; --follow
    changes implementer-2's alone."""
    folder = copy_session(DEMO, tmp_path)
    path = folder / "subscriptions.yaml"
    shipped = path.read_bytes()
    code, out, err = run_cli(
        capsys, "subscriptions", str(folder), "--follow", "implementer-2=Risks, §Open Questions", "--dry-run"
    )
    assert code == 0, err
    assert "replace subscriptions.yaml" in out and path.read_bytes() == shipped
    # It gains §Risks (the demo's file has no Risks for it): its next delta cannot give it that text.
    assert "implementer-2 will follow §Risks: where its updates have not carried their text, its next one" in out
    code, out, err = run_cli(capsys, "subscriptions", str(folder), "--follow", "implementer-2=Risks, §Open Questions")
    assert code == 0, err
    subs = parse_subscriptions(path.read_text(encoding="utf-8"))
    assert subs.follows("implementer-2") == ("Risks", "Open Questions")
    assert parse_subscriptions(shipped.decode()).follows("implementer-1") == subs.follows("implementer-1")
    assert subs.follows("implementer-1") is not None and len(subs.follows("implementer-1") or ()) == 8
    assert subs.follows("researcher-1") is None
    code, _, err = run_cli(capsys, "subscriptions", str(folder), "--follow", "tester-9=Risks")
    assert code == 2 and "tester-9=Risks" in err


def test_a_section_a_role_comes_to_follow_is_sent_in_full_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo's implementer-2 follows nine sections, not §Risks. GC-v7 changes D-9 (which it
    follows) and RK-4 (which it does not): it is sent D-9 and told of one item left out. Then
    the Lead has it follow §Risks: its text of §Risks is a version behind, so its next update is
    its sections in full, saying why; once that is sent, it is back to deltas."""
    folder = copy_session(DEMO, tmp_path)
    gc = (folder / "global-context.md").read_text(encoding="utf-8")
    rk4 = "| RK-4 | gRPC gateway adds latency | LOW |"
    d9 = "| D-9 | Snapshots compressed with zstd | Halves snapshot storage | P6 |\n"
    decisions = gc.index("## Architecture Decisions")
    at = gc.index("\n## ", decisions + 1)  # the end of the decisions' table
    v7 = gc[:at] + "\n" + d9.rstrip("\n") + gc[at:]
    v7 = v7.replace(rk4, rk4.replace("LOW", "MEDIUM"))
    (tmp_path / "v7.md").write_text(v7, encoding="utf-8")
    code, _, err = run_cli(capsys, "publish", str(folder), "--new", str(tmp_path / "v7.md"))
    assert code == 0, err
    sent = sorted((folder / "messages" / "outbox").glob("GC-v7-implementer-2-*.md"))
    assert "## Not Sent" in sent[-1].read_text(encoding="utf-8")  # RK-4 left out
    follows = parse_subscriptions((folder / "subscriptions.yaml").read_text(encoding="utf-8")).follows("implementer-2")
    assert follows is not None and "Risks" not in follows
    code, _, err = run_cli(
        capsys, "subscriptions", str(folder), "--follow", "implementer-2=" + ", ".join([*follows, "Risks"])
    )
    assert code == 0, err
    code, out, _ = run_cli(capsys, "plan", str(folder), "--json")
    decision = next(d for d in json.loads(out)["teammates"] if d["role"] == "implementer-2")
    assert decision["mode"] == "full"
    assert {"code": "SECTIONS", "reason": "it follows sections whose text its updates did not carry: its sections "
            "in full (gained §Risks)"} in decision["conditions"]  # fmt: skip
    v8 = v7.replace("Halves snapshot storage", "Halves snapshot storage and restore time")
    (tmp_path / "v8.md").write_text(v8, encoding="utf-8")
    code, _, err = run_cli(capsys, "publish", str(folder), "--new", str(tmp_path / "v8.md"))
    assert code == 0, err
    message = sorted((folder / "messages" / "outbox").glob("GC-v8-implementer-2-*.md"))[-1].read_text(encoding="utf-8")
    assert message.startswith("[CONTEXT-UPDATE] GC-v8 (full injection: the sections you follow)")
    assert "| RK-4 | gRPC gateway adds latency | MEDIUM |" in message  # the text it lacked
    code, out, _ = run_cli(capsys, "plan", str(folder), "--json")
    decision = next(d for d in json.loads(out)["teammates"] if d["role"] == "implementer-2")
    assert "SECTIONS" not in [c["code"] for c in decision["conditions"]]
