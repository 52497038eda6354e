"""GSD selective loading on the three real projects in ../shared/gsd-projects (issue 14).

Every expectation below was read off the files by a person, at the commits SOURCES.txt names:
line ranges of each phase block, goal line, success criteria, the Current Position body, the
decision lines tagged for each phase, the v1 section, and each plan's requirement ids. The test
builds the expected text from those line numbers and compares it with what each of the six
agent types is given, for every phase each roadmap mentions and every plan.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.cli.main import main
from conftest import SHARED
from models.context.gsd import AGENT_TYPES, MATRIX, selective_context
from models.text.tokens import get_tokenizer
from ui.panes.planning_pane import PlanningPane

GSD = SHARED / "gsd-projects"
HYDRA, VIDEO, TODO = "001TMF+HYDRA", "0xmaxbu+video-script", "1110sillabo+todo_gsd"
EST = get_tokenizer("estimate")

# ROADMAP.md: phase → (first line, last line) of its block; None where the roadmap names the
# phase only in a table (video-script's phase 13).
BLOCKS: dict[str, dict[int, tuple[int, int] | None]] = {
    HYDRA: {1: (23, 43), 2: (45, 63), 3: (65, 83), 4: (85, 105), 5: (107, 126), 6: (141, 151)},
    VIDEO: {
        1: (24, 42),
        2: (44, 63),
        3: (65, 82),
        4: (84, 94),
        5: (96, 106),
        6: (214, 226),
        7: (228, 239),
        8: (241, 253),
        9: (255, 269),
        10: (271, 284),
        11: (286, 303),
        12: (305, 320),
        13: None,
        14: (141, 162),
        15: (164, 177),
        16: (179, 198),
        17: (200, 210),
        18: (325, 342),
    },
    TODO: {1: (2, 7), 2: (8, 13), 3: (14, 14), 4: (15, 15), 5: (16, 16)},
}
GOALS = {
    HYDRA: {1: 24, 2: 46, 3: 66, 4: 86, 5: 108, 6: 143},
    VIDEO: {1: 26, 2: 46, 3: 67, 4: 86, 5: 98, 6: 216, 7: 230, 8: 243, 9: 257, 10: 273, 11: 288, 12: 307,
            14: 143, 15: 166, 16: 181, 17: 202, 18: 327},
    TODO: {1: 3, 2: 9},
}  # fmt: skip
CRITERIA = {
    HYDRA: {1: (27, 32), 2: (49, 54), 3: (69, 74), 4: (90, 96), 5: (111, 116)},
    VIDEO: {1: (29, 34), 2: (49, 54), 3: (70, 75), 4: (89, 93), 5: (101, 105), 14: (146, 153), 15: (169, 176),
            16: (184, 189), 17: (205, 209), 18: (330, 334)},
    TODO: {},
}  # fmt: skip
# STATE.md: the Current Position body, the [Roadmap] decisions, and each phase's tagged decisions
# ([01-02], [Phase 01]: [01-02], [Phase phase-2], [Phase 04-transitions], [Phase 16-03] ...), in
# its Decisions section: HYDRA's lines 175-176, tagged [Phase 1] under "### Blockers/Concerns",
# are concerns, not decisions.
POSITION = {HYDRA: (12, 17), VIDEO: (26, 27), TODO: None}
ROADMAP_DECISIONS = {HYDRA: [65, 66], VIDEO: [], TODO: []}
DECISIONS: dict[str, dict[int, list[int]]] = {
    HYDRA: {
        1: list(range(67, 84)), 2: list(range(84, 99)), 3: list(range(99, 117)),
        4: list(range(117, 134)), 5: list(range(134, 153)), 6: list(range(153, 164)),
    },
    VIDEO: {
        2: list(range(89, 95)), 3: list(range(95, 103)), 4: list(range(103, 110)), 5: [110, 111, 112],
        6: list(range(113, 119)), 7: [119, 120, 121], 9: [123, 124, 125], 14: [126],
        16: list(range(127, 135)), 17: list(range(135, 139)), 18: [139, 140],
    },
    TODO: {},
}  # fmt: skip
V1 = {HYDRA: (6, 89), VIDEO: (6, 41), TODO: None}  # "## v1 Requirements" up to v2 / v1.2
# REQUIREMENTS.md: the header lines of each traceability table, by the first row they cover.
TABLE_HEADERS = {HYDRA: [(144, (142, 143))], VIDEO: [(105, (103, 104)), (127, (125, 126))], TODO: []}
# Each plan's requirement ids (front matter, also where it is not valid YAML; else its body's
# Requirements section); () for `requirements: []` and plans that list none.
PLAN_IDS: dict[str, dict[str, tuple[str, ...]]] = {
    HYDRA: {
        "01-01": ("DATA-04", "DATA-05"), "01-02": ("DATA-01", "DATA-02", "DATA-03"), "01-03": ("OPTS-03",),
        "01-04": ("OPTS-01", "OPTS-02", "OPTS-05"), "01-05": ("OPTS-04", "OPTS-05"), "01-06": ("DATA-06",),
        "02-01": ("SGNL-01",), "02-02": ("MODL-03", "MODL-04", "MODL-05"), "02-03": ("SGNL-02", "SGNL-03"),
        "02-04": ("MODL-01",), "02-05": ("MODL-02",), "03-02": ("SBOX-02",), "03-03": ("SBOX-03", "SBOX-06"),
        "03-04": ("SBOX-04",), "03-05": ("SBOX-05",),
        "03-06": ("CLI-01", "CLI-02", "CLI-03", "CLI-04", "CLI-05", "CLI-06"),
        "04-01": ("AGNT-05", "AGNT-10"), "04-02": ("AGNT-06", "AGNT-07", "AGNT-08"), "04-03": ("AGNT-02", "AGNT-03"),
        "04-04": ("AGNT-04", "AGNT-09"), "04-05": ("AGNT-01",), "04-06": ("AGNT-18",),
        "05-01": ("EXEC-01", "EXEC-04"), "05-02": ("EXEC-03",), "05-03": ("EXEC-02",),
        "05-04": ("EXEC-01", "EXEC-05"), "05-05": ("EXEC-01", "EXEC-05"), "05-PAPER_TRADING": (),
        "06-01": (), "06-02": (), "06-03": (), "06-04": (),
    },
    VIDEO: {
        **{f"01-0{n}": ("VIS-01", "VIS-02", "VIS-03") for n in range(1, 5)},
        "02-01": ("VIS-04", "VIS-06", "VIS-07"), **{f"02-0{n}": ("VIS-05",) for n in range(2, 6)},
        "03-01": ("RES-01", "RES-02"), "03-02": ("RES-01",), "03-03": ("RES-03", "SCR-01", "SCR-02"),
        "04-01": ("VIS-08", "VIS-10"), "04-02": ("VIS-09", "VIS-10"),
        "05-01": ("COMP-02",), "05-02": ("COMP-01", "COMP-02"), "05-03": ("COMP-01", "COMP-02"),
        **{f"06-0{n}": ("VIS-01", "VIS-02", "VIS-03", "RES-01", "RES-03", "SCR-01", "SCR-02", "COMP-01")
           for n in range(1, 4)},
        "07-01": ("VIS-04", "VIS-05", "VIS-06", "VIS-07"), "07-02": ("VIS-04", "VIS-05", "VIS-06", "VIS-07"),
        "08-01": (), "08-02": (), "08-03": (),
        "09-01": ("VIS-01", "VIS-02", "VIS-03", "SCR-01", "SCR-02", "RES-01", "RES-03"),
        "09-02": ("VIS-01", "VIS-02", "VIS-03", "SCR-01", "SCR-02", "RES-01", "RES-03"),
        "10-01": ("VIS-04", "VIS-05", "VIS-06", "VIS-07"), "11-01": (), "11-02": (), "11-03": (),
        "12-01": ("VIS-04", "VIS-05"), "12-02": ("VIS-06", "VIS-07"), "13-01": (), "13-02": (), "13-03": (),
        "14-01": ("ANIM-01", "ANIM-02"), "14-02": ("ANIM-01", "ANIM-03", "ANIM-04", "ANIM-05"),
        "14-03": ("ANIM-06", "ANIM-01"), "14-GAP-01": (), "14-GAP-03": (), "14-GAP-04": (), "14-GAP-05": (),
        "14-GAP-06": ("ANIM-01", "ANIM-03", "ANIM-04", "ANIM-05", "ANIM-06"),
        "16-01": ("VIS-11",), "16-02": ("VIS-12",), "16-03": ("VIS-13",), "16-04": ("VIS-14",),
        "16-05": ("ARCH-01",), "18-01": ("UAT-01", "UAT-02", "UAT-03"), "18-02": ("UAT-01",),
        "18-03": ("UAT-02", "UAT-03"),
    },
    TODO: {
        "01-01": ("PERSIST-01", "MODEL-01"), "01-02": ("PERSIST-02",),
        "02-01": ("TASKBOX-UI-01", "TASKBOX-UI-02"), "02-02": ("TASKBOX-UI-03", "TASKBOX-UI-04"),
        "02-": ("R01", "R02", "R03", "R04"),  # 02-taskbox/PLAN.md: "### REQUIREMENTS" with [R01] ...
    },
}  # fmt: skip


def _lines(project: str, name: str) -> list[str]:
    return (GSD / project / ".planning" / name).read_text(encoding="utf-8").splitlines()


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def _span(lines: list[str], first: int, last: int) -> list[str]:
    return lines[first - 1 : last]


def _plans(project: str) -> dict[str, Path]:
    """Plan key (``01-02``, ``14-GAP-06``, ``05-PAPER_TRADING``) → path."""
    out = {}
    for path in sorted((GSD / project / ".planning" / "phases").rglob("*PLAN*.md")):
        stem = path.stem.removesuffix("-PLAN").removesuffix("_PLAN")
        key = stem if stem[:2].isdigit() else f"{path.parent.name[:2]}-{stem}"
        out[key.removesuffix("PLAN")] = path
    return out


def expected_section(project: str, phase: int) -> str | None:
    span = BLOCKS[project][phase]
    return _text(_span(_lines(project, "ROADMAP.md"), *span)) if span else None


def expected_goal(project: str, phase: int, criteria: bool) -> str | None:
    span = BLOCKS[project][phase]
    if span is None:
        return None
    if phase not in GOALS[project] and not (criteria and phase in CRITERIA[project]):
        return None  # a title line alone (todo_gsd's phases 3-5) is no goal: the whole file
    roadmap = _lines(project, "ROADMAP.md")
    out = [roadmap[span[0] - 1]]
    if phase in GOALS[project]:
        out.append(roadmap[GOALS[project][phase] - 1])
    if criteria and phase in CRITERIA[project]:
        out += ["", *_span(roadmap, *CRITERIA[project][phase])]
    return _text(out)


def expected_decisions(project: str, phase: int) -> str | None:
    state = _lines(project, "STATE.md")
    numbers = sorted(ROADMAP_DECISIONS[project] + DECISIONS[project].get(phase, []))
    position = POSITION[project]
    if position is None and not numbers:
        return None
    body = _span(state, *position) if position else []
    return _text(["## Current Position", *body, "", "## Relevant Decisions", *(state[n - 1] for n in numbers)])


def expected_requirements(project: str, ids: tuple[str, ...]) -> str | None:
    """Each id's definition (``- [x] **ID**: ...`` or ``N. [ID] ...``) and its traceability row,
    in file order, with the row's table header once."""
    lines = _lines(project, "REQUIREMENTS.md")
    picked: list[int] = []
    for number, line in enumerate(lines, 1):
        for rid in ids:
            if (
                line.startswith((f"- [x] **{rid}**", f"- [ ] **{rid}**"))
                or re.match(rf"\d+\. \[{re.escape(rid)}\] ", line)
                or re.match(rf"\| {re.escape(rid)} +\|", line)
            ):
                picked.append(number)
    if not picked:
        return None
    out: list[str] = []
    shown = set()
    for number in picked:
        for first_row, header in reversed(TABLE_HEADERS[project]):
            if number >= first_row and lines[number - 1].startswith("|"):
                if header not in shown:
                    shown.add(header)
                    out += _span(lines, *header)
                break
        out.append(lines[number - 1])
    return _text(out)


