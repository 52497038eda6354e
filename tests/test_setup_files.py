"""The README's set-up commands are the ones CI runs; the CLI's inspect job reads only."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import main
from conftest import CH006, COW, DEMO, ROOT, snapshot_tree


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", setup)


def test_readme_has_two_setup_commands_and_ci_runs_the_test_one() -> None:
    start, tests = _readme_commands()
    assert start.startswith("sh scripts/bootstrap.sh app") and "lead-console" in start
    assert tests.startswith("sh scripts/bootstrap.sh test") and "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == tests


@pytest.mark.parametrize("session", [COW, CH006, DEMO], ids=lambda p: p.name)
def test_inspect_json_has_the_documented_shape(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot_tree(session)
    assert main(["inspect", str(session), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"session", "gc", "teammates", "memory", "gates", "warnings"}
    assert set(data["gc"]) == {"version", "title", "tokens", "tokenizer", "sections"}
    first = data["gc"]["sections"][0]
    assert set(first) == {"title", "ref", "level", "tokens", "items", "children"}
    assert first["ref"] == "§Scope" and first["level"] == 2
    assert all(
        set(t) == {"role", "confirmed", "sent", "status", "state", "state_read_from", "receives_updates", "sources"}
        for t in data["teammates"]
    )
    assert set(data["memory"]) == {"lines", "sections"}
    assert all(set(g) == {"phase", "verdict", "date", "read_from"} for g in data["gates"])
    assert data["warnings"] == []
    assert snapshot_tree(session) == before


def test_inspect_summary_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["inspect", str(DEMO), "--tokenizer", "estimate"]) == 0
    out = capsys.readouterr().out
    assert "GC-v6" in out and "(estimate)" in out and "implementer-4" in out and "CONTEXT_LOST" in out
    assert main(["inspect", str(COW.parent)]) == 2
    assert "6 sessions here" in capsys.readouterr().err  # five with a GC or plan, one with phase outputs
    assert main(["inspect", str(COW.parent), "--session", "ch006-dia-v4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["session"] == "ch006-dia-v4"
    assert main(["inspect", str(tmp_path)]) == 2
    assert "no session here" in capsys.readouterr().err
    assert main(["inspect", str(tmp_path / "missing")]) == 2


def test_inspect_reports_broken_files_instead_of_failing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "global-context.md").write_bytes(b"---\nversion: [GC-v2\n---\n## A\n\xff\xfe")
    (tmp_path / "TEAM-MEMORY.md").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "orchestration-plan.md").write_text("---\ngc_version: GC-v2\n---\n", encoding="utf-8")
    assert main(["inspect", str(tmp_path), "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    text = "\n".join(warnings)
    assert "front matter is not valid YAML" in text
    assert "not valid UTF-8" in text
    assert "binary" in text


def test_python_dash_m_app_runs_the_same_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", "inspect", str(CH006), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["gc"]["version"] == 2


def test_demo_is_copied_to_a_writable_place_once(tmp_path: Path) -> None:
    from app.demo import bundled_session, demo_session

    first = demo_session(base=tmp_path)
    assert first.is_relative_to(tmp_path) and (first / "global-context.md").is_file()
    copied = snapshot_tree(first)
    link = json.loads(copied.pop(".lead-console/claude-team.json")[1])  # the demo team, linked in the copy
    assert copied == snapshot_tree(bundled_session())
    assert link["team"] == str(first.parents[2] / ".claude-demo" / "teams" / "payments-ledger")
    assert link["members"]["implementer-2"] == "implementer-2"
    (first / "TEAM-MEMORY.md").write_text("edited by the user\n", encoding="utf-8")
    assert demo_session(base=tmp_path) == first  # kept between runs
    assert (first / "TEAM-MEMORY.md").read_text(encoding="utf-8") == "edited by the user\n"
    fresh = demo_session(reset=True, base=tmp_path)
    assert (fresh / "TEAM-MEMORY.md").read_bytes() == (bundled_session() / "TEAM-MEMORY.md").read_bytes()
