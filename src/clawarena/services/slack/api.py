"""`@method`: one Slack Web API method = one tool named slack_<family>_<method> on POST|GET /api/<method>."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clawarena.tools.core import RestBinding, Tool, ToolKind, tool

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def tool_name(method: str) -> str:
    """'chat.postMessage' -> 'slack_chat_post_message'; 'files.getUploadURLExternal' -> 'slack_files_get_upload_url_external'."""
    parts = [_CAMEL.sub("_", part).lower() for part in method.split(".")]
    return "slack_" + "_".join(parts)


def method(kind: ToolKind, name: str) -> Callable[[Callable[..., Any]], Tool]:
    return tool(kind, name=tool_name(name), rest=RestBinding("POST", f"/api/{name}", methods=("GET",)))
