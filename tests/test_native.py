"""`python -m app compile`: the compiled search answers exactly as the Python one, and a source
edited after compiling is run as Python, never shadowed by its stale compiled module.

Compiles a copy of the project (about a minute and a half here), so the tree the other tests
import is never touched."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app import native
from tests.conftest import ROOT, missing_tool

#: Prints whether the search runs compiled, then one line per development query (its results
#: with their snippets) and per prefix of it (the suggestions).
_ANSWERS = """
import json, sys
from pathlib import Path
from app import native
from app.corpus.build import load_corpus
from app.search import SearchIndex
from app.urls import Urls
index = SearchIndex.open_or_build(load_corpus(Path("data"), Urls()), None)
print(native.compiled())
for query in json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))["queries"]:
    text = query["q"]
    print(repr(index.search(text, game=query.get("game"), limit=10)))
    print(repr([index.suggest(text[:n]) for n in range(1, min(len(text), 4) + 1)]))
"""


def _can_compile() -> None:
    if importlib.util.find_spec("mypyc") is None:
        missing_tool("mypyc not installed: pip install -e '.[native]'", "RULES_NATIVE_TESTS")
    if missing := native.missing_tools():
        missing_tool(f"compiling needs: apt-get install {' '.join(missing)}",
                     "RULES_NATIVE_TESTS")


def _run(copy: Path, *args: str, compiled: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RULES_COMPILED"}
    if not compiled:
        env["RULES_COMPILED"] = "0"
    env["PYTHONPATH"] = str(copy)
    return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def compiled_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _can_compile()
    copy = tmp_path_factory.mktemp("native")
    for name in ("app", "data"):
        shutil.copytree(ROOT / name, copy / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "native.json"))
    shutil.copy(ROOT / "pyproject.toml", copy)
    done = _run(copy, "-m", "app", "compile")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compiled" in done.stdout
    # Nothing of the build beside the project (the image would carry it): only the modules.
    assert sorted(p.name for p in copy.iterdir()) == ["app", "data", "pyproject.toml"]
    return copy


def test_compiled_search_answers_exactly_as_the_python_one(compiled_copy: Path) -> None:
    queries = str(ROOT / "bench" / "search-queries.dev.json")
    compiled = _run(compiled_copy, "-c", _ANSWERS, queries)
    python = _run(compiled_copy, "-c", _ANSWERS, queries, compiled=False)
    assert compiled.returncode == 0, compiled.stderr
    assert python.returncode == 0, python.stderr
    compiled_lines, python_lines = compiled.stdout.splitlines(), python.stdout.splitlines()
    assert (compiled_lines[0], python_lines[0]) == ("True", "False")
    queries_count = len(json.loads(Path(queries).read_text(encoding="utf-8"))["queries"])
    assert len(compiled_lines) == len(python_lines) == 1 + 2 * queries_count
    for at, (ours, theirs) in enumerate(zip(compiled_lines, python_lines, strict=True)):
        if at:
            assert ours == theirs, f"line {at}: the compiled search differs"


def test_a_source_edited_after_compiling_runs_as_python(compiled_copy: Path) -> None:
    source = compiled_copy / "app" / "search" / "rank.py"
    original = source.read_text(encoding="utf-8")
    probe = ("from app import native; import app.search.rank as rank; "
             "print(native.compiled(), rank.__file__.endswith('.py'), rank.EDITED)")
    try:
        source.write_text(original + "\nEDITED = True\n", encoding="utf-8")
        done = _run(compiled_copy, "-c", probe)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["False", "True", "True"]
        assert "app/search/rank.py changed since `python -m app compile`" in done.stderr
        assert len(done.stderr.splitlines()) == 1
        # The compile command itself rebuilds: it does not first say "compile again".
        asked = _run(compiled_copy, "-m", "app", "compile", "--needs")
        assert (asked.returncode, asked.stderr) == (0, "")
    finally:
        source.write_text(original, encoding="utf-8")
    done = _run(compiled_copy, "-c", "from app import native; import app.search; "
                                     "print(native.compiled())")
    assert (done.stdout.strip(), done.stderr) == ("True", "")


def test_a_module_the_compiled_ones_import_is_stamped_too(compiled_copy: Path) -> None:
    """mypyc reads the types of what a compiled module imports: an edit there makes the
    build stale as well."""
    source = compiled_copy / "app" / "search" / "contract.py"
    original = source.read_text(encoding="utf-8")
    try:
        source.write_text(original + "\n# edited\n", encoding="utf-8")
        done = _run(compiled_copy, "-c", "from app import native; import app.search; "
                                         "print(native.compiled())")
        assert done.stdout.strip() == "False"
        assert "app/search/contract.py changed since" in done.stderr
    finally:
        source.write_text(original, encoding="utf-8")


def test_the_compiled_modules_import_only_from_the_stamped_packages() -> None:
    packages = tuple(p.replace("/", ".") + "." for p in native.STAMPED_PACKAGES)
    for path in native.MODULES:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("app"):
                for alias in node.names:
                    name = f"{node.module}.{alias.name}"
                    assert name.startswith(packages), f"{path} imports {name}"


def test_a_partial_build_runs_as_python_and_says_it_is_incomplete(compiled_copy: Path) -> None:
    built = next((compiled_copy / "app" / "search").glob("bm25.*.so"))
    aside = built.with_name(built.name + ".aside")
    built.rename(aside)
    try:
        done = _run(compiled_copy, "-c", "from app import native; import app.search; "
                                         "print(native.compiled())")
        assert done.stdout.strip() == "False"
        files = len(native.MODULES) + 1
        assert f"the compiled build is incomplete ({files - 1} of {files} files)" in done.stderr
        assert len(done.stderr.splitlines()) == 1
    finally:
        aside.rename(built)


def test_what_compiling_needs_is_told_by_a_bare_interpreter() -> None:
    """The Dockerfile and .ci/run ask before anything is installed: with no site-packages."""
    done = subprocess.run([sys.executable, "-S", "-m", "app", "compile", "--needs"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == " ".join(native.missing_tools()) + "\n"


def test_clean_removes_every_compiled_file(compiled_copy: Path) -> None:
    done = _run(compiled_copy, "-m", "app", "compile", "--clean")
    assert done.returncode == 0, done.stderr
    assert not list((compiled_copy / "app").rglob("*.so"))
    assert not (compiled_copy / "app" / "native.json").exists()
    done = _run(compiled_copy, "-c", "from app import native; import app.search; "
                                     "print(native.compiled())")
    assert (done.stdout.strip(), done.stderr) == ("False", "")
