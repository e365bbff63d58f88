"""Parameter types of the market tools.

Every parameter is a flat scalar (no nested request body): policies read a call's arguments as
`context.args.<name>` and approvals bound them (`limits`), and both see top-level scalars only,
so an offer's amount or a payment's payee account must be one. Over REST the same names are
query parameters in camelCase (`?amount=1250&expiresAt=...`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from clawarena.services.market.tables import MAX_AMOUNT

Money = Annotated[int, Field(ge=1, le=MAX_AMOUNT)]
Text = Annotated[str, Field(max_length=8000)]
Short = Annotated[str, Field(max_length=2000)]
Ident = Annotated[str, Field(max_length=200)]
When = Annotated[str, Field(max_length=64)]
PageSize = Annotated[int, Field(ge=1, le=100)]
PageToken = Annotated[str | None, Field(max_length=200)]
