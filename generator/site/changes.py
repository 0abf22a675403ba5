"""The changelog in the reader's terms, for the site: what changed from one version of an op to the
next, said as a user of the op sees it (arrows, "now optional", which numbered constraints came or
went, linked to the version that has them) rather than the generator's internal names (broadcast
mode keys, shape-rule names, "T single -> T1 single").

The changes themselves are computed by opgen.render.changelog; only their wording is the site's."""
from __future__ import annotations

from ..model import Constraint, OpSpec, OpVersion
from ..render.changelog import Change, changelog
from ..render.common import md_text

# How an element-wise formula's inputs broadcast, in the reader's words ("-": the version has no
# element-wise formula, so the spec states no broadcasting rule).
_BROADCAST = {
    "-": ("no element-wise broadcasting rule in the spec", "规格中没有逐元素广播规则"),
    "none": ("inputs of the same shape only", "只接受形状相同的输入"),
    "unidirectional": ("the second input broadcasts to the first (ONNX unidirectional broadcasting)",
                       "第二个输入广播到第一个输入 (ONNX 单向广播)"),
    "multidirectional": ("all inputs broadcast together, as in NumPy (ONNX multidirectional broadcasting)",
                         "所有输入按 NumPy 的规则相互广播 (ONNX 多向广播)"),
    "xla": ("equal shapes, or a lower-rank operand placed by broadcast_dimensions (XLA)",
            "形状相同，或由 broadcast_dimensions 放置低维操作数 (XLA)"),
    "onednn_prelu": ("the slope broadcasts to the data's channels (oneDNN PReLU)",
                     "slope 按数据的通道广播 (oneDNN PReLU)"),
    "onnx_prelu_legacy": ("the slope is one value, one value per channel, or broadcasts to X (PRelu before version 7)",
                          "slope 为单个值、每个通道一个值，或可广播到 X (第 7 版之前的 PRelu)"),
}
# A parameter's option as the reader says it.
_OPTION = {"single": ("required", "必需"), "optional": ("optional", "可选"), "variadic": ("variadic", "可变个数")}
_SIDE = {"input": ("input", "输入"), "output": ("output", "输出")}
_WORDS = {
    "en": dict(no_default="none", now_default="default {old} → {new}", type="type {old} → {new}",
               option="now {new} (was {old})", broadcast="broadcasting: {old} → {new}",
               added="new constraint", added_many="new constraints", removed="constraint dropped",
               removed_many="constraints dropped", reworded="constraint", reworded_many="constraints",
               reworded_tail="now checked differently"),
    "zh": dict(no_default="无", now_default="默认值 {old} → {new}", type="类型 {old} → {new}",
               option="改为{new} (原为{old})", broadcast="广播: {old} → {new}",
               added="新增约束", added_many="新增约束", removed="移除约束", removed_many="移除约束",
               reworded="约束", reworded_many="约束", reworded_tail="的检查方式改变"),
}


def _pick(pair: tuple[str, str], lang: str) -> str:
    return pair[0] if lang == "en" else pair[1]


def _constraint_code(c: Constraint) -> str:
    return c.rule or c.check or ""


def _constraint_links(ids: list[str], v: OpVersion, page: str) -> str:
    return ", ".join(f"[{md_text(i)}]({page}#v{v.since_version}-constraints)" for i in ids)


def _constraint_changes(old: OpVersion, new: OpVersion, lang: str, page: str) -> list[str]:
    """Which numbered constraints a version added, dropped or checks differently, by id, each linked
    to the constraints section of the version that has it."""
    W = _WORDS[lang]
    before = {c.id: _constraint_code(c) for c in old.constraints}
    after = {c.id: _constraint_code(c) for c in new.constraints}
    added = [i for i in after if i not in before]
    removed = [i for i in before if i not in after]
    changed = [i for i in after if i in before and after[i] != before[i]]
    out = []
    if added:
        out.append(f"{W['added_many' if len(added) > 1 else 'added']} {_constraint_links(added, new, page)}")
    if removed:
        out.append(f"{W['removed_many' if len(removed) > 1 else 'removed']} {_constraint_links(removed, old, page)}")
    if changed:
        head = W["reworded_many" if len(changed) > 1 else "reworded"]
        out.append(f"{head} {_constraint_links(changed, new, page)} {W['reworded_tail']}")
    return out


def change_text(change: Change, old: OpVersion, new: OpVersion, lang: str, page: str = "") -> list[str]:
    """One computed change as Markdown in the reader's terms (a constraint change may say several
    things). `page`: the op's page when the text is shown on another one (its links then point there)."""
    W, p = _WORDS[lang], dict(change.params)
    if change.kind == "attr_default":
        none = W["no_default"]
        old_default = none if p["old"] == "-" else f"`{p['old']}`"
        new_default = none if p["new"] == "-" else f"`{p['new']}`"
        attribute = "属性" if lang == "zh" else "attribute"
        return [f"{attribute} `{p['name']}`: " + W["now_default"].format(old=old_default, new=new_default)]
    if change.kind == "attr_type":
        attribute = "属性" if lang == "zh" else "attribute"
        return [f"{attribute} `{p['name']}`: " + W["type"].format(old=p["old"], new=p["new"])]
    if change.kind == "param_changed":
        old_type, old_option = p["old"].rsplit(" ", 1)
        new_type, new_option = p["new"].rsplit(" ", 1)
        parts = []
        if old_type != new_type:
            parts.append(W["type"].format(old=f"`{old_type}`", new=f"`{new_type}`"))
        if old_option != new_option:
            parts.append(W["option"].format(old=_pick(_OPTION[old_option], lang), new=_pick(_OPTION[new_option], lang)))
        return [f"{_pick(_SIDE[p['side']], lang)} `{p['name']}`: " + ", ".join(parts)]
    if change.kind == "broadcast":
        return [W["broadcast"].format(old=_pick(_BROADCAST[p["old"]], lang), new=_pick(_BROADCAST[p["new"]], lang))]
    if change.kind == "constraints":
        return _constraint_changes(old, new, lang, page)
    return [md_text(change.text(lang))]


def user_changelog(op: OpSpec, lang: str, page: str = "") -> list[tuple[int, int, list[str]]]:
    """(older since_version, newer since_version, the changes as Markdown), newest first."""
    versions = {v.since_version: v for v in op.versions}
    out = []
    for old, new, changes in changelog(op):
        texts = [t for c in changes for t in change_text(c, versions[old], versions[new], lang, page)]
        out.append((old, new, texts))
    return out
