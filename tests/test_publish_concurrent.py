"""Publishing the Lead's draft after agents wrote the GC meanwhile loses nothing of either.

The Lead edits sections in the composer while agents edit other sections on disk. Merging with
disk and publishing must write a GC that holds every line both added, bumped one version, with
its snapshot equal to it; before the merge, publishing is refused and writes nothing. The
expected lines are the ones the test itself put in.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from conftest import COW, DEMO
from models.actions.commit import commit
from models.actions.publish import prepare_publish
from models.delta.decisions import snapshot_path
from models.publish.composer import Composer
from models.session.folder import open_session
from models.session.gc_parse import front_version
from models.text.tokens import get_tokenizer
from models.text.transaction import WriteRefused


def _append_to(text: str, ref_title: str, line: str) -> str:
    """``line`` put in after the heading line of the ``## ref_title`` section."""
    heading = f"## {ref_title}\n"
    at = text.index(heading) + len(heading)
    return text[:at] + line + text[at:]


@pytest.mark.parametrize("source", [DEMO, COW], ids=lambda p: p.name)
def test_the_leads_and_the_agents_edits_are_both_published(tmp_path: Path, source: Path) -> None:
    folder = tmp_path / "project" / ".agent" / "teams" / source.name
    shutil.copytree(source, folder)
    gc_path = folder / "global-context.md"
    rng = random.Random(source.name)
    for round_ in range(3):
        session = open_session(folder, get_tokenizer("o200k_base"))
        assert session.gc is not None
        composer = Composer.open(session)
        titles = [s.title for s in session.gc.sections if f"## {s.title}\n" in session.gc.text]
        leads, agents = rng.sample(titles, 2)
        lead_line = f"- the Lead's line {round_} {rng.random():.6f}\n"
        agent_line = f"- an agent's line {round_} {rng.random():.6f}\n"
        section = composer.section_text(leads)
        assert section is not None
        composer.working_text = composer.with_section_text(leads, _append_to(section, leads, lead_line))
        gc_path.write_text(_append_to(gc_path.read_text(encoding="utf-8"), agents, agent_line), encoding="utf-8")
        session.reload(["gc"])
        before = gc_path.read_bytes()
        assert composer.disk_changed_under_edit
        with pytest.raises(WriteRefused, match=r"global-context\.md changed on disk since the preview"):
            commit(prepare_publish(composer, now="2026-11-24T03:00Z"))  # the agent's line is not in the draft
        assert gc_path.read_bytes() == before and not snapshot_path(folder, composer.new_version or 0).exists()
        assert composer.merge_with_disk() == []
        plan = prepare_publish(composer, now="2026-11-24T03:00Z")
        assert plan.refusals == (), plan.refusals
        version = plan.version
        commit(plan)
        published = gc_path.read_text(encoding="utf-8")
        assert gc_path.read_bytes() != before
        assert lead_line in published and agent_line in published
        assert front_version(published) == version
        assert snapshot_path(folder, version).read_text(encoding="utf-8") == published
