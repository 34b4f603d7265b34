# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""Exact decoding and arc marginals for window-feature transition models: the push-computation
tabulation of Kuhlmann, Gómez-Rodríguez & Satta (2011), spec ../shared/specs/dp_tabulation.md.

Plain arrays in, plain arrays out; nothing here knows spaCy. Documentation: docs/tabulation.md.

Coordinates (the package's, docs/conventions.md). A sentence has words 0..n-1; the virtual
root is not a word. Every score table is indexed by *word positions* of the window in which a
move is taken, with index n (== -1 in numpy) meaning "none": for a stack slot "the virtual
root / nothing", for b0 "the buffer is empty". Table shapes (N1 = n + 1):

arc_hybrid (moves SHIFT, LEFT, RIGHT, ROOT of arc_hybrid.pyx):
    shift[s0, b0]        (N1, N1)      window (s0, b0) of spec §5.4 row 1; s0 = n: empty stack
    shift[s1, s0, b0]    (N1, N1, N1)  the context variant (spec §5.4 row 2, §5.5), O(n^4)
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

Internally the chart uses the spec's positions: x = 0 is the virtual root (spec token 0,
ROOT-first), x >= 1 is word x - 1; fence posts j = 0..P with P = n + 1 (b0 = word j - 1,
j = P: empty buffer). The spec's first transition (shifting token 0) does not exist in the
package's systems (the virtual root starts below the stack), so its weight is 0.

Invalid moves: give them -inf. All kernels treat -inf as the semiring zero.
"""
import numpy as np

from libc.math cimport exp, log, INFINITY
from libc.stdlib cimport malloc, free

cdef double NEG = -INFINITY

MOVE_NAMES = {T_SHIFT: "SHIFT", T_LEFT: "LEFT", T_RIGHT: "RIGHT", T_ROOT: "ROOT",
              T_REDUCE: "REDUCE"}
MOVE_IDS = {"SHIFT": T_SHIFT, "LEFT": T_LEFT, "RIGHT": T_RIGHT, "ROOT": T_ROOT,
            "REDUCE": T_REDUCE}


# ---- small helpers ----------------------------------------------------------------------
cdef inline int sw(int x, int n) noexcept nogil:
    """Word index of spec stack position x (0 = the virtual root -> n = none)."""
    return n if x == 0 else x - 1


cdef inline double lse2(double a, double b) noexcept nogil:
    if a == NEG:
        return b
    if b == NEG:
        return a
    if a > b:
        return a + log(1.0 + exp(b - a))
    return b + log(1.0 + exp(a - b))


cdef inline double reduce_terms(int sr, const double* buf, int nt, int* arg) noexcept nogil:
    """Semiring sum of buf[0:nt] (spec §6): max with argmax, or a max-shifted log-sum-exp."""
    cdef double m = NEG, s = 0.0
    cdef int x, a = -1
    for x in range(nt):
        if buf[x] > m:
            m = buf[x]
            a = x
    arg[0] = a
    if sr == SR_MAX or m == NEG:
        return m
    for x in range(nt):
        s += exp(buf[x] - m)
    return m + log(s)


# ==== arc-hybrid (spec §3.3; context variant §5.5) ========================================
cdef struct Hyb:
    int n
    int ctx
    const double* shift
    const double* left
    const double* right
    const double* root


cdef inline double h_shift(const Hyb* t, int p, int i, int k) noexcept nogil:
    """Push of spec position k onto top i (context p below i): SHIFT in window (s1?, s0, b0)."""
    cdef int n = t.n, N1 = t.n + 1
    if t.ctx:
        return t.shift[(sw(p, n) * N1 + sw(i, n)) * N1 + k - 1]
    return t.shift[sw(i, n) * N1 + k - 1]


cdef inline double h_left(const Hyb* t, int i, int k, int j) noexcept nogil:
    """LEFT in rule [i,k][k,j]: s1 = i, s0 = k, b0 = j; needs a buffer (j < P, spec §10)."""
    cdef int n = t.n, N1 = t.n + 1
    if j > n:
        return NEG
    return t.left[(sw(i, n) * N1 + k - 1) * N1 + j - 1]


cdef inline double h_pop(const Hyb* t, int i, int k, int j) noexcept nogil:
    """The spec's `ra` in rule [i,k][k,j]: RIGHT if s1 = i is a word, ROOT if it is the
    virtual root (i = 0)."""
    cdef int N1 = t.n + 1
    if i == 0:
        return t.root[(k - 1) * N1 + j - 1]
    return t.right[((i - 1) * N1 + k - 1) * N1 + j - 1]


# -- plain items [i, j] ----------------------------------------------------------------------
cdef void hyb_fill(const Hyb* t, int sr, double* C, double* CT, int* bp, double* buf,
                   int* tag) noexcept nogil:
    """Chart of spec §3.3 / §3.4 in semiring sr; C[i*W+j], CT[j*W+i] = the same value (so the
    k loop reads both premises contiguously). Order: i descending, j ascending (each
    premise has a larger i or a smaller j)."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int i, j, k, nt, a
    cdef double L, R, base, v
    for i in range(W * W):
        C[i] = NEG
        CT[i] = NEG
    for i in range(P - 1, -1, -1):
        C[i * W + i + 1] = 0.0                   # axiom [i, i+1] (push charged in the rule)
        CT[(i + 1) * W + i] = 0.0
        for j in range(i + 2, P + 1):
            nt = 0
            for k in range(i + 1, j):
                L = C[i * W + k]
                R = CT[j * W + k]
                if L == NEG or R == NEG:
                    continue
                base = L + R + h_shift(t, 0, i, k)
                v = base + h_left(t, i, k, j)
                if v > NEG:
                    buf[nt] = v
                    tag[nt] = k * 4 + 1
                    nt += 1
                v = base + h_pop(t, i, k, j)
                if v > NEG:
                    buf[nt] = v
                    tag[nt] = k * 4 + 2
                    nt += 1
            v = reduce_terms(sr, buf, nt, &a)
            C[i * W + j] = v
            CT[j * W + i] = v
            if bp != NULL:
                bp[i * W + j] = tag[a] if a >= 0 else -1


