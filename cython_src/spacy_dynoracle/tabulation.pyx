# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""Exact decoding and arc marginals for window-feature transition models: the push-computation
tabulation of Kuhlmann, Gómez-Rodríguez & Satta (2011), spec docs/specs/dp_tabulation.md.

Plain arrays in, plain arrays out; nothing here knows spaCy. Documentation: docs/tabulation.md.

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

from libc.math cimport exp, log, INFINITY

cdef double NEG = -INFINITY

MOVE_NAMES = {SHIFT: "SHIFT", LEFT: "LEFT", RIGHT: "RIGHT", ROOT: "ROOT",
              REDUCE: "REDUCE"}
MOVE_IDS = {"SHIFT": SHIFT, "LEFT": LEFT, "RIGHT": RIGHT, "ROOT": ROOT,
            "REDUCE": REDUCE}


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
    """Semiring sum of buf[0:nt] (docs/specs/dp_tabulation.md §6): max with argmax, or a max-shifted
    log-sum-exp."""
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


cdef inline void lacc(double* M, double* S, double v) noexcept nogil:
    """Running max-shifted log-sum-exp: the value is M + log(S). NaN terms are dropped."""
    if v > M[0]:
        if M[0] > NEG:
            S[0] = S[0] * exp(M[0] - v) + 1.0
        else:
            S[0] = 1.0
        M[0] = v
    elif v > NEG:
        S[0] += exp(v - M[0])


cdef inline double lfin(double M, double S) noexcept nogil:
    return M + log(S) if M > NEG else NEG


# ==== arc-hybrid (docs/specs/dp_tabulation.md §3.3; context variant §5.5) =========================
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


cdef inline double h_pop(const Hyb* t, int i, int k, int j) noexcept nogil:
    """The spec's `ra` in rule [i,k][k,j]: RIGHT if s1 = i is a word, ROOT if it is the
    virtual root (i = 0)."""
    cdef int N1 = t.n + 1
    if i == 0:
        return t.root[(k - 1) * N1 + j - 1]
    return t.right[(i - 1) * t.rs1 + (k - 1) * N1 + j - 1]


# -- plain items [i, j] ----------------------------------------------------------------------
cdef void hyb_fill(const Hyb* t, int sr, double* C, int* bp, double* M, double* S) noexcept nogil:
    """Chart of docs/specs/dp_tabulation.md §3.3 in semiring sr, C[i*W+j] (W = P + 1). Order: i
    descending; within a row, k ascending, each rule instance [i,k][k,j] *pushed* into C[i][j] for
    all j > k (C[i][k] is complete when k is reached: its rules have split points < k). The inner j
    loop then reads C[k][.] and the tables' b0 axis contiguously (docs/specs/dp_tabulation.md §3.4).
    The log semiring keeps a running max-shifted sum (M, S) per cell of the row."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, j, k, si
    cdef double L, base, v, r
    cdef double* row
    cdef const double* Ck
    cdef const double* lrow
    cdef const double* prow
    for i in range(W * W):
        C[i] = NEG
    for i in range(P - 1, -1, -1):
        row = C + i * W
        si = sw(i, n)
        for j in range(W):
            M[j] = NEG
            S[j] = 0.0
        row[i + 1] = 0.0                         # axiom [i, i+1] (push charged in the rule)
        for k in range(i + 1, P):
            if k > i + 1 and sr == SR_LOG:
                row[k] = lfin(M[k], S[k])
            L = row[k]
            if L == NEG:
                continue
            base = L + t.shift[si * N1 + k - 1]
            Ck = C + k * W
            lrow = t.left + si * t.ls1 + (k - 1) * N1 - 1          # lrow[j] = left[s1, s0, j-1]
            if i == 0:
                prow = t.root + (k - 1) * N1 - 1                 # ROOT: s1 = the virtual root
            else:
                prow = t.right + (i - 1) * t.rs1 + (k - 1) * N1 - 1
            if sr == SR_MAX:
                for j in range(k + 1, P + 1):
                    r = base + Ck[j]
                    v = r + prow[j]
                    if v > row[j]:
                        row[j] = v
                        bp[i * W + j] = k * 4 + 2
                    if j <= n:
                        v = r + lrow[j]
                        if v > row[j]:
                            row[j] = v
                            bp[i * W + j] = k * 4 + 1
            else:
                for j in range(k + 1, P + 1):
                    r = base + Ck[j]
                    lacc(&M[j], &S[j], r + prow[j])
                    if j <= n:
                        lacc(&M[j], &S[j], r + lrow[j])
        if sr == SR_LOG and P > i + 1:
            row[P] = lfin(M[P], S[P])


cdef void hyb_trace(const int* bp, int W, int i, int j, signed char* out, int* pos) noexcept nogil:
    """docs/specs/dp_tabulation.md §4: seq([i,j]) = seq([i,k]) + [SHIFT k] + seq([k,j]) +
    [reduce]."""
    cdef int x, k, m
    if j == i + 1:
        return
    x = bp[i * W + j]
    k = x // 4
    m = x % 4
    hyb_trace(bp, W, i, k, out, pos)
    out[pos[0]] = SHIFT
    pos[0] += 1
    hyb_trace(bp, W, k, j, out, pos)
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
    cdef double Mv, Sv, sh, Iik, base, vl, vp, pl, pr
    cdef const double* lrow
    cdef const double* prow
    cdef const double* Ik
    cdef double* Oi
    for i in range(W * W):
        O[i] = NEG
        OM[i] = NEG
        OS[i] = 0.0
    for i in range(0, P):
        si = sw(i, n)
        Oi = O + i * W
        Oi[P] = 0.0 if i == 0 else lfin(OM[i * W + P], OS[i * W + P])   # [0, P] is the goal
        for k in range(P - 1, i, -1):
            sh = t.shift[si * N1 + k - 1]
            lrow = t.left + si * t.ls1 + (k - 1) * N1 - 1
            if i == 0:
                prow = t.root + (k - 1) * N1 - 1
            else:
                prow = t.right + (i - 1) * t.rs1 + (k - 1) * N1 - 1
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
                pl = exp(vl + Iik - logZ)                 # posterior of the rule instance
                pr = exp(vp + Iik - logZ)
                if j <= n:
                    marg[(k - 1) * n + j - 1] += pl
                marg[(k - 1) * n + (k - 1 if i == 0 else i - 1)] += pr
                if g_shift != NULL:
                    g_shift[si * N1 + k - 1] += pl + pr
                    if j <= n:
                        g_left[(si * N1 + k - 1) * N1 + j - 1] += pl
                    if i == 0:
                        g_root[(k - 1) * N1 + j - 1] += pr
                    else:
                        g_right[((i - 1) * N1 + k - 1) * N1 + j - 1] += pr
            Oi[k] = lfin(Mv, Sv)


# -- context items [i, j; p] (docs/specs/dp_tabulation.md §5.5) ------------------------------------
cdef inline long cidx(int W, int p, int i, int j) noexcept nogil:
    return (<long>p * W + i) * W + j


cdef void hybc_fill(const Hyb* t, int sr, double* E, int* bp, double* Rt, int* Rm,
                    double* M, double* S) noexcept nogil:
    """E[p][i][j]: push computation of i over [i, j) with p directly below i (p = 0 for i = 0:
    the stack is empty, which the windows read as none). The right premise's context is the
    left premise's head (docs/specs/dp_tabulation.md §5.5). The reduce does not read p, so per i the
    right-premise sums Rt[k][j] = E[i][k][j] (x) reduce(i,k,j) are computed once and shared by every
    p; then, as in hyb_fill, rules are pushed with k ascending and j innermost."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, j, k, p, pmax, si
    cdef long x
    cdef double v, vl, vp, L
    cdef double* row
    cdef const double* Ek
    cdef const double* lrow
    cdef const double* prow
    cdef const double* shrow
    for x in range(<long>W * W * W):
        E[x] = NEG
    for i in range(P - 1, -1, -1):
        si = sw(i, n)
        for k in range(i + 1, P):
            # docs/specs/dp_tabulation.md §5.5: the right premise's context is the left premise's
            # head i
            Ek = E + cidx(W, (k - 1) if t.untie else i, k, 0)
            lrow = t.left + si * t.ls1 + (k - 1) * N1 - 1
            if i == 0:
                prow = t.root + (k - 1) * N1 - 1
            else:
                prow = t.right + (i - 1) * t.rs1 + (k - 1) * N1 - 1
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
            row = E + cidx(W, p, i, 0)
            shrow = t.shift + (sw(p, n) * N1 + si) * N1 - 1      # shrow[k] = shift[s1, s0, k-1]
            for j in range(W):
                M[j] = NEG
                S[j] = 0.0
            row[i + 1] = 0.0
            for k in range(i + 1, P):
                if k > i + 1 and sr == SR_LOG:
                    row[k] = lfin(M[k], S[k])
                L = row[k]
                if L == NEG:
                    continue
                L = L + shrow[k]
                if sr == SR_MAX:
                    for j in range(k + 1, P + 1):
                        v = L + Rt[k * W + j]
                        if v > row[j]:
                            row[j] = v
                            bp[cidx(W, p, i, j)] = k * 4 + Rm[k * W + j]
                else:
                    for j in range(k + 1, P + 1):
                        lacc(&M[j], &S[j], L + Rt[k * W + j])
            if sr == SR_LOG and P > i + 1:
                row[P] = lfin(M[P], S[P])


