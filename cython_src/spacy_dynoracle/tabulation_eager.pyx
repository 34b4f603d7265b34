# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""arc_eager's chart, the package variant (docs/specs/dp_tabulation.md §3.2, with the corrected
REDUCE; the context variant §5.4 row 2, §5.5): Viterbi with backtrace, inside-outside with arc
marginals and gradients, and the windows it reads. Tables and coordinates: docs/tabulation.md
and tabulation.pyx; the semirings and cells: tabulation_core.pxd."""
import numpy as np

from libc.math cimport exp, INFINITY

from .tabulation_core cimport (SHIFT, LEFT, RIGHT, ROOT, REDUCE, SR_MAX, SR_LOG, Cells,
                               ChartArrays, cells_axiom, cells_open, cells_push, cells_settle,
                               fill_neg, lacc, lfin, lse2, reduce_terms, sw, table_ptr)
from .tabulation_core import (check_table, flagged_table, root_size, rule_instances, s1_table,
                              sum_missing, word_of)

cdef double NEG = -INFINITY


cdef struct Eag:
    int n
    # ctx: context items [i^b, j; p] (docs/specs/dp_tabulation.md §5.5): shift/right also read s1
    int ctx
    # untie: negative control only (docs/specs/dp_tabulation.md §9.6): right premise's context
    # not tied
    int untie
    const double* shift     # [f, s0, b0]; context chart: [f, s1, s0, b0]
    const double* right     # [f, s0, b0]; context chart: [f, s1, s0, b0]
    const double* left      # [s1, s0, b0]
    const double* reduce    # [f, s1, s0, b0]
    const double* root      # [s0, b0]
    long ls1                # strides (0 for an absent axis): s1 of left,
    long ds1                # s1 of reduce,
    long dfl                # flag of reduce


# Reduce codes of a rule instance (tag % 8): which push made k, which move popped it.
cdef enum:
    E_SH_LEFT = 0
    E_SH_REDUCE = 1      # REDUCE of an L top (the correction of an earlier SHIFT)
    E_SH_ROOT = 2
    E_RA_REDUCE = 3      # REDUCE of an R top (its pending right arc)


cdef inline long ecidx(int W, int p, int b, int i, int j) noexcept nogil:
    """Item [i^b, j; p] of the context chart; p = 0 is the plain chart's item [i^b, j]."""
    return ((<long>p * 2 + b) * W + i) * W + j


cdef inline bint e_code_allowed(int code, int i) noexcept nogil:
    """The virtual root (i = 0) is never reduced onto; ROOT needs it below s0."""
    if i == 0:
        return code == E_SH_LEFT or code == E_SH_ROOT
    return code != E_SH_ROOT


cdef inline long e_push_at(const Eag* t, int b, int p, int i, int k) noexcept nogil:
    """Index of the push of k onto top i (flag b, p directly below i in the context chart)
    in the shift or right table: window (s1 = p, s0 = i, b0 = k); p = 0 (the virtual root)
    reads as none."""
    cdef int n = t.n, N1 = t.n + 1
    if t.ctx:
        return ((b * N1 + sw(p, n)) * N1 + sw(i, n)) * N1 + k - 1
    return (b * N1 + sw(i, n)) * N1 + k - 1


cdef inline double e_push(const Eag* t, int code, int b, int p, int i, int k) noexcept nogil:
    """Push of k onto top i: SHIFT, or RIGHT for an R top's rule (never onto an empty stack)."""
    if code == E_RA_REDUCE:
        if i == 0:
            return NEG
        return t.right[e_push_at(t, b, p, i, k)]
    return t.shift[e_push_at(t, b, p, i, k)]


