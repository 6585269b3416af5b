"""Running the app: uvicorn with the bounded HTTP protocol, one process or several.

With one worker the app is built here, once, and reloads itself in place on SIGHUP. With
several, this process is their supervisor (uvicorn's, with one change): it copies the data
folder to a private snapshot, validates it and builds its index, and tells every worker to
serve that snapshot. A worker that dies is replaced by one serving the same snapshot, so all
workers always serve the same data version. SIGHUP makes and validates a new snapshot first;
only if it loads are the workers replaced one by one, and on broken data the old ones keep
serving.
"""

from __future__ import annotations

import logging
import logging.config
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import uvicorn
from uvicorn.supervisors import Multiprocess

from app.corpus.snapshot import snapshot
from app.errors import DataError
from app.logs import log_config
from app.pidfile import holding_pid_file
from app.settings import Settings
from app.urls import Urls
from app.web.hosts import LAN
from app.web.protocol import BoundedHttpToolsProtocol
from app.web.state import load_library

__all__ = ["serve"]

log = logging.getLogger("app")

#: Seconds to finish requests in flight on SIGTERM.
GRACEFUL_SECONDS = 10


def serve(settings: Settings) -> int:
    """Validate the data and serve it until stopped; 1 (with one line) on broken data."""
    from app.web.app import create_app

    config_args: dict[str, object] = {
        "host": settings.host,
        "port": settings.port,
        "http": BoundedHttpToolsProtocol,
        "log_config": log_config(settings.log_level, settings.log_format),
        "log_level": settings.log_level,
        # The app reads X-Forwarded-* itself, from RULES_TRUSTED_PROXIES only.
        "proxy_headers": False,
        "forwarded_allow_ips": "",
        "server_header": False,
        "timeout_graceful_shutdown": GRACEFUL_SECONDS,
        "limit_concurrency": settings.max_connections,
    }
    # Configured now, not when uvicorn starts, so that what loading says (an index rebuilt, or
    # built in memory) comes out in the chosen format; SIGHUP waits until it can be handled.
    logging.config.dictConfig(config_args["log_config"])  # type: ignore[arg-type]
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if settings.workers == 1:
        try:
            app = create_app(settings)
        except DataError as exc:
            print(f"룰사전: cannot start: {exc}", file=sys.stderr)
            return 1
        _announce(settings)
        with holding_pid_file(settings.pid_path):  # `data update` finds the server by it
            uvicorn.run(app, **config_args)  # type: ignore[arg-type]
        return 0
    try:
        snapshots = _Snapshots(settings)
    except OSError as exc:
        print(f"룰사전: cannot start: no private folder for the data copy ({exc})",
              file=sys.stderr)
        return 1
    try:
        if not snapshots.advance(at_start=True):
            return 1
        _announce(settings)
        config = uvicorn.Config("app.main:app", workers=settings.workers,
                                **config_args)  # type: ignore[arg-type]
        with holding_pid_file(settings.pid_path):  # the supervisor takes the SIGHUP
            _Supervisor(config, sockets=[config.bind_socket()], snapshots=snapshots).run()
    finally:
        snapshots.close()
    return 0


def _announce(settings: Settings) -> None:
    # A request for any other host gets 400: the line an admin looks for when a phone on the
    # LAN cannot open the page.
    hosts = [f"{LAN} (this box's names and local-network addresses)" if p == LAN else p
             for p in settings.host_patterns()]
    log.info("answering for hosts %s (RULES_ALLOWED_HOSTS)", ", ".join(hosts))


class _Snapshots:
    """The private data snapshot the workers serve (`RULES_DATA_DIR` in their environment)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = Path(tempfile.mkdtemp(prefix="rulesajeon-data-"))
        self.current: Path | None = None
        self._retire: Path | None = None

    def advance(self, *, at_start: bool = False) -> bool:
        """Copy and validate the data folder; on success, workers started from now on serve
        the copy. On broken data, one line (stderr at start, the log on a reload)."""
        # Any error here is reported, never raised: raised in the supervisor, it would end the
        # loop that keeps the workers alive.
        try:
            target = Path(tempfile.mkdtemp(dir=self.root))
        except OSError as exc:
            return self._failed(exc, at_start=at_start)
        try:
            snapshot(self.settings.data_dir, target)
            library = load_library(target, self.settings.index_dir, Urls())
        except (DataError, OSError) as exc:
            shutil.rmtree(target, ignore_errors=True)
            return self._failed(exc, at_start=at_start)
        previous, self.current = self.current, target
        # Spawned workers inherit the environment as it is when they start.
        os.environ["RULES_DATA_DIR"] = str(target)
        if previous is not None:
            log.info("reloading: data version %s, replacing the workers one by one",
                     library.version)
            self._retire = previous
        return True

    @staticmethod
    def _failed(error: Exception, *, at_start: bool) -> bool:
        if at_start:
            print(f"룰사전: cannot start: {error}", file=sys.stderr)
        else:
            log.error("reload failed, workers keep serving the data they have: %s", error)
        return False

    def retire_previous(self) -> None:
        """Delete the snapshot the replaced workers loaded (they hold it in memory)."""
        if self._retire is not None:
            shutil.rmtree(self._retire, ignore_errors=True)
            self._retire = None

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class _Supervisor(Multiprocess):
    """uvicorn's supervisor, except that SIGHUP first makes a new validated snapshot."""

    def __init__(self, config: uvicorn.Config, sockets: list[object],
                 snapshots: _Snapshots) -> None:
        super().__init__(config, sockets)  # type: ignore[arg-type]
        self.snapshots = snapshots

    def handle_hup(self) -> None:
        logging.getLogger("uvicorn.error").info("Received SIGHUP, reloading the data.")
        if not self.snapshots.advance():
            return
        before = {process.pid for process in self.processes}
        self.restart_all()
        if before & {process.pid for process in self.processes}:
            # uvicorn gave up part way (a new worker was not ready in time): some workers
            # still read the old copy's data; it stays until the next reload.
            log.error("reload incomplete: some workers still serve the previous data; send "
                      "SIGHUP again")
            return
        self.snapshots.retire_previous()
