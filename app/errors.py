"""The project's error types: one for broken data, one for requests that cannot be answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def printable(text: str) -> str:
    """`text` with anything a UTF-8 terminal cannot print (lone surrogates) escaped, and
    control characters (a line break inside an id) written as escapes, so a message stays
    one line."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else
                   c.encode("unicode_escape").decode("ascii") for c in text)


class DataError(Exception):
    """Data that cannot be loaded. Its message is one human-readable line.

    It names the file, the entry (a path such as `[12].rules[3]` or an id) and the problem,
    so a self-hoster can fix the file without reading a traceback.
    """

    def __init__(self, file: str, entry: str, problem: str, *, more: int = 0) -> None:
        self.file = printable(file)
        self.entry = printable(entry)
        self.problem = printable(problem)
        #: How many other errors the data has (a failed start names only the first).
        self.more = more
        where = f"{self.file}: {self.entry}" if entry else self.file
        tail = f"; and {more} more (python -m app check)" if more else ""
        super().__init__(f"{where}: {self.problem}{tail}")


def read_data_json(data_dir: Path, file: str, *, missing: str = "file not found") -> Any:
    """The JSON document `data_dir/file`, or `DataError` naming the file: `missing` when it is
    not there, the parser's message when it is not UTF-8 JSON."""
    try:
        return json.loads((data_dir / file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(file, "", missing) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(file, "", f"not valid UTF-8 JSON ({exc})") from None


class AppError(Exception):
    """A request the app answers with an error status (404, 422, …) rather than content."""

    def __init__(self, status: int, message: str, *, detail: object | None = None,
                 headers: dict[str, str] | None = None, hint: str = "") -> None:
        self.status = status
        self.message = message
        self.detail = detail
        #: What the reader can do about it, shown under the message (and sent as JSON).
        self.hint = hint
        #: Headers the answer must carry (`Allow` on a 405, `Retry-After` on a 503).
        self.headers = dict(headers or {})
        super().__init__(message)
