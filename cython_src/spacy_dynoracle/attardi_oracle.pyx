# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Exact dynamic oracle of Attardi's non-projective system of degree D (D = 2: Gómez-Rodríguez,
Sartorio & Satta, EMNLP 2014; D = 3: the generalisation of spec §2.5), over plain arrays.

Spec: ../shared/specs/attardi.md. The pieces, by spec section:

* §2.7  zero_future(σ, b): the O(n·D) test F(σ, b) == 0 (canonical static policy run from the
        configuration). Used first in every state: when the state has lost nothing, the
        zero-cost set needs no table at all.
* §2.3  reduce(): buffer reduction with the corrected condition 3 [fix], O(n).
* §2.4/2.5 search(): the tabular algorithm over ρ = σ·β_R for any D ≤ 3 (D = 2 is exactly
        Algorithm 1), with the paper's optional pruning of buffer-only spans.
* §2.6  costs(): cost of every requested transition at once, L(τ(c)) − min_τ' L(τ'(c)).
* §2.9  gold trees the system cannot derive: no reduction, no pruning (exact for any tree),
        or the "local" variant that keeps the reduction for fragments whose subtree is
        derivable on its own.

Package convention (docs/systems/attardi.md): with `root_ra1`, node 0 can only be the head of
an ra_1 (the ROOT move), never of ra_k for k >= 2. The table, the fast path and the static
policy all honour it, so the oracle is exact for that restricted system.
"""
from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector
from libcpp.utility cimport pair
from libcpp.algorithm cimport sort
from cython.operator cimport dereference as deref
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline double now_ms() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6

DEF B = 12                  # bits per symbol in a packed item key
DEF SYM_MASK = 4095


cdef inline int delta_arc(const AttGold* g, int h, int d) noexcept nogil:
    """1 if the arc h -> d is wrong, 0 if it is gold or d's gold head is unknown."""
    cdef int gh = g.head[d]
    return 0 if (gh < 0 or gh == h) else 1


cdef class OracleGold:
    """Node-level gold tree (node 0 = artificial root, token i = node i+1)."""

    def __init__(self, heads=None, int D=2, bint root_ra1=True):
        cdef vector[int32_t] h
        if heads is not None:
            for x in heads:
                h.push_back(-1 if x is None else x)
            self.build(h.data(), h.size(), D, root_ra1)

    @property
    def covered(self):
        return bool(self.c.covered)

    @property
    def n_unknown(self):
        return self.c.n_unknown

    cdef void build(self, const int32_t* heads, int n_tokens, int D, bint root_ra1) noexcept nogil:
        """heads: token-level gold heads (a root points to itself, -1 = unknown)."""
        cdef int n = n_tokens
        cdef int x, h, i, top, k
        self._head.assign(n + 1, -1)
        self._kid_start.assign(n + 2, 0)
        self._kids.assign(n + 1, 0)
        self._post.clear()
        self._lcov.assign(n + 1, 0)
        self.c.n = n
        self.c.n_unknown = 0
        for i in range(n):
            h = heads[i]
            if h < 0 or h >= n:
                self._head[i + 1] = -1
                self.c.n_unknown += 1
            elif h == i:
                self._head[i + 1] = 0
            else:
                self._head[i + 1] = h + 1
        for x in range(1, n + 1):
            h = self._head[x]
            if h >= 0:
                self._kid_start[h + 1] += 1
        for x in range(n + 1):
            self._kid_start[x + 1] += self._kid_start[x]
        cdef vector[int] fill = self._kid_start
        for x in range(1, n + 1):
            h = self._head[x]
            if h >= 0:
                self._kids[fill[h]] = x
                fill[h] += 1
        # iterative post-order from node 0 (children before parents)
        cdef vector[int] stk, it
        stk.push_back(0)
        it.push_back(self._kid_start[0])
        while stk.size():
            top = stk.back()
            if it.back() < self._kid_start[top + 1]:
                k = self._kids[it.back()]
                it[it.size() - 1] += 1
                stk.push_back(k)
                it.push_back(self._kid_start[k])
            else:
                self._post.push_back(top)
                stk.pop_back()
                it.pop_back()
        self.c.head = self._head.data()
        self.c.kid_start = self._kid_start.data()
        self.c.kids = self._kids.data()
        self.c.post = self._post.data()
        self.c.n_post = self._post.size()
        self.c.lcov = self._lcov.data()
        self._cache_key.assign(ORC_MAX_T, 0)
        self._cache_val.assign(ORC_MAX_T, 0)
        self.c.cache_key = self._cache_key.data()
        self.c.cache_val = self._cache_val.data()
        self.c.cache_n = 0
        if self.c.n_post != n + 1:       # a cycle or unknown heads: no tree under node 0
            if self.c.n_unknown == 0:
                self.c.n_unknown = n + 1 - self.c.n_post
        self.c.covered = 0
        if self.c.n_unknown == 0:
            self.c.covered = local_covered(&self.c, 0, D, root_ra1)
            if self.c.covered:
                for x in range(n + 1):
                    self._lcov[x] = 1
            else:
                for i in range(self.c.n_post):
                    x = self.c.post[i]
                    if x != 0:
                        self._lcov[x] = local_covered(&self.c, x, D, root_ra1)


