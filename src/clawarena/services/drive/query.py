"""Drive's search language (`q` of files.list and drives.list) and `orderBy`.

    name contains 'plan' and mimeType != 'application/vnd.google-apps.folder'
    'FOLDER_ID' in parents and trashed = false
    (modifiedTime > '2026-01-01T00:00:00' or starred) and not 'bob@x.com' in writers
    fullText contains '"exact phrase"'   properties has { key='dept' and value='ops' }

A query compiles to a predicate over a *view*: a mapping of the searchable
attributes of one item (see `FILE_FIELDS`); values that are costly (fullText)
may be zero-argument callables. `name contains` matches word prefixes, as
Drive does ('HelloWorld' is found by 'Hello', not by 'World').
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

View = Mapping[str, Any]
Predicate = Callable[[View], bool]


class QueryError(ValueError):
    """The query does not parse or uses a field with an operator Drive does not accept."""


STRING_OPS = {"contains", "=", "!="}
CMP_OPS = {"<", "<=", "=", "!=", ">", ">="}
EQ_OPS = {"=", "!="}

FILE_FIELDS: dict[str, tuple[str, set[str]]] = {
    # field: (kind, operators)
    "name": ("name", STRING_OPS),
    "mimeType": ("string", STRING_OPS),
    "fullText": ("fulltext", {"contains"}),
    "modifiedTime": ("time", CMP_OPS),
    "createdTime": ("time", CMP_OPS),
    "viewedByMeTime": ("time", CMP_OPS),
    "sharedWithMeTime": ("time", CMP_OPS),
    "trashed": ("bool", EQ_OPS),
    "starred": ("bool", EQ_OPS),
    "sharedWithMe": ("bool", EQ_OPS),
    "visibility": ("string", EQ_OPS),
    "description": ("name", STRING_OPS),
}
FILE_COLLECTIONS = {"parents", "owners", "writers", "readers"}
FILE_MAPS = {"properties", "appProperties"}

DRIVE_FIELDS: dict[str, tuple[str, set[str]]] = {
    "name": ("name", STRING_OPS),
    "createdTime": ("time", CMP_OPS),
    "hidden": ("bool", EQ_OPS),
    "memberCount": ("number", CMP_OPS),
    "organizerCount": ("number", CMP_OPS),
}

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<str>'(?:[^'\\]|\\.)*')
      | (?P<op><=|>=|!=|=|<|>|\(|\)|\{|\}|,)
      | (?P<num>-?\d+(?:\.\d+)?(?![\w.]))
      | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Tok:
    kind: str  # str | op | num | word | end
    value: str
    pos: int


def tokenize(text: str) -> list[Tok]:
    out: list[Tok] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise QueryError(f"unexpected character at {pos}: {text[pos:pos + 10]!r}")
        kind = m.lastgroup or ""
        raw = m.group(kind)
        if kind == "str":
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        out.append(Tok(kind, raw, m.start(kind)))
        pos = m.end()
    out.append(Tok("end", "", len(text)))
    return out


def parse_time(value: str) -> int:
    """RFC 3339 (naive means UTC; a date alone is midnight UTC) to epoch ms."""
    text = value.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            moment = datetime.fromisoformat(text + "T00:00:00")
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise QueryError(f"invalid time {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


_WORD = re.compile(r"[0-9A-Za-z\u00c0-\uffff]+")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def name_contains(name: str, term: str) -> bool:
    """Prefix match at a word start, case-insensitively."""
    hay, needle = (name or "").lower(), term.lower()
    if not needle:
        return True
    start = hay.find(needle)
    while start != -1:
        if start == 0 or not hay[start - 1].isalnum():
            return True
        start = hay.find(needle, start + 1)
    return False


def fulltext_contains(text: str, term: str) -> bool:
    """Whole words; a double-quoted term is an exact phrase."""
    hay = words(text)
    stripped = term.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        phrase = words(stripped[1:-1])
        if not phrase:
            return True
        n = len(phrase)
        return any(hay[i : i + n] == phrase for i in range(len(hay) - n + 1))
    wanted = words(stripped)
    have = set(hay)
    return all(w in have for w in wanted)


def _get(view: View, key: str) -> Any:
    value = view.get(key)
    return value() if callable(value) else value


class _Parser:
    def __init__(self, text: str, fields: dict[str, tuple[str, set[str]]], collections: set[str], maps: set[str], aliases: Mapping[str, str]):
        self.toks = tokenize(text)
        self.i = 0
        self.fields, self.collections, self.maps, self.aliases = fields, collections, maps, aliases

    def peek(self) -> Tok:
        return self.toks[self.i]

    def take(self) -> Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def word(self, *values: str) -> bool:
        tok = self.peek()
        return tok.kind == "word" and tok.value.lower() in values

    def expect_op(self, op: str) -> None:
        tok = self.take()
        if tok.kind != "op" or tok.value != op:
            raise QueryError(f"expected {op!r} at {tok.pos}")

    def parse(self) -> Predicate:
        if self.peek().kind == "end":
            return lambda v: True
        pred = self.or_expr()
        if self.peek().kind != "end":
            raise QueryError(f"unexpected {self.peek().value!r} at {self.peek().pos}")
        return pred

    def or_expr(self) -> Predicate:
        parts = [self.and_expr()]
        while self.word("or"):
            self.take()
            parts.append(self.and_expr())
        return parts[0] if len(parts) == 1 else (lambda v, ps=tuple(parts): any(p(v) for p in ps))

    def and_expr(self) -> Predicate:
        parts = [self.unary()]
        while self.word("and"):
            self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else (lambda v, ps=tuple(parts): all(p(v) for p in ps))

    def unary(self) -> Predicate:
        if self.word("not"):
            self.take()
            inner = self.unary()
            return lambda v: not inner(v)
        tok = self.peek()
        if tok.kind == "op" and tok.value == "(":
            self.take()
            inner = self.or_expr()
            self.expect_op(")")
            return inner
        return self.term()

    def value(self) -> tuple[str, Any]:
        tok = self.take()
        if tok.kind == "str":
            return "str", tok.value
        if tok.kind == "num":
            return "num", float(tok.value)
        if tok.kind == "word" and tok.value.lower() in ("true", "false"):
            return "bool", tok.value.lower() == "true"
        raise QueryError(f"expected a value at {tok.pos}")

    def term(self) -> Predicate:
        tok = self.take()
        if tok.kind == "str":  # 'x' in parents
            if not self.word("in"):
                raise QueryError(f"expected 'in' after {tok.value!r}")
            self.take()
            coll = self.take()
            if coll.kind != "word" or coll.value not in self.collections:
                raise QueryError(f"'in' needs one of {sorted(self.collections)}")
            needle = self.aliases.get(tok.value, tok.value).lower()
            field = coll.value
            return lambda v: needle in {str(x).lower() for x in (_get(v, field) or ())}
        if tok.kind != "word":
            raise QueryError(f"expected a field at {tok.pos}")
        field = tok.value
        if field in self.maps:
            if not self.word("has"):
                raise QueryError(f"{field} takes 'has {{ key='k' and value='v' }}'")
            self.take()
            self.expect_op("{")
            key = val = None
            for expected in ("key", "value"):
                if not self.word(expected):
                    raise QueryError(f"expected {expected} in {field} has {{...}}")
                self.take()
                self.expect_op("=")
                kind, got = self.value()
                if kind != "str":
                    raise QueryError(f"{expected} must be a string")
                if expected == "key":
                    key = got
                    if not self.word("and"):
                        raise QueryError("expected 'and' between key and value")
                    self.take()
                else:
                    val = got
            self.expect_op("}")
            return lambda v: (_get(v, field) or {}).get(key) == val
        if field not in self.fields:
            raise QueryError(f"unknown field {field!r}")
        kind, ops = self.fields[field]
        nxt = self.peek()
        if kind == "bool" and (nxt.kind == "end" or (nxt.kind == "word" and nxt.value.lower() in ("and", "or")) or (nxt.kind == "op" and nxt.value == ")")):
            return lambda v: bool(_get(v, field))  # bare `starred`, `sharedWithMe`
        op_tok = self.take()
        op = op_tok.value if op_tok.kind == "op" else op_tok.value.lower()
        if op not in ops:
            raise QueryError(f"operator {op!r} is not allowed with {field}")
        vkind, value = self.value()
        return self._compare(field, kind, op, vkind, value)

    def _compare(self, field: str, kind: str, op: str, vkind: str, value: Any) -> Predicate:
        if kind == "bool":
            if vkind != "bool":
                raise QueryError(f"{field} takes true or false")
            return (lambda v: bool(_get(v, field)) == value) if op == "=" else (lambda v: bool(_get(v, field)) != value)
        if kind == "number":
            if vkind != "num":
                raise QueryError(f"{field} takes a number")
            return _cmp(field, op, value, lambda x: x)
        if vkind != "str":
            raise QueryError(f"{field} takes a quoted string")
        if kind == "time":
            return _cmp(field, op, parse_time(value), lambda x: x)
        if kind == "fulltext":
            return lambda v: fulltext_contains(_get(v, field) or "", value)
        if op == "contains":
            if kind == "name":
                return lambda v: name_contains(_get(v, field) or "", value)
            return lambda v: value.lower() in (_get(v, field) or "").lower()
        if op == "=":
            return lambda v: (_get(v, field) or "") == value
        return lambda v: (_get(v, field) or "") != value


def _cmp(field: str, op: str, rhs: Any, conv: Callable[[Any], Any]) -> Predicate:
    fns = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "=": lambda a, b: a == b,
           "!=": lambda a, b: a != b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}  # fmt: skip
    fn = fns[op]

    def pred(v: View) -> bool:
        lhs = _get(v, field)
        if lhs is None:
            return op == "!="
        return fn(conv(lhs), rhs)

    return pred


def compile_file_query(q: str, aliases: Mapping[str, str] | None = None) -> Predicate:
    """A predicate over file views; `aliases` maps 'root' and 'me' to the caller's root id and address."""
    return _Parser(q, FILE_FIELDS, FILE_COLLECTIONS, FILE_MAPS, aliases or {}).parse()


