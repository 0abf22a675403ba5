"""Cycles among a graph's nodes (opgen.validate.checker reports them)."""
from __future__ import annotations

from ..graph import Node


def find_cycles(nodes: list[Node], producer: dict[str, Node]) -> list[list[Node]]:
    """Strongly connected components with a cycle (iterative Tarjan; node -> producers of its inputs)."""
    index_of = {id(n): k for k, n in enumerate(nodes)}
    deps = [[index_of[id(producer[x])] for x in n.inputs if x in producer] for n in nodes]
    order = [-1] * len(nodes)
    low = [0] * len(nodes)
    on_stack = [False] * len(nodes)
    stack: list[int] = []
    cycles: list[list[Node]] = []
    counter = 0
    for root in range(len(nodes)):
        if order[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                order[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if i < len(deps[v]):
                work.append((v, i + 1))
                w = deps[v][i]
                if order[w] == -1:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], order[w])
                continue
            if work and work[-1][1] > 0:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == order[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or v in deps[v]:
                    cycles.append([nodes[k] for k in sorted(component)])
    return cycles