cdef int local_covered(const AttGold* g, int r, int D, bint root_ra1) noexcept nogil:
    """1 if the gold subtree of r, taken alone (its nodes in order, r hanging from a virtual
    root before them), is derived by the canonical static policy (spec §1.3): then any
    restriction of it to an interval is derivable too (deleting nodes from a derivation only
    shortens stack distances)."""
    cdef vector[int] nodes, st, pending
    cdef int i, x, k, top, d, h, j, lo, hi, mid
    # collect the subtree
    cdef vector[int] todo
    todo.push_back(r)
    while todo.size():
        x = todo.back()
        todo.pop_back()
        nodes.push_back(x)
        for j in range(g.kid_start[x], g.kid_start[x + 1]):
            todo.push_back(g.kids[j])
    sort(nodes.begin(), nodes.end())
    if r == 0:
        nodes.erase(nodes.begin())      # node 0 itself is the root holder (index 0)
    # relabel: the root holder (node 0, or a virtual root above r) -> index 0, nodes -> 1..m
    cdef int m = nodes.size()
    cdef vector[int] hd
    hd.assign(m + 1, -1)
    pending.assign(m + 1, 0)
    for i in range(m):
        x = nodes[i]
        h = g.head[x]
        if x == r or h == 0:
            hd[i + 1] = 0
        else:
            # binary search h's index
            lo = 0
            hi = m - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if nodes[mid] < h:
                    lo = mid + 1
                else:
                    hi = mid
            hd[i + 1] = lo + 1
        pending[hd[i + 1]] += 1
    st.push_back(0)
    cdef int b = 1
    while True:
        if st.size() == 1 and b > m:
            return 1
        top = st.back()
        d = -1
        for k in range(1, D + 1):
            if <int>st.size() >= k + 2:
                x = st[st.size() - 1 - k]
                if hd[x] == top and pending[x] == 0:
                    st.erase(st.begin() + (st.size() - 1 - k))
                    pending[top] -= 1
                    d = 1
                    break
        if d == 1:
            continue
        for k in range(1, D + 1):
            if <int>st.size() >= k + 1:
                h = st[st.size() - 1 - k]
                if root_ra1 and k >= 2 and h == 0:
                    continue
                if hd[top] == h and pending[top] == 0:
                    st.pop_back()
                    pending[h] -= 1
                    d = 1
                    break
        if d == 1:
            continue
        if b <= m:
            st.push_back(b)
            b += 1
            continue
        return 0


cdef inline uint64_t state_sig(const int* stack, int ls, int b) noexcept nogil:
    cdef uint64_t h = <uint64_t>1469598103934665603
    for i in range(ls):
        h = (h ^ <uint64_t>(stack[i] + 1)) * <uint64_t>1099511628211
    h = (h ^ <uint64_t>(b + 7919)) * <uint64_t>1099511628211
    return (h ^ <uint64_t>ls) * <uint64_t>1099511628211


cdef inline uint64_t pack(const int* s, int cnt) noexcept nogil:
    cdef uint64_t key = 0
    for i in range(cnt):
        key = (key << B) | <uint64_t>s[i]
    return key


cdef inline void unpack(uint64_t key, int* s, int cnt) noexcept nogil:
    for i in range(cnt - 1, -1, -1):
        s[i] = <int>(key & SYM_MASK)
        key >>= B


