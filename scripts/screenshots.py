"""Render the README's screenshots from a fresh copy of the demo session (offscreen).

Run: .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from app.controller import Controller  # noqa: E402
from app.demo import copy_demo  # noqa: E402
from app.settings import AppSettings  # noqa: E402
from ui.appearance import apply_appearance  # noqa: E402

OUT = ROOT / "resources" / "screenshots"


def wait_for_team(app: QApplication, ctl: Controller) -> None:
    """The team is read off the GUI thread: wait for its columns before a screenshot."""
    model = ctl.window.teammates_pane.teammate_model
    for _ in range(300):
        app.processEvents()
        if any(model.index(r, model.MEMBER).data() for r in range(model.rowCount())):
            return
        time.sleep(0.01)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        folder = copy_demo(Path(tmp) / "project")  # with its Claude Code team, linked
        settings = AppSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        ctl = Controller(settings, headless=True)
        w = ctl.window
        w.resize(1440, 900)
        ctl.open(folder)
        w.show()
        wait_for_team(app, ctl)
        ctl.settle()
        w.grab().save(str(OUT / "main-window.png"))
        w.menus.cost_action.trigger()  # Session ▸ Cost of Sharing Context…
        dialog = ctl.cost.dialog
        assert dialog is not None
        while not dialog.headline.text().startswith("The team spent"):
            app.processEvents()
        dialog.layout().activate()
        app.processEvents()
        dialog.grab().save(str(OUT / "cost-of-sharing.png"))
        dialog.close()

        pane = w.composer
        w.central_tabs.setCurrentWidget(pane)
        w.sections_pane.gc_view.setCurrentIndex(
            w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Architecture Decisions")
        )
        row = "| D-9 | Snapshots compressed with zstd | Halves snapshot storage | P6 |\n"
        section = (pane.composer.section_text(pane.section_ref or "") if pane.composer else None) or ""
        pane.editor.setPlainText(section.replace("| P6 |\n", "| P6 |\n" + row))  # the editor shows no last newline
        pane.commit_section_edit()
        pane.item_actions.force_full_for("implementer-2", "rejoined after a long break")
        pane.preview_tabs.setCurrentIndex(1)
        app.processEvents()
        w.grab().save(str(OUT / "composer-before-publish.png"))
        apply_appearance(app, "dark")  # View ▸ Appearance ▸ Dark, as on a dark desktop
        app.processEvents()
        w.grab().save(str(OUT / "composer-dark.png"))
        apply_appearance(app, "system")
        app.processEvents()

        pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
        # implementer-4 is at 167,600 of its 167,000 before auto-compact: its update is held.
        pane.session_actions.ask_fit = lambda fit: "hold"  # type: ignore[method-assign]
        pane.session_actions.publish()
        ctl.settle()  # the runner writes it off the GUI thread
        pane.preview_tabs.setCurrentIndex(0)
        app.processEvents()
        w.grab().save(str(OUT / "composer-after-publish.png"))

        inbox = folder / "messages" / "inbox"
        inbox.mkdir(parents=True, exist_ok=True)
        (inbox / "implementer-1-ack.md").write_text(
            "[ACK-UPDATE] GC-v7 received.\n- Delta items applied: 1/1\n- Impact on my work: NONE\n"
            "- Action taken: CONTINUE\n- Unclear items: none\n",
            encoding="utf-8",
        )
        (inbox / "implementer-2-ack.md").write_text(
            "**[ACK-UPDATE]** GC-v7 received. Items: 0/1. Impact: unsure which table. Action: NEED_CLARIFICATION\n"
            "Unclear items: §Architecture Decisions.D-9\n",
            encoding="utf-8",
        )
        (inbox / "implementer-4-report.md").write_text(
            "Replay done for the 1% sample.\n\nDELTA:\n  changes:\n"
            '    - "migrate/replay_v1.py: order by (updated_at, id)"\n'
            '  risks:\n    - level: high\n      desc: "2,914 manual corrections have no source event"\n'
            '    - level: medium\n      desc: "reconcile needs 6 GB work memory"\n'
            '  alternatives:\n    - "Skip manual corrections: breaks reconciliation"\n  needs_consult: yes\n',
            encoding="utf-8",
        )
        team = Path(tmp) / "cow-execution"
        shutil.copytree(ROOT.parent / "shared" / "claude-code-team" / "teams" / "cow-execution", team)
        ctl.live.reload({"inbox"})  # type: ignore[union-attr]
        ctl.link.set_team_folder(team)
        ctl.settle()
        ctl.inbox.review_write = lambda preview, question: True  # type: ignore[method-assign]  # its OK
        for r in list(ctl.reviews):
            if r.message.source.startswith("inbox/implementer-1"):
                ctl.inbox.carry_out(r)
        w.central_tabs.setCurrentIndex(0)
        w.inbox_dock.raise_()
        ctl.settle()
        w.grab().save(str(OUT / "teammates-and-inbox.png"))
        w.review_pane.reports_only.setChecked(True)
        app.processEvents()
        home, work = Path(tmp) / "agents" / "implementer-3", Path(tmp) / "workspaces" / "implementer-3"
        (home / "tools").mkdir(parents=True)
        work.mkdir(parents=True)
        (home / "system_prompt.md").write_text(
            "# implementer-3\nYou own projection/ and api/ (T-5, T-6, T-9).\n" + "Follow the GC.\n" * 120,
            encoding="utf-8",
        )
        (work / "DELTA.md").write_text("# Workspace guide\nRun `make test`.\n" * 30, encoding="utf-8")
        (home / "tools" / "summary.py").write_text(
            "import os, pathlib\np = pathlib.Path(os.environ['DELTA_CWD']) / '.delta' / 'summary.md'\n"
            "p.parent.mkdir(parents=True, exist_ok=True)\np.write_text('Snapshots every 1,000 postings.\\n' * 40)\n",
            encoding="utf-8",
        )
        (home / "context.yaml").write_text(
            "sources:\n  - type: file\n    id: system_prompt\n    path: ${AGENT_HOME}/system_prompt.md\n"
            "  - type: file\n    id: workspace_guide\n    path: ${CWD}/DELTA.md\n    on_missing: skip\n"
            "  - type: computed_file\n    id: memory_summary\n    generator:\n"
            f"      command: ['{sys.executable}', '${{AGENT_HOME}}/tools/summary.py']\n"
            "    output_path: ${CWD}/.delta/summary.md\n  - type: journal\n    id: recent\n    max_iterations: 10\n",
            encoding="utf-8",
        )
        context = w.context_pane
        context.teammate.setCurrentText("implementer-3")
        context.confirm = lambda box: True  # type: ignore[method-assign]
        context.link("implementer-3", home, work)
        context.wait()
        app.processEvents()
        context._ask_trust()
        context.wait()
        app.processEvents()
        w.context_dock.raise_()
        for col in range(5):
            context.blocks_view.resizeColumnToContents(col)
        app.processEvents()
        w.grab().save(str(OUT / "context-pane.png"))

        w.inbox_dock.setFloating(True)
        w.inbox_dock.resize(1300, 260)
        model = w.review_pane.model
        w.review_pane.view.setCurrentIndex(model.index(model.rowCount() - 1, 0))
        app.processEvents()
        w.inbox_dock.grab().save(str(OUT / "delta-reports.png"))

        planning = w.planning_pane
        planning.open_project(ROOT.parent / "shared" / "gsd-projects" / "001TMF+HYDRA")
        planning.phase.setCurrentIndex(2)
        planning.plan.setCurrentIndex(2)
        planning.delta.setCurrentIndex(1)
        w.planning_dock.setFloating(True)
        w.planning_dock.resize(900, 560)
        w.planning_dock.show()
        app.processEvents()
        planning.view.setCurrentIndex(planning.model.index(1, 0))
        app.processEvents()
        w.planning_dock.grab().save(str(OUT / "gsd-planning.png"))
        ctl.close()
    print("\n".join(str(p) for p in sorted(OUT.glob("*.png"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
