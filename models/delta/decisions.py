"""Who gets what for a GC update: ADR-002 §6's decision tree, per teammate, with its cost.

Deltas are computed from ``gc-history/GC-v<N>.md`` snapshots (SESSION-FOLDER.md): a teammate
one version behind gets the delta from the snapshot of the version it confirmed. The tree is
evaluated in the ADR's order and every condition that fires is kept, so the Lead sees all the
reasons, not only the first:

- FC-2 the teammate reported CONTEXT_LOST;
- FC-3 it has no confirmed version yet (initial spawn);
- FC-1 its confirmed version (the last ACKed one, never the last sent one) is < current - 1;
- FC-4 the delta touches more than half of the GC's top-level sections (exactly half does not),
  or costs as many tokens as the full GC or more (no savings);
- FC-5 it asked for the full GC (NEED_CLARIFICATION, or an explicit request).

Three more reasons force the full GC: no snapshot of the confirmed version, a delta that does
not reproduce the new GC when applied, and a confirmed version newer than the current one.
While ``gate_evaluation`` is set nothing is sent: the GC is frozen until the gate concludes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from models.delta.apply import apply_delta, set_version
from models.delta.diff import DiffResult, diff_gc
from models.delta.items import ApplyError, Delta, Impact, structure
from models.delta.scope import Scope, role_text, scoped
from models.session.gc import GlobalContext
from models.session.gc_parse import front_version, parse_gc
from models.session.snapshot import SessionView
from models.session.versions import label
from models.text.textfile import read_utf8
from models.text.tokens import EXACT_ENCODINGS, Tokenizer

HISTORY_DIR = "gc-history"
Mode = Literal["delta", "full", "frozen", "current", "inactive"]
FULL_REQUEST_STATUSES = {"NEED_CLARIFICATION", "FULL_REQUESTED"}
# A pending "status" of the app's own: the role follows sections whose text its last updates
# did not carry (models.review.pending.sections_gained); its next update is its sections in full.
SECTIONS_GAINED = "SECTIONS_GAINED"


@dataclass(frozen=True)
class Condition:
    """A reason for the decision: ``FC-1``..``FC-5``, ``NO-BASE``, ``UNPROVEN``, ``AHEAD``, ``GATE``."""

    code: str
    reason: str


@dataclass(frozen=True)
class Decision:
    """What one teammate gets, why, and what it costs."""

    role: str
    mode: Mode
    conditions: tuple[Condition, ...]
    tokens: int  # of the message that would be sent (0 when nothing is sent)
    full_tokens: int  # of the full GC message (a role following some sections: of its sections), for comparison
    base_version: int | None = None
    delta: Delta | None = None
    scope: Scope | None = None  # the role follows some sections only (subscriptions.yaml)
    unscoped_tokens: int | None = None  # what it would be sent following every section

    @property
    def bump(self) -> bool:
        """A version bump to ACK: nothing changed in the sections the role follows."""
        return self.mode == "delta" and self.scope is not None and self.delta is not None and not self.delta.items


@dataclass
class UpdatePlan:
    """The decisions for every teammate and the team's totals."""

    current_version: int | None
    tokenizer: str
    full_tokens: int
    decisions: list[Decision] = field(default_factory=list)
    frozen: str | None = None  # why nothing is sent, while a gate is evaluated
    notes: list[str] = field(default_factory=list)

    @property
    def recipients(self) -> list[Decision]:
        return [d for d in self.decisions if d.mode in ("delta", "full")]

    @property
    def sent_tokens(self) -> int:
        return sum(d.tokens for d in self.recipients)

    @property
    def all_full_tokens(self) -> int:
        """What sending the full GC to every recipient would cost (ADR-002's v3.0 baseline)."""
        return self.full_tokens * len(self.recipients)

    @property
    def scoped(self) -> bool:
        """Whether any recipient follows some sections only."""
        return any(d.scope is not None for d in self.recipients)

    @property
    def unscoped_tokens(self) -> int:
        """What the recipients would be sent if every role followed every section."""
        return sum(d.tokens if d.unscoped_tokens is None else d.unscoped_tokens for d in self.recipients)

    @property
    def savings_percent(self) -> float:
        full = self.all_full_tokens
        return 100.0 * (1 - self.sent_tokens / full) if full else 0.0


