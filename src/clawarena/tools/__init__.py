"""The agent-facing tool layer: typed functions tagged READ, WRITE or SEND."""

from clawarena.tools.core import RestBinding, Tool, ToolArgsError, ToolKind, WireOnly, select_tools, tool

__all__ = ["RestBinding", "Tool", "ToolArgsError", "ToolKind", "WireOnly", "select_tools", "tool"]
