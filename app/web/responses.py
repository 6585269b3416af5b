"""Response classes shared by the routes and the error handler."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse
from pydantic_core import to_jsonable_python


class SafeJSONResponse(JSONResponse):
    """JSON with `<`, `>` and `&` as Unicode escapes.

    The data and reflected queries may hold `<script>`; escaped, they stay inert even if a
    client or proxy ever sniffs the body as HTML. Korean stays readable (no ASCII escaping).
    The content may be the typed views (`app.web.views`), lists of them, or plain JSON data.
    """

    def render(self, content: Any) -> bytes:
        text = json.dumps(to_jsonable_python(content), ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return text.encode("utf-8")
