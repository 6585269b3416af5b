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


class Throttled:
    """One logger's lines for events a client can cause at will (a refused request head, a
    connection closed mid-answer), at most `burst` per kind in each `period` seconds; the rest
    are counted and said in one line when the next period begins.

    A flood of bad requests then costs the log a few lines a minute per worker, not one (or a
    traceback) per request.
    """

    def __init__(self, logger: logging.Logger, *, burst: int = 10, period: float = 60.0,
                 clock: Any = None) -> None:
        import time

        self.logger = logger
        self.burst = burst
        self.period = period
        self._clock = clock or time.monotonic
        #: kind → [period start, lines logged, lines left out]
        self._kinds: dict[str, list[float]] = {}

    def log(self, level: int, kind: str, message: str, *args: object) -> None:
        """Log `message % args` unless this `kind` already used its lines for this period."""
        now = self._clock()
        state = self._kinds.setdefault(kind, [now, 0, 0])
        if now - state[0] >= self.period:
            if state[2]:
                self.logger.log(level, "%s: %d more in the last %.0f s (not logged one by one)",
                                kind, state[2], now - state[0])
            state[:] = [now, 0, 0]
        if state[1] < self.burst:
            state[1] += 1
            self.logger.log(level, message, *args)
        else:
            state[2] += 1
