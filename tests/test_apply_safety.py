"""Issue 15.3: ``apply`` never writes a corrupted GC. Each message below is one the reliability
pass found applied with exit 0; each must now be refused with the GC left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.main import main
from conftest import COW

GC = (COW / "global-context.md").read_text(encoding="utf-8")


def _apply(tmp_path: Path, message: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    gc = tmp_path / "global-context.md"
    gc.write_text(GC, encoding="utf-8")
    msg = tmp_path / "update.md"
    msg.write_text(message, encoding="utf-8")
    code = main(["apply", str(gc), str(msg), "-o", str(gc)])
    err = capsys.readouterr().err
    assert gc.read_text(encoding="utf-8") == GC  # nothing written, whatever the outcome says
    return code, err


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (  # a REPLACED body without a final blank line glued the next heading onto its last line
            "[CONTEXT-UPDATE] GC-v6 → GC-v7\n## Delta\n- REPLACED §Scope: (full section content below)\n  new scope text\n",
            "changes or removes §Phase Pipeline Status",
        ),
        (  # the front matter never closed: the GC lost version, title and sections
            "[CONTEXT-UPDATE] GC-v6 → GC-v7\n## Delta\n- REPLACED §(front matter): (full section content below)\n"
            "  version: GC-v6\n  created: 2026-11-20\n",
            "front matter would no longer parse",
        ),
        (  # an item's value that carries a heading creates a section no item names
            "[CONTEXT-UPDATE] GC-v6 → GC-v7\n## Delta\n- ADDED §Scope: Risk: low\n\n  ## Injected Section\n  - owned: yes\n",
            "adds §Injected Section",
        ),
        (  # a CHANGED and a REMOVED of the same item cannot both be meant
            "[CONTEXT-UPDATE] GC-v6 → GC-v7\n## Delta\n- REMOVED §Phase Pipeline Status: Phase 6\n"
            "- CHANGED §Phase Pipeline Status: Phase 6: IN_PROGRESS → COMPLETE\n",
            "contradicts REMOVED §Phase Pipeline Status: Phase 6",
        ),
        (  # a one-line message without a Delta part is no update
            "[CONTEXT-UPDATE] GC-v6 → GC-v7 | Impact: NONE\n",
            "no delta items",
        ),
    ],
    ids=["glued-heading", "open-front-matter", "injected-section", "changed-and-removed", "no-delta"],
)
def test_a_message_that_would_corrupt_the_gc_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], message: str, reason: str
) -> None:
    code, err = _apply(tmp_path, message, capsys)
    assert code == 1
    assert reason in err
    assert err.count("\n") == 1  # one line, no traceback


def test_the_same_items_written_correctly_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gc = tmp_path / "global-context.md"
    gc.write_text(GC, encoding="utf-8")
    msg = tmp_path / "update.md"
    msg.write_text(
        "[CONTEXT-UPDATE] GC-v6 → GC-v7\n## Delta\n- REPLACED §Scope: (full section content below)\n"
        "  new scope text\n  \n",
        encoding="utf-8",
    )
    assert main(["apply", str(gc), str(msg), "-o", str(gc)]) == 0
    text = gc.read_text(encoding="utf-8")
    assert "## Scope\nnew scope text\n## Phase Pipeline Status\n" in text
    assert text.startswith("---\nversion: GC-v7\n")
