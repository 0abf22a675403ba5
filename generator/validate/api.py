"""`validate_model`: read a model of any supported kind, check it, return a Report.

The kind is taken from the file extension (.onnx; .json; .yaml/.yml) and the content: a JSON or
YAML document with "format": "opgen-hlir-graph" is an hlir graph, one with a "graph" list of ops
that have a "kind" is oneDNN Graph JSON; .mlir (MLIR text) and .mlirbc (MLIR bytecode, StableHLO
portable artifacts) are StableHLO programs (opgen.validate.stablehlo_reader, needs `opgen[xla]`), as is
a file or bytes whose content is MLIR bytecode or text of a module; other bytes are tried as an ONNX
protobuf.
"""
from __future__ import annotations

import gc
import json
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..graph import Graph
from .checker import Checker, IncompleteOutput
from .limits import DEFAULT_LIMITS, RUN_LIMITS, Limits, ModelReadError, read_model_file
from .registry import Registry, make_registry
from .report import Record, Report

if TYPE_CHECKING:
    from ..runtime.validation import Signature

KINDS = ("onnx", "onednn", "hlir", "stablehlo")
# Each reader, and yaml, is imported when a model of its kind comes: the fixed cost of validating a
# small ONNX model is mostly imports.
_YAML_LOADER: Any = None  # None: yaml's C loader when it has one (tests set another)


def validate_model(model: Any, *, allow_unknown_ops: bool = False, specs: str | os.PathLike[str] | None = None,
                   kind: str | None = None, limits: Limits = DEFAULT_LIMITS,
                   registry: Registry | None = None) -> Report:
    """Check every node of a model against its spec, and the graph itself.

    model: a path (.onnx, oneDNN Graph .json, hlir graph .json/.yaml), an onnx.ModelProto, the bytes
    of an ONNX file, or an already-parsed JSON/YAML document (dict). kind forces "onnx", "onednn" or
    "hlir". specs: a spec folder to validate against instead of the generated package.
    Raises ModelReadError when the model cannot be read (the CLI exits with 2).
    """
    if registry is None:
        registry = make_registry(specs)
    return _check(model, kind, limits, registry, allow_unknown_ops, as_declared=True)[0]


def check_and_read(model: Any, *, kind: str | None = None, specs: str | os.PathLike[str] | None = None,
                   limits: Limits = RUN_LIMITS) -> tuple[Report, Graph]:
    """Validate a model and keep the graph the validation walked (every constant keeping its value, as
    the runner needs): `opgen run` reads a model once, checks it, then runs the same graph. An ONNX model
    is checked as declared first, as validate_model does; the values it leaves undescribed take the
    descriptions the check found (the runner's output keywords read them), and onnx.shape_inference runs
    only where the specs leave a node output incomplete."""
    return _check(model, kind, limits, make_registry(specs), False, as_declared=True, complete_graph=True)


def _check(model: Any, kind: str | None, limits: Limits, registry: Registry,
           allow_unknown_ops: bool, as_declared: bool = False, complete_graph: bool = False) -> tuple[Report, Graph]:
    """as_declared: an ONNX model is checked as the file describes it, and completed by shape inference
    (read and checked again) only when the specs leave a node output incomplete. complete_graph: the
    values the file leaves undescribed take what the check found (graph.inferred lists them), so the
    graph returned describes every value the specs or inference could tell, as the runner needs."""
    collecting = gc.isenabled()
    # Parsing and reading allocate 10^6+ objects and free none: cyclic collections would only cost time
    # (with them, json.loads of a 100 000-op oneDNN graph took twice as long).
    gc.disable()
    try:
        completed = None
        name, kind, source = _identify(model, _known(kind), limits)
        if as_declared and kind == "onnx":
            from .onnx_reader import read_onnx_as_declared

            graph, context, records, completed = read_onnx_as_declared(source, registry, limits)
        else:
            graph, context, records = _read_identified(name, kind, source, limits, registry)
        del source  # a parsed JSON/YAML document is freed before the check, as the reading left it
        checker = Checker(registry, allow_unknown_ops, limits, stop_if_incomplete=completed is not None,
                          complete_graph=complete_graph)
        try:
            checker.check(graph)
        except IncompleteOutput:
            assert completed is not None
            del graph  # the model completed by inference is read in its place
            graph, context, records = completed()
            checker = Checker(registry, allow_unknown_ops, limits, complete_graph=complete_graph)
            checker.check(graph)
    except RecursionError:
        raise ModelReadError("the model nests too deeply to be read") from None
    except MemoryError:
        raise ModelReadError("the model does not fit in memory") from None
    finally:
        if collecting:
            gc.enable()
    report = Report(name, kind, context, checker.nodes, records + checker.records, dict(checker.unchecked))
    return report, graph