cdef inline const double* e_pop_row(const Eag* t, int code, int i, int k) noexcept nogil:
    """The reduce-type move of rules [i,k][k,.] (window s1 = i, s0 = k) as a row over j:
    row[j] is its score at b0 = j - 1. The rule must be allowed (e_code_allowed)."""
    cdef int N1 = t.n + 1
    if code == E_SH_LEFT:
        return t.left + sw(i, t.n) * t.ls1 + (k - 1) * N1 - 1
    if code == E_SH_ROOT:
        return t.root + (k - 1) * N1 - 1
    return t.reduce + (t.dfl if code == E_RA_REDUCE else 0) + (i - 1) * t.ds1 + (k - 1) * N1 - 1


cdef inline double e_pop(const Eag* t, int code, int i, int k, int j) noexcept nogil:
    """The reduce-type move of rule [i,k][k,j]: window s1 = i, s0 = k, b0 = j."""
    if not e_code_allowed(code, i) or (code == E_SH_LEFT and j > t.n):
        return NEG
    return e_pop_row(t, code, i, k)[j]


cdef inline int e_pushed_flag(int code) noexcept nogil:
    """Head flag of the pushed word k: 1 if RIGHT pushed it (the rule ends in an R top's REDUCE)."""
    return 1 if code == E_RA_REDUCE else 0


cdef inline void e_credit(const Eag* t, int code, int b, int p, int i, int k, int j, double pe,
                          double* marg, double* g_shift, double* g_right, double* g_left,
                          double* g_reduce, double* g_root) noexcept nogil:
    """Posterior pe of rule instance [p; b; i,k][i; f; k,j] (f of `code`) into the arc marginals
    and, if g_shift != NULL, the expected move counts of its push and its reduce-type move."""
    cdef int n = t.n, N1 = t.n + 1
    if code == E_SH_LEFT:
        marg[(k - 1) * n + j - 1] += pe
    elif code == E_SH_ROOT:
        marg[(k - 1) * n + k - 1] += pe
    else:
        marg[(k - 1) * n + i - 1] += pe
    if g_shift == NULL:
        return
    if code == E_RA_REDUCE:
        g_right[e_push_at(t, b, p, i, k)] += pe
    else:
        g_shift[e_push_at(t, b, p, i, k)] += pe
    if code == E_SH_LEFT:
        g_left[(sw(i, n) * N1 + k - 1) * N1 + j - 1] += pe
    elif code == E_SH_ROOT:
        g_root[(k - 1) * N1 + j - 1] += pe
    else:
        g_reduce[((e_pushed_flag(code) * N1 + i - 1) * N1 + k - 1) * N1 + j - 1] += pe


