"""The reverse proxy of compose.yaml's `proxy` profile, seen from a visitor and an attacker.

Debian's nginx runs the shipped template (deploy/nginx/rules.conf.template), rendered the way the
official image renders it (envsubst of the defined environment variables), in front of the real
app. Only the container's paths and port are moved into a scratch folder. Without `nginx` the
module is skipped (`apt-get install nginx`), except when `RULES_PROXY_TESTS=required`, as
`.ci/run` sets: then it fails.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.server import free_port, running_server
from tests.conftest import DATA, missing_tool
from tests.raw import Reply, fetch

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "nginx" / "rules.conf.template"
COMPOSE = ROOT / "compose.yaml"
HOST = {"Host": "rules.test"}
ENTRY = "/rules/Attack_of_Opportunity"
#: The official image's nginx.conf `http {}` block, paths moved to the scratch folder: the
#: template must fit inside it (no directive it already sets at that level).
WRAPPER = """\
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{ worker_connections 256; }}
http {{
    default_type application/octet-stream;
    access_log {dir}/access.log;
    sendfile on;
    keepalive_timeout 65;
    client_body_temp_path {dir}/client_temp;
    proxy_temp_path {dir}/proxy_temp;
    fastcgi_temp_path {dir}/fastcgi_temp;
    uwsgi_temp_path {dir}/uwsgi_temp;
    scgi_temp_path {dir}/scgi_temp;
    include {dir}/conf.d/rules.conf;
}}
"""


def _nginx() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None)
    if found is None:
        missing_tool("nginx not installed (apt-get install nginx): the proxy is not tested",
                     "RULES_PROXY_TESTS")
    return found


def render(template: str, env: dict[str, str]) -> str:
    """What the image's 20-envsubst-on-templates.sh writes: `${NAME}` and `$NAME` replaced for
    every variable defined in the container's environment, anything else left alone."""
    envsubst = shutil.which("envsubst")
    if envsubst is not None:
        names = " ".join(f"${{{name}}}" for name in env)
        return subprocess.run([envsubst, names], input=template, env=env, capture_output=True,
                              text=True, check=True, timeout=10).stdout
    pattern = r"\$(\{)?([A-Za-z_][A-Za-z0-9_]*)(?(1)\})"
    return re.sub(pattern, lambda m: env.get(m.group(2), m.group(0)), template)


def _sandboxed(conf: str, scratch: Path, port: int) -> str:
    """The rendered config with the container's cache folder and port moved into the test's."""
    for old, new in (("/var/cache/nginx/", f"{scratch}/cache/"),
                     ("listen 8080", f"listen 127.0.0.1:{port}")):
        assert old in conf, f"the template no longer has {old!r}: update this test"
        conf = conf.replace(old, new)
    return conf


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """nginx with the shipped template in front of the real app; yields the proxy's base URL."""
    nginx = _nginx()
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(tmp_path_factory.mktemp("index")),
           "RULES_TRUSTED_PROXIES": "127.0.0.1",
           "RULES_ALLOWED_HOSTS": "rules.test,localhost,127.0.0.1"}
    # Not under pytest's 0700 base folder: run as root, nginx's workers are `nobody`.
    scratch = Path(tempfile.mkdtemp(prefix="proxy-"))
    scratch.chmod(0o755)
    try:
        with running_server(env) as (app, _):
            port = free_port()
            container_env = {"RULES_UPSTREAM": app.removeprefix("http://"),
                             "RULES_SERVER_NAME": "rules.test localhost",
                             "NGINX_LOCAL_RESOLVERS": "127.0.0.1"}
            for folder in ("conf.d", "cache"):  # the container's tmpfs mounts
                (scratch / folder).mkdir()
            rendered = render(TEMPLATE.read_text(encoding="utf-8"), container_env)
            (scratch / "conf.d" / "rules.conf").write_text(_sandboxed(rendered, scratch, port))
            (scratch / "nginx.conf").write_text(WRAPPER.format(dir=scratch))
            command = [nginx, "-p", f"{scratch}/", "-e", f"{scratch}/error.log",
                       "-c", f"{scratch}/nginx.conf"]
            checked = subprocess.run([*command, "-t"], capture_output=True, text=True,
                                     timeout=30, check=False)
            assert checked.returncode == 0, checked.stderr
            with subprocess.Popen([*command, "-g", "daemon off;"]) as process:
                try:
                    _wait_for_port(port, process)
                    yield f"http://127.0.0.1:{port}"
                finally:
                    process.terminate()
                    process.wait(timeout=15)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(100):
        assert process.poll() is None, "nginx exited at start"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("nginx did not listen within 10 s")


def _get(proxy: str, target: str, **headers: str) -> Reply:
    return fetch(proxy, target, headers={**HOST, **headers})


def test_template_variables_are_set_in_compose() -> None:
    compose = COMPOSE.read_text(encoding="utf-8")
    service = compose.split("\n  proxy:\n", 1)[1]
    assert "profiles: [proxy]" in service
    for name in set(re.findall(r"\$\{(\w+)\}", TEMPLATE.read_text(encoding="utf-8"))):
        # NGINX_LOCAL_RESOLVERS comes from the image's 15-local-resolvers.envsh.
        setting = "NGINX_ENTRYPOINT_LOCAL_RESOLVERS" if name == "NGINX_LOCAL_RESOLVERS" else name
        assert re.search(rf"^      {setting}: \S", service, re.M), name


