"""The search's own code compiled to C by mypyc (`python -m app compile`), used only while it
matches its source.

The search is pure Python, and typed (`mypy --strict`), which is what mypyc compiles. Compiled,
the same code answers the same results about a third faster (docs/search.md has the
measurement), which is what a miss costs a server (#24) and a player's wait (#23). Nothing
needs it: without a C compiler, or after `compile --clean`, the same modules run as Python.

A compiled module is a `.so` beside its `.py`, and Python's import system prefers the `.so`.
An edit to the `.py` after compiling would then change nothing that runs, silently. So the
build writes a stamp with the SHA-256 of each source of the search's packages, and `guard()`
(run as the `app` package is imported, before any module below it) looks at it: when a source
differs from what was compiled, or there is no stamp, every compiled module of the group is
passed over for its `.py` (they call each other directly in C, so one stale module would mix
old and new code), with one line on stderr saying so. `RULES_COMPILED=0` passes over them
too, quietly (the tests do: some spy on the search's functions, which compiled code calls
directly).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["MODULES", "STAMPED_PACKAGES", "build", "clean", "compiled", "guard", "missing_tools"]

#: The package's folder, and the project's (where `app/` is).
_APP = Path(__file__).resolve().parent
_ROOT = _APP.parent

#: The modules compiled, as paths from the project folder: the search and the text functions
#: it calls per word. Not `contract` (pydantic models, whose metaclass mypyc does not
#: compile), `index` (Whoosh's schema, run once per build), `client_index` and `trace` (the
#: browser's index and the debugging trace, neither on a query's path).
MODULES: tuple[str, ...] = (
    "app/corpus/hangul.py",
    "app/corpus/normalize.py",
    "app/search/analysis.py",
    "app/search/bm25.py",
    "app/search/documents.py",
    "app/search/fuzzy.py",
    "app/search/layout.py",
    "app/search/loanwords.py",
    "app/search/query.py",
    "app/search/rank.py",
    "app/search/ranking.py",
    "app/search/rewrite.py",
    "app/search/scripts.py",
    "app/search/searcher.py",
    "app/search/snippet.py",
    "app/search/titles.py",
)

#: The packages whose sources the stamp covers (`_stamped`).
STAMPED_PACKAGES: tuple[str, ...] = ("app/corpus", "app/search")

#: mypyc's shared library for the group (`app/_native__mypyc.*.so`), inside the package so
#: that it is found wherever `app` is.
_GROUP = "app._native"
_STAMP = _APP / "native.json"
_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _digest(path: str) -> str:
    return hashlib.sha256((_ROOT / path).read_bytes()).hexdigest()


def _built() -> list[Path]:
    """This interpreter's compiled files of the group that exist."""
    paths = [_ROOT / (path.removesuffix(".py") + _SUFFIX) for path in MODULES]
    paths.append(_APP / ("_native__mypyc" + _SUFFIX))
    return [path for path in paths if path.exists()]


def compiled() -> bool:
    """Whether the search runs compiled in this process (as `guard` decided)."""
    return _in_use


def _stamped() -> list[str]:
    """The sources the stamp covers: every module of the packages the group is in, which are
    also all it imports from the project (`tests/test_native.py` holds that true). mypyc
    reads the types of what a compiled module imports, not only its own code."""
    return sorted(str(path.relative_to(_ROOT)) for package in STAMPED_PACKAGES
                  for path in (_ROOT / package).rglob("*.py"))


def _stale() -> list[str]:
    """The stamped sources that differ from what was compiled (all of them: no stamp)."""
    stamped = _stamped()
    try:
        stamp = json.loads(_STAMP.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return stamped
    if not isinstance(stamp, dict) or sorted(stamp) != stamped:
        return stamped
    return [path for path in stamped if stamp[path] != _digest(path)]


class _SourceFirst:
    """Finds the group's modules as their `.py` files, ahead of the compiled ones (a meta
    path finder; not derived from `importlib.abc`, whose import costs every process 10 ms)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = _SOURCES.get(fullname)
        return importlib.util.spec_from_file_location(fullname, source) if source else None


_SOURCES = {_name(path): str(_ROOT / path) for path in MODULES}


_in_use = False


def guard() -> None:
    """Pass over the compiled modules unless every one matches its source (see above)."""
    global _in_use
    built = _built()
    if not built:
        return
    if os.environ.get("RULES_COMPILED") == "0":
        sys.meta_path.insert(0, _SourceFirst())
        return
    if len(built) < len(MODULES) + 1:
        problem = f"the compiled build is incomplete ({len(built)} of {len(MODULES) + 1} files)"
    else:
        stale = _stale()
        problem = f"{stale[0]} changed since `python -m app compile` ({len(stale)} file(s))" \
            if stale else ""
    _in_use = not problem
    if problem:
        sys.meta_path.insert(0, _SourceFirst())
        if not _compiling():
            print(f"룰사전: {problem}: the search runs as Python; "
                  "compile again, or `python -m app compile --clean`", file=sys.stderr)


def _compiling() -> bool:
    """Whether this process is `python -m app compile`, about to rebuild and report on the
    build itself: "compile again" read there as if the compile had failed. (While `-m` imports
    the package, before `app.__main__` runs, `sys.argv[0]` is "-m".)"""
    return sys.argv[:2] == ["-m", "compile"]


def missing_tools() -> list[str]:
    """The Debian packages compiling needs that this machine lacks: a C compiler (the one
    Python was built with) and Python's headers. `python -m app compile --needs` prints them
    for the Dockerfile and `.ci/run`, with only the standard library imported."""
    import shutil
    import sysconfig

    missing = []
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        missing += ["gcc", "libc6-dev"]
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        missing.append("python3-dev")
    return missing


def build(work: Path) -> list[Path]:
    """Compile `MODULES` in place (C sources and objects in `work`) and write the stamp.
    Needs mypy (mypyc), setuptools and a C compiler with Python's headers."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    clean()
    # In place means beside each source, relative to the working folder.
    with contextlib.chdir(_ROOT):
        # mypy's cache in `work` too: nothing of the build is left beside the project.
        extensions = mypycify(["--cache-dir", str(work / "cache"), *MODULES], opt_level="3",
                              group_name=_GROUP, target_dir=str(work / "c"))
        distribution = Distribution({"ext_modules": extensions, "script_name": "compile"})
        command = distribution.get_command_obj("build_ext")
        command.inplace = True
        command.build_temp = str(work / "temp")
        command.build_lib = str(work / "lib")
        distribution.run_command("build_ext")
    _STAMP.write_text(json.dumps({path: _digest(path) for path in _stamped()}, indent=1)
                      + "\n", encoding="utf-8")
    return _built()


def clean() -> list[Path]:
    """Remove the compiled files and the stamp; the search runs as Python again."""
    removed = _built()
    for path in removed:
        path.unlink()
    _STAMP.unlink(missing_ok=True)
    return removed
