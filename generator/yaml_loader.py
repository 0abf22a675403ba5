"""Safe YAML loading that keeps the source location of every value.

Mappings become `LocDict` and sequences `LocList`; each records its own location
and the location of each of its values, so any later check can point at
`file:line:column`. Duplicate keys are errors (PyYAML silently keeps the last).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

import yaml

from .errors import Location, SpecError


class LocDict(dict[str, Any]):
    loc: Location
    value_locs: dict[str, Location]
    key_locs: dict[str, Location]


class LocList(list[Any]):
    loc: Location
    value_locs: list[Location]


# libyaml's parser when PyYAML has it (5-10x faster); the constructors below are the same.
if TYPE_CHECKING:
    _BaseLoader = yaml.SafeLoader
else:
    _BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# What a spec may be. Deeper nesting, or more values once aliases are expanded (a "billion laughs"
# document is a few lines long), is refused before anything is built from it.
MAX_DEPTH = 64
MAX_NODES = 500_000
MAX_TEXT_CHARS = 4 * 1024 * 1024
MAX_SCALAR_CHARS = 100_000
# The tags the spec format uses (implicit or written); anything else (!!python/..., !!binary,
# !!timestamp, an unquoted date, a custom !tag) is an error, not a value of some other type.
_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map", "merge")}
# Control characters other than tab and newline (NUL, escapes, C1 controls) and lone surrogates:
# nothing in a spec needs them, and they would reach generated files and terminals.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_MARK_BEFORE = frozenset(" \t\r\n[{,:?-")


def _marker(text: str, mark: str) -> bool:
    """Whether a tag (`!x`) or an anchor (`&x`) may start somewhere in the text: the mark after a
    separator and before a name. Texts without one skip the checks that need them (str.find is
    much faster than a regex that tries every position)."""
    at = text.find(mark)
    while at != -1:
        before = text[at - 1] if at else "\n"
        after = text[at + 1:at + 2]
        if before in _MARK_BEFORE and after and after not in " \t\r\n=":
            return True
        at = text.find(mark, at + 1)
    return False




class _Loader(_BaseLoader):
    """libyaml's parser and composer; values are built by `_Builder` below, not by PyYAML's
    constructors (which are generic, recursive and several times slower)."""


_SAFE = yaml.constructor.SafeConstructor
_SCALAR_BUILDERS: dict[str, Any] = {
    "tag:yaml.org,2002:int": _SAFE.construct_yaml_int,
    "tag:yaml.org,2002:float": _SAFE.construct_yaml_float,
    "tag:yaml.org,2002:bool": _SAFE.construct_yaml_bool,
    "tag:yaml.org,2002:null": _SAFE.construct_yaml_null,
}
_STR = "tag:yaml.org,2002:str"


class _Builder:
    """Builds LocDict/LocList/scalars from composed nodes, keeping every value's location, refusing
    duplicate keys, tags the format does not use, control characters, non-finite and oversized
    numbers. Recursion is bounded: the document's depth was checked (MAX_DEPTH) before building."""

    def __init__(self, loader: _Loader, filename: str, check_tags: bool, check_all_text: bool):
        self.loader, self.filename = loader, filename
        self.check_tags, self.check_all_text = check_tags, check_all_text
        self.problems: list[SpecError] = []
        self.built: dict[int, Any] = {}
        self.building: set[int] = set()

    def loc(self, node: yaml.Node) -> Location:
        return Location(self.filename, node.start_mark.line + 1, node.start_mark.column + 1)

    def fail(self, node: yaml.Node, message: str) -> yaml.constructor.ConstructorError:
        return yaml.constructor.ConstructorError(None, None, message, node.start_mark)

    def build(self, node: yaml.Node, depth: int = 0) -> Any:
        key = id(node)
        if key in self.built:  # an alias: the anchored value itself, as PyYAML gives it
            return self.built[key]
        if key in self.building:
            raise self.fail(node, "an alias refers to a value that contains it (a recursive structure)")
        tag = node.tag
        if tag not in _TAGS:
            what = "an unquoted date or time" if tag.endswith(":timestamp") else f"the tag {tag}"
            raise self.fail(node, f"{what} is not part of the spec format (quote a text value)")
        if isinstance(node, yaml.ScalarNode):
            value = self.scalar(node, tag)
        else:
            if depth >= MAX_DEPTH:
                raise self.fail(node, f"nested more than {MAX_DEPTH} levels deep; specs are not that deep")
            self.building.add(key)
            value = self.mapping(node, depth + 1) if isinstance(node, yaml.MappingNode) else \
                self.sequence(cast(yaml.SequenceNode, node), depth + 1)
            self.building.discard(key)
        self.built[key] = value
        return value

    def scalar(self, node: yaml.ScalarNode, tag: str) -> Any:
        if self.check_tags:
            # Resolver.resolve is unannotated in types-PyYAML.
            implicit = _STR if node.style else self.loader.resolve(yaml.ScalarNode, node.value, (True, False))  # type: ignore[no-untyped-call]
            if tag != implicit:  # an explicit tag (`!!null x`): the spec format writes none
                raise self.fail(node, f"the tag {tag} is not part of the spec format (write the value plainly)")
        if tag == _STR:
            value = node.value
            if (self.check_all_text or node.style == '"') and (found := _CONTROL.search(value)):
                bad = found.group()
                raise self.fail(node, f"control character U+{ord(bad):04X} in a text value; specs hold printable "
                                      "text, tabs and newlines only")
            if len(value) > MAX_SCALAR_CHARS:
                raise self.fail(node, f"text value of {len(value)} characters; at most {MAX_SCALAR_CHARS}")
            return value
        try:
            value = _SCALAR_BUILDERS[tag](self.loader, node)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise self.fail(node, f"cannot read this value as {tag.rsplit(':', 1)[-1]} "
                                  f"({type(exc).__name__}: {str(exc)[:80]})") from None
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 64:
            raise self.fail(node, "integer outside the 64-bit range; specs hold int64 or uint64 values")
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            raise self.fail(node, "NaN and infinities are not spec values (write a finite number; in an example tensor, "
                             'spell them "inf", "-inf" or "nan", quoted)')
        return value

    def mapping(self, node: yaml.MappingNode, depth: int) -> LocDict:
        if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
            self.loader.flatten_mapping(node)  # `<<: *anchor` merge keys, as YAML 1.1 defines them
        out = LocDict()
        out.loc, out.value_locs, out.key_locs = self.loc(node), {}, {}
        for key_node, value_node in node.value:
            key = self.build(key_node, depth)
            if not isinstance(key, str):
                self.problems.append(SpecError(self.loc(key_node), f"mapping keys must be strings, found {key!r}"))
                key = str(key)
            if key in out:
                first = out.key_locs[key]
                self.problems.append(SpecError(
                    self.loc(key_node), f"duplicate key {key!r} (first given at line {first.line}); each key may "
                                        "appear once"))
                continue
            out[key] = self.build(value_node, depth)
            out.key_locs[key] = self.loc(key_node)
            out.value_locs[key] = self.loc(value_node)
        return out

    def sequence(self, node: yaml.SequenceNode, depth: int) -> LocList:
        out = LocList(self.build(child, depth) for child in node.value)
        out.loc = self.loc(node)
        out.value_locs = [self.loc(child) for child in node.value]
        return out


