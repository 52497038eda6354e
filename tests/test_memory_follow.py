"""Issue 18: TEAM-MEMORY followed from the bytes that changed (models.session.memory_follow).

Every follow-up must equal a cold parse of the decoded file (the same sections, entries, line
numbers, problems and text); where the bytes cannot say, the follow gives None and the file is
read whole. The expected values come from a cold ``parse_memory`` of ``bytes.decode`` and
from the text itself (``len(text[:o].encode())`` for byte offsets, its lines for a section).
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from gc_facts import cold_caches, memory_facts
from pytestqt.qtbot import QtBot

import models.text.textfile as textfile
from app.controller import Controller
from conftest import DEMO, REAL_SESSIONS
from gc_edits import random_edit
from models.memory.loss import detect_loss, loss_between
from models.memory.settle import incomplete
from models.session.folder import open_session
from models.session.memory_follow import follow_bytes
from models.session.memory_parse import parse_memory
from models.session.team_memory import TeamMemory
from models.text.frontmatter import split_front_matter
from models.text.textfile import BOM, holds_bytes, is_blank, split_lines
from models.text.tokens import get_tokenizer

MEMORIES = sorted(p for p in [*REAL_SESSIONS.glob("*/TEAM-MEMORY.md"), DEMO / "TEAM-MEMORY.md"])
# Pieces an agent's write puts in, with characters of two and three bytes.
_WIDE = ("— 한국어 항목\n", "é", "- [Decision] 결정 — done\n")


def _decoded(raw: bytes) -> str:
    return raw.removeprefix(BOM).decode("utf-8")


def _facts(memory: TeamMemory) -> list[object]:
    """``memory_facts`` and what a follow-up from bytes must also get right, each checked
    against the text itself."""
    text = memory.text
    lines = split_lines(text)
    offsets = memory.offsets
    assert memory.utf8_offsets() == [len(text[:o].encode("utf-8")) for o in offsets]
    assert memory.preamble() == (text[: offsets[0]] if offsets else text)
    for k, s in enumerate(memory.sections):
        assert memory.section_text(k) == "".join(lines[s.line : s.end_line])
    return [*memory_facts(memory), text, offsets, memory.scan_clean, memory.text_length == len(text)]


def _follow(previous: TeamMemory, old: bytes, new: bytes) -> tuple[TeamMemory, bool]:
    """What the session does: the bytes first, else the decoded text (and whether the bytes
    answered)."""
    followed = follow_bytes(previous, old, new)
    if followed is not None:
        return followed, True
    return parse_memory(_decoded(new), previous=previous), False


@pytest.mark.parametrize("bom", [b"", BOM], ids=["plain", "bom"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("path", MEMORIES, ids=lambda p: p.parent.name)
def test_a_chain_of_writes_followed_from_bytes_equals_cold_parses(path: Path, newline: str, bom: bytes) -> None:
    """Sixty writes, each followed from the one before (a wrong offset kept by one step would
    show in a later one): entries put in at line starts and random edits, with characters of
    one to three bytes."""
    rng = random.Random(f"{path.parent.name}{newline}{bom!r}")
    text = path.read_text(encoding="utf-8").replace("\n", newline)
    raw = bom + text.encode("utf-8")
    previous = parse_memory(_decoded(raw))
    by_bytes = 0
    for _ in range(60):
        edited = _decoded(raw)
        if rng.random() < 0.5:  # an entry put in at a line start, as agents append
            at = rng.choice([0, *(n + 1 for n, c in enumerate(edited) if c == "\n")])
            edited = edited[:at] + "- [Finding] " + rng.choice(_WIDE).lstrip("- ") + edited[at:]
        else:
            edited = random_edit(edited, rng)
        if rng.random() < 0.3:
            at = rng.randrange(len(edited) + 1)
            edited = edited[:at] + rng.choice(_WIDE) + edited[at:]
        new = bom + edited.encode("utf-8")
        warm, quick = _follow(previous, raw, new)
        by_bytes += quick
        warm_facts = _facts(warm)
        cold_caches()
        assert warm_facts == _facts(parse_memory(_decoded(new))), edited[:80]
        previous, raw = warm, new
    assert by_bytes >= 15  # the bytes answered often enough for the chain to test them


@pytest.mark.parametrize("path", MEMORIES, ids=lambda p: p.parent.name)
def test_an_entry_appended_to_any_section_is_read_from_its_bytes(path: Path) -> None:
    """The usual write: an entry at the end of a section (just before the next heading). For
    every section of every real TEAM-MEMORY the bytes answer, and the other sections keep
    their very bodies."""
    raw = path.read_bytes()
    old = parse_memory(_decoded(raw))
    starts = [*old.utf8_offsets()[1:], len(raw)]
    for k, at in enumerate(starts):
        new = raw[:at] + "- [Finding] appended — by an agent\n".encode() + raw[at:]
        if at == len(raw) and not raw.endswith(b"\n"):
            new = raw + b"\n- [Finding] appended\n"
        warm = follow_bytes(old, raw, new)
        assert warm is not None, old.sections[k].header
        assert all(a.body is b.body for n, (a, b) in enumerate(zip(old.sections, warm.sections, strict=True)) if n != k)
        warm_facts = _facts(warm)
        cold_caches()
        assert warm_facts == _facts(parse_memory(_decoded(new))), old.sections[k].header


def _sample() -> bytes:
    return (
        "# TEAM-MEMORY — sample\n\n## Meta\n- GC Version: GC-v3\n\n## implementer-1\n"
        "- [Finding] first — one\n- [Pattern] second\n\n## implementer-2\n- [Decision] 결정\n"
    ).encode()


def _traps() -> list[tuple[str, bytes]]:
    """Writes the bytes must leave to a full read, each for one reason."""
    raw = _sample()
    one = raw.index(b"- [Pattern]")
    return [
        ("the title changed", raw.replace(b"sample", b"example")),
        ("a heading changed", raw.replace(b"## implementer-1\n", b"## implementer-1 [REPLACED]\n")),
        ("a heading put in a body", raw[:one] + b"## implementer-3\n" + raw[one:]),
        ("a fence left open", raw[:one] + b"```\n" + raw[one:]),
        ("a comment left open", raw[:one] + b"<!-- \n" + raw[one:]),
        ("bytes that are not UTF-8", raw[:one] + b"\xff\xfe" + raw[one:]),
        ("a NUL byte early on", raw[:one] + b"\x00" + raw[one:]),
        ("a byte order mark put in", BOM + raw),
        ("two sections changed", raw.replace(b"second", b"2nd").replace("결정".encode(), b"decided")),
        (
            "a section's last line end taken",
            raw.replace(b"second\n\n## implementer-2", b"second\n## implementer-2")[:-1],
        ),
    ]


@pytest.mark.parametrize(("name", "new"), _traps(), ids=[n for n, _ in _traps()])
def test_writes_the_bytes_cannot_read_are_read_whole(name: str, new: bytes) -> None:
    raw = _sample()
    assert follow_bytes(parse_memory(_decoded(raw)), raw, new) is None, name


def test_the_trap_writes_are_the_kind_a_follow_up_takes_otherwise() -> None:
    """The traps differ from the sample in one place each (the two-sections one in two): a
    follow-up that ignored a condition would read them, so each None above is that condition's."""
    raw = _sample()
    for name, new in _traps():
        assert new != raw, name
    appended = raw + "- [Finding] 세 번째\n".encode()
    followed = follow_bytes(parse_memory(_decoded(raw)), raw, appended)
    assert followed is not None and followed.text == _decoded(appended)


