"""Carrying out a reviewed reply: what stops it before anything is prepared."""

from __future__ import annotations


class CarriedAlready(Exception):
    """The message was carried out before (``done`` says what, and when); carrying it out again
    would write a second re-send and second ledger lines, so it takes the Lead's word."""

    def __init__(self, sender: str | None, done: str) -> None:
        self.done = done
        super().__init__(f"this message from {sender or '?'} was carried out already ({done})")
