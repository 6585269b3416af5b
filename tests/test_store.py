"""The response store: what an entry is charged covers what it really takes, and the cap holds."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from app.web.inputs import PageKey
from app.web.store import ResponseStore, Stored

HEADERS = ((b"content-type", b"text/html; charset=utf-8"), (b"content-length", b"5"))


def _key(n: int, *, path: str, query: str, owned: frozenset[str] | None) -> tuple[PageKey, bool]:
    return (PageKey("http://localhost:8000", path + str(n), (("q", query + str(n)),), owned),
            n % 2 == 0)


@pytest.mark.parametrize(("path", "query", "body", "owned"), [
    ("/api/suggest", "", b"{}", None),                         # tiny answers, tiny keys
    ("/search", "가" * 200, b"x" * 20, frozenset({"tfa", "dwl"})),  # Hangul keys, owned set
    ("/rules/" + "Attack_" * 100, "q" * 1_500, b"y" * 3_000, None),  # long keys, real bodies
])
def test_the_charge_covers_the_memory_really_used(path: str, query: str, body: bytes,
                                                  owned: frozenset[str] | None) -> None:
    store = ResponseStore(max_bytes=1 << 40)
    store.get("v1", ("warm-up",))
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(2_000):
            # Fresh objects each time, as a request builds them: nothing shared but constants.
            stored = Stored(200, tuple((k, bytes(v)) for k, v in HEADERS), bytes(body) + b"",
                            f'W/"{n:020d}"')
            store.put("v1", _key(n, path=path, query=query, owned=owned), stored)
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(store) == 2_000
    assert store.bytes >= used, f"charged {store.bytes} for {used} bytes really used"
    assert store.bytes <= used * 2.5  # and not so much that the cap wastes most of itself


def test_the_cap_holds_and_the_oldest_one_off_entries_go_first() -> None:
    store = ResponseStore(max_bytes=200_000)
    body = b"z" * 1_000
    for n in range(1_000):
        store.put("v1", ("page", n), Stored(200, HEADERS, body, "W/\"e\""))
        assert store.bytes <= 200_000
    assert store.get("v1", ("page", 0)) is None
    assert store.get("v1", ("page", 999)) is not None


def test_entries_asked_for_twice_survive_a_flood() -> None:
    store = ResponseStore(max_bytes=200_000)
    page = Stored(200, HEADERS, b"p" * 1_000, "W/\"p\"")
    store.put("v1", "entry page", page)
    assert store.get("v1", "entry page") is page  # second ask: protected from now on
    for n in range(5_000):
        store.put("v1", ("flood", n), Stored(200, HEADERS, b"f" * 500, "W/\"f\""))
    assert store.get("v1", "entry page") is page


def test_a_new_data_version_empties_it_and_late_answers_are_dropped() -> None:
    store = ResponseStore(max_bytes=100_000)
    store.get("v1", "a")
    store.put("v1", "a", Stored(200, HEADERS, b"old", "W/\"1\""))
    assert store.get("v2", "a") is None and len(store) == 0
    store.put("v1", "a", Stored(200, HEADERS, b"rendered before the reload", "W/\"1\""))
    assert store.get("v2", "a") is None


def test_an_answer_larger_than_the_cap_is_not_kept() -> None:
    store = ResponseStore(max_bytes=10_000)
    store.get("v1", "x")
    store.put("v1", "x", Stored(200, HEADERS, b"b" * 20_000, "W/\"b\""))
    assert len(store) == 0 and store.bytes == 0
