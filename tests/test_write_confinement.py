"""No write of ours lands outside the session folder, whatever names agents write or whatever
a folder of the session links to (found by a held-back harness: a ``From:`` line such as
``x/../../<somewhere>/evil`` made Carry out write the full GC there; a role key of that shape
in the plan made publish create a file outside; a linked ledger got JSON lines appended)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import DEMO, run_cli


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _session(tmp_path: Path) -> Path:
    """The demo with a line added to its GC: an update to publish."""
    folder = tmp_path / "project" / "payments-ledger-v2"
    shutil.copytree(DEMO, folder)
    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8") + "\n- Confinement: a line the Lead added\n", encoding="utf-8")
    return folder


def test_a_sender_with_a_path_is_not_carried_out_into_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    folder = _session(tmp_path)
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "reply.md").write_text(
        "From: x/../../../../../outside/evil\n"
        "[ACK-UPDATE] GC-v6 received. Items: 0/2. Impact: unclear. Action: NEED_CLARIFICATION\n",
        encoding="utf-8",
    )
    code, out, _ = run_cli(capsys, "inbox", str(folder), "--json")
    assert code == 0
    (listed,) = json.loads(out)["messages"]
    before = _tree(tmp_path)
    code, out, err = run_cli(capsys, "inbox", str(folder), "--carry-out", str(listed["id"]))
    assert code == 1 and out == ""
    assert "the sender 'x/../../../../../outside/evil' is no role id a file can be named by" in err
    after = _tree(tmp_path)
    assert {k: v for k, v in after.items() if "ledger" not in k} == {
        k: v for k, v in before.items() if "ledger" not in k
    }
    assert not (tmp_path / "outside").exists()


def test_a_role_key_with_a_path_in_the_plan_blocks_publishing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _session(tmp_path)
    plan = folder / "orchestration-plan.md"
    text = plan.read_text(encoding="utf-8")
    assert "teammate_gc_versions:\n" in text
    plan.write_text(
        text.replace("teammate_gc_versions:\n", "teammate_gc_versions:\n  x/../../../evil: 6\n", 1), encoding="utf-8"
    )
    before = _tree(tmp_path)
    code, out, _ = run_cli(capsys, "publish", str(folder))
    assert code == 1
    assert "'x/../../../evil' is no role id a file can be named by" in out
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("linked", ["messages/ledger.jsonl", "messages/outbox"])
def test_a_linked_file_or_folder_takes_no_write_out_of_the_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: str
) -> None:
    folder = _session(tmp_path)
    outside = tmp_path / "elsewhere"
    target = outside / "ledger.jsonl" if linked.endswith(".jsonl") else outside / "outbox"
    if linked.endswith(".jsonl"):
        outside.mkdir()
        target.write_text('{"someone": "else"}\n', encoding="utf-8")
    else:
        target.mkdir(parents=True)
    (folder / "messages").mkdir()
    (folder / linked).symlink_to(target)
    before = _tree(tmp_path)
    code, out, _ = run_cli(capsys, "publish", str(folder))
    assert code == 1
    assert f"{linked}" in out and "is outside the session folder" in out
    assert _tree(tmp_path) == before  # the session as it was, the outside untouched
