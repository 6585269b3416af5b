"""Admission control: search work cannot take the server from everyone else.

Before the fix, 20 clients sending unique typo-laden queries ran 20 searches at once in the
thread pool; `/healthz` then took up to 1.7 s. Now a worker runs a few searches at a time
(`SLOTS`), lets some wait, and refuses the rest at once with 503 and `Retry-After`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, urlsplit

import anyio
import pytest
from fastapi import Request, Response
from fastapi.testclient import TestClient
from starlette.types import Message

from app.settings import Settings
from app.web.admission import AdmissionMiddleware, Busy, Gate
from app.web.app import create_app
from app.web.lean import LeanEndpoints
from app.web.routing import Route, RouteMiddleware
from bench.hostile_queries import generate
from bench.server import running_server
from tests.conftest import DATA, LOCAL
from tests.raw import Reply, fetch, read_all, responses

QUERIES = Path(__file__).parents[1] / "bench" / "search-queries.dev.json"


def test_the_gate_admits_its_slots_queues_a_few_and_refuses_the_rest() -> None:
    async def scenario() -> list[str]:
        gate = Gate(slots=2, queue=1, wait=0.2)
        outcomes: list[str] = []

        async def visitor(name: str, hold: float) -> None:
            try:
                await gate.enter()
            except Busy as busy:
                assert busy.status == 503 and busy.headers["retry-after"]
                outcomes.append(f"{name}:503")
                return
            outcomes.append(f"{name}:in")
            await anyio.sleep(hold)
            gate.leave()

        async with anyio.create_task_group() as group:
            group.start_soon(visitor, "a", 0.5)
            group.start_soon(visitor, "b", 0.5)
            await anyio.sleep(0.01)
            group.start_soon(visitor, "waits-too-long", 0.0)  # queued, gives up after 0.2 s
            await anyio.sleep(0.01)
            group.start_soon(visitor, "queue-full", 0.0)
        return outcomes

    # In a thread of its own: the browser tests' Playwright keeps an event loop running in the
    # main thread for the whole session.
    with ThreadPoolExecutor(max_workers=1) as pool:
        outcomes = pool.submit(anyio.run, scenario).result(timeout=30)
    assert outcomes[:3] == ["a:in", "b:in", "queue-full:503"]
    assert outcomes[3] == "waits-too-long:503"


def test_a_busy_server_still_answers_404s_just_without_suggestions(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index"))
    with TestClient(app, base_url=LOCAL) as client:
        missing = client.get("/rules/Attack_of_Oportunity")
        assert missing.status_code == 404 and "Attack_of_Opportunity" in missing.text
        gate: Gate = app.state.gate
        held = [gate.try_enter() for _ in range(gate.slots)]
        assert all(held) and not gate.try_enter()
        try:
            busy = client.get("/rules/Attack_of_Oportunity")
            assert busy.status_code == 404 and "Attack_of_Opportunity" not in busy.text
            # Cached answers do not need a slot at all.
            assert client.get("/rules/Attack_of_Opportunity").status_code == 200
        finally:
            for _ in held:
                gate.leave()


@pytest.fixture(scope="module")
def narrow(index_dir: Path) -> Iterator[tuple[str, int]]:
    """A server with one search slot and two places in the queue: a flood overflows it for
    sure, where the defaults (6 and 128) would need well-timed hundreds of connections. Its
    base URL and the pid of its one worker (the server process itself)."""
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_SEARCH_SLOTS": "1", "RULES_SEARCH_QUEUE": "2"}
    with running_server(env) as (base, process):
        yield base, process.pid


@pytest.mark.parametrize("path", ["/api/search?q=", "/search?q=", "/api/suggest?q=", "/go/"])
def test_a_flood_of_unique_searches_gets_fast_503s_and_health_stays_up(
        narrow: tuple[str, int], path: str) -> None:
    """60 unique searches sent at once (each connection opened first, then every request
    written while the worker is held still, so that it reads them in one turn): the worker
    runs one, queues two and refuses the rest. (A search that finds the worker with no other
    search work runs at once, on the event loop: a trickle is answered one by one, never
    refused.)"""
    base, worker = narrow
    queries = generate(60, seed=len(path))
    health: list[Reply] = []
    replies = _sent_together(base, [path + quote(q, safe="") for q in queries],
                             meanwhile=lambda: health.append(fetch(base, "/healthz", timeout=30)),
                             held=worker)
    statuses = Counter(reply.status for reply in replies)
    assert health[0].status == 200
    assert len(replies) == len(queries)
    assert statuses[503] > 0, statuses
    assert set(statuses) <= {200, 302, 503}, statuses
    assert all(r.headers.get("retry-after") == "1" for r in replies if r.status == 503)


def test_a_crowd_of_players_searching_at_once_is_answered_not_refused(live_server: str) -> None:
    """60 players' searches arriving together (one connection each, all sent in one instant)
    are all answered: a burst a worker clears in a fraction of a second is queued, not
    refused. With room for only 32 to wait, a worker given most of 50 new connections (the
    kernel hands a burst of connections to whichever worker wakes first) refused searches
    under the uncached load mix."""
    queries = [q["q"] for q in json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]]
    crowd = [f"{q} {n}" for n, q in enumerate(queries[:60])]  # unique: none is cached
    replies = _sent_together(live_server, ["/api/search?q=" + quote(q, safe="") for q in crowd])
    statuses = Counter(r.status for r in replies)
    assert statuses == {200: len(crowd)}, statuses


def _sent_together(base: str, targets: list[str],
                   meanwhile: Callable[[], object] = lambda: None,
                   held: int | None = None) -> list[Reply]:
    """GET every target on a connection of its own, all opened first and then written back to
    back (a burst a worker reads in one turn; with `held`, that process is stopped while they
    are written, so that it surely does); `meanwhile()` while they are answered; the
    replies."""
    address = urlsplit(base)
    sockets = [socket.create_connection((address.hostname, address.port), timeout=60)
               for _ in targets]
    try:
        # Answered once the worker has accepted every connection opened before it (the
        # listening queue is first in, first out): a burst written to connections still in
        # that queue reached the app a few at a time, and CI once saw all 60 answered.
        fetch(base, "/healthz", timeout=30)
        if held is not None:
            os.kill(held, signal.SIGSTOP)
        try:
            for sock, target in zip(sockets, targets, strict=True):
                sock.sendall(f"GET {target} HTTP/1.1\r\nHost: {address.netloc}\r\n"
                             "Connection: close\r\n\r\n".encode())
        finally:
            if held is not None:
                os.kill(held, signal.SIGCONT)
        meanwhile()
        return [r for sock in sockets for r in responses(read_all(sock))]
    finally:
        for sock in sockets:
            sock.close()



def test_a_lone_search_runs_on_the_event_loop_and_searches_together_in_the_pool() -> None:
    """The thread pool's hand-over and back cost an API search a third of its time on this
    machine; with no other search to share the worker with, the search runs on the loop.
    Searches that arrive together still go to the pool, where the gate bounds them and the
    loop answers health probes between their turns."""
    threads: list[int] = []

    def search(request: Request, q: str = "") -> Response:
        threads.append(threading.get_ident())
        return Response(q)

    route = Route("/find", search, ("GET",), expensive=True, lean=True)
    app = RouteMiddleware(AdmissionMiddleware(LeanEndpoints([route]), gate=Gate(4, 8),
                                              pages=Gate(4, 8)), [route])

    async def get(query: str) -> None:
        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                assert message["status"] == 200

        scope = {"type": "http", "method": "GET", "path": "/find", "root_path": "",
                 "query_string": f"q={query}".encode(), "headers": []}
        await app(scope, receive, send)

    async def scenario() -> tuple[int, list[int]]:
        loop_thread = threading.get_ident()
        await get("alone")
        async with anyio.create_task_group() as group:
            for n in range(3):
                group.start_soon(get, f"together{n}")
        await get("alone again")
        return loop_thread, threads

    with ThreadPoolExecutor(max_workers=1) as pool:
        loop_thread, ran = pool.submit(anyio.run, scenario).result(timeout=30)
    assert len(ran) == 5
    assert ran[0] == loop_thread and ran[4] == loop_thread
    assert all(thread != loop_thread for thread in ran[1:4])
