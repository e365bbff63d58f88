"""The Slack wire, extended for the v2 file upload flow (a workaround inside this package).

`files_upload_v2` in slack_sdk asks `files.getUploadURLExternal` for an absolute
`upload_url`, then POSTs the raw bytes there with urllib: no Authorization
header, and `Content-Type: application/x-www-form-urlencoded` (urllib's
default). The shared `SlackWire` cannot serve that: it needs a token, parses the
body as a form, and no tool learns the server's own address. This subclass
adds two things and otherwise behaves exactly like `SlackWire`:

1. A tool whose binding sets `media` gets the raw request body as
   `{"mimeType", "data" (base64)}`; path and query parameters are passed too.
2. An upload URL carries `sig` (a hash of the uploader's token and the file id,
   never the token): on `/api/_upload/...` it identifies the uploader.
(The server's own base URL reaches tools as `ServiceContext.base_url`, never as an
argument a caller could set.)

It also rewinds uploaded form files before reading them: the shared wire reads
the form twice when the token travels in a multipart body.

A required argument that is absent answers as Slack does: HTTP 200,
`invalid_arguments`, and one `[ERROR] missing required field: <name>` per
argument in `response_metadata.messages`. One that is present but empty
(`channel=`) reaches the method, which answers its own error
(`channel_not_found`, ...), as real Slack does.
"""

from __future__ import annotations

import base64
import hmac
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from clawarena.server.wire import SlackWire
from clawarena.services.slack.uploads import UPLOAD_PREFIX, upload_signature
from clawarena.spec.models import PrincipalSpec
from clawarena.tools.core import Tool
from clawarena.world.principals import Directory

if TYPE_CHECKING:
    from clawarena.gateway import ToolOutcome


class SlackServiceWire(SlackWire):
    async def _form(self, request: Request) -> dict[str, Any]:
        ctype = request.headers.get("content-type", "").lower()
        if ctype.startswith("multipart/form-data"):
            await request.body()  # cache the body first: the form is then parsed from it
            form = await request.form()
            for _key, value in form.multi_items():
                if hasattr(value, "seek"):
                    await value.seek(0)
        return await super()._form(request)

    async def principal(self, request: Request, directory: Directory) -> PrincipalSpec | None:
        if request.url.path.startswith(UPLOAD_PREFIX):
            sig = request.query_params.get("sig", "")
            file_id = request.url.path[len(UPLOAD_PREFIX):].split("/")[0]
            for pid, token in sorted(directory.tokens.items()):
                if sig and hmac.compare_digest(upload_signature(token, file_id), sig):
                    return directory.principals[pid]
            if not sig:
                return await super().principal(request, directory)
            return None
        return await super().principal(request, directory)

    async def args(self, tool: Tool, request: Request, upload: bool) -> dict[str, Any]:
        binding = tool.rest
        assert binding is not None
        fields = tool.args_model.model_fields
        if binding.media:
            args: dict[str, Any] = {k: v for k, v in request.query_params.items() if k in fields and k not in ("token", "sig")}
            args.update(request.path_params)
            raw = await request.body()
            ctype = request.headers.get("content-type", "application/octet-stream").split(";")[0].strip()
            args[binding.media] = {"mimeType": ctype, "data": base64.b64encode(raw).decode()}
        else:
            args = await super().args(tool, request, upload)
        request.state.slack_missing = missing_required(tool, args)
        return args

    def respond(self, outcome: ToolOutcome, tool: Tool, request: Request) -> Response:
        missing = getattr(request.state, "slack_missing", [])
        if not outcome.ok and outcome.status == 400 and missing:  # the tool refused its arguments
            messages = [f"[ERROR] missing required field: {name}" for name in missing]
            return JSONResponse({"ok": False, "error": "invalid_arguments", "response_metadata": {"messages": messages}})
        return super().respond(outcome, tool, request)


def missing_required(tool: Tool, args: dict[str, Any]) -> list[str]:
    """The tool's required arguments absent from `args` (under their name or their wire alias)."""
    fields = tool.args_model.model_fields
    return [name for name, f in fields.items() if f.is_required() and name not in args and (f.alias or name) not in args]