def snapshot_path(folder: Path, version: int) -> Path:
    return folder / HISTORY_DIR / f"GC-v{version}.md"


def snapshot_versions(folder: Path) -> list[int]:
    found = []
    for path in (folder / HISTORY_DIR).glob("GC-v*.md"):
        number = path.stem[len("GC-v") :]
        if number.isdigit():
            found.append(int(number))
    return sorted(found)


def render_full(gc_text: str, version: int | None) -> str:
    """The full-injection message (FC fallback): the whole GC after a header line."""
    return f"[CONTEXT-UPDATE] {label(version)} (full injection)\n\n{gc_text}"


def render_role_full(gc_text: str, version: int | None, follows: tuple[str, ...]) -> str:
    """The full injection for a role that follows ``follows`` only: the GC's front matter and
    preamble with those sections, and the titles of the others (it may ask for any)."""
    from models.delta.message import scope_lines

    text, scope = role_text(gc_text, follows)
    head = f"[CONTEXT-UPDATE] {label(version)} (full injection: the sections you follow)\n\n"
    return head + text.rstrip("\n") + "\n\n" + "\n".join(scope_lines(scope)) + "\n"


def decision_message(decision: Decision, gc_text: str, version: int | None) -> str | None:
    """The message ``decision`` sends (None when it sends nothing), for the GC ``gc_text`` as
    ``version``: what the composer shows, publishing writes and the savings count."""
    from models.delta.message import render_message

    if decision.mode == "delta" and decision.delta is not None:
        return render_message(decision.delta, decision.scope)
    if decision.mode != "full":
        return None
    if decision.scope is not None:
        return render_role_full(gc_text, version, decision.scope.follows)
    return render_full(gc_text, version)


def full_tokens(
    text: str, version: int | None, tokenizer: Tokenizer, parsed: GlobalContext | None = None, bump: bool = False
) -> int:
    """Tokens of ``render_full(text, version)``, from the GC's own count where that is exact;
    with ``bump``, of the text as publishing will write it, its front matter saying ``version``.

    Counting a 10 MB GC took 30 ms of every re-plan, while its parse (``parsed``, or one read
    from the last by what changed) has counted it. An exact count adds up across a point that
    no pre-token spans: the header ends in ``)`` and two line ends, which only another line
    end or ``/`` would join, so a GC that starts with neither is counted on its own (as its
    sections are, at their headings: ``tests/test_gc.py`` checks the sums on every real GC).
    A bump changes only what stands before the first heading, which the parse counts as a unit
    of its own: that unit is counted again, not the whole text.
    """
    head = render_full("", version)
    if tokenizer.name not in EXACT_ENCODINGS or not text or text[0].isspace() or text[0] == "/":
        return tokenizer.count(head + (set_version(text, version) if bump and version is not None else text))
    known = parsed is not None and parsed.tokenizer == tokenizer.name and parsed.text == text
    gc = parsed if known and parsed is not None else parse_gc(text, tokenizer)
    total = tokenizer.count(head) + gc.tokens
    if bump and version is not None:
        first = gc.sections[0].start if gc.sections else len(text)
        total += tokenizer.count(set_version(text[:first], version)) - tokenizer.count(text[:first])
    return total


def touched_share(delta: Delta, old_text: str, new_text: str) -> tuple[int, int]:
    """(top-level sections a delta touches, top-level sections of either version), for FC-4.

    Sections of both versions count, so that a rewrite that removes most sections is a
    restructure too, not a touch of "13 of 1".
    """
    old, new = structure(old_text), structure(new_text)  # the diff has read both
    touched: set[str] = set()
    for item in delta.items:
        found = new.resolve(item.ref) or old.resolve(item.ref)
        if found is None:
            continue  # the front matter or the preamble
        node = found.section
        while node.parent is not None:
            node = node.parent
        touched.add(node.title)
    titles = new.top_titles() if old is new else old.top_titles() | new.top_titles()
    return len(touched), len(titles)


