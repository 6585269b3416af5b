"""uvicorn's httptools protocol with bounds on what one connection may cost.

uvicorn's httptools protocol takes a request head of any size and any duration: httptools
buffers a header value until it ends (a 32 MiB header costs 32 MiB and quadratic copying), any
number of fields is accepted, and a client that trickles one header byte at a time keeps its
connection forever, since uvicorn's keep-alive timer is cancelled by any data and nothing times
out a connection that sends nothing. Nor does anything time out an answer the client never
reads: a pipelining client that reads nothing held its connection, its parsed requests and (in
the app) its search slots for as long as it liked, and every other request got 503 once the
workers' connections were used up. This subclass enforces, while the bytes arrive and before
the app sees a request (`app.web.limits`):

* **the head**: 414 for a long target, 431 for big or many headers, 408 when the head is not
  complete `HEADER_TIMEOUT` seconds after the connection opened or its last answer ended, 505
  for an HTTP version other than 1.0 and 1.1;
* **writes**: an answer whose bytes (in the transport's buffer and the kernel's send queue)
  make no progress for `WRITE_TIMEOUT` seconds ends the connection (aborted: a graceful close
  would wait for the client forever);
  with a reset (a plain close would leave the unsent bytes queued in the kernel, and the client
  none the wiser, for minutes);
* **pipelining**: at most `PIPELINE_DEPTH` requests are parsed ahead of the one being answered,
  and none while an earlier answer is still in the process; a pipelined request is computed
  only once the client has taken every earlier answer (the kernel's send queue is empty), so a
  client that never reads costs one answer's computation per connection, not one per request
  it sent; the rest of the bytes wait unparsed, and the socket is not read meanwhile;
* **connections**: past `RULES_MAX_CONNECTIONS`, the connections that have waited on their
  client the longest (idle, or not reading an answer) are closed to make room, a few at a
  time; requests get 503 only when every connection is being answered, and `/healthz` and
  `/readyz` have `HEALTH_RESERVE` connections of their own beyond the bound; one client address
  keeps at most `RULES_MAX_CLIENT_CONNECTIONS` (`app.web.clients`);
* **draining**: when the worker stops (a reload replaces it, or SIGTERM), it stops accepting,
  and each connection ends between requests, never mid-request: an answer in progress carries
  `Connection: close`; an idle kept-alive connection stays open `DRAIN_IDLE` seconds more and
  the request that arrives meanwhile is answered with `Connection: close` (uvicorn closed idle
  connections at once, and a client whose next request was already on its way got nothing);
* **errors**: an answer already due on the connection (a valid request pipelined before a bad
  one) is sent before the error; a client that went away mid-answer is one line in the log
  (throttled, like every line a client can cause), not a traceback.

Everything else (keep-alive, parsing, the ASGI cycle) is uvicorn's own code.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import functools
import heapq
import http
import logging
import random
import re
import socket
import struct
import termios
import urllib.parse
import weakref
from collections.abc import Callable
from typing import Any, Final, NoReturn

import httptools
from uvicorn._types import HTTPScope
from uvicorn.config import Config
from uvicorn.logging import TRACE_LOG_LEVEL
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.protocols.utils import get_client_addr
from uvicorn.server import ServerState

from app.logs import Throttled, log_access
from app.web import limits
from app.web.clients import ClientConnections
from app.web.known import Known
from app.web.security import SECURITY_HEADERS

__all__ = ["BoundedHttpToolsProtocol"]

#: Data is fed to the parser in slices of this size, so the raw head count below can only
#: over-count, by at most one slice: the slice in which a request begins may also hold the end
#: of the previous one.
_SLICE: Final = 4_096
#: While a request is being answered, the bytes after it are fed in slices this small, so that
#: parsing stops within a few requests of `PIPELINE_DEPTH` (the shortest request is ~18 bytes).
_PIPELINED_SLICE: Final = 64
#: How a head ends: an empty line, after CRLF or (httptools accepts it) a bare LF.
_HEAD_ENDS: Final = (b"\n\r\n", b"\n\n")
#: Head bytes that are neither target nor header names and values (method, version, ": " and
#: CRLF per field), plus the one-slice over-count.
_HEAD_ALLOWANCE: Final = 2 * _SLICE
#: How often a connection with unsent bytes is looked at.
_WRITE_CHECK: Final = 1.0
#: First wait before looking again whether the client took its answers, so that a pipelined
#: request can start (quadrupled each time, up to `_LAST_POLL`; then the write watch looks, once
#: a second): on a LAN the queue empties within a millisecond or two.
_FIRST_POLL: Final = 0.002
_LAST_POLL: Final = 0.128
#: Past the connection bound, this share of the bound is closed at once (the ones that waited
#: longest): one look over the connections serves many new ones.
_EVICT_SHARE: Final = 32
#: One look over the connections picks this many times the share (`_Eviction`).
_LOOK_AHEAD: Final = 4
#: Seconds an idle kept-alive connection of a stopping worker stays open for the next request,
#: which is then answered with `Connection: close`: a client that keeps its connection busy
#: (a page loading its parts, a monitoring probe) moves to a new connection without an error.
#: One that is quiet longer finds the connection closed, as at any keep-alive timeout, and
#: browsers and HTTP libraries check for that before they reuse a connection.
DRAIN_IDLE: Final = 2.0
_VERSIONS: Final = ("1.0", "1.1")
_PROBES: Final = (b"/healthz", b"/readyz")
#: A target `_request_scope` splits itself: `/`, then printable ASCII but `#` (what
#: `httptools.parse_url` accepts and splits the same way; anything else goes to it).
_ORIGIN_FORM: Final = re.compile(rb"/[!-\"$-~]*")
_SECURITY: Final = b"".join(f"{k}: {v}\r\n".encode() for k, v in SECURITY_HEADERS.items())
_TIOCOUTQ: Final = getattr(termios, "TIOCOUTQ", None)
#: `tcp_info.tcpi_state` of a socket whose client has gone (include/net/tcp_states.h): it
#: closed its side (CLOSE_WAIT), or reset the connection (CLOSE).
_CLIENT_GONE: Final = (8, 7)
#: SO_LINGER on, 0 s: close() resets the connection and drops what the kernel holds for it.
_RESET: Final = struct.pack("ii", 1, 0)

#: A new connection from an address whose connections are all busy (`app.web.clients`),
#: written before any of it is read. No `Date`: optional in a 5xx, and these bytes are made
#: once.
_CROWDED_BODY: Final = ("같은 주소에서 열린 연결이 너무 많습니다. 잠시 후 다시 시도하세요.\n"
                        "Too many connections from your address; try again shortly.\n"
                        ).encode()
_CROWDED: Final = b"".join([
    STATUS_LINE[503],
    b"content-type: text/plain; charset=utf-8\r\n",
    b"content-length: %d\r\n" % len(_CROWDED_BODY),
    b"cache-control: no-store\r\n",
    b"retry-after: 10\r\n",
    _SECURITY,
    b"connection: close\r\n\r\n",
    _CROWDED_BODY,
])

_events = Throttled(logging.getLogger("uvicorn.error"))
#: The server's default header lines (`Date`, which uvicorn replaces once a second), as last
#: written out: (the list they were made from, the bytes).
_defaults: tuple[object, bytes] = (None, b"")


def _default_lines(headers: list[tuple[bytes, bytes]]) -> bytes:
    global _defaults
    if _defaults[0] is not headers:
        _defaults = (headers, b"".join(name + b": " + value + b"\r\n" for name, value in headers))
    return _defaults[1]


#: Paths up to this long (the longest real one, a Hangul id percent-encoded, is under 1 KiB)
#: have their quoting and unquoting remembered, the last `_PATHS_KEPT` of each: both are
#: Python loops over the characters (unquoting a 44-byte Hangul path cost 3.6 µs, a 196-byte
#: one 12 µs, a cache hit's whole lookup about 6), and the same few hundred paths come again
#: and again. Longer ones are worked out each time: what clients send can neither grow the
#: memory (under 3 MiB each) nor do more than rotate through it.
_PATH_KEPT_CHARS = 1_024
_PATHS_KEPT = 1_024
_recent_quoted = functools.lru_cache(maxsize=_PATHS_KEPT)(urllib.parse.quote)
_recent_unquoted = functools.lru_cache(maxsize=_PATHS_KEPT)(urllib.parse.unquote)


def _address(info: object) -> tuple[str, int | None] | None:
    """A transport's `sockname` or `peername` as uvicorn's scope holds it: (host, port) of an
    IPv4 or IPv6 address, (path, None) of a Unix socket."""
    if isinstance(info, tuple) and len(info) >= 2:
        return (str(info[0]), int(info[1]))
    if isinstance(info, str):
        return (info, None)
    return None


def _quoted(path: str) -> str:
    """`urllib.parse.quote(path)`, for the access line."""
    return _recent_quoted(path) if len(path) <= _PATH_KEPT_CHARS else urllib.parse.quote(path)


def _unquoted(path: str) -> str:
    """`urllib.parse.unquote(path)`, the scope's `path` of a percent-encoded target."""
    return (_recent_unquoted(path) if len(path) <= _PATH_KEPT_CHARS
            else urllib.parse.unquote(path))


