"""Opaque page tokens shared by every service (`pageToken`/`nextPageToken`, Slack `cursor`)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TypeVar

from clawarena.services.base import invalid

T = TypeVar("T")


def encode_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def decode_token(token: str) -> int:
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        kind, _, value = text.partition(":")
        if kind != "o" or not value.isdigit():
            raise ValueError
        return int(value)
    except ValueError:
        raise invalid("Invalid page token") from None


def page(rows: Sequence[T], token: str | None, size: int) -> tuple[list[T], str | None]:
    """One page of `rows` and the token of the next page (None on the last page)."""
    start = decode_token(token) if token else 0
    end = start + size
    return list(rows[start:end]), (encode_token(end) if end < len(rows) else None)
