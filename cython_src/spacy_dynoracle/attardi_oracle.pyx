# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Exact dynamic oracle of Attardi's non-projective system of degree D (D = 2: Gómez-Rodríguez,
Sartorio & Satta, EMNLP 2014; D = 3: the generalisation of docs/specs/attardi.md §2.5), over plain
arrays.

Spec: docs/specs/attardi.md. The pieces, by spec section:

* §2.7  zero_future(σ, b): the O(n·D) test F(σ, b) == 0 (canonical static policy run from the
        configuration). Used first in every state: when the state has lost nothing, the
        zero-cost set needs no table at all.
* [ext] lower_bound() / greedy_upper() / greedy_one_more(): F is at least the number of
        orphans (words whose gold head is already attached) and at most the wrong arcs of a
        greedy completion; when they meet, no table.
* §2.3  reduce(): buffer reduction with the corrected condition 3 [fix], O(n).
* §2.4/2.5 search(): the tabular algorithm over ρ = σ·β_R for any D ≤ 3 (D = 2 is exactly
        Algorithm 1), with the paper's optional pruning of buffer-only spans; it counts only
        the wrong arcs beyond the orphans' (the excess), capped.
* §2.6  costs(): cost of every requested transition at once, L(τ(c)) − min_τ' L(τ'(c)).
* §2.9  gold trees the system cannot derive: no reduction, no pruning (exact for any tree),
        or the "local" variant that keeps the reduction for fragments whose subtree is
        derivable on its own.
* [ext] blocks: every function works on the configuration restricted to the words before the
        first cut e >= b (a position no gold arc between words crosses: the sentences of a
        spaCy Doc), see costs().