def expected_v1(project: str) -> str | None:
    span = V1[project]
    return _text(_span(_lines(project, "REQUIREMENTS.md"), *span)) if span else None


def _phases(project: str) -> list[int]:
    return sorted(BLOCKS[project])


def _check_part(part: object, expected: str | None, full_text: str) -> None:
    """An extraction is the hand-picked text; where there is none, the whole file and a warning."""
    from models.context.gsd import Part

    assert isinstance(part, Part)
    if expected is None:
        assert part.status == "fallback" and part.text == full_text and part.warning
        assert "looked for" in part.warning
    else:
        assert part.status == "extracted" and part.text == expected, part.file


@pytest.mark.parametrize("project", [HYDRA, VIDEO, TODO])
def test_every_phase_for_every_agent_type_is_the_hand_picked_text(project: str) -> None:
    planning = GSD / project / ".planning"
    files = {name: (planning / name).read_text(encoding="utf-8") for name in MATRIX["gsd-executor"]}
    for phase in _phases(project):
        for agent in AGENT_TYPES:
            result = selective_context(planning, agent, phase, EST, delta=True)
            parts = {p.file: p for p in result.parts}
            for name, mode in MATRIX[agent].items():
                part = parts[name]
                if mode == "skip":
                    assert part.status == "skipped" and part.text == "" and part.tokens == 0
                elif mode == "full":
                    assert part.status == "full" and part.text == files[name]
                elif mode == "phase section":
                    _check_part(part, expected_section(project, phase), files[name])
                elif mode in ("phase goal", "phase goal only"):
                    _check_part(part, expected_goal(project, phase, mode == "phase goal"), files[name])
                elif mode == "relevant decisions":
                    _check_part(part, expected_decisions(project, phase), files[name])
                elif mode == "v1 scope":
                    _check_part(part, expected_v1(project), files[name])
                elif mode == "task-mapped":  # no plan: nothing to map
                    assert part.status == "nothing" and part.text == ""
            # In the seed's words: the savings are the loaded files' tokens, whole minus given.
            assert result.saved_tokens == sum(p.full_tokens - p.tokens for p in result.parts if p.loaded)


