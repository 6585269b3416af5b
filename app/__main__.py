"""Command line: `python -m app check` validates the data, `serve` runs the server, `index`
builds the search index, `export` writes the reference as a static site, `data update`
installs newer upstream files as new revisions and `compile` compiles the search (mypyc)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.settings import Settings

# Everything else is imported where it is used: a server's workers are started with
# multiprocessing's "spawn", which imports this module (as `__mp_main__`) in each new worker
# before the worker runs, at full CPU priority, while the other workers serve; the app itself
# is then imported at a lower one (`app.main`). At the top, pydantic and the data checker took
# 0.24 s of every new worker's CPU there.


def _check(data_dir: Path) -> int:
    from app.corpus.build import check_data

    problems = check_data(data_dir)
    # The findings are diagnostics (stderr); the summary line is the command's answer.
    for problem in problems:
        print(problem, file=sys.stderr)
    errors = sum(p.error for p in problems)
    warnings = len(problems) - errors
    print(f"{data_dir}: {errors} error(s), {warnings} warning(s)")
    return 1 if errors else 0


def _index(settings: Settings) -> int:
    from app.errors import DataError
    from app.urls import Urls
    from app.web.state import load_library

    try:
        library = load_library(settings.data_dir, settings.index_dir, Urls())
    except DataError as exc:
        print(f"룰사전: cannot build the index: {exc}", file=sys.stderr)
        return 1
    print(f"{settings.index_dir}: index of {len(library.corpus)} entries, "
          f"data version {library.version}")
    return 0


def _export(settings: Settings, directory: Path, base_url: str | None, precompress: bool) -> int:
    from app.errors import DataError
    from app.export import ExportError, export_site

    try:
        result = export_site(settings, directory, base_url, precompress=precompress)
    except (DataError, ExportError) as exc:
        print(f"룰사전: cannot export: {exc}", file=sys.stderr)
        return 1
    print(f"{result.directory}: {result.pages} pages, {result.files} files, "
          f"{result.bytes / 1e6:.1f} MB in {result.seconds:.1f} s")
    return 0


def _update(settings: Settings, base: str | None) -> int:
    from app.update import UpdateError, reload_server, update_data

    try:
        result = update_data(settings.data_dir, base)
    except UpdateError as exc:
        print(f"룰사전: data update: {exc}", file=sys.stderr)
        return 1
    for line in result.warnings:
        print(line, file=sys.stderr)
    for outcome in result.outcomes:
        print(outcome.line())
    if not result.changed:
        print(f"{settings.data_dir}: up to date, nothing changed")
        return 0
    print(reload_server(settings.pid_path))
    return 0


def _compile(clean: bool, needs: bool) -> int:
    import os
    import subprocess
    import tempfile

    from app import native

    if needs:
        print(" ".join(native.missing_tools()))
        return 0
    if clean:
        removed = native.clean()
        print(f"removed {len(removed)} compiled file(s): the search runs as Python")
        return 0
    try:
        with tempfile.TemporaryDirectory(prefix="rulesajeon-compile-") as work:
            built = native.build(Path(work))
    except ImportError as exc:
        print(f"룰사전: compile needs mypy and setuptools (pip install -e '.[native]'): {exc}",
              file=sys.stderr)
        return 1
    except (Exception, SystemExit) as exc:  # mypyc and distutils report a failure either way
        print(f"룰사전: compile failed, the search runs as Python: {exc}", file=sys.stderr)
        native.clean()
        return 1
    # A new interpreter imports the package as a server would: the build is in use only if
    # the guard takes it.
    env = {k: v for k, v in os.environ.items() if k != "RULES_COMPILED"}
    taken = subprocess.run([sys.executable, "-c", "from app import native; "
                            "raise SystemExit(not native.compiled())"], env=env, check=False)
    if taken.returncode != 0:
        print("룰사전: compiled, but the new build is not taken up", file=sys.stderr)
        return 1
    print(f"compiled {len(native.MODULES)} modules into {len(built)} files "
          f"(app/native.json records their sources): the search runs compiled")
    return 0


def _serve(settings: Settings) -> int:
    from app.web.server import serve

    return serve(settings)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    # The arguments first: `--help` and a typo in a command work whatever RULES_* say.
    parser = argparse.ArgumentParser(prog="python -m app", description="룰사전 rules reference")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="validate the data folder and list its problems")
    check.add_argument("--data-dir", type=Path, default=None,
                       help="the data folder (default: RULES_DATA_DIR, else ./data)")
    commands.add_parser("index", help="build the search index for the data (if out of date)")
    commands.add_parser("serve", help="validate the data, then serve it (settings: RULES_*)")
    compile_ = commands.add_parser(
        "compile", help="compile the search to C with mypyc (about a third faster; optional)",
        description="Compile the search's modules (app/native.py) with mypyc, beside their "
                    "sources. Needs the native extra and a C compiler with Python's headers. "
                    "A module edited after compiling makes the search run as Python again "
                    "until it is compiled anew.")
    compile_.add_argument("--clean", action="store_true",
                          help="remove the compiled files instead")
    compile_.add_argument("--needs", action="store_true",
                          help="only print the Debian packages compiling needs that this "
                               "machine lacks (a C compiler, Python's headers), on one line")
    export = commands.add_parser(
        "export", help="write the reference as a static site any static file server can serve",
        description="Write every page, the static files, the service worker, sitemap.xml, "
                    "robots.txt, 404.html and the browser search page into DIR (see "
                    "docs/static-export.md). DIR must be new, empty or an earlier export, "
                    "which is replaced whole at the end.")
    export.add_argument("directory", metavar="DIR", type=Path, help="the folder to write")
    export.add_argument(
        "--base-url", default=None, metavar="URL",
        help="the address the site will be published at, e.g. https://example.org/rules/ "
             "(its path becomes the prefix of every link). Default: RULES_PUBLIC_BASE_URL "
             "(with RULES_ROOT_PATH); without either the export stops, because the sitemap "
             "and the canonical links must be absolute URLs")
    export.add_argument(
        "--gzip", action="store_true",
        help="also write NAME.gz beside every text file, for servers that send precompressed "
             "files (nginx gzip_static, Caddy precompressed: see docs/static-export.md)")
    data = commands.add_parser("data", help="manage the data folder")
    data_commands = data.add_subparsers(dest="data_command", required=True)
    update = data_commands.add_parser(
        "update", help="fetch newer upstream files and install them as new revisions",
        description="For each source whose manifest entry names an upstream path: fetch it "
                    "(bounded in size and time), validate the data with it as `check` does, "
                    "and only then install it beside the old revisions; an unchanged file "
                    "changes nothing. Prints what changed and tells a running server to "
                    "reload (SIGHUP through RULES_PID_FILE).")
    update.add_argument(
        "--from", dest="base", default=None, metavar="BASE",
        help="an http(s) or file:// URL, or a folder, laid out like the upstream repository "
             "(BASE/rules/ko/rules.json, BASE/rules/en/rules.json, BASE/errata/ko/errata.json)."
             " Default: the manifest's upstream.base (arkham-cards-data on GitHub)")
    args = parser.parse_args(argv)
    if args.command == "compile":
        return _compile(args.clean, args.needs)
    from pydantic import ValidationError

    from app.settings import Settings, describe

    try:
        settings = Settings()
    except ValidationError as exc:
        for line in describe(exc):
            print(f"룰사전: {line}", file=sys.stderr)
        return 2
    if args.command == "check":
        return _check(args.data_dir or settings.data_dir)
    if args.command == "index":
        return _index(settings)
    if args.command == "export":
        return _export(settings, args.directory, args.base_url, args.gzip)
    if args.command == "data":
        return _update(settings, args.base)
    return _serve(settings)


if __name__ == "__main__":
    sys.exit(main())
