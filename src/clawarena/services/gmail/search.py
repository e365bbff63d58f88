"""Gmail's `q` search language, parsed into a predicate over message rows.

Supported: from: to: cc: bcc: subject: label: in: is:(unread|read|starred|important)
has:attachment filename: after: before: older_than: newer_than:, quoted phrases,
free words, `-` negation, `OR`, ( ) grouping and { } (any of).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from clawarena.services.base import invalid

Row = dict[str, Any]
Pred = Callable[[Row], bool]

_TOKEN = re.compile(r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<lb>\{)|(?P<rb>\})|(?P<neg>-)(?=\S)|(?P<term>(?:[A-Za-z_]+:)?(?:"[^"]*"|[^\s(){}"]+)|"[^"]*"))')


@dataclass(frozen=True)
class Token:
    kind: str
    text: str


def tokenize(q: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    q = q.strip()
    while pos < len(q):
        m = _TOKEN.match(q, pos)
        if not m or m.end() == pos:
            raise invalid(f"Invalid search query near {q[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup or "term"
        tokens.append(Token(kind, m.group(kind)))
        while pos < len(q) and q[pos].isspace():
            pos += 1
    return tokens


def _text(row: Row) -> str:
    return " ".join([row["sender"], *row["to_addrs"], *row["cc_addrs"], row["subject"], row["body"]]).lower()


def _unquote(v: str) -> str:
    return v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v


def _parse_date(v: str) -> int:
    for fmt in ("%Y/%m/%d", "%Y-%m-%d", "%m/%d/%Y"):
        try:
            return int(datetime.strptime(v, fmt).replace(tzinfo=timezone.utc).timestamp() * 1000)
        except ValueError:
            continue
    if v.isdigit():
        return int(v) * 1000
    raise invalid(f"Invalid date in search query: {v!r}")


_UNITS = {"d": timedelta(days=1), "m": timedelta(days=30), "y": timedelta(days=365), "h": timedelta(hours=1)}


def _age(v: str, now_ms: int) -> int:
    m = re.fullmatch(r"(\d+)([dmyh])", v)
    if not m:
        raise invalid(f"Invalid relative date in search query: {v!r}")
    return now_ms - int((_UNITS[m.group(2)] * int(m.group(1))).total_seconds() * 1000)


def _label_name_matches(row: Row, name: str, label_names: dict[str, str]) -> bool:
    wanted = name.lower().replace("-", " ").replace("/", " ")
    for lid in row["label_ids"]:
        display = label_names.get(lid, lid).lower().replace("-", " ").replace("/", " ")
        if display == wanted or lid.lower() == name.lower():
            return True
    return False


def _term(token: str, now_ms: int, label_names: dict[str, str]) -> Pred:
    op, sep, value = token.partition(":")
    if not sep or token.startswith('"'):
        word = _unquote(token).lower()
        return lambda r: word in _text(r)
    op, value = op.lower(), _unquote(value).lower()
    if op == "from":
        return lambda r: value in r["sender"].lower()
    if op in ("to", "cc", "bcc"):
        col = {"to": "to_addrs", "cc": "cc_addrs", "bcc": "bcc_addrs"}[op]
        return lambda r: any(value in a.lower() for a in r[col])
    if op == "subject":
        return lambda r: value in r["subject"].lower()
    if op in ("label", "in"):
        if value == "anywhere":
            return lambda r: True
        return lambda r: _label_name_matches(r, value, label_names)
    if op == "is":
        flags = {"unread": ("UNREAD", True), "read": ("UNREAD", False), "starred": ("STARRED", True), "important": ("IMPORTANT", True)}
        if value not in flags:
            raise invalid(f"Unsupported search operator is:{value}")
        label, present = flags[value]
        return lambda r: (label in r["label_ids"]) == present
    if op in ("has", "filename"):
        return lambda r: False  # attachments arrive with the full Gmail service (issue 2/4)
    if op in ("after", "before"):
        bound = _parse_date(value)
        return (lambda r: r["date_ms"] >= bound) if op == "after" else (lambda r: r["date_ms"] < bound)
    if op in ("newer_than", "older_than"):
        bound = _age(value, now_ms)
        return (lambda r: r["date_ms"] >= bound) if op == "newer_than" else (lambda r: r["date_ms"] < bound)
    word = token.lower()
    return lambda r: word in _text(r)


class _Parser:
    def __init__(self, tokens: list[Token], now_ms: int, label_names: dict[str, str]):
        self.tokens, self.i, self.now_ms, self.labels = tokens, 0, now_ms, label_names

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expr(self, closing: str | None = None) -> Pred:
        alternatives = [self.conjunction(closing)]
        while (tok := self.peek()) is not None and tok.kind == "term" and tok.text == "OR":
            self.take()
            alternatives.append(self.conjunction(closing))
        return alternatives[0] if len(alternatives) == 1 else (lambda r: any(p(r) for p in alternatives))

    def conjunction(self, closing: str | None) -> Pred:
        parts: list[Pred] = []
        while (tok := self.peek()) is not None and tok.kind != closing and not (tok.kind == "term" and tok.text == "OR"):
            parts.append(self.unary())
        if not parts:
            raise invalid("Invalid search query: empty group")
        return lambda r: all(p(r) for p in parts)

    def unary(self) -> Pred:
        tok = self.take()
        if tok.kind == "neg":
            inner = self.unary()
            return lambda r: not inner(r)
        if tok.kind == "lp":
            inner = self.expr(closing="rp")
            self._close("rp")
            return inner
        if tok.kind == "lb":
            parts = []
            while (nxt := self.peek()) is not None and nxt.kind != "rb":
                parts.append(self.unary())
            self._close("rb")
            return lambda r: any(p(r) for p in parts)
        if tok.kind in ("rp", "rb"):
            raise invalid("Invalid search query: unbalanced brackets")
        return _term(tok.text, self.now_ms, self.labels)

    def _close(self, kind: str) -> None:
        tok = self.peek()
        if tok is None or tok.kind != kind:
            raise invalid("Invalid search query: unbalanced brackets")
        self.take()


def compile_query(q: str, now_ms: int, label_names: dict[str, str] | None = None) -> Pred:
    tokens = tokenize(q)
    if not tokens:
        return lambda r: True
    parser = _Parser(tokens, now_ms, label_names or {})
    pred = parser.expr()
    if parser.peek() is not None:
        raise invalid("Invalid search query: unbalanced brackets")
    return pred
