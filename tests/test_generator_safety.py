"""Issue 15.5: a trusted generator cannot be steered by the workspace's name, and trust covers
the workspace and the scripts the commands run, not only context.yaml."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from models.context.compose import compose, load_manifest
from models.context.generators import UnsafeCommand, expand_command
from models.text.tokens import EstimateTokenizer

TOK = EstimateTokenizer()
EVIL = "ws;touch INJECTED;#"


def _agent(tmp_path: Path, command: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    home.mkdir()
    cwd = tmp_path / EVIL
    cwd.mkdir()
    (home / "context.yaml").write_text(
        "sources:\n  - type: computed_file\n    id: gen\n"
        f"    generator:\n      command: {command}\n      timeout_ms: 20000\n"
        '    output_path: "${CWD}/out.md"\n',
        encoding="utf-8",
    )
    return home, cwd


def test_a_workspace_name_cannot_inject_into_a_shell_script(tmp_path: Path) -> None:
    home, cwd = _agent(tmp_path, '["sh", "-c", "echo made > ${CWD}/out.md"]')
    composed = compose(home, cwd, TOK, lambda m: True)
    (block,) = composed.blocks
    assert block.status == "ok", block.reason
    assert (cwd / "out.md").read_text(encoding="utf-8") == "made\n"
    assert list(tmp_path.rglob("INJECTED")) == []  # the generator ran in cwd; `touch` would have made it there


def test_code_for_other_interpreters_refuses_an_unusual_path(tmp_path: Path) -> None:
    home, cwd = _agent(tmp_path, f"[\"{sys.executable}\", \"-c\", \"open('${{CWD}}/out.md', 'w').write('x')\"]")
    composed = compose(home, cwd, TOK, lambda m: True)
    (block,) = composed.blocks
    assert block.status == "refused"
    assert "would change the code given to" in (block.reason or "")
    assert not (cwd / "out.md").exists()


def test_plain_arguments_take_any_path_as_one_argument(tmp_path: Path) -> None:
    argv = expand_command(["cat", "${CWD}/notes.md", "--root=${AGENT_HOME}"], Path("/h o"), Path(f"/w/{EVIL}"))
    assert argv == ["cat", f"/w/{EVIL}/notes.md", "--root=/h o"]
    assert expand_command(["sh", "-c", "ls ${CWD}"], Path("/h"), Path(f"/w/{EVIL}")) == [
        "sh",
        "-c",
        "ls '/w/ws;touch INJECTED;#'",
    ]
    with pytest.raises(UnsafeCommand):
        expand_command(["node", "-e", "require('${CWD}/x')"], Path("/h"), Path("/w/a'b"))


def test_trust_covers_the_workspace_and_the_scripts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "tools").mkdir(parents=True)
    script = home / "tools" / "gen.py"
    script.write_text("print('v1')\n", encoding="utf-8")
    (home / "context.yaml").write_text(
        "sources:\n  - type: computed_file\n    id: gen\n"
        f'    generator:\n      command: ["{sys.executable}", "${{AGENT_HOME}}/tools/gen.py"]\n'
        '    output_path: "${CWD}/out.md"\n',
        encoding="utf-8",
    )
    one, two = tmp_path / "ws1", tmp_path / "ws2"
    one.mkdir()
    two.mkdir()
    manifest = load_manifest(home)
    key = manifest.key_for(home, one)
    assert key is not None
    assert manifest.key_for(home, two) != key  # another workspace
    script.write_text("print('v2: something else')\n", encoding="utf-8")
    assert load_manifest(home).key_for(home, one) != key  # the script changed
    script.write_text("print('v1')\n", encoding="utf-8")
    assert load_manifest(home).key_for(home, one) == key  # the same tuple, the same trust
    trusted = {key}
    ran = compose(home, one, TOK, lambda m: m.trust_key in trusted)
    assert ran.blocks[0].status != "refused"
    script.write_text("import os; os.system('touch PWNED')\n", encoding="utf-8")
    refused = compose(home, one, TOK, lambda m: m.trust_key in trusted)
    assert refused.blocks[0].status == "refused"
    assert not (one / "PWNED").exists()
