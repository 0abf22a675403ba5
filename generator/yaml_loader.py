"""Safe YAML loading that keeps the source location of every value.

Mappings become `LocDict` and sequences `LocList`; each records its own location
and the location of each of its values, so any later check can point at
`file:line:column`. Duplicate keys are errors (PyYAML silently keeps the last).
"""
from __future__ import annotations

import re
from typing import Any

import yaml

from .errors import Location, SpecError


class LocDict(dict):
    loc: Location
    value_locs: dict[str, Location]
    key_locs: dict[str, Location]


class LocList(list):
    loc: Location
    value_locs: list[Location]


# libyaml's parser when PyYAML has it (5-10x faster); the constructors below are the same.
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
_DASH_RUN = re.compile(r"^[ ]*((?:[-?][ ]+)+)", re.M)
_INDENT = re.compile(r"^[ ]*", re.M)
# Where a tag (`!x`, `!!x`) or an anchor (`&x`) could start; texts without one skip those checks.
_TAG_HINT = re.compile(r"(?:^|[\s\[{,:?-])![^\s=]")
_ANCHOR_HINT = re.compile(r"(?:^|[\s\[{,:?-])&[^\s]")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class _Loader(_BaseLoader):
    """A safe loader that builds LocDict/LocList and rejects duplicate keys."""

    filename = "<string>"
    check_tags = True  # off when the text cannot hold an explicit tag (saves a resolve per value)
    check_text = True  # off when neither the text nor an escape sequence can hold a control character
    problems: list[SpecError]

    def _loc(self, node: yaml.Node) -> Location:
        return Location(self.filename, node.start_mark.line + 1, node.start_mark.column + 1)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node.tag not in _TAGS:
            what = "an unquoted date or time" if node.tag.endswith(":timestamp") else f"the tag {node.tag}"
            raise yaml.constructor.ConstructorError(None, None, f"{what} is not part of the spec format "
                                                    "(quote a text value)", node.start_mark)
        if self.check_tags and isinstance(node, yaml.ScalarNode):
            implicit = "tag:yaml.org,2002:str" if node.style else self.resolve(yaml.ScalarNode, node.value, (True, False))
            if node.tag != implicit:  # an explicit tag (`!!null x`): the spec format writes none
                raise yaml.constructor.ConstructorError(None, None, f"the tag {node.tag} is not part of the spec "
                                                        "format (write the value plainly)", node.start_mark)
        try:
            value = super().construct_object(node, deep=deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(None, None, f"cannot read this value as {node.tag.rsplit(':', 1)[-1]}"
                                                    f" ({type(exc).__name__}: {str(exc)[:80]})",
                                                    node.start_mark) from None
        if isinstance(value, str):
            bad = _CONTROL.search(value) if self.check_text else None
            if bad:
                raise yaml.constructor.ConstructorError(
                    None, None, f"control character U+{ord(bad.group()):04X} in a text value; specs hold printable "
                    "text, tabs and newlines only", node.start_mark)
            if len(value) > MAX_SCALAR_CHARS:
                raise yaml.constructor.ConstructorError(None, None, f"text value of {len(value)} characters; at most "
                                                        f"{MAX_SCALAR_CHARS}", node.start_mark)
        elif isinstance(value, int) and not isinstance(value, bool) and not -2 ** 63 <= value < 2 ** 64:
            raise yaml.constructor.ConstructorError(None, None, "integer outside the 64-bit range; specs hold "
                                                    "int64 or uint64 values", node.start_mark)
        elif isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
            raise yaml.constructor.ConstructorError(None, None, "NaN and infinities are not spec values "
                                                    "(write a finite number)", node.start_mark)
        return value

    def construct_loc_mapping(self, node: yaml.MappingNode) -> LocDict:
        self.flatten_mapping(node)
        out = LocDict()
        out.loc, out.value_locs, out.key_locs = self._loc(node), {}, {}
        yield out
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                self.problems.append(SpecError(self._loc(key_node), f"mapping keys must be strings, found {key!r}"))
                key = str(key)
            if key in out:
                first = out.key_locs[key]
                self.problems.append(SpecError(
                    self._loc(key_node),
                    f"duplicate key {key!r} (first given at line {first.line}); each key may appear once"))
                continue
            out[key] = self.construct_object(value_node, deep=True)
            out.key_locs[key] = self._loc(key_node)
            out.value_locs[key] = self._loc(value_node)

    def construct_loc_sequence(self, node: yaml.SequenceNode) -> LocList:
        out = LocList()
        out.loc = self._loc(node)
        out.value_locs = [self._loc(child) for child in node.value]
        yield out
        out.extend(self.construct_object(child, deep=True) for child in node.value)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _Loader.construct_loc_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _Loader.construct_loc_sequence)


