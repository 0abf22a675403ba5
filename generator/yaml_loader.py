"""Safe YAML loading that keeps the source location of every value.

Mappings become `LocDict` and sequences `LocList`; each records its own location
and the location of each of its values, so any later check can point at
`file:line:column`. Duplicate keys are errors (PyYAML silently keeps the last).
"""
from __future__ import annotations

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


class _Loader(_BaseLoader):
    """A safe loader that builds LocDict/LocList and rejects duplicate keys."""

    filename = "<string>"
    problems: list[SpecError]

    def _loc(self, node: yaml.Node) -> Location:
        return Location(self.filename, node.start_mark.line + 1, node.start_mark.column + 1)

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


def load_yaml(text: str, filename: str) -> tuple[Any, list[SpecError]]:
    """Parse one YAML document; returns (data or None, problems)."""
    loader = _Loader(text)
    loader.filename = filename
    loader.problems = []
    try:
        data = loader.get_single_data()
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