def read_model(model: Any, *, kind: str | None = None, limits: Limits = RUN_LIMITS,
               specs: str | os.PathLike[str] | None = None) -> tuple[Graph, list[Record]]:
    """A model file (or document, or ModelProto) read into opgen's graph model (opgen.graph.Graph), with
    the problems the reading itself found; the same Graph that validate_model checks, and that
    opgen.runtime.graph_runner.GraphFunction runs (so by default every constant keeps its value:
    validation keeps only small ones). Raises ModelReadError when it cannot be read."""
    _, _, graph, _, records = _read(model, kind, limits, make_registry(specs))
    return graph, records


def _read(model: Any, kind: str | None, limits: Limits, registry: Registry) -> tuple[str, str, Graph, str, list[Record]]:
    name, kind, source = _identify(model, _known(kind), limits)
    return (name, kind, *_read_identified(name, kind, source, limits, registry))


def _known(kind: str | None) -> str | None:
    if kind is not None and kind not in KINDS:
        raise ModelReadError(f"unknown model kind {kind!r}; expected one of {', '.join(KINDS)}")
    return kind


def _read_identified(name: str, kind: str, source: Any, limits: Limits,
                     registry: Registry) -> tuple[Graph, str, list[Record]]:
    if kind == "onnx":
        from .onnx_reader import read_onnx

        graph, context, records = read_onnx(source, registry, limits)
    elif kind == "onednn":
        from .onednn_reader import read_onednn

        graph, context, records = read_onednn(source, registry, limits)
    elif kind == "stablehlo":
        from .stablehlo_reader import read_stablehlo

        graph, context, records = read_stablehlo(source, name, registry.stablehlo_ops(), limits,
                                                 partial(_newest_hlir_signature, registry))
    else:
        from .hlir_reader import read_hlir
        from .resources import hlir_graph_schema

        graph, context, records = read_hlir(source, limits, hlir_graph_schema(registry.specs_dir))
    return graph, context, records


def _newest_hlir_signature(registry: Registry, op: str) -> Signature | None:
    """The signature of the newest version of an hlir op; None for an op the registry lacks."""
    from .registry import UnknownOp

    try:
        return registry.lookup("hlir", op, None).signature
    except UnknownOp:
        return None


def _identify(model: Any, kind: str | None, limits: Limits) -> tuple[str, str, Any]:
    """(name shown in the report, kind, what the reader takes)."""
    if isinstance(model, (dict, list)):
        return "<model>", kind or _kind_of_document(model), model
    if isinstance(model, (bytes, bytearray)):
        from .stablehlo_reader import is_stablehlo

        return "<model>", kind or ("stablehlo" if is_stablehlo(bytes(model)) else "onnx"), bytes(model)
    if type(model).__name__ == "ModelProto":
        return "<model>", kind or "onnx", model
    if not isinstance(model, (str, os.PathLike)):
        raise ModelReadError(f"cannot validate a {type(model).__name__}; give a path, an onnx.ModelProto, bytes "
                             "or a parsed JSON/YAML document")
    path = Path(model)
    name = str(model)
    if not path.is_file():
        raise ModelReadError("no such file" if not path.exists() else "not a file")
    suffix = path.suffix.lower()
    if kind == "onnx" or (kind is None and suffix == ".onnx"):
        return name, "onnx", path
    if kind == "stablehlo" or (kind is None and suffix in (".mlir", ".mlirbc")):
        size = limits.max_text_file_bytes if suffix == ".mlir" else limits.max_onnx_file_bytes
        return name, "stablehlo", read_model_file(path, size)
    text_suffix = suffix in (".json", ".yaml", ".yml")
    data = read_model_file(path, limits.max_text_file_bytes if text_suffix else limits.max_onnx_file_bytes)
    if suffix == ".json" or (not text_suffix and data.lstrip()[:1] in (b"{", b"[")):
        doc = load_json(_text_sized(data, limits), typed=kind or True)
    elif text_suffix:
        doc = load_yaml(data, limits)
    else:  # no telling extension: a StableHLO program, an ONNX protobuf, else a YAML document
        from .onnx_model import load_model
        from .stablehlo_reader import is_stablehlo

        if kind is None and is_stablehlo(data):
            return name, "stablehlo", data

        try:
            return name, kind or "onnx", load_model(data, limits)
        except ModelReadError:
            if kind == "onnx":
                raise
        doc = load_yaml(_text_sized(data, limits), limits)
    return name, kind or _kind_of_document(doc), doc


