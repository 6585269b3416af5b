"""Serve a static export on a free loopback port: with nginx or Caddy and the shipped configs
(deploy/nginx/static-site.conf, deploy/caddy/Caddyfile), or with `python -m http.server`.

Used by the export's tests and by `bench.static_load`. The site's root folder (`www`) holds
the export in its `rules/` folder: the shipped config is written for `--base-url …/rules/`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from bench.server import free_port

ROOT = Path(__file__).resolve().parents[1]
NGINX_CONF = ROOT / "deploy" / "nginx" / "static-site.conf"
CADDYFILE = ROOT / "deploy" / "caddy" / "Caddyfile"
#: The path the shipped config serves the export under.
SUB_PATH = "/rules/"

#: A minimal nginx.conf around the shipped `server {}` block, every path in a scratch folder.
_WRAPPER = """\
worker_processes {workers};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include {mime_types};
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    keepalive_requests 100000;
    client_body_temp_path {dir}/client_temp;
    proxy_temp_path {dir}/proxy_temp;
    fastcgi_temp_path {dir}/fastcgi_temp;
    uwsgi_temp_path {dir}/uwsgi_temp;
    scgi_temp_path {dir}/scgi_temp;
    include {dir}/site.conf;
}}
"""


def nginx_binary() -> str | None:
    """Debian's nginx, or None when it is not installed."""
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None)


def site_conf(www: Path, port: int) -> str:
    """The shipped config with only its `root` and `listen` moved to `www` and `port`."""
    return _moved(NGINX_CONF, (("root /srv/www;", f"root {www};"),
                               ("listen 8080;", f"listen 127.0.0.1:{port};")))


def _moved(path: Path, replacements: tuple[tuple[str, str], ...]) -> str:
    """The shipped config at `path` with each `old` replaced by `new`; a config that no longer
    has one of them is an error here, not a silently unchanged server."""
    conf = path.read_text(encoding="utf-8")
    for old, new in replacements:
        if old not in conf:
            raise RuntimeError(f"{path} no longer has {old!r}: update {__name__}")
        conf = conf.replace(old, new)
    return conf


def wait_for(url: str, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Until `url` answers at all (any status); raises if `process` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()  # nginx's master stops its workers on SIGTERM
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


@contextlib.contextmanager
def _serving(command: list[str], port: int, *, quiet: bool = True,
             env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """Start `command` (a server listening on `port`), wait until it serves the sub-path, yield
    its base URL and pid, and stop it whatever happens."""
    output = subprocess.DEVNULL if quiet else None
    process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=output,
                               stderr=output)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(base + SUB_PATH, process)
        yield base, process.pid
    finally:
        _stop(process)


@contextlib.contextmanager
def nginx_serving(www: Path, *, workers: int = 1) -> Iterator[tuple[str, int]]:
    """nginx (in the foreground, its own scratch folder) serving `www` with the shipped config;
    yields its base URL and the master's pid. Raises RuntimeError when nginx is missing."""
    nginx = nginx_binary()
    if nginx is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    mime = next((p for p in ("/etc/nginx/mime.types",) if Path(p).is_file()), None)
    if mime is None:
        raise RuntimeError("/etc/nginx/mime.types is missing")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="nginx-static-") as scratch:
        folder = Path(scratch)
        (folder / "site.conf").write_text(site_conf(www, port), encoding="utf-8")
        (folder / "nginx.conf").write_text(
            _WRAPPER.format(workers=workers, dir=folder, mime_types=mime), encoding="utf-8")
        command = [nginx, "-p", f"{folder}/", "-e", f"{folder}/error.log",
                   "-c", f"{folder}/nginx.conf"]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30,
                                 check=False)
        if checked.returncode != 0:
            raise RuntimeError(f"nginx -t failed: {checked.stderr.strip()}")
        with _serving([*command, "-g", "daemon off;"], port, quiet=False) as served:
            yield served


@contextlib.contextmanager
def http_server_serving(www: Path) -> Iterator[str]:
    """`python -m http.server` serving `www` on a free loopback port; yields its base URL."""
    port = free_port()
    with _serving([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                   "--directory", str(www)], port) as (base, _):
        yield base


def caddyfile(www: Path, port: int) -> str:
    """The shipped Caddyfile with its site address and `root` moved to `port` and `www`, and
    no admin endpoint (another Caddy on this machine may hold its port)."""
    conf = _moved(CADDYFILE, (("root * /srv/www", f"root * {www}"),
                              ("\nrules.example.org {", f"\nhttp://127.0.0.1:{port} {{")))
    return "{\n\tadmin off\n}\n" + conf


@contextlib.contextmanager
def caddy_serving(www: Path) -> Iterator[str]:
    """Caddy serving `www` with the shipped Caddyfile; yields its base URL. Raises
    RuntimeError when `caddy` is not installed."""
    caddy = shutil.which("caddy")
    if caddy is None:
        raise RuntimeError("caddy is not installed (apt-get install caddy)")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="caddy-static-") as scratch:
        folder = Path(scratch)
        config = folder / "Caddyfile"
        config.write_text(caddyfile(www, port), encoding="utf-8")
        # Its certificate and autosave folders go to the scratch folder, not the user's home.
        env = {**os.environ, "XDG_DATA_HOME": scratch, "XDG_CONFIG_HOME": scratch}
        with _serving([caddy, "run", "--config", str(config), "--adapter", "caddyfile"], port,
                      env=env) as (base, _):
            yield base
