"""Compose the services of one world into one ASGI app on their real REST paths.

Routes are generated from the tools' REST bindings, so a REST call and an
agent's tool call run the same function through the same gateway. The wire
style of each service (Google or Slack) reads requests and writes responses.
`/_admin` (state, diff, ledger, snapshot, restore) takes the admin token,
which agents never hold.

Bad input is the client's error in its API's own shape, never a 5xx: a body past
`max_body_bytes` is refused while it streams in (413), malformed JSON, forms and
uploads are refused by the wires (400, or Slack's `ok: false`), and an unknown
path or method answers in the shape of the API family its path belongs to.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException

from clawarena.gateway import Gateway
from clawarena.services.base import Service
from clawarena.server.inputs import DEFAULT_MAX_BODY_BYTES, BodyTooLarge, read_body, with_body
from clawarena.server.routing import BaseUrls, index_routes
from clawarena.server.wire import GoogleWire, JSONText, Wire, WireError, _bearer
from clawarena.server.wires import WIRES
from clawarena.tools.core import Tool
from clawarena.world.store import WorldStore


class WorldApp:
    """The REST face of one world."""

    def __init__(self, gateway: Gateway, services: list[Service], max_body_bytes: int = DEFAULT_MAX_BODY_BYTES):
        if max_body_bytes < 1:
            raise ValueError(f"max_body_bytes: must be at least 1, got {max_body_bytes}")
        self.gateway = gateway
        self.world = gateway.world
        self.max_body_bytes = max_body_bytes
        self.snapshots: dict[str, bytes] = {}
        self.app = FastAPI(title="clawarena world", docs_url="/docs", openapi_url="/openapi.json")
        self._base_urls = BaseUrls()
        self._wire_by_prefix: dict[str, Wire] = {}  # first path segment -> the wire of the API family there
        self._admin_routes()
        for service in services:
            wire = WIRES.get(service.error_style)
            for tool in service.tools:
                if tool.rest is not None:
                    self._route(tool, wire)
        self.app.add_exception_handler(HTTPException, self._http_error)
        self.routes = index_routes(self.app)  # over 200 routes: found by path segments, not one by one

    def _wire_for_path(self, path: str) -> Wire:
        return self._wire_by_prefix.get(path.lstrip("/").split("/", 1)[0], GoogleWire())

    async def _http_error(self, request: Request, exc: Exception) -> Response:
        """The router's own errors (unknown path, method not allowed) in the API family's error shape."""
        status = exc.status_code if isinstance(exc, HTTPException) else 400
        wire = self._wire_for_path(request.url.path)
        if status == 404:
            return wire.error(404, f"No such method or resource: {request.url.path}", "unknown_method")
        if status == 405:
            return wire.error(405, "Method not allowed for this path.", "method_not_allowed")
        return wire.error(status, str(getattr(exc, "detail", "") or "bad request"), "badRequest")

    def _route(self, tool: Tool, wire: Wire) -> None:
        binding = tool.rest
        assert binding is not None

        def make_handler(upload: bool):
            async def handler(request: Request) -> Response:
                try:  # always: an ASGI body may stream without Content-Length or Transfer-Encoding (HTTP/2)
                    request = with_body(request, await read_body(request, self.max_body_bytes))
                except BodyTooLarge as exc:
                    return wire.error(413, str(exc), "request_too_large")
                try:
                    principal = await wire.principal(request, self.world.directory)
                    if principal is None:
                        has_token = bool(_bearer(request))
                        return wire.error(401, "Request had invalid authentication credentials." if has_token else "not_authed", "invalid_auth" if has_token else "not_authed")
                    args = await wire.args(tool, request, upload)
                except WireError as exc:
                    return wire.error(exc.status, exc.message, exc.reason)
                except (HTTPException, MultiPartException):  # the form parser's refusal of a malformed body
                    return wire.error(400, "The form body could not be parsed.", "invalid_form_data")
                outcome = self.gateway.call_as_principal(principal.id, tool.name, args, base_url=self._base_urls.of(request.scope))
                return wire.respond(outcome, tool, request)

            return handler

        for path in (binding.path, binding.upload_path):
            if path:
                self._wire_by_prefix.setdefault(path.lstrip("/").split("/", 1)[0], wire)
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
            return JSONText({"hash": self.world.state_hash(), "tables": self.world.store.state()})

        @app.get("/_admin/diff", include_in_schema=False)
        async def diff(request: Request) -> Response:
            if not authorized(request):
                return deny()
            return JSONText(self.world.diff().model_dump(mode="json"))

        @app.get("/_admin/ledger", include_in_schema=False)
        async def ledger(request: Request) -> Response:
            if not authorized(request):
                return deny()
            return JSONText({"events": self.world.ledger.dump()})

        @app.post("/_admin/snapshot/{name}", include_in_schema=False)
        async def snapshot(name: str, request: Request) -> Response:
            if not authorized(request):
                return deny()
            self.snapshots[name] = self.world.store.snapshot()
            return JSONText({"snapshot": name, "hash": self.world.state_hash()})

        @app.post("/_admin/restore/{name}", include_in_schema=False)
        async def restore(name: str, request: Request) -> Response:
            if not authorized(request):
                return deny()
            if name not in self.snapshots:
                return google.error(404, f"no snapshot {name!r}", "notFound")
            self.world.store = WorldStore.restore(self.snapshots[name], self.world.store.tables.values())
            return JSONText({"restored": name, "hash": self.world.state_hash()})

        @app.get("/health", include_in_schema=False)
        async def health() -> dict[str, str]:
            return {"status": "ok"}