def compile_drive_query(q: str) -> Predicate:
    return _Parser(q, DRIVE_FIELDS, set(), set(), {}).parse()


# ---- orderBy -----------------------------------------------------------------------------
ORDER_KEYS = {"createdTime", "folder", "modifiedByMeTime", "modifiedTime", "name", "name_natural",
              "quotaBytesUsed", "recency", "sharedWithMeTime", "starred", "viewedByMeTime"}  # fmt: skip


def parse_order(order_by: str) -> list[tuple[str, bool]]:
    """[(key, descending)] from 'folder,modifiedTime desc,name'."""
    out = []
    for part in order_by.split(","):
        bits = part.split()
        if not bits:
            continue
        if bits[0] not in ORDER_KEYS or len(bits) > 2 or (len(bits) == 2 and bits[1].lower() not in ("asc", "desc")):
            raise QueryError(f"invalid orderBy {part.strip()!r}")
        out.append((bits[0], len(bits) == 2 and bits[1].lower() == "desc"))
    return out


def _natural(text: str) -> list[Any]:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text.lower()) if p]


def sort_views(views: list[View], order: list[tuple[str, bool]]) -> list[View]:
    """Stable multi-key sort; missing times sort as oldest."""
    out = list(views)
    for key, desc in reversed(order):
        if key == "folder":
            fn: Callable[[View], Any] = lambda v: 0 if v.get("mimeType") == "application/vnd.google-apps.folder" else 1
        elif key == "name":
            fn = lambda v: (v.get("name") or "").lower()
        elif key == "name_natural":
            fn = lambda v: _natural(v.get("name") or "")
        elif key == "starred":
            fn = lambda v: 0 if v.get("starred") else 1
        elif key == "recency":
            fn = lambda v: max(v.get("modifiedTime") or 0, v.get("viewedByMeTime") or 0, v.get("modifiedByMeTime") or 0)
        elif key == "quotaBytesUsed":
            fn = lambda v: v.get("quotaBytesUsed") or 0
        else:
            fn = lambda v, k=key: v.get(k) or 0
        out.sort(key=fn, reverse=desc)
    return out
