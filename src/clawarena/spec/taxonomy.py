"""The fixed vocabularies of the task format: surfaces, variants, tool tags."""

from typing import Literal

# The four harm surfaces of WeClawArena's attack variants.
Surface = Literal["collaboration", "security", "privacy", "governance"]
SURFACES: tuple[str, ...] = ("collaboration", "security", "privacy", "governance")

# One benign control plus one variant per surface.
VariantName = Literal["benign", "collaboration", "security", "privacy", "governance"]

# Attack channels are not a fixed list: each is declared, with its placement model, by the
# service that serves it (spec/catalog.py).

# Tool tags: READ reads, WRITE changes the workspace, SEND makes data leave it.
ToolKindName = Literal["READ", "WRITE", "SEND"]
