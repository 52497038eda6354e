"""The Lead's matrix of what each role follows, written to subscriptions.yaml.

``prepare_subscriptions`` takes the whole matrix the Lead settled on (role → the top-level
sections it follows; None: every section) and previews the file's new text; committing it
writes that, or nothing if the file changed since. ``proposed_matrix`` is where the Lead starts
from when the file does not exist yet: ``models.publish.subscribing``'s proposal.
"""

from __future__ import annotations

from collections.abc import Mapping

from models.actions.preview import Preview
from models.delta.scope import matched, top_titles
from models.publish.subscribing import Choice, propose
from models.review.inbox import read_inbox
from models.session.snapshot import SessionView
from models.session.subscriptions import SUBSCRIPTIONS_FILE, render_subscriptions
from models.text.transaction import edit_write

Matrix = Mapping[str, tuple[str, ...] | None]


class SubscriptionsError(Exception):
    """The matrix cannot be written as asked (no GC to follow, a role that is no teammate)."""


def current_matrix(session: SessionView) -> dict[str, tuple[str, ...] | None]:
    """Every teammate's sections as the file says now (None: every section)."""
    subs = session.subscriptions
    return {role: subs.follows(role) if subs is not None else None for role in session.roles()}


def _gained(before: tuple[str, ...] | None, after: tuple[str, ...] | None, titles: list[str]) -> list[str]:
    """The sections of the GC ``after`` follows that ``before`` did not (None: every one)."""
    if before is None:
        return []
    was = set(matched(before, titles)[0])
    return [t for t in (titles if after is None else matched(after, titles)[0]) if t not in was]


def proposed_matrix(session: SessionView) -> tuple[dict[str, tuple[str, ...] | None], dict[str, tuple[Choice, ...]]]:
    """The proposal for every teammate (None: every section), and each choice's reason."""
    gc = session.gc
    if gc is None:
        raise SubscriptionsError("this session has no global-context.md: there are no sections to follow")
    roles = list(session.roles())
    said = [(m.sender, m.text, m.source) for m in read_inbox(session.folder, roles)]
    choices = propose(gc, roles, said)
    every = len(gc.sections)
    # A role proposed every section follows them all, also those later versions add.
    matrix = {role: tuple(c.section for c in choices[role]) for role in roles}
    return {role: None if len(follows) >= every else follows for role, follows in matrix.items()}, choices


def prepare_subscriptions(session: SessionView, matrix: Matrix) -> Preview:
    """The write of ``matrix`` as subscriptions.yaml; what it names that the session does not
    have is said, not refused (a section may come with the next version)."""
    gc = session.gc
    if gc is None:
        raise SubscriptionsError("this session has no global-context.md: there are no sections to follow")
    known = set(session.roles())
    strangers = [role for role in matrix if role not in known]
    if strangers:
        raise SubscriptionsError(f"{', '.join(strangers)}: no teammate of this session by that name")
    titles = top_titles(gc)
    notes: list[str] = []
    now = current_matrix(session)
    for role, follows in matrix.items():
        if follows is not None:
            unknown = matched(follows, titles)[1]
            if unknown:
                notes.append(f"{role}: {', '.join('§' + t for t in unknown)} is no section of the GC yet")
        gained = _gained(now.get(role), follows, titles)
        if gained:
            notes.append(
                f"{role} will follow {', '.join('§' + t for t in gained)}: where its updates have not carried "
                "their text, its next one is its sections in full"
            )
    text = render_subscriptions(matrix)
    followed = sum(1 for f in matrix.values() if f is not None)
    summary = f"{followed} of {len(matrix)} roles follow some sections only"
    write = edit_write(session.folder / SUBSCRIPTIONS_FILE, lambda _old: text, summary)
    if write.changes_nothing:
        notes.append(f"{SUBSCRIPTIONS_FILE} says this already")
        return Preview("subscriptions", "Subscriptions unchanged", session.folder, skipped=tuple(notes))
    return Preview("subscriptions", "Set what each role follows", session.folder, (write,), skipped=tuple(notes))
