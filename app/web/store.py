"""A byte-bounded store of finished responses: segmented LRU, emptied when the data changes.

**Bounded by what it really holds.** Each entry is charged for its key, its headers and body
*and* for the Python objects around them (`sys.getsizeof` of every part, plus the table's
own slot), so the cap holds whatever the keys look like: tiny answers under huge keys cost
what they cost. `tests/test_store.py` checks the charge against `tracemalloc`.

**Not flushed by a flood.** New entries go to a probation segment; only an entry asked for a
second time moves to the protected segment (80 % of the cap). A stream of one-off keys, such
as unique search queries, can only churn probation, so the pages players actually reread stay.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, fields, is_dataclass
from threading import Lock
from typing import Any

__all__ = ["ResponseStore", "Stored", "charge"]

#: The share of the cap kept for entries that were asked for more than once.
PROTECTED_SHARE = 0.8
#: A single answer larger than this is not kept (none of ours is; data may grow).
MAX_ITEM = 512 * 1024
#: One entry's slot in an OrderedDict: hash-table entry and index at the table's load factor,
#: plus the doubly linked node that keeps the order (measured on CPython 3.11–3.13).
_SLOT = 200


@dataclass(frozen=True, slots=True)
class Stored:
    """One replayable response."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    #: "" for a stored redirect, which has none.
    etag: str
    #: The answer as it goes out, every header attached (`app.web.cache`), made once when it
    #: is stored; None: made when it is replayed.
    sent: Any = None


def charge(value: object) -> int:
    """Bytes `value` occupies, counting the objects it is made of (not shared singletons)."""
    if value is None or isinstance(value, bool | int):
        return 0  # small ints, True/False and None are shared singletons
    size = sys.getsizeof(value)
    if isinstance(value, str | bytes):
        return size
    if isinstance(value, tuple | frozenset | list | set):
        return size + sum(charge(item) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return size + sum(charge(getattr(value, f.name)) for f in fields(value))
    return size


class ResponseStore:
    """Responses by key, within `max_bytes`, for one data version at a time."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._probation: OrderedDict[Hashable, tuple[Stored, int]] = OrderedDict()
        self._protected: OrderedDict[Hashable, tuple[Stored, int]] = OrderedDict()
        self._probation_bytes = 0
        self._protected_bytes = 0
        self._version = ""
        self._lock = Lock()

    @property
    def bytes(self) -> int:
        """What the entries are charged, in all."""
        return self._probation_bytes + self._protected_bytes

    def __len__(self) -> int:
        return len(self._probation) + len(self._protected)

    def get(self, version: str, key: Hashable) -> Stored | None:
        """The response stored under `key` for data `version`; promotes it on a second ask."""
        with self._lock:
            if version != self._version:
                self._follow(version)
            found = self._protected.get(key)
            if found is not None:
                self._protected.move_to_end(key)
                return found[0]
            found = self._probation.pop(key, None)
            if found is None:
                return None
            self._probation_bytes -= found[1]
            self._protected[key] = found
            self._protected_bytes += found[1]
            # An overfull protected segment hands its oldest back to probation.
            while self._protected_bytes > self.max_bytes * PROTECTED_SHARE and self._protected:
                old_key, old = self._protected.popitem(last=False)
                self._protected_bytes -= old[1]
                self._probation[old_key] = old
                self._probation_bytes += old[1]
            self._evict()
            return found[0]

    def put(self, version: str, key: Hashable, stored: Stored) -> None:
        """Keep `stored` under `key`, unless the data changed since it was rendered."""
        cost = charge(key) + charge(stored) + _SLOT
        if cost > min(MAX_ITEM, self.max_bytes):
            return
        with self._lock:
            if not self._version:
                self._follow(version)
            # `get` follows the data version; an answer rendered from older data (a reload
            # happened meanwhile) is dropped rather than mixed in.
            if version != self._version or key in self._probation or key in self._protected:
                return
            self._probation[key] = (stored, cost)
            self._probation_bytes += cost
            self._evict()

    def _follow(self, version: str) -> None:
        if version != self._version:
            self._probation.clear()
            self._protected.clear()
            self._probation_bytes = self._protected_bytes = 0
            self._version = version

    def _evict(self) -> None:
        while self.bytes > self.max_bytes:
            segment = self._probation if self._probation else self._protected
            _, (_, cost) = segment.popitem(last=False)
            if segment is self._probation:
                self._probation_bytes -= cost
            else:
                self._protected_bytes -= cost
