"""Running the app: uvicorn with the bounded HTTP protocol, one process or several.

With one worker the app is built here, once, and reloads itself in place on SIGHUP. With
several, this process is their supervisor (uvicorn's, with changes): it **prepares** the data
once, in a folder of its own (`RULES_STATE_DIR`, not a temporary folder that cleaners empty): a
copy of exactly the files the manifest declares, validated, with its search index and the answers
that depend on the data version alone (`app.web.built`), and tells every worker to start from
that. A worker then only loads what is ready (about a second), well inside the window the
supervisor gives a new worker to become ready.

* A worker that dies is replaced by one serving the same prepared data; if that folder was
  deleted meanwhile, it is prepared again first (the data version stays the one served, or a
  reload follows when the data on disk changed).
* SIGHUP prepares a new snapshot first; only then are the workers replaced one by one, each new
  one retried if it is not ready in time; if one still fails, the replaced workers go back to the
  previous data, so the workers always end on one data version. Broken data keeps the old
  workers serving, with one line in the log.
* The supervisor writes which workers can serve to a status file; `/readyz` answers 503 from any
  worker while one is missing or still starting.
* A snapshot folder is deleted once no worker uses it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import logging.config
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors import Multiprocess
from uvicorn.supervisors.multiprocess import Process

from app import native
from app.corpus.snapshot import snapshot
from app.errors import DataError
from app.logs import log_config
from app.pidfile import holding_pid_file
from app.settings import Settings
from app.web import limits
from app.web.background import at_low_priority
from app.web.hosts import LAN
from app.web.state import PREPARED_ENV, STATUS_ENV, Library, load_library, save_corpus
from app.web.worker import PROTOCOL, Worker

__all__ = ["config_args", "serve"]

log = logging.getLogger("app")

#: Seconds to finish requests in flight on SIGTERM.
GRACEFUL_SECONDS = 10
#: Seconds a new worker has to become ready, and a worker to answer the supervisor's ping.
#: uvicorn's default is 5. A worker starting from prepared data is ready in about 1 s alone and
#: 2-4 s on this 2-core machine under `wrk -c20` (bench.attack's reload phase); 20 s leaves room
#: for a slower box under load, and still replaces a hung worker within 20 s.
WORKER_START_SECONDS = 20
#: Tries for each new worker of a reload before the reload is rolled back.
START_TRIES = 3
#: The longest pause before starting a worker again after it failed at start-up in a row.
RESPAWN_MAX_SECONDS = 60
_STATUS = "status.json"
_LOCK = ".lock"
_PREFIX = "snapshot-"


def config_args(settings: Settings) -> dict[str, Any]:
    """uvicorn's settings for this server (one worker or several), as `uvicorn.Config` takes
    them."""
    return {
        "host": settings.host,
        "port": settings.port,
        "http": PROTOCOL,
        "log_config": log_config(settings.log_level, settings.log_format),
        "log_level": settings.log_level,
        # The app reads X-Forwarded-* itself, from RULES_TRUSTED_PROXIES only.
        "proxy_headers": False,
        "forwarded_allow_ips": "",
        "server_header": False,
        "timeout_graceful_shutdown": GRACEFUL_SECONDS,
        # Enforced by the protocol, which keeps room for health probes beyond it.
        "limit_concurrency": settings.max_connections,
        "timeout_worker_healthcheck": WORKER_START_SECONDS,
    }


def serve(settings: Settings) -> int:
    """Validate the data and serve it until stopped; 1 (with one line) on broken data."""
    from app.web.app import create_app

    args = config_args(settings)
    # Configured now, not when uvicorn starts, so that what loading says (an index rebuilt, or
    # built in memory) comes out in the chosen format; SIGHUP waits until it can be handled.
    logging.config.dictConfig(args["log_config"])
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if settings.workers == 1:
        try:
            app = create_app(settings, settle=True)
        except DataError as exc:
            print(f"룰사전: cannot start: {exc}", file=sys.stderr)
            return 1
        _announce(settings)
        # `uvicorn.run`, with the listening socket made here.
        config = uvicorn.Config(app, **args)
        server = uvicorn.Server(config)
        with holding_pid_file(settings.pid_path), contextlib.suppress(KeyboardInterrupt):
            # `data update` finds the server by its pid file.
            server.run(sockets=[_listening_socket(config)])
        return 0 if server.started else STARTUP_FAILURE
    try:
        snapshots = _Snapshots(settings)
    except (OSError, _InUse) as exc:
        print(f"룰사전: cannot start: RULES_STATE_DIR {settings.state_dir}: {exc}",
              file=sys.stderr)
        return 1
    try:
        if not snapshots.advance(at_start=True):
            return 1
        _announce(settings)
        config = uvicorn.Config("app.main:app", workers=settings.workers,
                                **args)
        with holding_pid_file(settings.pid_path):  # the supervisor takes the SIGHUP
            _Supervisor(config, sockets=[_listening_socket(config)], snapshots=snapshots).run()
    finally:
        snapshots.close()
    return 0


def _listening_socket(config: uvicorn.Config) -> socket.socket:
    """The socket the server accepts from, bound. Every connection accepted from it inherits
    its send buffer, so the kernel keeps at most about twice `limits.SEND_BUFFER` of the
    answers for a client (left to autotuning, it grew to megabytes per connection that does
    not read). Set once here rather than on each connection, where uvloop's stand-in socket
    makes a socket object for the call: a burst of connections is accepted at the pace of
    the per-connection work (bench.burst_floor)."""
    sock = config.bind_socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, limits.SEND_BUFFER)
    return sock


def _announce(settings: Settings) -> None:
    # A request for any other host gets 400: the line an admin looks for when a phone on the
    # LAN cannot open the page.
    hosts = [f"{LAN} (this box's names and local-network addresses)" if p == LAN else p
             for p in settings.host_patterns()]
    log.info("answering for hosts %s (RULES_ALLOWED_HOSTS)", ", ".join(hosts))
    log.info("search: %s", "compiled (python -m app compile)" if native.compiled()
             else "Python (python -m app compile makes it about a third faster)")


class _InUse(Exception):
    """Another server holds the state folder."""


class _Snapshots:
    """The prepared data the workers serve, in the state folder this server owns."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = settings.state_dir.absolute()
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.root.chmod(0o700)
        self._lock: IO[str] | None = self._locked()
        # What an earlier server left (it was killed): no worker of ours uses it.
        for stale in self.root.glob(f"{_PREFIX}*"):
            shutil.rmtree(stale, ignore_errors=True)
        self.current: Path | None = None
        self.version = ""
        self._previous: Path | None = None
        self._status: dict[str, object] = {}
        os.environ[STATUS_ENV] = str(self.root / _STATUS)

    def _locked(self) -> IO[str]:
        lock = (self.root / _LOCK).open("a", encoding="utf-8")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise _InUse("another server uses this folder") from None
        return lock

    def advance(self, *, at_start: bool = False) -> bool:
        """Prepare the data folder's current content; on success, workers started from now on
        serve it. On broken data, one line (stderr at start, the log on a reload)."""
        # Any error here is reported, never raised: raised in the supervisor, it would end the
        # loop that keeps the workers alive.
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            target = Path(tempfile.mkdtemp(prefix=_PREFIX, dir=self.root))
        except OSError as exc:
            return self._failed(exc, at_start=at_start)
        try:
            library = at_low_priority(lambda: _prepare(self.settings, target))
        except (DataError, OSError) as exc:
            shutil.rmtree(target, ignore_errors=True)
            return self._failed(exc, at_start=at_start)
        previous, self.current, self.version = self.current, target, library.version
        # Spawned workers inherit the environment as it is when they start.
        os.environ[PREPARED_ENV] = str(target)
        if previous is not None:
            log.info("reloading: data version %s, replacing the workers one by one",
                     library.version)
            self._previous = previous
        return True

    @staticmethod
    def _failed(error: Exception, *, at_start: bool) -> bool:
        if at_start:
            print(f"룰사전: cannot start: {error}", file=sys.stderr)
        else:
            log.error("reload failed, workers keep serving the data they have: %s", error)
        return False

    def intact(self) -> bool:
        """Whether the current snapshot is all there (a cleaner may have deleted files)."""
        if self.current is None:
            return False
        try:
            listed = json.loads((self.current / _READY).read_text(encoding="utf-8"))
            return all((self.current / name).stat().st_size == size
                       for name, size in listed["files"].items())
        except (OSError, ValueError, KeyError, AttributeError):
            return False

    def restore(self) -> bool | None:
        """Prepare the data again after the current snapshot was damaged: True when it holds
        the same data version (workers may be replaced one at a time), False when the data on
        disk changed (every worker must move: a reload), None when it cannot be prepared."""
        version = self.version
        damaged = self.current
        self.current = None
        if not self.advance():
            self.current = damaged
            return None
        self._previous = None
        if damaged is not None:
            shutil.rmtree(damaged, ignore_errors=True)
        return self.version == version

    def roll_back(self) -> None:
        """Serve the previous snapshot again (a reload whose workers could not start)."""
        if self._previous is None:
            return
        failed, self.current = self.current, self._previous
        self._previous = None
        os.environ[PREPARED_ENV] = str(self.current)
        self.version = _version_of(self.current)
        if failed is not None:
            shutil.rmtree(failed, ignore_errors=True)

    def retire_previous(self) -> None:
        """Delete the snapshot the replaced workers loaded (they hold it in memory)."""
        if self._previous is not None:
            shutil.rmtree(self._previous, ignore_errors=True)
            self._previous = None

    def report(self, ready: int, workers: int) -> None:
        """Write the status file the workers' `/readyz` reads, when it changed or is gone."""
        status: dict[str, object] = {"version": self.version, "ready": ready,
                                     "workers": workers}
        path = self.root / _STATUS
        if status == self._status and path.exists():
            return
        with contextlib.suppress(OSError):
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            partial = path.with_suffix(".partial")
            partial.write_text(json.dumps(status), encoding="utf-8")
            partial.replace(path)
            self._status = status

    def close(self) -> None:
        for folder in self.root.glob(f"{_PREFIX}*"):
            shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            (self.root / _STATUS).unlink()
        if self._lock is not None:
            self._lock.close()
            self._lock = None


