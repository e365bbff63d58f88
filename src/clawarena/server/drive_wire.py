"""The Google wire plus what Drive needs of it."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from clawarena.server.wire import GoogleWire, WireError
from clawarena.services.drive import FIELDS_REQUIRED
from clawarena.tools.core import Tool


class DriveWire(GoogleWire):
    """The Google wire plus what Drive needs of it: `alt=media` reaches tools that declare `alt`,
    and the methods Drive serves only with a `fields` selector say so.

    (Workaround inside this package: the shared GoogleWire drops `alt` before the tool sees it.)
    """

    async def args(self, tool: Tool, request: Request, upload: bool) -> dict[str, Any]:
        if tool.name in FIELDS_REQUIRED and not request.query_params.get("fields"):
            raise WireError(400, "The 'fields' parameter is required for this method.", "required")
        args = await super().args(tool, request, upload)
        if "alt" in tool.args_model.model_fields and "alt" in request.query_params:
            args["alt"] = request.query_params["alt"]
        return args


