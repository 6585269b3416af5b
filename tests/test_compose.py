"""compose.yaml as compose reads it: `config` renders it (variables from the shell or `.env`
put in place) without an engine, then the app runs with the environment it gives.

podman-compose implements the compose file's variable syntax (`${VAR:-default}`,
`${VAR:+alternative}`) as Docker Compose does; only `config --dry-run` is used, which needs
neither podman nor Docker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.server import running_server
from tests.conftest import DATA
from tests.raw import fetch

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "compose.yaml"


def rendered(tmp_path: Path, env_file: str = "", **env: str) -> dict[str, Any]:
    """`podman-compose config` of a copy of compose.yaml in `tmp_path`, with `env_file` as its
    `.env` and `env` in the shell; the YAML it prints."""
    command = Path(sys.executable).parent / "podman-compose"
    if not command.is_file():
        found = shutil.which("podman-compose")
        if found is None:
            pytest.fail("podman-compose not found: pip install podman-compose (in the test extra)")
        command = Path(found)
    shutil.copy(COMPOSE, tmp_path / "compose.yaml")
    (tmp_path / "deploy").mkdir(exist_ok=True)
    if env_file:
        (tmp_path / ".env").write_text(env_file, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RULES_")}
    result = subprocess.run([str(command), "--dry-run", "config"], cwd=tmp_path,
                            env={**clean, **env}, capture_output=True, text=True, timeout=60,
                            check=False)
    assert result.returncode == 0, result.stderr
    config: dict[str, Any] = yaml.safe_load(result.stdout)
    return config


def test_by_default_the_app_is_published_on_loopback_only(tmp_path: Path) -> None:
    rules = rendered(tmp_path)["services"]["rules"]
    assert rules["ports"] == ["127.0.0.1:8000:8000"]
    assert rules["environment"]["RULES_ALLOWED_HOSTS"] == ""  # the app's default: loopback
    assert rules["read_only"] is True and rules["cap_drop"] == ["ALL"]


@pytest.mark.parametrize("how", ["env file", "shell"])
def test_rules_lan_publishes_the_port_and_allows_the_boxs_names(tmp_path: Path,
                                                                how: str) -> None:
    config = (rendered(tmp_path, "RULES_LAN=0.0.0.0\n") if how == "env file"
              else rendered(tmp_path, RULES_LAN="0.0.0.0"))
    rules = config["services"]["rules"]
    assert rules["ports"] == ["0.0.0.0:8000:8000"]
    assert rules["environment"]["RULES_ALLOWED_HOSTS"] == "lan"
    one = rendered(tmp_path, RULES_LAN="192.168.0.10")["services"]["rules"]
    assert one["ports"] == ["192.168.0.10:8000:8000"]


def test_the_app_with_compose_lan_environment_answers_a_phone(tmp_path: Path,
                                                              index_dir: Path) -> None:
    environment = rendered(tmp_path, RULES_LAN="0.0.0.0")["services"]["rules"]["environment"]
    env = {**{k: str(v) for k, v in environment.items()},
           "RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir)}
    with running_server(env) as (base, _):
        # A phone on the club's wifi asks by the box's address or its mDNS name (the request
        # itself goes to loopback here: only the Host header differs).
        for host in ("192.168.0.10:8000", "clubbox.local:8000", "localhost:8000"):
            page = fetch(base, "/rules/Surge", headers={"host": host})
            assert page.status == 200, host
            assert f'<link rel="canonical" href="http://{host}/rules/Surge">' in page.text
        assert fetch(base, "/", headers={"host": "evil.example"}).status == 400
