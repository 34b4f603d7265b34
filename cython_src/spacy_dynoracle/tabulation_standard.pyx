# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""arc_standard's chart (docs/specs/dp_tabulation.md §3.1): Viterbi with backtrace,
inside-outside with arc marginals and gradients, and the windows it reads. Tables and
coordinates: docs/tabulation.md and tabulation.pyx; the semirings and cells:
tabulation_core.pxd.

Windows of docs/specs/dp_tabulation.md §5.4: shifts (s0, b0), reduces (s1, s0, b0). Same
tables as arc-hybrid (tabulation_core.HybTables): shift[s0, b0], left[s1, s0, b0] (LEFT:
s0 -> s1, s1 a word), right[s1, s0, b0] (RIGHT: s1 -> s0, s1 a word), root[s0, b0] (ROOT =
the spec's `ra` with s1 = the virtual root). Items [i, h, j]; O(n^3) space, O(n^5) time (the
`la` rule cannot be hooked when its score reads b0, §5.4)."""
import numpy as np

from libc.math cimport exp, INFINITY

from .tabulation_core cimport (SHIFT, LEFT, RIGHT, ROOT, SR_MAX, SR_LOG, Cells, ChartArrays, Hyb,
                               HybTables, cells_axiom, cells_open, cells_push, cells_settle,
                               fill_neg, lacc, lfin, sw)
from .tabulation_core import rule_instances, word_of

cdef double NEG = -INFINITY


cdef inline long sidx(int W, int i, int h, int j) noexcept nogil:
    return (<long>i * W + h) * W + j


cdef void std_fill(const Hyb* t, int sr, double* C, int* bp, double* M, double* S) noexcept nogil:
    """C[i][h][j]: a push computation over [i, j) that pushed h (docs/specs/dp_tabulation.md §3.1).
    Rules [i,h1,k][k,h2,j] |- [i,h2,j] (LEFT, h1 a word) and |- [i,h1,j] (RIGHT, or ROOT if h1 is
    the virtual root), the push of k charged in the rule (window s0 = h1, b0 = k). Order:
    i descending, k ascending, rules pushed into every j > h2 (contiguous j loops); the cells of
    plane i are indexed h * W + j."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, h, h1, h2, j, k, s1
    cdef double L, r
    cdef Cells plane
    cdef const double* Rrow
    cdef const double* lrow
    cdef const double* prow
    fill_neg(C, <long>W * W * W)
    for i in range(P - 1, -1, -1):
        cells_open(&plane, sr, C + sidx(W, i, 0, 0), bp + sidx(W, i, 0, 0) if bp != NULL else NULL,
                   M, S, <long>W * W)
        cells_axiom(&plane, i * W + i + 1)
        for k in range(i + 1, P):
            for h1 in range(i, k):
                L = cells_settle(&plane, h1 * W + k)
                if L == NEG:
                    continue
                s1 = sw(h1, n)
                L = L + t.shift[s1 * N1 + k - 1]
                if L == NEG:
                    continue
                for h2 in range(k, P):
                    Rrow = C + sidx(W, k, h2, 0)
                    lrow = t.left + s1 * t.ls1 + (h2 - 1) * N1 - 1
                    if h1 == 0:
                        prow = t.root + (h2 - 1) * N1 - 1
                    else:
                        prow = t.right + (h1 - 1) * t.rs1 + (h2 - 1) * N1 - 1
                    for j in range(h2 + 1, P + 1):
                        r = L + Rrow[j]
                        if h1 > 0:
                            cells_push(&plane, h2 * W + j, r + lrow[j], (k * W + h1) * 4 + 1)
                        cells_push(&plane, h1 * W + j, r + prow[j], (k * W + h2) * 4 + 2)
        for h in range(i, P):
            cells_settle(&plane, h * W + P)
