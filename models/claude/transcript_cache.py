"""What the CLI has read of each transcript, kept between runs in the session's
``.lead-console/transcripts/``: a second ``lead-console team`` reads only what was appended.

One small JSON file per transcript (named by a hash of its path) holds a ``Progress``: the
file's identity, size and modification time, its first bytes and how far it was read, and what
that much showed. A kept file is used only where the transcript is the same file as read and
begins with the same bytes (``TranscriptFollower`` checks, as it does between two reads in the
window). It is a cache: one that is missing, unreadable or of another form is read again from
the transcript, and one that cannot be written costs the next run time, nothing else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from models.claude.transcript_read import Progress, Received, TranscriptFollower
from models.claude.usage import Response
from models.text.atomic import atomic_write
from models.text.textfile import read_bounded

CACHE = Path(".lead-console") / "transcripts"
FORM = 3
_MAX_KEPT_BYTES = 64 * 1024 * 1024


def cached_follower(session_folder: Path, spend: bool = False) -> TranscriptFollower:
    """A follower that goes on from what earlier runs kept for this session; ``spend``: one
    that keeps every response's usage (a kept file without it is read again)."""
    folder = session_folder / CACHE
    kept: dict[Path, Progress] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return TranscriptFollower(spend=spend)
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            record = json.loads(read_bounded(folder / name, _MAX_KEPT_BYTES)[0])
            path, progress = from_record(record)
        except (OSError, ValueError, KeyError, TypeError, binascii.Error):
            continue  # read again from the transcript
        if folder / _name_of(path) == folder / name:
            kept[path] = progress
    return TranscriptFollower(kept, spend=spend)


def keep(follower: TranscriptFollower, session_folder: Path) -> None:
    """Write down what ``follower`` read further since it was made; nothing where the cache
    folder is not the session's own (a link out of it) or cannot be written."""
    advanced = follower.take_advanced()
    if not advanced:
        return
    folder = session_folder / CACHE
    try:
        if not folder.resolve().is_relative_to(session_folder.resolve()):
            return  # checked before any folder is made: a link on the way would take it elsewhere
        folder.mkdir(parents=True, exist_ok=True)
        for path, progress in advanced.items():
            data = json.dumps(to_record(path, progress), ensure_ascii=False).encode("utf-8")
            atomic_write(folder / _name_of(path), data, None)
    except OSError:
        return


def _name_of(path: Path) -> str:
    return hashlib.sha256(os.fsencode(path)).hexdigest()[:24] + ".json"


def to_record(path: Path, p: Progress) -> dict[str, Any]:
    """The JSON form of what was read of ``path``."""
    return {
        "form": FORM,
        "path": os.fsdecode(path),
        "ident": list(p.ident),
        "stamp": list(p.stamp),
        "head": base64.b64encode(p.head).decode("ascii"),
        "offset": p.offset,
        "last": list(p.last) if p.last is not None else None,
        "peak": p.peak,
        "model": p.model,
        "compactions": p.compactions,
        "after_compaction": p.after_compaction,
        "received": [[r.sender, r.summary, r.text, r.timestamp, r.turn] for r in p.received],
        "broken": p.broken,
        "spend": p.spend,
        "responses": [[r.model, r.input, r.write_5m, r.write_1h, r.read, r.output, r.ack] for r in p.responses],
        "last_id": p.last_id,
        "compaction_turns": [list(c) for c in p.compaction_turns],
        "ack_pending": p.ack_pending,
    }


def from_record(record: Any) -> tuple[Path, Progress]:
    """``to_record`` read back; ``ValueError`` (or ``KeyError``, ``TypeError``) for any other form."""
    if not isinstance(record, dict) or record.get("form") != FORM:
        raise ValueError("not a kept transcript of this form")
    dev, ino = (int(n) for n in record["ident"])
    size, mtime = (int(n) for n in record["stamp"])
    last = record["last"]
    after = record["after_compaction"]
    progress = Progress(
        (dev, ino),
        head=base64.b64decode(record["head"], validate=True),
        offset=int(record["offset"]),
        stamp=(size, mtime),
        last=(None if last[0] is None else str(last[0]), int(last[1])) if last is not None else None,
        peak=int(record["peak"]),
        model=str(record["model"]),
        compactions=[str(c) for c in record["compactions"]],
        after_compaction=int(after) if after is not None else None,
        received=[Received(str(s), _text(m), str(t), _text(w), int(n)) for s, m, t, w, n in record["received"]],
        broken=int(record["broken"]),
        spend=bool(record["spend"]),
        responses=[
            Response(str(m), int(i), int(w5), int(w1), int(r), int(o), bool(a))
            for m, i, w5, w1, r, o, a in record["responses"]
        ],
        last_id=_text(record["last_id"]),
        compaction_turns=[(int(t), int(m)) for t, m in record["compaction_turns"]],
        ack_pending=bool(record["ack_pending"]),
    )
    return Path(record["path"]), progress


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