@pytest.mark.parametrize("project", [HYDRA, VIDEO, TODO])
def test_every_plan_maps_its_requirement_rows(project: str) -> None:
    planning = GSD / project / ".planning"
    plans = _plans(project)
    assert set(plans) == set(PLAN_IDS[project])  # every plan of the project is covered
    requirements = (planning / "REQUIREMENTS.md").read_text(encoding="utf-8")
    for key, path in plans.items():
        phase = int(key[:2])
        for agent in AGENT_TYPES:
            result = selective_context(planning, agent, phase, EST, path, delta=True)
            assert result.requirements == PLAN_IDS[project][key], key
            part = next(p for p in result.parts if p.file == "REQUIREMENTS.md")
            if MATRIX[agent]["REQUIREMENTS.md"] != "task-mapped":
                continue
            ids = PLAN_IDS[project][key]
            if not ids:
                assert part.status == "nothing" and part.text == "" and part.tokens == 0, key
            else:
                _check_part(part, expected_requirements(project, ids), requirements)


def test_the_executor_finds_every_detailed_phase_section() -> None:
    """Done-when of issue 14: a phase the roadmap details is always found (no fallback)."""
    for project in (HYDRA, VIDEO, TODO):
        planning = GSD / project / ".planning"
        for phase, span in BLOCKS[project].items():
            part = selective_context(planning, "gsd-executor", phase, EST, delta=True).parts[1]
            assert (part.status == "extracted") == (span is not None), (project, phase)