def test_pages_are_cached_for_the_public_host_but_never_for_an_owned_cookie(proxy: str) -> None:
    first, second = _get(proxy, ENTRY), _get(proxy, ENTRY)
    assert first.status == second.status == 200
    assert f'<link rel="canonical" href="http://rules.test{ENTRY}">' in first.text
    assert (first.headers["x-cache-status"], second.headers["x-cache-status"]) == ("MISS", "HIT")
    assert second.body == first.body

    source = "/sources/ahlcg-reference"
    assert "항목 숨김" not in _get(proxy, source).text
    for _ in range(3):
        owned = _get(proxy, source, Cookie="owned=none")
        assert owned.status == 200
        assert owned.headers["x-cache-status"] == "BYPASS"
        assert "항목 숨김" in owned.text
    public = _get(proxy, source)
    assert public.headers["x-cache-status"] == "HIT"
    assert "항목 숨김" not in public.text


def test_forwarded_headers_from_the_client_are_replaced(proxy: str) -> None:
    for _ in range(2):  # the answer the app made, then the stored one
        page = _get(proxy, "/timing", **{"X-Forwarded-Host": "evil.example",
                                         "X-Forwarded-Proto": "https"})
        assert page.status == 200
        assert '<link rel="canonical" href="http://rules.test/timing">' in page.text
        assert "evil.example" not in page.text


def test_other_hosts_are_refused_and_never_cached(proxy: str) -> None:
    for target, headers in (("/", {"Host": "evil.example"}),
                            ("http://evil.example/", HOST),  # absolute form beats Host
                            ("/", {"Host": "rules.test.evil.example"})):
        refused = fetch(proxy, target, headers=headers)
        assert refused.status == 400
        assert "x-cache-status" not in refused.headers
    home = _get(proxy, "/")
    assert home.status == 200
    assert '<link rel="canonical" href="http://rules.test/">' in home.text
    assert "evil.example" not in home.text
    # Health probes may use any address.
    assert fetch(proxy, "/healthz", headers={"Host": "10.1.2.3"}).body == b'{"status":"ok"}'


def test_oversized_heads_and_bodies_are_refused_by_nginx(proxy: str) -> None:
    one_field = _get(proxy, "/", **{"X-Big": "a" * 20_480})
    many_fields = fetch(proxy, "/", headers={**HOST, **{f"X-F{i}": "b" * 500 for i in range(40)}})
    for refused in (one_field, many_fields):
        assert refused.status == 400
        assert "Request Header Or Cookie Too Large" in refused.text  # nginx's page, not the app's
    target = _get(proxy, "/search?q=" + "c" * 17_000)
    assert (target.status, "Request-URI Too Large" in target.text) == (414, True)
    body = fetch(proxy, "/settings", method="POST", body=b"form=owned-form&" + b"x" * 10_240,
                 headers={**HOST, "Origin": "http://rules.test",
                          "Content-Type": "application/x-www-form-urlencoded"})
    assert (body.status, "Request Entity Too Large" in body.text) == (413, True)


def test_a_header_trickle_is_cut_off_within_the_header_timeout(proxy: str) -> None:
    port = int(proxy.rsplit(":", 1)[1])
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: rules.test\r\n")
        for line in range(30):  # one header line a second: 30 s at most
            try:
                sock.sendall(f"X-Slow-{line}: x\r\n".encode())
                if select.select([sock], [], [], 1.0)[0]:
                    data = sock.recv(4096)
                    assert data == b"", data[:200]
                    break
            except (ConnectionResetError, BrokenPipeError):
                break
        else:
            pytest.fail("a trickling client kept its connection for 30 s")
    assert 8.0 <= time.monotonic() - start <= 12.5


def test_searching_in_a_loop_gets_429_while_pages_still_answer(proxy: str) -> None:
    answered = 0
    for _ in range(200):
        reply = _get(proxy, "/api/suggest?q=%ED%8B%88%EC%83%88")
        if reply.status == 429:
            break
        assert reply.status == 200
        answered += 1
    else:
        pytest.fail("200 searches in a row were all answered")
    assert answered >= 40  # the burst a player (or a club behind one address) may use
    assert _get(proxy, "/search?q=x").status == 429
    assert _get(proxy, "/go/x").status == 429
    assert _get(proxy, ENTRY).status == 200
    assert _get(proxy, "/api/titles").status == 200


def test_saving_settings_goes_through_and_sets_the_cookie(proxy: str) -> None:
    saved = fetch(proxy, "/settings", method="POST", body=b"form=owned-form&owned=tfa",
                  headers={**HOST, "Origin": "http://rules.test",
                           "Content-Type": "application/x-www-form-urlencoded"})
    assert saved.status == 303
    assert saved.headers["location"] == "/settings?saved=1"
    assert saved.headers["set-cookie"].startswith("owned=-")  # all but tfa are unowned
    assert "tfa" not in saved.headers["set-cookie"].split(";", 1)[0][len("owned=-"):].split(".")
    assert "x-cache-status" not in saved.headers
