"""Logging: JSON lines with access-log fields when asked, plain text otherwise."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import logging.config
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from app.logs import (
    ACCESS_MESSAGE,
    FLUSH_SECONDS,
    TEXT_FORMAT,
    JsonFormatter,
    ServerLogHandler,
    TextFormatter,
    log_access,
    log_config,
)
from bench.server import running_server
from tests.conftest import DATA


def test_access_records_become_json_objects_with_fields() -> None:
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5000", "GET", "/rules/틈새", "1.1", 200), None)
    line = json.loads(JsonFormatter().format(record))
    assert line["logger"] == "uvicorn.access" and line["level"] == "info"
    assert line["path"] == "/rules/틈새" and line["status"] == 200
    assert line["message"] == '127.0.0.1:5000 - "GET /rules/틈새 HTTP/1.1" 200'


def test_text_lines_are_the_standard_formatters_to_the_millisecond() -> None:
    fmt = "%(asctime)s %(levelname)s %(name)s: %(message)s"
    ours, standard = TextFormatter(fmt), logging.Formatter(fmt)
    for created in (1_764_645_173.0, 1_764_645_173.9995, 1_764_645_174.001, 1_764_645_174.5,
                    1_764_648_000.25):
        record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, "%s", ("x",),
                                   None)
        record.created, record.msecs = created, int((created - int(created)) * 1000) + 0.0
        assert ours.format(record) == standard.format(record)


def test_access_lines_made_without_a_record_are_the_records_lines() -> None:
    ours = TextFormatter(TEXT_FORMAT)
    args = ("127.0.0.1:5000", "GET", "/rules/%ED%8B%88?q=1", "1.1", 304)
    for created in (1_764_645_173.0, 1_764_645_173.9995, 1_764_645_174.001, 1_764_648_000.25):
        record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, ACCESS_MESSAGE,
                                   args, None)
        record.created, record.msecs = created, int((created - int(created)) * 1000) + 0.0
        assert ours.access_line(created, ACCESS_MESSAGE % args) == ours.format(record)
    assert TextFormatter("%(message)s").access_line(1.0, "x") is None  # not our format


def test_log_access_writes_through_the_servers_handler_or_the_usual_way() -> None:
    access = logging.getLogger("uvicorn.access")
    # An earlier test's `dictConfig` may have disabled it (as existing loggers not named).
    saved = access.handlers[:], access.propagate, access.level, access.disabled
    access.disabled = False
    args = ("127.0.0.1:5000", "GET", "/healthz", "1.1", 200)
    try:
        for formatter in (TextFormatter(TEXT_FORMAT), JsonFormatter()):
            stream = io.StringIO()
            handler = ServerLogHandler(stream)
            handler.setFormatter(formatter)
            access.handlers, access.propagate = [handler], False
            access.setLevel(logging.INFO)
            # Outside an event loop, it is written at once. A thread of its own: in the full
            # suite the browser tests' Playwright keeps a loop running in the main thread.
            with ThreadPoolExecutor(1) as pool:
                pool.submit(log_access, access, args).result(timeout=30)
            line = stream.getvalue()
            assert line.endswith("\n") and line.count("\n") == 1
            if isinstance(formatter, JsonFormatter):
                assert json.loads(line)["path"] == "/healthz"
            else:
                assert line.endswith(' INFO uvicorn.access: 127.0.0.1:5000 - "GET /healthz '
                                     'HTTP/1.1" 200\n')
            access.setLevel(logging.WARNING)
            with ThreadPoolExecutor(1) as pool:
                pool.submit(log_access, access, args).result(timeout=30)
            assert stream.getvalue() == line  # below the level: nothing
    finally:
        access.handlers, access.propagate, access.disabled = saved[0], saved[1], saved[3]
        access.setLevel(saved[2])


def _access(logger: logging.Logger, path: str) -> None:
    logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", path, "1.1", 200)


def test_access_lines_wait_a_moment_other_lines_go_out_at_once_in_order() -> None:
    stream = io.StringIO()
    handler = ServerLogHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    access, app = logging.getLogger("uvicorn.access"), logging.getLogger("app.test-logs")
    saved = [(x, x.handlers[:], x.propagate, x.level) for x in (access, app)]
    for x in (access, app):
        x.handlers, x.propagate, x.level = [handler], False, logging.INFO

    async def serve() -> list[str]:
        seen = []
        _access(access, "/a")
        _access(access, "/b")
        seen.append(stream.getvalue())  # held: nothing written yet
        app.warning("a warning")  # written at once, after the access lines before it
        seen.append(stream.getvalue())
        _access(access, "/c")
        await asyncio.sleep(FLUSH_SECONDS * 2)
        seen.append(stream.getvalue())  # written within FLUSH_SECONDS, with no other line
        return seen

    def in_own_thread() -> list[str]:
        # A thread of its own, as a server's: the browser tests' Playwright keeps an event loop
        # running in the main thread for the whole session.
        seen = asyncio.run(serve())
        _access(access, "/outside a loop")  # no loop to wait on: written at once
        return seen

    try:
        with ThreadPoolExecutor(1) as pool:
            held, warned, later = pool.submit(in_own_thread).result(timeout=30)
    finally:
        for x, handlers, propagate, level in saved:
            x.handlers, x.propagate, x.level = handlers, propagate, level
    assert held == ""
    assert warned.splitlines() == ['uvicorn.access 127.0.0.1:5000 - "GET /a HTTP/1.1" 200',
                                   'uvicorn.access 127.0.0.1:5000 - "GET /b HTTP/1.1" 200',
                                   "app.test-logs a warning"]
    assert later.splitlines()[3:] == ['uvicorn.access 127.0.0.1:5000 - "GET /c HTTP/1.1" 200']
    assert stream.getvalue().endswith('"GET /outside a loop HTTP/1.1" 200\n')


def test_config_is_valid_for_both_formats() -> None:
    for fmt in ("text", "json"):
        logging.config.dictConfig(log_config("warning", fmt))
    logging.config.dictConfig({"version": 1, "disable_existing_loggers": False})


def test_server_writes_json_access_logs_and_stops_gracefully(tmp_path: Path) -> None:
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(tmp_path / "index"),
           "RULES_LOG_FORMAT": "json"}
    log = tmp_path / "server.log"
    with running_server(env, log_path=log) as (base, process):
        with urllib.request.urlopen(base + "/rules/Skill_Test_3", timeout=10) as page:
            assert page.status == 200
        process.terminate()
        # SIGTERM: uvicorn finishes in-flight requests, shuts down, then re-raises the signal.
        assert process.wait(timeout=15) in (0, -15)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    access = [line for line in lines if line["logger"] == "uvicorn.access"]
    assert any(a["path"] == "/rules/Skill_Test_3" and a["status"] == 200 for a in access)
    messages = [line["message"] for line in lines]
    assert "Shutting down" in messages and any("Finished server process" in m for m in messages)
