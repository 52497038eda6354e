"""The delta composer's state: base and working GC, the items, impact and forced fulls.

The composer opens on the difference between the last published GC (the newest gc-history
snapshot) and the working GC. The Lead may edit the working GC (section by section) and the
items by hand; hand items are kept until reset, and every item that does not agree with the
working GC is flagged (it does not apply, or the working GC says something else). Nothing here
touches the disk: ``publish_plan`` describes what publishing would write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from models.delta.apply import apply_delta, same_apart_from_version, set_version
from models.delta.decisions import (
    HISTORY_DIR,
    UpdatePlan,
    decision_message,
    plan_update,
    snapshot_path,
    snapshot_versions,
)
from models.delta.diff import DiffResult, diff_gc
from models.delta.items import ApplyError, Delta, DeltaItem, Impact, structure
from models.publish.merge import Conflict, merge_drafts
from models.publish.publishing import PublishPlan, prepare_publish
from models.session.folder import GC_FILE
from models.session.gc_parse import front_version
from models.session.snapshot import SessionView
from models.text import mdblocks
from models.text.textfile import Stamp, is_blank, newline_of, read_utf8, split_lines


class SectionEditError(ValueError):
    """A section edit that would change the GC outside that section; it is not taken."""


def missing_gc(session: SessionView) -> str | None:
    """Why ``session`` has no GC to compose an update from, as its read said (not found, a
    folder, not UTF-8, ...); None when it has one. Without it, the window said "no gc-history
    snapshot yet" and the CLI "the GC is the last published one", of a session with no GC."""
    if session.gc is not None:
        return None
    problems = session.problems.get("gc") or []
    return str(problems[0]) if problems else f"{GC_FILE}: not found in this session"


