"""How many connections one client address may hold open in a worker.

A server that faces the internet itself has no nginx `limit_conn` in front of it. One address
with 2,000 sockets that never read took every connection of both workers (#20 H1), and past
the worker's bound each of its new connections still had an answer computed and written
before an older one was closed for it. Past this bound, the protocol (`app.web.protocol`)
first closes the address's idle kept-alive connection that waited longest (a club behind one
NAT address loses nothing a browser does not reopen by itself). When none is idle, the new
connection waits, unread, until one of the address's own connections ends, and then is
served; if none ends within `limits.CLIENT_WAIT` it gets a 503.

Waiting, not refusing at once: a client that reconnects as soon as it is closed (as this
attack does) would otherwise cost the server an accept and a refusal as fast as it can loop,
13,000 a second on this 2-core machine (`bench.attack --only slow`), and every player's new
connection queued behind those in the listen queue. A waiting connection costs a socket and
its protocol object, and nothing while it waits. Up to `RULES_MAX_CONNECTIONS` connections may
wait in a worker (they do not count toward that bound); past that, the 503 is at once.

Trusted proxies (`RULES_TRUSTED_PROXIES`) carry many clients on their connections and bound
them themselves: they are not counted. An IPv6 client counts by its /64, the block one
subscriber is given.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from app.web.hosts import TrustedProxies

__all__ = ["ClientConnections"]

#: The IPv6 prefix one subscriber gets (RFC 6177): its addresses count as one client.
_IPV6_SUBSCRIBER = 64


class ClientConnections:
    """Each client address's open connections in this worker, for `RULES_MAX_CLIENT_CONNECTIONS`."""

    __slots__ = ("_open", "_trusted", "_waiting", "bound", "most_waiting", "waiting")

    def __init__(self, bound: int, trusted: TrustedProxies, most_waiting: int = 1000) -> None:
        #: Connections one address may have open at once; 0: no bound.
        self.bound = bound
        #: Connections that may wait for room in this worker, over all addresses.
        self.most_waiting = most_waiting
        #: How many wait now.
        self.waiting = 0
        self._trusted = trusted
        self._open: dict[str, set[Any]] = {}
        #: Per address, the connections waiting for room, oldest first (a dict: ordered, and
        #: a connection that goes away leaves it at once).
        self._waiting: dict[str, dict[Any, None]] = {}

    def client_of(self, peer: object) -> str | None:
        """The client a connection from `peer` (a socket's peer address) counts under; None
        when it is not counted: no bound, a trusted proxy, or not an IP peer (a Unix socket)."""
        if not self.bound or not isinstance(peer, tuple) or not peer:
            return None
        address = str(peer[0])
        if self._trusted and self._trusted(address):
            return None
        if ":" not in address:
            return address
        try:
            ip = ipaddress.IPv6Address(address.split("%", 1)[0])
        except ValueError:
            return address
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, _IPV6_SUBSCRIBER), strict=False))

    def connections(self, client: str) -> set[Any]:
        """The open connections counted under `client` (the set itself, to add to)."""
        found = self._open.get(client)
        if found is None:
            found = self._open[client] = set()
        return found

    def discard(self, client: str, connection: object) -> None:
        found = self._open.get(client)
        if found is not None:
            found.discard(connection)
            if not found:
                del self._open[client]

    def wait(self, client: str, connection: object) -> bool:
        """Let `connection` wait for room under `client`; False when too many wait already."""
        if self.waiting >= self.most_waiting:
            return False
        self._waiting.setdefault(client, {})[connection] = None
        self.waiting += 1
        return True

    def stop_waiting(self, client: str, connection: object) -> None:
        found = self._waiting.get(client)
        if found is not None and connection in found:
            del found[connection]
            self.waiting -= 1
            if not found:
                del self._waiting[client]

    def next_waiting(self, client: str) -> Any | None:
        """The connection that has waited longest for room under `client` (no longer waiting
        once returned), or None."""
        found = self._waiting.get(client)
        if not found:
            return None
        connection = next(iter(found))
        self.stop_waiting(client, connection)
        return connection
