"""The running server's pid file, so that `python -m app data update` can tell it to reload.

`python -m app serve` writes its process id to `RULES_PID_FILE` and holds an exclusive lock
on the file while it runs. A reader believes the pid only while that lock is held: a file left
behind by a server that died (whose pid another process may have since) is never signalled.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["holding_pid_file", "running_server"]

log = logging.getLogger("app")


@contextlib.contextmanager
def holding_pid_file(path: Path | None) -> Iterator[None]:
    """Write this process's id to `path` and hold its lock until the block ends; a file that
    cannot be written, or another live server's, is logged and left alone (serving matters
    more than the pid file)."""
    if path is None:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except (OSError, ValueError) as exc:
        log.warning("cannot write the pid file %s (%s): `python -m app data update` will "
                    "not find this server to reload it", path,
                    getattr(exc, "strerror", None) or exc)
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        log.warning("the pid file %s belongs to another running server: not written", path)
        yield
        return
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)


def running_server(path: Path) -> int | None:
    """The pid of the server holding `path`'s lock, or None when no server holds it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = os.read(fd, 32).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() and int(text) > 0 else None
        return None  # nobody holds it: a file a server left behind when it died
    finally:
        os.close(fd)
