# Exact optimal step for arc-eager / arc-hybrid against any gold tree (non-projective
# included): the continuation DP of docs/specs/arc_eager_nonproj_oracle.md §6,
# policy PURE (§3.1: no marks), corrected arc-eager (§2.2). Plain C arrays, no spaCy.
#
# Token numbering is the spec's: words 1..n, 0 = the virtual root (bottom of the stack,
# never popped), n+1 = "end of buffer". gold[k] in {0..n} (0 = root), -1 = unknown
# (never counted).
from .oracle_owner cimport OracleOwner

cdef enum:
    NP_SH = 0       # push b as L (shift)
    NP_RA = 1       # push b as R (right-arc; arc to the element below made at its RE)
    NP_LA = 2       # pop an L top onto b (arc b -> top)
    NP_RE = 3       # pop the top into the element below (the root when it is the only word)
    NP_NEG = -1000000   # "minus infinity" (never added to: §12.10)


cdef struct NPOracle:
    int n
    int* gold        # [n+2]
    int* seg_start   # [n+2] largest cut <= x
    int* seg_end     # [n+2] smallest cut > x (n+1 for x = n+1)
    char* nonproj    # [n+2] 1 if the segment of x has crossing gold arcs (root arcs from 0)
    long* I_off      # [n+2] I[x][y] = I_data[I_off[x] + y - x - 1], x < y <= seg_end[x]
    int* I_data
    int* V0          # [n+2] best future gold arcs, empty stack, buffer from j (§6 row p = 0)
    int* work        # scratch rows for np_scores
    int* stack       # scratch for callers: a stack in spec numbering [n+2]
    char* is_R       # scratch for callers: its labels [n+2]


cdef NPOracle* np_oracle_new(const int* gold, int n) noexcept nogil
cdef void np_oracle_free(void* o) noexcept nogil     # an NPOracle* (OracleOwner's free_data)
cdef void np_scores(NPOracle* o, const int* stack, const char* is_R, int k, int j0,
                    int* rho) noexcept nogil


cdef class NPOracleTable(OracleOwner):
    cdef NPOracle* c