_READY = "READY"


def _prepare(settings: Settings, target: Path) -> Library:
    """Copy, validate and complete the data into `target`: what a worker starts from."""
    from app.web.app import app_urls, code_version, with_built_answers

    snapshot(settings.data_dir, target / "data")
    urls = app_urls(settings)
    library = load_library(target / "data", settings.index_dir, urls)
    save_corpus(library.corpus, urls, target)
    library.index.save(target / "index")
    library = with_built_answers(settings, library)
    assert library.built is not None
    if library.built.code_version != code_version():
        raise OSError("the templates or static files changed while the data was prepared")
    library.built.save(target / "built")
    files = {str(p.relative_to(target)): p.stat().st_size
             for p in sorted(target.rglob("*")) if p.is_file()}
    (target / _READY).write_text(json.dumps({"version": library.version, "files": files}),
                                 encoding="utf-8")
    return library


def _version_of(folder: Path) -> str:
    try:
        return str(json.loads((folder / _READY).read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return ""


class _Supervisor(Multiprocess):
    """uvicorn's supervisor, with prepared data, reloads that always end on one data version,
    and the workers' readiness written for `/readyz`."""

    def __init__(self, config: uvicorn.Config, sockets: list[object],
                 snapshots: _Snapshots) -> None:
        super().__init__(config, sockets)  # type: ignore[arg-type]
        self.snapshots = snapshots
        #: Per worker slot: deaths before being ready, in a row; when to start the next one.
        self._failures: dict[int, int] = {}
        self._not_before: dict[int, float] = {}
        #: Workers that were ready at least once (their death is not a start-up failure).
        self._served: set[int] = set()

    def _new_worker(self) -> Worker:
        """A worker process, started (`app.web.worker`: it loads at a lower priority)."""
        process = Worker(self.config, self.sockets)
        process.start()
        return process

    def init_processes(self) -> None:
        self.processes.extend(self._new_worker() for _ in range(self.processes_num))
        self.snapshots.report(0, self.processes_num)

    def handle_ttin(self) -> None:
        # One more worker (uvicorn's SIGTTIN), started as ours are.
        logging.getLogger("uvicorn.error").info(
            "Received SIGTTIN, increasing the number of processes.")
        self.processes_num += 1
        self.processes.append(self._new_worker())

    def keep_subprocess_alive(self) -> None:
        # uvicorn's, with each worker's readiness read from the same ping, a dead worker
        # replaced only from intact prepared data, and a worker that keeps failing at start-up
        # started again only after a pause that doubles each time (not twice a second).
        if self.should_exit.is_set():
            return
        ready = 0
        now = time.monotonic()
        for idx, process in enumerate(self.processes):
            # A dead worker first (its ping would wait the whole timeout for an answer).
            started = (process._healthcheck(self.config.timeout_worker_healthcheck)
                       if process.process.is_alive() else None)
            if started is not None and process.process.is_alive():
                ready += bool(started)
                if started and process.pid is not None:
                    self._served.add(process.pid)
                continue
            if idx in self._not_before:
                if now < self._not_before[idx]:
                    continue  # backing off; the dead one was already reaped
                del self._not_before[idx]
            else:
                process.kill()
                process.join()
                if self.should_exit.is_set():
                    return
                if self._back_off(idx, process, now):
                    continue
                log.warning("worker %s died; starting another on data version %s",
                            process.pid, self.snapshots.version)
            if not self.snapshots.intact() and not self._restore():
                continue  # nothing to start it from; tried again on the next round
            self.processes[idx] = self._new_worker()
        self.snapshots.report(ready, self.processes_num)

    def _back_off(self, idx: int, process: Process, now: float) -> bool:
        """Whether to wait before replacing `process`: from its slot's second death in a row
        before ever being ready (1 s, then 2 s, … up to `RESPAWN_MAX_SECONDS`), said in one
        line each time."""
        if process.pid in self._served:
            self._served.discard(process.pid)
            self._failures.pop(idx, None)
            return False
        failures = self._failures[idx] = self._failures.get(idx, 0) + 1
        if failures < 2:
            return False
        pause = min(RESPAWN_MAX_SECONDS, 2.0 ** (failures - 2))
        log.error("worker %s failed at start-up (exit status %s), %d times in a row; the next "
                  "one starts in %.0f s", process.pid, process.exitcode, failures, pause)
        self._not_before[idx] = now + pause
        return True

    def _restore(self) -> bool:
        log.error("the prepared data in %s is damaged or gone; preparing it again",
                  self.snapshots.current)
        same = self.snapshots.restore()
        if same is None:
            return False
        if not same:
            # The data on disk is another version now: every worker moves to it.
            self._replace_all()
        return True

    def handle_hup(self) -> None:
        logging.getLogger("uvicorn.error").info("Received SIGHUP, reloading the data.")
        if not self.snapshots.advance():
            return
        self._replace_all()

    def _replace_all(self) -> None:
        """Replace every worker by one serving the current snapshot; if one cannot start,
        put the replaced ones back on the previous snapshot: one data version either way."""
        replaced = self._restart(range(len(self.processes)))
        if replaced == len(self.processes):
            self.snapshots.retire_previous()
            self.snapshots.report(len(self.processes), self.processes_num)
            log.info("reloaded: every worker serves data version %s", self.snapshots.version)
            return
        log.error("reload failed: a new worker was not ready within %s s (%d tries); every "
                  "worker goes back to the previous data", self.config.timeout_worker_healthcheck,
                  START_TRIES)
        self.snapshots.roll_back()
        self._restart(range(replaced))

    def _restart(self, indexes: range) -> int:
        """Replace the workers at `indexes` in turn; how many were replaced before one failed.

        A replaced worker is told to stop and drains its connections (`app.web.protocol`: up
        to `DRAIN_IDLE` seconds) while the next one starts; they are waited for at the end."""
        done = 0
        stopping: list[Process] = []
        try:
            for idx in indexes:
                if self.should_exit.is_set():
                    return done
                new = self._started()
                if new is None:
                    return done
                old = self.processes[idx]
                old.terminate()
                stopping.append(old)
                self.processes[idx] = new
                done += 1
            return done
        finally:
            for old in stopping:
                old.join()

    def _started(self) -> Worker | None:
        """A new worker that became ready, within `START_TRIES` tries."""
        for attempt in range(1, START_TRIES + 1):
            began = time.monotonic()
            process = self._new_worker()
            if process.wait_until_ready(self.config.timeout_worker_healthcheck,
                                        self.should_exit):
                if process.pid is not None:
                    self._served.add(process.pid)
                log.info("new worker %s ready in %.1f s", process.pid,
                         time.monotonic() - began)
                return process
            process.kill()
            process.join()
            if self.should_exit.is_set():
                return None
            log.warning("new worker %s was not ready within %s s (try %d of %d)", process.pid,
                        self.config.timeout_worker_healthcheck, attempt, START_TRIES)
        return None
