"""Where a request says it came from, believed only as far as the configuration allows.

Absolute links (canonical, previews, "링크 복사") are built from the configured public base URL,
or else from the request's host. A host the admin did not allow never gets that far: it is
answered with 400 before any handler or cache runs, so no request can make the app print
another site's address into a page that others are served.

Behind a reverse proxy the original scheme, host and client come from `X-Forwarded-*`, but
only from a proxy listed in `RULES_TRUSTED_PROXIES`, and only the value that the nearest
trusted proxy appended (the rightmost): the leftmost values are whatever the client wrote.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

from starlette._utils import get_route_path, parse_host_header
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HostGuardMiddleware", "ProxyHeadersMiddleware", "public_base"]

#: Answers that never depend on the host: a health probe may use any address (Kubernetes
#: probes send the pod's IP as Host), and must keep working when the allowed list is narrow.
_ANY_HOST_PATHS = ("/healthz", "/readyz")

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def public_base(scope: Scope, configured: str) -> str:
    """The scheme and host absolute links start with: `configured` when set, else the request's.

    By the time a handler or the cache calls this, the host has passed `HostGuardMiddleware`
    (and a trusted proxy's forwarded host has replaced the raw one), so the answer is one of
    the allowed hosts. Pages and the response cache key both use this function.
    """
    if configured:
        return configured
    host = parse_host_header(Headers(scope=scope).get("host"))
    if host is None:
        return ""
    scheme = "https" if scope.get("scheme") == "https" else "http"
    default = "443" if scheme == "https" else "80"
    port = f":{host.port}" if host.port and host.port != default else ""
    return f"{scheme}://{host.host.lower()}{port}"


class HostGuardMiddleware:
    """400 for a `Host` outside the allowed list (Starlette's `TrustedHostMiddleware`).

    Starlette's middleware does the parsing and matching (IPv6 literals, ports, `*.domain`);
    this wrapper only lets the health probes through whatever host they use, and turns off its
    www-redirect, whose `Location` would be built from the request.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self.guarded = TrustedHostMiddleware(app, allowed_hosts=list(allowed_hosts),
                                             www_redirect=False)
        # The same refusal, for any host: a request whose host cannot be told (RFC 9112 §3.2:
        # more than one `Host` gets 400, whatever they say).
        self.refused = TrustedHostMiddleware(app, allowed_hosts=[], www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        guard = self.guarded
        if scope["type"] == "http":
            if sum(name == b"host" for name, _ in scope["headers"]) > 1:
                guard = self.refused
            elif get_route_path(scope) in _ANY_HOST_PATHS:
                await self.app(scope, receive, send)
                return

        async def no_store(message: Message) -> None:
            # Its refusal must not be kept by a cache in front, like every other error.
            if message["type"] == "http.response.start" and message["status"] == 400:
                MutableHeaders(scope=message).setdefault("cache-control", "no-store")
            await send(message)

        await guard(scope, receive, no_store)


class ProxyHeadersMiddleware:
    """Behind a trusted reverse proxy, take the original scheme, host and client from the
    `X-Forwarded-Proto`, `-Host` and `-For` headers; from anyone else, ignore them.

    Each proxy appends to these lists, so the rightmost value is the one the nearest proxy
    wrote. For the client address the list is walked from the right past every trusted proxy.
    uvicorn's own proxy support is off (`proxy_headers=False`): it leaves the host alone and
    believes the leftmost values.
    """

    def __init__(self, app: ASGIApp, trusted: Iterable[str]) -> None:
        self.app = app
        items = [t.strip() for t in trusted if t.strip()]
        self.any = "*" in items
        self.networks: list[_Network] = [ipaddress.ip_network(t, strict=False)
                                         for t in items if t != "*"]

    def _trusted(self, address: str | None) -> bool:
        if address is None:
            return False
        if self.any:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.networks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] != "http" or not self._trusted(client[0] if client else None):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        scope = dict(scope)
        host = _rightmost(headers.getlist("x-forwarded-host"))
        if host:
            # The forwarded host replaces Host, so it meets the same allowed-hosts check.
            raw = [(k, v) for k, v in scope["headers"] if k != b"host"]
            scope["headers"] = [*raw, (b"host", host.encode("latin-1"))]
        proto = _rightmost(headers.getlist("x-forwarded-proto")).lower()
        if proto in ("http", "https"):
            scope["scheme"] = proto
        origin = self._client(headers.getlist("x-forwarded-for"))
        if origin is not None:
            scope["client"] = (origin, 0)
        await self.app(scope, receive, send)

    def _client(self, values: list[str]) -> str | None:
        hops = [h.strip() for value in values for h in value.split(",") if h.strip()]
        # The first address from the right that is not one of our proxies is the client.
        for hop in reversed(hops):
            try:
                ipaddress.ip_address(hop)
            except ValueError:
                return None  # a garbled list: keep the proxy's own address
            if not self._trusted(hop):
                return hop
        return hops[0] if hops else None


def _rightmost(values: list[str]) -> str:
    for value in reversed(values):
        parts = [p.strip() for p in value.split(",") if p.strip()]
        if parts:
            return parts[-1]
    return ""
