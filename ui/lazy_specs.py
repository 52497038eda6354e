"""Children specs made when first read: a large TEAM-MEMORY's entry rows, wanted once their
section is expanded."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

from ui.node_model import Spec


class LazySpecs(Sequence[Spec]):
    """Children specs made when first read, with their number known before they are made,
    itself worked out when first asked for; whether there are any, when a view asks.

    A collapsed TEAM-MEMORY section keeps its entries pending (``defer_children``); its rows'
    specs are only needed once it is expanded, and 200,000 of them made up front cost 30 MB.
    Counting the entries of every section of a 14 MB file took 60 ms of opening it, where a
    view lays out each section row asking only whether it has any, and shows the count of
    the rows on screen.
    """

    __slots__ = ("_count", "_made", "_make", "_nonempty")

    def __init__(self, make: Callable[[], list[Spec]], count: Callable[[], int], nonempty: Callable[[], bool]) -> None:
        self._make: Callable[[], list[Spec]] | None = make
        self._made: list[Spec] | None = None
        self._count: int | Callable[[], int] = count
        self._nonempty = nonempty

    def __bool__(self) -> bool:
        if self._made is not None or isinstance(self._count, int):
            return len(self) > 0
        return self._nonempty()

    def _specs(self) -> list[Spec]:
        if self._made is None:
            assert self._make is not None
            self._made, self._make = self._make(), None
        return self._made

    def __len__(self) -> int:
        if self._made is not None:
            return len(self._made)
        if not isinstance(self._count, int):
            self._count = self._count()
        return self._count

    @overload
    def __getitem__(self, index: int) -> Spec: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Spec]: ...

    def __getitem__(self, index: int | slice) -> Spec | Sequence[Spec]:
        return self._specs()[index]

    def __iter__(self) -> Iterator[Spec]:
        return iter(self._specs())
