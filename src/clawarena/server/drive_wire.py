"""The Google wire plus what Drive needs of it."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from clawarena.server.wire import GoogleWire, WireError
from clawarena.services.drive.partial import FIELDS_REQUIRED
from clawarena.tools.core import Tool


class DriveWire(GoogleWire):
    """The Google wire plus what Drive needs of it: `alt=media` reaches tools that declare `alt`,
    `fields` reaches tools that declare it (they apply Drive's default partial response
    without it; see services/drive/partial.py), and the methods Drive serves only with a
    `fields` selector say so.

    (The shared GoogleWire keeps `alt` and `fields` from the tools, as the other Google APIs need.)
    """

    async def args(self, tool: Tool, request: Request, upload: bool) -> dict[str, Any]:
        if tool.name in FIELDS_REQUIRED and not request.query_params.get("fields"):
            raise WireError(400, "The 'fields' parameter is required for this method.", "required")
        args = await super().args(tool, request, upload)
        declared = tool.args_model.model_fields
        for name in ("alt", "fields"):
            if name in declared and request.query_params.get(name):
                args[name] = request.query_params[name]
        return args
