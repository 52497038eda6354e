"""Publishing what the Lead composed: the decisions of every teammate and every file written."""

from __future__ import annotations

from models.actions.preview import Preview
from models.publish.composer import Composer
from models.session.folder import GC_FILE
from models.session.versions import label


def prepare_publish(composer: Composer, *, add_meta: bool = False, now: str | None = None) -> Preview:
    """The preview of publishing ``composer``'s update: its ``pending`` must hold what the
    teammates' replies ask (``models.actions.replies``), as the window and the CLI both set it."""
    plan = composer.plan()
    writes = composer.publish_plan(now=now, add_meta=add_meta, plan=plan)
    recipients = len(plan.recipients)
    return Preview(
        "publish",
        f"Publish {label(writes.version)} to {recipients} teammate{'s' if recipients != 1 else ''}",
        composer.session.folder,
        tuple(writes.writes),
        tuple(plan.decisions),
        tuple(writes.blocked),
        tuple(writes.skipped),
        last=GC_FILE,
        messages=tuple(writes.sent),
        version=writes.version,
    )


def message_of(preview: Preview, role: str) -> str | None:
    """The exact message ``preview`` writes for ``role`` (None: it sends that teammate nothing)."""
    path = dict(preview.messages).get(role)
    found = next((w for w in preview.writes if w.path == path), None) if path is not None else None
    return found.data.decode("utf-8") if found is not None else None
