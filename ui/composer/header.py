"""What the composer says about its update: the header (the versions, the delta's cost
against the full GC, why publishing would not go through) and the message as shown."""

from __future__ import annotations

from models.delta.decisions import UpdatePlan
from models.publish.composer import Composer, missing_gc
from models.session.versions import label
from models.text.intent import read_interrupted
from models.text.wording import counted


def describe(c: Composer, plan: UpdatePlan, message: str) -> tuple[str, list[str]]:
    """The header line and the warnings to show under it."""
    tokenizer = c.session.tokenizer
    problems: list[str] = []
    missing = missing_gc(c.session) if not c.has_update else None
    if missing is not None:
        head = f"Nothing to compose or publish: {missing}"
    elif c.base_version is None:
        head = "The GC has no version and no gc-history snapshot: every teammate gets the full GC"
    elif not c.has_update and c.disk_base:
        head = (
            f"No gc-history snapshot: {label(c.base_version)} on disk is taken as the version teammates hold; "
            f"edit the GC to compose {label(c.new_version)} (Baseline… takes the snapshot)"
        )
    elif not c.has_update:
        head = f"{label(c.base_version)} is published; edit the GC to compose {label(c.new_version)}"
    else:
        cost = tokenizer.count(message)
        head = (
            f"{label(c.base_version)} {'on disk' if c.disk_base else 'published'} → composing {label(c.new_version)} · "
            f"{counted(len(c.items()), 'item')} · delta {cost:,} tok vs {plan.full_tokens:,} full · "
            f"team {plan.sent_tokens:,} tok, {plan.savings_percent:.0f}% saved ({tokenizer.name})"
        )
        if plan.scoped:
            head += f" · {plan.unscoped_tokens:,} tok without subscriptions"
    interrupted = read_interrupted(c.session.folder)
    if interrupted is not None:  # first: the files may say half of one version and half of another
        problems.append(interrupted.describe(c.session.folder))
    if c.base_problem is not None:
        problems.append(
            f"{c.base_problem}: no delta from {label(c.base_version)}; teammates that confirmed it get the full GC"
        )
    if plan.frozen:
        problems.append(f"{plan.frozen}: publishing is frozen until the gate concludes")
    if c.disk_changed_under_edit:
        problems.append(
            "global-context.md changed on disk while you were editing it here: publishing will be refused. "
            "Merge with disk… takes it into your draft; undoing your edits takes it as it is."
        )
    if c.hand_items is not None and not c.exact:
        problems.append("the edited items do not reproduce the working GC: delta recipients will get the full GC")
    return head, problems


MESSAGE_SHOWN = 200_000  # characters; a full 10 MB GC took a third of a second to lay out


def shown_message(message: str, body: str = "", body_lines: int | None = None) -> str:
    """``message + body`` as the Message tab shows it: past ``MESSAGE_SHOWN`` characters, cut at
    a line end with a line that says so (Copy message copies all of it). The full GC comes as
    ``body``, after its header: joining a 10 MB GC into one message took 40 ms of every re-plan.
    ``body_lines``, when the caller knows how many lines ``split_lines`` cuts the body into,
    spares counting the line ends of all of it."""
    if len(message) + len(body) <= MESSAGE_SHOWN:
        return message + body
    into_body = max(MESSAGE_SHOWN - len(message), 0)
    shown = message[:MESSAGE_SHOWN] + body[:into_body]
    cut = shown.rfind("\n") + 1 or MESSAGE_SHOWN
    if body_lines is None:
        body_after = body.count("\n", into_body)
    else:  # the line ends are the lines, less a last line that has none
        body_after = body_lines - (bool(body) and not body.endswith("\n")) - body.count("\n", 0, into_body)
    rest = shown.count("\n", cut) + message.count("\n", MESSAGE_SHOWN) + body_after
    rest += not (body or message).endswith("\n")
    return shown[:cut] + f"… {rest:,} more lines: Copy message copies the whole message\n"
