"""`opgen new DOMAIN.OP`: a starter spec in the right folder.

The starter is a valid spec (it builds) with one version, one input, one output and one type
constraint, whose texts are placeholders beginning with "TODO" that `opgen lint` reports until they are
written. It cites the document the domain's specs cite most, which the author changes if the op
comes from elsewhere (the document must be in the spec folder's sources/)."""
from __future__ import annotations

import collections
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import OpgenError

PLACEHOLDER = "TODO"  # texts starting with it are unwritten: `opgen lint` reports them
_OP = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


class NewSpecError(OpgenError):
    pass


@dataclass(frozen=True)
class Starter:
    path: Path
    text: str


def starter_spec(specs_dir: Path, domain: str, op: str, category: str, source: str | None) -> Starter:
    from .errors import suggest
    from .parse import load_specs

    if not _OP.fullmatch(op):
        raise NewSpecError(f"{op!r} is not an op name: a letter or _, then letters, digits or '_' (up to 100)")
    specs, errors = load_specs(specs_dir)
    if any(e.severity == "error" for e in errors):
        raise NewSpecError(f"the specs in {specs_dir} have errors; `opgen build --specs {specs_dir}` lists them")
    found = specs.domain(domain)
    if found is None:
        names = [d.name for d in specs.domains]
        raise NewSpecError(f"no domain {domain!r} in {specs_dir}{suggest(domain, names)}; its domains: "
                           f"{', '.join(names) or 'none'} (a domain is a folder with a domain.yaml)")
    clash = [o.name for o in found.ops if o.name.lower() == op.lower()]
    if clash:
        raise NewSpecError(f"{domain}.{clash[0]} exists already: {specs_dir / domain / (clash[0] + '.yaml')}")
    cited = collections.Counter(s.document for o in found.ops for s in o.sources)
    document = source or (cited.most_common(1)[0][0] if cited else None)
    if document is None:
        raise NewSpecError(f"no {domain} spec cites a source document yet: name the op's source with --source "
                           f"FILE (a file in {specs_dir / 'sources'})")
    if not (specs_dir / "sources" / document).is_file():
        raise NewSpecError(f"{document!r} is not in {specs_dir / 'sources'}: add the document there first")
    # The starter's type: float when the domain's type groups have it (the example below holds floats),
    # else the first floating type they have, else float.
    declared = [t for g in found.type_groups for t in g.types]
    element = next((t for t in declared if t == "tensor(float)"),
                   next((t for t in declared if t in _FLOATING), "tensor(float)"))
    text = _TEMPLATE.format(op=op, domain=domain, category=category, document=document, element=element,
                            example_dtype=element[len("tensor("):-1], todo=PLACEHOLDER,
                            version=found.opset_versions[-1] if found.opset_versions else 1)
    return Starter(specs_dir / domain / f"{op}.yaml", text)


_FLOATING = ("tensor(double)", "tensor(float16)", "tensor(bfloat16)")

_TEMPLATE = """\
# yaml-language-server: $schema=../schema/op.schema.json
# A starter written by `opgen new`: fill in every TODO (`opgen lint` lists them), then `opgen build`.
# The spec-authoring guide (generated/docs/en/guide.md) explains every field.
name: {op}
domain: {domain}
category: {category}
sources:
  - {{document: {document}}}
versions:
  - since_version: {version}
    summary:
      en: "{todo}: what {op} computes, in one or two sentences."
      zh: "{todo}：用一两句话说明 {op} 的计算。"
    inputs:
      - name: X
        type: T
        description: {{en: "{todo}: the input.", zh: "{todo}：输入。"}}
    outputs:
      - name: Y
        type: T
        description: {{en: "{todo}: the output.", zh: "{todo}：输出。"}}
        shape: shape(X)
    type_constraints:
      - name: T
        types: [{element}]
        description: {{en: "{todo}: the element types allowed.", zh: "{todo}：允许的元素类型。"}}
    # Once the op has a kernel (`formula:` or `kernel:`), give it examples: the generated tests run each
    # through the kernel. Expected values come from an independent reference, named in `source`.
    # examples:
    #   - name: basic
    #     description: {{en: "What this example shows.", zh: "此示例说明的内容。"}}
    #     source: "the reference that computed the outputs (e.g. torch.nn.functional.relu)"
    #     dtype: {example_dtype}
    #     inputs: {{X: [-1.0, 0.0, 2.0]}}
    #     outputs: {{Y: [0.0, 0.0, 2.0]}}
"""
