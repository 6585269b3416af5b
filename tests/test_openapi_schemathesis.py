"""Property-based API tests from the app's own OpenAPI schema (schemathesis).

Every operation in `/openapi.json` is called with generated parameters, valid (positive) and
invalid (negative), and must never answer with a server error. Bounded: 25 examples per
operation and mode, no deadline.

The operations are driven with schemathesis' public strategies (`APIOperation.as_strategy`) and
Hypothesis rather than `schemathesis.pytest.from_fixture`: with pytest 9 that lazy loader fails
(`'Function' object has no attribute '_nodeid'`, schemathesis 4.32.5 reaches into a pytest
private attribute that pytest 9 renamed), and a schema loaded at import time would build the app
during collection instead of reusing the session's `client` fixture.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.python import asgi as schemathesis_asgi

from app.settings import Settings
from app.web.app import create_app
from tests.conftest import DATA

EXAMPLES = 25


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The OpenAPI schema of an app over the bundled data, over ASGI.

    Schemathesis' ASGI client always calls itself `testserver`, so this app allows that host
    (the session's app answers only for the loopback names, like a default install).
    """
    settings = Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index"),
                        allowed_hosts=schemathesis_asgi.HOST)
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(settings))


def _operations(api_schema: Any) -> list[Any]:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert operations, "the schema lists no operation"
    return operations


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=lambda m: m.value)
def test_no_operation_answers_a_server_error(api_schema: Any, mode: GenerationMode) -> None:
    failures: list[str] = []
    tried = 0
    for operation in _operations(api_schema):

        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy(generation_mode=mode))
        def call(case: schemathesis.Case[Any]) -> None:
            case.call_and_validate(checks=[not_a_server_error])

        try:
            call()
            tried += 1
        except Unsatisfiable:
            # Negative mode on an operation whose every input is valid (no query parameters,
            # string path parameters): there is nothing invalid to send.
            assert mode is GenerationMode.NEGATIVE, f"{operation.method} {operation.path}"
        except Exception as exc:  # collect every operation's failure, then report them all
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}")
    assert not failures, "\n\n".join(failures)
    assert tried, "no operation could be exercised"


def test_the_schema_lists_the_api(api_schema: Any) -> None:
    paths = {operation.path for operation in _operations(api_schema)}
    assert {"/api/sources", "/api/sources/{source_id}", "/api/entries/{entry_id}",
            "/api/search", "/api/suggest"} <= paths


def test_operation_ids_are_unique(client: TestClient) -> None:
    # GET and HEAD once shared a route and so an operationId: invalid OpenAPI, and a warning
    # that made /openapi.json a 500 under filterwarnings=error.
    app: Any = client.app
    app.openapi_schema = None  # build it afresh
    paths = app.openapi()["paths"]
    ids = Counter(op["operationId"] for item in paths.values() for op in item.values()
                  if isinstance(op, dict) and "operationId" in op)
    assert not [i for i, n in ids.items() if n > 1]
