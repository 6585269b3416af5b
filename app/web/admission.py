"""Admission control for answers that cost CPU: search, suggest, `/go/`, 404 suggestions, and
every page or API answer the response cache could not give.

Search work is CPU-bound Python. Run by every thread of the pool at once, it takes the GIL
from the event loop, and then everything waits: health probes, static files, cached pages.
So a worker runs at most a few searches at a time, lets a few more wait briefly, and answers
the rest at once with 503 and `Retry-After`. Cached answers never get here (the response cache
sits in front), so a flood of unique queries costs the attacker a fast 503 and costs the
players who read cached pages nothing.

The other routes' uncached answers (a page for a new owned-collections cookie, the first render
of a page after a reload) take a page slot of their own, so that a flood of them cannot take
the event loop either: `PAGE_SLOTS` at once, `PAGE_QUEUE` waiting. Routes marked `light` (static
files, health probes, the manifest) never wait.
"""

from __future__ import annotations

import anyio
import anyio.lowlevel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import AppError
from app.web.errors import send_error
from app.web.routing import route_of

__all__ = ["ALONE", "AdmissionMiddleware", "Busy", "Gate"]

#: The longest a request waits for a slot before it is refused.
WAIT_SECONDS = 2.0
#: What a refused client is told to wait before trying again.
RETRY_AFTER = "1"
#: Uncached pages rendered at once per worker, and how many may wait (each at most 2 s).
#: Rendering is CPU-bound Python: more at once only share the same core.
PAGE_SLOTS = 4
PAGE_QUEUE = 128
#: Marks (in its scope) an expensive request that is the worker's only search work: it holds
#: the one slot taken and none waits, once every request that arrived with it has reached its
#: gate. The lean layer then runs its handler on the event loop (`app.web.lean`).
ALONE = "rulesajeon.alone"


class Busy(AppError):
    """503: every slot is taken and the queue is full (or the wait ran out)."""

    def __init__(self) -> None:
        super().__init__(503, "요청이 많아 잠시 후 다시 시도해 주세요.",
                         headers={"retry-after": RETRY_AFTER})


class Gate:
    """At most `slots` holders at once, at most `queue` waiting, each for at most `wait` s.

    The numbers are `RULES_SEARCH_SLOTS` and `RULES_SEARCH_QUEUE` (see `app.settings` for how
    the defaults were measured).
    """

    def __init__(self, slots: int, queue: int, wait: float = WAIT_SECONDS) -> None:
        self.slots = slots
        self.queue = queue
        self._slots = anyio.Semaphore(slots)
        self._queue = queue
        self._wait = wait
        self._waiting = 0

    def try_enter(self) -> bool:
        """Take a slot only if one is free now (for optional work such as 404 suggestions)."""
        try:
            self._slots.acquire_nowait()
        except anyio.WouldBlock:
            return False
        return True

    async def enter(self) -> None:
        """Take a slot, waiting a little if needed; raises `Busy` when that is not possible."""
        if self.try_enter():
            return
        if self._waiting >= self._queue:
            raise Busy()
        self._waiting += 1
        try:
            with anyio.fail_after(self._wait):
                await self._slots.acquire()
        except TimeoutError:
            raise Busy() from None
        finally:
            self._waiting -= 1

    def leave(self) -> None:
        """Give the slot back."""
        self._slots.release()

    def alone(self) -> bool:
        """Whether the caller, holding a slot, is the only holder and nobody waits."""
        return self._slots.value == self.slots - 1 and not self._waiting


class AdmissionMiddleware:
    """Runs the routes declared `expensive` through the search gate, and every other route but
    the `light` ones through the page gate."""

    def __init__(self, app: ASGIApp, gate: Gate, pages: Gate | None = None) -> None:
        self.app = app
        self.gate = gate
        self.pages = pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = route_of(scope) if scope["type"] == "http" else None
        gate = (None if route is None or route.light else
                self.gate if route.expensive else self.pages)
        if gate is None:
            await self.app(scope, receive, send)
            return
        try:
            await gate.enter()
        except Busy as busy:
            await send_error(scope, receive, send, busy)
            return
        # The answer is kept until it is complete and the slot given back before it is sent:
        # a client that does not read holds its connection (until the protocol's write
        # timeout), never a slot others are waiting for.
        answer: list[Message] = []

        async def keep(message: Message) -> None:
            answer.append(message)

        try:
            # A lean handler run on the event loop (`app.web.lean`) runs to its end without
            # yielding: first let every request that arrived with this one reach its gate, so
            # the slots and the queue bound the work on the loop as they bound threads (a
            # flood of uncached pages gets its 503s at once, not after every earlier render).
            await anyio.lowlevel.checkpoint()
            if gate is self.gate and gate.alone():
                # Nothing else for this worker to do: the search runs on the loop, without
                # the thread pool's hand-over (`app.web.lean`).
                scope[ALONE] = True
            await self.app(scope, receive, keep)
        finally:
            gate.leave()
        for message in answer:
            await send(message)
