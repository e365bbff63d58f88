"""Slack's search language over messages and files.

Terms are ANDed; `-term` negates. Words match case-insensitively anywhere in the
text (`*` is a wildcard), "quoted phrases" match as written. Modifiers:
`in:#channel`, `in:@user` (your DM with them), `from:@user` / `from:me`,
`to:@user` / `to:me` (DMs), `before:` / `after:` / `on:` / `during:` (YYYY-MM-DD,
YYYY-MM, YYYY, today, yesterday), `has:link`, `has:pin`, `has:reaction`,
`has::emoji:`, `has:file`, `is:thread`. Only conversations the searcher can
read are searched: public channels, and private channels and DMs they are in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from clawarena.services.slack.core import IM, MPIM, PRIVATE, PUBLIC, Slack, blocks_text

_TOKEN = re.compile(r'-?[a-z_]+:"[^"]*"|-?"[^"]*"|\S+', re.I)
_MODIFIERS = {"in", "from", "to", "before", "after", "on", "during", "has", "is", "with"}

Pred = Callable[[dict[str, Any], dict[str, Any]], bool]


@dataclass
class Query:
    preds: list[Pred] = field(default_factory=list)
    words: list[re.Pattern[str]] = field(default_factory=list)  # positive text terms, for scoring

    def match(self, item: dict[str, Any], chan: dict[str, Any]) -> bool:
        return all(p(item, chan) for p in self.preds)

    def score(self, text: str) -> int:
        return sum(len(w.findall(text)) for w in self.words)


def _day_range(value: str, now: int) -> tuple[int, int] | None:
    """[start, end) Unix seconds for a date-ish value."""
    today = datetime.fromtimestamp(now, tz=timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    v = value.lower()
    if v == "today":
        return int(today.timestamp()), int((today + timedelta(days=1)).timestamp())
    if v == "yesterday":
        return int((today - timedelta(days=1)).timestamp()), int(today.timestamp())
    for fmt, step in (("%Y-%m-%d", "day"), ("%Y/%m/%d", "day"), ("%Y-%m", "month"), ("%Y", "year")):
        try:
            start = datetime.strptime(value, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
        if step == "day":
            end = start + timedelta(days=1)
        elif step == "month":
            end = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
        else:
            end = start.replace(year=start.year + 1)
        return int(start.timestamp()), int(end.timestamp())
    return None


def _word_pattern(term: str) -> re.Pattern[str]:
    parts = [re.escape(p) for p in term.split("*")]
    return re.compile(".*?".join(parts) if len(parts) > 1 else parts[0], re.I)


def _strip_ref(value: str) -> str:
    """'<@U123|bob>' -> 'U123'; '<#C123|general>' -> 'C123'; '#general' -> 'general'; '@bob' -> 'bob'."""
    m = re.fullmatch(r"<[@#]([A-Z0-9]+)(?:\|[^>]*)?>", value)
    if m:
        return m.group(1)
    return value.lstrip("#@")


def compile_query(s: Slack, query: str, text_of: Callable[[dict[str, Any]], str], time_of: Callable[[dict[str, Any]], int],
                  user_of: Callable[[dict[str, Any]], str]) -> Query:  # fmt: skip
    q = Query()
    for raw in _TOKEN.findall(query):
        neg = raw.startswith("-") and len(raw) > 1
        tok = raw[1:] if neg else raw
        pred: Pred | None = None
        key, sep, value = tok.partition(":")
        if sep and key.lower() in _MODIFIERS and value:
            pred = _modifier(s, key.lower(), value.strip('"'), text_of, time_of, user_of)
        if pred is None:
            phrase = tok.strip('"')
            if not phrase:
                continue
            pattern = re.compile(re.escape(phrase), re.I) if tok.startswith('"') else _word_pattern(phrase)
            if not neg:
                q.words.append(pattern)
            pred = (lambda pat: lambda item, chan: bool(pat.search(text_of(item))))(pattern)
        q.preds.append((lambda p: lambda item, chan: not p(item, chan))(pred) if neg else pred)
    return q


def _modifier(s: Slack, key: str, value: str, text_of, time_of, user_of) -> Pred | None:  # noqa: ANN001
    ref = _strip_ref(value)
    if key == "in":
        if value.startswith("@") or value.startswith("<@"):
            user = s.find_user(ref)
            uid = user["id"] if user else None
            return lambda item, chan: chan["kind"] == IM and uid is not None and s.is_member(chan["id"], uid)
        wanted = ref.lower()
        return lambda item, chan: chan["id"] == ref or (chan["kind"] in (PUBLIC, PRIVATE) and chan["name"].lower() == wanted)
    if key == "from":
        user = s.me_row if ref.lower() == "me" else s.find_user(ref)
        uid = user["id"] if user else None
        return lambda item, chan: uid is not None and user_of(item) == uid
    if key == "to":
        user = s.me_row if ref.lower() == "me" else s.find_user(ref)
        uid = user["id"] if user else None
        return lambda item, chan: (uid is not None and chan["kind"] in (IM, MPIM) and user_of(item) != uid
                                   and s.is_member(chan["id"], uid))  # fmt: skip
    if key in ("before", "after", "on", "during"):
        span = _day_range(value, s.now)
        if span is None:
            return None
        start, end = span
        if key == "before":
            return lambda item, chan: time_of(item) < start
        if key == "after":
            return lambda item, chan: time_of(item) >= end
        return lambda item, chan: start <= time_of(item) < end
    if key == "has":
        v = value.lower()
        if v == "link":
            return lambda item, chan: bool(re.search(r"https?://", text_of(item)))
        if v == "pin":
            return lambda item, chan: "ts" in item and bool(s.store.get("slack_pins", {"channel": chan["id"], "ts": item["ts"]}))
        if v in ("reaction", "reactions"):
            return lambda item, chan: "ts" in item and bool(s.reactions_of(chan["id"], item["ts"]))
        if v in ("file", "files"):
            return lambda item, chan: bool(item.get("files"))
        if v.startswith(":") and v.endswith(":") and len(v) > 2:
            emoji = v.strip(":")
            return lambda item, chan: "ts" in item and any(r["name"] == emoji for r in s.reactions_of(chan["id"], item["ts"]))
        return None
    if key == "is" and value.lower() == "thread":
        return lambda item, chan: "ts" in item and bool(item.get("thread_ts") or s.replies_of(chan["id"], item["ts"]))
    return None


def message_text(row: dict[str, Any]) -> str:
    text = row["text"]
    if row["blocks"]:
        text += "\n" + blocks_text(row["blocks"])
    if row["attachments"]:
        text += "\n" + blocks_text(row["attachments"])
    return text


def search_channel(s: Slack, chan: dict[str, Any]) -> dict[str, Any]:
    name = chan["name"]
    if chan["kind"] == IM:
        name = next((u for u in s.members(chan["id"]) if u != s.me), s.me)
    return {
        "id": chan["id"], "is_channel": chan["kind"] in (PUBLIC, PRIVATE), "is_group": chan["kind"] == MPIM,
        "is_im": chan["kind"] == IM, "is_mpim": chan["kind"] == MPIM, "is_shared": False, "is_org_shared": False,
        "is_ext_shared": False, "is_private": chan["kind"] != PUBLIC, "is_pending_ext_shared": False,
        "pending_shared": [], "name": name,
    }  # fmt: skip


def readable_channels(s: Slack) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in s.store.select("slack_channels") if s.can_see(c)}


def paging(total: int, count: int, page: int) -> tuple[int, int, dict[str, Any]]:
    pages = max(1, -(-total // count))
    page = min(max(page, 1), pages)
    start = (page - 1) * count
    first = start + 1 if total else 0
    last = min(start + count, total)
    return start, page, {
        "pagination": {"total_count": total, "page": page, "per_page": count, "page_count": pages, "first": first, "last": last},
        "paging": {"count": count, "total": total, "page": page, "pages": pages},
    }
