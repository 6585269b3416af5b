"""The app's one `Settings`, read once at start from environment variables (prefix `RULES_`).

Every option is documented in the README's configuration table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_ROOT = Path(__file__).resolve().parent.parent
#: The hosts a default install answers for: only what this machine itself calls itself.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


class Settings(BaseSettings):
    """Configuration for serving the reference."""

    model_config = SettingsConfigDict(env_prefix="RULES_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    workers: int = Field(default=1, ge=1, le=64)
    data_dir: Path = _ROOT / "data"
    index_dir: Path = _ROOT / "var" / "index"
    #: The folder the server owns for the prepared data its workers serve (with several
    #: workers): the data copy, its index and built answers, and the workers' readiness.
    #: Created 0700; never a shared temporary folder, where cleaners delete old files.
    state_dir: Path = _ROOT / "var" / "state"
    #: Where `serve` writes its process id (and holds a lock while it runs), so that
    #: `python -m app data update` can tell it to reload. Default: beside the index folder.
    pid_file: Path | None = None
    #: Absolute base for canonical and preview links, e.g. https://rules.example.org
    public_base_url: str = ""
    #: Path prefix when served under a sub-path behind a reverse proxy, e.g. /rules-ko
    root_path: str = ""
    card_url_base: str = "https://arkhamdb.com/card/"
    #: Comma-separated host names the app answers for (`Host`, or the forwarded host behind a
    #: trusted proxy); `*.example.org` covers subdomains, `*` any host, `lan` this box's names
    #: and addresses on a local network (`app.web.hosts.lan_host`). The host of
    #: `public_base_url` is always added; with neither, the loopback names.
    allowed_hosts: str = ""
    #: Comma-separated addresses or networks of reverse proxies whose X-Forwarded-* headers
    #: are believed ("*" for any); empty: none.
    trusted_proxies: str = ""
    #: Memory for rendered responses per worker, in MiB (0 turns the cache off).
    cache_mb: int = Field(default=32, ge=0, le=4096)
    #: Seconds a shared cache (CDN, caching proxy) may serve a page without asking again.
    shared_cache_seconds: int = Field(default=300, ge=0, le=86_400)
    #: Open connections per worker; beyond it, new requests get 503.
    max_connections: int = Field(default=1000, ge=10, le=100_000)
    #: Open connections one client address may have per worker (0: no bound); past it its
    #: idle kept-alive ones are closed to make room, else the new one waits unread for room
    #: (`limits.CLIENT_WAIT`, then 503; `app.web.clients`). A browser opens at most 6 to a
    #: site; trusted proxies are not counted, and an IPv6 client counts by its /64.
    max_client_connections: int = Field(default=64, ge=0, le=100_000)
    #: Searches (search, suggest, /go/) computed at once per worker, and how many more may wait
    #: for a slot (at most 2 s); beyond that they get 503 at once (app/web/admission.py).
    #: Measured on 2 cores (bench.load --no-cache, 3 runs of 60 s each, same session): before
    #: admission control p99 80-93 ms; with 6 slots 100-103 ms (searches wait for a slot while
    #: uncached pages do not), p50 36 → 32 ms, the same requests/s. Under bench.attack's typo
    #: flood the health probe's p99 was 24-42 ms with 6 slots, 35-44 ms with 8, and fewer
    #: slots (2, 4) made the uncached-load tail worse (p99 105-230 ms). Runs vary by ±25 %.
    #: The queue was 32 until 2026-12-06: the kernel hands a burst of new connections to the
    #: worker that wakes first (36 of 50 to one of two, seen), and that worker then refused
    #: 7 % of the uncached mix's requests (2,545 in 20 s) with the search cost known to drain
    #: its queue in well under the 2 s wait. 128 waiting searches are about 0.3 s of work;
    #: the wait bound, not the count, is what refuses a flood.
    search_slots: int = Field(default=6, ge=1, le=64)
    search_queue: int = Field(default=128, ge=0, le=10_000)

    @field_validator("public_base_url")
    @classmethod
    def _absolute_http_url(cls, value: str) -> str:
        # Every canonical and preview link is built from it: a typo must stop the start.
        value = value.strip().rstrip("/")
        if not value:
            return ""
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
                or parts.fragment or parts.username or parts.password:
            raise ValueError("must be an absolute http(s) URL such as https://rules.example.org")
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _host_patterns(cls, value: str) -> str:
        for pattern in (p.strip() for p in value.split(",")):
            if "*" in pattern[1:] or (pattern.startswith("*") and pattern != "*"
                                      and not pattern.startswith("*.")):
                raise ValueError(f"{pattern!r}: a wildcard must be like *.example.org (or *)")
        return value

    @field_validator("root_path")
    @classmethod
    def _path_prefix(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value and (not value.startswith("/") or "?" in value or "#" in value
                      or "//" in value):
            raise ValueError("must be a path prefix such as /rules-ko")
        return value

    @property
    def pid_path(self) -> Path:
        """The pid file: `RULES_PID_FILE`, else `server.pid` beside the index folder."""
        return self.pid_file or self.index_dir.parent / "server.pid"

    def host_patterns(self) -> list[str]:
        """The allowed host patterns, lower-cased: the listed ones and the public base URL's
        host (the app always answers for its own public name), else the loopback names."""
        listed = [h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()]
        host = urlsplit(self.public_base_url).hostname if self.public_base_url else None
        public = [f"[{host}]" if ":" in host else host] if host else []
        found = list(dict.fromkeys([*listed, *public]))
        return found or list(LOOPBACK_HOSTS)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["text", "json"] = "text"


def describe(error: ValidationError) -> list[str]:
    """One line per wrong setting, named as the admin wrote it (`RULES_PUBLIC_BASE_URL: …`)."""
    return [f"RULES_{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            for e in error.errors()]
