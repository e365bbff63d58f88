"""Read a task file's YAML safely: any bytes give a SpecError naming the file, never a traceback.

libyaml (CSafeLoader) when available, else PyYAML's SafeLoader; either way the
node tree is composed first and walked once, without recursion, to refuse
duplicate keys, deep nesting, recursive aliases and alias bombs, and to note
the line of every field for error messages. Only then is it constructed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from clawarena.spec.errors import Loc, Problem, SpecError, display_path

MAX_DEPTH = 64  # task files need about ten levels; deeper input is an attack or a mistake
MAX_NODES = 2_000_000  # after alias expansion: a few fixtures reused many times is fine, a billion laughs is not
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"

def loader_class(base: type) -> type:
    """A safe loader on `base` (CSafeLoader or SafeLoader): a constructor failure (e.g. the date
    2026-02-30) is a YAML error with its mark, not a ValueError."""

    class Loader(base):  # type: ignore[misc, valid-type]
        def construct_object(self, node: Node, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep)
            except yaml.YAMLError:
                raise
            except (ValueError, TypeError, OverflowError) as exc:
                raise yaml.constructor.ConstructorError(None, None, f"invalid value {getattr(node, 'value', '')!r}: {exc}", node.start_mark) from None

    return Loader


_Loader = loader_class(getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@dataclass
class TaskYaml:
    """A parsed task file: its data, and the 1-based YAML line of each field path."""

    data: Any
    lines: dict[Loc, int]


def _decode(path: Path, raw: bytes) -> str:
    if b"\x00" in raw:
        raise SpecError([f"{path}: <top>: a binary file (it contains NUL bytes), not YAML text"])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError([f"{path}: <top>: not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start} cannot be decoded (line {line})"]) from None


def _yaml_problem(path: Path, text: str, exc: yaml.YAMLError) -> SpecError:
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        where = f" (line {mark.line + 1}, column {mark.column + 1})"
    elif isinstance(exc, yaml.reader.ReaderError):  # a character YAML does not allow: only an offset
        line = text.count("\n", 0, exc.position) + 1
        where = f" (line {line})"
    else:
        where = ""
    context = getattr(exc, "context", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if isinstance(exc, yaml.reader.ReaderError):
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        problem = f"unacceptable character #x{char:04x}: {exc.reason}"
    what = f"{context}: {problem}" if context and problem else str(problem)
    return SpecError([f"{path}: <top>: invalid YAML{where}: {what}"])


def _key_of(loader: Any, node: Node) -> Any:
    """The constructed value of a mapping key (cheap for plain strings), or None when it is not hashable."""
    if isinstance(node, ScalarNode) and node.tag == _STR_TAG:
        return node.value
    try:
        key = loader.construct_object(node)
        hash(key)
    except (yaml.YAMLError, TypeError, ValueError):
        return None
    return key


def _walk(loader: Any, root: Node) -> tuple[dict[Loc, int], list[Problem]]:
    """One iterative pass over the node graph: field lines, duplicate keys, depth, cycles and size."""
    lines: dict[Loc, int] = {}
    problems: list[Problem] = []
    size: dict[int, int] = {}  # node id -> nodes after alias expansion
    open_: set[int] = set()  # nodes on the current path: meeting one again is a recursive alias
    # (node, loc, depth, children pushed?)
    stack: list[tuple[Node, Loc, int, bool]] = [(root, (), 0, False)]
    while stack:
        node, loc, depth, expanded = stack.pop()
        nid = id(node)
        if expanded:
            open_.discard(nid)
            children = node.value if isinstance(node, SequenceNode) else [v for _, v in node.value]
            size[nid] = 1 + sum(size.get(id(c), 1) for c in children)
            if size[nid] > MAX_NODES:
                raise SpecError([f"{display_path(loc)}: the document expands to more than {MAX_NODES:,} values (aliases repeated too often)"])
            continue
        if nid in open_:
            raise SpecError([f"{display_path(loc)}: a recursive alias (a node that contains itself) (line {node.start_mark.line + 1})"])
        if nid in size or isinstance(node, ScalarNode):
            continue  # scalars, and aliases of nodes already walked
        if depth > MAX_DEPTH:
            raise SpecError([f"{display_path(loc[:3])}: nested deeper than {MAX_DEPTH} levels (line {node.start_mark.line + 1})"])
        open_.add(nid)
        stack.append((node, loc, depth, True))
        if isinstance(node, SequenceNode):
            for i, child in enumerate(node.value):
                lines.setdefault(loc + (i,), child.start_mark.line + 1)
                stack.append((child, loc + (i,), depth + 1, False))
        elif isinstance(node, MappingNode):
            seen: dict[Any, int] = {}
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    stack.append((value_node, loc, depth + 1, False))
                    continue
                key = _key_of(loader, key_node)
                if key is None:
                    continue  # an unhashable key: the constructor names it
                line = key_node.start_mark.line + 1
                if key in seen:
                    problems.append(Problem(loc + (key,), f"duplicate key {key!r} (line {line}; first at line {seen[key]})"))
                    continue
                seen[key] = line
                lines.setdefault(loc + (key,), line)
                stack.append((value_node, loc + (key,), depth + 1, False))
    return lines, problems


def read_task_yaml(path: Path) -> TaskYaml:
    """Parse one task file; raise SpecError (`file: <top>: ...`) for anything that is not sound YAML."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError([f"{path}: cannot read: {exc.strerror}"]) from exc
    text = _decode(path, raw)
    loader = None
    try:
        loader = _Loader(text)  # the pure-Python reader checks the characters here
        root = loader.get_single_node()
        if root is None:
            return TaskYaml(data=None, lines={})
        try:
            lines, problems = _walk(loader, root)
        except SpecError as exc:
            raise SpecError([f"{path}: {p}" for p in exc.problems]) from None
        if problems:
            raise SpecError([f"{path}: {display_path(p.loc)}: {p.message}" for p in problems])
        data = loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise _yaml_problem(path, text, exc) from None
    except RecursionError:  # the pure-Python composer recurses per level
        raise SpecError([f"{path}: <top>: invalid YAML: nested too deeply to parse"]) from None
    finally:
        if loader is not None:
            loader.dispose()
    return TaskYaml(data=data, lines=lines)


def read_yaml_mapping(path: Path, what: str) -> TaskYaml:
    """`read_task_yaml`, and the top level must be a mapping: SpecError `file: <top>: a WHAT must
    be a mapping, found ...` otherwise (e.g. what="task file")."""
    parsed = read_task_yaml(path)
    if not isinstance(parsed.data, dict):
        found = "an empty file" if parsed.data is None else f"a {type(parsed.data).__name__}"
        raise SpecError([f"{path}: <top>: a {what} must be a mapping, found {found}"])
    return parsed
