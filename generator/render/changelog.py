"""What changed between consecutive versions of an op, computed from the specs."""
from __future__ import annotations

from dataclasses import dataclass

from ..model import OpSpec, OpVersion

_MESSAGES = {
    "types_added": ("{name}: types added: {items}", "{name}: 新增类型: {items}"),
    "types_removed": ("{name}: types removed: {items}", "{name}: 移除类型: {items}"),
    "attr_added": ("attribute {name} added", "新增属性 {name}"),
    "attr_removed": ("attribute {name} removed", "移除属性 {name}"),
    "attr_default": ("attribute {name}: default {old} -> {new}", "属性 {name}: 默认值 {old} -> {new}"),
    "attr_type": ("attribute {name}: type {old} -> {new}", "属性 {name}: 类型 {old} -> {new}"),
    "param_added": ("{side} {name} added", "新增{side_zh} {name}"),
    "param_removed": ("{side} {name} removed", "移除{side_zh} {name}"),
    "param_changed": ("{side} {name}: {old} -> {new}", "{side_zh} {name}: {old} -> {new}"),
    "function_on": ("became a function (has a function body)", "成为函数 (具有函数体)"),
    "function_off": ("is no longer a function", "不再是函数"),
    "deprecated_on": ("deprecated", "已弃用"),
    "deprecated_off": ("no longer deprecated", "不再弃用"),
    "shape_inference_on": ("shape inference added", "新增形状推断"),
    "shape_inference_off": ("shape inference removed", "移除形状推断"),
    "broadcast": ("broadcasting: {old} -> {new}", "广播: {old} -> {new}"),
    "constraints": ("shape/value constraints changed: {old} -> {new}", "形状/取值约束变化: {old} -> {new}"),
    "summary": ("description changed", "描述已修改"),
}
_SIDE_ZH = {"input": "输入", "output": "输出"}


@dataclass(frozen=True)
class Change:
    kind: str
    params: tuple[tuple[str, str], ...] = ()

    def text(self, lang: str) -> str:
        en, zh = _MESSAGES[self.kind]
        params = dict(self.params)
        params.setdefault("side_zh", _SIDE_ZH.get(params.get("side", ""), ""))
        return (en if lang == "en" else zh).format(**params)


def _c(kind: str, **params: object) -> Change:
    return Change(kind, tuple((k, str(v)) for k, v in params.items()))


def diff(old: OpVersion, new: OpVersion) -> list[Change]:
    out: list[Change] = []
    old_tc = {t.name: t.types for t in old.type_constraints}
    for tc in new.type_constraints:
        before = old_tc.get(tc.name, ())
        added = [t for t in tc.types if t not in before]
        removed = [t for t in before if t not in tc.types]
        if added and before:
            out.append(_c("types_added", name=tc.name, items=", ".join(added)))
        if removed:
            out.append(_c("types_removed", name=tc.name, items=", ".join(removed)))
    old_attrs = {a.name: a for a in old.attributes}
    new_attrs = {a.name: a for a in new.attributes}
    out += [_c("attr_added", name=n) for n in new_attrs if n not in old_attrs]
    out += [_c("attr_removed", name=n) for n in old_attrs if n not in new_attrs]
    # Spec order, not a set: a set's order follows the string hash, which PYTHONHASHSEED varies, and the
    # changelog would differ from build to build.
    for name in [n for n in new_attrs if n in old_attrs]:
        a, b = old_attrs[name], new_attrs[name]
        if a.type != b.type:
            out.append(_c("attr_type", name=name, old=a.type, new=b.type))
        if (a.has_default, a.default) != (b.has_default, b.default):
            out.append(_c("attr_default", name=name, old=a.default if a.has_default else "-",
                          new=b.default if b.has_default else "-"))
    for side, params_before, params_after in (("input", old.inputs, new.inputs), ("output", old.outputs, new.outputs)):
        b_map, a_map = {p.name: p for p in params_before}, {p.name: p for p in params_after}
        out += [_c("param_added", side=side, name=n) for n in a_map if n not in b_map]
        out += [_c("param_removed", side=side, name=n) for n in b_map if n not in a_map]
        for n in [n for n in a_map if n in b_map]:  # spec order (see the attributes above)
            p, q = b_map[n], a_map[n]
            if (p.type, p.option) != (q.type, q.option):
                out.append(_c("param_changed", side=side, name=n, old=f"{p.type} {p.option}", new=f"{q.type} {q.option}"))
    if bool(old.function) != bool(new.function):
        out.append(_c("function_on" if new.function else "function_off"))
    if old.deprecated != new.deprecated:
        out.append(_c("deprecated_on" if new.deprecated else "deprecated_off"))
    if bool(old.shape_inference) != bool(new.shape_inference):
        out.append(_c("shape_inference_on" if new.shape_inference else "shape_inference_off"))
    ob = old.elementwise.broadcast if old.elementwise else "-"
    nb = new.elementwise.broadcast if new.elementwise else "-"
    if ob != nb:
        out.append(_c("broadcast", old=ob, new=nb))
    oc = ", ".join(c.rule or c.check or "" for c in old.constraints) or "-"
    nc = ", ".join(c.rule or c.check or "" for c in new.constraints) or "-"
    if oc != nc and ob == nb:
        out.append(_c("constraints", old=oc, new=nc))
    if old.summary != new.summary:
        out.append(_c("summary"))
    return out


def changelog(op: OpSpec) -> list[tuple[int, int, list[Change]]]:
    """(older since_version, newer since_version, changes), newest first."""
    vs = op.versions
    return [(vs[k + 1].since_version, vs[k].since_version, diff(vs[k + 1], vs[k])) for k in range(len(vs) - 1)]
