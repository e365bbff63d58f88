"""Run several ASGI apps (the REST services, the MCP endpoints) with uvicorn on one event loop.

One loop on one background thread: requests to a world are handled one at a
time, whichever door they come through, so the world's SQLite store and ledger
never see two writers at once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn


@dataclass(frozen=True)
class AppSpec:
    app: Any
    port: int = 0
    lifespan: str = "off"  # "on" for apps that need startup (the MCP session managers)
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    uds: str | None = None  # listen on this unix socket instead of a port (a sandbox's only way out)


@dataclass
class LoopServers:
    """The running servers; `urls[i]` is where `specs[i]` listens."""

    servers: list[uvicorn.Server]
    thread: threading.Thread
    host: str
    ports: list[int | str]  # a unix socket's path in place of its port
    schemes: list[str]
    errors: list[BaseException] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        return [p if s == "unix" else f"{s}://{self.host}:{p}" for s, p in zip(self.schemes, self.ports)]

    def stop(self, timeout: float = 10) -> None:
        for s in self.servers:
            s.should_exit = True
        self.thread.join(timeout=timeout)


def start_on_one_loop(specs: list[AppSpec], host: str = "127.0.0.1", timeout: float = 30) -> LoopServers:
    """Start every app on its port (0 picks a free one) or unix socket; return once all sockets are
    bound. A unix socket's `urls` entry is its path."""
    servers = [
        uvicorn.Server(uvicorn.Config(s.app, host=host, port=s.port, log_level="warning", lifespan=s.lifespan,  # type: ignore[arg-type]
                                      ssl_certfile=s.ssl_certfile, ssl_keyfile=s.ssl_keyfile, uds=s.uds))
        for s in specs
    ]  # fmt: skip
    errors: list[BaseException] = []

    async def main() -> None:
        await asyncio.gather(*(s.serve() for s in servers))

    def run() -> None:
        try:
            # uvicorn's loop="auto": uvloop where it is installed (uvicorn[standard]), else asyncio's
            with asyncio.Runner(loop_factory=servers[0].config.get_loop_factory()) as runner:
                runner.run(main())
        except BaseException as exc:  # uvicorn exits with SystemExit when a port cannot be bound
            errors.append(exc)

    thread = threading.Thread(target=run, name="clawarena-servers", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not all(s.started for s in servers):
        if not thread.is_alive():
            for s in servers:
                s.should_exit = True
            ports = ", ".join(str(s.port) for s in specs)
            raise RuntimeError(f"could not start the servers on 127.0.0.1 (ports {ports}): is a port already in use?")
        if time.monotonic() > deadline:
            for s in servers:
                s.should_exit = True
            raise RuntimeError(f"servers did not start within {timeout:.0f} s")
        time.sleep(0.01)
    ports = [spec.uds or s.servers[0].sockets[0].getsockname()[1] for s, spec in zip(servers, specs)]
    schemes = ["unix" if s.uds else "https" if s.ssl_certfile else "http" for s in specs]
    return LoopServers(servers, thread, host, ports, schemes, errors)
