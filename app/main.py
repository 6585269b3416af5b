"""`app.main:app`, the ASGI app for uvicorn and other servers.

Broken data stops the import with one human-readable line and exit status 1 (no traceback).
The app is made (its imports too) at a lower CPU priority (`app.web.background`): a worker
that starts during a reload or to replace another does so while the other workers serve.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from app.web.background import at_low_priority

if TYPE_CHECKING:
    from fastapi import FastAPI


def _create() -> FastAPI:
    from pydantic import ValidationError

    from app.errors import DataError
    from app.settings import describe
    from app.web.app import create_app

    try:
        return create_app(settle=True)
    except DataError as exc:
        print(f"룰사전: cannot start: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except ValidationError as exc:
        for line in describe(exc):
            print(f"룰사전: {line}", file=sys.stderr)
        raise SystemExit(2) from None


app = at_low_priority(_create)
