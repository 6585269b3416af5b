"""The HTTPS examples for the live app (deploy/caddy/Caddyfile.app, deploy/nginx/rules-https.conf)
in front of the real app, as docs/self-hosting.md tells an admin to set them up.

Only what a test machine cannot have is moved: the public name becomes `localhost` on free
loopback ports, Let's Encrypt's certificate a test CA's (trustme; Caddy issues its own for
localhost from its internal CA). nginx and Caddy are Debian's (`apt-get install nginx caddy`);
without one its test is skipped, except where `RULES_PROXY_TESTS=required` (`.ci/run`).
"""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from bench.server import free_port, running_server
from tests.conftest import DATA, missing_tool

ROOT = Path(__file__).resolve().parents[1]
CADDYFILE = ROOT / "deploy" / "caddy" / "Caddyfile.app"
NGINX_CONF = ROOT / "deploy" / "nginx" / "rules-https.conf"
ENTRY = "/rules/Attack_of_Opportunity"


def _moved(path: Path, replacements: list[tuple[str, str]]) -> str:
    text = path.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, f"{path.name} no longer has {old!r}: update this test"
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def app(index_dir: Path) -> Iterator[str]:
    """The app on loopback, told it is published over https and that loopback is its proxy."""
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_TRUSTED_PROXIES": "127.0.0.1"}
    with running_server(env) as (base, _):
        yield base.removeprefix("http://")


def _wait(port: int, process: subprocess.Popen[bytes], context: ssl.SSLContext) -> None:
    for _ in range(150):
        assert process.poll() is None, "the proxy exited at start"
        try:
            urllib.request.urlopen(f"https://localhost:{port}/healthz", timeout=2,
                                   context=context).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("the proxy did not answer over https within 15 s")


def _get(port: int, path: str, context: ssl.SSLContext,
         **headers: str) -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(f"https://localhost:{port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as reply:
            return reply.status, dict(reply.headers), reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def _check_the_app_behind(port: int, context: ssl.SSLContext, public: str) -> None:
    """The app behind the proxy on `port`, whose public address (the canonical links' base)
    is `public`."""
    status, headers, page = _get(port, ENTRY, context, **{"X-Forwarded-Host": "evil.example",
                                                          "X-Forwarded-Proto": "http"})
    assert status == 200
    # The app knows it is served over https under the name the browser used: its canonical
    # and preview links say so, whatever the client wrote in forwarded headers.
    assert f'<link rel="canonical" href="{public}{ENTRY}">' in page
    assert "evil.example" not in page
    assert "content-security-policy" in {k.lower() for k in headers}
    # Another name inside the same TLS connection never gets the app's page: nginx passes it
    # on and the app refuses it (400), Caddy serves no site for it (an empty answer).
    status, _, body = _get(port, "/", context, Host="evil.example")
    assert status == 400 or (status == 200 and body == ""), (status, body[:200])
    assert "evil.example" not in body
    moved = _get(port, "/rules/attack-of-opportunity", context)
    assert moved[0] == 200 and f"{public}{ENTRY}" in moved[2]


def test_caddy_serves_the_app_over_https(app: str) -> None:
    caddy = shutil.which("caddy")
    if caddy is None:
        missing_tool("caddy not installed (apt-get install caddy): its config is not tested",
                     "RULES_PROXY_TESTS")
    https, http = free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="caddy-app-") as scratch:
        conf = _moved(CADDYFILE, [("\nrules.example.org {", f"\nlocalhost:{https} {{"),
                                  ("reverse_proxy 127.0.0.1:8000", f"reverse_proxy {app}"),
                                  ("{\n\tservers {", "{\n\tadmin off\n\tskip_install_trust\n"
                                   f"\thttp_port {http}\n\thttps_port {https}\n\tservers {{")])
        config = Path(scratch) / "Caddyfile"
        config.write_text(conf, encoding="utf-8")
        env = {**os.environ, "XDG_DATA_HOME": scratch, "XDG_CONFIG_HOME": scratch,
               "HOME": scratch}
        with subprocess.Popen([caddy, "run", "--config", str(config), "--adapter", "caddyfile"],
                              env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) as process:
            try:
                root = Path(scratch) / "caddy" / "pki" / "authorities" / "local" / "root.crt"
                for _ in range(100):
                    if root.is_file():
                        break
                    time.sleep(0.1)
                context = ssl.create_default_context(cafile=str(root))
                _wait(https, process, context)
                _check_the_app_behind(https, context, f"https://localhost:{https}")
            finally:
                process.terminate()
                process.wait(timeout=15)


def test_nginx_serves_the_app_over_https(app: str) -> None:
    nginx = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None)
    if nginx is None:
        missing_tool("nginx not installed (apt-get install nginx): its config is not tested",
                     "RULES_PROXY_TESTS")
    https, http = free_port(), free_port()
    authority = trustme.CA()
    scratch = Path(tempfile.mkdtemp(prefix="nginx-app-"))
    scratch.chmod(0o755)
    try:
        cert = authority.issue_cert("localhost")
        cert.private_key_and_cert_chain_pem.write_to_path(str(scratch / "site.pem"))
        site = _moved(NGINX_CONF, [
            ("listen 80;", f"listen 127.0.0.1:{http};"),
            ("listen 443 ssl http2;", f"listen 127.0.0.1:{https} ssl http2;"),
            ("server_name rules.example.org;", "server_name localhost;"),
            ("/etc/letsencrypt/live/rules.example.org/fullchain.pem", f"{scratch}/site.pem"),
            ("/etc/letsencrypt/live/rules.example.org/privkey.pem", f"{scratch}/site.pem"),
            ("proxy_pass http://127.0.0.1:8000;", f"proxy_pass http://{app};"),
        ])
        (scratch / "site.conf").write_text(site, encoding="utf-8")
        (scratch / "nginx.conf").write_text(
            f"worker_processes 1;\npid {scratch}/nginx.pid;\nerror_log {scratch}/error.log;\n"
            "events { worker_connections 64; }\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {scratch}/body;\n"
            f"  proxy_temp_path {scratch}/proxy;\n  fastcgi_temp_path {scratch}/fcgi;\n"
            f"  uwsgi_temp_path {scratch}/uwsgi;\n  scgi_temp_path {scratch}/scgi;\n"
            f"  include {scratch}/site.conf;\n}}\n", encoding="utf-8")
        command = [nginx, "-p", f"{scratch}/", "-e", f"{scratch}/error.log",
                   "-c", f"{scratch}/nginx.conf"]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30,
                                 check=False)
        assert checked.returncode == 0, checked.stderr
        context = ssl.create_default_context()
        authority.configure_trust(context)
        with subprocess.Popen([*command, "-g", "daemon off;"]) as process:
            try:
                _wait(https, process, context)
                # nginx's $host has no port: on 443, the public address is the name alone.
                _check_the_app_behind(https, context, "https://localhost")
                # Plain http moves to https, on the name asked for.
                plain = urllib.request.Request(f"http://127.0.0.1:{http}{ENTRY}",
                                               headers={"Host": "localhost"})
                opener = urllib.request.build_opener(_NoRedirect)
                try:
                    opener.open(plain, timeout=10)
                    pytest.fail("plain http was answered")
                except urllib.error.HTTPError as error:
                    assert error.code == 301
                    assert error.headers["location"] == f"https://localhost{ENTRY}"
            finally:
                process.terminate()
                process.wait(timeout=15)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None
