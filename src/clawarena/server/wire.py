"""Wire styles: how a family of APIs reads requests, authenticates and writes responses.

Google APIs: path + query + JSON body, Bearer token, `{"error": {...}}` bodies
with HTTP status codes, `fields` partial responses, media upload and download.
Slack Web API: POST or GET to /api/<method> with query, form or JSON args,
token in the header or a `token` field, HTTP 200 with `{"ok": false, "error"}`.
"""

from __future__ import annotations

import base64
import functools
import json
import types
import typing
from email import policy
from email.parser import BytesParser
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from clawarena.services.fields import apply_fields, parse_fields
from clawarena.server.inputs import BadJSON, check_embedded_json, parse_json
from clawarena.services.base import MEDIA_KEY
from clawarena.spec.models import PrincipalSpec
from clawarena.tools.core import Tool
from clawarena.world.principals import Directory

if TYPE_CHECKING:
    from clawarena.gateway import ToolOutcome

GOOGLE_GLOBAL_PARAMS = frozenset(
    {"alt", "fields", "prettyPrint", "key", "quotaUser", "uploadType", "access_token", "oauth_token", "$.xgafv", "callback", "upload_protocol", "userIp"}
)
CANONICAL_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                    409: "ALREADY_EXISTS", 410: "GONE", 412: "FAILED_PRECONDITION", 413: "INVALID_ARGUMENT",
                    429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}  # fmt: skip


class JSONText(JSONResponse):
    """A JSON response that survives any string: a lone surrogate (an agent's or a fixture's; UTF-8
    cannot encode it) goes out as its \\uXXXX escape, which JSON readers decode back to the same string."""

    def render(self, content: Any) -> bytes:
        return _ENCODE(content).encode("utf-8", "backslashreplace")


# json.dumps with options builds a new encoder per call: build it once
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class WireError(Exception):
    def __init__(self, status: int, message: str, reason: str):
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason


class Wire(Protocol):
    async def principal(self, request: Request, directory: Directory) -> PrincipalSpec | None: ...

    async def args(self, tool: Tool, request: Request, upload: bool) -> dict[str, Any]: ...

    def respond(self, outcome: ToolOutcome, tool: Tool, request: Request) -> Response: ...

    def error(self, status: int, message: str, reason: str) -> Response: ...


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else ""


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is list:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_is_list(a) for a in typing.get_args(annotation))
    return False


@functools.lru_cache(maxsize=1024)  # one entry per tool args model: a fixed set, known at start-up
def _list_params(args_model: type) -> frozenset[str]:
    """The query keys (aliases and names) whose field takes a list: repeated keys stay a list."""
    fields = args_model.model_fields  # type: ignore[attr-defined]
    by_alias = {(f.alias or name): name for name, f in fields.items()}
    keys = set(by_alias) | set(fields)
    return frozenset(k for k in keys if (f := fields.get(by_alias.get(k, k))) is not None and _is_list(f.annotation))


def _query_args(tool: Tool, request: Request, skip: frozenset[str]) -> dict[str, Any]:
    if not request.scope.get("query_string"):
        return {}
    lists = _list_params(tool.args_model)
    params = request.query_params
    out: dict[str, Any] = {}
    for key in params.keys():
        if key in skip:
            continue
        values = params.getlist(key)
        out[key] = values if key in lists else values[-1]
    return out


class GoogleWire:
    async def principal(self, request: Request, directory: Directory) -> PrincipalSpec | None:
        return directory.by_token(_bearer(request))

    async def args(self, tool: Tool, request: Request, upload: bool) -> dict[str, Any]:
        binding = tool.rest
        assert binding is not None
        args = dict(request.path_params)
        args.update(_query_args(tool, request, GOOGLE_GLOBAL_PARAMS))
        raw = await request.body()
        if upload and binding.media:
            body, media = self._parse_upload(request, raw)
            if body is not None and binding.body:
                args[binding.body] = body
            args[binding.media] = media
        elif raw and binding.body:
            args[binding.body] = _google_json(raw)
        return args

    @staticmethod
    def _parse_upload(request: Request, raw: bytes) -> tuple[Any, dict[str, Any]]:
        ctype = request.headers.get("content-type", "application/octet-stream")
        if ctype.lower().startswith("multipart/"):
            msg = BytesParser(policy=policy.HTTP).parsebytes(b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + raw)
            parts = list(msg.iter_parts()) if msg.is_multipart() else []
            if len(parts) < 2:
                raise WireError(400, "Multipart upload needs a metadata part and a media part.", "badContent")
            meta = _google_json(parts[0].get_payload(decode=True) or b"{}")
            media = parts[1]
            if media.get_content_maintype() == "message":  # message/rfc822: the parser nests it as a message
                inner = media.get_payload()
                data = inner[0].as_bytes() if isinstance(inner, list) and inner else bytes(str(inner), "utf-8")
            else:
                data = media.get_payload(decode=True) or b""
            return meta, {"mimeType": media.get_content_type(), "data": base64.b64encode(data).decode()}
        return None, {"mimeType": ctype.split(";")[0].strip(), "data": base64.b64encode(raw).decode()}

    def respond(self, outcome: ToolOutcome, tool: Tool, request: Request) -> Response:
        if not outcome.ok:
            return self.error(outcome.status, outcome.error or "error", outcome.reason)
        binding = tool.rest
        assert binding is not None
        result = outcome.result
        if isinstance(result, dict) and MEDIA_KEY in result:
            media = result[MEDIA_KEY]
            return Response(base64.b64decode(media["base64"]), media_type=media["mimeType"])
        if binding.status == 204 or result is None:
            return Response(status_code=204)
        fields = request.query_params.get("fields")
        if fields:
            try:
                result = apply_fields(result, parse_fields(fields))
            except ValueError as exc:
                return self.error(400, f"Invalid field selection {fields}: {exc}", "invalidParameter")
        return JSONText(result, status_code=binding.status)

    def error(self, status: int, message: str, reason: str) -> Response:
        body = {"error": {"code": status, "message": message, "status": CANONICAL_STATUS.get(status, "UNKNOWN"),
                          "errors": [{"message": message, "domain": "global", "reason": reason or "backendError"}]}}  # fmt: skip
        return JSONText(body, status_code=status)


