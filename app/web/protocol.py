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
* **pipelining**: at most `PIPELINE_DEPTH` requests are parsed ahead of the one being answered,
  and none while an earlier answer is still unsent; the rest of the bytes wait unparsed, and the
  socket is not read meanwhile;
* **connections**: past `RULES_MAX_CONNECTIONS`, the connection stalled or idle the longest
  is closed to make room, requests get 503 only when none is, and `/healthz` and `/readyz`
  have `HEALTH_RESERVE` connections of their own beyond the bound;
* **errors**: an answer already due on the connection (a valid request pipelined before a bad
  one) is sent before the error; a client that went away mid-answer is one line in the log
  (throttled, like every line a client can cause), not a traceback.

Everything else (keep-alive, parsing, the ASGI cycle) is uvicorn's own code.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import http
import logging
import socket
import struct
import termios
import weakref
from typing import Any, Final, NoReturn

import httptools
from uvicorn.config import Config
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from app.logs import Throttled
from app.web import limits
from app.web.middleware import SECURITY_HEADERS

__all__ = ["BoundedHttpToolsProtocol"]

#: Data is fed to the parser in slices of this size, so the raw head count below can only
#: over-count, by at most one slice: the slice in which a request begins may also hold the end
#: of the previous one.
_SLICE: Final = 4_096
#: While a request is being answered, the bytes after it are fed in slices this small, so that
#: parsing stops within a few requests of `PIPELINE_DEPTH` (the shortest request is ~18 bytes).
_PIPELINED_SLICE: Final = 64
#: Head bytes that are neither target nor header names and values (method, version, ": " and
#: CRLF per field), plus the one-slice over-count.
_HEAD_ALLOWANCE: Final = 2 * _SLICE
#: How often a connection with unsent bytes is looked at.
_WRITE_CHECK: Final = 1.0
_VERSIONS: Final = ("1.0", "1.1")
_PROBES: Final = (b"/healthz", b"/readyz")
_SECURITY: Final = b"".join(f"{k}: {v}\r\n".encode() for k, v in SECURITY_HEADERS.items())
_TIOCOUTQ: Final = getattr(termios, "TIOCOUTQ", None)

_events = Throttled(logging.getLogger("uvicorn.error"))


class _Rejected(Exception):
    """Raised in a parser callback: the only way to stop httptools mid-buffer."""