def _text_sized(data: bytes, limits: Limits) -> bytes:
    """data, when it is small enough to be parsed as JSON/YAML (a file without a telling extension was
    read under the larger ONNX limit)."""
    if len(data) > limits.max_text_file_bytes:
        raise ModelReadError(f"file of {len(data)} bytes exceeds the limit of {limits.max_text_file_bytes} for "
                             "JSON/YAML documents")
    return data


def _kind_of_document(doc: Any) -> str:
    from .hlir_reader import is_hlir
    from .onednn_reader import is_onednn

    if is_hlir(doc):
        return "hlir"
    if is_onednn(doc):
        return "onednn"
    raise ModelReadError('unknown model kind: expected an hlir graph ("format": "opgen-hlir-graph") or oneDNN '
                         'Graph JSON (a "graph" list of ops with "kind")')


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ModelReadError(f"not UTF-8 text (byte {exc.start}) and not an ONNX model") from None


def load_json(data: bytes, typed: str | bool = False) -> Any:
    """typed (True, or the kind to decode): an hlir or oneDNN Graph document comes as typed records when
    they take it whole (opgen.validate.typed_json), any other document as json.loads gives it."""
    if typed:
        from .typed_json import decode

        doc = decode(data, None if typed is True else typed)
        if doc is not None:
            return doc
    # json's C scanner guards its own recursion (RecursionError); check_structure bounds the depth.
    try:
        return json.loads(_text(data))
    except json.JSONDecodeError as exc:
        raise ModelReadError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ModelReadError("the JSON document nests too deeply") from None


def _yaml_loader() -> Any:
    import yaml

    return _YAML_LOADER or getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    import yaml

    text = _text(data)
    try:
        _scan_yaml(text, limits.max_json_depth)
        return yaml.load(text, Loader=_yaml_loader())
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()
        raise ModelReadError(f"not valid YAML: {' '.join(x.strip() for x in first[:3])}") from None
    except (RecursionError, ValueError, OverflowError) as exc:
        raise ModelReadError(f"the YAML document cannot be read: {type(exc).__name__}") from None


def _scan_yaml(text: str, max_depth: int) -> None:
    """Refuse aliases and deep nesting from the event stream, before yaml.load composes the document.

    The event parser keeps its own stack (it does not recurse), but the composer recurses once per
    level: without this scan a document nested 10^5 deep makes the pure-Python loader crawl for
    minutes and a C composer overflow the C stack. The scan stops at the first level too many, so a
    deep document costs only the events up to that level."""
    import yaml

    depth = 0
    starts = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    ends = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    for event in yaml.parse(text, Loader=_yaml_loader()):
        if isinstance(event, starts):
            depth += 1
            if depth > max_depth:
                mark = event.start_mark
                assert mark is not None  # the parser marks every event
                raise ModelReadError(f"the YAML document nests more than {max_depth} levels deep (line "
                                     f"{mark.line + 1}, column {mark.column + 1})")
        elif isinstance(event, ends):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            mark = event.start_mark
            assert mark is not None  # the parser marks every event
            raise ModelReadError(f"YAML aliases (*name) are not allowed in graph files (line {mark.line + 1}, "
                                 f"column {mark.column + 1})")
