"""Where a request says it came from, believed only as far as the configuration allows.

Absolute links (canonical, previews, "링크 복사") are built from the configured public base URL,
or else from the request's host. A host the admin did not allow never gets that far: it is
answered with 400 before any handler or cache runs, so no request can make the app print
another site's address into a page that others are served. The 400 page tells the admin which
setting to change, and nothing else about the configuration.

Behind a reverse proxy the original scheme, host and client come from `X-Forwarded-*`, but
only from a proxy listed in `RULES_TRUSTED_PROXIES`, and only the value that the nearest
trusted proxy appended (the rightmost): the leftmost values are whatever the client wrote.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Sequence

from starlette._utils import get_route_path, parse_host_header
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import AppError
from app.web.errors import send_error

__all__ = ["LAN", "HostGuardMiddleware", "ProxyHeadersMiddleware", "TrustedProxies", "lan_host",
           "public_base", "public_base_of"]

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
    return public_base_of(Headers(scope=scope).get("host", ""), scope, configured)


def public_base_of(host_header: str, scope: Scope, configured: str) -> str:
    """`public_base`, given the request's (first) `Host` value already read."""
    if configured:
        return configured
    return _base_of(host_header, scope.get("scheme") == "https")


@functools.lru_cache(maxsize=256)
def _base_of(host_header: str, https: bool) -> str:
    """`public_base_of` without a configured base: once per `Host` value and scheme seen
    recently (every cached request asks; bounded, like `_parsed_host`)."""
    parsed = _parsed_host(host_header)
    if parsed is None:
        return ""
    host, given = parsed
    scheme = "https" if https else "http"
    default = "443" if https else "80"
    port = f":{given}" if given and given != default else ""
    return f"{scheme}://{host}{port}"


@functools.lru_cache(maxsize=256)
def _parsed_host(header: str | None) -> tuple[str, str | None] | None:
    """Starlette's `parse_host_header`, the host lower-cased: once per `Host` value seen
    recently (a server hears a few; the memo holds at most 256, whatever clients send)."""
    parsed = parse_host_header(header)
    return None if parsed is None else (parsed.host.lower(), parsed.port)


#: The word in `RULES_ALLOWED_HOSTS` that stands for this box's own names and addresses on a
#: home or club network (`lan_host`).
LAN = "lan"
#: Name endings that only a local network resolves: mDNS (`clubbox.local`), the usual home
#: router suffix, RFC 8375's `home.arpa` and ICANN's reserved `internal`.
_LAN_SUFFIXES = (".local", ".lan", ".home.arpa", ".internal")

#: What a refused host is told: which setting lets it in, and nothing else about the server.
WRONG_HOST = "이 주소로는 룰사전에 들어올 수 없습니다."
WRONG_HOST_HINT = ("서버 관리자라면 RULES_ALLOWED_HOSTS 설정에 이 주소의 호스트 이름이나 IP 주소를 "
                   "더하세요. 같은 와이파이의 휴대폰에서 열려면 lan을 더하면 됩니다.")


def lan_host(host: str) -> bool:
    """Whether `host` (as in `Host`, lower-cased, IPv6 in brackets) names this box on a local
    network: loopback, a private or link-local address, a one-label name (`clubbox`) or a name
    only local networks resolve (`clubbox.local`).

    None of these can be made to point at the box by another site's DNS (the DNS rebinding
    attack that host checks stop), and the app cannot know the box's own address from inside
    a container, so these stand for it.
    """
    name = host.removeprefix("[").removesuffix("]")
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return bool(name) and ("." not in name or name.endswith(_LAN_SUFFIXES))
    return address.is_private or address.is_loopback or address.is_link_local


class HostGuardMiddleware:
    """A Korean 400 page (JSON for the API) for a `Host` outside the allowed list, before any
    handler or cache runs.

    The matching is Starlette's `TrustedHostMiddleware`'s (its host parser; exact names,
    `*.domain` and `*`), plus `lan` (`lan_host`). The health probes pass whatever host they
    use. There is no www-redirect: its `Location` would be built from the request.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        patterns = [p.lower() for p in allowed_hosts]  # checked by Settings
        self.any = "*" in patterns
        self.lan = LAN in patterns
        self.names = frozenset(p for p in patterns if not p.startswith("*"))
        self.suffixes = tuple(p[1:] for p in patterns if p.startswith("*."))

    def allows(self, header: str | None) -> bool:
        """Whether a request with this `Host` header is answered."""
        parsed = _parsed_host(header)
        if parsed is None:
            return False
        host = parsed[0]
        return (self.any or host in self.names or host.endswith(self.suffixes)
                or (self.lan and lan_host(host)))

    def admit(self, scope: Scope) -> Scope | None:
        """`scope` if its host is answered; None: the request gets the 400 page."""
        # More than one `Host` is refused like a wrong one, for any path (RFC 9112 §3.2: 400,
        # whatever they say: which one a cache or proxy in front believed cannot be told).
        host: bytes | None = None
        for name, value in scope["headers"]:
            if name == b"host":
                if host is not None:
                    return None
                host = value
        if get_route_path(scope) in _ANY_HOST_PATHS:
            return scope
        return scope if self.allows(None if host is None else host.decode("latin-1")) else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.admit(scope) is not None:
            await self.app(scope, receive, send)
            return
        # The one error handler answers: no-store, security headers, HTML or JSON.
        await send_error(scope, receive, send, AppError(400, WRONG_HOST, hint=WRONG_HOST_HINT))


class TrustedProxies:
    """Whether a peer address is one of the reverse proxies `RULES_TRUSTED_PROXIES` lists:
    addresses or networks, or "*" for any."""

    __slots__ = ("_any", "_networks")

    def __init__(self, listed: str) -> None:
        items = [t.strip() for t in listed.split(",") if t.strip()]
        self._any = "*" in items
        self._networks: list[_Network] = [ipaddress.ip_network(t, strict=False)
                                          for t in items if t != "*"]

    def __bool__(self) -> bool:
        return self._any or bool(self._networks)

    def __call__(self, address: str | None) -> bool:
        if address is None or not self:
            return False
        if self._any:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self._networks)


class ProxyHeadersMiddleware:
    """Behind a trusted reverse proxy, take the original scheme, host and client from the
    `X-Forwarded-Proto`, `-Host` and `-For` headers; from anyone else, ignore them.

    Each proxy appends to these lists, so the rightmost value is the one the nearest proxy
    wrote. For the client address the list is walked from the right past every trusted proxy.
    uvicorn's own proxy support is off (`proxy_headers=False`): it leaves the host alone and
    believes the leftmost values.
    """

    def __init__(self, app: ASGIApp, trusted: TrustedProxies) -> None:
        self.app = app
        self._trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(self.admit(scope) if scope["type"] == "http" else scope, receive, send)

    def admit(self, scope: Scope) -> Scope:
        """`scope` as the trusted proxy in front says it was (a copy), or as it is."""
        client = scope.get("client")
        if not self._trusted(client[0] if client else None):
            return scope
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
        return scope

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
