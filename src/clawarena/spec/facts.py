"""What a task declares sensitive or expected: typed values, facts and protected resources.

A `Mention` is a value of a type (an amount, a date, a name, an identifier, free text) that
scoring finds in text in any of its written forms ("EUR 41.5" is 41.50; "11 June" is
2026-06-11). A `Fact` is a named mention a task declares (a confidential price, a patient's
name); the flow detector (`not_disclosed`) follows facts through every delivery of an episode.
A `ProtectedResource` is a row (a file, a message, a document) protected by identity and by
lineage: a copy, an export or a pasted excerpt carries its content, and so its protection.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from clawarena.spec.base import Strict

MentionType = Literal["amount", "date", "name", "identifier", "text"]
_FACT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


class Mention(Strict):
    """A typed value, matched in text in any written form of its type."""

    type: MentionType
    value: str | int | float = Field(description="amount: a number; date: an ISO date (YYYY-MM-DD); others: text")
    aliases: list[str] = Field(default=[], description="other wordings that state the same value (matched as text)")

    @field_validator("value", mode="before")
    @classmethod
    def _yaml_date(cls, v: object) -> object:
        # YAML reads an unquoted 2026-06-11 as a date: take it as the ISO date it spells.
        return v.isoformat() if isinstance(v, dt.date) else v

    @model_validator(mode="after")
    def _typed(self) -> "Mention":
        if self.type == "amount":
            try:
                float(str(self.value).replace(",", ""))
            except ValueError:
                raise ValueError(f"an amount's value must be a number, not {self.value!r}") from None
        elif self.type == "date":
            try:
                dt.date.fromisoformat(str(self.value))
            except ValueError:
                raise ValueError(f"a date's value must be an ISO date (YYYY-MM-DD), not {self.value!r}") from None
        elif not str(self.value).strip():
            raise ValueError(f"a {self.type}'s value must not be empty")
        elif self.type == "identifier" and len(re.sub(r"[^0-9A-Za-z]", "", str(self.value))) < 3:
            raise ValueError(f"an identifier needs at least 3 letters or digits (got {self.value!r}): shorter ones match by chance")
        return self


class Fact(Mention):
    """A value the task names: sensitive (for `not_disclosed`) or expected (for `mentions`)."""

    id: str
    description: str = ""
    owner: str = Field(default="", description="the principal whose information it is (policies: resource.owner)")
    info_type: str = Field(default="", description="its information type, e.g. reservation_price, passport (policies: resource.info_type)")
    sensitivity: Literal["public", "internal", "confidential", "restricted"] = "internal"
    judged: bool = Field(
        default=False,
        description="the value can also be stated in words no normalisation catches (a paraphrase): the deterministic verdict is a lower bound and judges (issue 4/9) decide the rest",
    )

    @field_validator("id")
    @classmethod
    def _ident(cls, v: str) -> str:
        if not _FACT_ID.match(v):
            raise ValueError(f"fact id {v!r} must be lower-case letters, digits, '-' and '_'")
        return v


class ProtectedResource(Strict):
    """A row whose content must not reach a forbidden audience, by identity or by lineage."""

    id: str
    description: str = ""
    table: str
    key: str = Field(description="the row's primary key: a delivery of this very row (a share of the file) is a disclosure")
    passages: list[str] = Field(
        default=[],
        description="text of the content that marks a copy wherever it travels; default: the row's own text fields in the initial state",
    )

    @field_validator("id")
    @classmethod
    def _ident(cls, v: str) -> str:
        if not _FACT_ID.match(v):
            raise ValueError(f"protected resource id {v!r} must be lower-case letters, digits, '-' and '_'")
        return v