def test_a_follow_up_says_which_section_it_changed_and_which_tags_are_on_offer() -> None:
    """The view updates one row and the tag filter works out its list from the last one
    (``TeamMemory.follow_up``, ``unknown_tags``): each step's section, the lines the rest moved and
    the tags outside ADR-001's list, as read off the text by hand. Taking a tag's last entry
    away must take the tag off the list."""
    raw = (
        "# TEAM-MEMORY — tags\n\n## Meta\n- GC Version: GC-v3\n\n## implementer-1\n"
        "- [Gotcha] the retry doubles — twice\n- [Finding] one\n\n## implementer-2\n- [Decision] 결정\n"
    ).encode()
    previous = parse_memory(_decoded(raw))
    assert previous.follow_up is None and previous.unknown_tags() == {"Gotcha"}
    steps = [  # (write, section changed, lines moved, tags outside the list after it)
        (raw + "- [Oddity] 이상한 것\n- [Oddity] again\n".encode(), 2, 2, {"Gotcha", "Oddity"}),
        (None, 1, -1, {"Oddity"}),  # the [Gotcha] line taken out
        (None, 2, 0, {"Oddity"}),  # one [Oddity] of two made a [Finding]
        (None, 2, 0, set()),  # and the other
    ]
    for step, (write, index, lines, tags) in enumerate(steps):
        if step == 1:
            write = raw.replace("- [Gotcha] the retry doubles — twice\n".encode(), b"")
        elif step == 2:
            write = raw.replace("[Oddity] 이상한".encode(), "[Finding] 이상한".encode())
        elif step == 3:
            write = raw.replace(b"[Oddity] again", b"[Finding] again")
        assert write is not None
        followed = follow_bytes(previous, raw, write)
        assert followed is not None and followed.follow_up is not None, step
        assert (followed.follow_up.previous() is previous, followed.follow_up.index, followed.follow_up.lines) == (
            True,
            index,
            lines,
        )
        assert followed.unknown_tags() == tags == parse_memory(_decoded(write)).unknown_tags(), step
        previous, raw = followed, write


