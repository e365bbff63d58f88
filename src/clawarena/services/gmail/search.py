"""Gmail's `q` search language, parsed into a predicate over message rows.

Supported: from: to: cc: bcc: deliveredto: subject: label: in: category:
is:(unread|read|starred|important) has:(attachment|userlabels|nouserlabels)
filename: after: before: older: newer: older_than: newer_than: larger: smaller:
size: rfc822msgid: list:, quoted phrases, free words, `-` negation, `OR`
(and `AND`), ( ) grouping, { } (any of), and an operator applied to a group:
`subject:(dinner movie)`, `from:{alice bob}`. `from:me` and `to:me` name the
mailbox's owner. `to:` matches every recipient (To, Cc and Bcc).

Rows may carry `_attachments` ([(filename, mime type), ...]) and `_size`
(bytes) for the attachment and size operators.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from clawarena.services.base import invalid
from clawarena.services.gmail.tables import SYSTEM_LABELS

Row = dict[str, Any]
Pred = Callable[[Row], bool]

_TOKEN = re.compile(
    r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<lb>\{)|(?P<rb>\})|(?P<neg>-)(?=\S)'
    r'|(?P<field>[A-Za-z_]+:)(?=[({])'
    r'|(?P<term>(?:[A-Za-z_]+:)?(?:"[^"]*"|[^\s(){}"]+)|"[^"]*"))'
)


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
    names = [name for name, _ in row.get("_attachments", ())]
    return " ".join([row["sender"], *row["to_addrs"], *row["cc_addrs"], row["subject"], row["body"], *names]).lower()


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


def _bytes(v: str) -> int:
    m = re.fullmatch(r"(\d+)([kmg]?)b?", v.lower())
    if not m:
        raise invalid(f"Invalid size in search query: {v!r}")
    return int(m.group(1)) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[m.group(2)]


_LABEL_SYNONYMS = {"drafts": "draft", "chats": "chat", "sent": "sent", "bin": "trash"}


def _norm_label(name: str) -> str:
    return name.lower().replace("-", " ").replace("/", " ").replace("_", " ")


def _label_name_matches(row: Row, name: str, label_names: dict[str, str]) -> bool:
    name = _LABEL_SYNONYMS.get(name.lower(), name)
    wanted = _norm_label(name)
    for lid in row["label_ids"]:
        if _norm_label(label_names.get(lid, lid)) == wanted or lid.lower() == name.lower():
            return True
    return False


_CATEGORIES = {"primary": "CATEGORY_PERSONAL", "personal": "CATEGORY_PERSONAL", "social": "CATEGORY_SOCIAL",
               "promotions": "CATEGORY_PROMOTIONS", "updates": "CATEGORY_UPDATES", "forums": "CATEGORY_FORUMS"}  # fmt: skip
_IS = {"unread": ("UNREAD", True), "read": ("UNREAD", False), "starred": ("STARRED", True), "important": ("IMPORTANT", True),
       "unimportant": ("IMPORTANT", False), "draft": ("DRAFT", True), "sent": ("SENT", True)}  # fmt: skip


def _header(row: Row, name: str) -> str:
    for n, v in row.get("headers") or ():
        if n.lower() == name:
            return str(v).lower()
    return ""


@dataclass(frozen=True)
class _Env:
    now_ms: int
    labels: dict[str, str]
    me: str | None
    system: frozenset[str]


def _term(token: str, env: _Env) -> Pred:
    op, sep, value = token.partition(":")
    if not sep or token.startswith('"'):
        word = _unquote(token).lstrip("+").lower()
        return lambda r: word in _text(r)
    op, value = op.lower(), _unquote(value).lower()
    if value == "me" and env.me and op in ("from", "to", "cc", "bcc", "deliveredto"):
        value = env.me.lower()
    if op == "from":
        return lambda r: value in r["sender"].lower()
    if op in ("to", "deliveredto"):
        return lambda r: any(value in a.lower() for a in [*r["to_addrs"], *r["cc_addrs"], *(r.get("bcc_addrs") or [])])
    if op in ("cc", "bcc"):
        col = {"cc": "cc_addrs", "bcc": "bcc_addrs"}[op]
        return lambda r: any(value in a.lower() for a in r.get(col) or [])
    if op == "subject":
        return lambda r: value in r["subject"].lower()
    if op in ("label", "in"):
        if value == "anywhere":
            return lambda r: True
        return lambda r: _label_name_matches(r, value, env.labels)
    if op == "category":
        if value not in _CATEGORIES:
            raise invalid(f"Unsupported search operator category:{value}")
        cat = _CATEGORIES[value]
        return lambda r: cat in r["label_ids"]
    if op == "is":
        if value not in _IS:
            raise invalid(f"Unsupported search operator is:{value}")
        label, present = _IS[value]
        return lambda r: (label in r["label_ids"]) == present
    if op == "has":
        if value == "attachment":
            return lambda r: bool(r.get("_attachments"))
        if value == "userlabels":
            return lambda r: any(l not in env.system for l in r["label_ids"])
        if value == "nouserlabels":
            return lambda r: all(l in env.system for l in r["label_ids"])
        if value in ("yellow-star", "star"):
            return lambda r: "STARRED" in r["label_ids"]
        return lambda r: False  # drive links, coloured stars...: nothing in this mailbox has them
    if op == "filename":
        return lambda r: any(value in (name or "").lower() or value == mt.lower() for name, mt in r.get("_attachments", ()))
    if op in ("after", "before", "newer", "older"):
        bound = _parse_date(value)
        return (lambda r: r["date_ms"] >= bound) if op in ("after", "newer") else (lambda r: r["date_ms"] < bound)
    if op in ("newer_than", "older_than"):
        bound = _age(value, env.now_ms)
        return (lambda r: r["date_ms"] >= bound) if op == "newer_than" else (lambda r: r["date_ms"] < bound)
    if op in ("larger", "size", "smaller"):
        n = _bytes(value)
        return (lambda r: r.get("_size", 0) < n) if op == "smaller" else (lambda r: r.get("_size", 0) >= n)
    if op == "rfc822msgid":
        return lambda r: value.strip("<>") == r["message_id_header"].lower().strip("<>")
    if op == "list":
        return lambda r: value in _header(r, "list-id")
    word = token.lower()
    return lambda r: word in _text(r)


class _Parser:
    def __init__(self, tokens: list[Token], env: _Env):
        self.tokens, self.i, self.env = tokens, 0, env

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    @staticmethod
    def _is_word(tok: Token | None, word: str) -> bool:
        return tok is not None and tok.kind == "term" and tok.text == word

    def expr(self, closing: str | None = None, field: str | None = None) -> Pred:
        alternatives = [self.conjunction(closing, field)]
        while self._is_word(self.peek(), "OR"):
            self.take()
            alternatives.append(self.conjunction(closing, field))
        return alternatives[0] if len(alternatives) == 1 else (lambda r: any(p(r) for p in alternatives))

    def conjunction(self, closing: str | None, field: str | None) -> Pred:
        parts: list[Pred] = []
        while (tok := self.peek()) is not None and tok.kind != closing and not self._is_word(tok, "OR"):
            if self._is_word(tok, "AND"):
                self.take()
                continue
            parts.append(self.unary(field))
        if not parts:
            raise invalid("Invalid search query: empty group")
        return parts[0] if len(parts) == 1 else (lambda r: all(p(r) for p in parts))

    def unary(self, field: str | None = None) -> Pred:
        tok = self.take()
        if tok.kind == "neg":
            if self.peek() is None:
                raise invalid("Invalid search query: nothing after '-'")
            inner = self.unary(field)
            return lambda r: not inner(r)
        if tok.kind == "field":
            return self.unary(tok.text[:-1])
        if tok.kind == "lp":
            inner = self.expr(closing="rp", field=field)
            self._close("rp")
            return inner
        if tok.kind == "lb":
            parts = []
            while (nxt := self.peek()) is not None and nxt.kind != "rb":
                parts.append(self.unary(field))
            self._close("rb")
            if not parts:
                raise invalid("Invalid search query: empty group")
            return lambda r: any(p(r) for p in parts)
        if tok.kind in ("rp", "rb"):
            raise invalid("Invalid search query: unbalanced brackets")
        text = tok.text
        if field and (text.startswith('"') or ":" not in text):
            text = f"{field}:{text}"
        return _term(text, self.env)

    def _close(self, kind: str) -> None:
        tok = self.peek()
        if tok is None or tok.kind != kind:
            raise invalid("Invalid search query: unbalanced brackets")
        self.take()


def compile_query(q: str, now_ms: int, label_names: dict[str, str] | None = None, me: str | None = None) -> Pred:
    """A predicate over message rows for the Gmail query `q`; invalid queries raise a 400."""
    tokens = tokenize(q)
    if not tokens:
        return lambda r: True
    parser = _Parser(tokens, _Env(now_ms, label_names or {}, me, frozenset(SYSTEM_LABELS)))
    pred = parser.expr()
    if parser.peek() is not None:
        raise invalid("Invalid search query: unbalanced brackets")
    return pred


def includes_spam_trash(q: str | None) -> bool:
    """Whether the query names SPAM or TRASH itself (`in:trash`, `label:spam`, `in:anywhere`)."""
    if not q:
        return False
    for tok in tokenize(q):
        op, sep, value = tok.text.partition(":")
        if sep and op.lower() in ("in", "label", "is") and _unquote(value).lower() in ("trash", "spam", "anywhere", "bin"):
            return True
    return False

