# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""arc_hybrid's chart (docs/specs/dp_tabulation.md §3.3; the context variant §5.5): Viterbi
with backtrace, inside-outside with arc marginals and gradients, and the windows it reads.
Tables and coordinates: docs/tabulation.md and tabulation.pyx; the semirings and cells:
tabulation_core.pxd."""
import numpy as np

from libc.math cimport exp, INFINITY

from .tabulation_core cimport (SHIFT, LEFT, RIGHT, ROOT, SR_MAX, SR_LOG, Cells, ChartArrays, Hyb,
                               HybTables, cells_axiom, cells_open, cells_push, cells_settle,
                               fill_neg, lacc, lfin, lse2, reduce_terms, sw)
from .tabulation_core import rule_instances, word_of

cdef double NEG = -INFINITY


cdef inline double h_shift(const Hyb* t, int p, int i, int k) noexcept nogil:
    """Push of spec position k onto top i (context p below i): SHIFT in window (s1?, s0, b0)."""
    cdef int n = t.n, N1 = t.n + 1
    if t.ctx:
        return t.shift[(sw(p, n) * N1 + sw(i, n)) * N1 + k - 1]
    return t.shift[sw(i, n) * N1 + k - 1]


cdef inline double h_left(const Hyb* t, int i, int k, int j) noexcept nogil:
    """LEFT in rule [i,k][k,j]: s1 = i, s0 = k, b0 = j; needs a buffer (j < P,
    docs/specs/dp_tabulation.md §10)."""
    cdef int n = t.n, N1 = t.n + 1
    if j > n:
        return NEG
    return t.left[sw(i, n) * t.ls1 + (k - 1) * N1 + j - 1]


cdef inline const double* h_pop_row(const Hyb* t, int i, int k) noexcept nogil:
    """The spec's `ra` of rules [i,k][k,.] as a row over j: RIGHT if s1 = i is a word, ROOT if
    it is the virtual root (i = 0). row[j] is the score at b0 = j - 1."""
    cdef int N1 = t.n + 1
    if i == 0:
        return t.root + (k - 1) * N1 - 1
    return t.right + (i - 1) * t.rs1 + (k - 1) * N1 - 1


cdef inline const double* h_left_row(const Hyb* t, int i, int k) noexcept nogil:
    """LEFT of rules [i,k][k,.] as a row over j (j <= n only: LEFT needs a buffer)."""
    return t.left + sw(i, t.n) * t.ls1 + (k - 1) * (t.n + 1) - 1


cdef inline long cidx(int W, int p, int i, int j) noexcept nogil:
    """Item [i, j; p] of the context chart; p = 0 is the plain chart's item [i, j]."""
    return (<long>p * W + i) * W + j


cdef inline void h_credit(const Hyb* t, long shift_at, int i, int k, int j, double pl, double pr,
                          double* marg, double* g_shift, double* g_left, double* g_right,
                          double* g_root) noexcept nogil:
    """Posteriors pl (LEFT), pr (RIGHT/ROOT) of rule instance [i,k][k,j] into the arc
    marginals and, if g_shift != NULL, the expected move counts (the push at g_shift[shift_at])."""
    cdef int n = t.n, N1 = t.n + 1, si = sw(i, t.n)
    if j <= n:
        marg[(k - 1) * n + j - 1] += pl
    marg[(k - 1) * n + (k - 1 if i == 0 else i - 1)] += pr
    if g_shift == NULL:
        return
    g_shift[shift_at] += pl + pr
    if j <= n:
        g_left[(si * N1 + k - 1) * N1 + j - 1] += pl
    if i == 0:
        g_root[(k - 1) * N1 + j - 1] += pr
    else:
        g_right[((i - 1) * N1 + k - 1) * N1 + j - 1] += pr


