"""Reading a JSON data file, with the one-line errors every JSON parser gives."""

from __future__ import annotations

import json
from typing import Any

from app.corpus.models import SourceSpec
from app.errors import DataError


def load_json(text: str, spec: SourceSpec) -> Any:
    """The parsed document, or `DataError` naming the line and column of the problem."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise DataError(spec.file, where, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise DataError(spec.file, "", "JSON nested too deeply") from None