class JsonWire(GoogleWire):
    """The domain services' wire: Google's paths, bearer tokens and error bodies, and a JSON object
    body whose keys are the arguments of a tool that has no `body` parameter (what a REST client
    of a plain JSON API sends). A key also given in the path or query is refused, naming it."""

    async def args(self, tool: Tool, request: Request, upload: bool) -> dict[str, Any]:
        binding = tool.rest
        assert binding is not None
        if binding.body or binding.media:
            return await super().args(tool, request, upload)
        args = dict(request.path_params)
        args.update(_query_args(tool, request, GOOGLE_GLOBAL_PARAMS))
        raw = await request.body()
        if raw.strip():
            body = _google_json(raw)
            if not isinstance(body, dict):
                raise WireError(400, "Invalid JSON payload received. The body must be a JSON object of the method's arguments.", "parseError")
            twice = sorted(set(body) & set(args))
            if twice:
                raise WireError(400, f"Invalid argument: {twice[0]!r} is given both in the URL and in the body", "invalidArgument")
            args.update(body)
        return args


def _google_json(raw: bytes) -> Any:
    try:
        return parse_json(raw)
    except BadJSON as exc:
        raise WireError(400, f"Invalid JSON payload received. {exc}.", "parseError") from None


class SlackWire:
    async def _form(self, request: Request) -> dict[str, Any]:
        ctype = request.headers.get("content-type", "").lower()
        raw = await request.body()
        if not raw:
            return {}
        if ctype.startswith("application/json"):
            try:
                data = parse_json(raw)
            except BadJSON:
                raise WireError(200, "invalid_json", "invalid_json") from None
            return data if isinstance(data, dict) else {}
        if ctype.startswith("application/x-www-form-urlencoded") or ctype.startswith("multipart/form-data"):
            try:
                form = await request.form()
            except (HTTPException, MultiPartException):  # a malformed multipart body, or too many parts
                raise WireError(200, "invalid_form_data", "invalid_form_data") from None
            out: dict[str, Any] = {}
            for key, value in form.multi_items():
                if hasattr(value, "read"):  # an uploaded file: bytes, as base64 with its name
                    content = await value.read()
                    out[key] = {"filename": value.filename, "data": base64.b64encode(content).decode()}
                else:
                    out[key] = value
            return out
        return {}

    async def principal(self, request: Request, directory: Directory) -> PrincipalSpec | None:
        token = _bearer(request) or request.query_params.get("token", "")
        if not token:
            token = str((await self._form(request)).get("token", ""))
        return directory.by_token(token)

    async def args(self, tool: Tool, request: Request, upload: bool) -> dict[str, Any]:
        merged: dict[str, Any] = dict(request.query_params)
        merged.update(await self._form(request))
        fields = tool.args_model.model_fields
        known = set(fields) | {f.alias for f in fields.values() if f.alias}
        # Slack ignores arguments it does not know; so does this wire (agents stay strict).
        args = {k: v for k, v in merged.items() if k in known and k != "token"}
        for name, value in args.items():
            if isinstance(value, str):
                try:  # `blocks`, `profile`, `users` may be JSON text that the service decodes itself
                    check_embedded_json(value)
                except BadJSON:
                    raise WireError(200, f"invalid_{name}" if name in ("blocks", "attachments") else "invalid_arguments", "") from None
        return args

    def respond(self, outcome: ToolOutcome, tool: Tool, request: Request) -> Response:
        if not outcome.ok:
            return self.error(outcome.status, outcome.error or "error", outcome.reason)
        result = outcome.result if isinstance(outcome.result, dict) else {}
        return JSONText({"ok": True, **result})

    def error(self, status: int, message: str, reason: str) -> Response:
        code = reason if reason and reason not in ("invalidArgument", "notFound", "forbidden", "backendError") else _slack_code(status, message)
        # Slack answers API errors with HTTP 200; a body past the size limit is refused by HTTP itself.
        return JSONText({"ok": False, "error": code}, status_code=413 if status == 413 else 200)


def _slack_code(status: int, message: str) -> str:
    if message and " " not in message:
        return message
    return {400: "invalid_arguments", 401: "invalid_auth", 403: "not_allowed_token_type", 404: "not_found"}.get(status, "internal_error")