def _expanded_size(node: yaml.Node) -> int:
    """How many values the document holds once every alias is expanded, without expanding it
    (iterative; a recursive alias counts as too many)."""
    sizes: dict[int, int] = {}
    visiting: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        item, done = stack.pop()
        key = id(item)
        if key in sizes:
            continue
        children = [] if isinstance(item, yaml.ScalarNode) else \
            [c for pair in item.value for c in pair] if isinstance(item, yaml.MappingNode) else list(item.value)
        if done or not children:
            sizes[key] = min(1 + sum(sizes.get(id(c), MAX_NODES + 1) for c in children), MAX_NODES + 1)
            visiting.discard(key)
            continue
        if key in visiting:
            return MAX_NODES + 1  # a cycle: the alias expands forever
        visiting.add(key)
        stack.append((item, True))
        for c in children:
            if id(c) in visiting:
                return MAX_NODES + 1
            if id(c) not in sizes:
                stack.append((c, False))
    return sizes[id(node)]


def load_yaml(text: str, filename: str) -> tuple[Any, list[SpecError]]:
    """Parse one YAML document; returns (data or None, problems)."""
    if len(text) > MAX_TEXT_CHARS:
        return None, [SpecError(Location(filename), f"file of {len(text)} characters; specs are at most "
                                                    f"{MAX_TEXT_CHARS}")]
    loader = _Loader(text)
    builder = _Builder(loader, filename, check_tags=_marker(text, "!"), check_all_text=bool(_CONTROL.search(text)))
    try:
        node = loader.get_single_node()
        if node is not None and _marker(text, "&") and _expanded_size(node) > MAX_NODES:
            return None, [SpecError(Location(filename), f"more than {MAX_NODES} values once aliases are expanded "
                                                        "(an alias repeated too often)")]
        data = builder.build(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Location(filename, mark.line + 1, mark.column + 1) if mark else Location(filename)
        detail = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        return None, [SpecError(loc, f"invalid YAML: {detail}")]
    except yaml.YAMLError as exc:  # non-marked errors, e.g. bad encoding
        return None, [SpecError(Location(filename), f"invalid YAML: {exc}")]
    except RecursionError:  # only the pure-Python parser recurses (libyaml stops at depth 1000 itself)
        return None, [SpecError(Location(filename), f"nested more than {MAX_DEPTH} levels deep")]
    finally:
        loader.dispose()
    return data, builder.problems


def locate(data: Any, path: list[Any]) -> Location | None:
    """The location of the value at `path` inside loaded data (deepest known)."""
    best = getattr(data, "loc", None)
    node = data
    for step in path:
        if isinstance(node, LocDict) and step in node:
            best = node.value_locs.get(step, best)
            node = node[step]
        elif isinstance(node, LocList) and isinstance(step, int) and 0 <= step < len(node):
            best = node.value_locs[step]
            node = node[step]
        else:
            break
    return best