cdef void hyb_trace(const int* bp, int W, int i, int j, signed char* out, int* pos) noexcept nogil:
    """Spec §4: seq([i,j]) = seq([i,k]) + [SHIFT k] + seq([k,j]) + [reduce]."""
    cdef int x, k, m
    if j == i + 1:
        return
    x = bp[i * W + j]
    k = x // 4
    m = x % 4
    hyb_trace(bp, W, i, k, out, pos)
    out[pos[0]] = T_SHIFT
    pos[0] += 1
    hyb_trace(bp, W, k, j, out, pos)
    out[pos[0]] = T_LEFT if m == 1 else (T_ROOT if i == 0 else T_RIGHT)
    pos[0] += 1


cdef void hyb_outside(const Hyb* t, const double* I, double* O, double* buf) noexcept nogil:
    """Outside scores in pull form (spec §6), items by decreasing span: an item [a,b] is the
    left premise of [a,j] (with [b,j]) and the right premise of [i,b] (with [i,a])."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int a, b, i, j, span, nt, arg
    cdef double v
    for a in range(W * W):
        O[a] = NEG
    O[0 * W + P] = 0.0
    for span in range(P - 1, 0, -1):
        for a in range(0, P - span + 1):
            b = a + span
            nt = 0
            for j in range(b + 1, P + 1):
                if O[a * W + j] == NEG or I[b * W + j] == NEG:
                    continue
                v = (O[a * W + j] + I[b * W + j] + h_shift(t, 0, a, b)
                     + lse2(h_left(t, a, b, j), h_pop(t, a, b, j)))
                if v > NEG:
                    buf[nt] = v
                    nt += 1
            if a >= 1:
                for i in range(0, a):
                    if O[i * W + b] == NEG or I[i * W + a] == NEG:
                        continue
                    v = (O[i * W + b] + I[i * W + a] + h_shift(t, 0, i, a)
                         + lse2(h_left(t, i, a, b), h_pop(t, i, a, b)))
                    if v > NEG:
                        buf[nt] = v
                        nt += 1
            O[a * W + b] = reduce_terms(SR_LOG, buf, nt, &arg)


cdef void hyb_marginals(const Hyb* t, const double* I, const double* O, double logZ,
                        double* marg, double* g_shift, double* g_left, double* g_right,
                        double* g_root) noexcept nogil:
    """Posterior of every rule instance (spec §6): arc marginals marg[child*n + head]
    (head == child: root) and, if g_shift != NULL, expected move counts per window
    (= d logZ / d score)."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, k, j
    cdef double base, pl, pr
    for i in range(0, P):
        for j in range(i + 2, P + 1):
            if O[i * W + j] == NEG:
                continue
            for k in range(i + 1, j):
                if I[i * W + k] == NEG or I[k * W + j] == NEG:
                    continue
                base = O[i * W + j] + I[i * W + k] + I[k * W + j] + h_shift(t, 0, i, k) - logZ
                pl = exp(base + h_left(t, i, k, j))
                pr = exp(base + h_pop(t, i, k, j))
                if j <= n:
                    marg[(k - 1) * n + j - 1] += pl
                if i == 0:
                    marg[(k - 1) * n + k - 1] += pr
                else:
                    marg[(k - 1) * n + i - 1] += pr
                if g_shift != NULL:
                    g_shift[sw(i, n) * N1 + k - 1] += pl + pr
                    if j <= n:
                        g_left[(sw(i, n) * N1 + k - 1) * N1 + j - 1] += pl
                    if i == 0:
                        g_root[(k - 1) * N1 + j - 1] += pr
                    else:
                        g_right[((i - 1) * N1 + k - 1) * N1 + j - 1] += pr


