"""The Lead's unpublished draft, kept with the session as it is typed, so that a crash, a killed
process or a power cut loses none of it: ``.lead-console/draft.json``.

It holds what one undo step holds (the working GC, hand-edited items, impact, forced fulls) and
the GC text the draft was taken from, so that a GC agents changed meanwhile is merged, never
overwritten. It is read leniently: a file that cannot be read or does not hold a draft is no
draft (and is said to be so), never a reason not to open the session.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast, get_args

from models.delta.items import DeltaItem, Impact, Op
from models.publish.composer import Composer
from models.text.textfile import read_text

DRAFT_FILE = Path(".lead-console") / "draft.json"


@dataclass(frozen=True)
class Draft:
    """One unpublished draft of the composer's."""

    working_text: str
    taken_text: str | None  # the GC on disk the draft was taken from
    hand_items: tuple[DeltaItem, ...] | None
    impact: Impact | None
    forced_full: tuple[tuple[str, str], ...]
    saved_at: str

    def encode(self) -> bytes:
        data = {
            "working_text": self.working_text,
            "taken_text": self.taken_text,
            "hand_items": [asdict(i) for i in self.hand_items] if self.hand_items is not None else None,
            "impact": asdict(self.impact) if self.impact is not None else None,
            "forced_full": [list(pair) for pair in self.forced_full],
            "saved_at": self.saved_at,
        }
        return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def draft_of(composer: Composer, now: str) -> Draft | None:
    """The draft to keep for ``composer``: None when it holds none of the Lead's work."""
    if not composer.dirty:
        return None
    forced = tuple(sorted(composer.forced_full.items()))
    return Draft(composer.working_text, composer.taken_text, composer.hand_items, composer.impact, forced, now)


def decode(raw: str) -> Draft:
    """The draft ``raw`` holds; ``ValueError`` when it holds none."""
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("working_text"), str):
        raise ValueError("not a draft")
    taken = data.get("taken_text")
    items = data.get("hand_items")
    impact = data.get("impact")
    forced = data.get("forced_full") or []
    return Draft(
        data["working_text"],
        taken if isinstance(taken, str) else None,
        tuple(_item(i) for i in items) if isinstance(items, list) else None,
        Impact(tuple(map(str, impact.get("affected", ()))), str(impact.get("actions", "NONE")))
        if isinstance(impact, dict)
        else None,
        tuple((str(p[0]), str(p[1])) for p in forced if isinstance(p, list) and len(p) == 2),
        str(data.get("saved_at") or "?"),
    )


def _item(raw: Any) -> DeltaItem:
    op = raw.get("op") if isinstance(raw, dict) else None
    if not isinstance(op, str) or op not in get_args(Op) or not isinstance(raw.get("ref"), str):
        raise ValueError("a draft item without op and ref")
    op = cast(Op, op)
    text = {
        k: raw.get(k) if isinstance(raw.get(k), str) else None for k in ("key", "old", "new", "content", "position")
    }
    return DeltaItem(op, raw["ref"], text["key"], text["old"], text["new"], text["content"], text["position"])


def read_draft(folder: Path) -> tuple[Draft | None, str | None]:
    """(the session's draft, why one could not be read): (None, None) when there is none."""
    path = folder / DRAFT_FILE
    try:
        return decode(read_text(path).text), None
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{DRAFT_FILE}: {exc.strerror or exc}; the draft kept there was not restored"
    except (ValueError, TypeError, RecursionError) as exc:
        return None, f"{DRAFT_FILE} holds no draft ({exc}); it was not restored"