# -- plain items [i, j] ----------------------------------------------------------------------
cdef void hyb_fill(const Hyb* t, int sr, double* C, int* bp, double* M, double* S) noexcept nogil:
    """Chart of docs/specs/dp_tabulation.md §3.3 in semiring sr, C[i*W+j] (W = P + 1). Order: i
    descending; within a row, k ascending, each rule instance [i,k][k,j] *pushed* into C[i][j] for
    all j > k (C[i][k] is complete when k is reached: its rules have split points < k). The inner j
    loop then reads C[k][.] and the tables' b0 axis contiguously (docs/specs/dp_tabulation.md §3.4)."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, j, k, si
    cdef double base, r
    cdef Cells row
    cdef const double* Ck
    cdef const double* lrow
    cdef const double* prow
    fill_neg(C, W * W)
    for i in range(P - 1, -1, -1):
        si = sw(i, n)
        cells_open(&row, sr, C + i * W, bp + i * W if bp != NULL else NULL, M, S, W)
        cells_axiom(&row, i + 1)                 # axiom [i, i+1] (push charged in the rule)
        for k in range(i + 1, P):
            base = cells_settle(&row, k)
            if base == NEG:
                continue
            base = base + t.shift[si * N1 + k - 1]
            Ck = C + k * W
            lrow = h_left_row(t, i, k)
            prow = h_pop_row(t, i, k)
            for j in range(k + 1, P + 1):
                r = base + Ck[j]
                cells_push(&row, j, r + prow[j], k * 4 + 2)
                if j <= n:
                    cells_push(&row, j, r + lrow[j], k * 4 + 1)
        cells_settle(&row, P)


cdef void hyb_trace(const int* bp, int W, bint ctx, int p, int i, int j, signed char* out,
                    int* pos) noexcept nogil:
    """docs/specs/dp_tabulation.md §4: seq([i,j;p]) = seq([i,k;p]) + [SHIFT k] + seq([k,j;i]) +
    [reduce]. The plain chart is read as the context chart with p = 0 throughout (ctx false)."""
    cdef int x, k, m
    if j == i + 1:
        return
    x = bp[cidx(W, p, i, j)]
    k = x // 4
    m = x % 4
    hyb_trace(bp, W, ctx, p, i, k, out, pos)
    out[pos[0]] = SHIFT
    pos[0] += 1
    hyb_trace(bp, W, ctx, i if ctx else 0, k, j, out, pos)
    out[pos[0]] = LEFT if m == 1 else (ROOT if i == 0 else RIGHT)
    pos[0] += 1


cdef void hyb_outside_marg(const Hyb* t, const double* I, double* O, double* OM, double* OS,
                           double logZ, double* marg, double* g_shift, double* g_left,
                           double* g_right, double* g_root) noexcept nogil:
    """Outside scores (docs/specs/dp_tabulation.md §6) and, in the same sweep, the posterior of
    every rule instance: arc marginals marg[child*n + head] (head == child: a root) and, if g_shift
    != NULL, the expected move counts per window (= d logZ / d score).

    Order: i ascending, k descending. At (i, k) the item [i,k] is complete: as a left
    premise its parents [i,j] (j > k) were finished at earlier k, as a right premise its
    parents [i',k] (i' < i) scattered into the running sums (OM, OS) at earlier i. Then the
    rules [i,k][k,j] scatter into their right premises [k,j]. Every inner j loop is contiguous."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, k, j, si
    cdef long x
    cdef double Mv, Sv, sh, Iik, base, vl, vp
    cdef const double* lrow
    cdef const double* prow
    cdef const double* Ik
    cdef double* Oi
    fill_neg(O, W * W)
    for x in range(W * W):
        OM[x] = NEG
        OS[x] = 0.0
    for i in range(0, P):
        si = sw(i, n)
        Oi = O + i * W
        Oi[P] = 0.0 if i == 0 else lfin(OM[i * W + P], OS[i * W + P])   # [0, P] is the goal
        for k in range(P - 1, i, -1):
            sh = t.shift[si * N1 + k - 1]
            lrow = h_left_row(t, i, k)
            prow = h_pop_row(t, i, k)
            Ik = I + k * W
            Iik = I[i * W + k]
            Mv = OM[i * W + k]
            Sv = OS[i * W + k]
            for j in range(k + 1, P + 1):
                if Oi[j] == NEG or Ik[j] == NEG:
                    continue
                base = Oi[j] + Ik[j] + sh
                vl = base + lrow[j] if j <= n else NEG
                vp = base + prow[j]
                lacc(&Mv, &Sv, vl)                        # [i,k] as the left premise
                lacc(&Mv, &Sv, vp)
                if Iik == NEG:
                    continue
                base = Oi[j] + Iik + sh                   # [k,j] as the right premise
                if j <= n:
                    lacc(&OM[k * W + j], &OS[k * W + j], base + lrow[j])
                lacc(&OM[k * W + j], &OS[k * W + j], base + prow[j])
                h_credit(t, si * N1 + k - 1, i, k, j, exp(vl + Iik - logZ), exp(vp + Iik - logZ),
                         marg, g_shift, g_left, g_right, g_root)
            Oi[k] = lfin(Mv, Sv)


