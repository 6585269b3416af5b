"""Logging set-up for the server: plain text or one JSON object per line, access logs included."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


class JsonFormatter(logging.Formatter):
    """One JSON object per record; uvicorn's access records get their fields split out."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(
            record.args
        ) == len(_ACCESS_FIELDS):
            data.update(zip(_ACCESS_FIELDS, record.args, strict=True))
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def log_config(level: str, fmt: str) -> dict[str, Any]:
    """A `logging.config.dictConfig` for uvicorn and the app, in `fmt` ("text" or "json")."""
    formatter: dict[str, Any] = (
        {"()": JsonFormatter}
        if fmt == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    handler = {"class": "logging.StreamHandler", "formatter": "default",
               "stream": "ext://sys.stderr"}
    upper = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {"default": handler},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": upper, "propagate": False},
            "uvicorn.error": {"handlers": ["default"], "level": upper, "propagate": False},
            "uvicorn.access": {"handlers": ["default"], "level": upper, "propagate": False},
            "app": {"handlers": ["default"], "level": upper, "propagate": False},
        },
    }
