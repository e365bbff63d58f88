"""The gateway: the single door between agents (or REST and MCP clients) and the world.

`core` resolves the actor, checks the tool is the agent's, decides the call and the flows it
makes with the task's policies (`governance`), runs the service function, and records every
step in the ledger; `network` routes peer messages and approvals between principals; `peer`
holds the gateway's own tools.
"""

from clawarena.gateway.core import Gateway, GatewayOptions, ToolFault, ToolOutcome
from clawarena.gateway.peer import GATEWAY_TOOLS, PeerContext, read_skill

__all__ = ["GATEWAY_TOOLS", "Gateway", "GatewayOptions", "PeerContext", "ToolFault", "ToolOutcome", "read_skill"]
