"""The delta, apply, plan and savings commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli.main import main
from conftest import DEMO

HISTORY = DEMO / "gc-history"


def test_delta_prints_the_message_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", str(HISTORY / "GC-v5.md"), str(HISTORY / "GC-v6.md")]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("[CONTEXT-UPDATE] GC-v5 → GC-v6\n\n## Delta\n")
    assert "- ADDED §Architecture Decisions: D-8: Refunds post" in out
    assert "tokens vs" in err and "for the full GC" in err


def test_delta_json_and_oneline(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["delta", str(HISTORY / "GC-v5.md"), str(HISTORY / "GC-v6.md"), "--json", "--tokenizer", "cl100k_base"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert (data["old_version"], data["new_version"], data["exact"]) == (5, 6, True)
    assert [(i["op"], i["ref"], i["key"]) for i in data["items"]] == [
        ("CHANGED", "Phase Pipeline Status", "Phase 6"),
        ("ADDED", "Architecture Decisions", "D-8"),
        ("REMOVED", "Open Questions", "Q-1"),
    ]
    assert set(data["items"][0]) == {"op", "ref", "key", "old", "new", "content", "position"}
    tokens = data["tokens"]
    assert tokens["tokenizer"] == "cl100k_base" and tokens["delta"] < tokens["full"] and tokens["savings_percent"] > 80
    assert main(["delta", str(HISTORY / "GC-v5.md"), str(HISTORY / "GC-v6.md"), "--oneline"]) == 0
    assert capsys.readouterr().out.startswith("[CONTEXT-UPDATE] GC-v5 → GC-v6 | Delta: CHANGED §Phase Pipeline Status")


def test_delta_with_no_change(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", str(DEMO / "global-context.md"), str(HISTORY / "GC-v6.md")]) == 0
    assert capsys.readouterr().out == "no change\n"


def test_delta_reports_missing_and_binary_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", str(tmp_path / "nope.md"), str(HISTORY / "GC-v6.md")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "bin.md").write_bytes(b"\x00\x01")
    assert main(["delta", str(tmp_path / "bin.md"), str(HISTORY / "GC-v6.md")]) == 2
    assert "binary" in capsys.readouterr().err


def test_apply_prints_or_writes_the_new_gc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = tmp_path / "delta.txt"
    assert main(["delta", str(HISTORY / "GC-v4.md"), str(HISTORY / "GC-v5.md")]) == 0
    message.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["apply", str(HISTORY / "GC-v4.md"), str(message)]) == 0
    assert capsys.readouterr().out == (HISTORY / "GC-v5.md").read_text(encoding="utf-8")
    target = tmp_path / "gc.md"
    target.write_bytes((HISTORY / "GC-v4.md").read_bytes())
    assert main(["apply", str(target), str(message), "-o", str(target)]) == 0
    assert target.read_bytes() == (HISTORY / "GC-v5.md").read_bytes()
    assert "wrote" in capsys.readouterr().err


def test_apply_fails_naming_the_item_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = tmp_path / "delta.txt"
    message.write_text(
        "[CONTEXT-UPDATE] GC-v6 → GC-v7\n\n## Delta\n- ADDED §Architecture Decisions: D-8: duplicate\n",
        encoding="utf-8",
    )
    target = tmp_path / "gc.md"
    target.write_bytes((DEMO / "global-context.md").read_bytes())
    before = target.read_bytes()
    assert main(["apply", str(target), str(message), "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert "ADDED §Architecture Decisions: D-8: the section already has D-8; nothing was written" in err
    assert target.read_bytes() == before
    message.write_text("[CONTEXT-UPDATE] GC-v6 → GC-v7\n\n## Delta\n- CHANGED §Scope: Goal\n", encoding="utf-8")
    assert main(["apply", str(target), str(message)]) == 1
    assert "line 4" in capsys.readouterr().err


def test_apply_from_stdin(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    text = "[CONTEXT-UPDATE] GC-v6 → GC-v7 | Delta: REMOVED §Open Questions: Q-2 | Impact: NONE"
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["apply", str(DEMO / "global-context.md"), "-"]) == 0
    out = capsys.readouterr().out
    assert "version: GC-v7" in out and "- Q-2:" not in out


def test_plan_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert "implementer-3  delta" in out and "FC-2: reported CONTEXT_LOST" in out and "% saved" in out
    assert main(["plan", str(DEMO), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    modes = {t["role"]: t["mode"] for t in data["teammates"]}
    assert modes["implementer-3"] == "delta" and modes["researcher-1"] == "inactive"
    assert set(data["team"]) == {
        "recipients",
        "sent_tokens",
        "sent_tokens_without_subscriptions",
        "all_full_tokens",
        "savings_percent",
    }


def test_plan_with_a_new_gc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = tmp_path / "next.md"
    new.write_text((DEMO / "global-context.md").read_text(encoding="utf-8").replace("GC-v6", "GC-v7"), encoding="utf-8")
    assert main(["plan", str(DEMO), "--new", str(new), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["current_version"] == 7
    modes = {t["role"]: t["mode"] for t in data["teammates"]}
    assert modes["implementer-1"] == "delta" and modes["implementer-3"] == "full"


def test_savings_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["savings"]) == 0
    out = capsys.readouterr().out
    assert "| 1 decision added" in out and "| With fallback (1/3)" in out and "12,800" in out
    assert main(["savings", str(DEMO), "--json", "--tokenizer", "estimate"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokenizer"] == "estimate" and len(data["per_update"]) == 5 and len(data["team_of_4"]) == 3
