"""Start the app (or another ASGI app) on a free loopback port for tests and benches, and
measure a running server's processes (resident memory, CPU seconds, children).

`running_server` is "run a real server, wait until it answers, stop it" for the tests'
`live_server`, the search bench's HTTP rows and the Lighthouse audit. The load benches start
theirs with `bench.drive.start_server` instead: in a process group of its own, stopped as a
whole, with the seconds until it was ready measured.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve_command(port: int) -> list[str]:
    """The production command, `python -m app serve` (host and port come from the env)."""
    return [sys.executable, "-m", "app", "serve"]


@contextlib.contextmanager
def running_server(
    env: dict[str, str], *, command: Callable[[int], list[str]] = serve_command,
    ready_path: str = "/readyz", timeout: float = 60.0, log_path: Path | None = None,
    cwd: Path = ROOT,
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run `command(port)` in `cwd` (the code it runs: `python -m app` imports from there) on
    a free loopback port; yield its base URL and process once `ready_path` answers 200, and
    stop it afterwards. Its output goes to `log_path` if given."""
    port = free_port()
    full_env = {**os.environ, "RULES_HOST": "127.0.0.1", "RULES_PORT": str(port), **env}
    base = f"http://127.0.0.1:{port}"
    # Output goes to a file: a pipe nobody reads fills up with access logs and then blocks
    # the server mid-run.
    with tempfile.TemporaryDirectory(prefix="server-") as scratch, (
        log_path or Path(scratch) / "server.log"
    ).open("w+", encoding="utf-8") as log:
        process = subprocess.Popen(command(port), cwd=cwd, env=full_env, stdout=log,
                                   stderr=subprocess.STDOUT, text=True)
        try:
            _wait_until_ready(base + ready_path, process, log, timeout)
            yield base, process
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_ready(
    url: str, process: subprocess.Popen[str], log: IO[str], timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited with {process.returncode}: {log.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"server did not answer {url} within {timeout:.0f} s")
        time.sleep(0.2)


def rss_kib(pid: int) -> int:
    """Resident memory of process `pid` in KiB (VmRSS from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def rss_mib(pid: int) -> float | None:
    """`rss_kib` in MiB, or None once the process is gone."""
    try:
        return rss_kib(pid) / 1024
    except (OSError, RuntimeError):
        return None


def cpu_seconds(pids: Sequence[int]) -> float:
    """CPU seconds (user and system) the processes `pids` have used so far; a process that
    ended counts 0."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def child_pids(pid: int) -> list[int]:
    """The direct children of `pid` (nginx's workers)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def worker_pids(server_pid: int) -> list[int]:
    """uvicorn's worker processes of `server_pid` (its multiprocessing children, without the
    resource tracker); with one worker, uvicorn serves in `server_pid` itself and this is []."""
    found: set[int] = set()
    for task in Path(f"/proc/{server_pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:  # a thread that just ended
            continue
        for pid in map(int, children):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:  # a child that just ended
                continue
            if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
                found.add(pid)
    return sorted(found)


def serving_pids(server_pid: int) -> list[int]:
    """The processes that answer requests: the workers, or the server itself with one worker."""
    return worker_pids(server_pid) or [server_pid]


@contextlib.contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """The code at `revision`, checked out in a temporary git worktree (removed afterwards):
    for a bench that measures the code an issue was filed against beside this one."""
    folder = Path(tempfile.mkdtemp(prefix="bench-before-")) / "tree"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(folder), revision],
                   cwd=ROOT, check=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT,
                       check=False)
        shutil.rmtree(folder.parent, ignore_errors=True)
