ARG BASE=python:3.12-slim
FROM ${BASE} AS build
# Build stage: a venv with the project's dependencies, and the search index built from the bundled
# data, so the runtime image starts serving in about a second.

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python3 -m venv /opt/venv

# The search is compiled to C (`python -m app compile`, about a third faster a search): what
# compiling needs and the base lacks (a C compiler; Python's headers, which Debian's python3
# has not), in this stage only. `compile --needs` runs on the bare interpreter (only the
# standard library, and only the three files it imports).
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /src
COPY app/__init__.py app/__main__.py app/native.py ./app/
# hadolint ignore=DL3008,SC2086
RUN needs=$(python3 -m app compile --needs) \
    && if [ -n "$needs" ]; then apt-get update \
       && apt-get install -y --no-install-recommends $needs \
       && rm -rf /var/lib/apt/lists/*; fi

# Dependencies come from pyproject.toml (`pip install .`); the list of them is kept, and what
# compiling needs (the native extra) leaves the venv again once the search is compiled. The
# project itself leaves it too: the image runs it from /app, the one copy, where it finds
# templates/, static/ and data/.
COPY pyproject.toml README.md ./
COPY app ./app
RUN /opt/venv/bin/pip install --no-cache-dir . \
    && /opt/venv/bin/pip freeze --all > /tmp/runtime-packages.txt \
    && /opt/venv/bin/pip install --no-cache-dir ".[native]" \
    && /opt/venv/bin/pip uninstall --yes rulesajeon

WORKDIR /app
COPY pyproject.toml ./
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY data ./data

# Compile the search (a failure fails the build), then drop what only compiling needed. Build the
# index at image build time (`index` also validates the data: broken data fails the build) and
# make it readable by the runtime user (it is built in a mkdtemp folder, mode 0700). Precompile
# the app's bytecode (the runtime user cannot write /app) and drop pip from the venv, which the
# runtime never needs.
ENV PYTHONPATH=/app RULES_INDEX_DIR=/app/var/index
RUN /opt/venv/bin/python -m app compile \
    && /opt/venv/bin/pip freeze --all | grep -vxFf /tmp/runtime-packages.txt \
       | xargs --no-run-if-empty /opt/venv/bin/pip uninstall --yes \
    && /opt/venv/bin/python -m app index \
    && chmod -R u=rwX,go=rX /app/var \
    && /opt/venv/bin/python -m compileall -q /app/app \
    && /opt/venv/bin/python -m pip uninstall --yes pip setuptools


FROM ${BASE} AS runtime
# Runtime stage: the venv and the app files, owned by root and read-only to the non-root user.

RUN useradd --system --no-log-init --uid 10001 --user-group --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin rules

COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
# The folder the server prepares each data version in for its workers (RULES_STATE_DIR, with
# RULES_WORKERS above 1): the runtime user's own, 0700. With a read-only root (compose.yaml) a
# tmpfs owned by that user is mounted over it.
RUN install -d -o 10001 -g 10001 -m 0700 /app/var/state

WORKDIR /app
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    RULES_HOST=0.0.0.0 \
    RULES_PORT=8000 \
    RULES_INDEX_DIR=/app/var/index \
    RULES_STATE_DIR=/app/var/state \
    RULES_PID_FILE=/tmp/rulesajeon.pid

# Numeric, so Kubernetes' runAsNonRoot can verify it: the "rules" user made above.
USER 10001:10001
EXPOSE 8000

# python:*-slim has no curl: ask /healthz with the standard library.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["/opt/venv/bin/python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('RULES_PORT', '8000') + '/healthz', timeout=4)"]

CMD ["/opt/venv/bin/python", "-m", "app", "serve"]