cdef void std_trace(const int* bp, int W, int i, int h, int j, signed char* out,
                    int* pos) noexcept nogil:
    cdef int x, k, ho, m
    if j == i + 1:
        return
    x = bp[sidx(W, i, h, j)]
    m = x % 4
    k = (x // 4) // W
    ho = (x // 4) % W
    if m == 1:                       # LEFT: left premise [i, ho, k], right [k, h, j]
        std_trace(bp, W, i, ho, k, out, pos)
        out[pos[0]] = SHIFT
        pos[0] += 1
        std_trace(bp, W, k, h, j, out, pos)
        out[pos[0]] = LEFT
    else:                            # RIGHT / ROOT: left [i, h, k], right [k, ho, j]
        std_trace(bp, W, i, h, k, out, pos)
        out[pos[0]] = SHIFT
        pos[0] += 1
        std_trace(bp, W, k, ho, j, out, pos)
        out[pos[0]] = ROOT if h == 0 else RIGHT
    pos[0] += 1


cdef void std_outside_marg(const Hyb* t, const double* I, double* O, double* OM, double* OS,
                           double logZ, double* marg, double* g_shift, double* g_left,
                           double* g_right, double* g_root) noexcept nogil:
    """Outside by scattering (i ascending, j descending: [i,h,j] is complete when reached),
    with rule posteriors -> arc marginals and expected move counts
    (docs/specs/dp_tabulation.md §6)."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, h, h1, h2, j, k, s1, m
    cdef long x
    cdef double Lin, Rin, sh, w, Oc, pe
    for x in range(<long>W * W * W):
        O[x] = NEG
        OM[x] = NEG
        OS[x] = 0.0
    for i in range(0, P):
        for j in range(P, i, -1):
            for h in range(i, j):
                if i == 0 and h == 0 and j == P:
                    O[sidx(W, i, h, j)] = 0.0            # the goal [0, 0, P]
                else:
                    O[sidx(W, i, h, j)] = lfin(OM[sidx(W, i, h, j)], OS[sidx(W, i, h, j)])
            for k in range(i + 1, j):
                for h1 in range(i, k):
                    Lin = I[sidx(W, i, h1, k)]
                    if Lin == NEG:
                        continue
                    s1 = sw(h1, n)
                    sh = t.shift[s1 * N1 + k - 1]
                    for h2 in range(k, j):
                        Rin = I[sidx(W, k, h2, j)]
                        if Rin == NEG:
                            continue
                        for m in range(1, 3):
                            if m == 1:
                                if h1 == 0:
                                    continue
                                w = t.left[s1 * t.ls1 + (h2 - 1) * N1 + j - 1]
                                Oc = O[sidx(W, i, h2, j)]
                            else:
                                if h1 == 0:
                                    w = t.root[(h2 - 1) * N1 + j - 1]
                                else:
                                    w = t.right[(h1 - 1) * t.rs1 + (h2 - 1) * N1 + j - 1]
                                Oc = O[sidx(W, i, h1, j)]
                            if Oc == NEG or w == NEG:
                                continue
                            lacc(&OM[sidx(W, i, h1, k)], &OS[sidx(W, i, h1, k)], Oc + Rin + sh + w)
                            lacc(&OM[sidx(W, k, h2, j)], &OS[sidx(W, k, h2, j)], Oc + Lin + sh + w)
                            pe = exp(Oc + Lin + Rin + sh + w - logZ)
                            if m == 1:
                                marg[(h1 - 1) * n + h2 - 1] += pe
                            elif h1 == 0:
                                marg[(h2 - 1) * n + h2 - 1] += pe
                            else:
                                marg[(h2 - 1) * n + h1 - 1] += pe
                            if g_shift == NULL:
                                continue
                            g_shift[s1 * N1 + k - 1] += pe
                            if m == 1:
                                g_left[(s1 * N1 + h2 - 1) * N1 + j - 1] += pe
                            elif h1 == 0:
                                g_root[(h2 - 1) * N1 + j - 1] += pe
                            else:
                                g_right[((h1 - 1) * N1 + h2 - 1) * N1 + j - 1] += pe



# ==== Python API ================================================================================
cdef HybTables _standard_tables(shift, left, right, root):
    cdef HybTables tb = HybTables(shift, left, right, root)
    if tb.t.ctx:
        raise ValueError(f"arc_standard takes a 2-D shift table [s0, b0], not shape "
                         f"{np.shape(shift)}")
    return tb


def standard_viterbi(shift, left, right, root):
    """Best transition sequence of the package's arc_standard (SHIFT, LEFT: s0 -> s1,
    RIGHT: s1 -> s0, ROOT) under window scores: shift[s0, b0], left/right[s1, s0, b0],
    root[s0, b0] (docs/specs/dp_tabulation.md §3.1, §5.4: O(n^5) time, O(n^3) space). Returns (best,
    moves)."""
    cdef HybTables tb = _standard_tables(shift, left, right, root)
    cdef int n = tb.t.n, W = n + 2, pos = 0
    cdef ChartArrays a = ChartArrays(n, <long>W * W * W, <long>W * W, True)
    cdef double best
    with nogil:
        std_fill(&tb.t, SR_MAX, &a.chart[0], &a.bp[0], &a.M[0], &a.S[0])
        best = a.chart[sidx(W, 0, 0, n + 1)]
        if best > NEG:
            std_trace(&a.bp[0], W, 0, 0, n + 1, &a.out[0], &pos)
    return a.decoded(best)


def standard_inside_outside(shift, left, right, root, *, marginals=True, gradients=False):
    """As hybrid_inside_outside, for arc_standard (O(n^5))."""
    cdef HybTables tb = _standard_tables(shift, left, right, root)
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef long size = <long>W * W * W
    cdef ChartArrays a = ChartArrays(n, size, <long>W * W, False)
    cdef double[::1] I = a.chart
    cdef double[::1] O, OM, OS
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gl, gr, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        std_fill(&tb.t, SR_LOG, &I[0], NULL, &a.M[0], &a.S[0])
        logZ = I[sidx(W, 0, 0, n + 1)]
    if not (marginals or gradients) or logZ == NEG:
        return logZ, None, None
    O = np.empty(size, dtype=np.float64)
    OM = np.empty(size, dtype=np.float64)
    OS = np.empty(size, dtype=np.float64)
    gs = np.zeros(N1 * N1, dtype=np.float64)
    gl = np.zeros(N1 * N1 * N1, dtype=np.float64)
    gr = np.zeros(N1 * N1 * N1, dtype=np.float64)
    gt = np.zeros(N1 * N1, dtype=np.float64)
    with nogil:
        std_outside_marg(&tb.t, &I[0], &O[0], &OM[0], &OS[0], logZ, &marg[0],
                         &gs[0] if grads else NULL, &gl[0], &gr[0], &gt[0])
    return logZ, np.asarray(marg).reshape(n, n), tb.gradients(gs, gl, gr, gt) if gradients else None


def standard_windows(n):
    """As hybrid_windows, for standard_viterbi / standard_inside_outside."""
    i, k, j = rule_instances(n)           # here (h1, h2, j): h1 < h2 < j
    pairs = np.unique(np.stack([i, k]), axis=1)
    w = i > 0
    return {"shift": (word_of(pairs[0], n), pairs[1] - 1),
            "left": (i[w] - 1, k[w] - 1, j[w] - 1), "right": (i[w] - 1, k[w] - 1, j[w] - 1),
            "root": ((k - 1)[~w], (j - 1)[~w])}
