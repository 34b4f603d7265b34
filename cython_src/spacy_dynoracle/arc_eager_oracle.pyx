# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Nederhof's exact optimal step for arc-eager on non-projective gold, as the continuation
DP of docs/specs/arc_eager_nonproj_oracle.md §6 ("algorithm B"), over plain arrays.

Scores rho[t] = best number of gold arcs *still to be created* by any complete computation
that starts with t (docs/specs/arc_eager_nonproj_oracle.md §3: rho_t = |T ∩ T_g| + gain_t + sigma_t
without the constant |T ∩ T_g|); costs are max(rho) - rho[t]. Policy PURE
(docs/specs/arc_eager_nonproj_oracle.md §3.1, no marks), so the costs equal exhaustive min-loss
differences (what tests/bruteforce.py checks). Arc-hybrid is the special case "no RA, every stack
element labelled L" (docs/specs/dp_tabulation.md §8).

Speed-ups over the spec's plain recursion, both exact (proof sketch in
docs/systems/arc_eager.md, "Cuts"):

* **Cuts.** c is a cut if no gold arc between words spans the gap before word c (root arcs
  from 0 do not count); sentence boundaries of a multi-sentence Doc are cuts. At the moment
  the buffer front reaches a cut e, popping the whole stack by RE is optimal (no stack
  word has a gold arc into the buffer, and words from e on can only get root arcs on an
  empty stack). So push computations never need to run past the next cut: the inner table
  I is block-diagonal (once per Doc, O(sum L^3/6) over segments of length L), and the stack
  pass only spans the buffer up to the next cut.
* **Old stack words.** Stack words left of the segment of the buffer front have no gold
  arc into the buffer: their rows are "pop them all first", i.e. V0 + a constant.