def test_with_delta_off_each_agent_loads_what_the_seed_loads_and_nothing_is_saved() -> None:
    """The seed's backward-compatible mode: an executor gets STATE.md alone, a verifier ROADMAP
    and STATE; none of the three projects turns delta context on in config.json."""
    planning = GSD / HYDRA / ".planning"
    loaded = {
        agent: [p.file for p in selective_context(planning, agent, 3, EST).parts if p.loaded] for agent in AGENT_TYPES
    }
    assert loaded == {
        "gsd-executor": ["STATE.md"],
        "gsd-executor-core": ["STATE.md"],
        "gsd-verifier": ["ROADMAP.md", "STATE.md"],
        "gsd-verifier-core": ["ROADMAP.md", "STATE.md"],
        "gsd-planner": ["PROJECT.md", "ROADMAP.md", "STATE.md", "REQUIREMENTS.md"],
        "gsd-planner-core": ["PROJECT.md", "ROADMAP.md", "STATE.md", "REQUIREMENTS.md"],
    }
    for project in (HYDRA, VIDEO, TODO):
        off = selective_context(GSD / project / ".planning", "gsd-executor", 1, EST)
        assert not off.enabled and off.saved_tokens == 0 and off.tokens == off.full_tokens


def test_planning_json_reports_each_file_with_its_text(capsys: pytest.CaptureFixture[str]) -> None:
    plan = GSD / VIDEO / ".planning" / "phases" / "12-fix-layout-rendering" / "12-01-PLAN.md"
    code = main(["planning", str(GSD / VIDEO), "--agent", "gsd-executor", "--phase", "12", "--plan", str(plan),
                 "--delta", "on", "--tokenizer", "estimate", "--json"])  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    files = {f["file"]: f for f in data["files"]}
    assert data["requirements"] == ["VIS-04", "VIS-05"] and data["delta_context"] is True
    assert files["ROADMAP.md"]["status"] == "extracted"
    assert files["ROADMAP.md"]["text"] == expected_section(VIDEO, 12)
    assert files["REQUIREMENTS.md"]["text"] == expected_requirements(VIDEO, ("VIS-04", "VIS-05"))
    assert files["PROJECT.md"]["status"] == "skipped" and files["PROJECT.md"]["text"] == ""
    assert data["saved_tokens"] == data["full_tokens"] - data["tokens"] > 0
    assert main(["planning", str(GSD / VIDEO), "--agent", "gsd-executor", "--phase", "12", "--json"]) == 0
    off = json.loads(capsys.readouterr().out)
    assert off["delta_context"] is False and off["saved_tokens"] == 0


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ('{"optimization": "on"}', "'optimization' is not an object"),
        ("[" * 100_000, "config.json"),
        ("{not json", "config.json"),
    ],
)
def test_a_bad_config_is_named_and_taken_as_off(tmp_path: Path, config: str, problem: str) -> None:
    planning = tmp_path / ".planning"
    planning.mkdir()
    (planning / "ROADMAP.md").write_text("### Phase 1: One\n**Goal**: g\n", encoding="utf-8")
    (planning / "config.json").write_text(config, encoding="utf-8")
    result = selective_context(planning, "gsd-executor", 1, EST)
    assert not result.enabled and problem in result.problems[0]


