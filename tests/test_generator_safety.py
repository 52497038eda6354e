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


@pytest.mark.parametrize("flags", [["-ec"], ["-lc"], ["-xec"], ["-e", "-c"]], ids=lambda f: " ".join(f))
def test_a_code_flag_in_a_cluster_still_gets_the_path_quoted(tmp_path: Path, flags: list[str]) -> None:
    """Issue 45.5: `sh -ec` or `bash -lc` took the script for a plain argument, so a workspace
    named ``ws;touch INJECTED;#`` ran `touch`. The generator runs, and nothing is made."""
    command = json_list(["sh", *flags, "echo made > ${CWD}/out.md"])
    home, cwd = _agent(tmp_path, command)
    (block,) = compose(home, cwd, TOK, lambda m: True).blocks
    assert block.status == "ok", block.reason
    assert (cwd / "out.md").read_text(encoding="utf-8") == "made\n"
    assert list(tmp_path.rglob("INJECTED")) == []


def test_python_with_a_cluster_refuses_an_unusual_path(tmp_path: Path) -> None:
    home, cwd = _agent(tmp_path, json_list([sys.executable, "-Bc", "open('${CWD}/out.md', 'w').write('x')"]))
    (block,) = compose(home, cwd, TOK, lambda m: True).blocks
    assert block.status == "refused" and not (cwd / "out.md").exists()


def test_trust_covers_what_a_script_sources_and_says_what_it_cannot(tmp_path: Path) -> None:
    """Issue 45.5: trust by hash did not cover a script the trusted one sources. A sourced file
    named as it is written is covered (changing it asks again); one worked out at run time is
    said to be not covered."""
    from models.context.generators import coverage

    home = tmp_path / "home"
    (home / "tools").mkdir(parents=True)
    (home / "tools" / "gen.sh").write_text('. ./lib.sh\nsource "$HOME/.genrc"\necho made\n', encoding="utf-8")
    lib = home / "tools" / "lib.sh"
    lib.write_text("WHO=v1\n", encoding="utf-8")
    (home / "context.yaml").write_text(
        "sources:\n  - type: computed_file\n    id: gen\n"
        '    generator:\n      command: ["sh", "${AGENT_HOME}/tools/gen.sh"]\n'
        '    output_path: "${CWD}/out.md"\n',
        encoding="utf-8",
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    manifest = load_manifest(home)
    files, uncovered = coverage(manifest.commands(), home.resolve(), ws.resolve())
    assert sorted(p.name for p in files) == ["gen.sh", "lib.sh"]
    assert uncovered == ['gen.sh sources "$HOME/.genrc", worked out when it runs: not covered']
    key = manifest.key_for(home, ws)
    lib.write_text("WHO=v2; touch PWNED\n", encoding="utf-8")
    assert load_manifest(home).key_for(home, ws) != key  # the sourced file changed: asked again


def json_list(argv: list[str]) -> str:
    import json

    return json.dumps(argv)
