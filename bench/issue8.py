"""Re-measure issue #8's findings the way the issue measured them, before and after.

    .venv/bin/python -m bench.issue8 [--before a441fcb]

Checks out `--before` (the code the issue was filed against) in a temporary git worktree,
then runs the same requests against `python -m app serve` with default settings from that
tree and from this one, and prints one row per finding: what the old code did, what this code
does. 127.0.0.1 only; every loop is bounded. About five minutes.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO
from urllib.parse import quote

from bench.hostile_queries import generate
from bench.server import free_port, rss_kib, worktree

ROOT = Path(__file__).resolve().parents[1]
Reply = tuple[int, dict[str, str], bytes]


class _Server:
    """`python -m app serve` from a code tree, with its own index folder and log."""

    def __init__(self, tree: Path, index: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        full = {**os.environ, "PYTHONPATH": str(tree), "RULES_PORT": str(self.port),
                "RULES_INDEX_DIR": str(index), "RULES_DATA_DIR": str(tree / "data"),
                **(env or {})}
        # Lives as long as the server: closed by stop().
        self.log: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self.process = subprocess.Popen([sys.executable, "-m", "app", "serve"], cwd=tree,
                                        env=full, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                self.get("/healthz")
                return
            except OSError:
                time.sleep(0.1)

    @property
    def rss_mib(self) -> float:
        return rss_kib(self.process.pid) / 1024

    def get(self, path: str, method: str = "GET", headers: dict[str, str] | None = None,
            body: bytes | None = None) -> Reply:
        """One request, sent as written (Host included)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in {"host": f"127.0.0.1:{self.port}", **(headers or {})}.items():
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("content-length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    response.read())
        finally:
            connection.close()

    def stop(self) -> str:
        """Stop it; its log."""
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.seek(0)
        text = self.log.read()
        self.log.close()
        return text


def _poisoning(server: _Server) -> dict[str, str]:
    found: dict[str, str] = {}
    for page in ("/rules/Attack_of_Opportunity", "/", "/timing", "/search?q=x"):
        status = server.get(page, headers={"host": "evil.example"})[0]
        later = b"evil.example" in server.get(page)[2]
        found[f"Host: evil.example on {page}, then a plain request"] = (
            f"{status}; later page links evil.example: {later}")
    server.get("/sources/ahlcg-reference", headers={"cookie": "owned =none"})
    hidden = re.search(r"\d+개 항목 숨김", server.get("/sources/ahlcg-reference")[2].decode())
    found["Cookie: owned =none, then a cookieless index"] = hidden[0] if hidden else "full index"
    return found


def _semantics(server: _Server) -> dict[str, str]:
    etag = server.get("/rules/Surge")[1].get("etag", "")
    form = {"origin": "https://evil.example",
            "content-type": "application/x-www-form-urlencoded"}
    status, headers, _ = server.get("/settings", "POST", form, b"")
    paged = json.loads(server.get("/api/search?q=%EC%B9%B4%EB%93%9C&limit=50&offset=100",
                                  headers={"cookie": "owned=tfa"})[2])
    refused = server.get("/api/sources", "POST", body=b"")
    return {
        "If-None-Match: <tag of /rules/Surge> on /rules/DoesNotExist": str(
            server.get("/rules/DoesNotExist", headers={"if-none-match": etag})[0]),
        "If-None-Match: * on /rules/DoesNotExist": str(
            server.get("/rules/DoesNotExist", headers={"if-none-match": "*"})[0]),
        "cross-origin empty POST /settings": f"{status}, cookie: "
                                             f"{headers.get('set-cookie', '-')[:22]}",
        "owned=tfa, /api/search?q=카드&limit=50&offset=100": (
            f"total {paged['total']}, {len(paged['results'])} results"),
        "POST /api/sources": f"{refused[0]}, Allow: {refused[1].get('allow', '-')}",
    }


def _heads(server: _Server) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, headers in (("one 32 MiB header", {"x-big": "x" * (32 << 20)}),
                          ("5,000 headers", {f"x-h{i}": "1" for i in range(5000)})):
        before = server.rss_mib
        try:
            outcome = str(server.get("/healthz", headers=headers)[0])
        except OSError as error:
            outcome = type(error).__name__
        found[name] = f"{outcome}, worker RSS {server.rss_mib - before:+.0f} MiB"
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sock.settimeout(5)
        started, closed = time.monotonic(), ""
        while not closed and time.monotonic() - started < 25:
            try:
                sock.sendall(b"X")
                if not sock.recv(4096):
                    closed = f"closed after {time.monotonic() - started:.0f} s"
            except TimeoutError:
                continue
            except OSError:
                closed = f"closed after {time.monotonic() - started:.0f} s"
        found["one header byte every 5 s"] = closed or "still open after 25 s"
    return found


def _while_sampling(server: _Server, work: Callable[[], None]) -> tuple[float, float]:
    """Run `work`, sampling the worker's RSS: (before, peak) in MiB."""
    before = peak = server.rss_mib
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, server.rss_mib)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        work()
    finally:
        done.set()
        sampler.join()
    return before, peak


