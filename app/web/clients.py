"""How many connections one client address may hold open in a worker.

A server that faces the internet itself has no nginx `limit_conn` in front of it. One address
with 2,000 sockets that never read took every connection of both workers (#20 H1), and past
the worker's bound each of its new connections still had an answer computed and written
before an older one was closed for it: the attack's cost to the server grew with the
attacker's own speed. Past this bound an address gets no new connection served while its own
are all busy: the protocol (`app.web.protocol`) first closes the address's idle kept-alive
connections to make room (a club behind one NAT address loses nothing a browser does not
reopen by itself) and, when none is idle, refuses the new one with a 503 before reading any
of it.

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

    __slots__ = ("_open", "_trusted", "bound")

    def __init__(self, bound: int, trusted: TrustedProxies) -> None:
        #: Connections one address may have open at once; 0: no bound.
        self.bound = bound
        self._trusted = trusted
        self._open: dict[str, set[Any]] = {}

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
