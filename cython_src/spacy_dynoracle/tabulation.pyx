# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""Exact decoding and arc marginals for window-feature transition models: the push-computation
tabulation of Kuhlmann, Gómez-Rodríguez & Satta (2011), spec docs/specs/dp_tabulation.md.

Plain arrays in, plain arrays out; nothing here knows spaCy. Documentation: docs/tabulation.md.

This module is the public face: each system's chart is in its own module over one shared
core, so that a new system's chart adds kernels, not copies of loops:
    tabulation_core.pxd/.pyx    the semirings (max, log) and the cells a fill pushes into,
                                table checks, arc_hybrid's/arc_standard's table holder
    tabulation_hybrid.pyx       arc_hybrid: items [i, j] and context items [i, j; p]
    tabulation_eager.pyx        arc_eager: items [i^b, j] and context items [i^b, j; p]
    tabulation_standard.pyx     arc_standard: items [i, h, j]

Coordinates (the package's, docs/conventions.md). A sentence has words 0..n-1; the virtual
root is not a word. Every score table is indexed by *word positions* of the window in which a
move is taken, with index n (== -1 in numpy) meaning "none": for a stack slot "the virtual
root / nothing", for b0 "the buffer is empty". Table shapes (N1 = n + 1):

arc_hybrid (moves SHIFT, LEFT, RIGHT, ROOT of arc_hybrid.pyx):
    shift[s0, b0]        (N1, N1)      window (s0, b0), docs/specs/dp_tabulation.md §5.4 row 1;
                                       s0 = n: empty stack
    shift[s1, s0, b0]    (N1, N1, N1)  the context variant (docs/specs/dp_tabulation.md §5.4
                                       row 2, §5.5), O(n^4)
    left[s1, s0, b0]     (N1, N1, N1)  s1 = n: s0 is the only word on the stack
    right[s1, s0, b0]    (N1, N1, N1)  s1 a word; b0 = n allowed
    root[s0, b0]         (N1, N1)      our ROOT move = the spec's `ra` with s1 = the virtual root

arc_eager (moves SHIFT, RIGHT, LEFT, REDUCE, ROOT of arc_eager.pyx: Nederhof's corrected
arc-eager, REDUCE pops an R top *or* an L top onto s1; RIGHT never onto an empty stack):
    shift[f, s0, b0], right[f, s0, b0]     (2, N1, N1)      f = head flag of s0 (1: pushed by RIGHT)
    left[s1, s0, b0]                       (N1, N1, N1)     s0 is an L word
    reduce[f, s1, s0, b0]                  (2, N1, N1, N1)  f = head flag of s0
    root[s0, b0]                           (N1, N1)
  (shift/right/reduce may omit the flag axis: the same scores for both flags.)
    context=True: shift[f, s1, s0, b0], right[f, s1, s0, b0] (2, N1, N1, N1) (or without
    the flag axis), chart [i^b, j; p] (docs/specs/dp_tabulation.md §5.4 row 2, §5.5), O(n^4)

arc_standard (SHIFT, LEFT: s0 -> s1, RIGHT: s1 -> s0, ROOT of arc_standard.pyx): the
arc_hybrid tables with a 2-D shift; chart [i, h, j] (docs/specs/dp_tabulation.md §3.1), O(n^5).

Reduce-type tables may omit their leading axes (left/right as [s0, b0]; reduce as [s0, b0]
or [s1, s0, b0]): the kernels read an absent axis with stride 0, and gradients come back in
the shape given.

Internally the chart uses the spec's positions: x = 0 is the virtual root (spec token 0,
ROOT-first), x >= 1 is word x - 1; fence posts j = 0..P with P = n + 1 (b0 = word j - 1,
j = P: empty buffer). The spec's first transition (shifting token 0) does not exist in the
package's systems (the virtual root starts below the stack), so its weight is 0.

Invalid moves: give them -inf. All kernels treat -inf as the semiring zero.
"""
import numpy as np

from .conventions cimport SHIFT, LEFT, RIGHT, ROOT, REDUCE

from .tabulation_eager import eager_inside_outside, eager_viterbi, eager_windows
from .tabulation_hybrid import hybrid_inside_outside, hybrid_viterbi, hybrid_windows
from .tabulation_standard import standard_inside_outside, standard_viterbi, standard_windows

MOVE_NAMES = {SHIFT: "SHIFT", LEFT: "LEFT", RIGHT: "RIGHT", ROOT: "ROOT",
              REDUCE: "REDUCE"}
MOVE_IDS = {"SHIFT": SHIFT, "LEFT": LEFT, "RIGHT": RIGHT, "ROOT": ROOT,
            "REDUCE": REDUCE}

__all__ = ["MOVE_NAMES", "MOVE_IDS", "hybrid_viterbi", "hybrid_inside_outside", "hybrid_windows",
           "eager_viterbi", "eager_inside_outside", "eager_windows", "standard_viterbi",
           "standard_inside_outside", "standard_windows", "eliminate_labels", "move_names"]


def eliminate_labels(scores, axis=-1, semiring="max"):
    """docs/specs/dp_tabulation.md §5.7: labelled move scores -> unlabelled window scores, when
    labels never feed back into the features. semiring="max": (max over labels, argmax label) for
    Viterbi; "log": log-sum-exp over labels for inside/outside."""
    scores = np.asarray(scores, dtype=np.float64)
    if semiring == "max":
        return scores.max(axis=axis), scores.argmax(axis=axis)
    if semiring == "log":
        m = scores.max(axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        with np.errstate(divide="ignore"):
            return np.squeeze(m, axis=axis) + np.log(np.exp(scores - m).sum(axis=axis))
    raise ValueError(f"semiring must be 'max' or 'log', not {semiring!r}")


def move_names(moves):
    """Move ids (as returned by the decoders) -> the package's move names."""
    return [MOVE_NAMES[int(m)] for m in moves]