# -- context items [i, j; p] (docs/specs/dp_tabulation.md §5.5) ------------------------------------
cdef void hybc_fill(const Hyb* t, int sr, double* E, int* bp, double* Rt, int* Rm,
                    double* M, double* S) noexcept nogil:
    """E[p][i][j]: push computation of i over [i, j) with p directly below i (p = 0 for i = 0:
    the stack is empty, which the windows read as none). The right premise's context is the
    left premise's head (docs/specs/dp_tabulation.md §5.5). The reduce does not read p, so per i the
    right-premise sums Rt[k][j] = E[i][k][j] (x) reduce(i,k,j) are computed once and shared by every
    p; then, as in hyb_fill, rules are pushed with k ascending and j innermost."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, j, k, p, pmax, si
    cdef double v, vl, vp, L
    cdef Cells row
    cdef const double* Ek
    cdef const double* lrow
    cdef const double* prow
    cdef const double* shrow
    fill_neg(E, <long>W * W * W)
    for i in range(P - 1, -1, -1):
        si = sw(i, n)
        for k in range(i + 1, P):
            # docs/specs/dp_tabulation.md §5.5: the right premise's context is the left premise's
            # head i
            Ek = E + cidx(W, (k - 1) if t.untie else i, k, 0)
            lrow = h_left_row(t, i, k)
            prow = h_pop_row(t, i, k)
            for j in range(k + 1, P + 1):
                v = Ek[j]
                vl = v + lrow[j] if j <= n else NEG
                vp = v + prow[j]
                if sr == SR_MAX:
                    if vl > vp:
                        Rt[k * W + j] = vl
                        Rm[k * W + j] = 1
                    else:
                        Rt[k * W + j] = vp
                        Rm[k * W + j] = 2
                else:
                    Rt[k * W + j] = lse2(vl, vp)
        pmax = i if i > 0 else 1                # contexts 0..i-1 (i = 0: one, "none")
        for p in range(pmax):
            cells_open(&row, sr, E + cidx(W, p, i, 0), bp + cidx(W, p, i, 0) if bp != NULL else NULL,
                       M, S, W)
            cells_axiom(&row, i + 1)
            shrow = t.shift + (sw(p, n) * N1 + si) * N1 - 1      # shrow[k] = shift[s1, s0, k-1]
            for k in range(i + 1, P):
                L = cells_settle(&row, k)
                if L == NEG:
                    continue
                L = L + shrow[k]
                for j in range(k + 1, P + 1):
                    cells_push(&row, j, L + Rt[k * W + j], k * 4 + (Rm[k * W + j] if sr == SR_MAX else 0))
            cells_settle(&row, P)


cdef void hybc_outside(const Hyb* t, const double* I, double* O, double* buf) noexcept nogil:
    """Pull-form outside for context items: [c; a, b] is the left premise of [c; a, j] (with
    [a; b, j]) and, with context c = the rule's left head, the right premise of [pp; c, b]
    (with [pp; c, a])."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int a, b, c, j, pp, span, nt, arg, cmax, ppmax
    cdef double v, red
    fill_neg(O, <long>W * W * W)
    O[cidx(W, 0, 0, P)] = 0.0
    for span in range(P - 1, 0, -1):
        for a in range(0, P - span + 1):
            b = a + span
            cmax = a if a > 0 else 1
            for c in range(cmax):
                nt = 0
                for j in range(b + 1, P + 1):
                    if O[cidx(W, c, a, j)] == NEG or I[cidx(W, a, b, j)] == NEG:
                        continue
                    v = (O[cidx(W, c, a, j)] + I[cidx(W, a, b, j)] + h_shift(t, c, a, b)
                         + lse2(h_left(t, a, b, j), h_pop_row(t, a, b)[j]))
                    if v > NEG:
                        buf[nt] = v
                        nt += 1
                if a >= 1:
                    red = lse2(h_left(t, c, a, b), h_pop_row(t, c, a)[b])
                    ppmax = c if c > 0 else 1
                    for pp in range(ppmax):
                        if O[cidx(W, pp, c, b)] == NEG or I[cidx(W, pp, c, a)] == NEG:
                            continue
                        v = O[cidx(W, pp, c, b)] + I[cidx(W, pp, c, a)] + h_shift(t, pp, c, a) + red
                        if v > NEG:
                            buf[nt] = v
                            nt += 1
                O[cidx(W, c, a, b)] = reduce_terms(SR_LOG, buf, nt, &arg)


