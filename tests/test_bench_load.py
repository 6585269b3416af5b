"""bench.load's reading of the server log: which refusals a load run met."""

from __future__ import annotations

from pathlib import Path

from bench.load import refused_statuses


def test_the_refusals_are_counted_by_status_from_the_access_log(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(
        '2026-12-06 01:50:38,846 INFO uvicorn.access: 127.0.0.1:47428 - "GET /api/search?q=a '
        'HTTP/1.1" 503\n'
        '2026-12-06 01:50:38,847 INFO uvicorn.access: 127.0.0.1:47372 - "GET /rules/x '
        'HTTP/1.1" 200\n'
        '2026-12-06 01:50:38,849 INFO uvicorn.access: 127.0.0.1:47440 - "GET /api/suggest?q=b '
        'HTTP/1.1" 503\n'
        "2026-12-06 01:50:38,859 INFO uvicorn.error: a worker said 404 and 503 in passing\n"
        '2026-12-06 01:50:30,001 INFO uvicorn.access: 127.0.0.1:47001 - "GET /readyz '
        'HTTP/1.1" 503\n',  # not ready yet: what the bench waits through
        encoding="utf-8")
    assert refused_statuses(log) == {503: 2}