def _logged_path(scope: HTTPScope) -> str:
    """uvicorn's `get_path_with_query_string`, the same text, with the quoting remembered."""
    path: str = _quoted(scope["path"])
    query = scope["query_string"]
    return f"{path}?{query.decode('ascii')}" if query else path


class _Rejected(Exception):
    """Raised in a parser callback: the only way to stop httptools mid-buffer."""


class _HeldFlow(FlowControl):
    """uvicorn's flow control, except that reading stays paused while the protocol holds
    bytes it has not parsed yet (uvicorn resumes reading whenever an answer ends)."""

    def __init__(self, transport: asyncio.Transport, protocol: BoundedHttpToolsProtocol) -> None:
        super().__init__(transport)
        # Weak: a reference cycle per connection would leave its garbage to the cyclic
        # collector, whose passes over a worker's heap are what delay everyone.
        self._protocol = weakref.ref(protocol)

    def resume_reading(self) -> None:
        protocol = self._protocol()
        if protocol is None or not protocol.holding():
            super().resume_reading()


async def _busy(scope: Any, receive: Any, send: Any) -> None:
    """503 for a request beyond the connection bound (uvicorn's own, with our headers)."""
    body = "서버가 바쁩니다. 잠시 후 다시 시도해 주세요.\n".encode()
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()), (b"retry-after", b"1"),
        (b"cache-control", b"no-store"), (b"connection", b"close"),
        *((k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items())]})
    await send({"type": "http.response.body", "body": body})