@dataclass
class _Bases:
    """Deltas from each base version to the new GC, computed once per base."""

    session: SessionView
    new_text: str
    new_version: int | None
    previous_text: str | None  # the session's GC when --new gives a newer one
    bump: bool = False  # ``new_text`` still carries the session's version: deltas go to ``new_version``
    cache: dict[int, DiffResult | None] = field(default_factory=dict)
    shares: dict[int, tuple[int, int]] = field(default_factory=dict)
    costs: dict[tuple[Delta, Scope | None], int] = field(default_factory=dict)
    texts: dict[int, str | None] = field(default_factory=dict)
    scopes: dict[tuple[int, tuple[str, ...]], tuple[Delta, Scope, int]] = field(default_factory=dict)
    role_fulls: dict[tuple[str, ...], tuple[int, Scope]] = field(default_factory=dict)

    def text_of(self, version: int) -> str | None:
        if version not in self.texts:
            self.texts[version] = self._read(version)
        return self.texts[version]

    def _read(self, version: int) -> str | None:
        path = snapshot_path(self.session.folder, version)
        if os.path.lexists(path):  # a folder, a FIFO or a link to nothing there is no snapshot either
            try:
                return read_utf8(path)
            except OSError:
                return None  # an unreadable snapshot is no base: the teammate gets the full GC
        gc = self.session.gc
        if self.previous_text is not None and gc is not None and gc.version == version:
            return self.previous_text
        return None

    def diff(self, version: int) -> DiffResult | None:
        if version not in self.cache:
            base = self.text_of(version)
            found = None if base is None else diff_gc(base, self.new_text)
            if found is not None and self.bump:
                found = DiffResult(replace(found.delta, new_version=self.new_version), found.exact, found.problem)
            self.cache[version] = found
        return self.cache[version]

    def share(self, version: int, delta: Delta) -> tuple[int, int]:
        """``touched_share`` of the delta from ``version``, once per base.

        Every teammate one version behind shares this base; parsing both GCs for each of
        them made planning a 50-teammate session on a 20,000-line GC take seconds.
        """
        if version not in self.shares:
            base_text = self.text_of(version)
            assert base_text is not None
            self.shares[version] = touched_share(delta, base_text, self.new_text)
        return self.shares[version]

    def cost(self, delta: Delta, tokenizer: Tokenizer, scope: Scope | None = None) -> int:
        """Tokens of the delta's message, rendered and counted once per distinct delta: every
        teammate one version behind gets the same one (500 renders took 25 ms of a re-plan)."""
        from models.delta.message import render_message

        key = (delta, scope)
        if key not in self.costs:
            self.costs[key] = tokenizer.count(render_message(delta, scope))
        return self.costs[key]

    def scoped(self, version: int, follows: tuple[str, ...]) -> tuple[Delta, Scope, int]:
        """The delta from ``version`` as a role following ``follows`` gets it (``scoped``),
        once per base and set of sections."""
        key = (version, follows)
        if key not in self.scopes:
            found, base = self.diff(version), self.text_of(version)
            assert found is not None and base is not None
            self.scopes[key] = scoped(found.delta, follows, base, self.new_text)
        return self.scopes[key]

    def role_full(self, follows: tuple[str, ...], tokenizer: Tokenizer) -> tuple[int, Scope]:
        """Tokens of the full injection for a role following ``follows``, and its scope."""
        if follows not in self.role_fulls:
            text = set_version(self.new_text, self.new_version) if self.bump and self.new_version else self.new_text
            message = render_role_full(text, self.new_version, follows)
            self.role_fulls[follows] = (tokenizer.count(message), role_text(text, follows)[1])
        return self.role_fulls[follows]


