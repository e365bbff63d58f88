"""Compose the services of one world into one ASGI app on their real REST paths.

Routes are generated from the tools' REST bindings, so a REST call and an
agent's tool call run the same function through the same gateway. `/_admin`
(state, diff, ledger, snapshot, restore) takes the admin token, which agents
never hold.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from clawarena.gateway import Gateway, ToolOutcome
from clawarena.services.base import Service
from clawarena.tools.core import Tool
from clawarena.world.store import WorldStore

# Parameters every Google client may send that carry no meaning for the operation.
GOOGLE_GLOBAL_PARAMS = frozenset({"alt", "fields", "prettyPrint", "key", "quotaUser", "uploadType", "access_token", "oauth_token", "$.xgafv", "callback", "upload_protocol"})


def google_error(status: int, message: str, reason: str) -> JSONResponse:
    canonical = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "ALREADY_EXISTS"}
    body = {"error": {"code": status, "message": message, "status": canonical.get(status, "UNKNOWN"),
                      "errors": [{"message": message, "domain": "global", "reason": reason or "backendError"}]}}  # fmt: skip
    return JSONResponse(body, status_code=status)


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is list:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_is_list(a) for a in typing.get_args(annotation))
    return False


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else ""


class WorldApp:
    """The REST face of one world."""

    def __init__(self, gateway: Gateway, services: list[Service]):
        self.gateway = gateway
        self.world = gateway.world
        self.snapshots: dict[str, bytes] = {}
        self.app = FastAPI(title="clawarena world", docs_url="/docs", openapi_url="/openapi.json")
        self._admin_routes()
        for service in services:
            for tool in service.tools:
                if tool.rest is not None:
                    self._route(tool)

    # ---- service routes -----------------------------------------------------------
    def _collect_args(self, tool: Tool, request: Request, body: Any) -> dict[str, Any]:
        fields = tool.args_model.model_fields
        by_alias = {(f.alias or name): name for name, f in fields.items()}
        args: dict[str, Any] = dict(request.path_params)
        for key in request.query_params.keys():
            if key in GOOGLE_GLOBAL_PARAMS:
                continue
            values = request.query_params.getlist(key)
            name = by_alias.get(key, key)
            field = fields.get(name)
            args[key] = values if field is not None and _is_list(field.annotation) else values[-1]
        if tool.rest and tool.rest.body and body is not None:
            args[tool.rest.body] = body
        return args

    def _route(self, tool: Tool) -> None:
        binding = tool.rest
        assert binding is not None

        async def handler(request: Request) -> Response:
            principal = self.world.directory.by_token(_bearer(request))
            if principal is None:
                return google_error(401, "Request had invalid authentication credentials.", "authError")
            body = None
            if binding.body:
                raw = await request.body()
                if raw:
                    try:
                        body = await request.json()
                    except ValueError:
                        return google_error(400, "Invalid JSON payload received.", "parseError")
            outcome = self.gateway.call_as_principal(principal.id, tool.name, self._collect_args(tool, request, body))
            return self._respond(outcome, binding.status)

        self.app.add_api_route(binding.path, handler, methods=[binding.method], name=tool.name, include_in_schema=True)

    def _respond(self, outcome: ToolOutcome, status: int) -> Response:
        if not outcome.ok:
            return google_error(outcome.status, outcome.error or "error", outcome.reason)
        if status == 204:
            return Response(status_code=204)
        return JSONResponse(outcome.result, status_code=status)

    # ---- admin -------------------------------------------------------------------------
    def _admin_routes(self) -> None:
        app = self.app

        def authorized(request: Request) -> bool:
            return _bearer(request) == self.world.directory.admin_token

        def deny() -> JSONResponse:
            return google_error(401, "admin token required", "authError")

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
                return google_error(404, f"no snapshot {name!r}", "notFound")
            self.world.store = WorldStore.restore(self.snapshots[name], self.world.store.tables.values())
            return JSONResponse({"restored": name, "hash": self.world.state_hash()})

        @app.get("/health", include_in_schema=False)
        async def health() -> dict[str, str]:
            return {"status": "ok"}