Per state: O(q + k' * m^2) for q old stack words, k' stack words of the current segment
and m = words until the next cut (m, k' <= sentence length).
"""
from libc.stdlib cimport malloc, calloc, free

from .oracle_arrays cimport gold_heads_array


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef NPOracle* np_oracle_new(const int* gold, int n) noexcept nogil:
    """Build the per-sentence tables (docs/specs/arc_eager_nonproj_oracle.md §6.1) for gold[1..n];
    NULL on allocation failure."""
    cdef NPOracle* o = <NPOracle*>calloc(1, sizeof(NPOracle))
    cdef int x, y, k, c, h, d, lo, hi, e, s, best, v, w
    cdef long total
    cdef int* span_end
    cdef int* Ix
    if o == NULL:
        return NULL
    o.n = n
    o.gold = <int*>calloc(n + 2, sizeof(int))
    o.seg_start = <int*>calloc(n + 2, sizeof(int))
    o.seg_end = <int*>calloc(n + 2, sizeof(int))
    o.nonproj = <char*>calloc(n + 2, sizeof(char))
    o.I_off = <long*>calloc(n + 2, sizeof(long))
    o.V0 = <int*>calloc(n + 2, sizeof(int))
    o.work = <int*>calloc(4 * (n + 3), sizeof(int))
    o.stack = <int*>calloc(n + 2, sizeof(int))
    o.is_R = <char*>calloc(n + 2, sizeof(char))
    span_end = <int*>calloc(n + 2, sizeof(int))
    if (o.gold == NULL or o.seg_start == NULL or o.seg_end == NULL or o.nonproj == NULL or o.I_off == NULL
            or o.V0 == NULL or o.work == NULL or o.stack == NULL or o.is_R == NULL
            or span_end == NULL):
        free(span_end)
        np_oracle_free(o)
        return NULL
    o.gold[0] = -1
    o.gold[n + 1] = -1
    for d in range(1, n + 1):
        o.gold[d] = gold[d]
        h = gold[d]
        if h >= 1 and h != d:
            lo = h if h < d else d
            hi = d if h < d else h
            span_end[lo] = imax(span_end[lo], hi)
    # cuts: c (1 <= c <= n+1) is a cut iff no word-to-word gold arc has min < c <= max
    hi = 0
    s = 1
    for c in range(1, n + 2):
        if hi < c:
            s = c
        o.seg_start[c] = s
        if c <= n:
            hi = imax(hi, span_end[c])
    free(span_end)
    e = n + 1
    o.seg_end[n + 1] = n + 1
    for x in range(n, 0, -1):
        o.seg_end[x] = e
        if o.seg_start[x] == x:
            e = x
    # projectivity per segment (w.r.t. the root, left of every word): any crossing pair?
    x = 1
    while x <= n:
        e = o.seg_end[x]
        c = 0
        for d in range(x, e):
            if c:
                break
            if o.gold[d] < 0:
                continue
            lo = o.gold[d] if o.gold[d] < d else d
            hi = d if o.gold[d] < d else o.gold[d]
            for k in range(x, e):
                if o.gold[k] < 0 or k == d:
                    continue
                y = o.gold[k] if o.gold[k] < k else k       # the other arc: (y, v)
                v = k if o.gold[k] < k else o.gold[k]
                if lo < y < hi < v:
                    c = 1
                    break
        for d in range(x, e):
            o.nonproj[d] = c
        x = e
    # inner table I (docs/specs/arc_eager_nonproj_oracle.md §6.1), block-diagonal by segment
    total = 0
    for x in range(1, n + 1):
        o.I_off[x] = total
        total += o.seg_end[x] - x
    o.I_data = <int*>malloc((total + 1) * sizeof(int))
    if o.I_data == NULL:
        np_oracle_free(o)
        return NULL
    for x in range(n, 0, -1):
        e = o.seg_end[x]
        Ix = o.I_data + o.I_off[x]
        Ix[0] = 0                                   # I[x][x+1]
        for y in range(x + 2, e + 1):
            best = NP_NEG
            for k in range(x + 1, y):
                # I[x][k] + I[k][y] + [k popped by RE into x, or by LA onto y]
                w = 1 if (o.gold[k] == x or o.gold[k] == y) else 0
                v = Ix[k - x - 1] + o.I_data[o.I_off[k] + y - k - 1] + w
                if v > best:
                    best = v
            Ix[y - x - 1] = best
    # V0: the virtual root alone on the stack (docs/specs/arc_eager_nonproj_oracle.md §6.2 with
    # p = 0), right to left
    o.V0[n + 1] = 0
    for j in range(n, 0, -1):
        e = o.seg_end[j]
        Ix = o.I_data + o.I_off[j]
        best = NP_NEG
        for y in range(j + 1, e + 1):
            w = 1 if (o.gold[j] == 0 or o.gold[j] == y) else 0
            v = Ix[y - j - 1] + o.V0[y] + w
            if v > best:
                best = v
        o.V0[j] = best
    return o


cdef void np_oracle_free(void* data) noexcept nogil:
    """Free an NPOracle (void*: NPOracleTable's OracleOwner calls it; NULL is a no-op)."""
    cdef NPOracle* o = <NPOracle*>data
    if o == NULL:
        return
    free(o.gold)
    free(o.seg_start)
    free(o.seg_end)
    free(o.nonproj)
    free(o.I_off)
    free(o.I_data)
    free(o.V0)
    free(o.work)
    free(o.stack)
    free(o.is_R)
    free(o)


cdef inline void stack_row(const NPOracle* o, const int* prev, int* cur, int lo, int e,
                           int a, int below, bint is_L) noexcept nogil:
    """One row of docs/specs/arc_eager_nonproj_oracle.md §6.2 (policy PURE, corrected):
    cur[j - lo] = V[p][j] for j in lo..e, with a = a_p on top of below = a_{p-1} whose row is
    prev. At the cut e the rest of the stack is popped by RE (see the module docstring)."""
    cdef int j, y, v, best, gj, w_re, w_la, w_a
    cdef const int* Ij
    cdef const int* g = o.gold
    w_re = 1 if g[a] == below else 0
    cur[e - lo] = prev[e - lo] + w_re
    for j in range(e - 1, lo - 1, -1):
        # a leaves now: RE into below, or (L only) LA onto b_j
        w_la = 1 if (is_L and g[a] == j) else 0
        best = prev[j - lo] + (w_re if w_re > w_la else w_la)
        # or b_j is pushed on a, its push computation ends with buffer y, and j is popped
        # by RE into a or by LA onto y
        gj = g[j]
        w_a = 1 if gj == a else 0
        Ij = o.I_data + o.I_off[j] - j - 1
        for y in range(j + 1, e + 1):
            v = Ij[y] + cur[y - lo] + (1 if (w_a or gj == y) else 0)
            if v > best:
                best = v
        cur[j - lo] = best


cdef void np_scores(NPOracle* o, const int* stack, const char* is_R, int k, int j0,
                    int* rho) noexcept nogil:
    """rho[NP_SH/RA/LA/RE] for the configuration with stack stack[0..k-1] (stack[0] = 0,
    the virtual root; is_R[p] = element p was pushed by RA) and buffer j0..n (j0 = n+1:
    empty). Inapplicable moves get NP_NEG (RA on the root alone, LA on an R top, RE/LA on
    the root, SH/RA/LA on an empty buffer)."""
    cdef int n = o.n
    cdef int e, lo, s, q, p, C, Cprev, top, i
    cdef int* prev
    cdef int* cur
    cdef int* tmp
    cdef int* newL
    cdef int* newR
    cdef int v_below = NP_NEG        # V[k-2][j0]
    rho[NP_SH] = NP_NEG
    rho[NP_RA] = NP_NEG
    rho[NP_LA] = NP_NEG
    rho[NP_RE] = NP_NEG
    top = stack[k - 1]
    if j0 > n:
        # empty buffer: only RE applies; the rest of the stack is popped by RE
        if k >= 2:
            C = 0
            for p in range(1, k - 1):
                C += 1 if o.gold[stack[p]] == stack[p - 1] else 0
            rho[NP_RE] = C + (1 if o.gold[top] == stack[k - 2] else 0)
        return
    lo = j0
    e = o.seg_end[j0]
    s = o.seg_start[j0]
    prev = o.work
    cur = o.work + (n + 3)
    newL = o.work + 2 * (n + 3)
    newR = o.work + 3 * (n + 3)
    # old stack words (left of the segment of j0): popped first, V[q][j] = C + V0[j]
    q = 0
    C = 0
    Cprev = 0
    while q + 1 < k and stack[q + 1] < s:
        q += 1
        Cprev = C
        C += 1 if o.gold[stack[q]] == stack[q - 1] else 0
    for i in range(lo, e + 1):
        prev[i - lo] = o.V0[i] + C
    if q == k - 2:
        v_below = prev[0]
    elif q == k - 1 and k >= 2:
        v_below = o.V0[lo] + Cprev
    for p in range(q + 1, k):
        stack_row(o, prev, cur, lo, e, stack[p], stack[p - 1], not is_R[p])
        tmp = prev
        prev = cur
        cur = tmp
        if p == k - 2:
            v_below = prev[0]
    # now prev = V[k-1][lo..e]
    if k >= 2:
        rho[NP_RE] = v_below + (1 if o.gold[top] == stack[k - 2] else 0)
        if not is_R[k - 1]:
            rho[NP_LA] = v_below + (1 if o.gold[top] == j0 else 0)
    # SH / RA: j0 pushed on top (label L / R), buffer from j0 + 1 <= e
    stack_row(o, prev + 1, newL, lo + 1, e, j0, top, 1)
    rho[NP_SH] = newL[0]
    if k >= 2:
        stack_row(o, prev + 1, newR, lo + 1, e, j0, top, 0)
        rho[NP_RA] = newR[0]


# ---- Python access (tests, benchmarks) ---------------------------------------------------
cdef class NPOracleTable(OracleOwner):
    """Owns an NPOracle (OracleOwner frees it). gold: heads in the spec's numbering, gold[0]
    ignored."""

    def __cinit__(self, gold):
        cdef int[::1] g = gold_heads_array(gold)
        self.c = <NPOracle*>self.own(np_oracle_new(&g[0], len(gold) - 1), np_oracle_free)

    def scores(self, stack, is_R, int j0):
        """rho for SH, RA, LA, RE (None = inapplicable)."""
        cdef int k = len(stack)
        cdef int rho[4]
        cdef int* st = <int*>malloc((k + 1) * sizeof(int))
        cdef char* lab = <char*>malloc(k + 1)
        for i in range(k):
            st[i] = stack[i]
            lab[i] = 1 if is_R[i] else 0
        np_scores(self.c, st, lab, k, j0, rho)
        free(st)
        free(lab)
        return [None if r <= NP_NEG // 2 else r for r in rho[:4]]

    @property
    def cuts(self):
        return [c for c in range(1, self.c.n + 2) if self.c.seg_start[c] == c]

    @property
    def nonprojective_segments(self):
        return [c for c in self.cuts if c <= self.c.n and self.c.nonproj[c]]

    @property
    def initial_score(self):
        """Best number of gold arcs of any reachable tree (max projective agreement)."""
        return self.c.V0[1] if self.c.n >= 1 else 0