def plan_update(
    session: SessionView,
    new_text: str | None = None,
    *,
    requested_full: frozenset[str] = frozenset(),
    impact: Impact | None = None,
    delta_override: Delta | None = None,
    forced_full: Mapping[str, str] | None = None,
    pending: Mapping[str, tuple[str, str]] | None = None,
    known: tuple[int, str, DiffResult] | None = None,
    narrowed: Mapping[str, tuple[str, ...]] | None = None,
) -> UpdatePlan:
    """Decide, for every teammate, delta or full (or frozen, or nothing due) for an update.

    Without ``new_text`` the update is the session's GC as it is; with it, ``new_text`` is
    the next version (its version is taken from its front matter, or the session's + 1).
    ``delta_override`` replaces the computed delta from its ``old_version`` (the Lead edited
    the items; it is proven against ``new_text`` like a computed one), and ``forced_full``
    maps teammates the Lead sends the full GC to, to the reason the Lead gave. ``pending``
    maps teammates to a status an unanswered reply asks for (NEED_CLARIFICATION, CONTEXT_LOST)
    and where it was read: it counts as if the plan said so. ``known`` is a diff the caller
    worked out already, (base version, base text, diff from it to ``new_text``): used when that
    version's base is still that text (the composer's, asked again by the plan it makes).
    ``narrowed`` maps roles to the sections they are sent this time, whatever subscriptions.yaml
    says (a message that would tip a teammate into a compaction, sent as its sections only).
    """
    tokenizer = session.tokenizer
    gc = session.gc
    previous_text = gc.text if (new_text is not None and gc is not None) else None
    text = new_text if new_text is not None else (gc.text if gc is not None else "")
    own = front_version(text)  # from the front matter: parsing the GC for it took most of a plan
    current = own if own is not None else session.gc_version
    # An edited GC that was not bumped yet: publishing will bump it, and the messages and their
    # sizes are those of that version. The text is planned as it is (a copy set to the new
    # version would be a second 10 MB GC that no kept parse knows, 13 ms of a re-plan), with
    # the new version in each delta and the bumped front matter counted in the full GC.
    bump = new_text is not None and gc is not None and current is not None and current == gc.version
    if bump and current is not None:
        current += 1
    plan = UpdatePlan(current, tokenizer.name, full_tokens(text, current, tokenizer, gc, bump))
    bases = _Bases(session, text, current, previous_text, bump)
    if known is not None and bases.text_of(known[0]) == known[1]:
        told = known[2]
        if bump:
            told = DiffResult(replace(told.delta, new_version=current), told.exact, told.problem)
        bases.cache[known[0]] = told
    if delta_override is not None and delta_override.old_version is not None:
        bases.cache[delta_override.old_version] = _proven(bases, delta_override)
    gate = session.plan.gate_evaluation if session.plan is not None else None
    if gate:
        phase = gate.get("phase", "?")
        since = gate.get("started")
        plan.frozen = f"gate evaluation of phase {phase} in progress" + (f" since {since}" if since else "")
    if current is None:
        plan.notes.append("the GC is unversioned: every teammate gets the full GC")
    mates = session.teammates()
    affected = session.receiving_roles()  # the composer's default impact, read once
    subscriptions = session.subscriptions
    # Teammates that confirmed the same version, ask the same and follow the same sections get
    # the same decision, and the same delta with the impact and its cost: deciding and pricing
    # each of 500 teammates took half of a ten-times re-plan's plan.
    decided: dict[tuple[int | None, bool, bool, bool, tuple[str, ...] | None], Decision] = {}
    priced: dict[int, tuple[Delta, int]] = {}  # by the decided delta's id (``decided`` holds it)

    def priced_for(decision: Decision, role: str) -> Decision:
        if decision.delta is None:
            return _for(decision, role) if decision.role != role else decision
        found = priced.get(id(decision.delta))
        if found is None:
            delta = replace(decision.delta, impact=impact or Impact(affected))
            found = priced[id(decision.delta)] = (delta, bases.cost(delta, tokenizer, decision.scope))
        return _for(decision, role, found[0], found[1])

    def forced(decision: Decision, role: str) -> Decision:
        reason = (forced_full or {}).get(role)
        if reason is None or decision.mode != "delta":
            return decision
        said = (*decision.conditions, Condition("FORCED", f"the Lead chose the full GC: {reason}"))
        return replace(decision, mode="full", conditions=said, delta=None, tokens=decision.full_tokens)

    for mate in mates:
        if not mate.receives:  # shut down, replaced, or finished: no update, no ping
            why = Condition("STATE", f"{mate.state_source}; set its state to active to send it updates")
            plan.decisions.append(Decision(mate.role, "inactive", (why,), 0, plan.full_tokens, mate.confirmed))
            continue
        waiting = (pending or {}).get(mate.role)
        status = waiting[0] if waiting is not None else mate.status
        wants_full = mate.role in requested_full or (status or "").upper() in FULL_REQUEST_STATUSES
        follows = subscriptions.follows(mate.role) if subscriptions is not None else None
        follows = (narrowed or {}).get(mate.role, follows)
        lost = (status or "").upper() == "CONTEXT_LOST"
        gained = (status or "").upper() == SECTIONS_GAINED
        plain_key = (mate.confirmed, lost, wants_full or gained, False, None)
        key = (mate.confirmed, lost, wants_full, gained, follows)
        decision = decided.get(key)
        if decision is None:
            decision = _decide(
                mate.role, mate.confirmed, status, wants_full, current, bases, plan, tokenizer, follows, gained
            )
            decided[key] = decision
        if waiting is not None:
            decision = _said_where(decision, waiting[1])
        decision = priced_for(forced(decision, mate.role), mate.role)
        if follows is not None and decision.mode in ("delta", "full"):
            plain = decided.get(plain_key)
            if plain is None:
                plain = decided[plain_key] = _decide(
                    mate.role, mate.confirmed, status, wants_full or gained, current, bases, plan, tokenizer, None
                )
            plain = priced_for(forced(plain, mate.role), mate.role)
            decision = replace(decision, unscoped_tokens=plain.tokens)
        plan.decisions.append(decision)
    return plan


