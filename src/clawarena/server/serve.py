"""Run a world's ASGI app with uvicorn on 127.0.0.1, in the foreground or a background thread."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import uvicorn


@dataclass
class RunningServer:
    server: uvicorn.Server
    thread: threading.Thread
    host: str
    port: int
    scheme: str = "http"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_in_thread(app, port: int = 0, host: str = "127.0.0.1", ssl_certfile: str | None = None, ssl_keyfile: str | None = None) -> RunningServer:
    """Start uvicorn on a thread; returns once the socket is bound (port 0 picks a free port)."""
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off",
                            ssl_certfile=ssl_certfile, ssl_keyfile=ssl_keyfile,
                            timeout_graceful_shutdown=1)  # a client's idle keep-alive must not hold up stop()  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="clawarena-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:  # polls the server's own readiness flag
        if not thread.is_alive():
            raise RuntimeError("server thread exited before it started")
        if time.monotonic() > deadline:
            raise RuntimeError("server did not start within 30 s")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    return RunningServer(server, thread, host, bound, "https" if ssl_certfile else "http")
