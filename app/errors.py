"""The project's error types: one for broken data, one for requests that cannot be answered."""

from __future__ import annotations


class DataError(Exception):
    """Data that cannot be loaded. Its message is one human-readable line.

    It names the file, the entry (a path such as `[12].rules[3]` or an id) and the problem,
    so a self-hoster can fix the file without reading a traceback.
    """

    def __init__(self, file: str, entry: str, problem: str) -> None:
        self.file = file
        self.entry = entry
        self.problem = problem
        where = f"{file}: {entry}" if entry else file
        super().__init__(f"{where}: {problem}")


class AppError(Exception):
    """A request the app answers with an error status (404, 422, …) rather than content."""

    def __init__(self, status: int, message: str, *, detail: object | None = None) -> None:
        self.status = status
        self.message = message
        self.detail = detail
        super().__init__(message)
