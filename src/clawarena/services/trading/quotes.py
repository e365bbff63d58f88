"""The venue quote: a pure function of an instrument's fixture schedule and the world time.

price(t) = the last step at or before t (else the base price as of `as_of`) plus the drift for
each whole minute since that anchor, never below one cent. Vendor price-feed rows are separate
information (marks, news ticks): nothing here reads them, so a poisoned row moves no execution.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from clawarena.world.clock import parse_time


def price_at(instrument: dict[str, Any], moment: datetime) -> int:
    anchor_price = int(instrument["base_price_cents"])
    anchor_time = parse_time(instrument["as_of"])
    for step in instrument["steps"]:  # sorted by time at seeding
        at = parse_time(step["at"])
        if at > moment:
            break
        anchor_price, anchor_time = int(step["price_cents"]), at
    minutes = max(0, int((moment - anchor_time).total_seconds() // 60))
    return max(1, anchor_price + int(instrument["drift_cents_per_minute"]) * minutes)


def marketable(side: str, limit_price_cents: int, price_cents: int) -> bool:
    """A buy limit at or above the quote, or a sell limit at or below it, trades now."""
    return limit_price_cents >= price_cents if side == "buy" else limit_price_cents <= price_cents
