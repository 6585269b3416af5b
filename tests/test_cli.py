"""`python -m app check` and starting the server on broken data, as a self-hoster sees them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import DATA, write_rules_data

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_check_on_the_bundled_data_lists_warnings_and_passes() -> None:
    result = _run("-m", "app", "check", "--data-dir", str(DATA))
    assert result.returncode == 0, result.stdout + result.stderr
    # Findings go to stderr, the summary to stdout.
    known = "#Per_investigator matches Per_Investigator only when case is ignored"
    assert known in result.stderr and known not in result.stdout
    assert "0 error(s)" in result.stdout


def test_check_fails_on_duplicate_ids(tmp_path: Path) -> None:
    folder = write_rules_data(tmp_path, [{"id": "A", "title": "가"}, {"id": "A", "title": "나"}])
    result = _run("-m", "app", "check", "--data-dir", str(folder))
    assert result.returncode == 1
    assert 'error: rules.json: [1] (id "A"): duplicate id "A"' in result.stderr


def test_server_refuses_broken_data_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    folder = write_rules_data(tmp_path, None, raw='[{"id": "A"}]')
    result = _run("-c", "import app.main", env={"RULES_DATA_DIR": str(folder)})
    assert result.returncode == 1
    expected = '룰사전: cannot start: rules.json: [0] (id "A"): missing "title"'
    assert result.stderr.strip() == expected
    assert "Traceback" not in result.stderr


def test_help_works_whatever_the_settings_say() -> None:
    result = _run("-m", "app", "--help", env={"RULES_PORT": "not-a-port"})
    assert result.returncode == 0 and "check" in result.stdout
    broken = _run("-m", "app", "check", env={"RULES_PORT": "not-a-port"})
    assert broken.returncode == 2 and "RULES_PORT" in broken.stderr


def test_index_builds_once_and_says_what_it_holds(tmp_path: Path) -> None:
    env = {"RULES_INDEX_DIR": str(tmp_path / "index")}
    first = _run("-m", "app", "index", env=env)
    assert first.returncode == 0, first.stderr
    assert "index of" in first.stdout and "data version" in first.stdout
    assert (tmp_path / "index" / "CORPUS_VERSION").is_file()
    again = _run("-m", "app", "index", env=env)
    assert again.returncode == 0 and again.stdout == first.stdout


def test_a_wildcard_host_the_guard_cannot_use_stops_the_start_with_its_name() -> None:
    broken = _run("-m", "app", "check", env={"RULES_ALLOWED_HOSTS": "lan,rules*.example.org"})
    assert broken.returncode == 2
    assert broken.stderr.startswith("룰사전: RULES_ALLOWED_HOSTS:")
    assert "*.example.org" in broken.stderr
    assert "Traceback" not in broken.stderr