# -- context items [i, j; p] (spec §5.5) ----------------------------------------------------
cdef inline long cidx(int W, int p, int i, int j) noexcept nogil:
    return (<long>p * W + i) * W + j


cdef void hybc_fill(const Hyb* t, int sr, double* E, int* bp, double* R, int* Rm,
                    double* buf, int* tag) noexcept nogil:
    """E[p][i][j]: push computation of i over [i, j) with p directly below i (p = 0 for i = 0:
    the stack is empty, which the windows read as none). The right premise's context is the
    left premise's head (spec §5.5). The reduce does not read p, so per (i, j) the
    right-premise sums R[k] = E[i][k][j] (x) reduce(i,k,j) are shared by every p."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int i, j, k, p, nt, a, pmax
    cdef long x
    cdef double v, vl, vp
    for x in range(<long>W * W * W):
        E[x] = NEG
    for i in range(P - 1, -1, -1):
        pmax = i if i > 0 else 1                # contexts 0..i-1 (i = 0: one, "none")
        for p in range(pmax):
            E[cidx(W, p, i, i + 1)] = 0.0
        for j in range(i + 2, P + 1):
            for k in range(i + 1, j):
                v = E[cidx(W, i, k, j)]
                R[k] = NEG
                Rm[k] = 0
                if v == NEG:
                    continue
                vl = v + h_left(t, i, k, j)
                vp = v + h_pop(t, i, k, j)
                if sr == SR_MAX:
                    if vl >= vp and vl > NEG:
                        R[k] = vl
                        Rm[k] = 1
                    elif vp > NEG:
                        R[k] = vp
                        Rm[k] = 2
                else:
                    R[k] = lse2(vl, vp)
            for p in range(pmax):
                nt = 0
                for k in range(i + 1, j):
                    if R[k] == NEG:
                        continue
                    v = E[cidx(W, p, i, k)]
                    if v == NEG:
                        continue
                    v = v + R[k] + h_shift(t, p, i, k)
                    if v > NEG:
                        buf[nt] = v
                        tag[nt] = k * 4 + Rm[k]
                        nt += 1
                v = reduce_terms(sr, buf, nt, &a)
                E[cidx(W, p, i, j)] = v
                if bp != NULL:
                    bp[cidx(W, p, i, j)] = tag[a] if a >= 0 else -1


cdef void hybc_trace(const int* bp, int W, int p, int i, int j, signed char* out,
                     int* pos) noexcept nogil:
    cdef int x, k, m
    if j == i + 1:
        return
    x = bp[cidx(W, p, i, j)]
    k = x // 4
    m = x % 4
    hybc_trace(bp, W, p, i, k, out, pos)
    out[pos[0]] = T_SHIFT
    pos[0] += 1
    hybc_trace(bp, W, i, k, j, out, pos)
    out[pos[0]] = T_LEFT if m == 1 else (T_ROOT if i == 0 else T_RIGHT)
    pos[0] += 1


cdef void hybc_outside(const Hyb* t, const double* I, double* O, double* buf) noexcept nogil:
    """Pull-form outside for context items: [c; a, b] is the left premise of [c; a, j] (with
    [a; b, j]) and, with context c = the rule's left head, the right premise of [pp; c, b]
    (with [pp; c, a])."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int a, b, c, j, pp, span, nt, arg, cmax, ppmax
    cdef long x
    cdef double v, red
    for x in range(<long>W * W * W):
        O[x] = NEG
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
                         + lse2(h_left(t, a, b, j), h_pop(t, a, b, j)))
                    if v > NEG:
                        buf[nt] = v
                        nt += 1
                if a >= 1:
                    red = lse2(h_left(t, c, a, b), h_pop(t, c, a, b))
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
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int p, i, k, j, pmax
    cdef double base, pl, pr
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
                    pl = exp(base + h_left(t, i, k, j))
                    pr = exp(base + h_pop(t, i, k, j))
                    if j <= n:
                        marg[(k - 1) * n + j - 1] += pl
                    if i == 0:
                        marg[(k - 1) * n + k - 1] += pr
                    else:
                        marg[(k - 1) * n + i - 1] += pr
                    if g_shift != NULL:
                        g_shift[(sw(p, n) * N1 + sw(i, n)) * N1 + k - 1] += pl + pr
                        if j <= n:
                            g_left[(sw(i, n) * N1 + k - 1) * N1 + j - 1] += pl
                        if i == 0:
                            g_root[(k - 1) * N1 + j - 1] += pr
                        else:
                            g_right[((i - 1) * N1 + k - 1) * N1 + j - 1] += pr