def _nesting_bound(text: str) -> int:
    """An upper bound on the document's nesting depth, from the text alone (cheap, no recursion):
    flow brackets, indentation and compact `- - x` runs. Quoted brackets only make it larger."""
    depth = deepest = 0
    for ch in "".join(_NOT_BRACKET.split(text)):
        depth = depth + 1 if ch in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    indent = max((len(m) for m in _INDENT.findall(text)), default=0)
    dashes = max((m.count("-") + m.count("?") for m in _DASH_RUN.findall(text)), default=0)
    return deepest + indent + dashes + 1


def _event_depth(text: str) -> tuple[int, Any]:
    """The true nesting depth and where it is deepest, from the event stream (iterative)."""
    depth = deepest = 0
    mark = None
    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > deepest:
                deepest, mark = depth, event.start_mark
            if depth > MAX_DEPTH:
                break
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return deepest, mark


def _expanded_size(node: yaml.Node) -> int:
    """How many values the document holds once every alias is expanded, without expanding it."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        item, done = stack.pop()
        if id(item) in sizes:
            continue
        children = [] if isinstance(item, yaml.ScalarNode) else \
            [c for pair in item.value for c in pair] if isinstance(item, yaml.MappingNode) else list(item.value)
        if done or not children:
            sizes[id(item)] = min(1 + sum(sizes[id(c)] for c in children), MAX_NODES + 1)
        else:
            stack.append((item, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(node)]


def load_yaml(text: str, filename: str) -> tuple[Any, list[SpecError]]:
    """Parse one YAML document; returns (data or None, problems)."""
    if len(text) > MAX_TEXT_CHARS:
        return None, [SpecError(Location(filename), f"file of {len(text)} characters; specs are at most "
                                                    f"{MAX_TEXT_CHARS}")]
    try:
        if _nesting_bound(text) > MAX_DEPTH:
            deepest, mark = _event_depth(text)
            if deepest > MAX_DEPTH:
                return None, [SpecError(Location(filename, mark.line + 1, mark.column + 1),
                                        f"nested more than {MAX_DEPTH} levels deep; specs are not that deep")]
    except yaml.YAMLError:
        pass  # the loader below reports the syntax error with its location
    loader = _Loader(text)
    loader.filename = filename
    loader.problems = []
    loader.check_tags = bool(_TAG_HINT.search(text))
    loader.check_text = "\\" in text or bool(_CONTROL.search(text))
    try:
        node = loader.get_single_node()
        if node is not None and _ANCHOR_HINT.search(text) and _expanded_size(node) > MAX_NODES:
            return None, [SpecError(Location(filename), f"more than {MAX_NODES} values once aliases are expanded "
                                                        "(an alias repeated too often)")]
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Location(filename, mark.line + 1, mark.column + 1) if mark else Location(filename)
        detail = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        return None, [SpecError(loc, f"invalid YAML: {detail}")]
    except yaml.YAMLError as exc:  # non-marked errors, e.g. bad encoding
        return None, [SpecError(Location(filename), f"invalid YAML: {exc}")]
    finally:
        loader.dispose()
    return data, loader.problems


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
