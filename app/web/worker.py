"""One server worker process of several (`app.web.server`'s supervisor starts them).

uvicorn's worker, with two changes that keep a reload from taking CPU from the workers that
serve meanwhile (bench.attack's reload phase):

* **Everything a worker loads, it loads at a lower priority** (`background.at_low_priority`):
  the HTTP protocol and the app, with all their imports, are loaded before the server starts,
  in the low-priority thread. Left to uvicorn they were loaded at full priority: the protocol
  class, handed over as a class, was imported while the worker was being unpickled (half a
  second of imports: the protocol imports the app's modules), and the app inside the event
  loop's start.
* **A worker that has shut down exits at once** (`os._exit` once its log lines are written):
  tearing down a worker's heap (the corpus, the index, the answers) took about 100 ms of CPU
  at full priority, at the moment the reload's next worker was starting.

This module is imported while the worker is unpickled, before anything is lowered: it imports
nothing heavy.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

from uvicorn.supervisors.multiprocess import Process

from app.web.background import at_low_priority

__all__ = ["PROTOCOL", "Worker"]

#: The HTTP protocol, named for uvicorn to import (`Config.load`), not handed over as a class.
PROTOCOL = "app.web.protocol:BoundedHttpToolsProtocol"


class Worker(Process):
    """A worker process that loads at a lower priority and exits without tearing down."""

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover
        # Runs in the worker. It answers the supervisor's pings from the start (not ready yet),
        # as uvicorn's does.
        threading.Thread(target=self.always_pong, daemon=True).start()
        at_low_priority(self.config.load)
        self.server.run(sockets)
        # The server has finished (its connections are closed and its lifespan ended): what
        # is left is freeing memory the process is about to give back whole.
        logging.shutdown()
        os._exit(0)