cdef void eag_fill(const Eag* t, int sr, double* C, int* bp, double* M, double* S) noexcept nogil:
    """C[b][i][j] (docs/specs/dp_tabulation.md §3.2 implementation form): push computation of i
    (flag b) over [i, j). Rule [i^b,k][k^b',j] |- [i^b,j]: b' = 0 (k pushed by SHIFT) then LEFT (j <
    P), REDUCE (i a word) or ROOT (i = 0); b' = 1 (k pushed by RIGHT, i a word) then REDUCE.
    Same order as hyb_fill: i descending, k ascending, rules pushed into j > k."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int i, j, k, b, nb, code
    cdef double L, base
    cdef Cells row
    cdef const double* Rk
    cdef const double* prow
    fill_neg(C, <long>2 * W * W)
    for i in range(P - 1, -1, -1):
        nb = 2 if i > 0 else 1               # the virtual root has no head flag
        for b in range(nb):
            cells_open(&row, sr, C + ecidx(W, 0, b, i, 0),
                       bp + ecidx(W, 0, b, i, 0) if bp != NULL else NULL, M, S, W)
            cells_axiom(&row, i + 1)
            for k in range(i + 1, P):
                L = cells_settle(&row, k)
                if L == NEG:
                    continue
                for code in range(4):
                    if not e_code_allowed(code, i):
                        continue
                    base = L + e_push(t, code, b, 0, i, k)
                    if base == NEG:
                        continue
                    Rk = C + ecidx(W, 0, e_pushed_flag(code), k, 0)
                    prow = e_pop_row(t, code, i, k)
                    for j in range(k + 1, (P if code == E_SH_LEFT else P + 1)):
                        cells_push(&row, j, base + Rk[j] + prow[j], k * 8 + code)
            cells_settle(&row, P)


cdef void eag_trace(const int* bp, int W, bint ctx, int p, int b, int i, int j, signed char* out,
                    int* pos) noexcept nogil:
    """docs/specs/dp_tabulation.md §4, for [i^b, j; p] (the plain chart: p = 0 throughout)."""
    cdef int x, k, code
    if j == i + 1:
        return
    x = bp[ecidx(W, p, b, i, j)]
    k = x // 8
    code = x % 8
    eag_trace(bp, W, ctx, p, b, i, k, out, pos)
    out[pos[0]] = RIGHT if code == E_RA_REDUCE else SHIFT
    pos[0] += 1
    eag_trace(bp, W, ctx, i if ctx else 0, e_pushed_flag(code), k, j, out, pos)
    if code == E_SH_LEFT:
        out[pos[0]] = LEFT
    elif code == E_SH_ROOT:
        out[pos[0]] = ROOT
    else:
        out[pos[0]] = REDUCE
    pos[0] += 1


cdef void eag_outside_marg(const Eag* t, const double* I, double* O, double* OM, double* OS,
                           double logZ, double* marg, double* g_shift, double* g_right,
                           double* g_left, double* g_reduce, double* g_root) noexcept nogil:
    """As hyb_outside_marg, for the flagged arc-eager chart: [b; i, k] is complete when
    reached (i ascending, k descending); rules [b; i,k][b'; k,j] scatter into [b'; k, j]."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int i, k, j, b, nb, code, f, jend
    cdef long x
    cdef double Mv, Sv, push, Iik, v
    cdef const double* prow
    cdef const double* Rk
    cdef double* Oi
    cdef double* OMk
    cdef double* OSk
    fill_neg(O, <long>2 * W * W)
    for x in range(<long>2 * W * W):
        OM[x] = NEG
        OS[x] = 0.0
    for i in range(0, P):
        nb = 2 if i > 0 else 1
        for b in range(nb):
            Oi = O + ecidx(W, 0, b, i, 0)
            Oi[P] = 0.0 if i == 0 else lfin(OM[ecidx(W, 0, b, i, P)], OS[ecidx(W, 0, b, i, P)])
            for k in range(P - 1, i, -1):
                Iik = I[ecidx(W, 0, b, i, k)]
                Mv = OM[ecidx(W, 0, b, i, k)]
                Sv = OS[ecidx(W, 0, b, i, k)]
                for code in range(4):
                    if not e_code_allowed(code, i):
                        continue
                    push = e_push(t, code, b, 0, i, k)
                    if push == NEG:
                        continue
                    f = e_pushed_flag(code)
                    Rk = I + ecidx(W, 0, f, k, 0)
                    OMk = OM + ecidx(W, 0, f, k, 0)
                    OSk = OS + ecidx(W, 0, f, k, 0)
                    prow = e_pop_row(t, code, i, k)
                    jend = P if code == E_SH_LEFT else P + 1
                    for j in range(k + 1, jend):
                        if Oi[j] == NEG or Rk[j] == NEG:
                            continue
                        v = Oi[j] + push + prow[j]
                        lacc(&Mv, &Sv, v + Rk[j])             # [b; i,k] as the left premise
                        if Iik == NEG:
                            continue
                        lacc(&OMk[j], &OSk[j], v + Iik)       # [f; k,j] as the right premise
                        e_credit(t, code, b, 0, i, k, j, exp(v + Rk[j] + Iik - logZ), marg,
                                 g_shift, g_right, g_left, g_reduce, g_root)
                Oi[k] = lfin(Mv, Sv)


