"""Logging set-up for the server: plain text or one JSON object per line, access logs included."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from datetime import UTC, datetime
from typing import IO, Any

_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")
_ACCESS = "uvicorn.access"
#: uvicorn's access line, and our text format.
ACCESS_MESSAGE = '%s - "%s %s HTTP/%s" %d'
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: `logging.Formatter.default_msec_format`, which the access lines' fast path writes itself.
_MSEC_FORMAT = "%s,%03d"
_ACCESS_LEVEL = f"INFO {_ACCESS}: "
#: Longest an access line waits in `ServerLogHandler`'s buffer before it is written, and the
#: most the buffer holds before it is written at once.
FLUSH_SECONDS = 0.2
FLUSH_BYTES = 64 * 1024


class JsonFormatter(logging.Formatter):
    """One JSON object per record; uvicorn's access records get their fields split out."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.name == _ACCESS and isinstance(record.args, tuple) and len(
            record.args
        ) == len(_ACCESS_FIELDS):
            data.update(zip(_ACCESS_FIELDS, record.args, strict=True))
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """`logging.Formatter`, with the date and time of each second formatted once: the same
    text (`formatTime` without a `datefmt`), for a fraction of the cost on every access line."""

    def __init__(self, fmt: str | None = None) -> None:
        super().__init__(fmt)
        self._second: tuple[int, str] = (-1, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt:
            return super().formatTime(record, datefmt)
        second = int(record.created)
        if self._second[0] != second:
            # localtime() of `created` depends on its whole seconds only.
            self._second = (second, time.strftime(self.default_time_format,
                                                  self.converter(record.created)))
        msec = self.default_msec_format
        return msec % (self._second[1], record.msecs) if msec else self._second[1]

    def access_line(self, created: float, message: str) -> str | None:
        """The line `format` makes of an INFO record of `uvicorn.access` with this message,
        logged at `created`, made without the record; None unless the format is ours."""
        if self._fmt != TEXT_FORMAT or type(self).formatTime is not TextFormatter.formatTime:
            return None
        second = int(created)
        if self._second[0] == second and self.default_msec_format == _MSEC_FORMAT:
            # `formatTime`'s text, without a record: the second's text, then `LogRecord.msecs`
            # (the milliseconds, truncated) as `%03d` writes it.
            msecs = int((created - second) * 1000)
            return f"{self._second[1]},{msecs:03d} {_ACCESS_LEVEL}{message}"
        record = _Stamp(created)
        return f"{self.formatTime(record)} {_ACCESS_LEVEL}{message}"  # type: ignore[arg-type]


class _Stamp:
    """What `TextFormatter.formatTime` reads of a record: when it was made (as `LogRecord`)."""

    __slots__ = ("created", "msecs")

    def __init__(self, created: float) -> None:
        self.created = created
        self.msecs = int((created - int(created)) * 1000) + 0.0


class ServerLogHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The server's one log handler: `logging.StreamHandler`, except that access lines
    (`uvicorn.access`, one per request) are written in batches, at most `FLUSH_SECONDS` after
    they were logged (or once `FLUSH_BYTES` are waiting); every other line (warnings, errors,
    the start-up and shutdown messages) is written at once, after the access lines before it.

    One write to the log per request cost more than the rest of a cached answer's logging
    (`bench.load`'s CPU per request). The lines and their order are unchanged; what a worker
    killed outright (SIGKILL) had not written yet, at most `FLUSH_SECONDS` of access lines, is
    lost. uvicorn re-raises SIGTERM after its last line, which is written at once.
    """

    def __init__(self, stream: IO[str] | None = None) -> None:
        super().__init__(stream)
        self._lines: list[str] = []
        self._bytes = 0
        self._due: asyncio.TimerHandle | None = None
        # Our formats print no thread or process names, nor the caller's file and line: the
        # records need not collect them (the logging HOWTO's "Optimization"; the caller's
        # frame was looked up for every access line).
        logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
        logging._srcfile = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + self.terminator
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)
            return
        self._queue(line, record, record.name == _ACCESS and record.levelno <= logging.INFO)

    def access(self, args: tuple[object, ...]) -> bool:
        """Log uvicorn's access line with these arguments (`ACCESS_MESSAGE`), the line
        `emit` writes for its record, without making the record: a record cost more than the
        rest of a cached answer's logging. False: this handler cannot (filters, a formatter
        of another kind); log the usual way."""
        formatter = self.formatter
        if self.filters or not isinstance(formatter, TextFormatter):
            return False
        line = formatter.access_line(time.time(), ACCESS_MESSAGE % args)
        if line is None:
            return False
        line += self.terminator
        lock = self.lock
        if lock is None:
            self._queue(line, None, True)
            return True
        with lock:
            lines = self._lines
            if lines and self._due is not None and self._bytes + len(line) < FLUSH_BYTES:
                # Most lines: a write is due already and the buffer has room (`_queue`).
                lines.append(line)
                self._bytes += len(line)
            else:
                self._queue(line, None, True)
        return True

    def _queue(self, line: str, record: logging.LogRecord | None, access: bool) -> None:
        self._lines.append(line)
        self._bytes += len(line)
        if not access or self._bytes >= FLUSH_BYTES:
            self._write(record)
        elif self._due is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # not in the event loop's thread: no timer to wait for
                self._write(record)
                return
            self._due = loop.call_later(FLUSH_SECONDS, self._flush_due)

    def _flush_due(self) -> None:
        self._due = None  # set and cleared in the event loop's thread only
        self.flush()

    def flush(self) -> None:
        self.acquire()
        try:
            self._write(None)
        finally:
            self.release()

    def _write(self, record: logging.LogRecord | None) -> None:
        # A timer still due finds nothing to write (it is not cancelled here: this may be
        # another thread than the event loop's).
        lines, self._lines, self._bytes = self._lines, [], 0
        try:
            if lines:
                self.stream.write("".join(lines))
            if hasattr(self.stream, "flush"):
                self.stream.flush()
        except RecursionError:
            raise
        except Exception:
            if record is not None:
                self.handleError(record)


def log_access(logger: logging.Logger, args: tuple[object, ...]) -> None:
    """`logger.info(ACCESS_MESSAGE, *args)`: through `ServerLogHandler.access` when that is
    all the logging configuration does with the line (the server's own), else as usual."""
    if not logger.isEnabledFor(logging.INFO):
        return
    handlers = logger.handlers
    if (len(handlers) == 1 and not logger.filters and not logger.propagate
            and isinstance(handlers[0], ServerLogHandler) and handlers[0].level <= logging.INFO
            and logger.name == _ACCESS and handlers[0].access(args)):
        return
    logger.info(ACCESS_MESSAGE, *args)


def log_config(level: str, fmt: str) -> dict[str, Any]:
    """A `logging.config.dictConfig` for uvicorn and the app, in `fmt` ("text" or "json")."""
    formatter: dict[str, Any] = (
        {"()": JsonFormatter}
        if fmt == "json"
        else {"()": TextFormatter, "fmt": TEXT_FORMAT}
    )
    handler = {"class": "app.logs.ServerLogHandler", "formatter": "default",
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
