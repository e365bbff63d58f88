"""Compose the services of one world into one ASGI app on their real REST paths.

Routes are generated from the tools' REST bindings, so a REST call and an
agent's tool call run the same function through the same gateway. The wire
style of each service (Google or Slack) reads requests and writes responses.
`/_admin` (state, diff, ledger, snapshot, restore) takes the admin token,
which agents never hold.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from clawarena.gateway import Gateway
from clawarena.services.base import Service
from clawarena.server.wire import GoogleWire, Wire, WireError, _bearer
from clawarena.server.wires import WIRES
from clawarena.tools.core import Tool
from clawarena.world.store import WorldStore


class WorldApp:
    """The REST face of one world."""

    def __init__(self, gateway: Gateway, services: list[Service]):
        self.gateway = gateway
        self.world = gateway.world
        self.snapshots: dict[str, bytes] = {}
        self.app = FastAPI(title="clawarena world", docs_url="/docs", openapi_url="/openapi.json")
        self._admin_routes()
        for service in services:
            wire = WIRES.get(service.error_style)
            for tool in service.tools:
                if tool.rest is not None:
                    self._route(tool, wire)

    def _route(self, tool: Tool, wire: Wire) -> None:
        binding = tool.rest
        assert binding is not None

        def make_handler(upload: bool):
            async def handler(request: Request) -> Response:
                principal = await wire.principal(request, self.world.directory)
                if principal is None:
                    has_token = bool(_bearer(request))
                    return wire.error(401, "Request had invalid authentication credentials." if has_token else "not_authed", "invalid_auth" if has_token else "not_authed")
                try:
                    args = await wire.args(tool, request, upload)
                except WireError as exc:
                    return wire.error(exc.status, exc.message, exc.reason)
                outcome = self.gateway.call_as_principal(principal.id, tool.name, args, base_url=str(request.base_url).rstrip("/"))
                return wire.respond(outcome, tool, request)

            return handler

        methods = [binding.method, *binding.methods]
        self.app.add_api_route(binding.path, make_handler(False), methods=methods, name=tool.name)
        if binding.upload_path:
            self.app.add_api_route(binding.upload_path, make_handler(True), methods=[binding.method], name=f"{tool.name}.upload")

    # ---- admin -------------------------------------------------------------------------
    def _admin_routes(self) -> None:
        app = self.app
        google = GoogleWire()

        def authorized(request: Request) -> bool:
            return self.world.directory.is_admin(_bearer(request))

        def deny() -> Response:
            return google.error(401, "admin token required", "authError")

        @app.get("/_admin/state", include_in_schema=False)
        async def state(request: Request) -> Response:
            if not authorized(request):
                return deny()
            return JSONResponse({"hash": self.world.state_hash(), "tables": self.world.store.state()})

        @app.get("/_admin/diff", include_in_schema=False)
        async def diff(request: Request) -> Response:
            if not authorized(request):
                return deny()
            return JSONResponse(self.world.diff().model_dump(mode="json"))

        @app.get("/_admin/ledger", include_in_schema=False)
        async def ledger(request: Request) -> Response:
            if not authorized(request):
                return deny()
            return JSONResponse({"events": self.world.ledger.dump()})

        @app.post("/_admin/snapshot/{name}", include_in_schema=False)
        async def snapshot(name: str, request: Request) -> Response:
            if not authorized(request):
                return deny()
            self.snapshots[name] = self.world.store.snapshot()
            return JSONResponse({"snapshot": name, "hash": self.world.state_hash()})

        @app.post("/_admin/restore/{name}", include_in_schema=False)
        async def restore(name: str, request: Request) -> Response:
            if not authorized(request):
                return deny()
            if name not in self.snapshots:
                return google.error(404, f"no snapshot {name!r}", "notFound")
            self.world.store = WorldStore.restore(self.snapshots[name], self.world.store.tables.values())
            return JSONResponse({"restored": name, "hash": self.world.state_hash()})

        @app.get("/health", include_in_schema=False)
        async def health() -> dict[str, str]:
            return {"status": "ok"}
