# Tabular dynamic oracles for arc-standard over plain arrays (knows nothing of spaCy).
# Spec: ../shared/specs/lr_spine_and_arc_standard.md §3.2-3.6.
#
# Oracle space (spec §1, §7): node 0 is the virtual root at the left end, word i of the
# doc is node i+1. A configuration is the stack of nodes (bottom -> top, stk[0] == 0) and
# the first buffer node b (the buffer is b..n).
from libc.stdint cimport int32_t

cdef enum:
    AS_INF = 1 << 28
    AS_UNKNOWN = -2        # gold head unknown (partial annotation): every head is right


cdef struct ASOracleC:
    int n                  # words; nodes are 0..n
    int* head              # gold head node per node (head[0] = -1; AS_UNKNOWN)
    int* kid_start         # CSR gold children per node (0..n), sorted by position
    int* kids
    bint paper_exact       # complete projective gold: the [GSS14] DP (§3.3) is exact
    # §3.6: Eisner complete spans over the words, any sub-interval [s, t] (1 <= s <= t <= n)
    int* Cl                # best tree over s..t headed by t, index s * (n + 1) + t
    int* Cr                # best tree over s..t headed by s
    # scratch (sized once per sentence; T grows on demand)
    int* stk2              # successor stack
    unsigned char* mark
    int* R
    int* X
    int* T
    long T_cap
    int* sidx              # node -> 1-based stack index (top = 1) in the general DP
    int* S0                # general DP layers: S[p * lL + k - 1], p <= m
    int* S1
    int* H0                # H[q], q < m
    int* H1
    int* Ir                # Ir[r * lL + k - 1]
    int* minU
    int* minUnk


cdef int as_build(ASOracleC* o, const int32_t* heads, int n, bint force_general) noexcept nogil
cdef void as_free(ASOracleC* o) noexcept nogil
cdef int as_F(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil
cdef int as_F_paper(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil
cdef int as_F_general(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil
cdef void as_values(ASOracleC* o, const int* stk, int lL, int b, const int* want,
                    int* val) noexcept nogil


cdef class ArcStandardOracle:
    cdef ASOracleC c
