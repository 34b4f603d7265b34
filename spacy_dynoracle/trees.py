"""Properties of dependency trees given as head arrays (pure Python).

Convention used throughout: ``heads[i]`` is the head of word ``i + 1`` and 0 is the
artificial root, which sits left of word 1 (CoNLL-U numbering). A forest (several words
with head 0, e.g. a multi-sentence Doc) is fine.
"""
from __future__ import annotations

from typing import List, Sequence


def _euler_tour(heads: Sequence[int]):
    """Entry/exit times of a DFS from the artificial root: k descends from h iff
    tin[h] <= tin[k] < tout[h]."""
    n = len(heads)
    children: List[List[int]] = [[] for _ in range(n + 1)]
    for dependent, head in enumerate(heads, 1):
        if not 0 <= head <= n:
            raise ValueError(f"head {head} of word {dependent} is out of range 0..{n}")
        children[head].append(dependent)
    tin = [0] * (n + 1)
    tout = [0] * (n + 1)
    clock = 0
    stack = [(0, 0)]  # (node, index of the next child to visit)
    tin[0] = clock
    clock += 1
    while stack:
        node, next_child = stack[-1]
        if next_child < len(children[node]):
            stack[-1] = (node, next_child + 1)
            child = children[node][next_child]
            tin[child] = clock
            clock += 1
            stack.append((child, 0))
        else:
            stack.pop()
            tout[node] = clock
    if clock != n + 1:
        raise ValueError("heads contain a cycle: not every word descends from the root")
    return tin, tout


def nonprojective_dependents(heads: Sequence[int]) -> List[int]:
    """Words (1-based) whose incoming arc is non-projective, in increasing order.

    Arc h -> d is non-projective iff some word strictly between h and d is not a
    descendant of h; with the root 0 left of word 1 every word descends from it, so root
    arcs are always projective.
    """
    tin, tout = _euler_tour(heads)
    result = []
    for dependent, head in enumerate(heads, 1):
        if head == 0:
            continue
        low, high = (head, dependent) if head < dependent else (dependent, head)
        first, last = tin[head], tout[head]
        for k in range(low + 1, high):
            if not first <= tin[k] < last:
                result.append(dependent)
                break
    return result


def is_projective(heads: Sequence[int]) -> bool:
    return not nonprojective_dependents(heads)
