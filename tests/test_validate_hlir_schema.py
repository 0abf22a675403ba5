"""The fast path of the hlir graph schema check (`opgen.validate.hlir_schema`): items it calls plain
must be items jsonschema accepts, and a document's verdict and message must be those jsonschema
gives on the whole document."""
from __future__ import annotations

import copy
import json

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opgen.validate import ModelReadError
from opgen.validate.hlir_reader import _path, check_schema
from opgen.validate.hlir_schema import PlainItems, first_errors

from conftest import ROOT

SCHEMA = json.loads((ROOT / "specs" / "schema" / "hlir-graph.schema.json").read_text(encoding="utf-8"))
PLAIN = PlainItems(SCHEMA)
CHECKS = settings(max_examples=400, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def accepted(item, definition: str) -> bool:
    sub = {"$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{definition}"}
    return not list(jsonschema.Draft202012Validator(sub).iter_errors(item))


GOOD = st.sampled_from(["x", "Abs", "_a1", "a" * 1024])
STRINGS = st.one_of(GOOD, GOOD, GOOD, st.sampled_from(["", "1x", "Abs\n", "a b", "é", "a" * 1025, "\ud800"]))
SCALARS = st.one_of(STRINGS, st.none(), st.booleans(), st.integers(-3, 2**49), st.floats(allow_nan=False),
                    st.sampled_from([2**48, 2**48 + 1, 2.0, -1]))
ANY = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(STRINGS, SCALARS, max_size=2))
DTYPES = st.one_of(st.sampled_from(["float", "int64", "bool"]), st.sampled_from(["float33", "f32", 1, None]), ANY)
DIMS = st.one_of(st.integers(0, 4), st.none(), st.integers(0, 4), st.none(), SCALARS)
SHAPES = st.one_of(st.none(), st.lists(DIMS, max_size=4), st.lists(DIMS, max_size=4), st.just([1] * 65),
                   st.just([1] * 64), ANY)


GOOD_DTYPES = st.sampled_from(["float", "int64", "bool"])
GOOD_SHAPES = st.one_of(st.none(), st.lists(st.one_of(st.integers(0, 2**48), st.none()), max_size=64))


@st.composite
def values(draw):
    """Half well-formed items (then the predicate must say plain), half anything."""
    good = draw(st.booleans())
    item = {}
    for key, fine, strategy in (("name", GOOD, STRINGS), ("dtype", GOOD_DTYPES, DTYPES),
                                ("shape", GOOD_SHAPES, SHAPES), ("other", None, ANY)):
        if key == "name" and good or draw(st.integers(0, 9)) < (8 if key != "other" else 1 - good):
            item[key] = draw(fine if good else strategy)
    return item if good else draw(st.one_of(st.just(item), st.just(item), st.just(item), ANY))


@st.composite
def nodes(draw):
    good = draw(st.booleans())
    item = {}
    names = st.lists(st.one_of(STRINGS, STRINGS, STRINGS, SCALARS), max_size=3)
    attributes = st.one_of(st.dictionaries(STRINGS, ANY, max_size=3), ANY)
    fine = {"name": GOOD, "op": GOOD.filter(lambda s: len(s) < 100), "inputs": st.lists(GOOD, max_size=3),
            "outputs": st.lists(GOOD, max_size=3), "attributes": st.dictionaries(GOOD, ANY, max_size=3)}
    for key, strategy in (("name", STRINGS), ("op", STRINGS), ("inputs", names), ("outputs", names),
                          ("attributes", attributes), ("graphs", st.just({})), ("other", ANY)):
        if good and key in ("op", "inputs", "outputs"):
            item[key] = draw(fine[key])
        elif draw(st.integers(0, 9)) < {"graphs": 1 - good, "other": 1 - good, "attributes": 5}.get(key, 9):
            item[key] = draw(fine[key] if good else strategy)
    return item if good else draw(st.one_of(st.just(item), st.just(item), st.just(item), ANY))


SEEN = {"value": [0, 0], "node": [0, 0]}


@CHECKS
@given(values())
def test_a_plain_value_is_one_the_schema_accepts(item):
    plain = PLAIN.value(item)
    SEEN["value"][plain] += 1
    if plain:
        assert accepted(item, "value"), item


@CHECKS
@given(nodes())
def test_a_plain_node_is_one_the_schema_accepts(item):
    plain = PLAIN.node(item)
    SEEN["node"][plain] += 1
    if plain:
        assert accepted(item, "node"), item


def test_the_predicates_are_not_trivially_false():
    # Both answers occur many times. The two tests above run here again (derandomized, so the same
    # examples): under pytest-xdist they may have run in another worker, or not yet.
    for counts in SEEN.values():
        counts[:] = [0, 0]
    test_a_plain_value_is_one_the_schema_accepts()
    test_a_plain_node_is_one_the_schema_accepts()
    assert all(min(counts) > 40 for counts in SEEN.values()), SEEN


def _doc(n: int) -> dict:
    return {"format": "opgen-hlir-graph", "version": 1,
            "inputs": [{"name": "x", "dtype": "float", "shape": [2]}],
            "values": [{"name": f"v{k}", "dtype": "float", "shape": [2]} for k in range(n)],
            "nodes": [{"name": f"n{k}", "op": "Abs", "inputs": ["x"], "outputs": [f"v{k}"]} for k in range(n)]}


MUTATIONS = [
    lambda d: d["nodes"][7].update(op="Abs\n"),  # the schema's pattern accepts a trailing newline
    lambda d: d["nodes"][7].update(op="1bs"),
    lambda d: d["nodes"][3].update(inputs=["x", 3]),
    lambda d: d["nodes"][9].update(extra=1),
    lambda d: d["values"][5].update(dtype="float33"),
    lambda d: d["values"][2].update(shape=[2, -1]),
    lambda d: d["values"][8].update(name=""),
    lambda d: (d["nodes"][4].update(op="1"), d["values"][6].update(shape="x")),
    lambda d: d["nodes"].__setitem__(6, "not a node"),
    lambda d: d.update(extra=True),
]


def shown(errors, locate) -> list[tuple[str, str]]:
    """(path, message) of every error and of every error in their contexts (where best_match looks)."""
    out, stack = [], list(errors)
    while stack:
        e = stack.pop(0)
        out.append((_path(locate(e)), e.message))
        stack.extend(e.context)
    return out


def test_verdicts_and_messages_are_those_of_the_whole_document():
    for mutate in MUTATIONS:
        doc = _doc(10)
        mutate(doc)
        fast = shown(*first_errors(copy.deepcopy(doc), SCHEMA, True))
        full = shown(*first_errors(doc, SCHEMA, False))
        assert fast == full, (fast, full)
        verdicts = []
        for schema in (SCHEMA, SCHEMA | {"$comment": "not the published schema: no fast path"}):
            try:
                check_schema(copy.deepcopy(doc), schema)
                verdicts.append("valid")
            except ModelReadError as exc:
                verdicts.append(str(exc))
        assert verdicts[0] == verdicts[1] and (verdicts[0] == "valid") == (full == [])
    assert first_errors(_doc(10), SCHEMA, True)[0] == []
    fast = shown(*first_errors(dict(_doc(10), nodes=[{"op": "1bs", "inputs": [], "outputs": []}] * 3), SCHEMA, True))
    assert [p for p, _ in fast][:3] == ["nodes[0].op", "nodes[1].op", "nodes[2].op"]  # then the document's echo
