# Tabulation (push-computation dynamic programming) of arc-hybrid and arc-eager over plain
# arrays; knows nothing of spaCy. See tabulation.pyx and docs/tabulation.md.
# Spec: docs/specs/dp_tabulation.md.

# Move ids: the package's one move enum (conventions.pxd), so a decoded sequence indexes
# system_base.MOVE_NAMES directly (checked by the tests).
from .conventions cimport SHIFT, LEFT, RIGHT, ROOT, REDUCE

# Semirings of the generic kernels (docs/specs/dp_tabulation.md §6).
cdef enum:
    SR_MAX = 0      # (max, +): Viterbi, with backpointers
    SR_LOG = 1      # (logaddexp, +): inside