def test_the_text_of_a_version_followed_from_bytes_is_decoded_only_when_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The point of the path: neither the follow-up nor the loss check decodes the file whole."""
    raw = _sample()
    old = parse_memory(_decoded(raw))
    new = raw.replace(b"second\n", b"second\n- [Warning] third \xe2\x80\x94 new\n")

    def refuse(self: object) -> str:
        raise AssertionError("decoded whole")

    monkeypatch.setattr(textfile.Undecoded, "decoded", refuse)
    followed = follow_bytes(old, raw, new)
    assert followed is not None
    assert [e.text for e in followed.sections[1].entries] == ["first — one", "second", "third — new"]
    assert incomplete(followed, None) is None
    assert loss_between(old, followed).any is False
    assert loss_between(followed, old).lost_entries == {"implementer-1": ["- [Warning] third — new\n"]}
    monkeypatch.undo()
    assert followed.text == _decoded(new)


def test_a_section_removed_is_kept_whole_in_the_loss_from_a_version_read_as_bytes() -> None:
    raw = _sample()
    followed = follow_bytes(parse_memory(_decoded(raw)), raw, raw.replace(b"second", b"2nd"))
    assert followed is not None
    cut = raw.index(b"## implementer-2")
    loss = loss_between(followed, parse_memory(_decoded(raw[:cut])))
    assert loss.removed_sections == {"implementer-2": "## implementer-2\n- [Decision] 결정\n"}
    assert loss == detect_loss(followed.text, _decoded(raw[:cut]))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "  \n\n",
        "---\nowner: lead\n---\n# TEAM-MEMORY\n## implementer-1\n- a\n",
        "---\n## a comment in the front matter\nowner: lead\n---\n## implementer-1\n- a\n",
        "---\nowner: lead\n## implementer-1\n- a\n",
        "# TEAM-MEMORY\n---\n## implementer-1\n- a\n",
    ],
    ids=["empty", "blank", "front-matter", "front-matter-past-a-heading", "front-matter-open", "rule-after-title"],
)
def test_a_half_written_file_is_named_as_from_its_whole_text(text: str) -> None:
    """``incomplete`` reads only the text before the first section unless front matter opens
    there; the reasons are those the whole text gives."""
    front, problems = split_front_matter(text, "TEAM-MEMORY.md")
    memory = parse_memory(text)
    expected = (
        "it is empty"
        if is_blank(text)
        else "its front matter does not close"
        if front.present and problems
        else "it has no heading"
        if not memory.sections and memory.title is None
        else None
    )
    assert incomplete(memory, None) == expected


def test_a_session_follows_its_memory_from_bytes_and_keeps_them_paired(tmp_path: Path) -> None:
    folder = tmp_path / "session"
    shutil.copytree(DEMO, folder)
    path = folder / "TEAM-MEMORY.md"
    session = open_session(folder, get_tokenizer("o200k_base"))
    assert session.memory_bytes == path.read_bytes()
    new = path.read_bytes().replace(b"## implementer-1\n", "## implementer-1\n- [Finding] 새 항목\n".encode(), 1)
    assert new != path.read_bytes()
    path.write_bytes(new)
    assert session.reload(["memory"]) == {"memory"}
    assert session.memory is not None and session.memory_bytes == new
    assert session.memory.byte_offsets is not None  # read from the bytes, not decoded whole
    cold_caches()
    assert _facts(session.memory) == _facts(parse_memory(_decoded(new)))
    path.write_bytes(new)  # the same bytes again (a touch): nothing to show
    assert session.reload(["memory"]) == set()
    path.write_bytes(new.replace(b"\n", b"\xff\n", 1))  # broken: the last good version stays
    assert session.reload(["memory"]) == {"memory"}
    assert session.memory_bytes is None and "not valid UTF-8" in str(session.problems["memory"])
    path.write_bytes(new)
    assert session.reload(["memory"]) == {"memory"}
    assert session.memory_bytes == new and session.problems["memory"] == []


def test_a_followed_memory_that_becomes_a_folder_or_a_fifo_keeps_the_last_version(tmp_path: Path) -> None:
    """After a follow-up from bytes, TEAM-MEMORY.md replaced by a folder or a FIFO is named in
    one line and the version shown stays, with its bytes; the file back with one more entry is
    followed from those bytes again. A dangling link is an absent file, as on a full read."""
    folder = tmp_path / "session"
    shutil.copytree(DEMO, folder)
    path = folder / "TEAM-MEMORY.md"
    session = open_session(folder, get_tokenizer("o200k_base"))
    first = path.read_bytes().replace(b"## implementer-1\n", b"## implementer-1\n- [Finding] one\n", 1)
    path.write_bytes(first)
    assert session.reload(["memory"]) == {"memory"} and session.memory_bytes == first
    shown = session.memory
    for make, said in (
        (lambda: path.mkdir(), "cannot be read: is a folder, not a file"),
        (lambda: os.mkfifo(path), "cannot be read: not a regular file (a FIFO); not read"),
    ):
        path.unlink()
        make()
        assert session.reload(["memory"]) == {"memory"}
        assert [p.message for p in session.problems["memory"]] == [said]
        assert session.memory is shown and session.memory_bytes == first
        path.rmdir() if path.is_dir() else path.unlink()
        path.write_bytes(first)
        assert session.reload(["memory"]) == {"memory"} and session.memory is shown
        assert session.problems["memory"] == []  # the same bytes again: the read error is gone
    second = first.replace(b"- [Finding] one\n", b"- [Finding] one\n- [Finding] two\n")
    path.write_bytes(second)
    assert session.reload(["memory"]) == {"memory"}
    assert session.memory is not None and session.memory.follow_up is not None
    section = next(s for s in session.memory.sections if s.header == "implementer-1")
    assert [e.text for e in section.entries][:2] == ["one", "two"]
    cold_caches()
    assert _facts(session.memory) == _facts(parse_memory(_decoded(second)))
    path.unlink()
    path.symlink_to(tmp_path / "nowhere")
    assert session.reload(["memory"]) == {"memory"} and session.memory is None
    assert session.problems["memory"] == [] and session.memory_bytes is None


def test_holds_bytes_compares_the_file_piece_by_piece(tmp_path: Path) -> None:
    path = tmp_path / "f"
    raw = bytes(range(256)) * 9000  # pieces of 1 MB and a rest
    path.write_bytes(raw)
    assert holds_bytes(path, raw)
    assert holds_bytes(path, raw, piece=7)
    for other in (raw[:-1], raw + b"x", raw[:1_500_000] + b"x" + raw[1_500_001:], b""):
        assert not holds_bytes(path, other)
        assert not holds_bytes(path, other, piece=4096)
    assert not holds_bytes(tmp_path, b"")  # a folder holds no bytes


def test_the_window_follows_an_append_and_reports_a_stale_write_without_decoding_whole(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real window: an agent's append shows in the TEAM-MEMORY tree, and the stale
    write that drops it again is reported as a loss; no step decodes the file whole."""
    from models.memory.loss import Loss

    window = controller.window
    window.show()  # as the Lead has it: a pane not on screen (Context) leaves its work for later
    qtbot.waitExposed(window)
    actions = window.memory_pane.memory_actions
    qtbot.waitUntil(lambda: not actions.looking, timeout=5000)  # the journal's first look is done
    decoded: list[int] = []
    real = textfile.Undecoded.decoded

    def counted(self: textfile.Undecoded) -> str:
        decoded.append(len(self.raw))
        return real(self)

    monkeypatch.setattr(textfile.Undecoded, "decoded", counted)
    path = demo_copy / "TEAM-MEMORY.md"
    before = path.read_bytes()
    entry = "- [Finding] 결정 — appended by an agent\n"
    appended = before.replace(b"## implementer-1\n", b"## implementer-1\n" + entry.encode(), 1)
    with qtbot.waitSignal(window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        path.write_bytes(appended)
    model = window.memory_pane.memory_model
    shown = [model.index(r, 0).data() for r in range(model.rowCount())]
    row = next(r for r, text in enumerate(shown) if text.startswith("implementer-1"))
    window.memory_pane.memory_view.expand(model.index(row, 0))
    section = model.index(row, 0)
    assert model.index(0, 0, section).data() == "결정 — appended by an agent"
    qtbot.waitUntil(lambda: actions._pending is None, timeout=5000)  # judged: nothing lost
    losses: list[Loss] = []
    actions.lossFound.connect(losses.append)
    with qtbot.waitSignal(window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        path.write_bytes(before)  # a stale copy written back: the entry is gone
    qtbot.waitUntil(lambda: bool(losses), timeout=5000)
    assert losses[-1].lost_entries == {"implementer-1": [entry.replace("\n", "") + "\n"]}
    assert decoded == []
