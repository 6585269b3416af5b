"""Logging: JSON lines with access-log fields when asked, plain text otherwise."""

from __future__ import annotations

import json
import logging
import logging.config
import urllib.request
from pathlib import Path

from app.logs import JsonFormatter, log_config
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
