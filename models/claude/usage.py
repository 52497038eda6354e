"""One model response's tokens by cache tier, as a transcript's assistant line records them.

PROTOCOL.md: a response is written as one line per content block, every line with the same
``message.id`` and ``usage`` (count it once); the usage gives the uncached input, the cache
writes (``cache_creation`` splits them into five-minute and one-hour writes, priced apart) and
reads, and the output. A response that sends an ``[ACK-UPDATE]`` (a SendMessage whose text holds
it, on any of its lines) is marked: it is the teammate's half of an ACK round trip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ACK_WORD = b"[ACK-UPDATE]"


@dataclass(frozen=True, slots=True)
class Response:
    """One response's tokens by tier, and whether it acknowledged an update."""

    model: str
    input: int
    write_5m: int
    write_1h: int
    read: int
    output: int
    ack: bool = False

    @property
    def prompt(self) -> int:
        """The request's size: what the long-prompt rate is decided on."""
        return self.input + self.write_5m + self.write_1h + self.read


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0


def response_of(entry: dict[str, Any], ack: bool) -> tuple[str | None, Response] | None:
    """(message id, response) of an assistant line with a usage; None for any other line.
    ``ack``: the line holds an ``[ACK-UPDATE]``."""
    message = entry.get("message") if entry.get("type") == "assistant" else None
    usage = message.get("usage") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(usage, dict):
        return None
    model, ident = message.get("model"), message.get("id")
    writes = _int(usage.get("cache_creation_input_tokens"))
    split = usage.get("cache_creation")
    hour = min(_int(split.get("ephemeral_1h_input_tokens")), writes) if isinstance(split, dict) else 0
    response = Response(
        model if isinstance(model, str) else "",
        _int(usage.get("input_tokens")),
        writes - hour,
        hour,
        _int(usage.get("cache_read_input_tokens")),
        _int(usage.get("output_tokens")),
        ack,
    )
    return (ident if isinstance(ident, str) else None), response