# ==== arc-eager, package variant (spec §3.2, with the corrected REDUCE) ====================
cdef struct Eag:
    int n
    const double* shift     # [f, s0, b0]
    const double* right     # [f, s0, b0]
    const double* left      # [s1, s0, b0]
    const double* reduce    # [f, s1, s0, b0]
    const double* root      # [s0, b0]


# Reduce codes of a rule instance (tag % 8): which push made k, which move popped it.
cdef enum:
    E_SH_LEFT = 0
    E_SH_REDUCE = 1      # REDUCE of an L top (the correction of an earlier SHIFT)
    E_SH_ROOT = 2
    E_RA_REDUCE = 3      # REDUCE of an R top (its pending right arc)


cdef inline long eidx(int W, int b, int i, int j) noexcept nogil:
    return (<long>b * W + i) * W + j


cdef inline double e_push(const Eag* t, int code, int b, int i, int k) noexcept nogil:
    """Push of k onto top i (flag b): SHIFT, or RIGHT (never onto an empty stack)."""
    cdef int n = t.n, N1 = t.n + 1
    if code == E_RA_REDUCE:
        if i == 0:
            return NEG
        return t.right[(b * N1 + i - 1) * N1 + k - 1]
    return t.shift[(b * N1 + sw(i, n)) * N1 + k - 1]


cdef inline double e_pop(const Eag* t, int code, int i, int k, int j) noexcept nogil:
    """The reduce-type move of rule [i,k][k,j]: window s1 = i, s0 = k, b0 = j."""
    cdef int n = t.n, N1 = t.n + 1
    if code == E_SH_LEFT:
        if j > n:
            return NEG
        return t.left[(sw(i, n) * N1 + k - 1) * N1 + j - 1]
    if code == E_SH_ROOT:
        if i != 0:
            return NEG
        return t.root[(k - 1) * N1 + j - 1]
    if i == 0:
        return NEG                        # REDUCE needs a word below s0
    if code == E_SH_REDUCE:
        return t.reduce[(((0 * N1) + i - 1) * N1 + k - 1) * N1 + j - 1]
    return t.reduce[(((1 * N1) + i - 1) * N1 + k - 1) * N1 + j - 1]


