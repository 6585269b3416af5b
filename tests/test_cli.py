"""`python -m app check` and starting the server on broken data, as a self-hoster sees them."""

from __future__ import annotations

import json
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


def test_check_reads_the_everyday_words_file(tmp_path: Path) -> None:
    # The manifest's `words` file (everyday words never corrected) is checked like any other.
    folder = write_rules_data(tmp_path, [{"id": "A", "title": "가"}])
    manifest = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    (folder / "sources.json").write_text(json.dumps({**manifest, "words": "ko-words.txt"}),
                                         encoding="utf-8")
    (folder / "ko-words.txt").write_text("# comment\n머리\numbrella\n", encoding="utf-8")
    result = _run("-m", "app", "check", "--data-dir", str(folder))
    assert result.returncode == 1
    assert "error: ko-words.txt: line 3: expected one word of Hangul syllables" in result.stderr
    (folder / "ko-words.txt").write_text("머리\n우산\n머리\n", encoding="utf-8")
    result = _run("-m", "app", "check", "--data-dir", str(folder))
    assert 'ko-words.txt: line 3: "머리" is listed twice' in result.stderr
    (folder / "ko-words.txt").unlink()
    result = _run("-m", "app", "check", "--data-dir", str(folder))
    assert result.returncode == 1 and "ko-words.txt" in result.stderr


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


def _refused_everywhere(folder: Path, tmp_path: Path, line: str) -> None:
    """`check`, a one-worker and a two-worker `serve` and `export` all refuse `folder` with the
    same one line, quickly."""
    env = {"RULES_DATA_DIR": str(folder), "RULES_INDEX_DIR": str(tmp_path / "index"),
           "RULES_STATE_DIR": str(tmp_path / "state"), "RULES_PORT": "1"}
    check = _run("-m", "app", "check", "--data-dir", str(folder))
    assert check.returncode == 1
    assert [x for x in check.stderr.splitlines() if x.startswith("error:")] == [f"error: {line}"]
    for workers in ("1", "2"):
        serve = _run("-m", "app", "serve", env={**env, "RULES_WORKERS": workers})
        assert (serve.returncode, serve.stderr.strip()) == (1, f"룰사전: cannot start: {line}")
    export = _run("-m", "app", "export", str(tmp_path / "site"), "--base-url",
                  "https://example.org/", env=env)
    assert (export.returncode, export.stderr.strip()) == (1, f"룰사전: cannot export: {line}")
    assert not (tmp_path / "site").exists()


def test_a_file_outside_the_data_folder_is_refused_by_check_serve_and_export(
        tmp_path: Path) -> None:
    # #20 L6: `check` passed this, and a one-worker server read and served the outside file.
    secret = tmp_path / "outside-secret.txt"
    secret.write_text('[{"id": "Secret", "title": "비밀"}]', encoding="utf-8")
    folder = write_rules_data(tmp_path / "data", [{"id": "A", "title": "가"}])
    manifest = (folder / "sources.json").read_text(encoding="utf-8")
    (folder / "sources.json").write_text(manifest.replace('"rules.json"',
                                                          '"../outside-secret.txt"'),
                                         encoding="utf-8")
    _refused_everywhere(folder, tmp_path, 'sources.json: sources[0]: "file" must name a file '
                        'inside the data folder (no "..", "." or empty path segments): '
                        "../outside-secret.txt")


def test_a_huge_data_file_is_refused_at_once(tmp_path: Path) -> None:
    # #20 L1: a 200 MB file passed `check` (42 s) and `serve` validated it for minutes.
    folder = write_rules_data(tmp_path / "data", [{"id": "A", "title": "가"}])
    with (folder / "rules.json").open("r+b") as file:
        file.truncate(200 * 1024 * 1024)  # sparse: nothing reads it but its size
    _refused_everywhere(folder, tmp_path, "rules.json: the file is 200.0 MiB, over the 4 MiB a "
                                          "data file may hold")


def test_a_wildcard_host_the_guard_cannot_use_stops_the_start_with_its_name() -> None:
    broken = _run("-m", "app", "check", env={"RULES_ALLOWED_HOSTS": "lan,rules*.example.org"})
    assert broken.returncode == 2
    assert broken.stderr.startswith("룰사전: RULES_ALLOWED_HOSTS:")
    assert "*.example.org" in broken.stderr
    assert "Traceback" not in broken.stderr