cdef void hybc_marginals(const Hyb* t, const double* I, const double* O, double logZ,
                         double* marg, double* g_shift, double* g_left, double* g_right,
                         double* g_root) noexcept nogil:
    """Posterior of every rule instance [p; i,k][i; k,j] -> arc marginals and, if g_shift !=
    NULL, expected move counts per window (docs/specs/dp_tabulation.md §6)."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int p, i, k, j, pmax
    cdef double base
    for i in range(0, P):
        pmax = i if i > 0 else 1
        for p in range(pmax):
            for j in range(i + 2, P + 1):
                if O[cidx(W, p, i, j)] == NEG:
                    continue
                for k in range(i + 1, j):
                    if I[cidx(W, p, i, k)] == NEG or I[cidx(W, i, k, j)] == NEG:
                        continue
                    base = (O[cidx(W, p, i, j)] + I[cidx(W, p, i, k)] + I[cidx(W, i, k, j)]
                            + h_shift(t, p, i, k) - logZ)
                    h_credit(t, (sw(p, n) * N1 + sw(i, n)) * N1 + k - 1, i, k, j,
                             exp(base + h_left(t, i, k, j)), exp(base + h_pop_row(t, i, k)[j]),
                             marg, g_shift, g_left, g_right, g_root)


# ==== Python API ================================================================================
def hybrid_viterbi(shift, left, right, root, *, _untie_context=False):
    """Best transition sequence of arc_hybrid under window scores (docs/specs/dp_tabulation.md §3.3,
    §4, §6).

    Returns (best score, moves): moves is an int8 array of 2n move ids (MOVE_NAMES; the
    package's SHIFT/LEFT/RIGHT/ROOT), replayable from the initial state. A 3-D `shift`
    table [s1, s0, b0] selects the context chart (docs/specs/dp_tabulation.md §5.5, O(n^4)).
    `_untie_context` breaks the chart on purpose (the right premise's context is not the left
    premise's head): a negative control for the tests (docs/specs/dp_tabulation.md §9.6), never for
    use."""
    cdef HybTables tb = HybTables(shift, left, right, root)
    tb.t.untie = bool(_untie_context)
    cdef int n = tb.t.n, W = n + 2, pos = 0
    cdef ChartArrays a = ChartArrays(n, <long>W * W * W if tb.t.ctx else <long>W * W, W, True)
    cdef double best
    with nogil:
        if tb.t.ctx:
            hybc_fill(&tb.t, SR_MAX, &a.chart[0], &a.bp[0], &a.R0[0], &a.R0m[0], &a.M[0], &a.S[0])
        else:
            hyb_fill(&tb.t, SR_MAX, &a.chart[0], &a.bp[0], &a.M[0], &a.S[0])
        best = a.chart[cidx(W, 0, 0, n + 1)]
        if best > NEG:
            hyb_trace(&a.bp[0], W, tb.t.ctx, 0, 0, n + 1, &a.out[0], &pos)
    return a.decoded(best)


def hybrid_inside_outside(shift, left, right, root, *, marginals=True, gradients=False):
    """log Z (log-sum-exp of all complete arc_hybrid computations' scores), the arc marginals
    marg[child, head] (head == child: the child is a root; every row sums to 1), and with
    gradients=True the expected move counts per window = d logZ / d table, as a dict of
    arrays shaped like the tables (docs/specs/dp_tabulation.md §6)."""
    cdef HybTables tb = HybTables(shift, left, right, root)
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef long size = <long>W * W * W if tb.t.ctx else <long>W * W
    cdef ChartArrays a = ChartArrays(n, size, W, False)
    cdef double[::1] I = a.chart
    cdef double[::1] O, OM, OS
    cdef double[::1] buf = np.empty(4 * W + 4, dtype=np.float64)
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gl, gr, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        if tb.t.ctx:
            hybc_fill(&tb.t, SR_LOG, &I[0], NULL, &a.R0[0], &a.R0m[0], &a.M[0], &a.S[0])
        else:
            hyb_fill(&tb.t, SR_LOG, &I[0], NULL, &a.M[0], &a.S[0])
        logZ = I[cidx(W, 0, 0, n + 1)]
    if not (marginals or gradients) or logZ == NEG:
        return logZ, None, None
    O = np.empty(size, dtype=np.float64)
    OM = np.empty(W * W, dtype=np.float64)
    OS = np.empty(W * W, dtype=np.float64)
    gs = np.zeros(N1 * N1 * N1 if tb.t.ctx else N1 * N1, dtype=np.float64)
    gl = np.zeros(N1 * N1 * N1, dtype=np.float64)
    gr = np.zeros(N1 * N1 * N1, dtype=np.float64)
    gt = np.zeros(N1 * N1, dtype=np.float64)
    with nogil:
        if tb.t.ctx:
            hybc_outside(&tb.t, &I[0], &O[0], &buf[0])
            hybc_marginals(&tb.t, &I[0], &O[0], logZ, &marg[0],
                           &gs[0] if grads else NULL, &gl[0], &gr[0], &gt[0])
        else:
            hyb_outside_marg(&tb.t, &I[0], &O[0], &OM[0], &OS[0], logZ, &marg[0],
                             &gs[0] if grads else NULL, &gl[0], &gr[0], &gt[0])
    return logZ, np.asarray(marg).reshape(n, n), tb.gradients(gs, gl, gr, gt) if gradients else None


def hybrid_windows(n, context=False):
    """Index arrays of exactly the table entries the arc_hybrid chart reads, per table:
    {"shift": (s0, b0) or (s1, s0, b0), "left": (s1, s0, b0), "right": (s1, s0, b0),
    "root": (s0, b0)}. A model scores these windows in one batch and scatters the scores
    with `table[idx] = scores`; every other entry is never read (it may stay NaN)."""
    i, k, j = rule_instances(n)
    pairs = np.unique(np.stack([i, k]), axis=1)
    out = {"left": (word_of(i, n)[j <= n], (k - 1)[j <= n], (j - 1)[j <= n]),
           "right": (word_of(i, n)[i > 0], (k - 1)[i > 0], (j - 1)[i > 0]),
           "root": ((k - 1)[i == 0], (j - 1)[i == 0])}
    if context:
        # push of k onto i with p below i: p < i (p = 0: none), or p = 0 for i = 0
        trip = [(p, a, b) for a, b in pairs.T for p in (range(a) if a > 0 else (0,))]
        p_, a_, b_ = np.array(trip, dtype=np.intp).T
        out["shift"] = (word_of(p_, n), word_of(a_, n), b_ - 1)
    else:
        out["shift"] = (word_of(pairs[0], n), pairs[1] - 1)
    return out
