# Tabulation (push-computation dynamic programming) of arc-hybrid and arc-eager over plain
# arrays; knows nothing of spaCy. See tabulation.pyx and docs/tabulation.md.
# Spec: docs/specs/dp_tabulation.md.

# Move ids: the same values as system_base's move enum (SHIFT, LEFT, RIGHT, ROOT, REDUCE),
# so a decoded sequence indexes system_base.MOVE_NAMES directly (checked by the tests).
cdef enum:
    T_SHIFT = 0
    T_LEFT = 1
    T_RIGHT = 2
    T_ROOT = 3
    T_REDUCE = 9

# Semirings of the generic kernels (docs/specs/dp_tabulation.md §6).
cdef enum:
    SR_MAX = 0      # (max, +): Viterbi, with backpointers
    SR_LOG = 1      # (logaddexp, +): inside