cdef class AttardiOracle:
    """Workspace and counters of the oracle for one degree. Not thread-safe (one per system)."""

    def __init__(self, int D=2, bint root_ra1=True, bint prune=True, bint exact=True,
                 int uncovered_mode=1, long budget=200000, int max_m=400,
                 double max_ms=30.0):
        if not 1 <= D <= ORC_MAX_D:
            raise ValueError(f"degree must be between 1 and {ORC_MAX_D}, got {D}")
        self.D = D
        self.root_ra1 = root_ra1
        self.prune = prune
        self.exact = exact
        self.uncovered_mode = uncovered_mode
        self.budget = budget
        self.max_m = max_m
        self.max_ms = max_ms
        self._t_end = 0
        self.last_path = -1
        self._hgen = 0
        self._hmask = 0
        self._left_budget = budget
        self.scratch_gold = OracleGold()
        self.reset_counts()

    PATH_NAMES = ("fast", "table", "full", "partial", "guard", "local")

    def reset_counts(self):
        for i in range(N_PATHS):
            self.counts[i] = 0
        self.n_searches = 0
        self.n_combos = 0
        self.max_combos = 0

    def stats(self):
        out = {name: self.counts[i] for i, name in enumerate(self.PATH_NAMES)}
        out.update(searches=self.n_searches, combos=self.n_combos, max_combos=self.max_combos)
        return out

    @property
    def last_path_name(self):
        return self.PATH_NAMES[self.last_path] if self.last_path >= 0 else None

    # ---- §2.7 zero-future fast path ---------------------------------------------------
    cdef int static_next(self, const AttGold* g, const int* stack, int ls, int b,
                         const int* pending) noexcept nogil:
        """Canonical static policy (spec §1.3, Cohen et al.): la_k (k = 1..D) if s_{k+1}'s gold
        head is s_1 and s_{k+1} is complete; else ra_k; else sh; -1 if stuck."""
        cdef int top = stack[ls - 1]
        cdef int k, x
        for k in range(1, self.D + 1):
            if ls >= k + 2:
                x = stack[ls - 1 - k]
                if g.head[x] == top and pending[x] == 0:
                    return 2 * k - 1
        for k in range(1, self.D + 1):
            if ls >= k + 1:
                x = stack[ls - 1 - k]
                if self.root_ra1 and k >= 2 and x == 0:
                    continue
                if g.head[top] == x and pending[top] == 0:
                    return 2 * k
        if b <= g.n:
            return 0
        return -1

    cdef bint zero_future(self, const AttGold* g, const int* stack, int ls, int b) noexcept nogil:
        """F(σ, b) == 0 (spec §2.7, exact for any gold tree without unknown heads)."""
        cdef int n = g.n
        cdef int i, x, t, k, top
        self._pending.assign(n + 1, 0)
        for i in range(1, ls):
            x = g.head[stack[i]]
            if x >= 0:
                self._pending[x] += 1
        for x in range(b, n + 1):
            if g.head[x] >= 0:
                self._pending[g.head[x]] += 1
        self._st.assign(stack, stack + ls)
        while True:
            ls = self._st.size()
            if ls == 1 and b > n:
                return True
            t = self.static_next(g, self._st.data(), ls, b, self._pending.data())
            if t < 0:
                return False
            if t == 0:
                self._st.push_back(b)
                b += 1
            elif t % 2 == 1:
                k = (t + 1) // 2
                top = self._st[ls - 1]
                self._st.erase(self._st.begin() + (ls - 1 - k))
                self._pending[top] -= 1
            else:
                k = t // 2
                self._pending[self._st[ls - 1 - k]] -= 1
                self._st.pop_back()

    # ---- §2.3 buffer reduction --------------------------------------------------------
    cdef int reduce(self, const AttGold* g, const int* stack, int ls, int b, bint local) noexcept nogil:
        """Fill self._rho with σ·β_R; return m = |ρ|. Conditions 1-3 of spec §2.3 ([fix]:
        condition 3); with `local`, a fragment is also required to be derivable on its own."""
        cdef int n = g.n
        cdef int i, j, v, c, x, h
        cdef int INF = n + 10
        self._flag.assign(n + 1, 0)        # bit 1: has a gold dependent on the stack
        for i in range(1, ls):
            h = g.head[stack[i]]
            if h >= b:
                self._flag[h] |= 1
        self._lo.assign(n + 1, INF)
        self._hi.assign(n + 1, -1)
        self._cnt.assign(n + 1, 0)
        self._nbad.assign(n + 1, 0)
        for i in range(g.n_post):           # children before parents
            v = g.post[i]
            if v >= b:
                self._lo[v] = v
                self._hi[v] = v
                self._cnt[v] = 1
            for j in range(g.kid_start[v], g.kid_start[v + 1]):
                c = g.kids[j]
                if self._lo[c] < self._lo[v]:
                    self._lo[v] = self._lo[c]
                if self._hi[c] > self._hi[v]:
                    self._hi[v] = self._hi[c]
                self._cnt[v] += self._cnt[c]
                self._nbad[v] += self._nbad[c]
                # c is bad: in the buffer with its head outside it, or with stack dependents
                if c >= b and (v < b or (self._flag[c] & 1)):
                    self._nbad[v] += 1
            if (v >= b and self._hi[v] - self._lo[v] + 1 == self._cnt[v]
                    and self._nbad[v] == 0 and (not local or g.lcov[v])):
                self._flag[v] |= 2          # collapsible
        # parents before children: bit 4 = some proper ancestor is collapsible
        for i in range(g.n_post - 1, -1, -1):
            v = g.post[i]
            h = g.head[v]
            if h >= 0 and (self._flag[h] & 6):
                self._flag[v] |= 4
        self._rho.assign(stack, stack + ls)
        for x in range(b, n + 1):
            if not (self._flag[x] & 4):
                self._rho.push_back(x)
        return self._rho.size()

    # ---- §2.4 / §2.5 the tabular algorithm ----------------------------------------------
    cdef int search(self, const AttGold* g, const int* rho, int m, int l, bint prune,
                    int cap) noexcept nogil:
        """F for ρ (positions 0..m-1, stack part [0, l)). Items are packed keys
        (α: D-1 symbols, γ: D symbols; symbol = position + 1, 0 = $) with a min value."""
        cdef int D = self.D
        cdef int W = m + 1
        cdef int i, j, k, ln, q, cell, lcell, rcell, p, a0, a1, s_i
        cdef int lo, hi, mid, r
        cdef int hd, dp, v, dl, hs, ds
        cdef long combos = 0
        cdef uint64_t key, akey, nkey, ashift
        cdef int sa[8]
        cdef int sb[8]
        cdef int S[8]
        cdef int G[8]
        cdef vector[pair[uint64_t, int]] items
        if m > self.max_m:
            return ORC_GUARD
        self._cap = cap          # items worth more than cap cannot be part of a result <= cap
        self.n_searches += 1
        self._cstart.assign(W * W, 0)
        self._clen.assign(W * W, 0)
        self._keys.clear()
        self._vals.clear()
        ashift = B * D
        # initial cells T[i][i+1]
        for i in range(m):
            cell = i * W + i + 1
            self._cstart[cell] = self._keys.size()
            if i < l or i == 0:
                for q in range(D - 1):
                    p = i - (D - 1) + q
                    sa[q] = p + 1 if p >= 0 else 0
                sa[D - 1] = i + 1
                # key = α (D-1 symbols) then γ = α + (i)
                for q in range(D - 1):
                    S[q] = sa[q]
                for q in range(D):
                    S[D - 1 + q] = sa[q]
                self._keys.push_back(pack(S, 2 * D - 1))
                self._vals.push_back(0)
            else:
                items.clear()
                self._gen_alpha(i, D, &items)
                sort(items.begin(), items.end())
                for r in range(<int>items.size()):
                    self._keys.push_back(items[r].first)
                    self._vals.push_back(0)
            self._clen[cell] = self._keys.size() - self._cstart[cell]
        for ln in range(2, m + 1):
            i = l - ln
            if i < 0:
                i = 0
            while i <= m - ln:
                j = i + ln
                self._hclear()
                k = i + 1
                while k < j:
                    if k > i + 1 and k < l:
                        k = l
                        continue
                    lcell = i * W + k
                    rcell = k * W + j
                    for p in range(self._cstart[lcell], self._cstart[lcell] + self._clen[lcell]):
                        key = self._keys[p]
                        unpack(key, sa, 2 * D - 1)       # sa[0..D-2] = α, sa[D-1..] = γ
                        akey = 0
                        for q in range(1, D):
                            akey = (akey << B) | <uint64_t>sa[D - 1 + q]
                        # right items whose α == γ[1:], contiguous in the sorted cell
                        lo = self._cstart[rcell]
                        hi = lo + self._clen[rcell]
                        while lo < hi:
                            mid = (lo + hi) // 2
                            if (self._keys[mid] >> ashift) < akey:
                                lo = mid + 1
                            else:
                                hi = mid
                        S[0] = sa[D - 1]
                        while lo < self._cstart[rcell] + self._clen[rcell]:
                            nkey = self._keys[lo]
                            if (nkey >> ashift) != akey:
                                break
                            unpack(nkey, sb, 2 * D - 1)
                            for q in range(D):
                                S[1 + q] = sb[D - 1 + q]
                            v = self._vals[p] + self._vals[lo]
                            lo += 1
                            combos += 1
                            if v > self._cap:
                                continue
                            for q in range(1, D + 1):
                                # la_q: arc S[D] -> S[D-q], remove S[D-q]
                                hs = S[D]
                                ds = S[D - q]
                                if hs != 0 and ds > 1:
                                    hd = rho[hs - 1]
                                    dp = rho[ds - 1]
                                    dl = delta_arc(g, hd, dp)
                                    if not (prune and i >= l and dl and hs - 1 >= l
                                            and g.head[dp] >= self._b_cur):
                                        r = 0
                                        for a0 in range(D + 1):
                                            if a0 != D - q:
                                                G[r] = S[a0]
                                                r += 1
                                        self._add(sa, G, D, v + dl)
                                # ra_q: arc S[D-q] -> S[D], pop S[D]
                                hs = S[D - q]
                                ds = S[D]
                                if hs != 0 and ds > 1 and not (self.root_ra1 and q >= 2 and hs == 1):
                                    hd = rho[hs - 1]
                                    dp = rho[ds - 1]
                                    dl = delta_arc(g, hd, dp)
                                    if not (prune and i >= l and dl and hs - 1 >= l
                                            and g.head[dp] >= self._b_cur):
                                        self._add(sa, S, D, v + dl)
                    if combos > self._left_budget or (self.max_ms > 0 and now_ms() > self._t_end):
                        self._tally(combos)
                        return ORC_GUARD
                    k += 1
                # dump the accumulated items of T[i][j], sorted
                cell = i * W + j
                self._cstart[cell] = self._keys.size()
                items.clear()
                for r in range(<int>self._hused.size()):
                    items.push_back(pair[uint64_t, int](self._hkeys[self._hused[r]],
                                                        self._hvals[self._hused[r]]))
                sort(items.begin(), items.end())
                for r in range(<int>items.size()):
                    self._keys.push_back(items[r].first)
                    self._vals.push_back(items[r].second)
                self._clen[cell] = items.size()
                i += 1
        self._tally(combos)
        self._left_budget -= combos
        # result: T[0][m][(pad, pad + (0,))], whose packed key is 1
        cell = 0 * W + m
        for p in range(self._cstart[cell], self._cstart[cell] + self._clen[cell]):
            if self._keys[p] == 1:
                return self._vals[p]
        return ORC_INF

    cdef void _store_cache(self, AttGold* g, const int* stack, int ls, int b, const int* want,
                           const int* EF) noexcept nogil:
        cdef int t, ls2, b2, h, d
        g.cache_n = 0
        if g.cache_key == NULL:
            return
        self._st.resize(ls + 2)
        for t in range(2 * self.D + 1):
            if want[t] and EF[t] >= 0:
                self.apply(t, stack, ls, b, self._st.data(), &ls2, &b2, &h, &d)
                g.cache_key[g.cache_n] = state_sig(self._st.data(), ls2, b2)
                g.cache_val[g.cache_n] = EF[t]
                g.cache_n += 1

    cdef void _tally(self, long combos) noexcept nogil:
        self.n_combos += combos
        if combos > self.max_combos:
            self.max_combos = combos

    cdef void _add(self, const int* sa, const int* G, int D, int v) noexcept nogil:
        cdef int s[8]
        cdef int q
        for q in range(D - 1):
            s[q] = sa[q]
        for q in range(D):
            s[D - 1 + q] = G[q]
        if v <= self._cap:
            self._hput(pack(s, 2 * D - 1), v)

    cdef void _hclear(self) noexcept nogil:
        self._hgen += 1
        self._hused.clear()
        if self._hkeys.size() == 0:
            self._hkeys.resize(1024)
            self._hvals.resize(1024)
            self._hstamp.assign(1024, 0)
            self._hmask = 1023

    cdef void _hput(self, uint64_t key, int v) noexcept nogil:
        cdef uint64_t h
        cdef int slot, i, n, old
        cdef vector[uint64_t] ok
        cdef vector[int] ov
        if <int>self._hused.size() * 2 >= self._hmask:
            # grow x4 and re-insert the live slots
            ok.clear()
            ov.clear()
            for i in range(<int>self._hused.size()):
                ok.push_back(self._hkeys[self._hused[i]])
                ov.push_back(self._hvals[self._hused[i]])
            n = (self._hmask + 1) * 4
            self._hkeys.resize(n)
            self._hvals.resize(n)
            self._hstamp.assign(n, 0)
            self._hmask = n - 1
            self._hgen = 1
            self._hused.clear()
            for i in range(<int>ok.size()):
                self._hput(ok[i], ov[i])
        h = key * <uint64_t>0x9E3779B97F4A7C15
        slot = <int>((h >> 32) & <uint64_t>self._hmask)
        while True:
            if self._hstamp[slot] != self._hgen:
                self._hstamp[slot] = self._hgen
                self._hkeys[slot] = key
                self._hvals[slot] = v
                self._hused.push_back(slot)
                return
            if self._hkeys[slot] == key:
                if v < self._hvals[slot]:
                    self._hvals[slot] = v
                return
            slot = (slot + 1) & self._hmask

    cdef void _gen_alpha(self, int i, int D, vector[pair[uint64_t, int]]* out) noexcept nogil:
        """Initial items of a buffer position i (spec §2.5): every α that can be the top D-1
        symbols of a stack $..$ 0 S (S increasing in 1..i-1), with γ = α + (i)."""
        cdef int s[8]
        cdef int h, a
        if D == 1:
            s[0] = i + 1
            out.push_back(pair[uint64_t, int](pack(s, 1), 0))
        elif D == 2:
            for h in range(i):
                s[0] = h + 1
                s[1] = h + 1
                s[2] = i + 1
                out.push_back(pair[uint64_t, int](pack(s, 3), 0))
        else:
            # ($, 0)
            s[0] = 0; s[1] = 1; s[2] = 0; s[3] = 1; s[4] = i + 1
            out.push_back(pair[uint64_t, int](pack(s, 5), 0))
            for h in range(1, i):
                for a in range(h):
                    s[0] = a + 1; s[1] = h + 1; s[2] = a + 1; s[3] = h + 1; s[4] = i + 1
                    out.push_back(pair[uint64_t, int](pack(s, 5), 0))

    # ---- F of a configuration ----------------------------------------------------------
    cdef int greedy_upper(self, const AttGold* g, const int* stack, int ls, int b) noexcept nogil:
        """An upper bound of F(σ, b): the wrong arcs of one complete computation (the static
        policy, and when it is stuck SHIFT, else RIGHT onto s2). Used to discard table items
        that cannot be part of an optimal computation ([ext], exact)."""
        cdef int n = g.n
        cdef int i, x, t, k, top, d, h, wrong = 0
        self._pending.assign(n + 1, 0)
        for i in range(1, ls):
            x = g.head[stack[i]]
            if x >= 0:
                self._pending[x] += 1
        for x in range(b, n + 1):
            if g.head[x] >= 0:
                self._pending[g.head[x]] += 1
        self._st.assign(stack, stack + ls)
        while True:
            ls = self._st.size()
            if ls == 1 and b > n:
                return wrong
            t = self.static_next(g, self._st.data(), ls, b, self._pending.data())
            if t < 0:
                t = 0 if b <= n else 2
            if t == 0:
                self._st.push_back(b)
                b += 1
                continue
            if t % 2 == 1:
                k = (t + 1) // 2
                h = self._st[ls - 1]
                d = self._st[ls - 1 - k]
                self._st.erase(self._st.begin() + (ls - 1 - k))
            else:
                k = t // 2
                h = self._st[ls - 1 - k]
                d = self._st[ls - 1]
                self._st.pop_back()
            wrong += delta_arc(g, h, d)
            if g.head[d] >= 0:
                self._pending[g.head[d]] -= 1

    cdef int future_loss(self, const AttGold* g, const int* stack, int ls, int b, int cap) noexcept nogil:
        """F(σ, b) by the table if F <= cap (else ORC_INF); the reduction and pruning only
        where they are exact."""
        cdef int m
        self._b_cur = b
        if g.n_unknown == 0 and g.covered:
            m = self.reduce(g, stack, ls, b, False)
            return self.search(g, self._rho.data(), m, ls, self.prune, cap)
        if g.n_unknown == 0 and self.uncovered_mode == 1:
            m = self.reduce(g, stack, ls, b, True)
            return self.search(g, self._rho.data(), m, ls, False, cap)
        self._rho.assign(stack, stack + ls)
        for x in range(b, g.n + 1):
            self._rho.push_back(x)
        return self.search(g, self._rho.data(), self._rho.size(), ls, False, cap)

    cdef int apply(self, int t, const int* stack, int ls, int b, int* out, int* ls2, int* b2,
                   int* head, int* dep) noexcept nogil:
        """Successor of (stack, b) by transition t into out; the arc built (or -1, -1)."""
        cdef int k, i, r
        head[0] = -1
        dep[0] = -1
        if t == 0:
            for i in range(ls):
                out[i] = stack[i]
            out[ls] = b
            ls2[0] = ls + 1
            b2[0] = b + 1
            return 0
        b2[0] = b
        if t % 2 == 1:
            k = (t + 1) // 2
            head[0] = stack[ls - 1]
            dep[0] = stack[ls - 1 - k]
            r = 0
            for i in range(ls):
                if i != ls - 1 - k:
                    out[r] = stack[i]
                    r += 1
            ls2[0] = ls - 1
        else:
            k = t // 2
            head[0] = stack[ls - 1 - k]
            dep[0] = stack[ls - 1]
            for i in range(ls - 1):
                out[i] = stack[i]
            ls2[0] = ls - 1
        return 0

    # ---- §2.6 costs of all transitions at once ---------------------------------------
    cdef int costs(self, const AttGold* g, const int* stack, int ls, int b, const int* want,
                   int* out) noexcept nogil:
        """out[t] = cost of transition t for every t with want[t] (2D+1 slots); returns the
        path used (PATH_*). want[] must only name legal transitions."""
        cdef int T = 2 * self.D + 1
        cdef int t, ls2, b2, h, d, dl, F2, best, path, i
        cdef int L[ORC_MAX_T]
        cdef bint clean = g.n_unknown == 0
        cdef bint fz = clean and self.zero_future(g, stack, ls, b)
        self._left_budget = self.budget      # the guard's budget is per state, all searches
        self._t_end = now_ms() + self.max_ms
        cdef AttGold* gm = <AttGold*>g
        cdef uint64_t sig = state_sig(stack, ls, b)
        cdef int Fc = -1
        cdef int EF[ORC_MAX_T]
        cdef bint ok
        for t in range(T):
            EF[t] = -1
        # [ext] training mode: when this state is a successor whose F the previous state's
        # search found exactly (the move followed was optimal, or its loss was found), the
        # minimum over successors is known (F(c) = min δ + F(τ(c))): each successor is zero-
        # cost iff F(τ(c)) <= F(c) - δ, one search with that tight cap.
        if not self.exact and clean and not fz:
            for i in range(g.cache_n):
                if g.cache_key[i] == sig:
                    Fc = g.cache_val[i]
        if Fc >= 1:
            self._st2.resize(ls + 2)
            ok = True
            best = ORC_INF
            for t in range(T):
                L[t] = ORC_INF
                if not want[t]:
                    continue
                self.apply(t, stack, ls, b, self._st2.data(), &ls2, &b2, &h, &d)
                dl = delta_arc(g, h, d) if d >= 0 else 0
                if self.zero_future(g, self._st2.data(), ls2, b2):
                    L[t] = dl
                    EF[t] = 0
                elif Fc - dl < 1:
                    L[t] = Fc + 1
                else:
                    F2 = self.future_loss(g, self._st2.data(), ls2, b2, Fc - dl)
                    if F2 == ORC_GUARD:
                        ok = False
                        break
                    if F2 < ORC_INF:
                        L[t] = dl + F2
                        EF[t] = F2
                    else:
                        L[t] = Fc + 1
                if L[t] < best:
                    best = L[t]
            if ok and best == Fc:
                self._store_cache(gm, stack, ls, b, want, EF)
                for t in range(T):
                    out[t] = L[t] - best if want[t] else 0
                path = PATH_TABLE if g.covered else (PATH_LOCAL if self.uncovered_mode == 1
                                                     else PATH_FULL)
                self.counts[path] += 1
                self.last_path = path
                return path
            for t in range(T):
                EF[t] = -1
            self._left_budget = self.budget
        self._st2.resize(ls + 2)
        path = PATH_FAST
        if not clean:
            path = PATH_PARTIAL
        cdef int U[ORC_MAX_T]
        cdef int DL[ORC_MAX_T]
        cdef int pending_t[ORC_MAX_T]
        cdef int n_pending = 0, best_known = ORC_INF, cap, q, r, c_try
        for t in range(T):
            L[t] = ORC_INF
            if not want[t]:
                continue
            self.apply(t, stack, ls, b, self._st2.data(), &ls2, &b2, &h, &d)
            dl = delta_arc(g, h, d) if d >= 0 else 0
            DL[t] = dl
            if clean and self.zero_future(g, self._st2.data(), ls2, b2):
                L[t] = dl
                EF[t] = 0
                if dl < best_known:
                    best_known = dl
                continue
            if fz and not self.exact:
                L[t] = dl + 1        # lower bound: F(τ(c)) >= 1 (exact zero-cost set, §2.7)
                continue
            U[t] = dl + self.greedy_upper(g, self._st2.data(), ls2, b2)
            pending_t[n_pending] = t
            n_pending += 1
        # the table, successors with the smallest upper bound first (spec §2.6: L(c) is the
        # minimum over successors). Items above the cap are dropped: exact for the values
        # that matter (all of them with exact costs; else those that can reach the minimum).
        for q in range(n_pending):
            r = q
            for i in range(q + 1, n_pending):
                if U[pending_t[i]] < U[pending_t[r]]:
                    r = i
            t = pending_t[r]
            pending_t[r] = pending_t[q]
            pending_t[q] = t
            cap = U[t] - DL[t]
            if not self.exact and best_known - DL[t] < cap:
                cap = best_known - DL[t]
            if cap < 0:
                L[t] = best_known + 1    # lower bound; above the minimum
                continue
            if clean and path == PATH_FAST:
                path = PATH_TABLE if g.covered else (PATH_LOCAL if self.uncovered_mode == 1
                                                     else PATH_FULL)
            self.apply(t, stack, ls, b, self._st2.data(), &ls2, &b2, &h, &d)
            # iterative deepening on the cap (F >= 1 here): small caps keep the table tiny,
            # and most losses are small; the last try uses the full cap
            c_try = 1 if clean else cap
            while True:
                if c_try > cap:
                    c_try = cap
                F2 = self.future_loss(g, self._st2.data(), ls2, b2, c_try)
                if F2 == ORC_GUARD or F2 < ORC_INF or c_try >= cap:
                    break
                c_try *= 2
            if F2 == ORC_GUARD:
                # documented fallback: no preference between the valid moves
                for t in range(T):
                    out[t] = 0
                self.counts[PATH_GUARD] += 1
                self.last_path = PATH_GUARD
                return PATH_GUARD
            if F2 >= ORC_INF:
                L[t] = DL[t] + cap + 1   # only in training mode: F > cap, a lower bound
            else:
                L[t] = DL[t] + F2
                EF[t] = F2
            if L[t] < best_known:
                best_known = L[t]
        best = ORC_INF
        for t in range(T):
            if want[t] and L[t] < best:
                best = L[t]
        for t in range(T):
            out[t] = L[t] - best if want[t] else 0
        if not self.exact and clean:
            self._store_cache(gm, stack, ls, b, want, EF)
        self.counts[path] += 1
        self.last_path = path
        return path

    # ---- Python access (tests, benchmarks) ------------------------------------------------
    def py_costs(self, OracleGold gold, stack, int b, want=None):
        """{t: cost} for node-level stack (with 0 at the bottom) and buffer start b."""
        cdef vector[int] st
        cdef int w[ORC_MAX_T]
        cdef int out[ORC_MAX_T]
        for x in stack:
            st.push_back(x)
        for t in range(2 * self.D + 1):
            w[t] = 1 if want is None else (t in want)
        self.costs(&gold.c, st.data(), st.size(), b, w, out)
        return {t: out[t] for t in range(2 * self.D + 1) if w[t]}

    def py_future_loss(self, OracleGold gold, stack, int b):
        cdef vector[int] st
        for x in stack:
            st.push_back(x)
        self._left_budget = self.budget
        self._t_end = now_ms() + self.max_ms
        return self.future_loss(&gold.c, st.data(), st.size(), b, ORC_INF)

    def py_zero_future(self, OracleGold gold, stack, int b):
        cdef vector[int] st
        for x in stack:
            st.push_back(x)
        return bool(self.zero_future(&gold.c, st.data(), st.size(), b))

    def py_reduce(self, OracleGold gold, stack, int b, bint local=False):
        cdef vector[int] st
        for x in stack:
            st.push_back(x)
        m = self.reduce(&gold.c, st.data(), st.size(), b, local)
        return [self._rho[i] for i in range(m)]
