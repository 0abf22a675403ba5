"""A reader for seed document 004 ("Operation Semantics", sections 3.1-3.141)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SEED = Path(__file__).resolve().parents[1] / "specs" / "sources" / "004_9a4c3bf01a77ae81.txt"
HEADINGS = {"属性": "attributes", "输入": "inputs", "输出": "outputs", "类型限制": "type_constraints"}
_SECTION = re.compile(r"^3\.(\d+)\. (\w+)$", re.M)


@dataclass
class Section:
    number: int
    name: str
    text: str  # the section body, indentation of description lines removed
    bullets: dict[str, list[str]] = field(default_factory=dict)  # kind -> bullet lines (after "• ")

    @property
    def empty(self) -> bool:
        return not self.text.strip()


def read_sections(path: Path = SEED) -> list[Section]:
    raw = path.read_text(encoding="utf-8")
    marks = list(_SECTION.finditer(raw))
    sections = []
    for k, m in enumerate(marks):
        body = raw[m.end(): marks[k + 1].start() if k + 1 < len(marks) else len(raw)]
        section = Section(int(m.group(1)), m.group(2), _dedent(body))
        kind = None
        for line in body.splitlines():
            words = line.split()
            if line.strip() in HEADINGS:
                kind = HEADINGS[line.strip()]
            elif words and words[-1] in HEADINGS and not line.startswith(" "):
                kind = HEADINGS[words[-1]]  # a heading glued to the end of a line (Select's 来源 line)
            elif line.startswith("  • ") and kind:
                section.bullets.setdefault(kind, []).append(line[4:].rstrip())
        sections.append(section)
    return sections


def _dedent(body: str) -> str:
    return "\n".join(line[4:] if line.startswith("    ") else line for line in body.splitlines())


def normalise(text: str) -> str:
    """Whitespace-insensitive form for verbatim comparisons of paragraphs."""
    return re.sub(r"\s+", "", text)