cdef void hybc_trace(const int* bp, int W, int p, int i, int j, signed char* out,
                     int* pos) noexcept nogil:
    cdef int x, k, m
    if j == i + 1:
        return
    x = bp[cidx(W, p, i, j)]
    k = x // 4
    m = x % 4
    hybc_trace(bp, W, p, i, k, out, pos)
    out[pos[0]] = SHIFT
    pos[0] += 1
    hybc_trace(bp, W, i, k, j, out, pos)
    out[pos[0]] = LEFT if m == 1 else (ROOT if i == 0 else RIGHT)
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


# ==== arc-eager, package variant (docs/specs/dp_tabulation.md §3.2, with the corrected REDUCE) ====
cdef struct Eag:
    int n
    # ctx: context items [i^b, j; p] (docs/specs/dp_tabulation.md §5.5): shift/right also read s1
    # untie: negative control only (docs/specs/dp_tabulation.md §9.6): right premise's context
    # not tied
    int ctx
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
        return t.left[sw(i, n) * t.ls1 + (k - 1) * N1 + j - 1]
    if code == E_SH_ROOT:
        if i != 0:
            return NEG
        return t.root[(k - 1) * N1 + j - 1]
    if i == 0:
        return NEG                        # REDUCE needs a word below s0
    if code == E_SH_REDUCE:
        return t.reduce[(i - 1) * t.ds1 + (k - 1) * N1 + j - 1]
    return t.reduce[t.dfl + (i - 1) * t.ds1 + (k - 1) * N1 + j - 1]