def _said_where(decision: Decision, where: str) -> Decision:
    """FC-2 and FC-5 say where the unanswered reply that asks for them was read, and a
    gained subscription which sections it gained."""
    said = tuple(
        replace(c, reason=f"{c.reason} ({where})") if c.code in ("FC-2", "FC-5", "SECTIONS") else c
        for c in decision.conditions
    )
    return replace(decision, conditions=said)


def _for(decision: Decision, role: str, delta: Delta | None = None, tokens: int | None = None) -> Decision:
    """``decision`` for ``role`` (with ``delta`` and its ``tokens``, when given), made directly:
    ``dataclasses.replace`` looks the fields up on every call, 2.7 µs against 1.2, once for
    each of a re-plan's 500 teammates."""
    return Decision(
        role,
        decision.mode,
        decision.conditions,
        decision.tokens if tokens is None else tokens,
        decision.full_tokens,
        decision.base_version,
        decision.delta if delta is None else delta,
        decision.scope,
        decision.unscoped_tokens,
    )


def _proven(bases: _Bases, delta: Delta) -> DiffResult | None:
    """A hand-edited delta, checked like a computed one: does it reproduce the new GC?"""
    base = bases.text_of(delta.old_version) if delta.old_version is not None else None
    if base is None:
        return None
    try:
        exact = apply_delta(base, delta) == bases.new_text
    except ApplyError as exc:
        return DiffResult(delta, False, str(exc))
    return DiffResult(delta, exact, None if exact else "the edited delta does not reproduce the working GC")


