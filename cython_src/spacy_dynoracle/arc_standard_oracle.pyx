# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Exact tabular dynamic oracles for arc-standard, on plain arrays (nogil).

Spec: ../shared/specs/lr_spine_and_arc_standard.md.

* `as_F_paper`: [GSS14] Algorithm 1 with the correction of §6 P1 (axiom 0, the past loss
  is left out: costs only need the future loss F). Exact for complete projective gold
  (§3.3-3.4): the buffer is collapsed to the right stack of gold fragments (§3.2).
* `as_F_general`: the extension of §3.6, exact for any arc-factored loss, hence for
  non-projective gold (the best reachable projective tree) and for partial gold (an
  unknown head makes every arc to that word right). The remaining computation is a chain
  of left expansions (one stack node) and right expansions (a push computation over a
  buffer segment, i.e. the best projective tree over the segment, Eisner's algorithm).
  Here the segment trees come from Eisner charts over every sub-interval of the sentence,
  computed once per sentence (they do not depend on the configuration), and the push
  rules are factored through Eisner's half items, so that one F costs
  O(lL^2 m^2 + lL m^2 deg) for lL stack nodes and m buffer words instead of the spec's
  O(m^3 + lL m^2 (lL + m)).
* `as_values`: delta(arc) + F(successor) for SHIFT, LEFT, RIGHT (§3.5); a move's cost is
  its value minus the smallest value.

Configuration (spec §1, §7): node 0 is the virtual root, pre-shifted, at the bottom of the
stack; stk[0..lL-1] bottom -> top; buffer b..n. Transitions (spec §2.1): sh; la adds
s1 -> s2 and removes s2 (needs s2 != 0); ra adds s2 -> s1 and removes s1.
"""
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset


cdef inline int dlt(const ASOracleC* o, int h, int d) noexcept nogil:
    """delta(h -> d): 0 if the arc is gold or d's gold head is unknown, else 1."""
    cdef int g = o.head[d]
    return 0 if (g == h or g == AS_UNKNOWN) else 1


cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef int as_build(ASOracleC* o, const int32_t* heads, int n, bint force_general) noexcept nogil:
    """Gold from token heads (a root points to itself, -1 = unknown) into oracle space,
    with the CSR children, the projectivity test and, unless the [GSS14] DP is exact, the
    Eisner charts of §3.6. Returns 0, or -1 if out of memory."""
    cdef int i, h, d, a, c, e, s, t, u, v, best, N1, nn
    memset(o, 0, sizeof(ASOracleC))
    o.n = n
    N1 = n + 1
    o.head = <int*>malloc(N1 * sizeof(int))
    o.kid_start = <int*>calloc(N1 + 1, sizeof(int))
    o.kids = <int*>malloc(N1 * sizeof(int))
    o.stk2 = <int*>malloc((N1 + 2) * sizeof(int))
    o.mark = <unsigned char*>calloc(N1 + 1, 1)
    o.R = <int*>malloc((N1 + 1) * sizeof(int))
    o.X = <int*>malloc((N1 + 2) * sizeof(int))
    o.sidx = <int*>calloc(N1 + 1, sizeof(int))
    nn = (N1 + 2) * (N1 + 2)
    o.S0 = <int*>malloc(nn * sizeof(int))
    o.S1 = <int*>malloc(nn * sizeof(int))
    o.Ir = <int*>malloc(nn * sizeof(int))
    o.H0 = <int*>malloc((N1 + 1) * sizeof(int))
    o.H1 = <int*>malloc((N1 + 1) * sizeof(int))
    o.minU = <int*>malloc((N1 + 1) * sizeof(int))
    o.minUnk = <int*>malloc((N1 + 1) * sizeof(int))
    if not (o.head and o.kid_start and o.kids and o.stk2 and o.mark and o.R and o.X
            and o.sidx and o.S0 and o.S1 and o.Ir and o.H0 and o.H1 and o.minU and o.minUnk):
        return -1
    o.head[0] = -1
    cdef bint complete = True
    for i in range(n):
        h = heads[i]
        if h < 0:
            o.head[i + 1] = AS_UNKNOWN
            complete = False
        elif h == i:
            o.head[i + 1] = 0
        else:
            o.head[i + 1] = h + 1
    for d in range(1, N1):
        if o.head[d] >= 0:
            o.kid_start[o.head[d] + 1] += 1
    for i in range(N1):
        o.kid_start[i + 1] += o.kid_start[i]
    cdef int* fill = <int*>malloc(N1 * sizeof(int))
    if not fill:
        return -1
    for i in range(N1):
        fill[i] = o.kid_start[i]
    for d in range(1, N1):
        if o.head[d] >= 0:
            o.kids[fill[o.head[d]]] = d
            fill[o.head[d]] += 1
    free(fill)
    # projectivity w.r.t. node 0 at the left (spec §1): no two arcs cross
    cdef bint projective = True
    for d in range(1, N1):
        if not projective:
            break
        if o.head[d] < 0:
            continue
        a = imin(d, o.head[d])
        c = d + o.head[d] - a
        for e in range(1, N1):
            if o.head[e] < 0 or e == d:
                continue
            s = imin(e, o.head[e])
            t = e + o.head[e] - s
            if a < s < c < t or s < a < t < c:
                projective = False
                break
    o.paper_exact = complete and projective and not force_general
    if o.paper_exact:
        return 0
    # Eisner charts over the words 1..n (arc cost dlt), every sub-interval
    o.Cl = <int*>malloc(N1 * N1 * sizeof(int))
    o.Cr = <int*>malloc(N1 * N1 * sizeof(int))
    cdef int* Il = <int*>malloc(N1 * N1 * sizeof(int))
    cdef int* Irr = <int*>malloc(N1 * N1 * sizeof(int))
    if not (o.Cl and o.Cr and Il and Irr):
        return -1
    for s in range(1, N1):
        o.Cl[s * N1 + s] = 0
        o.Cr[s * N1 + s] = 0
    for span in range(1, n):
        for s in range(1, N1 - span):
            t = s + span
            best = AS_INF
            for u in range(s, t):
                v = o.Cr[s * N1 + u] + o.Cl[(u + 1) * N1 + t]
                if v < best:
                    best = v
            Irr[s * N1 + t] = best + dlt(o, s, t)       # s -> t
            Il[s * N1 + t] = best + dlt(o, t, s)        # t -> s
            best = AS_INF
            for u in range(s + 1, t + 1):
                v = Irr[s * N1 + u] + o.Cr[u * N1 + t]
                if v < best:
                    best = v
            o.Cr[s * N1 + t] = best
            best = AS_INF
            for u in range(s, t):
                v = o.Cl[s * N1 + u] + Il[u * N1 + t]
                if v < best:
                    best = v
            o.Cl[s * N1 + t] = best
    free(Il)
    free(Irr)
    return 0


cdef void as_free(ASOracleC* o) noexcept nogil:
    free(o.head); free(o.kid_start); free(o.kids); free(o.stk2); free(o.mark); free(o.R)
    free(o.X); free(o.T); free(o.sidx); free(o.S0); free(o.S1); free(o.Ir); free(o.H0)
    free(o.H1); free(o.minU); free(o.minUnk); free(o.Cl); free(o.Cr)
    memset(o, 0, sizeof(ASOracleC))


cdef int as_F(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil:
    if o.paper_exact:
        return as_F_paper(o, stk, lL, b)
    return as_F_general(o, stk, lL, b)


cdef int as_F_paper(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil:
    """Future loss F(c) by [GSS14] Algorithm 1, corrected (spec §3.3, pseudocode §3.4).
    Exact for complete projective gold."""
    cdef int n = o.n
    cdef int t, i, k, nR, N, p, a, e, h, x, y, v, span
    cdef bint is_root
    cdef long size, idx
    # 1) right stack of fragment roots (§3.2): mark the stack nodes
    for t in range(lL):
        o.mark[stk[t]] = 1
    nR = 0
    for i in range(b, n + 1):
        is_root = o.head[i] < b
        if not is_root:
            for k in range(o.kid_start[i], o.kid_start[i + 1]):
                if o.mark[o.kids[k]]:
                    is_root = True
                    break
        if is_root:
            o.R[nR] = i
            nR += 1
            o.mark[i] = 1
    for t in range(lL):
        o.mark[stk[t]] = 0
    for t in range(nR):
        o.mark[o.R[t]] = 0
    # 2) string-order sequence, pivot p = stack top
    N = lL + nR
    p = lL - 1
    for t in range(lL):
        o.X[t] = stk[t]
    for t in range(nR):
        o.X[lL + t] = o.R[t]
    # 3) chart T[a][e][h], a <= p <= e, flat ((a * (N - p)) + (e - p)) * N + h
    size = <long>(p + 1) * (N - p) * N
    if size > o.T_cap:
        free(o.T)
        o.T = <int*>malloc(size * sizeof(int))
        o.T_cap = size if o.T != NULL else 0
        if o.T == NULL:
            return AS_INF
    cdef int* T = o.T
    for idx in range(size):
        T[idx] = AS_INF
    cdef int W = N - p
    T[(p * W + 0) * N + p] = 0
    for span in range(0, N - 1):
        for a in range(p - span if p - span > 0 else 0, p + 1):
            e = a + span
            if e >= N or e < p:
                continue
            for h in range(a, e + 1):
                v = T[(a * W + (e - p)) * N + h]
                if v >= AS_INF:
                    continue
                if a > 0:                       # left expansion with X[a-1] = σL[i+1]
                    x = a - 1
                    idx = (x * W + (e - p)) * N
                    T[idx + h] = imin(T[idx + h], v + (o.head[o.X[x]] != o.X[h]))   # la
                    T[idx + x] = imin(T[idx + x], v + (o.head[o.X[h]] != o.X[x]))   # ra
                if e < N - 1:                   # right expansion with X[e+1] = σR[j+1]
                    y = e + 1
                    idx = (a * W + (y - p)) * N
                    T[idx + h] = imin(T[idx + h], v + (o.head[o.X[y]] != o.X[h]))   # ra
                    T[idx + y] = imin(T[idx + y], v + (o.head[o.X[h]] != o.X[y]))   # la
    return T[(0 * W + (N - 1 - p)) * N + 0]


cdef int as_F_general(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil:
    """Future loss F(c) for any arc-factored 0/1 loss (spec §3.6), factored as follows.

    U_i[p](h) = best tree over σL[1..i] (top first) and the buffer prefix B[0..p-1] with
    root h (B[q] = node b + q). Its entries are kept as
      S[p][k]  root σL[k] (k <= i);
      H[q]     root B[q]: the part of the tree left of B[q] inclusive (σL[1..i], B[0..q]);
               the part right of B[q] is any projective tree over B[q..p-1] headed by
               B[q], i.e. U_i[p](B[q]) = H[q] + Cr(q, p-1) (Eisner);
      Ir[r][k] σL[k] -> B[r] with B[r]'s left half built: min_p S[p][k] + Cl(p, r) + δ,
               so that a push computation (segment tree) attached to σL[k] is
               Ir[r][k] + Cr(r, p2-1).
    Left expansion with x = σL[i+1]: h takes x (la), or x takes the root (ra).
    Right expansion: the root takes a segment root (via Ir / Cr), or a segment root B[q]
    takes the root (H[q] <- root value + δ + Cl(p, q)).
    """
    cdef int n = o.n
    cdef int N1 = n + 1
    cdef int m = n + 1 - b
    cdef int i, k, p, q, r, v, t, best, mu, mk, h, x, y, kk, sk
    cdef int* S = o.S0
    cdef int* Sn = o.S1
    cdef int* H = o.H0
    cdef int* Hn = o.H1
    cdef int* tmp
    cdef int* Ir = o.Ir
    cdef const int* Cl = o.Cl
    cdef const int* Cr = o.Cr
    cdef int rowS = lL          # S[p * lL + k - 1]
    for k in range(1, lL + 1):
        o.sidx[stk[lL - k]] = k
    for t in range((m + 1) * rowS):
        S[t] = AS_INF
    for q in range(m):
        H[q] = AS_INF
    S[0] = 0                    # axiom: U_1[0](σL[1]) = 0 (spec §6 P1: no past loss)
    for i in range(1, lL + 1):
        for t in range(m * rowS):
            Ir[t] = AS_INF
        for p in range(m + 1):
            # S_i[p][k] from push computations attached to σL[k]
            if p > 0:
                for k in range(1, i + 1):
                    best = S[p * rowS + k - 1]
                    for r in range(p):
                        v = Ir[r * rowS + k - 1]
                        if v < AS_INF:
                            v += Cr[(b + r) * N1 + (b + p - 1)]
                            if v < best:
                                best = v
                    S[p * rowS + k - 1] = best
            # U_i[p] is final: its best root value, and over roots with unknown gold head
            mu = AS_INF
            mk = AS_INF
            for k in range(1, i + 1):
                v = S[p * rowS + k - 1]
                if v < mu:
                    mu = v
                if o.head[stk[lL - k]] == AS_UNKNOWN and v < mk:
                    mk = v
            for q in range(p):
                v = H[q]
                if v < AS_INF:
                    v += Cr[(b + q) * N1 + (b + p - 1)]
                    if v < mu:
                        mu = v
                    if o.head[b + q] == AS_UNKNOWN and v < mk:
                        mk = v
            o.minU[p] = mu
            o.minUnk[p] = mk
            if mu >= AS_INF or p == m:
                continue
            # right expansion, the root σL[k] takes a segment root B[r] (r >= p)
            for k in range(1, i + 1):
                v = S[p * rowS + k - 1]
                if v >= AS_INF:
                    continue
                h = stk[lL - k]
                for r in range(p, m):
                    t = v + Cl[(b + p) * N1 + (b + r)] + dlt(o, h, b + r)
                    if t < Ir[r * rowS + k - 1]:
                        Ir[r * rowS + k - 1] = t
            # right expansion, a segment root B[q] (q >= p) takes the root
            for q in range(p, m):
                y = b + q
                best = imin(mu + 1, mk)
                for kk in range(o.kid_start[y], o.kid_start[y + 1]):
                    h = o.kids[kk]
                    sk = o.sidx[h]
                    if sk and sk <= i:
                        best = imin(best, S[p * rowS + sk - 1])
                    elif b <= h < b + p and H[h - b] < AS_INF:
                        best = imin(best, H[h - b] + Cr[h * N1 + (b + p - 1)])
                if best < AS_INF:
                    best += Cl[(b + p) * N1 + y]
                    if best < H[q]:
                        H[q] = best
        if i == lL:
            break
        # left expansion with x = σL[i+1]
        x = stk[lL - i - 1]
        for p in range(m + 1):
            for k in range(1, i + 1):
                v = S[p * rowS + k - 1]
                Sn[p * rowS + k - 1] = v + dlt(o, stk[lL - k], x) if v < AS_INF else AS_INF
            for k in range(i + 2, lL + 1):
                Sn[p * rowS + k - 1] = AS_INF
            # ra: x takes the root of U_i[p]
            best = imin(o.minU[p] + 1, o.minUnk[p])
            for kk in range(o.kid_start[x], o.kid_start[x + 1]):
                h = o.kids[kk]
                sk = o.sidx[h]
                if sk and sk <= i:
                    best = imin(best, S[p * rowS + sk - 1])
                elif b <= h < b + p and H[h - b] < AS_INF:
                    best = imin(best, H[h - b] + Cr[h * N1 + (b + p - 1)])
            Sn[p * rowS + i] = best if best < AS_INF else AS_INF
        for q in range(m):
            Hn[q] = H[q] + dlt(o, b + q, x) if H[q] < AS_INF else AS_INF
        tmp = S; S = Sn; Sn = tmp
        tmp = H; H = Hn; Hn = tmp
    for k in range(1, lL + 1):
        o.sidx[stk[lL - k]] = 0
    v = S[m * rowS + lL - 1]       # root σL[lL] = node 0
    return v if v < AS_INF else AS_INF


cdef void as_values(ASOracleC* o, const int* stk, int lL, int b, const int* want,
                    int* val) noexcept nogil:
    """val[0], val[1], val[2] = δ(arc) + F(successor) of sh, la, ra (spec §3.5), AS_INF
    where not wanted or not valid in the spec's system (la needs s2 != 0)."""
    cdef int t, s1, s2
    cdef int* st2 = o.stk2
    val[0] = val[1] = val[2] = AS_INF
    if want[0] and b <= o.n:
        for t in range(lL):
            st2[t] = stk[t]
        st2[lL] = b
        val[0] = as_F(o, st2, lL + 1, b + 1)
    if lL >= 2:
        s1 = stk[lL - 1]
        s2 = stk[lL - 2]
        if want[1] and lL >= 3:
            for t in range(lL - 2):
                st2[t] = stk[t]
            st2[lL - 2] = s1
            val[1] = dlt(o, s1, s2) + as_F(o, st2, lL - 1, b)
        if want[2]:
            val[2] = dlt(o, s2, s1) + as_F(o, stk, lL - 1, b)


cdef class ArcStandardOracle:
    """Python handle (tests, benchmarks): owns one ASOracleC."""

    def __init__(self, heads, force_general=False):
        import numpy
        arr = numpy.asarray([(-1 if h is None else h) for h in heads], dtype=numpy.int32)
        cdef int32_t[::1] view = arr
        if as_build(&self.c, &view[0], len(arr), force_general) < 0:
            raise MemoryError()

    def __dealloc__(self):
        as_free(&self.c)

    @property
    def paper_exact(self):
        return bool(self.c.paper_exact)

    def future(self, stack, int b):
        """F(c) for a stack of nodes (bottom -> top, starting with 0) and buffer start b."""
        import numpy
        arr = numpy.asarray(stack, dtype=numpy.intc)
        cdef int[::1] v = arr
        return as_F(&self.c, &v[0], len(arr), b)
