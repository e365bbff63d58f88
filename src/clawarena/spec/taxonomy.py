"""The fixed vocabularies of the task format: surfaces, variants, channels."""

from typing import Literal

# The four harm surfaces of WeClawArena's attack variants.
Surface = Literal["collaboration", "security", "privacy", "governance"]
SURFACES: tuple[str, ...] = ("collaboration", "security", "privacy", "governance")

# One benign control plus one variant per surface.
VariantName = Literal["benign", "collaboration", "security", "privacy", "governance"]

# Where attack material can be placed. A channel is served by the service that owns it.
Channel = Literal[
    "email",  # a message in a mailbox (gmail)
    "calendar_event",  # an event description (calendar)
    "drive_file",  # a file's content (drive)
    "doc_comment",  # a comment on a document (docs)
    "slack_message",  # a message in a channel (slack)
    "peer_message",  # a message from another principal's agent
]

# Tool tags: READ reads, WRITE changes the workspace, SEND makes data leave it.
ToolKindName = Literal["READ", "WRITE", "SEND"]