def _decide(
    role: str,
    confirmed: int | None,
    status: str | None,
    wants_full: bool,
    current: int | None,
    bases: _Bases,
    plan: UpdatePlan,
    tokenizer: Tokenizer,
    follows: tuple[str, ...] | None = None,
    gained: bool = False,
) -> Decision:
    """ADR-002 §6's tree for one teammate. A role that follows some sections (``follows``) is
    decided on its view: its delta holds the items in its sections, FC-4 weighs the sections
    it follows, and its full injection is its sections. Where its sections hold every change
    (or every section there is), or leaving the rest out would not make the message smaller,
    it is sent what everyone is: a subscription changes a message only where it saves."""
    whole = plan.full_tokens
    if follows is not None:
        role_full, full_scope = bases.role_full(follows, tokenizer)
        if full_scope.others and role_full < whole:
            whole = role_full
        else:
            follows = None  # it follows every section there is: its messages are everyone's
    full = whole
    scope: Scope | None = None
    fired: list[Condition] = []
    lost = (status or "").upper() == "CONTEXT_LOST"
    if lost:
        fired.append(Condition("FC-2", "reported CONTEXT_LOST: all in-memory context is gone"))
    if confirmed is None:
        fired.append(Condition("FC-3", "no confirmed GC version yet (initial spawn)"))
    elif current is not None and confirmed < current - 1:
        fired.append(
            Condition(
                "FC-1",
                f"confirmed {label(confirmed)}, {current - confirmed} versions behind {label(current)}",
            )
        )
    elif current is not None and confirmed > current:
        fired.append(Condition("AHEAD", f"confirmed {label(confirmed)} is newer than {label(current)}"))
    if not lost and confirmed is not None and confirmed == current:
        return _result(role, "current", fired, 0, full, plan, scope=scope)
    delta: Delta | None = None
    if current is not None and confirmed == current - 1:
        result = bases.diff(confirmed)
        if result is None:
            fired.append(Condition("NO-BASE", f"no gc-history snapshot of {label(confirmed)} to compute a delta from"))
        else:
            delta = result.delta
            scoped_delta, delta_scope, touched = bases.scoped(confirmed, follows) if follows else (delta, None, 0)
            cheaper = delta_scope is not None and bases.cost(scoped_delta, tokenizer, delta_scope) < bases.cost(
                delta, tokenizer
            )
            if delta_scope is not None and delta_scope.items_left_out and cheaper:
                delta, scope = scoped_delta, delta_scope
                total = len(delta_scope.follows)
                what = "of the sections it follows"
            else:  # its sections hold every change (or leaving some out saves nothing): as everyone
                touched, total = bases.share(confirmed, delta)
                what = "sections"
                full = plan.full_tokens
            if total and touched * 2 > total:
                fired.append(Condition("FC-4", f"the delta touches {touched} of {total} {what} (more than half)"))
            cost = bases.cost(delta, tokenizer, scope)
            if cost >= full:
                said = "the full GC" if scope is None else "its sections in full"
                reason = f"the delta ({cost:,} tokens) costs no less than {said} ({full:,})"
                fired.append(Condition("FC-4", reason))
            if not result.exact:
                fired.append(Condition("UNPROVEN", result.problem or "the delta does not reproduce the new GC"))
    if wants_full:
        fired.append(Condition("FC-5", "asked for the full GC (NEED_CLARIFICATION or an explicit request)"))
    if gained:
        said = "its sections in full" if follows is not None else "the full GC"
        fired.append(Condition("SECTIONS", f"it follows sections whose text its updates did not carry: {said}"))
    if current is None:
        fired.append(Condition("NO-BASE", "the GC is unversioned"))
    if fired or delta is None:
        scope = bases.role_full(follows, tokenizer)[1] if follows is not None else None
        return _result(role, "full", fired, whole, whole, plan, base=confirmed, scope=scope)
    return _result(role, "delta", fired, 0, full, plan, base=confirmed, delta=delta, scope=scope)


def _result(
    role: str,
    mode: Mode,
    fired: list[Condition],
    tokens: int,
    full: int,
    plan: UpdatePlan,
    base: int | None = None,
    delta: Delta | None = None,
    scope: Scope | None = None,
) -> Decision:
    if plan.frozen and mode != "current":
        fired = [*fired, Condition("GATE", f"{plan.frozen}: nothing is sent until the gate concludes")]
        return Decision(role, "frozen", tuple(fired), 0, full, base, None, scope)
    return Decision(role, mode, tuple(fired), tokens, full, base, delta, scope)
