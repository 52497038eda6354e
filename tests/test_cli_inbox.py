"""``lead-console inbox``: the window's Inbox and its Carry out, from the command line.

The listing must say of every message what the Inbox row says (the window is the other
reading), and write nothing; a carry-out must do on disk what the window's Carry out does
(the plan's confirmed versions, the re-send in the outbox, the ledger's handled line), once
unless told ``--again``, and nothing at all when a step fails.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from conftest import DEMO, actions_done, fail_carry_out_at, run_cli, settle_reviews, shown_controller, snapshot_tree
from models.text.frontmatter import split_front_matter


def _session(tmp_path: Path, name: str = "session") -> Path:
    """The demo with two replies in its inbox: implementer-3 applied both items of GC-v6 and
    goes on; implementer-1 understood neither."""
    folder = tmp_path / name
    shutil.copytree(DEMO, folder)
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "implementer-3-ack.md").write_text(
        "From: implementer-3\n[ACK-UPDATE] GC-v6 received. Items: 2/2. Impact: none. Action: CONTINUE\n",
        encoding="utf-8",
    )
    (inbox / "implementer-1-ack.md").write_text(
        "From: implementer-1\n[ACK-UPDATE] GC-v6 received. Items: 0/2. Impact: unclear. Action: NEED_CLARIFICATION\n",
        encoding="utf-8",
    )
    return folder


def _listed(capsys: pytest.CaptureFixture[str], folder: Path) -> dict[str, dict[str, object]]:
    code, out, _ = run_cli(capsys, "inbox", str(folder), "--json")
    assert code == 0
    return {row["from"]: row for row in json.loads(out)["messages"]}


def _confirmed(folder: Path) -> dict[str, int]:
    front = split_front_matter((folder / "orchestration-plan.md").read_text(encoding="utf-8"), "p")[0]
    return dict(front.data["teammate_gc_versions"])


def test_the_listing_says_what_the_inbox_shows_and_writes_nothing(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _session(tmp_path)
    before = snapshot_tree(folder)
    listed = _listed(capsys, folder)
    assert snapshot_tree(folder) == before  # not even the ledger's "received" lines
    # What the protocol says of each (seed 003): all applied and CONTINUE confirms the version;
    # more than half unclear is answered with the full GC.
    assert (listed["implementer-3"]["lead_action"], listed["implementer-1"]["lead_action"]) == ("confirm", "full")
    controller = shown_controller(qtbot, tmp_path)
    try:
        assert controller.open(folder)
        settle_reviews(qtbot, controller)
        model = controller.window.review_pane.model
        rows = {
            model.index(r, 0).data(): [model.index(r, c).data() for c in (1, model.SUMMARY, model.ACTION)]
            for r in range(model.rowCount())
        }
        assert rows == {who: [row["kind"], row["summary"], row["action"]] for who, row in listed.items()}
    finally:
        controller.window.context_pane.wait()
        controller.close()


def test_a_carry_out_confirms_once_unless_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _session(tmp_path)
    assert _confirmed(folder)["implementer-3"] == 5  # the demo's plan: behind
    ack = _listed(capsys, folder)["implementer-3"]
    code, out, _ = run_cli(capsys, "inbox", str(folder), "--carry-out", str(ack["id"])[:6])
    assert code == 0 and out == "confirm for implementer-3: done\n"
    assert _confirmed(folder)["implementer-3"] == 6
    ledger = (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8")
    handled = [json.loads(line) for line in ledger.splitlines() if '"handled"' in line]
    assert len(handled) == 1 and handled[0]["action"] == "confirm"
    assert _listed(capsys, folder)["implementer-3"]["action"] == "done: confirm"
    code, _, err = run_cli(capsys, "inbox", str(folder), "--carry-out", str(ack["id"]))
    assert code == 2 and "carried out already (confirm at 20" in err and "--again" in err
    assert (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8") == ledger
    code, _, _ = run_cli(capsys, "inbox", str(folder), "--carry-out", str(ack["id"]), "--again")
    assert code == 0 and (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8") != ledger
    code, _, err = run_cli(capsys, "inbox", str(folder), "--carry-out", "zz")
    assert code == 2 and err == "lead-console: no message has the id zz (see 'lead-console inbox')\n"


def test_a_carry_out_writes_what_the_windows_carry_out_writes(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The full GC for implementer-1, by the CLI in one copy and by the window in another: the
    same re-send in the outbox, the same plan, the same ledger lines but for their times."""
    by_cli, by_window = _session(tmp_path, "cli"), _session(tmp_path, "window")
    listed = _listed(capsys, by_cli)["implementer-1"]
    code, out, _ = run_cli(capsys, "inbox", str(by_cli), "--carry-out", str(listed["id"]), "--json")
    assert code == 0
    said = json.loads(out)
    assert said["action"] == "full" and Path(said["resend"]).parent == by_cli / "messages" / "outbox"
    controller = shown_controller(qtbot, tmp_path)
    controller.inbox.review_write = lambda preview, question: True  # type: ignore[method-assign]  # the Lead's OK
    try:
        assert controller.open(by_window)
        settle_reviews(qtbot, controller)
        (review,) = [r for r in controller.reviews if r.message.sender == "implementer-1"]
        assert controller.inbox.carry_out(review)
        settle_reviews(qtbot, controller)
    finally:
        controller.window.context_pane.wait()
        controller.close()
    (cli_resend,) = (by_cli / "messages" / "outbox").iterdir()
    (window_resend,) = (by_window / "messages" / "outbox").iterdir()
    assert cli_resend.read_text(encoding="utf-8") == window_resend.read_text(encoding="utf-8")
    assert "[CONTEXT-UPDATE]" in cli_resend.read_text(encoding="utf-8")
    plans = [(f / "orchestration-plan.md").read_text(encoding="utf-8") for f in (by_cli, by_window)]
    assert plans[0] == plans[1]

    def lines(folder: Path) -> list[dict[str, object]]:
        text = (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8")
        # When, the outbox file's timestamped name, and the inbox file's time (each copy wrote
        # its replies in its own second)
        drop = {"ts", "at", "file", "path", "message_time"}
        return [{k: v for k, v in json.loads(line).items() if k not in drop} for line in text.splitlines()]

    assert lines(by_cli) == lines(by_window)


@pytest.mark.parametrize("step", ["resend", "plan", "ledger"])
def test_a_carry_out_failing_at_any_step_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    folder = _session(tmp_path)
    listed = _listed(capsys, folder)["implementer-1"]
    fail_carry_out_at(monkeypatch, step)
    before = {p: b for p, (_, b) in snapshot_tree(folder).items() if "ledger" not in p}
    code, out, err = run_cli(capsys, "inbox", str(folder), "--carry-out", str(listed["id"]))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "No space left on device" in err and "Nothing was changed" in err
    assert {p: b for p, (_, b) in snapshot_tree(folder).items() if "ledger" not in p} == before  # put back
    ledger = (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8")
    assert '"handled"' not in ledger  # the replies were recorded as read, as the window records them


def test_add_saves_what_the_windows_paste_saves(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``inbox --add FILE --from ROLE``: the window's Paste message…, then the listing."""
    by_cli, by_window = tmp_path / "cli", tmp_path / "window"
    shutil.copytree(DEMO, by_cli)
    shutil.copytree(DEMO, by_window)
    message = tmp_path / "reply.md"
    message.write_text("[STATUS] Phase 6 | CONTEXT_RECEIVED | GC-v6", encoding="utf-8")  # no final newline
    code, out, err = run_cli(capsys, "inbox", str(by_cli), "--add", str(message), "--from", "implementer-4", "--json")
    assert code == 0 and err.startswith(f"saved as {by_cli / 'messages' / 'inbox' / 'implementer-4-pasted-'}")
    (listed,) = json.loads(out)["messages"]
    assert (listed["from"], listed["kind"]) == ("implementer-4", "status")
    controller = shown_controller(qtbot, tmp_path)
    try:
        assert controller.open(by_window)
        assert controller.inbox.paste(message.read_text(encoding="utf-8"), "implementer-4")
        actions_done(qtbot, controller)
    finally:
        controller.window.context_pane.wait()
        controller.close()
    (cli_file,) = (by_cli / "messages" / "inbox").iterdir()
    (window_file,) = (by_window / "messages" / "inbox").iterdir()
    assert cli_file.read_bytes() == window_file.read_bytes()
    assert cli_file.read_bytes() == b"From: implementer-4\n[STATUS] Phase 6 | CONTEXT_RECEIVED | GC-v6\n"


def test_a_ledger_that_cannot_be_read_stops_a_second_carry_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ledger is the record of what was carried out: when it grew past what the app reads,
    "carried out already?" has no answer, and the guard refuses instead of taking the ledger for
    empty (which wrote a second re-send of the full GC). The file is made large sparsely."""
    folder = _session(tmp_path)
    listed = _listed(capsys, folder)["implementer-1"]
    assert run_cli(capsys, "inbox", str(folder), "--carry-out", str(listed["id"]))[0] == 0
    ledger = folder / "messages" / "ledger.jsonl"
    with open(ledger, "r+b") as fh:
        fh.truncate(33 * 1024 * 1024)  # past the 32 MB every read of the app is bounded by
    before = snapshot_tree(folder)
    code, out, err = run_cli(capsys, "inbox", str(folder), "--carry-out", str(listed["id"]), "--again")
    assert code == 1 and out == ""
    *warnings, refusal = err.splitlines()
    assert "messages/ledger.jsonl cannot be read" in refusal and "carried out already cannot be told" in refusal
    assert warnings == [line for line in warnings if "replies are read, not recorded" in line]  # the listing's
    assert snapshot_tree(folder) == before  # no second re-send, no plan edit, no ledger line


def test_a_ledger_that_cannot_be_read_stops_delivery(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Delivery finds an interrupted attempt by its ``delivering`` line before writing again:
    with a ledger it cannot read, it delivers nothing and says why in one line."""
    from claude_team_steps import make_team

    folder = _session(tmp_path)
    team = make_team(tmp_path / "claude")
    assert run_cli(capsys, "team", str(folder), "--team", str(team), "--json")[0] == 0
    ledger = folder / "messages" / "ledger.jsonl"
    ledger.write_text('{"direction": "sent", "to": "implementer-1", "file": "x.md"}\n', encoding="utf-8")
    with open(ledger, "r+b") as fh:
        fh.truncate(33 * 1024 * 1024)
    code, _, err = run_cli(capsys, "team", str(folder), "--deliver")
    assert code == 2 and "messages/ledger.jsonl cannot be read" in err and err.count("\n") == 1
    assert list((team / "inboxes").iterdir()) == []


def test_a_sender_with_a_path_in_it_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sender names the pasted file: "x/../../evil" would put it outside the session."""
    folder = _session(tmp_path)
    message = tmp_path / "reply.md"
    message.write_text("[STATUS] Phase 6 | IN_PROGRESS\n", encoding="utf-8")
    before = snapshot_tree(tmp_path)
    code, out, err = run_cli(capsys, "inbox", str(folder), "--add", str(message), "--from", "x/../../evil")
    assert code == 2 and out == ""
    assert (
        err == "lead-console: 'x/../../evil' is no role id a file can be named by (letters, digits, '.', '_' and '-')\n"
    )
    assert snapshot_tree(tmp_path) == before