class _OneWrite:
    """The connection's transport as each answer's cycle writes to it: the head uvicorn writes
    for `http.response.start` is held (while `holding`) until the answer's first body bytes,
    and both go out in one write: one system call and one TCP segment per answer, where
    uvicorn makes two. A streamed answer's head goes out at once (`BoundedHttpToolsProtocol`
    flushes it), and so does any head still held when the answer ends or the connection
    closes."""

    __slots__ = ("head", "holding", "transport", "written")

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.holding = False
        self.head: bytes | None = None
        #: Bytes handed to the transport for the answers so far: with the bytes not yet
        #: taken (`_unsent`), how many the client has taken (the write watch's measure).
        self.written = 0

    def write(self, data: bytes) -> None:
        if self.holding and self.head is None:
            self.head = data
            return
        head, self.head = self.head, None
        if head is None:
            self.transport.write(data)
            self.written += len(data)
        else:
            self.transport.writelines((head, data))  # one writev, no copy of the body
            self.written += len(head) + len(data)

    def flush(self) -> None:
        head, self.head = self.head, None
        if head is not None:
            self.transport.write(head)
            self.written += len(head)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def is_closing(self) -> bool:
        return self.transport.is_closing()


def _eviction_order(protocol: BoundedHttpToolsProtocol) -> float:
    """Smaller goes first: the time since which a connection waits on its client, as if a
    minute earlier while it holds an answer the client has not taken (its write watch runs):
    a connection that does not read goes before an idle keep-alive one, whose owner reads."""
    since = protocol._waiting_since or 0.0
    return since - 60.0 if protocol._write_timer is not None else since


class _Eviction:
    """The next connections to close past the bound, for one server's connections.

    Looking over every connection (1,000 by default) took 2.2-2.7 ms, and a flood of new
    connections past the bound asked every `_EVICT_SHARE`-th time: about 0.1 ms of each new
    connection. One look now picks `_LOOK_AHEAD` times the connections closed at once, oldest
    first; the ones not closed yet are closed on the next calls, each only if it is still open,
    still waits on its client and has waited at least as long as the last one picked then."""

    __slots__ = ("_connections", "_limit", "_queue")

    def __init__(self, connections: set[Any]) -> None:
        self._connections = connections
        self._queue: list[weakref.ref[BoundedHttpToolsProtocol]] = []
        self._limit = 0.0

    @classmethod
    def of(cls, connections: set[Any]) -> _Eviction:
        found = _evictions.get(id(connections))
        if found is None or found._connections is not connections:
            found = _evictions[id(connections)] = cls(connections)
        return found

    def take(self, wanted: int, asking: BoundedHttpToolsProtocol) -> list[BoundedHttpToolsProtocol]:
        victims = self._from_queue(wanted, asking)
        if len(victims) < wanted:
            chosen = set(victims)
            candidates = [(_eviction_order(other), n, other)
                          for n, other in enumerate(self._connections)
                          if other is not asking and other not in chosen
                          and getattr(other, "_waiting_since", None) is not None]
            picked = heapq.nsmallest((wanted - len(victims)) * _LOOK_AHEAD, candidates)
            if picked:
                self._limit = picked[-1][0]
            self._queue = [weakref.ref(other) for _, _, other in reversed(picked)]
            victims += self._from_queue(wanted - len(victims), asking)
        return victims

    def _from_queue(self, wanted: int, asking: BoundedHttpToolsProtocol
                    ) -> list[BoundedHttpToolsProtocol]:
        victims: list[BoundedHttpToolsProtocol] = []
        while self._queue and len(victims) < wanted:
            other = self._queue.pop()()
            if (other is not None and other is not asking and other in self._connections
                    and other._waiting_since is not None
                    and _eviction_order(other) <= self._limit):
                victims.append(other)
        return victims