@dataclass
class Composer:
    """What the Lead is composing. Pure: the window wraps edits of it in undo commands."""

    session: SessionView
    base_version: int | None
    base_text: str | None
    working_text: str
    hand_items: tuple[DeltaItem, ...] | None = None
    impact: Impact | None = None
    forced_full: dict[str, str] = field(default_factory=dict)
    gc_stamp: Stamp | None = None  # the GC on disk that ``working_text`` was taken from
    taken_text: str | None = None  # that GC's text: the base of a merge with a later disk GC
    # Unanswered replies that ask for the full GC (models.review.pending), set by the window.
    pending: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Why the newest snapshot could not be read, when it could not (a folder, not UTF-8, ...).
    base_problem: str | None = None
    # No gc-history snapshot: the GC on disk, as last read, is the version teammates hold, and
    # the base the update is composed from (as ``plan_update`` computes its deltas from it).
    disk_base: bool = False
    # The last new text and diff worked out, with the texts they were worked out from: a
    # re-plan asks for the items, the delta, the flags and the check of the delta, and on a
    # 200,000-line GC each copy is milliseconds and each diff tens of them.
    _new_memo: tuple[str, int | None, str] | None = field(default=None, repr=False, compare=False)
    _diff_memo: tuple[str, str, DiffResult] | None = field(default=None, repr=False, compare=False)
    _same_memo: tuple[str, str, bool] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def open(cls, session: SessionView) -> Composer:
        """Base = newest snapshot; working = the GC as it is on disk."""
        versions = snapshot_versions(session.folder)
        base_version = versions[-1] if versions else None
        base_text, problem = None, None
        if base_version is not None:
            # A snapshot that cannot be read is still the version last published: the update is
            # the next one, and with no text to compare, its recipients get the full GC (the
            # plan's NO-BASE), instead of the session failing to open.
            try:
                base_text = read_utf8(snapshot_path(session.folder, base_version))
            except OSError as exc:  # UnreadableFile too: a folder, a FIFO, bytes that are not UTF-8
                problem = f"{HISTORY_DIR}/GC-v{base_version}.md cannot be read ({exc.strerror or exc})"
        working = session.gc.text if session.gc is not None else ""
        disk_base = base_version is None and session.gc is not None and session.gc.version is not None
        if disk_base:
            base_version, base_text = session.gc_version, working
        return cls(
            session,
            base_version,
            base_text,
            working,
            gc_stamp=session.stamps.get(GC_FILE),
            taken_text=working,
            base_problem=problem,
            disk_base=disk_base,
        )

    def _follow_base(self) -> None:
        """With no snapshot the base is the GC on disk: it follows every read of it, as the
        plan's deltas do, so that the message shown is the one published."""
        if self.disk_base and self.session.gc is not None:
            self.base_version, self.base_text = self.session.gc_version, self.session.gc.text

    def follow_disk(self) -> bool:
        """Take the GC from disk unless the Lead is editing it here; True when taken."""
        self._follow_base()
        if self.edited_in_app:
            return False
        self.working_text = self.session.gc.text if self.session.gc is not None else ""
        self.gc_stamp = self.session.stamps.get(GC_FILE)
        self.taken_text = self.working_text
        return True

    def merged_with_disk(self, choose: dict[str, str] | None = None) -> tuple[str, list[Conflict]]:
        """What ``merge_with_disk(choose)`` would make the draft, and the conflicts still to
        choose; nothing changes (the window shows it first)."""
        if self.session.gc is None or self.taken_text is None:
            return self.working_text, []
        return merge_drafts(self.taken_text, self.working_text, self.session.gc.text, choose)

    def merge_with_disk(self, choose: dict[str, str] | None = None) -> list[Conflict]:
        """Merge the Lead's draft with the GC agents wrote meanwhile (``models.publish.merge``);
        with every conflict chosen, the draft is now based on the disk GC. Returns the conflicts
        still to choose (nothing changes while there are any)."""
        if self.session.gc is None or self.taken_text is None:
            return []
        merged, open_conflicts = merge_drafts(self.taken_text, self.working_text, self.session.gc.text, choose)
        if open_conflicts:
            return open_conflicts
        self._follow_base()
        self.working_text = merged
        self.gc_stamp = self.session.stamps.get(GC_FILE)
        self.taken_text = self.session.gc.text
        return []

    @property
    def edited_in_app(self) -> bool:
        """The working GC differs from the disk GC it was taken from (the Lead edits it here).

        Compared as text with what was taken: hashing the encoded draft on every follow-up
        cost as much as reading the file, and a file with a BOM never hashed as its text. A
        session with no GC on disk took an empty one: nothing is edited until the Lead writes."""
        return self.taken_text is None or self.working_text != self.taken_text

    @property
    def disk_changed_under_edit(self) -> bool:
        """The Lead edits here while someone changed the GC on disk: publishing would be refused."""
        now = self.session.stamps.get(GC_FILE)
        return self.edited_in_app and not (now is not None and now.same_content(self.gc_stamp))

    # -- versions and the delta -------------------------------------------------------------

    @property
    def new_version(self) -> int | None:
        """What publishing will call the working GC: base + 1, or the working GC's own if higher."""
        own = front_version(self.working_text)
        if self.base_version is None:
            return own
        return max(own or 0, self.base_version + 1)

    @property
    def new_text(self) -> str:
        version, memo = self.new_version, self._new_memo
        if memo is None or memo[0] is not self.working_text or memo[1] != version:
            new = set_version(self.working_text, version) if version is not None else self.working_text
            memo = self._new_memo = (self.working_text, version, new)
        return memo[2]

    def _planned(self) -> tuple[str, bool]:
        """(the text the diff and the plan are of, whether publishing bumps it on the way).

        While the working GC still carries the session's version and publishing makes it the
        next, that is the working text itself, its deltas set to the new version: the bumped
        copy is a second 10 MB text that no kept parse knows, and planning it parsed it again
        on every re-plan. Items the Lead edited are proven against the bumped text itself."""
        gc, version, working = self.session.gc, self.new_version, self.working_text
        bumps = (
            self.hand_items is None
            and gc is not None
            and gc.version is not None
            and version == gc.version + 1
            and front_version(working) == gc.version
        )
        return (working, True) if bumps else (self.new_text, False)

    def computed(self) -> DiffResult | None:
        """The diff from the base to the new text, worked out again only when either is another
        text than last time (a re-plan asks for it four times)."""
        if self.base_text is None:
            return None
        target, bumps = self._planned()
        memo = self._diff_memo
        if memo is None or memo[0] is not self.base_text or memo[1] is not target:
            result = diff_gc(self.base_text, target)
            if bumps:
                result = DiffResult(replace(result.delta, new_version=self.new_version), result.exact, result.problem)
            memo = self._diff_memo = (self.base_text, target, result)
        return memo[2]

    @property
    def dirty(self) -> bool:
        """The Lead's own unsaved work: the GC edited here, items, impact or forced fulls."""
        return self.edited_in_app or self.hand_items is not None or bool(self.forced_full) or self.impact is not None

    @property
    def has_update(self) -> bool:
        """Something to publish: the working GC is not the last published one (or none was)."""
        if self.base_text is None:
            return not is_blank(self.working_text)
        if self.dirty:
            return True
        memo = self._same_memo  # asked five times a refresh: a comparison of the whole GC each
        if memo is None or memo[0] is not self.base_text or memo[1] is not self.working_text:
            same = self.working_text is self.base_text or same_apart_from_version(self.working_text, self.base_text)
            memo = self._same_memo = (self.base_text, self.working_text, same)
        return not memo[2]

    def items(self) -> tuple[DeltaItem, ...]:
        if self.hand_items is not None:
            return self.hand_items
        result = self.computed()
        return result.delta.items if result is not None else ()

    def delta(self) -> Delta:
        """The update as composed; with nothing to publish it stays at the published version
        (its message says "(no change)", not a bump to a version nobody will publish)."""
        version = self.new_version if self.has_update else self.base_version
        return Delta(self.base_version, version, self.items(), self.impact or self.default_impact())

    def default_impact(self) -> Impact:
        """Every teammate that receives updates (shut down and finished ones are not affected)."""
        return Impact(self.session.receiving_roles(), "NONE")

    def flags(self) -> list[str | None]:
        """Per item: why it does not agree with the working GC (None: it does)."""
        items = self.items()
        if self.hand_items is None or self.base_text is None:
            return [None] * len(items)
        computed = self.computed()
        truth = {(i.op, i.ref, i.key): i for i in (computed.delta.items if computed else ())}
        flags: list[str | None] = []
        text = self.base_text
        for item in items:
            try:
                text = apply_delta(text, Delta(None, None, (item,)))
            except ApplyError as exc:
                flags.append(f"does not apply: {exc.reason}")
                continue
            same = truth.get((item.op, item.ref, item.key))
            if same is None and item.op != "REPLACED":
                flags.append("the working GC does not have this change")
            elif same is not None and same != item:
                flags.append("the working GC says something else")
            else:
                flags.append(None)
        return flags  # items that agree one by one may still not add up: see ``exact``

    @property
    def exact(self) -> bool:
        if self.base_text is None:
            return False
        try:
            return apply_delta(self.base_text, self.delta()) == self.new_text
        except ApplyError:
            return False

    # -- the plan and publishing -------------------------------------------------------------------

    def plan(self, narrowed: Mapping[str, tuple[str, ...]] | None = None) -> UpdatePlan:
        """The decisions for the new text, given the composer's own diff from its base (the
        plan would otherwise work out the same one again)."""
        override = self.delta() if self.hand_items is not None else None
        target, _ = self._planned()
        diff, base = self.computed(), self.base_version
        return plan_update(
            self.session,
            target,
            known=(base, self.base_text, diff) if diff is not None and base is not None and self.base_text else None,
            impact=self.impact or self.default_impact(),
            delta_override=override,
            forced_full=self.forced_full,
            pending=self.pending,
            narrowed=narrowed,
        )

    def message_for(self, role: str, plan: UpdatePlan | None = None) -> str | None:
        plan = plan or self.plan()
        decision = next((d for d in plan.decisions if d.role == role), None)
        if decision is None:
            return None
        return decision_message(decision, self.new_text, self.new_version)

    def publish_plan(
        self,
        now: str | None = None,
        add_meta: bool = False,
        plan: UpdatePlan | None = None,
        held: frozenset[str] = frozenset(),
    ) -> PublishPlan:
        """The writes of publishing what is composed (of ``plan``, when the caller has made it);
        the messages of ``held`` roles are recorded as held until their next compaction."""
        return prepare_publish(
            self.session.folder,
            self.working_text,
            plan or self.plan(),
            self.gc_stamp,
            self.forced_full,
            now,
            add_meta,
            self.taken_text,
            held,
        )

    def as_replaced(self, ref: str) -> tuple[DeltaItem, ...]:
        """The items with every item of section ``ref`` turned into one REPLACED of it."""
        new = structure(self.new_text)
        found = new.resolve(ref)
        if found is None:
            return self.items()
        section = found.section
        body = new.text[new.line_starts[section.line + 1] : section.own_end].replace("\r\n", "\n")
        replaced = DeltaItem("REPLACED", ref, content=body)
        out: list[DeltaItem] = []
        for item in self.items():
            if item.ref == ref and item.key is not None:
                if replaced not in out:
                    out.append(replaced)
            else:
                out.append(item)
        return tuple(out)

    def section_text(self, ref: str) -> str | None:
        found = structure(self.working_text).resolve(ref)
        if found is None:
            return None
        s = found.section
        return self.working_text[s.start : s.end]

    def with_section_text(self, ref: str, text: str) -> str:
        """The working GC with section ``ref`` (and its subsections) replaced by ``text``.

        An edit of one section never changes a byte outside it: the text keeps the section's
        line ends and its final line break (a row typed on the editor's last, empty line is not
        joined to the next heading), and a heading as high as the section's own, which would
        split off a new neighbour, is refused (``SectionEditError``); deeper ones are new
        subsections."""
        found = structure(self.working_text).resolve(ref)
        if found is None:
            raise KeyError(ref)
        s = found.section
        old = self.working_text[s.start : s.end]
        nl = newline_of(old)
        new = text.replace("\r\n", "\n")
        if nl != "\n":
            new = new.replace("\n", nl)
        if old.endswith(nl) and not new.endswith(nl):
            new += nl
        lines = split_lines(new)
        for heading in mdblocks.scan(lines, "section").headings:
            if heading.line > 0 and heading.level <= s.level:
                raise SectionEditError(
                    f"line {heading.line + 1}, '{'#' * heading.level} {heading.text}', would start a section next to "
                    f"§{ref} instead of inside it: make it a subsection ({'#' * (s.level + 1)}) or add it on its own"
                )
        return self.working_text[: s.start] + new + self.working_text[s.end :]