# -- arc-eager context items [i^b, j; p] (docs/specs/dp_tabulation.md §5.4 row 2, §5.5) ------------
cdef void eagc_fill(const Eag* t, int sr, double* E, int* bp, double* R0, int* R0m,
                    double* R1, double* M, double* S) noexcept nogil:
    """E[p][b][i][j]: push computation of i (flag b) over [i, j) with p directly below i
    (p = 0 for i = 0: empty stack). Rule [p; b; i,k][i; b'; k,j] |- [p; b; i,j]: the right
    premise's context is the left premise's head i (docs/specs/dp_tabulation.md §5.5). The
    reduce-type move reads (s1 = i, s0 = k, b0 = j) only, so per i the right-premise sums are
    computed once and shared by every (p, b): R0[k][j] over the b' = 0 codes (LEFT, REDUCE of an L
    top, ROOT; R0m: the best code), R1[k][j] for b' = 1 (REDUCE of an R top). Then, as in eag_fill,
    k ascending, rules pushed into every j > k."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, j, k, p, b, pmax, nb, cx, c0
    cdef double v0, v1, L, Ls, Lr
    cdef Cells row
    cdef const double* E0
    cdef const double* E1
    cdef const double* lrow
    fill_neg(E, <long>2 * W * W * W)
    for i in range(P - 1, -1, -1):
        for k in range(i + 1, P):
            cx = (k - 1) if t.untie else i
            E0 = E + ecidx(W, cx, 0, k, 0)
            E1 = E + ecidx(W, cx, 1, k, 0)
            lrow = e_pop_row(t, E_SH_LEFT, i, k)
            for j in range(k + 1, P + 1):
                v0 = E0[j] + lrow[j] if j <= n else NEG                   # LEFT
                c0 = E_SH_LEFT
                if i == 0:
                    v1 = E0[j] + t.root[(k - 1) * N1 + j - 1]            # ROOT
                    R1[k * W + j] = NEG
                else:
                    v1 = E0[j] + t.reduce[(i - 1) * t.ds1 + (k - 1) * N1 + j - 1]
                    R1[k * W + j] = E1[j] + t.reduce[t.dfl + (i - 1) * t.ds1 + (k - 1) * N1 + j - 1]
                if sr == SR_MAX:
                    if v1 > v0:
                        v0 = v1
                        c0 = E_SH_ROOT if i == 0 else E_SH_REDUCE
                    R0[k * W + j] = v0
                    R0m[k * W + j] = c0
                else:
                    R0[k * W + j] = lse2(v0, v1)
        pmax = i if i > 0 else 1                # contexts 0..i-1 (i = 0: one, "none")
        nb = 2 if i > 0 else 1                  # the virtual root has no head flag
        for p in range(pmax):
            for b in range(nb):
                cells_open(&row, sr, E + ecidx(W, p, b, i, 0),
                           bp + ecidx(W, p, b, i, 0) if bp != NULL else NULL, M, S, W)
                cells_axiom(&row, i + 1)
                for k in range(i + 1, P):
                    L = cells_settle(&row, k)
                    if L == NEG:
                        continue
                    Ls = L + e_push(t, E_SH_LEFT, b, p, i, k)
                    Lr = L + e_push(t, E_RA_REDUCE, b, p, i, k)
                    for j in range(k + 1, P + 1):
                        cells_push(&row, j, Ls + R0[k * W + j],
                                   k * 8 + (R0m[k * W + j] if sr == SR_MAX else 0))
                        cells_push(&row, j, Lr + R1[k * W + j], k * 8 + E_RA_REDUCE)
                cells_settle(&row, P)


cdef inline double e_rule(const Eag* t, const double* I, int W, double outer, int code, int b,
                          int p, int i, int k, int j) noexcept nogil:
    """outer + the rest of rule instance [p; b; i,k][i; f; k,j] (f of `code`): the right
    premise's inside score, the push of k and the reduce-type move; -inf (or NaN) if the right
    premise is empty or the rule cannot apply. `outer` is summed first, as the callers need."""
    cdef double Ir = I[ecidx(W, i, e_pushed_flag(code), k, j)]
    if Ir == NEG:
        return NEG
    return outer + Ir + e_push(t, code, b, p, i, k) + e_pop(t, code, i, k, j)


cdef void eagc_outside(const Eag* t, const double* I, double* O, double* buf) noexcept nogil:
    """Pull-form outside for the context chart, by decreasing span: [c; f; a, e] is the left
    premise of [c; f; a, j] (with [a; f'; e, j]) and, for a pushed word a, the right premise
    of [pp; g; c, e] (with [pp; g; c, a]) for every code whose pushed flag is f."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int a, e, c, f, j, pp, g, span, nt, arg, cmax, nf, ppmax, ng, code
    cdef double v, red, Oj
    fill_neg(O, <long>2 * W * W * W)
    O[ecidx(W, 0, 0, 0, P)] = 0.0
    for span in range(P - 1, 0, -1):
        for a in range(0, P - span + 1):
            e = a + span
            cmax = a if a > 0 else 1
            nf = 2 if a > 0 else 1
            for c in range(cmax):
                for f in range(nf):
                    nt = 0
                    for j in range(e + 1, P + 1):
                        Oj = O[ecidx(W, c, f, a, j)]
                        if Oj == NEG:
                            continue
                        for code in range(4):
                            v = e_rule(t, I, W, Oj, code, f, c, a, e, j)
                            if v > NEG:
                                buf[nt] = v
                                nt += 1
                    if a >= 1:
                        ppmax = c if c > 0 else 1
                        ng = 2 if c > 0 else 1
                        for code in range(4):
                            if e_pushed_flag(code) != f:
                                continue
                            red = e_pop(t, code, c, a, e)
                            if not red > NEG:
                                continue
                            for pp in range(ppmax):
                                for g in range(ng):
                                    if O[ecidx(W, pp, g, c, e)] == NEG or I[ecidx(W, pp, g, c, a)] == NEG:
                                        continue
                                    v = (O[ecidx(W, pp, g, c, e)] + I[ecidx(W, pp, g, c, a)]
                                         + e_push(t, code, g, pp, c, a) + red)
                                    if v > NEG:
                                        buf[nt] = v
                                        nt += 1
                    O[ecidx(W, c, f, a, e)] = reduce_terms(SR_LOG, buf, nt, &arg)


cdef void eagc_marginals(const Eag* t, const double* I, const double* O, double logZ,
                         double* marg, double* g_shift, double* g_right, double* g_left,
                         double* g_reduce, double* g_root) noexcept nogil:
    """Posterior of every rule instance [p; b; i,k][i; b'; k,j] -> arc marginals and, if
    g_shift != NULL, expected move counts per window (docs/specs/dp_tabulation.md §6)."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int p, b, i, k, j, pmax, nb, code
    cdef double Oo, Il, v
    for i in range(0, P):
        pmax = i if i > 0 else 1
        nb = 2 if i > 0 else 1
        for p in range(pmax):
            for b in range(nb):
                for j in range(i + 2, P + 1):
                    Oo = O[ecidx(W, p, b, i, j)]
                    if Oo == NEG:
                        continue
                    for k in range(i + 1, j):
                        Il = I[ecidx(W, p, b, i, k)]
                        if Il == NEG:
                            continue
                        for code in range(4):
                            v = e_rule(t, I, W, Oo + Il, code, b, p, i, k, j)
                            if not v > NEG:
                                continue
                            e_credit(t, code, b, p, i, k, j, exp(v - logZ),
                                     marg, g_shift, g_right, g_left, g_reduce, g_root)


# ==== Python API ================================================================================
cdef class _EagTables:
    """arc_eager's tables, checked and held for the kernels (docs/tabulation.md)."""
    cdef Eag t
    cdef object keep
    cdef public object ndims

    def __init__(self, shift, right, left, reduce, root, context=False):
        n = root_size(root)
        N1 = n + 1
        # context chart: shift/right read (s1, s0, b0) (+ the flag of s0)
        push_shape = (2, N1, N1, N1) if context else (2, N1, N1)
        sh, u_sh = flagged_table(shift, push_shape, "shift")
        ra, u_ra = flagged_table(right, push_shape, "right")
        lt, lnd = s1_table(left, N1, "left")
        rd, dnd = s1_table(reduce, N1, "reduce", full_ndim=4)
        self.ndims = {"shift": len(push_shape) - u_sh, "right": len(push_shape) - u_ra,
                      "left": lnd, "reduce": dnd}
        self.keep = [sh, ra, lt, rd, check_table(root, (N1, N1), "root")]
        self.t.n = n
        self.t.ctx = bool(context)
        self.t.untie = 0
        self.t.ls1 = N1 * N1 if lnd == 3 else 0
        self.t.ds1 = N1 * N1 if dnd >= 3 else 0
        self.t.dfl = N1 * N1 * N1 if dnd == 4 else 0
        self.t.shift = table_ptr(self.keep[0].reshape(-1))
        self.t.right = table_ptr(self.keep[1].reshape(-1))
        self.t.left = table_ptr(self.keep[2].reshape(-1))
        self.t.reduce = table_ptr(self.keep[3].reshape(-1))
        self.t.root = table_ptr(self.keep[4].reshape(-1))


def eager_viterbi(shift, right, left, reduce, root, *, context=False, _untie_context=False):
    """Best transition sequence of the package's arc_eager (SHIFT, RIGHT, LEFT, REDUCE, ROOT)
    under window scores; returns (best score, int8 move ids of length 2n). context=True: the
    context chart [i^b, j; p] (docs/specs/dp_tabulation.md §5.4 row 2, §5.5, O(n^4)), in which shift
    and right are [f, s1, s0, b0] (or [s1, s0, b0]: the same scores for both flags).
    `_untie_context`: the negative control of docs/specs/dp_tabulation.md §9.6 (the right premise's
    context not tied), never for use."""
    cdef _EagTables tb = _EagTables(shift, right, left, reduce, root, context)
    tb.t.untie = bool(_untie_context)
    cdef int n = tb.t.n, W = n + 2, pos = 0
    cdef ChartArrays a = ChartArrays(n, <long>2 * W * W * W if tb.t.ctx else <long>2 * W * W, W,
                                     True)
    cdef double best
    with nogil:
        if tb.t.ctx:
            eagc_fill(&tb.t, SR_MAX, &a.chart[0], &a.bp[0], &a.R0[0], &a.R0m[0], &a.R1[0], &a.M[0],
                      &a.S[0])
        else:
            eag_fill(&tb.t, SR_MAX, &a.chart[0], &a.bp[0], &a.M[0], &a.S[0])
        best = a.chart[ecidx(W, 0, 0, 0, n + 1)]
        if best > NEG:
            eag_trace(&a.bp[0], W, tb.t.ctx, 0, 0, 0, n + 1, &a.out[0], &pos)
    return a.decoded(best)


def eager_inside_outside(shift, right, left, reduce, root, *, context=False, marginals=True,
                         gradients=False):
    """As hybrid_inside_outside, for arc_eager (context: as eager_viterbi). Gradients of
    tables given without the flag axis are summed over it."""
    cdef _EagTables tb = _EagTables(shift, right, left, reduce, root, context)
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef long size = <long>2 * W * W * W if tb.t.ctx else <long>2 * W * W
    cdef long push_size = <long>2 * N1 * N1 * N1 if tb.t.ctx else <long>2 * N1 * N1
    cdef ChartArrays a = ChartArrays(n, size, W, False)
    cdef double[::1] I = a.chart
    cdef double[::1] O, OM, OS
    cdef double[::1] buf = np.empty(12 * W + 12, dtype=np.float64)
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gr, gl, gd, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        if tb.t.ctx:
            eagc_fill(&tb.t, SR_LOG, &I[0], NULL, &a.R0[0], &a.R0m[0], &a.R1[0], &a.M[0], &a.S[0])
        else:
            eag_fill(&tb.t, SR_LOG, &I[0], NULL, &a.M[0], &a.S[0])
        logZ = I[ecidx(W, 0, 0, 0, n + 1)]
    if not (marginals or gradients) or logZ == NEG:
        return logZ, None, None
    O = np.empty(size, dtype=np.float64)
    OM = np.empty(2 * W * W, dtype=np.float64)
    OS = np.empty(2 * W * W, dtype=np.float64)
    gs = np.zeros(push_size, dtype=np.float64)
    gr = np.zeros(push_size, dtype=np.float64)
    gl = np.zeros(N1 * N1 * N1, dtype=np.float64)
    gd = np.zeros(2 * N1 * N1 * N1, dtype=np.float64)
    gt = np.zeros(N1 * N1, dtype=np.float64)
    with nogil:
        if tb.t.ctx:
            eagc_outside(&tb.t, &I[0], &O[0], &buf[0])
            eagc_marginals(&tb.t, &I[0], &O[0], logZ, &marg[0],
                           &gs[0] if grads else NULL, &gr[0], &gl[0], &gd[0], &gt[0])
        else:
            eag_outside_marg(&tb.t, &I[0], &O[0], &OM[0], &OS[0], logZ, &marg[0],
                             &gs[0] if grads else NULL, &gr[0], &gl[0], &gd[0], &gt[0])
    g = None
    if gradients:
        push_shape = tb.keep[0].shape
        g = {"shift": np.asarray(gs).reshape(push_shape),
             "right": np.asarray(gr).reshape(push_shape),
             "left": np.asarray(gl).reshape(N1, N1, N1),
             "reduce": np.asarray(gd).reshape(2, N1, N1, N1),
             "root": np.asarray(gt).reshape(N1, N1)}
        for name, nd in tb.ndims.items():
            g[name] = sum_missing(g[name], nd)
    return logZ, np.asarray(marg).reshape(n, n), g


def eager_windows(n, context=False):
    """As hybrid_windows, for eager_viterbi / eager_inside_outside (flagged tables):
    {"shift": (f, s0, b0), "right": (f, s0, b0), "left": (s1, s0, b0),
    "reduce": (f, s1, s0, b0), "root": (s0, b0)}; context=True: shift and right are
    (f, s1, s0, b0)."""
    i, k, j = rule_instances(n)
    a, b = np.unique(np.stack([i, k]), axis=1)
    out = {"left": (word_of(i, n)[j <= n], (k - 1)[j <= n], (j - 1)[j <= n]),
           "root": ((k - 1)[i == 0], (j - 1)[i == 0])}
    if context:
        # push of b onto a (flag f; f = 0 only for a = 0) with p below a (p < a; 0: none)
        sh = [(f, p, x, y) for x, y in zip(a, b) for p in (list(range(x)) if x > 0 else [0])
              for f in ([0, 1] if x > 0 else [0])]
        f_, p_, x_, y_ = np.array(sh, dtype=np.intp).T
        out["shift"] = (f_, word_of(p_, n), word_of(x_, n), y_ - 1)
        w = x_ > 0
        out["right"] = (f_[w], word_of(p_[w], n), x_[w] - 1, y_[w] - 1)
    else:
        f0 = np.zeros_like(a)
        w = a > 0
        out["shift"] = (np.concatenate([f0, f0[w] + 1]), np.concatenate([word_of(a, n), word_of(a[w], n)]),
                        np.concatenate([b - 1, b[w] - 1]))
        out["right"] = (np.concatenate([f0[w], f0[w] + 1]), np.concatenate([a[w] - 1, a[w] - 1]),
                        np.concatenate([b[w] - 1, b[w] - 1]))
    r = i > 0
    z = np.zeros(r.sum(), dtype=i.dtype)
    out["reduce"] = (np.concatenate([z, z + 1]), np.concatenate([i[r] - 1] * 2),
                     np.concatenate([k[r] - 1] * 2), np.concatenate([j[r] - 1] * 2))
    return out