def _click_file(qtbot: QtBot, pane: PlanningPane, name: str) -> None:
    """Click the planning pane's row of file ``name``, as the Lead does."""
    from PySide6.QtCore import Qt

    row = [pane.model.index(r, 0).data() for r in range(pane.model.rowCount())].index(name)
    rect = pane.view.visualRect(pane.model.index(row, 1))
    qtbot.mouseClick(pane.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_planning_pane_shows_what_an_agent_is_given(qtbot: QtBot, tmp_path: Path) -> None:
    """In the window: open a project, pick phase, plan and delta mode with the keyboard, click a
    file and read exactly the hand-picked part."""
    from PySide6.QtCore import QSettings, Qt

    pane = PlanningPane(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(pane)
    pane.resize(640, 480)
    pane.show()
    assert pane.open_project(GSD / HYDRA)
    assert [pane.phase.itemText(i) for i in range(pane.phase.count())] == [f"Phase {n}" for n in range(1, 7)]
    for combo, presses in ((pane.phase, 2), (pane.plan, 2), (pane.delta, 1)):
        combo.setFocus()
        for _ in range(presses):
            qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert pane.phase.currentText() == "Phase 3" and pane.plan.currentText() == "03-03-PLAN.md"
    parts = pane.parts()
    assert parts["ROADMAP.md"].text == expected_section(HYDRA, 3)
    assert parts["REQUIREMENTS.md"].text == expected_requirements(HYDRA, ("SBOX-03", "SBOX-06"))
    assert parts["PROJECT.md"].status == "skipped"
    assert "delta context on" in pane.summary.text() and "maps SBOX-03, SBOX-06" in pane.summary.text()
    _click_file(qtbot, pane, "REQUIREMENTS.md")
    assert pane.text.toPlainText() == expected_requirements(HYDRA, ("SBOX-03", "SBOX-06"))
    qtbot.keyClick(pane.delta, Qt.Key.Key_Down)  # delta off: the seed's full mode, STATE alone
    assert {f for f, p in pane.parts().items() if p.loaded} == {"STATE.md"}
    assert "nothing" not in pane.summary.text() and "saved" not in pane.summary.text()
    assert pane.settings.value("planning/project") == str(GSD / HYDRA)


def test_the_planning_pane_opens_on_a_file_the_agent_is_given_and_says_why_of_the_others(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """None of the three projects turns delta context on: the executor is given STATE.md alone.
    The pane opened on ROADMAP.md, skipped, and its text pane stood empty."""
    from PySide6.QtCore import QSettings, Qt

    pane = PlanningPane(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(pane)
    pane.resize(640, 480)
    pane.show()
    assert pane.open_project(GSD / HYDRA)
    assert pane.agent.currentText() == "gsd-executor" and "delta context off" in pane.summary.text()
    assert pane.view.currentIndex().data() == "STATE.md"
    state = (GSD / HYDRA / ".planning" / "STATE.md").read_text(encoding="utf-8")
    assert pane.text.toPlainText() == state
    _click_file(qtbot, pane, "ROADMAP.md")
    assert pane.text.toPlainText() == (
        "# ROADMAP.md is not given to gsd-executor in phase 1: "
        "the seed's full-context mode (delta context off) does not load it\n"
    )
    pane.delta.setFocus()
    qtbot.keyClick(pane.delta, Qt.Key.Key_Down)  # delta on: the matrix's choice
    _click_file(qtbot, pane, "PROJECT.md")
    assert pane.text.toPlainText() == (
        "# PROJECT.md is not given to gsd-executor in phase 1: "
        "the seed's selective-context matrix skips it for this agent\n"
    )