#: Per server (its set of connections, by identity): the next connections to close.
_evictions: dict[int, _Eviction] = {}


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol` within the bounds of `app.web.limits` (see the module's doc)."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        # uvicorn's own bound refuses every request, probes included, once it is reached.
        self._max_connections = self.limit_concurrency
        self.limit_concurrency = None
        self._app = self.app
        #: The app's answers known before it runs (`FrontedApp.known_answer`), written here
        #: without an ASGI cycle; None for an app without them.
        self._known: Callable[[Any], Known | None] | None = getattr(self.app, "known_answer",
                                                                     None)
        #: The request being parsed was answered here (`_answer_known`).
        self._answered_here = False
        #: When the keep-alive timeout closes the idle connection (None: not idle), followed by
        #: one timer per connection, as the head timer is.
        self._idle_due: float | None = None
        self._idle_timer: asyncio.TimerHandle | None = None
        self._head_timer: asyncio.TimerHandle | None = None
        #: When the head being waited for is due (None: none is waited for). One timer per
        #: connection follows it: re-armed when it fires early, not once per answer.
        self._head_due: float | None = None
        self._in_head = False
        self._head_bytes = 0
        self._header_bytes = 0
        self._header_count = 0
        self._rejection: int | None = None
        #: Bytes received but not parsed yet (pipelined requests waiting their turn).
        self._held = bytearray()
        #: An error found while earlier answers were still due: sent after them.
        self._pending_error: int | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        #: What the client had taken (`_OneWrite.written` less `_unsent`) at the write watch's
        #: last look.
        self._taken_then = 0
        self._stalled = 0.0
        self._write_timeout = limits.WRITE_TIMEOUT * (
            1 + limits.WRITE_TIMEOUT_SPREAD * random.random())
        #: Since when the connection has waited on its client (for a request, or to take an
        #: answer); None while the app works on one of its requests. The oldest go first
        #: past the connection bound.
        self._waiting_since: float | None = None
        #: A pipelined request waits for the client to take the earlier answers.
        self._next_timer: asyncio.TimerHandle | None = None
        self._next_delay = _FIRST_POLL
        self._deferred = False
        self._sock: Any = None
        self._fd = -1
        self._queued = array.array("i", [0])
        #: Nothing was written since the transport's buffer and the kernel's send queue were
        #: seen empty: a request may start without looking again.
        self._drained = True
        self._writer: _OneWrite | None = None
        #: This side ended the connection (a write timeout, or room for another).
        self._closed_here = False
        #: The worker is stopping: no request after the one answered next.
        self._draining = False
        self._drain_timer: asyncio.TimerHandle | None = None
        #: Every cycle of this connection not yet answered: uvicorn marks only the newest one
        #: disconnected when the connection is lost, and the one running would write on.
        self._cycles: weakref.WeakSet[Any] = weakref.WeakSet()
        #: The client's address as the access lines write it (`get_client_addr`), once per
        #: connection.
        self._client_text: str | None = None
        #: The HTTP version of the request whose head just ended.
        self._version = "1.1"
        #: Each client address's connections (`app.web.clients`), and the address this one
        #: counts under (None: not counted).
        self._clients: ClientConnections | None = getattr(self.app, "clients", None)
        self._client_key: str | None = None
        #: The address under which this connection waits for room (None: not waiting), and
        #: when its wait ends with a 503.
        self._room_for: str | None = None
        self._room_timer: asyncio.TimerHandle | None = None

    # --- the connection ----------------------------------------------------------------------

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        # uvicorn's `connection_made`, but for the addresses: it asks uvloop's stand-in socket,
        # which makes a socket object for each question, where the transport's own `sockname`
        # and `peername` cost a third; and the flow control is made once. A burst of
        # connections is answered at the pace of this method (bench.burst_floor). The send
        # buffer (`limits.SEND_BUFFER`) is not set here but inherited from the listening
        # socket (`app.web.server`), for the same reason.
        self.connections.add(self)
        self.transport = transport
        self.flow = _HeldFlow(transport, self)
        self.server = _address(transport.get_extra_info("sockname"))
        peer = transport.get_extra_info("peername")
        self.client = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else None
        self.scheme = "https" if transport.get_extra_info("sslcontext") else "http"
        if self.logger.level <= TRACE_LOG_LEVEL:
            prefix = "{}:{} - ".format(*self.client) if self.client else ""
            self.logger.log(TRACE_LOG_LEVEL, "%sHTTP connection made", prefix)
        self._writer = _OneWrite(transport)
        sock = self._sock = transport.get_extra_info("socket")
        self._fd = sock.fileno() if sock is not None else -1
        self._waiting_since = self.loop.time()
        if self._clients is not None and self._clients.bound and not self._admit_client():
            return  # refused, or waiting for room: its head is waited for once it has room
        self._arm_head_timer()
        if self._max_connections and self._counted() > self._max_connections:
            self._make_room()

    def _admit_client(self) -> bool:
        """Count the connection under its client address. Past the address's bound, close
        its idle kept-alive connection that waited longest; with none idle, this one waits,
        unread, for room (or, with too many waiting, gets 503 at once): False."""
        clients = self._clients
        assert clients is not None
        key = clients.client_of(self.client)
        if key is None:
            return True
        mine = clients.connections(key)
        if len(mine) >= clients.bound:
            # `_idle_due` first: a crowd of busy connections is passed over at the cost of
            # one attribute each, for each of its new connections.
            idle = [other for other in mine if other._idle_due is not None and other._idle()]
            if idle:
                # The room goes to the address's connection that waited longest for it, if one
                # does (`_count_out`); this one then waits behind it.
                min(idle, key=lambda other: other._waiting_since or 0.0)._close_now()
            if len(mine) >= clients.bound:
                self._wait_for_room(key, len(mine))
                return False
        mine.add(self)
        self._client_key = key
        return True

    def _wait_for_room(self, key: str, open_now: int) -> None:
        clients = self._clients
        assert clients is not None
        # Not a candidate for the worker's bound (nothing waits on its client), nor counted in
        # it; no head is waited for (`_given_room` starts the wait).
        self._waiting_since = None
        if not clients.wait(key, self):
            _events.log(logging.WARNING, "client bound",
                        "%s%d connections open from this address, none idle, and %d waiting "
                        "in this worker (RULES_MAX_CLIENT_CONNECTIONS): new one refused",
                        self._client_prefix(), open_now, clients.waiting)
            self._crowded()
            return
        _events.log(logging.WARNING, "client bound",
                    "%s%d connections open from this address, none idle "
                    "(RULES_MAX_CLIENT_CONNECTIONS): a new one waits for room",
                    self._client_prefix(), open_now)
        # Read until the first bytes arrive (uvloop starts reading after `connection_made`,
        # whatever it asked), then held unparsed with reading paused (`_feed`).
        self._room_for = key
        self._room_timer = self.loop.call_later(
            limits.CLIENT_WAIT * (1 + random.random()), self._no_room)

    def _no_room(self) -> None:
        self._room_timer = None
        if self._room_for is not None and self._clients is not None:
            self._clients.stop_waiting(self._room_for, self)
            self._room_for = None
            self._crowded()

    def _crowded(self) -> None:
        """The 503 of a client address with too many busy connections; nothing was read."""
        self._closed_here = True
        self.connections.discard(self)
        self.transport.write(_CROWDED)
        self.transport.close()

    def _given_room(self, key: str) -> None:
        """One of the address's connections ended: this one, which waited longest, is served
        now, as a new connection."""
        if self._room_timer is not None:
            self._room_timer.cancel()
            self._room_timer = None
        self._room_for = None
        assert self._clients is not None
        self._clients.connections(key).add(self)
        self._client_key = key
        self._waiting_since = self.loop.time()
        self._arm_head_timer()
        self.flow.resume_reading()
        self._feed()

    def _idle(self) -> bool:
        """Kept alive between requests: nothing being answered, nothing of a request read."""
        return (self._idle_due is not None and not self._answering() and not self._held
                and not self._in_head)

    def _count_out(self) -> None:
        self.connections.discard(self)
        clients = self._clients
        if clients is None:
            return
        if self._room_for is not None:
            clients.stop_waiting(self._room_for, self)
            self._room_for = None
        key = self._client_key
        if key is not None:
            clients.discard(key, self)
            self._client_key = None
            while (waiting := clients.next_waiting(key)) is not None:
                if waiting.transport.is_closing():
                    continue
                if waiting._peer_closed():
                    # Its client went away while it waited, as a flood's clients do all at
                    # once: answering first would write (and copy) an answer nobody reads.
                    waiting._close_now()
                    continue
                waiting._given_room(key)
                break

    def _peer_closed(self) -> bool:
        """The client has closed its side or reset the connection, which the transport learns
        only when it reads again (reading is paused while a connection waits): uvicorn then
        closes the connection without answering what it had not parsed yet, so that is what
        a waiting connection's client gets too."""
        if self._sock is None:
            return False
        try:
            state = self._sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)
        except OSError:
            return False
        return bool(state) and state[0] in _CLIENT_GONE

    def _counted(self) -> int:
        """Open connections that count toward `RULES_MAX_CONNECTIONS`: the ones waiting for
        room under their address do not."""
        waiting = self._clients.waiting if self._clients is not None else 0
        return len(self.connections) - waiting

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        if self._head_timer is not None:
            self._head_timer.cancel()  # it refers to this protocol
            self._head_timer = None
        for timer in (self._write_timer, self._next_timer, self._drain_timer, self._idle_timer,
                      self._room_timer):
            if timer is not None:
                timer.cancel()
        self._write_timer = self._next_timer = self._drain_timer = self._idle_timer = None
        self._room_timer = None
        self._idle_due = None
        self._held.clear()
        if self._writer is not None:
            self._writer.head = None
        if (self.cycle is not None and not self.cycle.response_complete
                and not self._closed_here):
            _events.log(logging.INFO, "closed mid-answer",
                        "%sclient closed the connection before its answer was sent",
                        self._client_prefix())
        for cycle in list(self._cycles):
            cycle.__dict__.pop("send", None)  # our wrapper (a reference cycle)
            if not cycle.response_complete:
                cycle.disconnected = True
                cycle.message_event.set()
        # Requests never started hold `on_response_complete`, a reference back to this.
        self.pipeline.clear()
        self._count_out()
        super().connection_lost(exc)

    def holding(self) -> bool:
        """Whether reading stays paused: bytes received wait to be parsed, or the connection
        waits for room under its address."""
        return bool(self._held) or self._room_for is not None

    def _make_room(self) -> None:
        """Past the connection bound: close the connections that have waited on their client
        the longest (a share of the bound at once); if every one is being answered, this one
        may only ask for a probe until others end."""
        bound = self._max_connections or 0
        wanted = max(1, self._counted() - bound, bound // _EVICT_SHARE)
        victims = _Eviction.of(self.connections).take(wanted, self)
        if victims:
            _events.log(logging.WARNING, "connection bound",
                        "%d connections: closed the %d that waited on their client the longest "
                        "(%.1f s and less)", len(self.connections), len(victims),
                        self.loop.time() - (victims[0]._waiting_since or 0.0))
            for victim in victims:
                victim._close_now()
        elif self._counted() > bound + limits.HEALTH_RESERVE:
            _events.log(logging.WARNING, "connection bound",
                        "%s%d connections, every one being answered: new connection closed",
                        self._client_prefix(), len(self.connections))
            self._close_now()

    def _close_now(self) -> None:
        """End the connection at once; with a reset if the client has bytes it did not take,
        so that the kernel drops them (and the client learns it) instead of keeping them for
        a client that does not read."""
        if self.transport.is_closing():
            return
        self._closed_here = True
        if self._sock is not None and self._unsent() > 0:
            with contextlib.suppress(OSError):
                self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
        self.transport.abort()
        # Counted out now, not when uvicorn hears of it on a later loop turn: the bounds are
        # checked again before then.
        self._count_out()

    def _over_capacity(self) -> bool:
        bound = self._max_connections or 0
        return bound > 0 and self._counted() > bound

    # --- reading and parsing -----------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        if self._pending_error is not None or self.transport.is_closing():
            return  # what follows a refused request is never read
        self._held += data
        self._feed()

    def _may_parse(self) -> bool:
        if (self._pending_error is not None or self.transport.is_closing()
                or self._room_for is not None):
            return False
        if not self._answering():
            return True
        if self._draining:
            return False  # the connection ends after the answer in progress
        # Requests ahead of the one being answered: a few, and only once the answers so far
        # have left the process.
        return (len(self.pipeline) < limits.PIPELINE_DEPTH
                and self.transport.get_write_buffer_size() == 0)

    def _answering(self) -> bool:
        return bool(self.pipeline) or (self.cycle is not None and not self.cycle.response_complete)

    def _feed(self) -> None:
        # uvicorn's `data_received`, feeding slice by slice: to count the bytes httptools holds
        # back while a header is incomplete (it calls `on_header` only once a field has ended),
        # and to stop parsing pipelined requests past the depth.
        while self._held and self._may_parse():
            size = _PIPELINED_SLICE if self._answering() else self._first_head()
            piece = bytes(self._held[:size])
            del self._held[:size]
            try:
                self.parser.feed_data(piece)
            except httptools.HttpParserError as exc:
                self._held.clear()
                if self._rejection is not None:
                    self._refuse(self._rejection)
                else:
                    # A version httptools cannot even parse (HTTP/3.0) is still a version.
                    self._refuse(505 if "HTTP version" in str(exc) else 400)
                return
            except httptools.HttpParserUpgrade:
                # httptools ignores what follows the upgrade request; so does uvicorn.
                self._held.clear()
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()
                return
            if self._in_head:
                self._head_bytes += len(piece)
                if self._head_bytes > limits.MAX_URL + limits.MAX_HEADER_BYTES + _HEAD_ALLOWANCE:
                    self._held.clear()
                    self._refuse(431)
                    return
        if self._held:
            self.flow.pause_reading()

    def _first_head(self) -> int:
        """Bytes up to the end of the first complete head held (at most `_SLICE`): fed
        alone, so that one feed parses one request. httptools parses every request in what it
        is fed, and a 4 KiB slice of a pipelined burst held some 80 (each with its cycle,
        and in its connection's cleanup), before the depth below was ever looked at."""
        held = self._held
        crlf = held.find(b"\n\r\n", 0, _SLICE)
        lf = held.find(b"\n\n", 0, _SLICE)
        if crlf < 0:
            return _SLICE if lf < 0 else lf + 2
        return crlf + 3 if lf < 0 or crlf + 3 <= lf + 2 else lf + 2

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._answered_here = False
        self._in_head = True
        self._head_bytes = self._header_bytes = self._header_count = 0

    def on_url(self, url: bytes) -> None:
        # httptools passes the target in pieces as they arrive, so this stops it early.
        if len(self.url) + len(url) > limits.MAX_URL:
            self._reject(414)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_count += 1
        self._header_bytes += len(name) + len(value)
        if (self._header_count > limits.MAX_HEADERS
                or self._header_bytes > limits.MAX_HEADER_BYTES):
            self._reject(431)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._cancel_head_timer()
        version = self._version = self.parser.get_http_version()
        if version not in _VERSIONS:
            self._reject(505)
        busy = self._over_capacity() and self.url.split(b"?", 1)[0] not in _PROBES
        if not busy and self._known is not None and self._answer_known(self._known):
            return
        if busy:
            _events.log(logging.WARNING, "over capacity",
                        "%s%d connections: 503", self._client_prefix(), len(self.connections))
            self.app = _busy
        try:
            super().on_headers_complete()
        finally:
            self.app = self._app
        cycle = self.cycle
        self._cycles.add(cycle)
        if self._draining:
            cycle.keep_alive = False
            self._cancel_drain_timer()
        answer = cycle.send
        writer = self._writer
        if writer is not None:
            cycle.transport = writer  # type: ignore[assignment]

        async def send(message: Any) -> None:
            # The transport is closed but uvicorn has not heard yet (connection_lost comes on
            # the next loop turn): writing would raise, and log two tracebacks.
            if self.transport.is_closing():
                cycle.disconnected = True
            if writer is not None and message["type"] == "http.response.start":
                writer.holding = True
                try:
                    await answer(message)
                finally:
                    writer.holding = False
                if cycle.chunked_encoding:
                    writer.flush()  # a streamed answer: its head goes now
            else:
                await answer(message)
            if cycle.response_complete or cycle.disconnected:
                if writer is not None:
                    writer.flush()
                # Done with: this wrapper refers to the cycle (a reference cycle).
                cycle.__dict__.pop("send", None)

        cycle.send = send  # type: ignore[method-assign]

    def _answer_known(self, known: Callable[[Any], Known | None]) -> bool:
        """Answer the request whose head just ended here, if the app knows its answer already
        (`FrontedApp.known_answer`: the same safety layers and the same answer as through
        ASGI): the status line, the date, the answer's header lines made when it was stored,
        and its body, in one write, with the access line uvicorn logs. No ASGI cycle, task or
        message is made for it. False: the request goes the usual way.

        Only a GET or HEAD without a body, with nothing else due on the connection (the
        pipelining bound holds as for any request: a request behind answers the client has
        not taken goes the usual way, and waits).
        """
        method = self.parser.get_method()
        if (method != b"GET" and method != b"HEAD") or self._answering() or (
                self.expect_100_continue or self.parser.should_upgrade()):
            return False
        for name, _ in self.headers:
            if name == b"content-length" or name == b"transfer-encoding":
                return False
        if not self._drained and self._unsent() > 0:
            return False
        scope = self._request_scope(method)
        try:
            answer = known(scope)
        except Exception:
            # The usual way gives the error page, and logs the traceback.
            return False
        if answer is None or answer.lines is None:
            return False
        self._answered_here = True
        keep_alive = (scope["http_version"] != "1.0" and self.parser.should_keep_alive()
                      and not self._draining)
        if self.access_log:
            client = self._client_text
            if client is None or scope.get("client") is not self.client:
                client = self._client_text = get_client_addr(scope)
            log_access(self.access_logger, (client, scope["method"],
                                            _logged_path(scope),
                                            scope["http_version"], answer.status))
        head = b"".join((STATUS_LINE[answer.status],
                         _default_lines(self.server_state.default_headers), answer.lines,
                         b"" if keep_alive else b"connection: close\r\n", b"\r\n"))
        sent = len(head)
        if answer.body and method == b"GET":
            self.transport.writelines((head, answer.body))  # one writev, no copy of the body
            sent += len(answer.body)
        else:
            self.transport.write(head)
        if self._writer is not None:
            self._writer.written += sent
        self.server_state.total_requests += 1
        if not keep_alive:
            self._cancel_drain_timer()
            self.transport.close()
            return True
        self._waiting_since = self.loop.time()
        self._drained = self._watch_writes() == 0
        self._arm_head_timer()
        self._arm_idle_timer()
        return True

    def _request_scope(self, method: bytes) -> HTTPScope:
        """The scope uvicorn makes for this request (`on_headers_complete`'s)."""
        scope = self.scope
        scope["method"] = "GET" if method == b"GET" else method.decode("ascii")
        version = self._version  # read by `on_headers_complete`, which calls this
        if version != "1.1":
            scope["http_version"] = version
        url = self.url
        if _ORIGIN_FORM.fullmatch(url) is not None:
            # An origin-form target of printable ASCII without a fragment, as nearly every
            # request's is: what `httptools.parse_url` gives for it (the path, and what follows
            # the first `?`), without making its URL object.
            raw_path, _, query = url.partition(b"?")
        else:
            parsed = httptools.parse_url(url)
            raw_path, query = parsed.path, parsed.query or b""
        path = raw_path.decode("ascii")
        if "%" in path:
            path = _unquoted(path)
        root = self.root_path
        if root:
            scope["path"] = root + path
            scope["raw_path"] = root.encode("ascii") + raw_path
        else:
            scope["path"] = path
            scope["raw_path"] = raw_path
        scope["query_string"] = query
        return scope

    def on_body(self, body: bytes) -> None:
        if not self._answered_here:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._answered_here:
            super().on_message_complete()

    def on_response_complete(self) -> None:
        # A queued pipelined request already has its head; only an empty pipeline means the
        # connection now waits for (the rest of) a new head.
        awaiting_head = not self.pipeline
        if self._writer is not None:
            self._writer.flush()  # the head of an answer without body bytes (HEAD, 304)
        self._waiting_since = self.loop.time()
        # uvicorn's, with the keep-alive timer armed once per connection, not per answer.
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
        else:
            self._arm_idle_timer()
        self._drained = self._watch_writes() == 0
        if not self.pipeline and self._pending_error is not None:
            self._send_error(self._pending_error)
            return
        if awaiting_head:
            self._arm_head_timer()
            if self._draining:
                # Its answer began before the worker was told to stop, so it could not say
                # `Connection: close`: the next request is the last.
                self._arm_drain_timer()
        self._feed()

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        # Every request starts here (uvicorn's own path for the first one on a connection and
        # for each pipelined one): a request behind answers the client has not taken yet waits
        # for them to be taken, at the front of the pipeline.
        if not self._drained and self._unsent() > 0:
            self.pipeline.append((cycle, app))
            self._deferred = True
            self.flow.pause_reading()
            self._poll_next()
            return
        self._drained = False  # it will write
        self._next_delay = _FIRST_POLL
        self._waiting_since = None
        super()._start_asgi_task(cycle, app)

    def _poll_next(self) -> None:
        self._watch_writes()
        if (self._next_timer is None and self._next_delay <= _LAST_POLL
                and not self.transport.is_closing()):
            self._next_timer = self.loop.call_later(self._next_delay, self._next_due)
            self._next_delay *= 4

    def _next_due(self) -> None:
        self._next_timer = None
        if self._deferred and self.pipeline and not self.transport.is_closing():
            self._deferred = False
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)

    def _reject(self, status: int) -> NoReturn:
        self._rejection = status
        raise _Rejected(status)

    def _refuse(self, status: int) -> None:
        """Answer `status` and close: now, or once the answers already due have been sent."""
        self._in_head = False
        self._cancel_head_timer()
        if self._answering():
            self._pending_error = status
            self.flow.pause_reading()
        else:
            self._send_error(status)

    # --- draining -----------------------------------------------------------------------------

    def shutdown(self) -> None:
        # uvicorn's closes an idle connection at once, and a request that was on its way gets
        # no answer; and one whose head is half read.
        self._draining = True
        if self.transport.is_closing():
            return
        newest = self.pipeline[0][0] if self.pipeline else self.cycle
        if newest is not None and not newest.response_complete and not newest.response_started:
            newest.keep_alive = False
            return
        # An answer already started can no longer say `Connection: close`: the next one will.
        if self._in_head or self._held:
            return  # a request is arriving: it is answered, with `Connection: close`
        if not self._answering():
            self._arm_drain_timer()

    def _arm_drain_timer(self) -> None:
        self._cancel_drain_timer()
        self._drain_timer = self.loop.call_later(DRAIN_IDLE, self._drain_idle_over)

    def _cancel_drain_timer(self) -> None:
        if self._drain_timer is not None:
            self._drain_timer.cancel()
            self._drain_timer = None

    def _drain_idle_over(self) -> None:
        self._drain_timer = None
        if self.transport.is_closing() or self._answering() or self._in_head or self._held:
            return
        if self._unsent() > 0:
            self._close_now()  # an answer the client does not take: no need to wait for it
        else:
            self.transport.close()

    # --- writing -----------------------------------------------------------------------------

    def pause_writing(self) -> None:
        super().pause_writing()
        self._watch_writes()

    def resume_writing(self) -> None:
        super().resume_writing()
        self._feed()

    def _unsent(self) -> int:
        """Bytes written but not yet taken by the client: the transport's buffer and the
        kernel's send queue."""
        queued = self.transport.get_write_buffer_size()
        if self._fd >= 0 and _TIOCOUTQ is not None:
            try:  # not `contextlib.suppress`: this runs twice per request
                fcntl.ioctl(self._fd, _TIOCOUTQ, self._queued, True)
            except OSError:
                return queued
            queued += self._queued[0]
        return queued

    def _watch_writes(self) -> int:
        """Start the write watch if bytes are unsent (and it is not running); the bytes, or 1
        without looking while the watch runs: it looks itself when it is due, and whoever must
        know now looks again (`_drained` stays False). Under load the watch runs nearly
        always, and the look cost an ioctl per answer."""
        if self._write_timer is not None:
            return 1
        unsent = self._unsent()
        if unsent > 0:
            self._taken_then = self._taken(unsent)
            self._write_timer = self.loop.call_later(_WRITE_CHECK, self._check_writes)
        return unsent

    def _taken(self, unsent: int) -> int:
        """Bytes of the answers the client has taken so far."""
        return (self._writer.written if self._writer is not None else 0) - unsent

    def _check_writes(self) -> None:
        self._write_timer = None
        unsent = self._unsent()
        if unsent == 0:
            self._stalled = 0.0
            self._next_due()
            self._feed()
            return
        # Progress is what the client took since the last look, not whether fewer bytes wait:
        # a client that takes each answer and asks for the next has a new one waiting at
        # nearly every look (its ACK rides on its next request), though it reads kilobytes a
        # second (wrk under load was reset so: "answer not read for 6 s (658 bytes unsent)").
        taken = self._taken(unsent)
        if taken - self._taken_then >= limits.MIN_WRITE_RATE * _WRITE_CHECK:
            self._stalled = 0.0
            if self._waiting_since is not None:
                self._waiting_since = self.loop.time()  # a slow reader, but a reader
        else:
            self._stalled += _WRITE_CHECK
        if self._stalled >= self._write_timeout:
            _events.log(logging.WARNING, "write timeout",
                        "%sanswer not read for %.0f s (%d bytes unsent); connection closed",
                        self._client_prefix(), self._stalled, unsent)
            self._close_now()
            return
        self._taken_then = taken
        self._write_timer = self.loop.call_later(_WRITE_CHECK, self._check_writes)
        self._feed()

    def timeout_keep_alive_handler(self) -> None:
        if not self.transport.is_closing():
            if self._unsent() > 0:
                return  # the write watch decides: a graceful close would wait forever
            if self._answering() or self._held:
                # Not idle: a pipelined request waits for the client to take the answer before
                # it (`_start_asgi_task`), and a slow reader may take longer than the timeout.
                # Its answer's end arms the timer again.
                return
            self.transport.close()

    # --- the keep-alive timer ----------------------------------------------------------------

    def _arm_idle_timer(self) -> None:
        # uvicorn arms a timer after each answer and cancels it when data arrives: two timer
        # operations per request. This one is re-armed for the rest when it fires early.
        self._idle_due = self.loop.time() + self.timeout_keep_alive
        if self._idle_timer is None:
            self._idle_timer = self.loop.call_later(self.timeout_keep_alive, self._idle_over)

    def _unset_keepalive_if_required(self) -> None:
        self._idle_due = None  # data arrived: not idle (the timer, if pending, finds nothing)
        super()._unset_keepalive_if_required()

    def _idle_over(self) -> None:
        self._idle_timer = None
        due = self._idle_due
        if due is None:
            return
        left = due - self.loop.time()
        if left > 0:
            self._idle_timer = self.loop.call_later(left, self._idle_over)
            return
        self._idle_due = None
        self.timeout_keep_alive_handler()

    # --- the head timer ----------------------------------------------------------------------

    def _arm_head_timer(self) -> None:
        # Not reset by arriving data: the whole head must arrive within the timeout. A timer
        # still pending from an earlier head fires early and is re-armed for the rest.
        self._head_due = self.loop.time() + limits.HEADER_TIMEOUT
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(limits.HEADER_TIMEOUT, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        self._head_due = None  # the timer, if pending, fires and finds nothing due

    def _head_timed_out(self) -> None:
        self._head_timer = None
        due = self._head_due
        if due is None:
            return
        left = due - self.loop.time()
        if left > 0:
            self._head_timer = self.loop.call_later(left, self._head_timed_out)
            return
        self._head_due = None
        if self.transport.is_closing() or self._answering():
            return
        if self._in_head or self._held:
            self._send_error(408)
        elif self._unsent() == 0:
            # Nothing of a request arrived: a preconnect or an idle socket, not worth a warning.
            self.logger.debug("%sNo request within %ss; connection closed",
                              self._client_prefix(), limits.HEADER_TIMEOUT)
            self.transport.close()

    def _client_prefix(self) -> str:
        return f"{self.client[0]}:{self.client[1]} - " if self.client else ""

    def _send_error(self, status: int) -> None:
        # Like uvicorn's `send_400_response`: straight to the transport, then close, since the
        # parser is mid-request and cannot be trusted for another one.
        self._in_head = False
        self._pending_error = None
        self._cancel_head_timer()
        phrase = http.HTTPStatus(status).phrase
        _events.log(logging.WARNING, f"refused {status}", "%s%d %s; connection closed",
                    self._client_prefix(), status, phrase)
        body = phrase.encode("ascii")
        content = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend([
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"cache-control: no-store\r\n",
            _SECURITY,
            b"connection: close\r\n",
            b"\r\n",
            body,
        ])
        self.transport.write(b"".join(content))
        self.transport.close()
        self._watch_writes()
