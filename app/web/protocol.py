"""uvicorn's httptools protocol with bounds on the request head.

uvicorn's httptools protocol takes a request head of any size and any duration: httptools
buffers a header value until it ends (a 32 MiB header costs 32 MiB and quadratic copying), any
number of fields is accepted, and a client that trickles one header byte at a time keeps its
connection forever, since uvicorn's keep-alive timer is cancelled by any data and nothing times
out a connection that sends nothing. This subclass enforces the head bounds of `app.web.limits`
while the bytes arrive, before the app sees the request; everything else (keep-alive,
pipelining, upgrades) is uvicorn's own code.
"""

from __future__ import annotations

import asyncio
import http
from typing import Any, Final, NoReturn

import httptools
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from app.web import limits

#: Data is fed to the parser in slices of this size, so the raw head count below can only
#: over-count, by at most one slice: the slice in which a request begins may also hold the end
#: of the previous one.
_SLICE: Final = 4_096
#: Head bytes that are neither target nor header names and values (method, version, ": " and
#: CRLF per field), plus the one-slice over-count.
_HEAD_ALLOWANCE: Final = 2 * _SLICE


class _Rejected(Exception):
    """Raised in a parser callback: the only way to stop httptools mid-buffer."""


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol` answering 414, 431 and 408 for heads over the bounds of `limits`."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._head_timer: asyncio.TimerHandle | None = None
        self._in_head = False
        self._head_bytes = 0
        self._header_bytes = 0
        self._header_count = 0
        self._rejection: int | None = None

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        # uvicorn's `data_received`, feeding slice by slice to count the bytes httptools holds
        # back while a header is incomplete (it calls `on_header` only once a field has ended).
        self._unset_keepalive_if_required()
        view = memoryview(data)
        for start in range(0, len(view), _SLICE):
            piece = view[start : start + _SLICE]
            try:
                self.parser.feed_data(piece)
            except httptools.HttpParserError:
                if self._rejection is not None:
                    self._send_error(self._rejection)
                    return
                msg = "Invalid HTTP request received."
                self.logger.warning(msg)
                self.send_400_response(msg)
                return
            except httptools.HttpParserUpgrade:
                # httptools ignores what follows the upgrade request; so does uvicorn.
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()
                return
            if self._in_head:
                self._head_bytes += len(piece)
                if self._head_bytes > limits.MAX_URL + limits.MAX_HEADER_BYTES + _HEAD_ALLOWANCE:
                    self._send_error(431)
                    return

    def on_message_begin(self) -> None:
        super().on_message_begin()
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
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        # A queued pipelined request already has its head; only an empty pipeline means the
        # connection now waits for (the rest of) a new head.
        awaiting_head = not self.pipeline
        super().on_response_complete()
        if awaiting_head and not self.transport.is_closing():
            self._arm_head_timer()

    def _reject(self, status: int) -> NoReturn:
        self._rejection = status
        raise _Rejected(status)

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
        if self.transport.is_closing():
            return
        if self._in_head:
            self._send_error(408)
        else:
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
        self._cancel_head_timer()
        phrase = http.HTTPStatus(status).phrase
        self.logger.warning("%s%d %s; connection closed", self._client_prefix(), status, phrase)
        body = phrase.encode("ascii")
        content = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend([
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"connection: close\r\n",
            b"\r\n",
            body,
        ])
        self.transport.write(b"".join(content))
        self.transport.close()