class _HeldFlow(FlowControl):
    """uvicorn's flow control, except that reading stays paused while the protocol holds
    bytes it has not parsed yet (uvicorn resumes reading whenever an answer ends)."""

    def __init__(self, transport: asyncio.Transport, protocol: BoundedHttpToolsProtocol) -> None:
        super().__init__(transport)
        self._protocol = protocol

    def resume_reading(self) -> None:
        if not self._protocol.holding():
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
        self._head_timer: asyncio.TimerHandle | None = None
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
        self._unsent_then = 0
        self._stalled = 0.0
        self._idle_since: float | None = None
        self._fd = -1
        #: Every cycle of this connection not yet answered: uvicorn marks only the newest one
        #: disconnected when the connection is lost, and the one running would write on.
        self._cycles: weakref.WeakSet[Any] = weakref.WeakSet()

    # --- the connection ----------------------------------------------------------------------

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        self.flow = _HeldFlow(transport, self)
        sock = transport.get_extra_info("socket")
        self._fd = sock.fileno() if sock is not None else -1
        if sock is not None:
            # The kernel keeps at most this much of the answers for a client (about twice it):
            # left to autotuning it grew to megabytes per non-reading connection.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, limits.SEND_BUFFER)
        self._idle_since = self.loop.time()
        self._arm_head_timer()
        if self._max_connections and len(self.connections) > self._max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None
        self._held.clear()
        if self.cycle is not None and not self.cycle.response_complete:
            _events.log(logging.INFO, "closed mid-answer",
                        "%sclient closed the connection before its answer was sent",
                        self._client_prefix())
        for cycle in list(self._cycles):
            if not cycle.response_complete:
                cycle.disconnected = True
                cycle.message_event.set()
        super().connection_lost(exc)

    def holding(self) -> bool:
        """Whether bytes received are waiting to be parsed."""
        return bool(self._held)

    def _make_room(self) -> None:
        """Past the connection bound: close the connection stalled (not reading its answers)
        or idle (between requests, or silent) the longest; if none is, this one may only ask
        for a probe until others end."""
        now = self.loop.time()

        def rank(other: BoundedHttpToolsProtocol) -> tuple[int, float] | None:
            if other is self or other.transport.is_closing():
                return None
            if other._stalled > 0:
                return (2, other._stalled)
            if other._idle_since is not None:
                return (1, now - other._idle_since)
            return None

        ranked = [(r, other) for other in self.connections
                  if isinstance(other, BoundedHttpToolsProtocol) and (r := rank(other)) is not None]
        bound = self._max_connections or 0
        if ranked:
            victim: BoundedHttpToolsProtocol = max(ranked, key=lambda item: item[0])[1]
            _events.log(logging.WARNING, "connection bound",
                        "%s%d connections: closed the one stalled or idle the longest",
                        victim._client_prefix(), len(self.connections))
            victim.transport.abort()
        elif len(self.connections) > bound + limits.HEALTH_RESERVE:
            _events.log(logging.WARNING, "connection bound",
                        "%s%d connections, none idle: new connection closed",
                        self._client_prefix(), len(self.connections))
            self.transport.abort()

    def _over_capacity(self) -> bool:
        bound = self._max_connections or 0
        return bound > 0 and (len(self.connections) > bound or len(self.tasks) >= bound)

    # --- reading and parsing -----------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        if self._pending_error is not None or self.transport.is_closing():
            return  # what follows a refused request is never read
        self._held += data
        self._feed()

    def _may_parse(self) -> bool:
        if self._pending_error is not None or self.transport.is_closing():
            return False
        if not self._answering():
            return True
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
            size = _PIPELINED_SLICE if self._answering() else _SLICE
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

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._idle_since = None
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
        if self.parser.get_http_version() not in _VERSIONS:
            self._reject(505)
        busy = self._over_capacity() and self.url.split(b"?", 1)[0] not in _PROBES
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
        answer = cycle.send

        async def send(message: Any) -> None:
            # The transport is closed but uvicorn has not heard yet (connection_lost comes on
            # the next loop turn): writing would raise, and log two tracebacks.
            if self.transport.is_closing():
                cycle.disconnected = True
            await answer(message)

        cycle.send = send  # type: ignore[method-assign]

    def on_response_complete(self) -> None:
        # A queued pipelined request already has its head; only an empty pipeline means the
        # connection now waits for (the rest of) a new head.
        awaiting_head = not self.pipeline
        super().on_response_complete()
        if self.transport.is_closing():
            return
        self._watch_writes()
        if not self.pipeline and self._pending_error is not None:
            self._send_error(self._pending_error)
            return
        if awaiting_head:
            self._idle_since = self.loop.time()
            self._arm_head_timer()
        self._feed()

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
            with contextlib.suppress(OSError):
                queued += struct.unpack("i", fcntl.ioctl(self._fd, _TIOCOUTQ, b"\0" * 4))[0]
        return queued

    def _watch_writes(self) -> None:
        if self._write_timer is None and self._unsent() > 0:
            self._unsent_then = self._unsent()
            self._write_timer = self.loop.call_later(_WRITE_CHECK, self._check_writes)

    def _check_writes(self) -> None:
        self._write_timer = None
        unsent = self._unsent()
        if unsent == 0:
            self._stalled = 0.0
            self._feed()
            return
        if self._unsent_then - unsent >= limits.MIN_WRITE_RATE * _WRITE_CHECK:
            self._stalled = 0.0
        else:
            self._stalled += _WRITE_CHECK
        if self._stalled >= limits.WRITE_TIMEOUT:
            _events.log(logging.WARNING, "write timeout",
                        "%sanswer not read for %.0f s (%d bytes unsent); connection closed",
                        self._client_prefix(), limits.WRITE_TIMEOUT, unsent)
            self.transport.abort()
            return
        self._unsent_then = unsent
        self._write_timer = self.loop.call_later(_WRITE_CHECK, self._check_writes)
        self._feed()

    def timeout_keep_alive_handler(self) -> None:
        if not self.transport.is_closing():
            if self._unsent() > 0:
                return  # the write watch decides: a graceful close would wait forever
            self.transport.close()

    # --- the head timer ----------------------------------------------------------------------

    def _arm_head_timer(self) -> None:
        # Not reset by arriving data: the whole head must arrive within the timeout.
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(limits.HEADER_TIMEOUT, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
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
