"""Issue 41: delivery, Deliver again and Ping are actions like the others: prepared into a
preview that shows each inbox entry's exact text, committed exactly as shown, and refused for a
message whose outbox file changed in between. Expected texts are the outbox files as written
plus the reply line PROTOCOL.md asks for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_team_steps import entries, make_team

from conftest import demo_follows, role_full, run_cli
from models.actions.deliver import commit_delivery, prepare_delivery
from models.claude.status import team_view_of

REPLY = "Reply to team-lead with SendMessage: [ACK-UPDATE] GC-v7 (applied/total, impact, action, unclear items)."
MEMBERS = ("implementer-1", "implementer-2", "implementer-3", "implementer-4")


def _published(demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """GC-v7 published with the team linked, not delivered: four updates due."""
    team = make_team(tmp_path / "claude")
    new = tmp_path / "new.md"
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    new.write_text(gc.replace("is the source of truth", "is the single source of truth"), encoding="utf-8")
    code, out, err = run_cli(capsys, "publish", str(demo_copy), "--new", str(new), "--team", str(team))
    assert code == 0, out + err
    return team


def _outbox(folder: Path, role: str) -> str:
    (path,) = (folder / "messages" / "outbox").glob(f"GC-v7-{role}-*.md")
    return path.read_text(encoding="utf-8")


def test_deliver_dry_run_shows_each_entry_and_deliver_writes_exactly_that(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = _published(demo_copy, tmp_path, capsys)
    code, out, err = run_cli(capsys, "team", str(demo_copy), "--deliver", "--dry-run", "--json")
    assert code == 0, err
    (preview,) = json.loads(out)["previews"]
    shown = {d["role"]: d for d in preview["deliveries"]}
    assert sorted(shown) == list(MEMBERS) and all(d["what"] == "write" for d in shown.values())
    for role in MEMBERS:
        assert shown[role]["text"] == _outbox(demo_copy, role).rstrip("\n") + "\n\n" + REPLY
        assert shown[role]["sender"] == "lead-console"
    assert not any((team / "inboxes" / f"{m}.json").exists() for m in MEMBERS)  # a dry run writes nothing

    code, out, err = run_cli(capsys, "team", str(demo_copy), "--deliver")
    assert code == 0, err
    for role in MEMBERS:
        (entry,) = entries(team / "inboxes" / f"{role}.json")
        shown_entry = shown[role]
        assert (entry["from"], entry["summary"], entry["text"]) == (
            shown_entry["sender"],
            shown_entry["summary"],
            shown_entry["text"],
        )


def test_ping_dry_run_names_its_entry_and_writes_nothing(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = _published(demo_copy, tmp_path, capsys)
    code, out, err = run_cli(capsys, "team", str(demo_copy), "--ping", "implementer-2", "--dry-run")
    assert code == 0, err
    inbox = team / "inboxes" / "implementer-2.json"
    assert f"deliver implementer-2's PING: ACK GC-v7 into implementer-2's inbox ({inbox}) as lead-console" in out
    assert not inbox.exists()


def test_a_ping_looks_at_its_teammates_inbox_only(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41: planning a ping followed every role's last update (each member's inbox read)
    to learn one role's; it reads the pinged teammate's alone."""
    import models.claude.following as following
    from models.claude.delivery import plan_ping
    from models.claude.team import read_team

    team = _published(demo_copy, tmp_path, capsys)
    code, _, err = run_cli(capsys, "team", str(demo_copy), "--deliver")
    assert code == 0, err
    looked: list[str] = []
    real = following._picked_up

    def counting(team_: object, member: str, *rest: str) -> bool | None:
        looked.append(member)
        return real(team_, member, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(following, "_picked_up", counting)
    view = team_view_of(demo_copy, list(MEMBERS), {})
    assert view.link is not None
    looked.clear()
    entry = plan_ping(demo_copy, read_team(team), view.link, "implementer-2")
    assert entry.what == "write" and entry.summary == "PING: ACK GC-v7"
    assert looked == ["implementer-2"]


def test_an_outbox_file_changed_after_the_preview_is_not_delivered(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = _published(demo_copy, tmp_path, capsys)
    roles = ["researcher-1", *MEMBERS]
    preview = prepare_delivery(demo_copy, team_view_of(demo_copy, roles, {}))
    (path,) = (demo_copy / "messages" / "outbox").glob("GC-v7-implementer-1-*.md")
    path.write_text(path.read_text(encoding="utf-8") + "edited after the review\n", encoding="utf-8")
    outcomes = {o.role: o for o in commit_delivery(preview)}
    assert not outcomes["implementer-1"].delivered
    assert "changed since the preview" in (outcomes["implementer-1"].reason or "")
    assert not (team / "inboxes" / "implementer-1.json").exists()
    assert all(outcomes[r].delivered for r in MEMBERS[1:])


def test_a_carry_out_lists_its_re_send_s_inbox_entry_and_delivers_exactly_that(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Carry out of a CONTEXT_LOST with the team linked: the review lists the full GC's entry
    for the member (the outbox file's text and the reply line), and that entry is written."""
    team = make_team(tmp_path / "claude")
    assert run_cli(capsys, "team", str(demo_copy), "--team", str(team))[0] == 0
    inbox = demo_copy / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "implementer-3-status.md").write_text("[STATUS] Phase 6 | CONTEXT_LOST\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--json")
    ident = next(m["id"] for m in json.loads(out)["messages"] if m["from"] == "implementer-3")
    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--carry-out", ident, "--deliver", "--dry-run", "--json")
    assert code == 0, err
    (shown,) = json.loads(out)["deliveries"]
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    reply = "Reply to team-lead with SendMessage: [ACK-UPDATE] GC-v6 (applied/total, impact, action, unclear items)."
    assert (shown["role"], shown["what"]) == ("implementer-3", "write")
    follows = demo_follows("implementer-3")  # its sections are its full GC
    assert follows is not None
    assert shown["text"] == role_full(gc, "GC-v6", follows).rstrip("\n") + "\n\n" + reply
    assert entries(team / "inboxes" / "implementer-3.json") == []
    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--carry-out", ident, "--deliver")
    assert code == 0, err
    (entry,) = entries(team / "inboxes" / "implementer-3.json")
    assert entry["text"] == shown["text"]
    assert [entries(team / "inboxes" / f"{m}.json") for m in MEMBERS if m != "implementer-3"] == [[], [], []]