cdef void eag_fill(const Eag* t, int sr, double* C, int* bp, double* M, double* S) noexcept nogil:
    """C[b][i][j] (docs/specs/dp_tabulation.md §3.2 implementation form): push computation of i
    (flag b) over [i, j). Rule [i^b,k][k^b',j] |- [i^b,j]: b' = 0 (k pushed by SHIFT) then LEFT (j <
    P), REDUCE (i a word) or ROOT (i = 0); b' = 1 (k pushed by RIGHT, i a word) then REDUCE.
    Same order as hyb_fill: i descending, k ascending, rules pushed into j > k."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, j, k, b, nb, code, si
    cdef long x
    cdef double L, base, v
    cdef double* row
    cdef const double* Rk
    cdef const double* prow
    for x in range(<long>2 * W * W):
        C[x] = NEG
    for i in range(P - 1, -1, -1):
        si = sw(i, n)
        nb = 2 if i > 0 else 1               # the virtual root has no head flag
        for b in range(nb):
            row = C + eidx(W, b, i, 0)
            for j in range(W):
                M[j] = NEG
                S[j] = 0.0
            row[i + 1] = 0.0
            for k in range(i + 1, P):
                if k > i + 1 and sr == SR_LOG:
                    row[k] = lfin(M[k], S[k])
                L = row[k]
                if L == NEG:
                    continue
                for code in range(4):
                    if i == 0 and (code == E_SH_REDUCE or code == E_RA_REDUCE):
                        continue
                    if i > 0 and code == E_SH_ROOT:
                        continue
                    base = L + e_push(t, code, b, i, k)
                    if base == NEG:
                        continue
                    Rk = C + eidx(W, 1 if code == E_RA_REDUCE else 0, k, 0)
                    if code == E_SH_LEFT:
                        prow = t.left + si * t.ls1 + (k - 1) * N1 - 1
                    elif code == E_SH_ROOT:
                        prow = t.root + (k - 1) * N1 - 1
                    elif code == E_SH_REDUCE:
                        prow = t.reduce + (i - 1) * t.ds1 + (k - 1) * N1 - 1
                    else:
                        prow = t.reduce + t.dfl + (i - 1) * t.ds1 + (k - 1) * N1 - 1
                    if sr == SR_MAX:
                        for j in range(k + 1, (P if code == E_SH_LEFT else P + 1)):
                            v = base + Rk[j] + prow[j]
                            if v > row[j]:
                                row[j] = v
                                bp[eidx(W, b, i, j)] = k * 8 + code
                    else:
                        for j in range(k + 1, (P if code == E_SH_LEFT else P + 1)):
                            lacc(&M[j], &S[j], base + Rk[j] + prow[j])
            if sr == SR_LOG and P > i + 1:
                row[P] = lfin(M[P], S[P])


cdef void eag_trace(const int* bp, int W, int b, int i, int j, signed char* out,
                    int* pos) noexcept nogil:
    cdef int x, k, code
    if j == i + 1:
        return
    x = bp[eidx(W, b, i, j)]
    k = x // 8
    code = x % 8
    eag_trace(bp, W, b, i, k, out, pos)
    out[pos[0]] = RIGHT if code == E_RA_REDUCE else SHIFT
    pos[0] += 1
    eag_trace(bp, W, 1 if code == E_RA_REDUCE else 0, k, j, out, pos)
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
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, k, j, b, nb, code, f, si, jend
    cdef long x
    cdef double Mv, Sv, push, Iik, v, pe
    cdef const double* prow
    cdef const double* Rk
    cdef double* Oi
    cdef double* OMk
    cdef double* OSk
    for x in range(<long>2 * W * W):
        O[x] = NEG
        OM[x] = NEG
        OS[x] = 0.0
    for i in range(0, P):
        si = sw(i, n)
        nb = 2 if i > 0 else 1
        for b in range(nb):
            Oi = O + eidx(W, b, i, 0)
            Oi[P] = 0.0 if i == 0 else lfin(OM[eidx(W, b, i, P)], OS[eidx(W, b, i, P)])
            for k in range(P - 1, i, -1):
                Iik = I[eidx(W, b, i, k)]
                Mv = OM[eidx(W, b, i, k)]
                Sv = OS[eidx(W, b, i, k)]
                for code in range(4):
                    if i == 0 and (code == E_SH_REDUCE or code == E_RA_REDUCE):
                        continue
                    if i > 0 and code == E_SH_ROOT:
                        continue
                    push = e_push(t, code, b, i, k)
                    if push == NEG:
                        continue
                    f = 1 if code == E_RA_REDUCE else 0
                    Rk = I + eidx(W, f, k, 0)
                    OMk = OM + eidx(W, f, k, 0)
                    OSk = OS + eidx(W, f, k, 0)
                    if code == E_SH_LEFT:
                        prow = t.left + si * t.ls1 + (k - 1) * N1 - 1
                    elif code == E_SH_ROOT:
                        prow = t.root + (k - 1) * N1 - 1
                    else:
                        prow = t.reduce + f * t.dfl + (i - 1) * t.ds1 + (k - 1) * N1 - 1
                    jend = P if code == E_SH_LEFT else P + 1
                    for j in range(k + 1, jend):
                        if Oi[j] == NEG or Rk[j] == NEG:
                            continue
                        v = Oi[j] + push + prow[j]
                        lacc(&Mv, &Sv, v + Rk[j])             # [b; i,k] as the left premise
                        if Iik == NEG:
                            continue
                        lacc(&OMk[j], &OSk[j], v + Iik)       # [f; k,j] as the right premise
                        pe = exp(v + Rk[j] + Iik - logZ)
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
                            g_shift[(b * N1 + si) * N1 + k - 1] += pe
                        if code == E_SH_LEFT:
                            g_left[(si * N1 + k - 1) * N1 + j - 1] += pe
                        elif code == E_SH_ROOT:
                            g_root[(k - 1) * N1 + j - 1] += pe
                        else:
                            g_reduce[((f * N1 + i - 1) * N1 + k - 1) * N1 + j - 1] += pe
                Oi[k] = lfin(Mv, Sv)


# -- arc-eager context items [i^b, j; p] (docs/specs/dp_tabulation.md §5.4 row 2, §5.5) ------------
cdef inline long ecidx(int W, int p, int b, int i, int j) noexcept nogil:
    return ((<long>p * 2 + b) * W + i) * W + j


cdef inline double e_push_c(const Eag* t, int code, int b, int p, int i, int k) noexcept nogil:
    """Push of k onto top i (flag b) with p directly below i: SHIFT or RIGHT in the window
    (s1 = p, s0 = i, b0 = k); p = 0 (the virtual root) reads as none. RIGHT never onto an
    empty stack."""
    cdef int n = t.n, N1 = t.n + 1
    if code == E_RA_REDUCE:
        if i == 0:
            return NEG
        return t.right[((b * N1 + sw(p, n)) * N1 + i - 1) * N1 + k - 1]
    return t.shift[((b * N1 + sw(p, n)) * N1 + sw(i, n)) * N1 + k - 1]


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
    cdef int i, j, k, p, b, pmax, nb, si, cx, c0
    cdef long x
    cdef double v, v0, v1, L, Ls, Lr
    cdef double* row
    cdef const double* E0
    cdef const double* E1
    cdef const double* lrow
    for x in range(<long>2 * W * W * W):
        E[x] = NEG
    for i in range(P - 1, -1, -1):
        si = sw(i, n)
        for k in range(i + 1, P):
            cx = (k - 1) if t.untie else i
            E0 = E + ecidx(W, cx, 0, k, 0)
            E1 = E + ecidx(W, cx, 1, k, 0)
            lrow = t.left + si * t.ls1 + (k - 1) * N1 - 1
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
                row = E + ecidx(W, p, b, i, 0)
                for j in range(W):
                    M[j] = NEG
                    S[j] = 0.0
                row[i + 1] = 0.0
                for k in range(i + 1, P):
                    if k > i + 1 and sr == SR_LOG:
                        row[k] = lfin(M[k], S[k])
                    L = row[k]
                    if L == NEG:
                        continue
                    Ls = L + e_push_c(t, E_SH_LEFT, b, p, i, k)
                    Lr = L + e_push_c(t, E_RA_REDUCE, b, p, i, k)
                    if sr == SR_MAX:
                        for j in range(k + 1, P + 1):
                            v = Ls + R0[k * W + j]
                            if v > row[j]:
                                row[j] = v
                                bp[ecidx(W, p, b, i, j)] = k * 8 + R0m[k * W + j]
                            v = Lr + R1[k * W + j]
                            if v > row[j]:
                                row[j] = v
                                bp[ecidx(W, p, b, i, j)] = k * 8 + E_RA_REDUCE
                    else:
                        for j in range(k + 1, P + 1):
                            lacc(&M[j], &S[j], Ls + R0[k * W + j])
                            lacc(&M[j], &S[j], Lr + R1[k * W + j])
                if sr == SR_LOG and P > i + 1:
                    row[P] = lfin(M[P], S[P])


cdef void eagc_trace(const int* bp, int W, int p, int b, int i, int j, signed char* out,
                     int* pos) noexcept nogil:
    cdef int x, k, code
    if j == i + 1:
        return
    x = bp[ecidx(W, p, b, i, j)]
    k = x // 8
    code = x % 8
    eagc_trace(bp, W, p, b, i, k, out, pos)
    out[pos[0]] = RIGHT if code == E_RA_REDUCE else SHIFT
    pos[0] += 1
    eagc_trace(bp, W, i, 1 if code == E_RA_REDUCE else 0, k, j, out, pos)
    if code == E_SH_LEFT:
        out[pos[0]] = LEFT
    elif code == E_SH_ROOT:
        out[pos[0]] = ROOT
    else:
        out[pos[0]] = REDUCE
    pos[0] += 1


cdef void eagc_outside(const Eag* t, const double* I, double* O, double* buf) noexcept nogil:
    """Pull-form outside for the context chart, by decreasing span: [c; f; a, e] is the left
    premise of [c; f; a, j] (with [a; f'; e, j]) and, for a pushed word a, the right premise
    of [pp; g; c, e] (with [pp; g; c, a]) for every code whose pushed flag is f."""
    cdef int P = t.n + 1, W = t.n + 2
    cdef int a, e, c, f, j, pp, g, span, nt, arg, cmax, nf, ppmax, ng, code, fp
    cdef long x
    cdef double v, red, Oj, Ir
    for x in range(<long>2 * W * W * W):
        O[x] = NEG
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
                            fp = 1 if code == E_RA_REDUCE else 0
                            Ir = I[ecidx(W, a, fp, e, j)]
                            if Ir == NEG:
                                continue
                            v = Oj + Ir + e_push_c(t, code, f, c, a, e) + e_pop(t, code, a, e, j)
                            if v > NEG:
                                buf[nt] = v
                                nt += 1
                    if a >= 1:
                        ppmax = c if c > 0 else 1
                        ng = 2 if c > 0 else 1
                        for code in range(4):
                            if (1 if code == E_RA_REDUCE else 0) != f:
                                continue
                            red = e_pop(t, code, c, a, e)
                            if not red > NEG:
                                continue
                            for pp in range(ppmax):
                                for g in range(ng):
                                    if O[ecidx(W, pp, g, c, e)] == NEG or I[ecidx(W, pp, g, c, a)] == NEG:
                                        continue
                                    v = (O[ecidx(W, pp, g, c, e)] + I[ecidx(W, pp, g, c, a)]
                                         + e_push_c(t, code, g, pp, c, a) + red)
                                    if v > NEG:
                                        buf[nt] = v
                                        nt += 1
                    O[ecidx(W, c, f, a, e)] = reduce_terms(SR_LOG, buf, nt, &arg)


cdef void eagc_marginals(const Eag* t, const double* I, const double* O, double logZ,
                         double* marg, double* g_shift, double* g_right, double* g_left,
                         double* g_reduce, double* g_root) noexcept nogil:
    """Posterior of every rule instance [p; b; i,k][i; b'; k,j] -> arc marginals and, if
    g_shift != NULL, expected move counts per window (docs/specs/dp_tabulation.md §6)."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int p, b, i, k, j, pmax, nb, code, fp, si
    cdef double Oo, Il, Ir, push, pop, pe
    for i in range(0, P):
        si = sw(i, n)
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
                            fp = 1 if code == E_RA_REDUCE else 0
                            Ir = I[ecidx(W, i, fp, k, j)]
                            if Ir == NEG:
                                continue
                            push = e_push_c(t, code, b, p, i, k)
                            pop = e_pop(t, code, i, k, j)
                            if not (push > NEG and pop > NEG):
                                continue
                            pe = exp(Oo + Il + Ir + push + pop - logZ)
                            if code == E_SH_LEFT:
                                marg[(k - 1) * n + j - 1] += pe
                            elif code == E_SH_ROOT:
                                marg[(k - 1) * n + k - 1] += pe
                            else:
                                marg[(k - 1) * n + i - 1] += pe
                            if g_shift == NULL:
                                continue
                            if code == E_RA_REDUCE:
                                g_right[((b * N1 + sw(p, n)) * N1 + i - 1) * N1 + k - 1] += pe
                            else:
                                g_shift[((b * N1 + sw(p, n)) * N1 + si) * N1 + k - 1] += pe
                            if code == E_SH_LEFT:
                                g_left[(si * N1 + k - 1) * N1 + j - 1] += pe
                            elif code == E_SH_ROOT:
                                g_root[(k - 1) * N1 + j - 1] += pe
                            else:
                                g_reduce[((fp * N1 + i - 1) * N1 + k - 1) * N1 + j - 1] += pe


# ==== arc-standard (docs/specs/dp_tabulation.md §3.1) ==========================================
# Windows of docs/specs/dp_tabulation.md §5.4: shifts (s0, b0), reduces (s1, s0, b0).
# Same tables as arc-hybrid: shift[s0, b0], left[s1, s0, b0] (LEFT: s0 -> s1, s1 a word),
# right[s1, s0, b0] (RIGHT: s1 -> s0, s1 a word), root[s0, b0] (ROOT = the spec's `ra` with
# s1 = the virtual root). Items [i, h, j]; O(n^3) space, O(n^5) time (the `la` rule cannot be
# hooked when its score reads b0, §5.4).
cdef inline long sidx(int W, int i, int h, int j) noexcept nogil:
    return (<long>i * W + h) * W + j


cdef void std_fill(const Hyb* t, int sr, double* C, int* bp, double* M, double* S) noexcept nogil:
    """C[i][h][j]: a push computation over [i, j) that pushed h (docs/specs/dp_tabulation.md §3.1).
    Rules [i,h1,k][k,h2,j] |- [i,h2,j] (LEFT, h1 a word) and |- [i,h1,j] (RIGHT, or ROOT if h1 is
    the virtual root), the push of k charged in the rule (window s0 = h1, b0 = k). Order:
    i descending, k ascending, rules pushed into every j > h2 (contiguous j loops)."""
    cdef int n = t.n, P = t.n + 1, W = t.n + 2, N1 = t.n + 1
    cdef int i, h, h1, h2, j, k, s1
    cdef long x
    cdef double L, r, v
    cdef const double* Rrow
    cdef const double* lrow
    cdef const double* prow
    cdef double* Ci
    for x in range(<long>W * W * W):
        C[x] = NEG
    for i in range(P - 1, -1, -1):
        Ci = C + sidx(W, i, 0, 0)
        for x in range(<long>W * W):
            M[x] = NEG
            S[x] = 0.0
        Ci[i * W + i + 1] = 0.0
        for k in range(i + 1, P):
            if sr == SR_LOG and k > i + 1:
                for h in range(i, k):
                    Ci[h * W + k] = lfin(M[h * W + k], S[h * W + k])
            for h1 in range(i, k):
                L = Ci[h1 * W + k]
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
                    if sr == SR_MAX:
                        for j in range(h2 + 1, P + 1):
                            r = L + Rrow[j]
                            if h1 > 0:
                                v = r + lrow[j]
                                if v > Ci[h2 * W + j]:
                                    Ci[h2 * W + j] = v
                                    bp[sidx(W, i, h2, j)] = (k * W + h1) * 4 + 1
                            v = r + prow[j]
                            if v > Ci[h1 * W + j]:
                                Ci[h1 * W + j] = v
                                bp[sidx(W, i, h1, j)] = (k * W + h2) * 4 + 2
                    else:
                        for j in range(h2 + 1, P + 1):
                            r = L + Rrow[j]
                            if h1 > 0:
                                lacc(&M[h2 * W + j], &S[h2 * W + j], r + lrow[j])
                            lacc(&M[h1 * W + j], &S[h1 * W + j], r + prow[j])
        if sr == SR_LOG:
            for h in range(i, P):
                if P > i + 1:
                    Ci[h * W + P] = lfin(M[h * W + P], S[h * W + P])


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
def _table(x, shape, name):
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.shape != shape:
        raise ValueError(f"{name} has shape {a.shape}, expected {shape}")
    # No NaN scan (it would cost as much as the decode at n = 100): a NaN term fails every
    # `v > -inf` test and is dropped like an invalid move.
    return a


def _flagged(x, shape, name):
    """Eager tables may omit the leading flag axis: broadcast it (same score for both flags)."""
    a = np.asarray(x, dtype=np.float64)
    if a.shape == shape[1:]:
        a = np.broadcast_to(a, shape)
    return _table(a, shape, name), np.asarray(x).ndim == len(shape) - 1


cdef const double* _ptr(const double[::1] a):
    return &a[0]


def _s1_table(x, N1, name, full_ndim=3):
    """A reduce-type table with leading axes that may be absent (s1 of left/right, flag
    and s1 of reduce): returns (contiguous array, its ndim); absent axes get stride 0 in
    the kernels, so a window model's (s0, b0) table is read without an N1^3 copy."""
    a = np.asarray(x)
    lo = 2
    if a.ndim < lo or a.ndim > full_ndim:
        raise ValueError(f"{name} must have {lo} to {full_ndim} axes of size {N1}")
    shape = (2,) + (N1,) * 3 if (full_ndim == 4 and a.ndim == 4) else (N1,) * a.ndim
    return _table(a, shape, name), a.ndim


def _sum_missing(g, ndim):
    """Gradient of a table given with fewer (leading) axes: sum over the missing ones."""
    return g.sum(axis=tuple(range(g.ndim - ndim))) if g.ndim > ndim else g


cdef class _HybTables:
    cdef Hyb t
    cdef object keep
    cdef public object ndims

    def __init__(self, shift, left, right, root):
        root = np.asarray(root)
        if root.ndim != 2 or root.shape[0] != root.shape[1] or root.shape[0] < 2:
            raise ValueError("root must have shape (n+1, n+1) with n >= 1")
        n = root.shape[0] - 1
        N1 = n + 1
        shift = np.asarray(shift)
        ctx = shift.ndim == 3
        lt, lnd = _s1_table(left, N1, "left")
        rt, rnd = _s1_table(right, N1, "right")
        self.ndims = {"left": lnd, "right": rnd}
        self.keep = [_table(shift, (N1, N1, N1) if ctx else (N1, N1), "shift"), lt, rt,
                     _table(root, (N1, N1), "root")]
        self.t.n = n
        self.t.ctx = ctx
        self.t.untie = 0
        self.t.ls1 = N1 * N1 if lnd == 3 else 0
        self.t.rs1 = N1 * N1 if rnd == 3 else 0
        self.t.shift = _ptr(self.keep[0].reshape(-1))
        self.t.left = _ptr(self.keep[1].reshape(-1))
        self.t.right = _ptr(self.keep[2].reshape(-1))
        self.t.root = _ptr(self.keep[3].reshape(-1))


cdef class _EagTables:
    cdef Eag t
    cdef object keep
    cdef public object ndims

    def __init__(self, shift, right, left, reduce, root, context=False):
        root = np.asarray(root)
        if root.ndim != 2 or root.shape[0] != root.shape[1] or root.shape[0] < 2:
            raise ValueError("root must have shape (n+1, n+1) with n >= 1")
        n = root.shape[0] - 1
        N1 = n + 1
        # context chart: shift/right read (s1, s0, b0) (+ the flag of s0)
        push_shape = (2, N1, N1, N1) if context else (2, N1, N1)
        sh, u_sh = _flagged(shift, push_shape, "shift")
        ra, u_ra = _flagged(right, push_shape, "right")
        lt, lnd = _s1_table(left, N1, "left")
        rd, dnd = _s1_table(reduce, N1, "reduce", full_ndim=4)
        self.ndims = {"shift": len(push_shape) - u_sh, "right": len(push_shape) - u_ra,
                      "left": lnd, "reduce": dnd}
        self.keep = [sh, ra, lt, rd, _table(root, (N1, N1), "root")]
        self.t.n = n
        self.t.ctx = bool(context)
        self.t.untie = 0
        self.t.ls1 = N1 * N1 if lnd == 3 else 0
        self.t.ds1 = N1 * N1 if dnd >= 3 else 0
        self.t.dfl = N1 * N1 * N1 if dnd == 4 else 0
        self.t.shift = _ptr(self.keep[0].reshape(-1))
        self.t.right = _ptr(self.keep[1].reshape(-1))
        self.t.left = _ptr(self.keep[2].reshape(-1))
        self.t.reduce = _ptr(self.keep[3].reshape(-1))
        self.t.root = _ptr(self.keep[4].reshape(-1))


def hybrid_viterbi(shift, left, right, root, *, _untie_context=False):
    """Best transition sequence of arc_hybrid under window scores (docs/specs/dp_tabulation.md §3.3,
    §4, §6).

    Returns (best score, moves): moves is an int8 array of 2n move ids (MOVE_NAMES; the
    package's SHIFT/LEFT/RIGHT/ROOT), replayable from the initial state. A 3-D `shift`
    table [s1, s0, b0] selects the context chart (docs/specs/dp_tabulation.md §5.5, O(n^4)).
    `_untie_context` breaks the chart on purpose (the right premise's context is not the left
    premise's head): a negative control for the tests (docs/specs/dp_tabulation.md §9.6), never for
    use."""
    cdef _HybTables tb = _HybTables(shift, left, right, root)
    tb.t.untie = bool(_untie_context)
    cdef int n = tb.t.n, W = n + 2, pos = 0
    cdef long size = <long>W * W * W if tb.t.ctx else <long>W * W
    cdef double[::1] C = np.empty(size, dtype=np.float64)
    cdef int[::1] bp = np.full(size, -1, dtype=np.intc)
    cdef double[::1] Rt = np.empty(W * W, dtype=np.float64)
    cdef int[::1] Rm = np.empty(W * W, dtype=np.intc)
    cdef double[::1] M = np.empty(W, dtype=np.float64)
    cdef double[::1] S = np.empty(W, dtype=np.float64)
    cdef signed char[::1] out = np.zeros(2 * n, dtype=np.int8)
    cdef double best
    with nogil:
        if tb.t.ctx:
            hybc_fill(&tb.t, SR_MAX, &C[0], &bp[0], &Rt[0], &Rm[0], &M[0], &S[0])
            best = C[cidx(W, 0, 0, n + 1)]
            if best > NEG:
                hybc_trace(&bp[0], W, 0, 0, n + 1, &out[0], &pos)
        else:
            hyb_fill(&tb.t, SR_MAX, &C[0], &bp[0], &M[0], &S[0])
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
    arrays shaped like the tables (docs/specs/dp_tabulation.md §6)."""
    cdef _HybTables tb = _HybTables(shift, left, right, root)
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef long size = <long>W * W * W if tb.t.ctx else <long>W * W
    cdef double[::1] I = np.empty(size, dtype=np.float64)
    cdef double[::1] O, OM, OS
    cdef double[::1] Rt = np.empty(W * W, dtype=np.float64)
    cdef int[::1] Rm = np.empty(W * W, dtype=np.intc)
    cdef double[::1] M = np.empty(W, dtype=np.float64)
    cdef double[::1] S = np.empty(W, dtype=np.float64)
    cdef double[::1] buf = np.empty(4 * W + 4, dtype=np.float64)
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gl, gr, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        if tb.t.ctx:
            hybc_fill(&tb.t, SR_LOG, &I[0], NULL, &Rt[0], &Rm[0], &M[0], &S[0])
            logZ = I[cidx(W, 0, 0, n + 1)]
        else:
            hyb_fill(&tb.t, SR_LOG, &I[0], NULL, &M[0], &S[0])
            logZ = I[n + 1]
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
    g = None
    if gradients:
        g = {"shift": np.asarray(gs).reshape(tb.keep[0].shape),
             "left": _sum_missing(np.asarray(gl).reshape(N1, N1, N1), tb.ndims["left"]),
             "right": _sum_missing(np.asarray(gr).reshape(N1, N1, N1), tb.ndims["right"]),
             "root": np.asarray(gt).reshape(N1, N1)}
    return logZ, np.asarray(marg).reshape(n, n), g


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
    cdef long size = <long>2 * W * W * W if tb.t.ctx else <long>2 * W * W
    cdef double[::1] C = np.empty(size, dtype=np.float64)
    cdef int[::1] bp = np.full(size, -1, dtype=np.intc)
    cdef double[::1] R0 = np.empty(W * W, dtype=np.float64)
    cdef double[::1] R1 = np.empty(W * W, dtype=np.float64)
    cdef int[::1] R0m = np.empty(W * W, dtype=np.intc)
    cdef double[::1] M = np.empty(W, dtype=np.float64)
    cdef double[::1] S = np.empty(W, dtype=np.float64)
    cdef signed char[::1] out = np.zeros(2 * n, dtype=np.int8)
    cdef double best
    with nogil:
        if tb.t.ctx:
            eagc_fill(&tb.t, SR_MAX, &C[0], &bp[0], &R0[0], &R0m[0], &R1[0], &M[0], &S[0])
            best = C[ecidx(W, 0, 0, 0, n + 1)]
            if best > NEG:
                eagc_trace(&bp[0], W, 0, 0, 0, n + 1, &out[0], &pos)
        else:
            eag_fill(&tb.t, SR_MAX, &C[0], &bp[0], &M[0], &S[0])
            best = C[eidx(W, 0, 0, n + 1)]
            if best > NEG:
                eag_trace(&bp[0], W, 0, 0, n + 1, &out[0], &pos)
    if best == NEG:
        return best, None
    return best, np.asarray(out)


def eager_inside_outside(shift, right, left, reduce, root, *, context=False, marginals=True,
                         gradients=False):
    """As hybrid_inside_outside, for arc_eager (context: as eager_viterbi). Gradients of
    tables given without the flag axis are summed over it."""
    cdef _EagTables tb = _EagTables(shift, right, left, reduce, root, context)
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef long size = <long>2 * W * W * W if tb.t.ctx else <long>2 * W * W
    cdef long push_size = <long>2 * N1 * N1 * N1 if tb.t.ctx else <long>2 * N1 * N1
    cdef double[::1] I = np.empty(size, dtype=np.float64)
    cdef double[::1] O, OM, OS
    cdef double[::1] R0 = np.empty(W * W, dtype=np.float64)
    cdef double[::1] R1 = np.empty(W * W, dtype=np.float64)
    cdef int[::1] R0m = np.empty(W * W, dtype=np.intc)
    cdef double[::1] M = np.empty(W, dtype=np.float64)
    cdef double[::1] S = np.empty(W, dtype=np.float64)
    cdef double[::1] buf = np.empty(12 * W + 12, dtype=np.float64)
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gr, gl, gd, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        if tb.t.ctx:
            eagc_fill(&tb.t, SR_LOG, &I[0], NULL, &R0[0], &R0m[0], &R1[0], &M[0], &S[0])
            logZ = I[ecidx(W, 0, 0, 0, n + 1)]
        else:
            eag_fill(&tb.t, SR_LOG, &I[0], NULL, &M[0], &S[0])
            logZ = I[eidx(W, 0, 0, n + 1)]
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
            g[name] = _sum_missing(g[name], nd)
    return logZ, np.asarray(marg).reshape(n, n), g


def standard_viterbi(shift, left, right, root):
    """Best transition sequence of the package's arc_standard (SHIFT, LEFT: s0 -> s1,
    RIGHT: s1 -> s0, ROOT) under window scores: shift[s0, b0], left/right[s1, s0, b0],
    root[s0, b0] (docs/specs/dp_tabulation.md §3.1, §5.4: O(n^5) time, O(n^3) space). Returns (best,
    moves)."""
    cdef _HybTables tb = _HybTables(shift, left, right, root)
    if tb.t.ctx:
        raise ValueError("arc_standard takes a 2-D shift table [s0, b0]")
    cdef int n = tb.t.n, W = n + 2, pos = 0
    cdef double[::1] C = np.empty(W * W * W, dtype=np.float64)
    cdef int[::1] bp = np.full(W * W * W, -1, dtype=np.intc)
    cdef double[::1] M = np.empty(W * W, dtype=np.float64)
    cdef double[::1] S = np.empty(W * W, dtype=np.float64)
    cdef signed char[::1] out = np.zeros(2 * n, dtype=np.int8)
    cdef double best
    with nogil:
        std_fill(&tb.t, SR_MAX, &C[0], &bp[0], &M[0], &S[0])
        best = C[sidx(W, 0, 0, n + 1)]
        if best > NEG:
            std_trace(&bp[0], W, 0, 0, n + 1, &out[0], &pos)
    if best == NEG:
        return best, None
    return best, np.asarray(out)


def standard_inside_outside(shift, left, right, root, *, marginals=True, gradients=False):
    """As hybrid_inside_outside, for arc_standard (O(n^5))."""
    cdef _HybTables tb = _HybTables(shift, left, right, root)
    if tb.t.ctx:
        raise ValueError("arc_standard takes a 2-D shift table [s0, b0]")
    cdef int n = tb.t.n, W = n + 2, N1 = n + 1
    cdef long size = <long>W * W * W
    cdef double[::1] I = np.empty(size, dtype=np.float64)
    cdef double[::1] M = np.empty(W * W, dtype=np.float64)
    cdef double[::1] S = np.empty(W * W, dtype=np.float64)
    cdef double[::1] O, OM, OS
    cdef double[::1] marg = np.zeros(n * n, dtype=np.float64)
    cdef double[::1] gs, gl, gr, gt
    cdef double logZ
    cdef bint grads = gradients
    with nogil:
        std_fill(&tb.t, SR_LOG, &I[0], NULL, &M[0], &S[0])
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
    g = None
    if gradients:
        g = {"shift": np.asarray(gs).reshape(N1, N1),
             "left": _sum_missing(np.asarray(gl).reshape(N1, N1, N1), tb.ndims["left"]),
             "right": _sum_missing(np.asarray(gr).reshape(N1, N1, N1), tb.ndims["right"]),
             "root": np.asarray(gt).reshape(N1, N1)}
    return logZ, np.asarray(marg).reshape(n, n), g


# ---- windows a model must score (batched scoring, docs/specs/dp_tabulation.md §7 step 2) ---------
def _rules(n):
    """All rule instances (i, k, j) of the plain charts in spec positions, 0 <= i < k < j <= n+1."""
    P = n + 1
    i, k, j = np.nonzero(np.triu(np.ones((P + 1, P + 1), dtype=bool), 1)[:, :, None]
                         & np.triu(np.ones((P + 1, P + 1), dtype=bool), 1)[None, :, :])
    return i, k, j


def _sw(x, n):
    return np.where(x == 0, n, x - 1)


def hybrid_windows(n, context=False):
    """Index arrays of exactly the table entries the arc_hybrid chart reads, per table:
    {"shift": (s0, b0) or (s1, s0, b0), "left": (s1, s0, b0), "right": (s1, s0, b0),
    "root": (s0, b0)}. A model scores these windows in one batch and scatters the scores
    with `table[idx] = scores`; every other entry is never read (it may stay NaN)."""
    i, k, j = _rules(n)
    pairs = np.unique(np.stack([i, k]), axis=1)
    out = {"left": (_sw(i, n)[j <= n], (k - 1)[j <= n], (j - 1)[j <= n]),
           "right": (_sw(i, n)[i > 0], (k - 1)[i > 0], (j - 1)[i > 0]),
           "root": ((k - 1)[i == 0], (j - 1)[i == 0])}
    if context:
        # push of k onto i with p below i: p < i (p = 0: none), or p = 0 for i = 0
        trip = [(p, a, b) for a, b in pairs.T for p in (range(a) if a > 0 else (0,))]
        p_, a_, b_ = np.array(trip, dtype=np.intp).T
        out["shift"] = (_sw(p_, n), _sw(a_, n), b_ - 1)
    else:
        out["shift"] = (_sw(pairs[0], n), pairs[1] - 1)
    return out


def eager_windows(n, context=False):
    """As hybrid_windows, for eager_viterbi / eager_inside_outside (flagged tables):
    {"shift": (f, s0, b0), "right": (f, s0, b0), "left": (s1, s0, b0),
    "reduce": (f, s1, s0, b0), "root": (s0, b0)}; context=True: shift and right are
    (f, s1, s0, b0)."""
    i, k, j = _rules(n)
    a, b = np.unique(np.stack([i, k]), axis=1)
    out = {"left": (_sw(i, n)[j <= n], (k - 1)[j <= n], (j - 1)[j <= n]),
           "root": ((k - 1)[i == 0], (j - 1)[i == 0])}
    if context:
        # push of b onto a (flag f; f = 0 only for a = 0) with p below a (p < a; 0: none)
        sh = [(f, p, x, y) for x, y in zip(a, b) for p in (list(range(x)) if x > 0 else [0])
              for f in ([0, 1] if x > 0 else [0])]
        f_, p_, x_, y_ = np.array(sh, dtype=np.intp).T
        out["shift"] = (f_, _sw(p_, n), _sw(x_, n), y_ - 1)
        w = x_ > 0
        out["right"] = (f_[w], _sw(p_[w], n), x_[w] - 1, y_[w] - 1)
    else:
        f0 = np.zeros_like(a)
        w = a > 0
        out["shift"] = (np.concatenate([f0, f0[w] + 1]), np.concatenate([_sw(a, n), _sw(a[w], n)]),
                        np.concatenate([b - 1, b[w] - 1]))
        out["right"] = (np.concatenate([f0[w], f0[w] + 1]), np.concatenate([a[w] - 1, a[w] - 1]),
                        np.concatenate([b[w] - 1, b[w] - 1]))
    r = i > 0
    z = np.zeros(r.sum(), dtype=i.dtype)
    out["reduce"] = (np.concatenate([z, z + 1]), np.concatenate([i[r] - 1] * 2),
                     np.concatenate([k[r] - 1] * 2), np.concatenate([j[r] - 1] * 2))
    return out


def standard_windows(n):
    """As hybrid_windows, for standard_viterbi / standard_inside_outside."""
    i, k, j = _rules(n)                   # here (h1, h2, j): h1 < h2 < j
    pairs = np.unique(np.stack([i, k]), axis=1)
    w = i > 0
    return {"shift": (_sw(pairs[0], n), pairs[1] - 1),
            "left": (i[w] - 1, k[w] - 1, j[w] - 1), "right": (i[w] - 1, k[w] - 1, j[w] - 1),
            "root": ((k - 1)[~w], (j - 1)[~w])}


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