cdef void eag_fill(const Eag* t, int sr, double* C, int* bp, double* buf, int* tag) noexcept nogil:
    """C[b][i][j] (spec §3.2 implementation form): push computation of i (flag b) over [i, j).
    Rule [i^b,k][k^b',j] |- [i^b,j]: b' = 0 (k pushed by SHIFT) then LEFT (j < P), REDUCE
    (i a word) or ROOT (i = 0); b' = 1 (k pushed by RIGHT, i a word) then REDUCE."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int i, j, k, b, nb, nt, a, code
    cdef long x
    cdef double L, R, v
    for x in range(<long>2 * W * W):
        C[x] = NEG
    for i in range(P - 1, -1, -1):
        nb = 2 if i > 0 else 1               # the virtual root has no head flag
        for b in range(nb):
            C[eidx(W, b, i, i + 1)] = 0.0
        for j in range(i + 2, P + 1):
            for b in range(nb):
                nt = 0
                for k in range(i + 1, j):
                    L = C[eidx(W, b, i, k)]
                    if L == NEG:
                        continue
                    for code in range(4):
                        R = C[eidx(W, 1 if code == E_RA_REDUCE else 0, k, j)]
                        if R == NEG:
                            continue
                        v = L + R + e_push(t, code, b, i, k) + e_pop(t, code, i, k, j)
                        if v > NEG:
                            buf[nt] = v
                            tag[nt] = k * 8 + code
                            nt += 1
                v = reduce_terms(sr, buf, nt, &a)
                C[eidx(W, b, i, j)] = v
                if bp != NULL:
                    bp[eidx(W, b, i, j)] = tag[a] if a >= 0 else -1


cdef void eag_trace(const int* bp, int W, int b, int i, int j, signed char* out,
                    int* pos) noexcept nogil:
    cdef int x, k, code
    if j == i + 1:
        return
    x = bp[eidx(W, b, i, j)]
    k = x // 8
    code = x % 8
    eag_trace(bp, W, b, i, k, out, pos)
    out[pos[0]] = T_RIGHT if code == E_RA_REDUCE else T_SHIFT
    pos[0] += 1
    eag_trace(bp, W, 1 if code == E_RA_REDUCE else 0, k, j, out, pos)
    if code == E_SH_LEFT:
        out[pos[0]] = T_LEFT
    elif code == E_SH_ROOT:
        out[pos[0]] = T_ROOT
    else:
        out[pos[0]] = T_REDUCE
    pos[0] += 1


cdef void eag_outside(const Eag* t, const double* I, double* O, double* buf) noexcept nogil:
    """Pull form: [b; a, e] is the left premise of [b; a, j] (right premise [b'; e, j]) and,
    as [b'; a, e] with b' = b, the right premise of [bb; i, e] (left premise [bb; i, a])."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int a, e, i, j, b, bb, nb, nbb, span, nt, arg, code
    cdef long x
    cdef double v, R
    for x in range(<long>2 * W * W):
        O[x] = NEG
    O[eidx(W, 0, 0, P)] = 0.0
    for span in range(P - 1, 0, -1):
        for a in range(0, P - span + 1):
            e = a + span
            nb = 2 if a > 0 else 1
            for b in range(nb):
                nt = 0
                for j in range(e + 1, P + 1):
                    if O[eidx(W, b, a, j)] == NEG:
                        continue
                    for code in range(4):
                        R = I[eidx(W, 1 if code == E_RA_REDUCE else 0, e, j)]
                        if R == NEG:
                            continue
                        v = O[eidx(W, b, a, j)] + R + e_push(t, code, b, a, e) + e_pop(t, code, a, e, j)
                        if v > NEG:
                            buf[nt] = v
                            nt += 1
                if a >= 1:
                    for i in range(0, a):
                        nbb = 2 if i > 0 else 1
                        for bb in range(nbb):
                            if O[eidx(W, bb, i, e)] == NEG or I[eidx(W, bb, i, a)] == NEG:
                                continue
                            for code in range(4):
                                if (code == E_RA_REDUCE) != (b == 1):
                                    continue
                                v = (O[eidx(W, bb, i, e)] + I[eidx(W, bb, i, a)]
                                     + e_push(t, code, bb, i, a) + e_pop(t, code, i, a, e))
                                if v > NEG:
                                    buf[nt] = v
                                    nt += 1
                O[eidx(W, b, a, e)] = reduce_terms(SR_LOG, buf, nt, &arg)


cdef void eag_marginals(const Eag* t, const double* I, const double* O, double logZ,
                        double* marg, double* g_shift, double* g_right, double* g_left,
                        double* g_reduce, double* g_root) noexcept nogil:
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, k, j, b, nb, code, bp_
    cdef double base, pe, R
    for i in range(0, P):
        nb = 2 if i > 0 else 1
        for b in range(nb):
            for j in range(i + 2, P + 1):
                if O[eidx(W, b, i, j)] == NEG:
                    continue
                for k in range(i + 1, j):
                    if I[eidx(W, b, i, k)] == NEG:
                        continue
                    for code in range(4):
                        bp_ = 1 if code == E_RA_REDUCE else 0
                        R = I[eidx(W, bp_, k, j)]
                        if R == NEG:
                            continue
                        base = (O[eidx(W, b, i, j)] + I[eidx(W, b, i, k)] + R
                                + e_push(t, code, b, i, k) + e_pop(t, code, i, k, j))
                        if base == NEG:
                            continue
                        pe = exp(base - logZ)
                        if code == E_SH_LEFT:
                            marg[(k - 1) * n + j - 1] += pe
                        elif code == E_SH_ROOT:
                            marg[(k - 1) * n + k - 1] += pe
                        else:
                            marg[(k - 1) * n + i - 1] += pe
                        if g_shift == NULL:
                            continue
                        if code == E_RA_REDUCE:
                            g_right[(b * N1 + i - 1) * N1 + k - 1] += pe
                        else:
                            g_shift[(b * N1 + sw(i, n)) * N1 + k - 1] += pe
                        if code == E_SH_LEFT:
                            g_left[(sw(i, n) * N1 + k - 1) * N1 + j - 1] += pe
                        elif code == E_SH_ROOT:
                            g_root[(k - 1) * N1 + j - 1] += pe
                        else:
                            g_reduce[((bp_ * N1 + i - 1) * N1 + k - 1) * N1 + j - 1] += pe


# ==== Python API ================================================================================
def _table(x, shape, name):
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.shape != shape:
        raise ValueError(f"{name} has shape {a.shape}, expected {shape}")
    if np.isnan(a).any() or np.isposinf(a).any():
        raise ValueError(f"{name} contains NaN or +inf (use -inf for invalid moves)")
    return a


def _flagged(x, shape, name):
    """Eager tables may omit the leading flag axis: broadcast it (same score for both flags)."""
    a = np.asarray(x, dtype=np.float64)
    if a.shape == shape[1:]:
        a = np.broadcast_to(a, shape)
    return _table(a, shape, name), np.asarray(x).ndim == len(shape) - 1


cdef const double* _ptr(const double[::1] a):
    return &a[0]


cdef class _HybTables:
    cdef Hyb t
    cdef object keep

    def __init__(self, shift, left, right, root):
        root = np.asarray(root)
        if root.ndim != 2 or root.shape[0] != root.shape[1] or root.shape[0] < 2:
            raise ValueError("root must have shape (n+1, n+1) with n >= 1")
        n = root.shape[0] - 1
        N1 = n + 1
        shift = np.asarray(shift)
        ctx = shift.ndim == 3
        self.keep = [_table(shift, (N1, N1, N1) if ctx else (N1, N1), "shift"),
                     _table(left, (N1, N1, N1), "left"), _table(right, (N1, N1, N1), "right"),
                     _table(root, (N1, N1), "root")]
        self.t.n = n
        self.t.ctx = ctx
        self.t.shift = _ptr(self.keep[0].reshape(-1))
        self.t.left = _ptr(self.keep[1].reshape(-1))
        self.t.right = _ptr(self.keep[2].reshape(-1))
        self.t.root = _ptr(self.keep[3].reshape(-1))


cdef class _EagTables:
    cdef Eag t
    cdef object keep
    cdef object unflagged

    def __init__(self, shift, right, left, reduce, root):
        root = np.asarray(root)
        if root.ndim != 2 or root.shape[0] != root.shape[1] or root.shape[0] < 2:
            raise ValueError("root must have shape (n+1, n+1) with n >= 1")
        n = root.shape[0] - 1
        N1 = n + 1
        sh, u_sh = _flagged(shift, (2, N1, N1), "shift")
        ra, u_ra = _flagged(right, (2, N1, N1), "right")
        rd, u_rd = _flagged(reduce, (2, N1, N1, N1), "reduce")
        self.unflagged = {"shift": u_sh, "right": u_ra, "reduce": u_rd}
        self.keep = [sh, ra, _table(left, (N1, N1, N1), "left"), rd, _table(root, (N1, N1), "root")]
        self.t.n = n
        self.t.shift = _ptr(self.keep[0].reshape(-1))
        self.t.right = _ptr(self.keep[1].reshape(-1))
        self.t.left = _ptr(self.keep[2].reshape(-1))
        self.t.reduce = _ptr(self.keep[3].reshape(-1))
        self.t.root = _ptr(self.keep[4].reshape(-1))


def hybrid_viterbi(shift, left, right, root):
    """Best transition sequence of arc_hybrid under window scores (spec §3.3, §4, §6).

    Returns (best score, moves): moves is an int8 array of 2n move ids (MOVE_NAMES; the
    package's SHIFT/LEFT/RIGHT/ROOT), replayable from the initial state. A 3-D `shift`
    table [s1, s0, b0] selects the context chart (spec §5.5, O(n^4))."""
    cdef _HybTables tb = _HybTables(shift, left, right, root)
    cdef int n = tb.t.n, W = n + 2, pos = 0
    cdef long size = <long>W * W * W if tb.t.ctx else <long>W * W
    cdef double[::1] C = np.empty(size, dtype=np.float64)
    cdef double[::1] CT = np.empty(W * W, dtype=np.float64)
    cdef int[::1] bp = np.full(size, -1, dtype=np.intc)
    cdef double[::1] R = np.empty(W, dtype=np.float64)
    cdef int[::1] Rm = np.empty(W, dtype=np.intc)
    cdef double[::1] buf = np.empty(2 * W, dtype=np.float64)
    cdef int[::1] tag = np.empty(2 * W, dtype=np.intc)
    cdef signed char[::1] out = np.zeros(2 * n, dtype=np.int8)
    cdef double best
    with nogil:
        if tb.t.ctx:
            hybc_fill(&tb.t, SR_MAX, &C[0], &bp[0], &R[0], &Rm[0], &buf[0], &tag[0])
            best = C[cidx(W, 0, 0, n + 1)]
            if best > NEG:
                hybc_trace(&bp[0], W, 0, 0, n + 1, &out[0], &pos)
        else:
            hyb_fill(&tb.t, SR_MAX, &C[0], &CT[0], &bp[0], &buf[0], &tag[0])
            best = C[n + 1]
            if best > NEG:
                hyb_trace(&bp[0], W, 0, n + 1, &out[0], &pos)
    if best == NEG:
        return best, None
    return best, np.asarray(out)


def hybrid_inside_outside(shift, left, right, root, *, marginals=True, gradients=False):
    """log Z (log-sum-exp of all complete arc_hybrid computations' scores), the arc marginals
    marg[child, head] (head == child: the child is a root; every row sums to 1), and with
    gradients=True the expected move counts per window = d logZ / d table, as a dict of
    arrays shaped like the tables (spec §6)."""
    cdef _HybTables tb = _HybTables(shift, left, right, root)
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef long size = <long>W * W * W if tb.t.ctx else <long>W * W
    cdef double[::1] I = np.empty(size, dtype=np.float64)
    cdef double[::1] CT = np.empty(W * W, dtype=np.float64)
    cdef double[::1] O
    cdef double[::1] R = np.empty(W, dtype=np.float64)
    cdef int[::1] Rm = np.empty(W, dtype=np.intc)
    cdef double[::1] buf = np.empty(2 * W * W + 4, dtype=np.float64)
    cdef int[::1] tag = np.empty(2 * W, dtype=np.intc)
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gl, gr, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        if tb.t.ctx:
            hybc_fill(&tb.t, SR_LOG, &I[0], NULL, &R[0], &Rm[0], &buf[0], &tag[0])
            logZ = I[cidx(W, 0, 0, n + 1)]
        else:
            hyb_fill(&tb.t, SR_LOG, &I[0], &CT[0], NULL, &buf[0], &tag[0])
            logZ = I[n + 1]
    if not (marginals or gradients) or logZ == NEG:
        return logZ, None, None
    O = np.empty(size, dtype=np.float64)
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
            hyb_outside(&tb.t, &I[0], &O[0], &buf[0])
            hyb_marginals(&tb.t, &I[0], &O[0], logZ, &marg[0],
                          &gs[0] if grads else NULL, &gl[0], &gr[0], &gt[0])
    g = None
    if gradients:
        g = {"shift": np.asarray(gs).reshape(tb.keep[0].shape),
             "left": np.asarray(gl).reshape(N1, N1, N1),
             "right": np.asarray(gr).reshape(N1, N1, N1),
             "root": np.asarray(gt).reshape(N1, N1)}
    return logZ, np.asarray(marg).reshape(n, n), g


def eager_viterbi(shift, right, left, reduce, root):
    """Best transition sequence of the package's arc_eager (SHIFT, RIGHT, LEFT, REDUCE, ROOT)
    under window scores; returns (best score, int8 move ids of length 2n)."""
    cdef _EagTables tb = _EagTables(shift, right, left, reduce, root)
    cdef int n = tb.t.n, W = n + 2, pos = 0
    cdef double[::1] C = np.empty(2 * W * W, dtype=np.float64)
    cdef int[::1] bp = np.full(2 * W * W, -1, dtype=np.intc)
    cdef double[::1] buf = np.empty(4 * W, dtype=np.float64)
    cdef int[::1] tag = np.empty(4 * W, dtype=np.intc)
    cdef signed char[::1] out = np.zeros(2 * n, dtype=np.int8)
    cdef double best
    with nogil:
        eag_fill(&tb.t, SR_MAX, &C[0], &bp[0], &buf[0], &tag[0])
        best = C[eidx(W, 0, 0, n + 1)]
        if best > NEG:
            eag_trace(&bp[0], W, 0, 0, n + 1, &out[0], &pos)
    if best == NEG:
        return best, None
    return best, np.asarray(out)


def eager_inside_outside(shift, right, left, reduce, root, *, marginals=True, gradients=False):
    """As hybrid_inside_outside, for arc_eager. Gradients of tables given without the flag
    axis are summed over it."""
    cdef _EagTables tb = _EagTables(shift, right, left, reduce, root)
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef double[::1] I = np.empty(2 * W * W, dtype=np.float64)
    cdef double[::1] O
    cdef double[::1] buf = np.empty(8 * W * W + 8, dtype=np.float64)
    cdef int[::1] tag = np.empty(4 * W, dtype=np.intc)
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gr, gl, gd, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        eag_fill(&tb.t, SR_LOG, &I[0], NULL, &buf[0], &tag[0])
        logZ = I[eidx(W, 0, 0, n + 1)]
    if not (marginals or gradients) or logZ == NEG:
        return logZ, None, None
    O = np.empty(2 * W * W, dtype=np.float64)
    gs = np.zeros(2 * N1 * N1, dtype=np.float64)
    gr = np.zeros(2 * N1 * N1, dtype=np.float64)
    gl = np.zeros(N1 * N1 * N1, dtype=np.float64)
    gd = np.zeros(2 * N1 * N1 * N1, dtype=np.float64)
    gt = np.zeros(N1 * N1, dtype=np.float64)
    with nogil:
        eag_outside(&tb.t, &I[0], &O[0], &buf[0])
        eag_marginals(&tb.t, &I[0], &O[0], logZ, &marg[0],
                      &gs[0] if grads else NULL, &gr[0], &gl[0], &gd[0], &gt[0])
    g = None
    if gradients:
        g = {"shift": np.asarray(gs).reshape(2, N1, N1),
             "right": np.asarray(gr).reshape(2, N1, N1),
             "left": np.asarray(gl).reshape(N1, N1, N1),
             "reduce": np.asarray(gd).reshape(2, N1, N1, N1),
             "root": np.asarray(gt).reshape(N1, N1)}
        for name, unflagged in tb.unflagged.items():
            if unflagged:
                g[name] = g[name].sum(axis=0)
    return logZ, np.asarray(marg).reshape(n, n), g


def move_names(moves):
    """Move ids (as returned by the decoders) -> the package's move names."""
    return [MOVE_NAMES[int(m)] for m in moves]