Package convention (docs/systems/attardi.md): with `root_ra1`, node 0 can only be the head of
an ra_1 (the ROOT move), never of ra_k for k >= 2. The table, the fast path and the static
policy all honour it, so the oracle is exact for that restricted system.
"""
from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector
from libcpp.utility cimport pair
from libcpp.algorithm cimport sort
from .conventions cimport word_node, spec_head
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline double now_ms() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6

DEF B = 12                  # bits per symbol in a packed item key
DEF SMALL_RHO = 12          # tables over at most this many symbols are cheap at any excess
                            #   cap: max_excess does not apply to them
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

    @property
    def cuts(self):
        """The cuts e in 1..n+1 (no gold arc between words crosses e) and, per block
        [e, next cut), whether the static policy derives it on its own."""
        return [(e, bool(self.c.block_cov[e]) if e <= self.c.n else None)
                for e in range(1, self.c.n + 2) if self.c.cut_next[e] == e]

    cdef void build(self, const int32_t* heads, int n_tokens, int D, bint root_ra1) noexcept nogil:
        """heads: token-level gold heads (a root points to itself, -1 = unknown)."""
        cdef int n = n_tokens
        cdef int x, h, i, top, k, e, lo, hi
        self._head.assign(n + 1, -1)
        self._kid_start.assign(n + 2, 0)
        self._kids.assign(n + 1, 0)
        self._post.clear()
        self._lcov.assign(n + 1, 0)
        self.c.n = n
        self.c.n_unknown = 0
        for i in range(n):
            h = heads[i] if heads[i] < n else -1    # a head past the Doc is unknown too
            self._head[word_node(i)] = spec_head(h, i, -1)
            if h < 0:
                self.c.n_unknown += 1
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
        self._cache.assign(ORC_MAX_T * (n + 5), 0)
        self.c.cache = self._cache.data()
        self.c.cache_len = 0
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
        # cuts: e is crossed by a gold arc h -> x (h, x >= 1) iff min(h, x) < e <= max(h, x)
        cdef vector[int] cross
        cross.assign(n + 3, 0)
        for x in range(1, n + 1):
            h = self._head[x]
            if h >= 1:
                lo = h if h < x else x
                hi = x if h < x else h
                cross[lo + 1] += 1
                cross[hi + 1] -= 1
        self._cut_next.assign(n + 3, n + 1)
        self._block_cov.assign(n + 2, 1)
        self._cov_before.assign(n + 2, 1)
        self._block_loss.assign(n + 2, -1)
        for e in range(1, n + 2):
            cross[e] += cross[e - 1]
        e = n + 1
        for x in range(n + 1, 0, -1):
            if cross[x] == 0:
                e = x
            self._cut_next[x] = e
        self._cut_next[0] = 1
        self.c.cut_next = self._cut_next.data()
        self.c.block_cov = self._block_cov.data()
        self.c.cov_before = self._cov_before.data()
        self.c.block_loss = self._block_loss.data()
        if self.c.covered:
            for e in range(n + 2):
                self._block_loss[e] = 0
        elif self.c.n_unknown == 0:
            k = 1                            # all blocks so far covered
            e = 1
            while e <= n:
                self._cov_before[e] = k
                self._block_cov[e] = block_covered(&self.c, e, self._cut_next[e + 1], D,
                                                   root_ra1)
                if self._block_cov[e]:
                    self._block_loss[e] = 0
                else:
                    k = 0
                e = self._cut_next[e + 1]
            self._cov_before[n + 1] = k
        else:
            for e in range(n + 2):
                self._cov_before[e] = 0
                self._block_cov[e] = 0


cdef int block_covered(const AttGold* g, int e, int e2, int D, bint root_ra1) noexcept nogil:
    """1 if the canonical static policy (docs/specs/attardi.md §1.3) derives the block of words
    [e, e2) on its own, from the stack [0] (no gold arc leaves the block but those to node 0)."""
    cdef vector[int] st, pending
    cdef int x, k, top, h, b = e
    cdef bint moved
    pending.assign(e2, 0)
    for x in range(e, e2):
        h = g.head[x]
        if h >= e:
            pending[h] += 1
    st.push_back(0)
    while True:
        if st.size() == 1 and b >= e2:
            return 1
        top = st.back()
        moved = False
        for k in range(1, D + 1):
            if <int>st.size() >= k + 2:
                x = st[st.size() - 1 - k]
                if g.head[x] == top and pending[x] == 0:
                    st.erase(st.begin() + (st.size() - 1 - k))
                    pending[top] -= 1
                    moved = True
                    break
        if moved:
            continue
        for k in range(1, D + 1):
            if <int>st.size() >= k + 1:
                h = st[st.size() - 1 - k]
                if root_ra1 and k >= 2 and h == 0:
                    continue
                if g.head[top] == h and pending[top] == 0:
                    st.pop_back()
                    if h > 0:
                        pending[h] -= 1
                    moved = True
                    break
        if moved:
            continue
        if b < e2:
            st.push_back(b)
            b += 1
            continue
        return 0


cdef int local_covered(const AttGold* g, int r, int D, bint root_ra1) noexcept nogil:
    """1 if the gold subtree of r, taken alone (its nodes in order, r hanging from a virtual
    root before them), is derived by the canonical static policy (docs/specs/attardi.md §1.3): then
    any restriction of it to an interval is derivable too (deleting nodes from a derivation only
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
                 double max_ms=0.0, bint use_bounds=True, int max_excess=1000000,
                 bint lost_bound=True):
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
        self.use_bounds = use_bounds
        self.lost_bound = lost_bound
        self.max_excess = max_excess
        self.value_share = 10
        self._t_end = 0
        self.last_path = -1
        self._hgen = 0
        self._hmask = 0
        self._left_budget = budget
        self.scratch_gold = OracleGold()
        self.reset_counts()

    PATH_NAMES = ("fast", "table", "full", "partial", "guard", "local", "bound", "lower")

    def reset_counts(self):
        for i in range(N_PATHS):
            self.counts[i] = 0
            self.path_ms[i] = 0
        self.n_searches = 0
        self._mhist.clear()
        self.n_combos = 0
        self.max_combos = 0

    def rho_histogram(self):
        """{|ρ|: number of searches} since the last reset_counts()."""
        return {m: int(c) for m, c in enumerate(self._mhist) if c}

    def path_times(self):
        """{path: milliseconds spent in costs() by the states of that path}."""
        return {name: self.path_ms[i] for i, name in enumerate(self.PATH_NAMES)}

    def stats(self):
        out = {name: self.counts[i] for i, name in enumerate(self.PATH_NAMES)}
        out.update(searches=self.n_searches, combos=self.n_combos, max_combos=self.max_combos)
        return out

    @property
    def last_path_name(self):
        return self.PATH_NAMES[self.last_path] if self.last_path >= 0 else None

    # ---- §2.7 zero-future fast path ---------------------------------------------------
    cdef int static_next(self, const AttGold* g, const int* stack, int ls, int b, int e,
                         const int* pending) noexcept nogil:
        """Canonical static policy (docs/specs/attardi.md §1.3, Cohen et al.): la_k (k = 1..D) if
        s_{k+1}'s gold head is s_1 and s_{k+1} is complete; else ra_k; else sh (buffer [b, e)); -1
        if stuck."""
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
        if b < e:
            return 0
        return -1

    cdef bint zero_future(self, const AttGold* g, const int* stack, int ls, int b,
                          int e) noexcept nogil:
        """F(σ, b) == 0 on the words before e (docs/specs/attardi.md §2.7, exact for any gold tree
        without unknown heads): the static policy completes the configuration. The greedy
        completion follows the static policy while it can and builds a wrong arc as soon as
        it cannot (or, with a premature gold arc, orphans a word that pays later), so it is
        the same test, stopped at the first wrong arc."""
        return self.greedy_run(g, stack, ls, b, e, 0, -1, 0) == 0

    # ---- §2.3 buffer reduction --------------------------------------------------------
    cdef int reduce(self, const AttGold* g, const int* stack, int ls, int b, int e,
                    bint local) noexcept nogil:
        """Fill self._rho with σ·β_R (buffer [b, e)); return m = |ρ|. Conditions 1-3 of
        docs/specs/attardi.md §2.3 ([fix]: condition 3); with `local`, a fragment is also
        required to be derivable on its own. No gold arc crosses e, so the words from e on never
        join a fragment."""
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
        for x in range(b, e):
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
        cdef HSlot* hs_
        cdef uint64_t key, akey, nkey, ashift, apre, gkey
        cdef int sa[8]
        cdef int sb[8]
        cdef int S[8]
        cdef const int* orph = self._orph.data()
        if <int>self._mhist.size() <= m:
            self._mhist.resize(m + 1, 0)
        self._mhist[m] += 1
        if m > self.max_m or self._left_budget <= 0 or (self.max_ms > 0 and
                                                        now_ms() > self._t_end):
            return ORC_GUARD
        self._cap = cap          # items worth more than cap cannot be part of a result <= cap
        self.n_searches += 1
        self._prepare_lost(g, rho, m, l)
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
                self._items.clear()
                self._gen_alpha(i, D, &self._items)
                sort(self._items.begin(), self._items.end())
                self._cur_i = i
                self._cur_j = i + 1
                for r in range(<int>self._items.size()):
                    unpack(self._items[r].first, S, 2 * D - 1)
                    if self._lost(S, D) <= cap:
                        self._keys.push_back(self._items[r].first)
                        self._vals.push_back(0)
            self._clen[cell] = self._keys.size() - self._cstart[cell]
        for ln in range(2, m + 1):
            i = l - ln
            if i < 0:
                i = 0
            while i <= m - ln:
                j = i + ln
                self._cur_i = i
                self._cur_j = j
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
                        apre = (key >> ashift) << ashift  # α of every item made here
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
                                        gkey = 0
                                        for a0 in range(D + 1):
                                            if a0 != D - q:
                                                gkey = (gkey << B) | <uint64_t>S[a0]
                                        self._add(apre | gkey, v + (0 if orph[dp] & 1 else dl))
                                # ra_q: arc S[D-q] -> S[D], pop S[D]
                                hs = S[D - q]
                                ds = S[D]
                                if hs != 0 and ds > 1 and not (self.root_ra1 and q >= 2 and hs == 1):
                                    hd = rho[hs - 1]
                                    dp = rho[ds - 1]
                                    dl = delta_arc(g, hd, dp)
                                    if not (prune and i >= l and dl and hs - 1 >= l
                                            and g.head[dp] >= self._b_cur):
                                        gkey = 0
                                        for a0 in range(D):
                                            gkey = (gkey << B) | <uint64_t>S[a0]
                                        self._add(apre | gkey, v + (0 if orph[dp] & 1 else dl))
                    if combos > self._left_budget or (self.max_ms > 0 and now_ms() > self._t_end):
                        self._tally(combos)
                        self._left_budget = 0        # no further table in this state
                        return ORC_GUARD
                    k += 1
                # dump the accumulated items of T[i][j], sorted
                cell = i * W + j
                self._cstart[cell] = self._keys.size()
                self._items.clear()
                for r in range(<int>self._hused.size()):
                    hs_ = &self._htab[self._hused[r]]
                    if hs_.val + hs_.lost <= self._cap:    # see _add
                        self._items.push_back(pair[uint64_t, int](hs_.key, hs_.val))
                sort(self._items.begin(), self._items.end())
                for r in range(<int>self._items.size()):
                    self._keys.push_back(self._items[r].first)
                    self._vals.push_back(self._items[r].second)
                self._clen[cell] = self._items.size()
                i += 1
        self._tally(combos)
        self._left_budget -= combos
        # result: T[0][m][(pad, pad + (0,))], whose packed key is 1
        cell = 0 * W + m
        for p in range(self._cstart[cell], self._cstart[cell] + self._clen[cell]):
            if self._keys[p] == 1:
                return self._vals[p]
        return ORC_INF


    # ---- bounds of F ------------------------------------------------------------------------
    cdef int lower_bound(self, const AttGold* g, const int* stack, int ls, int b,
                         int e) noexcept nogil:
        """|O|, the orphans of (σ, b) before e: words on the stack or in the buffer whose gold
        head is known and already attached (neither on the stack nor in the buffer). Every
        completion gives each of them a wrong head, so F(σ, b) >= |O| ([ext], exact). Marks
        them in self._orph (bit 1; bit 2 = on the stack) for search(), which counts only the
        excess."""
        cdef int n = g.n
        cdef int i, x, h, cnt = 0
        self._orph.assign(n + 1, 0)
        for i in range(ls):
            self._orph[stack[i]] = 2
        for i in range(1, ls):
            x = stack[i]
            h = g.head[x]
            if 0 <= h < b and not (self._orph[h] & 2):
                self._orph[x] |= 1
                cnt += 1
        for x in range(b, e):
            h = g.head[x]
            if 0 <= h < b and not (self._orph[h] & 2):
                self._orph[x] |= 1
                cnt += 1
        return cnt

    cdef int greedy_upper(self, const AttGold* g, const int* stack, int ls, int b,
                          int e) noexcept nogil:
        """An upper bound of F(σ, b): the wrong arcs of one complete computation ([ext]): the
        static policy's gold moves; else remove a complete word that can no longer get its
        gold head (its head is attached, or unknown: its arc is wrong whatever it is, and
        removing it only shortens stack distances), LEFT_k before RIGHT; else SHIFT; else
        RIGHT onto s2. It reaches the lower bound |O| whenever F does (checked exhaustively,
        like the fast path: tests/test_attardi.py), so with lower_bound it decides F = |O|
        without a table, and F >= |O| + 1 otherwise."""
        return self.greedy_run(g, stack, ls, b, e, 0, -1, ORC_INF)

    cdef int greedy_one_more(self, const AttGold* g, const int* stack, int ls, int b, int e,
                             int target) noexcept nogil:
        """<= target if some computation with one special move on top of the greedy policy
        builds at most target wrong arcs, else ORC_INF ([ext], an upper bound only). The
        special move, made at its first chance: give a complete word x a wrong head, or
        attach a word x to its gold head (any head, when that is gone) before x is complete
        (its missing dependents become orphans). One greedy run per candidate word, stopped
        as soon as it exceeds target."""
        cdef int x, i, r
        for i in range(1, ls + e - b):
            x = stack[i] if i < ls else b + i - ls
            r = self.greedy_run(g, stack, ls, b, e, 1, x, target)
            if r <= target:
                return r
            r = self.greedy_run(g, stack, ls, b, e, 2, x, target)
            if r <= target:
                return r
        return ORC_INF

    cdef int greedy_run(self, const AttGold* g, const int* stack, int ls, int b, int e,
                        int kind, int node, int limit) noexcept nogil:
        """One complete computation from (σ, b) on the words before e, its number of wrong
        arcs (limit + 1 as soon as it exceeds limit). kind 0: greedy_upper's policy; kind 1:
        also give `node` a wrong head as soon as it is complete and within reach; kind 2:
        also attach `node` as soon as its gold head (any head if its gold head is gone) is
        within reach. Touches only the words of the configuration and their heads, so it
        costs O(|σ| + e - b) whatever the length of the document."""
        cdef int i, x, t, k, d, h, wrong = 0
        cdef int* pend
        cdef int* alive
        cdef int* st
        if <int>self._gpend.size() < g.n + 1:
            self._gpend.assign(g.n + 1, 0)      # outside a run both are all zero
            self._alive.assign(g.n + 1, 0)
        pend = self._gpend.data()
        alive = self._alive.data()
        self._gst.resize(ls + e - b + 1)
        st = self._gst.data()
        for i in range(ls):
            st[i] = stack[i]
            alive[stack[i]] = 1
        for x in range(b, e):
            alive[x] = 1
        for i in range(1, ls):
            h = g.head[stack[i]]
            if h >= 0:
                pend[h] += 1
        for x in range(b, e):
            h = g.head[x]
            if h >= 0:
                pend[h] += 1
        while True:
            if ls == 1 and b >= e:
                break
            t = self.static_next(g, st, ls, b, e, pend)
            if t <= 0 and kind != 0 and alive[node]:
                # the special move, at its first chance
                h = g.head[node]
                if kind == 1 and pend[node] == 0:
                    if st[ls - 1] == node and ls >= 2:
                        t = 2
                    else:
                        for k in range(1, self.D + 1):
                            if ls >= k + 2 and st[ls - 1 - k] == node:
                                t = 2 * k - 1
                                break
                elif kind == 2:
                    if st[ls - 1] == node:
                        for k in range(1, self.D + 1):
                            if ls >= k + 1 and (h < 0 or not alive[h] or st[ls - 1 - k] == h):
                                if not (self.root_ra1 and k >= 2 and st[ls - 1 - k] == 0):
                                    t = 2 * k
                                    break
                    elif h < 0 or not alive[h] or st[ls - 1] == h:
                        for k in range(1, self.D + 1):
                            if ls >= k + 2 and st[ls - 1 - k] == node:
                                t = 2 * k - 1
                                break
            if t <= 0:
                # no gold move: a complete dead word first (LEFT_k, k = 1..D, then RIGHT)
                for k in range(1, self.D + 1):
                    if ls >= k + 2:
                        x = st[ls - 1 - k]
                        h = g.head[x]
                        if pend[x] == 0 and (h < 0 or not alive[h]):
                            t = 2 * k - 1
                            break
                if t <= 0 and ls >= 2:
                    x = st[ls - 1]
                    h = g.head[x]
                    if pend[x] == 0 and (h < 0 or not alive[h]):
                        t = 2
                if t < 0:
                    t = 2
            if t == 0:
                st[ls] = b
                ls += 1
                b += 1
                continue
            if t % 2 == 1:
                k = (t + 1) // 2
                h = st[ls - 1]
                d = st[ls - 1 - k]
                for i in range(ls - 1 - k, ls - 1):
                    st[i] = st[i + 1]
            else:
                k = t // 2
                h = st[ls - 1 - k]
                d = st[ls - 1]
            ls -= 1
            wrong += delta_arc(g, h, d)
            alive[d] = 0
            if g.head[d] >= 0:
                pend[g.head[d]] -= 1
            if wrong > limit:
                wrong = limit + 1
                break
        # leave both arrays all zero: the words still alive, and the heads of all words
        for i in range(ls):
            alive[st[i]] = 0
            pend[st[i]] = 0
        for i in range(1, ls):
            h = g.head[st[i]]
            if h >= 0:
                pend[h] = 0
        for x in range(b, e):
            alive[x] = 0
            h = g.head[x]
            if h >= 0:
                pend[h] = 0
        return wrong

    # ---- F of a configuration ----------------------------------------------------------
    cdef int future_loss(self, const AttGold* g, const int* stack, int ls, int b, int e,
                         int cap, int flo) noexcept nogil:
        """F(σ, b) on the words before e, by the table, if F <= cap; else ORC_INF (ORC_GUARD:
        the guard stopped it). F = |O| + the excess: the table counts only wrong arcs of
        non-orphans (an orphan's arc costs 1 whatever its head, see lower_bound), and runs
        with iterative deepening on the excess cap (x, 2x + 1, ..., from the excess x that
        the known lower bound flo of F leaves): small caps keep it tiny. The reduction and pruning only
        where they are exact: the gold before e is covered (every block before e is)."""
        cdef int m, r, x, ex, emax
        cdef bint prune
        cdef int lb = self.lower_bound(g, stack, ls, b, e)
        if lb > cap:
            return ORC_INF
        self._b_cur = b
        if g.n_unknown == 0 and g.cov_before[e]:
            m = self.reduce(g, stack, ls, b, e, False)
            prune = self.prune
        elif g.n_unknown == 0 and self.uncovered_mode == 1:
            m = self.reduce(g, stack, ls, b, e, True)
            prune = False
        else:
            self._rho.assign(stack, stack + ls)
            for x in range(b, e):
                self._rho.push_back(x)
            m = self._rho.size()
            prune = False
        emax = cap - lb
        ex = flo - lb if flo > lb else 0
        while True:
            if ex > emax:
                ex = emax
            if ex > self.max_excess and m > SMALL_RHO:
                return ORC_GUARD    # the guard: tables grow fast with the excess cap
            r = self.search(g, self._rho.data(), m, ls, prune, ex)
            if r == ORC_GUARD:
                return ORC_GUARD
            if r < ORC_INF:
                return lb + r
            if ex >= emax:
                return ORC_INF
            ex = 2 * ex + 1

    cdef int block_loss(self, AttGold* g, int e) noexcept nogil:
        """F([0], e) of the block starting at the cut e, alone: 0 if the static policy derives
        it, else by the table (once per gold, kept in g.block_loss); ORC_GUARD if the guard
        stopped it."""
        cdef int zero = 0
        cdef int F
        if g.block_loss[e] >= 0:
            return g.block_loss[e]
        F = self.future_loss(g, &zero, 1, e, g.cut_next[e + 1], ORC_INF, 1)
        if F != ORC_GUARD:
            g.block_loss[e] = F
        return F

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
        path used (PATH_*). want[] must only name legal transitions.

        Blocks ([ext]): with e the first cut >= b, F(σ, b) = F_e(σ, b) + Σ F of the blocks
        from e on, each alone (no gold arc crosses e: any computation restricted to the
        words before e, or to those after, is a computation of that part with no more wrong
        arcs, moves onto a missing word replaced by one onto a word still there; and the two
        optimal parts run one after the other). The blocks after e are common to every
        successor except SHIFT when b == e, which moves the block of b into the first part:
        its own loss alone (0 when covered) is subtracted from that successor's value. So
        everything below runs on the words before the first cut only, not on the whole Doc.

        Per successor τ(c) (docs/specs/attardi.md §2.6: L(τ(c)) = δ(τ) + F(τ(c)), costs are L minus
        the minimum): F = 0 by the fast path (§2.7); else F is between the orphan count (+ 1
        when the greedy completion misses it) and a greedy completion ([ext]), also at least
        F(c) - δ(τ) when the previous state left F(c) in the gold's cache (L never decreases
        along a computation); only when the bounds differ does the table run, capped below
        the upper bound. With `exact` every value is exact; otherwise the zero-cost set is
        exact and the other costs are lower bounds >= 1.

        The guard: a table over more than max_rho symbols is not run, nor any table once the
        state's budget of combinations or max_ms is spent; the state then gets the costs the
        bounds prove (path `guard`): max(0, lower bound of L(τ(c)) - smallest upper bound),
        i.e. 0 for every move that may be optimal, and for the others a lower bound >= 1 of
        their cost. Sound (never a preference against an optimal move), less informative."""
        cdef int T = 2 * self.D + 1
        cdef int t, q, r, i, ls2, b2, e2, h, d, base, lo, hi, F2, cap, best, path, M, bk, bl
        cdef int Llo[ORC_MAX_T]              # lower and upper bounds of L(τ(c)) relative to
        cdef int Lhi[ORC_MAX_T]              #   the blocks after e; equal when exact
        cdef int DL[ORC_MAX_T]
        cdef int EF[ORC_MAX_T]
        cdef int pend[ORC_MAX_T]
        cdef int n_pend, best_known
        cdef bint guarded, lower
        cdef int best_hi, lim, phase
        cdef int ra_F, ra_Fmin              # F of the successor every ra_k shares (below)
        cdef long main_left, used
        cdef long bad_left = self.budget // self.value_share
        cdef bint deep = ls - 1 > self.max_m     # every successor's stack is over max_rho
        cdef bint clean = g.n_unknown == 0
        cdef int e = g.cut_next[b]
        cdef bint fz = clean and self.zero_future(g, stack, ls, b, e)
        cdef bint train = not self.exact
        cdef AttGold* gm = <AttGold*>g
        cdef double t_start = now_ms()
        self._left_budget = self.budget      # the guard's budget is per state, all searches
        self._t_end = t_start + self.max_ms
        self._st2.resize(ls + 2)
        M = self._cached(g, stack, ls, b) if (clean and not fz) else -1
        while True:
            path = PATH_FAST if clean else PATH_PARTIAL
            n_pend = 0
            guarded = False
            lower = False
            best_known = ORC_INF             # smallest exact L found so far
            best_hi = ORC_INF                # smallest upper bound (deep states)
            # ra_1 .. ra_D all pop s0: one successor configuration (only the arc, so δ,
            # differs), so one F. Its exact value (ra_F, -1 = not known) or a lower bound
            # (ra_Fmin, from a table that found F above its cap) serves every ra_k: no
            # table is run twice for it (15% of degree 3's combinations on Bosque,
            # docs/long_sentences.md)
            ra_F = -1
            ra_Fmin = 0
            for t in range(T):
                Llo[t] = ORC_INF
                Lhi[t] = ORC_INF
                EF[t] = -1
                if not want[t]:
                    continue
                self.apply(t, stack, ls, b, self._st2.data(), &ls2, &b2, &h, &d)
                e2 = g.cut_next[b2]
                base = delta_arc(g, h, d) if d >= 0 else 0
                bl = 0
                if t == 0 and b == e and not g.block_cov[b]:
                    # SHIFT into the next block: F(τ(c)) counts that block, which F(c)
                    # counts in the blocks after e (all values here are relative to them)
                    bl = self.block_loss(gm, b)
                    if bl == ORC_GUARD:
                        return self._guard(T, out)
                    base -= bl
                DL[t] = base
                if fz and train and bl == 0:
                    if clean and self.zero_future(g, self._st2.data(), ls2, b2, e2):
                        Llo[t] = base
                        Lhi[t] = base
                        EF[t] = 0
                    else:
                        # lower bound: F(τ(c)) >= 1, and the minimum is 0 (§2.7)
                        Llo[t] = base + 1
                        continue
                elif deep:
                    # no table can run (the stack alone is over max_rho), so the state only
                    # gets the costs its bounds prove, which read the smallest upper bound:
                    # a greedy run stops as soon as it cannot beat the best one so far
                    lo = self.lower_bound(g, self._st2.data(), ls2, b2, e2)
                    lim = best_hi - base if best_hi < ORC_INF else ORC_INF
                    hi = self.greedy_run(g, self._st2.data(), ls2, b2, e2, 0, -1, lim) if lim >= 0 else 1
                    if path == PATH_FAST and hi > 0:
                        path = PATH_BOUND
                    if hi > lim:
                        hi = ORC_INF                 # greedy > lim >= ... : unknown
                    if hi == 0:
                        lo = 0
                    elif clean and self.use_bounds and lo < (hi if hi < ORC_INF else lim + 1):
                        lo += 1      # the greedy completion reaches |O| whenever F does
                    if fz and lo == 0 and hi > 0 and lim >= 0:
                        lo = 1       # F(c) = 0, greedy run: not zero-future, so F >= 1 (below)
                    if M >= 0 and M - base > lo:
                        lo = M - base
                    Llo[t] = base + lo
                    Lhi[t] = base + hi if hi < ORC_INF else ORC_INF
                    if Lhi[t] < best_hi:
                        best_hi = Lhi[t]
                    if lo < hi:
                        # F(c) = 0 (fz): the zero-future successors, found exactly here, are
                        # the zero-cost set and this one is not among them (lo >= 1 above, or
                        # δ above the best upper bound), so only its value is a bound:
                        # `lower`, not `guard`, as with exact_costs=False, which takes the fz
                        # shortcut above (the same zero-cost set and guard status in both
                        # modes: docs/systems/attardi.md, "Cost values")
                        if fz:
                            lower = True
                        else:
                            guarded = True
                        continue
                    EF[t] = lo
                else:
                    # greedy_upper == 0 iff F == 0 (zero_future is its first wrong arc)
                    hi = self.greedy_upper(g, self._st2.data(), ls2, b2, e2)
                    lo = 0 if hi == 0 else self.lower_bound(g, self._st2.data(), ls2, b2, e2)
                    if path == PATH_FAST and hi > 0:
                        path = PATH_BOUND
                    if lo < hi and clean and self.use_bounds:
                        lo += 1      # the greedy completion reaches |O| whenever F does
                    if fz and lo == 0 and hi > 0:
                        # F(c) = 0 and this successor is not zero-future, so F >= 1: it is
                        # no candidate for phase 0 (which exact_costs=False's fz shortcut
                        # never runs either; matters only with bounds=False)
                        lo = 1
                    if M >= 0 and M - base > lo:
                        lo = M - base
                    if (lo < hi and self.use_bounds and ls2 + e2 - b2 <= self.max_m and
                            self.greedy_one_more(g, self._st2.data(), ls2, b2, e2, lo) <= lo):
                        hi = lo
                    Llo[t] = base + lo
                    Lhi[t] = base + hi
                    if lo < hi:
                        pend[n_pend] = t
                        n_pend += 1
                        continue
                    EF[t] = lo
                if Lhi[t] < best_known:
                    best_known = Lhi[t]
            # the table for the others, smallest upper bound first. Phase 0 finds the
            # zero-cost set: a successor is searched only up to the minimum (known from the
            # cache, else the best exact value so far), so one shown to be above it keeps a
            # lower bound. Phase 1 (exact costs only) then gives those their exact values,
            # their tables sharing a tenth of the state's budget (they are not needed for
            # the zero-cost set, and deep searches of bad moves are the expensive ones).
            for q in range(n_pend):
                r = q
                for i in range(q + 1, n_pend):
                    if Lhi[pend[i]] < Lhi[pend[r]]:
                        r = i
                t = pend[r]
                pend[r] = pend[q]
                pend[q] = t
            for phase in range(1 if train else 2):
                if guarded:
                    break
                for q in range(n_pend):
                    if guarded:
                        # the state ends `guard`: its costs are what the bounds prove (with
                        # what the tables run so far added), not exact whatever follows, so
                        # no further table (a quarter of degree 3's combinations on the
                        # Bosque walk of docs/long_sentences.md went to such states)
                        break
                    t = pend[q]
                    if EF[t] >= 0 or (phase == 1 and Llo[t] >= ORC_INF):
                        continue
                    if t > 0 and t % 2 == 0:
                        if ra_F >= 0:                # known from another ra_k
                            Llo[t] = DL[t] + ra_F
                            Lhi[t] = Llo[t]
                            EF[t] = ra_F
                            if Llo[t] < best_known:
                                best_known = Llo[t]
                            continue
                        if DL[t] + ra_Fmin > Llo[t]:
                            Llo[t] = DL[t] + ra_Fmin
                            if Llo[t] >= Lhi[t]:     # the bounds meet
                                Llo[t] = Lhi[t]
                                EF[t] = Lhi[t] - DL[t]
                                if Llo[t] < best_known:
                                    best_known = Llo[t]
                                continue
                    bk = M if M >= 0 else best_known
                    if phase == 0:
                        if Llo[t] > bk:
                            continue         # a lower bound above the minimum
                        if M >= 0 and Lhi[t] <= M:
                            Llo[t] = M       # M <= L <= HI <= M
                            Lhi[t] = M
                            EF[t] = M - DL[t]
                            continue
                        cap = (Lhi[t] - 1 if Lhi[t] - 1 < bk else bk) - DL[t]
                    else:
                        cap = Lhi[t] - 1 - DL[t]
                    self.apply(t, stack, ls, b, self._st2.data(), &ls2, &b2, &h, &d)
                    e2 = g.cut_next[b2]
                    if ls2 > self.max_m:     # ρ holds the stack: over the size guard
                        if phase == 0:
                            guarded = True
                        else:
                            lower = True
                        continue
                    main_left = self._left_budget
                    if phase == 1:
                        self._left_budget = bad_left if bad_left < main_left else main_left
                    used = self._left_budget
                    F2 = self.future_loss(g, self._st2.data(), ls2, b2, e2, cap,
                                          Llo[t] - DL[t])
                    if t > 0 and t % 2 == 0:
                        if 0 <= F2 < ORC_INF:
                            ra_F = F2
                        elif F2 == ORC_INF and cap + 1 > ra_Fmin:
                            ra_Fmin = cap + 1        # F > cap
                    if F2 != ORC_GUARD:
                        used -= self._left_budget
                    if phase == 1:
                        bad_left -= used
                        self._left_budget = main_left - used
                    if F2 == ORC_GUARD:      # left with its bounds
                        if phase == 0:
                            guarded = True
                        else:
                            lower = True     # a suboptimal move: the zero-cost set is exact
                        continue
                    if path == PATH_FAST or path == PATH_BOUND:
                        path = (PATH_TABLE if g.cov_before[e2] else
                                (PATH_LOCAL if self.uncovered_mode == 1 else PATH_FULL))
                    if F2 < ORC_INF:
                        Llo[t] = DL[t] + F2
                        Lhi[t] = Llo[t]
                        EF[t] = F2
                    elif DL[t] + cap == Lhi[t] - 1:
                        Llo[t] = Lhi[t]      # HI - 1 < L <= HI
                        EF[t] = Lhi[t] - DL[t]
                    else:
                        Llo[t] = bk + 1      # F > bk - δ: above the minimum
                    if EF[t] >= 0 and Llo[t] < best_known:
                        best_known = Llo[t]
            if guarded:
                best = ORC_INF
                for t in range(T):
                    if want[t] and Lhi[t] < best:
                        best = Lhi[t]
                for t in range(T):
                    out[t] = (Llo[t] - best if Llo[t] > best else 0) if want[t] else 0
                path = PATH_GUARD
                break
            best = ORC_INF
            for t in range(T):
                if want[t] and Llo[t] < best:
                    best = Llo[t]
            if M < 0 or best == M:
                for t in range(T):
                    out[t] = Llo[t] - best if want[t] else 0
                if lower:
                    path = PATH_LOWER        # as exact_costs=False: exact zero-cost set
                break
            M = -1      # (cannot happen: the cache holds exact values of this very state)
            self._left_budget = self.budget
        if clean:
            self._store_cache(gm, stack, ls, b, want, EF, out)
        self.counts[path] += 1
        self.path_ms[path] += now_ms() - t_start
        self.last_path = path
        return path

    cdef int _guard(self, int T, int* out) noexcept nogil:
        """The documented fallback when the guard stops a search: no preference between the
        valid moves (every cost 0), counted."""
        for t in range(T):
            out[t] = 0
        self.counts[PATH_GUARD] += 1
        self.last_path = PATH_GUARD
        return PATH_GUARD

    cdef int _cached(self, const AttGold* g, const int* stack, int ls, int b) noexcept nogil:
        """F of this configuration (on the words before its first cut) if the previous state
        stored it (it is one of that state's successors), else -1."""
        cdef int p = 0
        cdef int i, n
        cdef bint same
        while p < g.cache_len:
            n = g.cache[p + 2]
            if g.cache[p + 1] == b and n == ls:
                same = True
                for i in range(ls):
                    if g.cache[p + 3 + i] != stack[i]:
                        same = False
                        break
                if same:
                    return g.cache[p]
            p += 3 + n
        return -1

    cdef void _store_cache(self, AttGold* g, const int* stack, int ls, int b, const int* want,
                           const int* EF, const int* out) noexcept nogil:
        """Keep in the gold the exact F (words before the first cut) of this state's
        zero-cost successors, for the next state of the same document ([ext]). Only those:
        the exact values of suboptimal successors exist with exact costs only, and a cached
        F feeds the next state's bounds, search caps and so its guard (costs()), so caching
        them would make the zero-cost set of guard states depend on exact_costs; this way
        exact_costs changes the values of suboptimal moves and nothing else
        (docs/systems/attardi.md, "Cost values")."""
        cdef int t, ls2, b2, h, d, i
        cdef int p = 0
        g.cache_len = 0
        if g.cache == NULL:
            return
        for t in range(2 * self.D + 1):
            if want[t] and EF[t] >= 0 and out[t] == 0:
                self.apply(t, stack, ls, b, self._st2.data(), &ls2, &b2, &h, &d)
                g.cache[p] = EF[t]
                g.cache[p + 1] = b2
                g.cache[p + 2] = ls2
                for i in range(ls2):
                    g.cache[p + 3 + i] = self._st2[i]
                p += 3 + ls2
        g.cache_len = p

    cdef void _tally(self, long combos) noexcept nogil:
        self.n_combos += combos
        if combos > self.max_combos:
            self.max_combos = combos

    cdef void _add(self, uint64_t key, int v) noexcept nogil:
        """Accumulate the item of packed key (α: D-1 symbols, γ: D) with value v in the
        cell being built.
        The lost-dependents test (v + _lost <= cap) is made once per key, when the cell is
        dumped: _lost depends on the item and the cell only, so the smallest v of a key
        passes it iff any of its values does. So every candidate key is kept with its
        _lost, computed at its first sight only (a pruned key is made again by many
        combinations; _lost was the largest cost of the table on degree 3,
        docs/long_sentences.md)."""
        cdef int s[8]
        cdef int slot
        cdef HSlot* tab = self._htab.data()
        cdef int gen = self._hgen
        cdef int mask = self._hmask
        if v > self._cap:
            return
        slot = <int>(((key * <uint64_t>0x9E3779B97F4A7C15) >> 32) & <uint64_t>mask)
        while tab[slot].stamp == gen:                # _hput's probe
            if tab[slot].key == key:
                if v < tab[slot].val:
                    tab[slot].val = v
                return
            slot = (slot + 1) & mask
        unpack(key, s, 2 * self.D - 1)
        self._hput(key, v, self._lost(s, self.D))

    cdef void _prepare_lost(self, const AttGold* g, const int* rho, int m, int l) noexcept nogil:
        """For _lost: hp[p] = position in ρ of the gold head of ρ[p] (-1: unknown, an orphan,
        or not in ρ); pre[j·(m+1) + q] = the number of words at positions >= j whose gold
        head is at a position < q; below[a·(m+1) + q] = the number of words at positions
        1 .. a-1 whose gold head is at a position < q; and for a buffer position i (>= l),
        left[i·(m+1) + q] = the number of words at positions < q whose gold head is at a
        position >= i."""
        cdef int p, q, h, i, W1 = m + 1
        cdef const int* orph = self._orph.data()
        self._m1 = W1
        self._cur_l = l
        self._pos.assign(g.n + 1, -1)
        for p in range(m):
            self._pos[rho[p]] = p
        self._hp.assign(m, -1)
        for p in range(m):
            h = g.head[rho[p]]
            if h >= 0 and not (orph[rho[p]] & 1):
                self._hp[p] = self._pos[h]
        self._cntp.assign(m + 1, 0)
        self._pre.resize(W1 * W1)
        for p in range(m, -1, -1):
            if p < m and self._hp[p] >= 0:
                self._cntp[self._hp[p]] += 1
            self._pre[p * W1] = 0
            for q in range(m):
                self._pre[p * W1 + q + 1] = self._pre[p * W1 + q] + self._cntp[q]
        self._cntp.assign(m + 1, 0)
        self._below.resize(W1 * W1)
        for p in range(m + 1):
            if p >= 2 and self._hp[p - 1] >= 0:     # word p-1 joins positions 1 .. p-1
                self._cntp[self._hp[p - 1]] += 1
            self._below[p * W1] = 0
            for q in range(m):
                self._below[p * W1 + q + 1] = self._below[p * W1 + q] + self._cntp[q]
        self._left.resize(W1 * W1)
        for i in range(l, m):
            self._left[i * W1] = 0
            for q in range(m):
                self._left[i * W1 + q + 1] = self._left[i * W1 + q] + (1 if self._hp[q] >= i else 0)

    cdef int _lost(self, const int* s, int D) noexcept nogil:
        """A lower bound of the excess still to come for an item of the cell being built,
        [i, j) = [_cur_i, _cur_j), with symbols s (α: D-1, then γ: D; symbol = position + 1,
        0 = $) ([ext], exact pruning). The positions R = [α_0, j) \\ γ (α_0 the lowest α
        symbol; node 0 excepted) are off the stack at the end of the span for good (between
        adjacent stack symbols, or reduced inside it). Each non-orphan word counted below
        gets a wrong head outside the span (so not in the item's value), and the four sets
        are disjoint (by position: >= j or in γ; in R; before α_0):
        * shifted later (at positions >= j) or still on the stack (in γ), gold head in R;
        * before α_0, gold head in H: a span starting at a stack position i has exactly the
          stack before α below it, untouched, so H = R; one starting at a buffer position i
          (>= l) has below α the words before α_0 that are not reduced yet, and each of
          those words either was reduced before i was shifted (a head before i) or is still
          on the stack after the span: a wrong head either way if its gold head is in
          H = [i, j) \\ γ (reduced in the span, or shifted after it);
        * (buffer spans) between α_0 and i and not in α: reduced before i was shifted, so
          with a head before i, wrong if the gold head is at i or later."""
        cdef int i = self._cur_i
        cdef int j = self._cur_j
        cdef int W1 = self._m1
        cdef const int* row = self._pre.data() + j * W1
        cdef const int* bl
        cdef int a0 = -1
        cdef int q, r, u, hx, tot, h0
        cdef bint dup
        if not self.lost_bound:
            return 0
        for q in range(D - 1):
            if s[q] != 0:
                a0 = s[q] - 1
                break
        if D == 1:
            a0 = i
        elif a0 < 0:
            a0 = 0
        bl = self._below.data() + a0 * W1
        h0 = a0 if i < self._cur_l else i    # H = [h0, j) \ γ (node 0 excepted)
        tot = row[j] - row[a0] + bl[j] - bl[h0]
        if a0 == 0:
            tot -= row[1] - row[0]               # node 0 never leaves the stack
        if h0 == 0:
            tot -= bl[1] - bl[0]
        for q in range(D - 1, 2 * D - 1):
            u = s[q] - 1
            if u < a0 or u >= j or u == 0:
                continue
            dup = False
            for r in range(D - 1, q):
                if s[r] == s[q]:
                    dup = True
            if not dup:
                tot -= row[u + 1] - row[u]
                if u >= h0:
                    tot -= bl[u + 1] - bl[u]
        if i >= self._cur_l and D >= 2:
            tot += self._left[i * W1 + i] - self._left[i * W1 + a0 + 1]
            for q in range(D - 1):
                r = s[q] - 1
                if r > a0 and self._hp[r] >= i:
                    tot -= 1
        for q in range(D - 1, 2 * D - 1):
            u = s[q] - 1
            if u < 0:
                continue
            dup = False
            for r in range(D - 1, q):
                if s[r] == s[q]:
                    dup = True
            if dup:
                continue
            hx = self._hp[u]
            if hx < a0 or hx >= j or hx == 0:
                continue
            for r in range(D - 1, 2 * D - 1):
                if s[r] == hx + 1:
                    hx = -1
                    break
            if hx >= 0:
                tot += 1
        return tot

    cdef void _hclear(self) noexcept nogil:
        """Empty the accumulator for a new cell: a new generation, and the smallest mask (a
        slot array grown for one large cell would spread a small one over many cache
        lines)."""
        cdef int i
        self._hgen += 1
        self._hused.clear()
        self._hmask = 1023
        if <int>self._htab.size() < 1024:
            self._htab.resize(1024)
            for i in range(1024):
                self._htab[i].stamp = 0
        if self._hgen > (1 << 30):           # no stale stamp may ever equal a generation
            for i in range(<int>self._htab.size()):
                self._htab[i].stamp = 0
            self._hgen = 1

    cdef void _hput(self, uint64_t key, int v, int lost) noexcept nogil:
        """Insert a key that is not in the cell yet (value v, its _lost)."""
        cdef uint64_t h
        cdef int slot, i, n, old_n
        cdef vector[HSlot] live
        if <int>self._hused.size() * 2 >= self._hmask:
            # grow x4 (a new generation over a larger mask) and re-insert the live slots
            for i in range(<int>self._hused.size()):
                live.push_back(self._htab[self._hused[i]])
            n = (self._hmask + 1) * 4
            old_n = self._htab.size()
            if n > old_n:
                self._htab.resize(n)
                for i in range(old_n, n):
                    self._htab[i].stamp = 0
            self._hmask = n - 1
            self._hgen += 1
            self._hused.clear()
            for i in range(<int>live.size()):
                self._hput(live[i].key, live[i].val, live[i].lost)
        h = key * <uint64_t>0x9E3779B97F4A7C15
        slot = <int>((h >> 32) & <uint64_t>self._hmask)
        while self._htab[slot].stamp == self._hgen:
            slot = (slot + 1) & self._hmask
        self._htab[slot].stamp = self._hgen
        self._htab[slot].key = key
        self._htab[slot].val = v
        self._htab[slot].lost = lost
        self._hused.push_back(slot)

    cdef void _gen_alpha(self, int i, int D, vector[pair[uint64_t, int]]* out) noexcept nogil:
        """Initial items of a buffer position i (docs/specs/attardi.md §2.5): every α that can be
        the top D-1 symbols of a stack $..$ 0 S (S increasing in 1..i-1), with γ = α + (i)."""
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

    def py_future_loss(self, OracleGold gold, stack, int b, bint whole=True):
        """F(σ, b) by the table: of the whole document (the blocks after the first cut >= b
        added, each alone), or with whole=False of the words before that cut only."""
        cdef vector[int] st
        cdef int e = gold.c.cut_next[b]
        cdef int F, x
        for x in stack:
            st.push_back(x)
        self._left_budget = self.budget
        self._t_end = now_ms() + self.max_ms
        F = self.future_loss(&gold.c, st.data(), st.size(), b, e, ORC_INF, 0)
        while whole and F >= 0 and e <= gold.c.n:
            x = self.block_loss(&gold.c, e)
            if x < 0:
                return x
            F += x
            e = gold.c.cut_next[e + 1]
        return F

    def py_bounds(self, OracleGold gold, stack, int b):
        """(orphan count, greedy completion, greedy_one_more(|O| + 1)) on the words before
        the first cut >= b: bounds of that part of F(σ, b)."""
        cdef vector[int] st
        cdef int e = gold.c.cut_next[b]
        for x in stack:
            st.push_back(x)
        lo = self.lower_bound(&gold.c, st.data(), st.size(), b, e)
        hi = self.greedy_upper(&gold.c, st.data(), st.size(), b, e)
        return lo, hi, self.greedy_one_more(&gold.c, st.data(), st.size(), b, e, lo + 1)

    def py_zero_future(self, OracleGold gold, stack, int b):
        """F(σ, b) == 0: the words before the first cut e >= b, and every block from e on."""
        cdef vector[int] st
        cdef int e = gold.c.cut_next[b]
        for x in stack:
            st.push_back(x)
        ok = self.zero_future(&gold.c, st.data(), st.size(), b, e)
        while ok and e <= gold.c.n:
            ok = gold.c.block_cov[e] == 1
            e = gold.c.cut_next[e + 1]
        return bool(ok)

    def py_reduce(self, OracleGold gold, stack, int b, bint local=False):
        """ρ = σ·β_R over the whole buffer (no block split), docs/specs/attardi.md §2.3."""
        cdef vector[int] st
        for x in stack:
            st.push_back(x)
        m = self.reduce(&gold.c, st.data(), st.size(), b, gold.c.n + 1, local)
        return [self._rho[i] for i in range(m)]
