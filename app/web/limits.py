"""Every bound on what one request or connection may cost the server, in one place.

The HTTP protocol (`app.web.protocol`) enforces the header bounds while the bytes arrive, so a
huge or slow header never reaches memory or holds a connection; the app enforces them again
(`app.web.middleware`) for servers other than ours, and bounds the body as it is read.
"""

from __future__ import annotations

#: Longest request target (path and query). Longer ones get 414: queries are cut to 200
#: characters anyway, and the longest real URL (a Hangul id, percent-encoded) is under 1 KiB.
MAX_URL = 16_384
#: All header names and values of one request together; more gets 431.
MAX_HEADER_BYTES = 16_384
#: Header fields per request; more gets 431. Browsers send about 15.
MAX_HEADERS = 100
#: Seconds from a connection's first byte (or the end of its previous response) until the
#: request's headers are complete; a client that trickles its headers is cut off at this point.
HEADER_TIMEOUT = 10.0
#: Largest request body (only `POST /settings` takes one: a few checkbox values); more gets 413
#: without the rest being read.
MAX_BODY = 4_096
#: Seconds to receive a whole body once its headers are in; a slower body gets 408.
BODY_TIMEOUT = 10.0
#: Seconds an answer's bytes may go unread (less than `MIN_WRITE_RATE` bytes a second taken by
#: the client, counting the kernel's send queue) before the connection is closed. A phone on a
#: bad link still takes kilobytes a second; a client that never reads frees its connection, its
#: queued requests and their memory after this long.
WRITE_TIMEOUT = 5.0
MIN_WRITE_RATE = 256
#: Each connection's write timeout is drawn from `WRITE_TIMEOUT` × [1, 1 + this]: a crowd of
#: non-readers that connected at one instant is then let go over seconds, not at one instant
#: (when all would connect again at once, and every new connection, a player's too, would wait
#: behind the whole crowd in the listen queue).
WRITE_TIMEOUT_SPREAD = 1.0
#: Seconds a connection past its address's bound (`RULES_MAX_CLIENT_CONNECTIONS`) waits, unread,
#: for one of the address's connections to end, drawn from this × [1, 2) (a crowd that
#: connected at one instant is let go over seconds); then it gets 503 (`app.web.clients`).
CLIENT_WAIT = 10.0
#: Requests parsed ahead of the one being answered on a connection (HTTP/1.1 pipelining; no
#: browser pipelines). Further bytes wait unparsed and the socket is not read meanwhile.
PIPELINE_DEPTH = 4
#: Connections beyond `RULES_MAX_CONNECTIONS` kept for `/healthz` and `/readyz`: a probe is
#: answered while every other request would get 503.
HEALTH_RESERVE = 16
#: The kernel's send buffer per connection (Linux doubles it): enough for any answer at
#: loopback and LAN speed, and a bound on the memory a client that never reads can tie up.
SEND_BUFFER = 128 * 1024
