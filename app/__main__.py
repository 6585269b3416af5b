"""Command line: `python -m app check` validates the data; `python -m app serve` runs the server."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.corpus.build import check_data
from app.errors import DataError
from app.logs import log_config
from app.settings import Settings


def _check(data_dir: Path) -> int:
    problems = check_data(data_dir)
    for problem in problems:
        print(problem)
    errors = sum(p.error for p in problems)
    warnings = len(problems) - errors
    print(f"{data_dir}: {errors} error(s), {warnings} warning(s)")
    return 1 if errors else 0


def _index(settings: Settings) -> int:
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


def _serve(settings: Settings) -> int:
    import uvicorn

    from app.urls import Urls
    from app.web.app import create_app
    from app.web.state import load_library

    # Broken data must stop the start with one line, not a traceback per worker: with one
    # worker the app is built here (once) and handed to uvicorn; with several, the data is
    # validated here and each worker process builds its own app from `app.main`.
    try:
        if settings.workers == 1:
            target: object = create_app(settings)
        else:
            load_library(settings.data_dir, settings.index_dir, Urls())
            target = "app.main:app"
    except DataError as exc:
        print(f"룰사전: cannot start: {exc}", file=sys.stderr)
        return 1
    uvicorn.run(
        target,  # type: ignore[arg-type]
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_config=log_config(settings.log_level, settings.log_format),
        log_level=settings.log_level,
        # The app reads X-Forwarded-* itself, from RULES_TRUSTED_PROXIES only.
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=10,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    settings = Settings()
    parser = argparse.ArgumentParser(prog="python -m app", description="룰사전 rules reference")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="validate the data folder and list its problems")
    check.add_argument("--data-dir", type=Path, default=settings.data_dir)
    commands.add_parser("index", help="build the search index for the data (if out of date)")
    commands.add_parser("serve", help="validate the data, then serve it (settings: RULES_*)")
    args = parser.parse_args(argv)
    if args.command == "check":
        return _check(args.data_dir)
    if args.command == "index":
        return _index(settings)
    return _serve(settings)


if __name__ == "__main__":
    sys.exit(main())
