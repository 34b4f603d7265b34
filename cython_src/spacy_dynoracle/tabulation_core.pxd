# The chart core every tabulation shares (docs/tabulation.md, docs/specs/dp_tabulation.md):
# the two semirings, the cells a rule pushes into, the window tables of arc_hybrid and
# arc_standard. Plain arrays; nothing of spaCy. Each system's chart (fill, trace, outside)
# lives in tabulation_<system>.pyx and is written once for both semirings through `Cells`.

from libc.math cimport exp, log, INFINITY

# Move ids: the package's one move enum (conventions.pxd), so a decoded sequence indexes
# system_base.MOVE_NAMES directly (checked by the tests).
from .conventions cimport SHIFT, LEFT, RIGHT, ROOT, REDUCE

# Semirings of the kernels (docs/specs/dp_tabulation.md §6).
cdef enum:
    SR_MAX = 0      # (max, +): Viterbi, with backpointers
    SR_LOG = 1      # (logaddexp, +): inside


cdef inline int sw(int x, int n) noexcept nogil:
    """Word index of spec stack position x (0 = the virtual root -> n = none)."""
    return n if x == 0 else x - 1


cdef inline double lse2(double a, double b) noexcept nogil:
    if a == -INFINITY:
        return b
    if b == -INFINITY:
        return a
    if a > b:
        return a + log(1.0 + exp(b - a))
    return b + log(1.0 + exp(a - b))


cdef inline double reduce_terms(int sr, const double* buf, int nt, int* arg) noexcept nogil:
    """Semiring sum of buf[0:nt] (docs/specs/dp_tabulation.md §6): max with argmax, or a max-shifted
    log-sum-exp."""
    cdef double m = -INFINITY, s = 0.0
    cdef int x, a = -1
    for x in range(nt):
        if buf[x] > m:
            m = buf[x]
            a = x
    arg[0] = a
    if sr == SR_MAX or m == -INFINITY:
        return m
    for x in range(nt):
        s += exp(buf[x] - m)
    return m + log(s)


cdef inline void lacc(double* M, double* S, double v) noexcept nogil:
    """Running max-shifted log-sum-exp: the value is M + log(S). NaN terms are dropped."""
    if v > M[0]:
        if M[0] > -INFINITY:
            S[0] = S[0] * exp(M[0] - v) + 1.0
        else:
            S[0] = 1.0
        M[0] = v
    elif v > -INFINITY:
        S[0] += exp(v - M[0])


cdef inline double lfin(double M, double S) noexcept nogil:
    return M + log(S) if M > -INFINITY else -INFINITY


# ---- the cells of one chart row (or plane) that rules push into, in either semiring ---------
# A fill pushes each rule instance's value into its consequent cell x; under SR_MAX the cell
# keeps the best value and its backpointer tag, under SR_LOG a running max-shifted sum (M, S)
# that `cells_settle` turns into the cell's value once every rule into it has been pushed
# (docs/specs/dp_tabulation.md §3.4: cell k of a row is complete when the fill reaches k).
# The semiring test is loop-invariant: the compiler (-O3) unswitches the callers' loops.
cdef struct Cells:
    int sr
    double* val      # the chart cells, indexed by x
    int* bp          # their backpointers (SR_MAX), indexed like val
    double* M        # running sums (SR_LOG), indexed like val
    double* S


cdef inline void cells_open(Cells* c, int sr, double* val, int* bp, double* M, double* S,
                            long size) noexcept nogil:
    """Start a row (or plane) of `size` cells; their values must already be -inf."""
    cdef long x
    c.sr = sr
    c.val = val
    c.bp = bp
    c.M = M
    c.S = S
    for x in range(size):
        M[x] = -INFINITY
        S[x] = 0.0


cdef inline void cells_axiom(Cells* c, long x) noexcept nogil:
    """Cell x is an axiom (score 0, no rule): it settles to 0 in both semirings."""
    c.val[x] = 0.0
    c.M[x] = 0.0
    c.S[x] = 1.0


cdef inline double cells_settle(Cells* c, long x) noexcept nogil:
    """Cell x is complete: its value (under SR_LOG, the running sum is written to it)."""
    if c.sr == SR_LOG:
        c.val[x] = lfin(c.M[x], c.S[x])
    return c.val[x]


cdef inline void cells_push(Cells* c, long x, double v, int tag) noexcept nogil:
    """Push a rule instance of value v (backpointer tag) into cell x."""
    if c.sr == SR_MAX:
        if v > c.val[x]:
            c.val[x] = v
            c.bp[x] = tag
    else:
        lacc(&c.M[x], &c.S[x], v)


cdef inline void fill_neg(double* a, long size) noexcept nogil:
    """-inf (the semiring zero) in every cell."""
    cdef long x
    for x in range(size):
        a[x] = -INFINITY


cdef inline const double* table_ptr(const double[::1] a):
    return &a[0]


# ---- arc_hybrid's and arc_standard's window tables (docs/tabulation.md) --------------------
cdef struct Hyb:
    int n
    int ctx
    # untie: negative control only (docs/specs/dp_tabulation.md §9.6): right premise's context
    # not tied
    int untie
    long ls1        # stride of s1 in left / right: N1*N1, or 0 for (s0, b0) tables
    long rs1
    const double* shift
    const double* left
    const double* right
    const double* root


cdef class HybTables:
    cdef Hyb t
    cdef object keep
    cdef public object ndims


cdef class ChartArrays:
    cdef double[::1] chart      # the chart: Viterbi or inside scores
    cdef int[::1] bp            # its backpointers (Viterbi only)
    cdef double[::1] M          # running sums of the row (plane) being filled (cells_open)
    cdef double[::1] S
    cdef double[::1] R0         # context charts: per-head right-premise sums, [k * W + j]
    cdef double[::1] R1
    cdef int[::1] R0m           # and the best reduce code of R0 (Viterbi)
    cdef signed char[::1] out   # the decoded moves (Viterbi)
