"""The app's one `Settings`, read once at start from environment variables (prefix `RULES_`).

Every option is documented in the README's configuration table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Configuration for serving the reference."""

    model_config = SettingsConfigDict(env_prefix="RULES_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    workers: int = Field(default=1, ge=1, le=64)
    data_dir: Path = _ROOT / "data"
    index_dir: Path = _ROOT / "var" / "index"
    #: Absolute base for canonical and preview links, e.g. https://rules.example.org
    public_base_url: str = ""
    #: Path prefix when served under a sub-path behind a reverse proxy, e.g. /rules-ko
    root_path: str = ""
    card_url_base: str = "https://arkhamdb.com/card/"
    #: Comma-separated addresses or networks of reverse proxies whose X-Forwarded-* headers
    #: are believed ("*" for any); empty: none.
    trusted_proxies: str = ""
    #: Memory for rendered responses per worker, in MiB (0 turns the cache off).
    cache_mb: int = Field(default=32, ge=0, le=4096)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["text", "json"] = "text"
