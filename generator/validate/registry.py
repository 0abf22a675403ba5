"""Where validators come from: the generated package `opgen_ops` (default), or a spec folder whose
op modules are rendered by opgen's own Python renderer and run in memory (`--specs DIR`)."""
from __future__ import annotations

import difflib
import functools
import os
import types
from pathlib import Path
from typing import Any, Callable

from ..runtime.validation import Signature
from .limits import ModelReadError
from ..errors import OpgenError


class UnknownOp(OpgenError, LookupError):
    """No spec for an op, or none of its versions serves the requested opset."""


class Entry:
    """One resolved op version: its signature, its generated validator and facts the checker uses."""

    __slots__ = ("key", "signature", "validator", "uses_values")

    def __init__(self, signature: Signature, validator: Callable[..., Any]):
        self.key = signature.key  # domain.Op@since_version
        self.signature = signature
        self.validator = validator
        self.uses_values = uses_values(signature)


def _code_names(fn: Any, seen: set[int]) -> set[str]:
    """Names a function's code (and the module-level helpers it calls) refer to."""
    code = getattr(fn, "__code__", None)
    if code is None or id(code) in seen:
        return set()
    seen.add(id(code))
    names: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    module_globals = getattr(fn, "__globals__", {})
    for name in list(names):
        helper = module_globals.get(name)
        if isinstance(helper, types.FunctionType) and helper.__module__ == fn.__module__:
            names |= _code_names(helper, seen)
    return names


def uses_values(sig: Signature) -> bool:
    """Whether any check or shape rule of the signature reads constant values (CheckContext.value)."""
    from ..runtime.shape_rules import RULES

    seen: set[int] = set()
    names: set[str] = set()
    for check in sig.checks:
        names |= _code_names(check.test, seen)
        if check.when is not None:
            names |= _code_names(check.when, seen)
    for call in sig.rules:
        rule = RULES.get(call.rule)
        if rule is not None:
            names |= _code_names(rule.fn, seen)
    return bool(names & {"value", "values", "_variadic_values"})


class Registry:
    """Resolves (domain, op, opset) to an Entry, caching every answer (including 'unknown')."""

    verdict_memo: Any = None  # the node verdicts of the checks against this registry (verdicts.py)

    def __init__(self, specs_dir: Path | None = None):
        self.specs_dir = specs_dir
        self._entries: dict[tuple[str, str, int | None], Entry | UnknownOp] = {}

    def lookup(self, domain: str, op: str, version: int | None) -> Entry:
        key = (domain, op, version)
        found = self._entries.get(key)
        if found is None:
            try:
                found = self._resolve(domain, op, version)
            except UnknownOp as exc:
                found = self._unread(domain, op) or exc
            self._entries[key] = found
        if isinstance(found, UnknownOp):
            # the cached exception raised afresh: a re-raise would extend its traceback every time
            raise found.with_traceback(None)
        return found

    def _resolve(self, domain: str, op: str, version: int | None) -> Entry:
        raise NotImplementedError

    def _unread(self, domain: str, op: str) -> UnknownOp | None:
        """An operation of a StableHLO program that a spec names but the reader kept as it is (its form is one
        the hlir op cannot state: the reader's warning at the node says why); "no spec" would be untrue."""
        if domain not in ("stablehlo", "chlo"):
            return None
        hlir_op = self.stablehlo_ops().get(f"{domain}.{op}")
        if hlir_op is None:
            return None
        return UnknownOp(f"{domain}.{op} stands for hlir.{hlir_op}, but this use of it is one hlir.{hlir_op} "
                         "cannot state, so it is read as an unknown op (the warning at this node says why)")

    def stablehlo_ops(self) -> dict[str, str]:
        """StableHLO/CHLO op name -> the hlir op whose spec lists it in its `stablehlo` field."""
        raise NotImplementedError

    def _refuse_other_onnx_domain(self, domain: str, op: str, homes: dict[str, str]) -> None:
        """A default-domain node never resolves to an op of another ONNX operator domain (`homes`: op ->
        its ONNX domain), though the op's spec lives in the onnx spec domain."""
        home = homes.get(op) if domain == "onnx" else None
        if home is not None:
            raise UnknownOp(f"no spec for {op} in the default ONNX domain: {op} is an op of ONNX domain {home} "
                            f"(give the node domain {home!r} and import an opset of it)")

    def has_domain(self, name: str) -> bool:
        raise NotImplementedError

    def dtype_names(self, domain: str) -> dict[str, str]:
        """The domain's own dtype spellings (domain.yaml `dtype_names`), e.g. oneDNN f32 -> float."""
        raise NotImplementedError