def _bodies(server: _Server) -> dict[str, str]:
    def post() -> None:
        head = (b"POST /settings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                b"application/x-www-form-urlencoded\r\nContent-Length: 200000000\r\n\r\n")
        try:
            with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
                sock.sendall(head)
                for _ in range(200):
                    sock.sendall(b"a" * (1 << 20))
                sock.recv(100)
        except OSError:
            pass  # refused part way: what the fix should do

    def three() -> None:
        threads = [threading.Thread(target=post) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)

    before, peak = _while_sampling(server, three)
    return {"three parallel 200 MB POST /settings": f"worker {before:.0f} → peak {peak:.0f} MiB"}


def _flood(server: _Server, seconds: float = 20.0) -> dict[str, str]:
    queries: Iterator[str] = iter(generate(20_000, seed=7))
    lock = threading.Lock()
    answered, probes = [0], [0.0]
    probes.clear()
    end = time.monotonic() + seconds

    def attacker() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        while time.monotonic() < end:
            with lock:
                query = next(queries)
            connection.request("GET", "/api/search?q=" + quote(query))
            connection.getresponse().read()
            with lock:
                answered[0] += 1

    def probe() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        while time.monotonic() < end:
            started = time.perf_counter()
            connection.request("GET", "/healthz")
            connection.getresponse().read()
            probes.append((time.perf_counter() - started) * 1000)
            time.sleep(0.1)

    threads = [*(threading.Thread(target=attacker) for _ in range(20)),
               threading.Thread(target=probe)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 60)
    probes.sort()
    return {"20 clients, unique 200-character typo queries": (
        f"{answered[0] / seconds:.0f} answers/s; /healthz p50 {probes[len(probes) // 2]:.0f} ms,"
        f" max {probes[-1]:.0f} ms")}


def _padding(server: _Server) -> dict[str, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    pad = "x" * 16_000

    def send() -> None:
        for n in range(25_000):
            connection.request("GET", f"/api/suggest?q=&p={n}&pad={pad}")
            connection.getresponse().read()

    started = time.monotonic()
    before = server.rss_mib
    send()
    return {"25,000 /api/suggest?q=&p=N&pad=<16,000 x>": (
        f"worker {before:.0f} → {server.rss_mib:.0f} MiB in {time.monotonic() - started:.0f} s")}


def _sub_path(tree: Path, index: Path) -> dict[str, str]:
    server = _Server(tree, index, {"RULES_ROOT_PATH": "/rules-ko"})
    try:
        stripped = server.get("/api/entries/Nope")
        static = server.get("/rules-ko/static/style.css")[1].get("etag", "-")
        return {"RULES_ROOT_PATH, prefix stripped: /api/entries/Nope": (
                    f"{stripped[0]} {stripped[1].get('content-type', '').split(';')[0]}"),
                "RULES_ROOT_PATH, prefix kept: ETag of /rules-ko/static/style.css": static}
    finally:
        server.stop()


def _damaged_index(tree: Path, index: Path) -> dict[str, str]:
    terms = max(index.glob("*.trm"), key=lambda f: f.stat().st_size)
    terms.write_bytes(b"\x00" * 8 + terms.read_bytes()[8:])
    server = _Server(tree, index)
    log = server.stop()
    return {"search index damaged, stamp valid: start log": (
        f"{log.count(chr(10))} lines, traceback: {'Traceback' in log}, "
        f"served: {'startup complete' in log}")}


def measure(tree: Path) -> dict[str, str]:
    """Every finding, measured against the code in `tree`."""
    index = Path(tempfile.mkdtemp(prefix="issue8-")) / "index"
    server = _Server(tree, index)
    try:
        found = {**_poisoning(server), **_semantics(server), **_heads(server),
                 **_bodies(server), **_flood(server), **_padding(server)}
    finally:
        server.stop()
    return {**found, **_sub_path(tree, index), **_damaged_index(tree, index)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.issue8", description=__doc__)
    parser.add_argument("--before", default="a441fcb", help="the code the issue was filed on")
    args = parser.parse_args()
    with worktree(args.before) as old:
        before = measure(old)
    after = measure(ROOT)
    print(f"issue #8 findings, python -m app serve with default settings ({args.before} vs now)")
    print()
    print("| finding | before | after |")
    print("|---|---|---|")
    for name in itertools.chain(before, (k for k in after if k not in before)):
        print(f"| {name} | {before.get(name, '')} | {after.get(name, '')} |")


if __name__ == "__main__":
    main()
