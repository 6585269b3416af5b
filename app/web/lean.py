"""Lean calls: the route table's `lean` rows answered without FastAPI's request machinery.

A miss for an entry page or a search costs its handler a few tenths of a millisecond; through
FastAPI it cost as much again in the framework: its outer layers (error, telemetry and body
limit middleware), its route matching over every route, the dependency machinery that reads
the parameters, two exit stacks, and for a sync handler the thread-pool hand-over (a
cross-thread wake-up each way). A request for a row declared `lean` goes, from the front
layer, through the app's own per-request middleware (the security headers, the cache,
admission control and compression: the same classes, settings and order, built from the list
FastAPI builds its stack from, `lean_chain`) to `LeanEndpoints`, which calls the handler
itself:

* the parameters are read as FastAPI reads them: path parameters by the row's own pattern and
  convertors, query parameters from Starlette's `QueryParams` (the last value of a repeated
  one), validated by pydantic against the same annotations (`Query(ge=…, le=…)`), so a bad
  value raises the same `RequestValidationError`, with the same messages;
* a refusal (`AppError`, an HTTP exception, a validation error) becomes the one error
  handler's answer, as FastAPI's exception layer gives it; anything else goes up to
  `FrontedApp`, which answers the one handler's 500 as FastAPI's error layer does;
* a handler runs on the event loop (no thread hop: an entry page is about 0.3 ms of Python),
  unless its row is `expensive` and the worker has other search work: then it runs in the
  thread pool, where the search gate bounds how many run at once and a flood gets its 503s at
  once (`tests/test_admission.py`), while health probes and cache hits go on between the
  threads' turns. A search that is the worker's only search work (`admission.ALONE`) runs on
  the loop too: the hand-over to a pool thread and back cost more than the thread gave
  (measured in-process, the search API took 1.65× the search itself through the pool and
  1.42× on the loop), and with no other search to share the GIL with, the pool gave nobody a
  turn sooner than the loop's end of the search does, bar the longest searches (a hostile
  query's tens of milliseconds, against the interpreter's 5 ms switch). On the loop a handler
  holds every other request of the worker while it runs; the page gate bounds how many are
  admitted at a time (`admission`).

The routes stay registered with FastAPI as well: the OpenAPI schema and `create_app(lean=False)`
(the framework path, which `tests/test_lean.py` compares answer for answer) are unchanged.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import TypeAdapter, ValidationError
from starlette._utils import get_route_path
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import AppError
from app.web.admission import ALONE
from app.web.errors import handle_error
from app.web.routing import Route, route_of

__all__ = ["LeanEndpoints", "lean_chain", "plan_call"]

#: What the error handler answers itself; anything else is the framework's 500.
_REFUSALS = (AppError, StarletteHTTPException, RequestValidationError)


@dataclass(frozen=True, slots=True)
class _Query:
    """One query parameter: its name, default, and validator (None: any string is valid)."""

    name: str
    default: Any
    check: TypeAdapter[Any] | None


@dataclass(frozen=True, slots=True)
class _Plan:
    """How to call one handler: its path pattern and convertors, and its query parameters."""

    handler: Callable[..., Any]
    pattern: typing.Pattern[str]
    convertors: dict[str, Convertor[Any]]
    query: tuple[_Query, ...]
    #: Run in the thread pool (an `expensive` row), not on the event loop.
    threaded: bool

    def arguments(self, request: Request) -> dict[str, Any]:
        """The handler's arguments besides the request; raises `RequestValidationError`."""
        match = self.pattern.match(get_route_path(request.scope))
        if match is None:  # the front layer matched this row: cannot happen
            raise AppError(404, "페이지를 찾을 수 없습니다.")
        kwargs: dict[str, Any] = {name: self.convertors[name].convert(value)
                                  for name, value in match.groupdict().items()}
        request.scope["path_params"] = kwargs.copy()
        if self.query:
            given = request.query_params
            errors: list[Any] = []
            for param in self.query:
                value = given.get(param.name)
                if value is None:
                    kwargs[param.name] = param.default
                elif param.check is None:
                    kwargs[param.name] = value
                else:
                    try:
                        kwargs[param.name] = param.check.validate_python(value)
                    except ValidationError as invalid:
                        errors.extend({**e, "loc": ("query", param.name, *e["loc"])}
                                      for e in invalid.errors(include_url=False))
            if errors:
                raise RequestValidationError(errors)
        return kwargs


def plan_call(route: Route) -> _Plan:
    """The call plan of a `lean` row; raises `TypeError` for a handler this layer cannot
    call as FastAPI would (an async one, or a parameter that is not the request, a path
    parameter or a string or integer query parameter)."""
    handler = route.handler
    if inspect.iscoroutinefunction(handler):
        raise TypeError(f"{handler.__name__}: a lean handler is a plain function")
    pattern, _, convertors = compile_path(route.path)
    hints = typing.get_type_hints(handler, include_extras=True)
    query: list[_Query] = []
    for name, param in inspect.signature(handler).parameters.items():
        hint = hints.get(name)
        if hint is Request or name in convertors:
            continue
        base, metadata = hint, ()
        if typing.get_origin(hint) is typing.Annotated:
            base, *extra = typing.get_args(hint)
            metadata = tuple(extra)
        if base not in (str, int) or param.default is inspect.Parameter.empty:
            raise TypeError(f"{handler.__name__}: parameter {name!r} is not a query parameter "
                            f"with a default")
        check = (None if base is str and not metadata
                 else TypeAdapter(typing.Annotated[base, *metadata] if metadata else base))
        query.append(_Query(name, param.default, check))
    return _Plan(handler, pattern, convertors, tuple(query), route.expensive)


class LeanEndpoints:
    """The innermost app of the lean chain: calls the `lean` row's handler (see the module's
    text). `FrontedApp` sends only requests for such rows here (`answers`)."""

    def __init__(self, table: Iterable[Route]) -> None:
        self.plans = {id(route): plan_call(route) for route in table if route.lean}

    def answers(self, scope: Scope) -> bool:
        """Whether the request's row (`routing.route_of`) is one this app calls."""
        return id(route_of(scope)) in self.plans

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        plan = self.plans[id(route_of(scope))]
        request = Request(scope, receive)
        try:
            kwargs = plan.arguments(request)
            if plan.threaded and not scope.get(ALONE):
                response = await run_in_threadpool(plan.handler, request, **kwargs)
            else:
                response = plan.handler(request, **kwargs)
        except _REFUSALS as refused:
            response = await handle_error(request, refused)
        await response(scope, receive, send)


def lean_chain(endpoints: LeanEndpoints, middleware: Iterable[Middleware]) -> ASGIApp:
    """`endpoints` behind `middleware` (the app's own per-request layers, `user_middleware`,
    outermost first), built as Starlette builds its stack from the same list."""
    app: ASGIApp = endpoints
    for cls, args, kwargs in reversed(list(middleware)):
        app = cls(app, *args, **kwargs)
    return app