class GeneratedRegistry(Registry):
    """The generated package `opgen_ops`."""

    def __init__(self, specs_dir: Path | None = None):
        super().__init__(specs_dir)
        import opgen_ops

        self._ops = opgen_ops
        self._dtype_names: dict[str, dict[str, str]] = {}
        # (ONNX domain, op) -> spec domain, in packages generated since ops of other ONNX domains exist
        self._onnx_domain_ops: dict[tuple[str, str], str] = getattr(opgen_ops, "ONNX_DOMAIN_OPS", {})
        self._homes = {o: d for d, o in self._onnx_domain_ops}

    def _resolve(self, domain: str, op: str, version: int | None) -> Entry:
        self._refuse_other_onnx_domain(domain, op, self._homes)
        try:
            return Entry(self._ops.get_signature(domain, op, version), self._ops.get_validator(domain, op, version))
        except self._ops.UnknownOpError as exc:
            raise UnknownOp(str(exc)) from None

    def has_domain(self, name: str) -> bool:
        return name in self._ops.DOMAINS or name in self._homes.values()

    def dtype_names(self, domain: str) -> dict[str, str]:
        if domain not in self._dtype_names:
            from .resources import domain_dtype_names

            self._dtype_names[domain] = domain_dtype_names(domain, self.specs_dir)
        return self._dtype_names[domain]

    def stablehlo_ops(self) -> dict[str, str]:
        from .resources import stablehlo_names

        return stablehlo_names(self.specs_dir)


class SpecRegistry(Registry):
    """A spec folder: loaded and checked once, each op's module rendered and run on first use."""

    def __init__(self, specs_dir: Path):
        super().__init__(specs_dir)
        from ..parse import load_specs

        specs, errors = load_specs(specs_dir)
        real = [e for e in errors if e.severity == "error"]
        if real:
            shown = "; ".join(str(e) for e in real[:3]) + (f"; and {len(real) - 3} more" if len(real) > 3 else "")
            raise ModelReadError(f"the specs in {specs_dir} have {len(real)} error(s): {shown}")
        if not specs.domains:
            raise ModelReadError(f"no spec domains in {specs_dir}")
        self.specs = specs
        self._modules: dict[tuple[str, str], dict[str, Any]] = {}
        # op -> its ONNX operator domain, for the onnx specs of domains other than the default one
        onnx_specs = specs.domain("onnx")
        self._homes = {o.name: o.onnx_domain for o in (onnx_specs.ops if onnx_specs else ()) if o.onnx_domain}

    def _module(self, domain: str, name: str) -> dict[str, Any]:
        key = (domain, name)
        if key not in self._modules:
            from ..render.python_ops import render_op

            op = self.specs.find(domain, name)
            assert op is not None  # _resolve found the spec before asking for its module
            spec_domain = self.specs.domain(domain)
            float32 = spec_domain is not None and spec_domain.float_attributes == "float32"
            source = render_op(op, float32).decode("utf-8")
            namespace: dict[str, Any] = {"__name__": f"opgen_specs_{domain}_{name}"}
            exec(compile(source, f"<{domain}/{name}.yaml rendered>", "exec"), namespace)  # noqa: S102
            self._modules[key] = namespace
        return self._modules[key]

    def _resolve(self, domain: str, op: str, version: int | None) -> Entry:
        self._refuse_other_onnx_domain(domain, op, self._homes)
        if self._homes.get(op) == domain:
            domain = "onnx"  # the node's ONNX domain (ai.onnx.ml, ...): its ops are onnx specs
        spec = self.specs.find(domain, op)
        if spec is None:
            d = self.specs.domain(domain)
            close = difflib.get_close_matches(op, [o.name for o in d.ops], n=3) if d else []
            hint = ((f" (did you mean {', '.join(close)}?)" if close else f" ({len(d.ops)} ops in {domain})") if d
                    else f"; domains: {', '.join(x.name for x in self.specs.domains)}")
            raise UnknownOp(f"no spec for {domain}.{op}{hint}")
        v = spec.resolve(version) if version is not None else spec.versions[0]
        if v is None:
            raise UnknownOp(f"{domain}.{op} has no version <= {version}; versions: "
                            f"{[x.since_version for x in spec.versions]}")
        module = self._module(domain, op)
        return Entry(module["SIGNATURES"][v.since_version], module["VALIDATORS"][v.since_version])

    def has_domain(self, name: str) -> bool:
        return self.specs.domain(name) is not None or name in self._homes.values()

    def dtype_names(self, domain: str) -> dict[str, str]:
        d = self.specs.domain(domain)
        return dict(d.dtype_names) if d else {}

    def stablehlo_ops(self) -> dict[str, str]:
        d = self.specs.domain("hlir")
        return {name: op.name for op in (d.ops if d else ()) for name in op.stablehlo}


@functools.lru_cache(maxsize=1)
def _generated_registry() -> GeneratedRegistry:
    """The one registry of the generated package: its entries (signature, validator, whether a check
    reads values) never change within a process, and resolving them again for every model cost more
    than reading a small model."""
    return GeneratedRegistry()


def make_registry(specs_dir: Path | str | os.PathLike[str] | None = None) -> Registry:
    if specs_dir is None:
        return _generated_registry()
    path = Path(specs_dir)
    if not path.is_dir():
        raise ModelReadError(f"specs folder not found: {path}")
    return SpecRegistry(path)
