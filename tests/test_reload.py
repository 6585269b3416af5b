"""Reloading a running server with SIGHUP: broken data never replaces the served reference."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from bench.server import running_server
from tests.conftest import DATA, ROOT
from tests.raw import wait_for


def _ready(base: str) -> dict[str, object]:
    with urllib.request.urlopen(base + "/readyz", timeout=5) as response:
        body: dict[str, object] = json.load(response)
        return body



def test_sighup_reloads_good_data_and_ignores_broken_data(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    env = {"RULES_DATA_DIR": str(data), "RULES_INDEX_DIR": str(tmp_path / "index")}
    log = tmp_path / "server.log"
    with running_server(env, log_path=log) as (base, process):
        before = _ready(base)["version"]

        (data / "ahlcg-rules.json").write_text('[{"id": "half a file"', encoding="utf-8")
        process.send_signal(signal.SIGHUP)
        # The reload must have run and failed (one line in the log), not merely not happened.
        assert wait_for(lambda: "reload failed" in log.read_text(encoding="utf-8"))
        assert process.poll() is None
        assert _ready(base)["version"] == before
        with urllib.request.urlopen(base + "/rules/Skill_Test_3", timeout=5) as page:
            assert page.status == 200

        text = (DATA / "ahlcg-rules.json").read_text(encoding="utf-8")
        (data / "ahlcg-rules.json").write_text(text.replace("틈새 공격", "틈새 공격 (개정)"),
                                               encoding="utf-8")
        process.send_signal(signal.SIGHUP)
        assert wait_for(lambda: _ready(base)["version"] != before)
        with urllib.request.urlopen(base + "/api/entries/Attack_of_Opportunity") as response:
            assert json.load(response)["title"] == "틈새 공격 (개정)"
        # The entry pages' data is made again for the new data before it serves (not kept
        # from the old, as each page's was made at start).
        with urllib.request.urlopen(base + "/rules/Attack_of_Opportunity") as page:
            assert "틈새 공격 (개정)" in page.read().decode("utf-8")


def test_broken_data_volume_stops_the_start_with_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    (data / "eh-rules.txt").write_bytes(b"\xff\xfe not text")
    result = subprocess.run(
        [sys.executable, "-m", "app", "serve"], cwd=ROOT, capture_output=True, text=True,
        timeout=60, env={"RULES_DATA_DIR": str(data), "RULES_INDEX_DIR": str(tmp_path / "i"),
                         "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 1
    # Two sources read that file: the first error, and how many more `check` lists.
    assert result.stderr.strip() == ("룰사전: cannot start: eh-rules.txt: byte 0: "
                                     "not UTF-8 text (invalid start byte); "
                                     "and 1 more (python -m app check)")
