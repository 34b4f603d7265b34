# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Oracles of the swap system (Björkelund & Nivre 2015, "BN15") over plain arrays.
Spec: docs/specs/swap.md. Everything here works on a `Cfg` (stack + reversed buffer +
per-token counters), so the oracles can simulate transition sequences cheaply: the
CAN_SHIFT test of ND-ALL (§6.1), the EAGER run that decides gold-region membership (§7),
the MINIMAL search (§4.1), rollouts (§10.2 C4) and the exact search for small remainders
(§10.2 C1).
"""
from cymem.cymem cimport Pool
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector
from cython.operator cimport dereference as deref


# ---- configurations ------------------------------------------------------------------
cdef int cfg_alloc(Cfg* c, int n) noexcept nogil:
    cdef int m = n if n > 0 else 1
    c.n = n
    c.stk = <int*>malloc(4 * m * sizeof(int))     # one block: cfg_free frees stk
    c.buf = c.stk + m
    c.missing = c.stk + 2 * m
    c.live = c.stk + 3 * m
    c.ns = 0
    c.nb = 0
    c.loss = 0
    c.sent = NULL
    c.start_count = NULL
    c.max_gone = -1
    return 0


cdef void cfg_free(Cfg* c) noexcept nogil:
    free(c.stk)             # and buf, missing, live (cfg_alloc)
    c.stk = c.buf = c.missing = c.live = NULL


cdef void cfg_copy(Cfg* dst, const Cfg* src) noexcept nogil:
    """dst (allocated for the same n) becomes a copy of src."""
    cdef int* stk = dst.stk
    cdef int* buf = dst.buf
    cdef int* missing = dst.missing
    cdef int* live = dst.live
    memcpy(stk, src.stk, src.ns * sizeof(int))
    memcpy(buf, src.buf, src.nb * sizeof(int))
    memcpy(missing, src.missing, src.n * sizeof(int))
    memcpy(live, src.live, src.n * sizeof(int))
    dst[0] = src[0]
    dst.stk = stk
    dst.buf = buf
    dst.missing = missing
    dst.live = live


cdef void cfg_set_missing(Cfg* c) noexcept nogil:
    """live[] and missing[] (docs/specs/swap.md §2.3: live dependents w.r.t. thead) from
    stk/buf."""
    cdef int i, x, h
    memset(c.missing, 0, c.n * sizeof(int))
    memset(c.live, 0, c.n * sizeof(int))
    for i in range(c.ns):
        c.live[c.stk[i]] = 1
    for i in range(c.nb):
        c.live[c.buf[i]] = 1
    c.max_gone = -1
    for x in range(c.n):
        if c.live[x]:
            h = c.thead[x]
            if h >= 0:
                c.missing[h] += 1
        else:
            c.max_gone = x


cdef uint64_t cfg_key(const Cfg* c) noexcept nogil:
    """FNV-1a of (stack bottom->top, separator, buffer front->back)."""
    cdef uint64_t h = 1469598103934665603ULL
    cdef int i
    for i in range(c.ns):
        h = (h ^ <uint64_t>(c.stk[i] + 2)) * 1099511628211ULL
    h = (h ^ <uint64_t>1) * 1099511628211ULL
    for i in range(c.nb - 1, -1, -1):
        h = (h ^ <uint64_t>(c.buf[i] + 2)) * 1099511628211ULL
    return h


cdef bint same_segment(const TokenC* sent, int a, int b) noexcept nogil:
    """No preset sentence start (sent_start == 1) in (min(a, b), max(a, b)]."""
    cdef int lo = a if a < b else b
    cdef int hi = b if a < b else a
    cdef int t
    if sent == NULL:
        return True
    for t in range(lo + 1, hi + 1):
        if sent[t].sent_start == 1:
            return False
    return True


cdef inline bint cfg_same_segment(const Cfg* c, int a, int b) noexcept nogil:
    """same_segment of c's preset sentence starts, by their prefix counts when c has them."""
    if c.start_count == NULL:
        return same_segment(c.sent, a, b)
    return c.start_count[a] == c.start_count[b]


cdef void cfg_valid(const Cfg* c, int* valid) noexcept nogil:
    """Validity of the five moves (docs/specs/swap.md §1.1 plus the package's sentence rules; the
    same rules as swap.pyx's move classes).

    ROOT with s0 alone on the stack needs the buffer to be the last nb words (its smallest
    word n - nb) and no preset non-start there. The words are partitioned into the stack,
    the buffer and the words gone, so the buffer is {n-nb, ..., n-1} iff s0 and every word
    gone precede n - nb: O(1) with max_gone instead of a scan of the buffer."""
    cdef int lo
    valid[M_SHIFT] = c.nb > 0 and (c.ns == 0 or cfg_same_segment(c, c.stk[c.ns - 1],
                                                                c.buf[c.nb - 1]))
    valid[M_LEFT] = c.ns >= 2
    valid[M_RIGHT] = c.ns >= 2
    valid[M_SWAP] = c.ns >= 2 and c.stk[c.ns - 2] < c.stk[c.ns - 1]
    valid[M_ROOT] = 0
    if c.ns == 1:
        lo = c.n - c.nb
        if c.nb == 0 or (c.stk[0] < lo and c.max_gone < lo
                         and (c.sent == NULL or c.sent[lo].sent_start != -1)):
            valid[M_ROOT] = 1


cdef inline void attach(Cfg* c, int d, int h) noexcept nogil:
    cdef int th = c.thead[d]
    if th >= 0:
        c.missing[th] -= 1
    c.live[d] = 0
    if d > c.max_gone:
        c.max_gone = d
    if c.known[d] and c.ghead[d] != h:
        c.loss += 1


cdef void cfg_do(Cfg* c, int move) noexcept nogil:
    cdef int d, h
    if move == M_SHIFT:
        c.nb -= 1
        c.stk[c.ns] = c.buf[c.nb]
        c.ns += 1
    elif move == M_LEFT:
        d = c.stk[c.ns - 2]
        h = c.stk[c.ns - 1]
        c.stk[c.ns - 2] = h
        c.ns -= 1
        attach(c, d, h)
    elif move == M_RIGHT:
        d = c.stk[c.ns - 1]
        h = c.stk[c.ns - 2]
        c.ns -= 1
        attach(c, d, h)
    elif move == M_ROOT:
        d = c.stk[c.ns - 1]
        c.ns -= 1
        attach(c, d, -1)
    elif move == M_SWAP:
        d = c.stk[c.ns - 2]
        c.stk[c.ns - 2] = c.stk[c.ns - 1]
        c.ns -= 1
        c.buf[c.nb] = d
        c.nb += 1


cdef int cfg_wrong(const Cfg* c, int move) noexcept nogil:
    """1 if the move attaches a token with a known gold head to a wrong head."""
    cdef int d, h
    if move == M_LEFT:
        d = c.stk[c.ns - 2]
        h = c.stk[c.ns - 1]
    elif move == M_RIGHT:
        d = c.stk[c.ns - 1]
        h = c.stk[c.ns - 2]
    elif move == M_ROOT:
        d = c.stk[c.ns - 1]
        h = -1
    else:
        return 0
    return c.known[d] and c.ghead[d] != h


# ---- permissibility predicates (docs/specs/swap.md §3) ----------------------------------------
cdef bint can_la(const Cfg* c) noexcept nogil:
    if c.ns < 2:
        return False
    cdef int s1 = c.stk[c.ns - 2]
    return c.thead[s1] == c.stk[c.ns - 1] and c.missing[s1] == 0


cdef bint can_ra(const Cfg* c) noexcept nogil:
    """RA to s1, or to the virtual root (ROOT) when s0 is the only stack token."""
    if c.ns < 1:
        return False
    cdef int s0 = c.stk[c.ns - 1]
    cdef int h = c.stk[c.ns - 2] if c.ns >= 2 else -1
    return c.thead[s0] == h and c.missing[s0] == 0


cdef bint can_sw_eager(const Cfg* c) noexcept nogil:
    """s0 precedes s1 in the projective order (docs/specs/swap.md §3; s1 = root is never
    swapped)."""
    return c.ns >= 2 and c.trank[c.stk[c.ns - 1]] < c.trank[c.stk[c.ns - 2]]


cdef bint can_sw_lazy(const Cfg* c, const int* mpc) noexcept nogil:
    """docs/specs/swap.md §3 (resolution of BN15's prose): also s0 and b0 in different MPCs, or B
    empty."""
    return can_sw_eager(c) and (c.nb == 0 or mpc[c.stk[c.ns - 1]] != mpc[c.buf[c.nb - 1]])


cdef inline int ra_move(const Cfg* c) noexcept nogil:
    return M_RIGHT if c.ns >= 2 else M_ROOT


cdef int static_eager(const Cfg* c) noexcept nogil:
    """BN15 Alg. 1 with CanSW_eager (docs/specs/swap.md §4)."""
    if can_la(c):
        return M_LEFT
    if can_ra(c):
        return ra_move(c)
    if can_sw_eager(c):
        return M_SWAP
    return M_SHIFT if c.nb > 0 else -1


cdef int static_lazy(const Cfg* c, const int* mpc) noexcept nogil:
    if can_la(c):
        return M_LEFT
    if can_ra(c):
        return ra_move(c)
    if can_sw_lazy(c, mpc):
        return M_SWAP
    return M_SHIFT if c.nb > 0 else -1


cdef bint eager_run(Cfg* c, bint halt) noexcept nogil:
    """Follow EAGER from c (in place) until terminal (True) or a dead end (False); with
    `halt`, stop as soon as only one stack token is left (BN15 fn. 2,
    docs/specs/swap.md §6.1)."""
    while True:
        if c.ns == 0 and c.nb == 0:
            return True
        if halt and c.ns <= 1:
            return True
        if can_la(c):
            cfg_do(c, M_LEFT)
        elif can_ra(c):
            cfg_do(c, ra_move(c))
        elif can_sw_eager(c) and c.stk[c.ns - 2] < c.stk[c.ns - 1]:
            cfg_do(c, M_SWAP)
        elif c.nb > 0:
            cfg_do(c, M_SHIFT)
        else:
            return False


cdef bint can_shift(const Cfg* c) noexcept nogil:
    """BN15 Alg. 2 (docs/specs/swap.md §6.1): SH keeps T restricted-reachable."""
    cdef Cfg t
    cdef bint ok
    if c.nb == 0:
        return False
    cfg_alloc(&t, c.n)
    cfg_copy(&t, c)
    cfg_do(&t, M_SHIFT)
    ok = eager_run(&t, True)
    cfg_free(&t)
    return ok


cdef bint eager_completes(const Cfg* c) noexcept nogil:
    """docs/specs/swap.md §7 (d): given (a)-(c), an EAGER run from c derives T iff T is
    restricted-reachable."""
    cdef Cfg t
    cdef bint ok
    cfg_alloc(&t, c.n)
    cfg_copy(&t, c)
    ok = eager_run(&t, False) and t.loss == c.loss
    cfg_free(&t)
    return ok


cdef int nd_all(const Cfg* c) noexcept nogil:
    """ND-ALL (docs/specs/swap.md §6.2) as a bit set of moves."""
    cdef int s
    if can_la(c):
        s = 1 << M_LEFT
    elif can_ra(c):
        s = 1 << ra_move(c)
    elif can_sw_eager(c):
        s = 1 << M_SWAP
    else:
        return 1 << M_SHIFT
    if can_shift(c):
        s |= 1 << M_SHIFT
    return s


cdef int nd_sw(const Cfg* c) noexcept nogil:
    """ND-SW (docs/specs/swap.md §6.2): only the SH-SW ambiguity."""
    if can_la(c):
        return 1 << M_LEFT
    if can_ra(c):
        return 1 << ra_move(c)
    if can_sw_eager(c):
        return (1 << M_SWAP) | ((1 << M_SHIFT) if can_shift(c) else 0)
    return 1 << M_SHIFT


# ---- rollouts (docs/specs/swap.md §10.2, ROLLOUT) ---------------------------------------------
cdef inline int damage(const Cfg* c, int h, int d) noexcept nogil:
    cdef int th = c.thead[d]
    cdef int lost = 0
    if th >= 0 and th != h and c.live[th]:
        lost = 1
    return lost + c.missing[d]


cdef int rollout(Cfg* c, RolloutTail* tail) noexcept nogil:
    """Follow the plain policy of thead/trank from c (in place) to the end, by valid
    moves only; return the loss of the final configuration (w.r.t. the real gold).

    With `tail` (not NULL), the part of the rollout that processes the untouched end of
    the Doc behind a clean cut point is taken from a per-Doc memo instead of simulated:
    the same loss (the argument is in docs/systems/swap.md, "Long sentences (issue 23)";
    tests/test_swap.py compares every cost with the memo and without it)."""
    cdef int valid[5]
    cdef int s0, s1, cut, rest
    while c.ns > 0 or c.nb > 0:
        cfg_valid(c, valid)
        s0 = c.stk[c.ns - 1] if c.ns >= 1 else -1
        s1 = c.stk[c.ns - 2] if c.ns >= 2 else -1
        if c.ns >= 2 and c.thead[s1] == s0 and c.missing[s1] == 0:
            cfg_do(c, M_LEFT)
        elif c.ns >= 2 and c.thead[s0] == s1 and c.missing[s0] == 0:
            cfg_do(c, M_RIGHT)
        elif c.ns == 1 and valid[M_ROOT] and c.thead[s0] == -1 and c.missing[s0] == 0:
            cfg_do(c, M_ROOT)
        elif valid[M_SWAP] and c.trank[s0] < c.trank[s1]:
            cfg_do(c, M_SWAP)
        elif valid[M_SHIFT]:
            if tail != NULL and c.nb == tail.u:
                cut = c.n - c.nb
                if tail.clean[cut]:
                    rest = tail.empty_loss[cut] if c.ns == 0 else tail.stuck_loss[cut]
                    if rest >= 0:
                        # the words from `cut` on are processed as the memo says and
                        # leave the stack as it is now (stuck) or empty
                        if c.ns == 0:
                            tail.hits_empty += 1
                        else:
                            tail.hits_stuck += 1
                        c.loss += rest
                        tail.memo_loss += rest
                        c.nb = 0
                        c.max_gone = c.n - 1    # the words from `cut` on are gone
                        tail.u = 0
                        continue
            cfg_do(c, M_SHIFT)
            if tail != NULL and c.nb < tail.u:
                tail.u = c.nb
        elif c.ns >= 2:
            if damage(c, s0, s1) < damage(c, s1, s0):
                cfg_do(c, M_LEFT)
            else:
                cfg_do(c, M_RIGHT)
        elif valid[M_ROOT]:
            cfg_do(c, M_ROOT)
        else:       # cannot happen (no dead ends, docs/specs/swap.md §1.2); count the rest
                    # as lost
            return c.loss + c.ns + c.nb
    return c.loss


cdef int untouched_tail(const Cfg* c) noexcept nogil:
    """How many words at the end of the buffer are the last words of the Doc in order
    (buf[i] == n-1-i from the bottom): the untouched end of the Doc, and every other live
    word precedes them."""
    cdef int u = 0
    while u < c.nb and c.buf[u] == c.n - 1 - u:
        u += 1
    return u


cdef inline signed char preset_start(const TokenC* sent, int i) noexcept nogil:
    return <signed char>(sent[i].sent_start if sent != NULL else 0)


cdef void rollout_tail_view(const SwapGoldC* o, int order_class, int u,
                            RolloutTail* tail) noexcept nogil:
    """The memo of one order class (0: the oracle tree's projective order, which T' and
    its projective order also give the untouched words; 1: rank3, the order trank3 gives
    them) for a rollout whose buffer ends in u untouched words."""
    cdef int n = o.n
    tail.u = u
    tail.hits_empty = 0
    tail.hits_stuck = 0
    tail.memo_loss = 0
    tail.clean = o.clean
    tail.empty_loss = o.tail_loss + (2 * order_class) * (n + 1)
    tail.stuck_loss = o.tail_loss + (2 * order_class + 1) * (n + 1)


cdef void rollout_tail_build(SwapGoldC* o, const TokenC* sent) noexcept nogil:
    """Fill the tail memo for the preset sentence starts `sent`, backwards over the clean
    cut points E (each entry's rollout takes the later entries from the memo, so the whole
    memo costs a few rollouts over the Doc):

    * empty_loss[E]: the loss of the rollout from (empty stack, buffer E..n-1);
    * stuck_loss[E]: the loss of the words E..n-1 when the rollout shifts E onto a stack of
      earlier words it can no longer reduce. Those words never act with the later ones
      (no gold arc across E, they precede them in every order, so no SWAP, no ROOT with
      two stack words) until the buffer is empty; then the last word left of E..n-1 goes
      RIGHT onto them (damage 0 the other way). Simulated below with one inert word E-1 (a
      live dependent it will not get: never reduced by the policy) whose own final ROOT is
      not counted. Defined only if no preset sentence start is in E..n-1 (then every SHIFT
      of those words is valid, as in the state's rollout); -1 otherwise."""
    cdef int n = o.n
    cdef int cls, E, w, r, i, blocked
    cdef Cfg base, t
    cdef RolloutTail tail
    cdef int* empty
    cdef int* stuck
    for i in range(n):
        o.tail_sent[i] = preset_start(sent, i)
        o.start_count[i] = (o.start_count[i - 1] if i > 0 else 0) + (o.tail_sent[i] == 1)
    for i in range(4 * (n + 1)):
        o.tail_loss[i] = -1
    cfg_alloc(&base, n)
    cfg_alloc(&t, n)
    base.ns = 0
    base.nb = n
    for i in range(n):
        base.buf[i] = n - 1 - i
    base.thead = o.head
    base.ghead = o.head
    base.known = o.known
    base.sent = sent
    base.start_count = o.start_count
    base.loss = 0
    cfg_set_missing(&base)
    for cls in range(2):
        base.trank = o.rank if cls == 0 else o.rank3
        empty = o.tail_loss + (2 * cls) * (n + 1)
        stuck = o.tail_loss + (2 * cls + 1) * (n + 1)
        blocked = 0         # a preset sentence start in E..n-1
        for E in range(n - 1, -1, -1):
            if preset_start(sent, E) == 1:
                blocked = 1
            if not o.clean[E]:
                continue
            cfg_copy(&t, &base)
            t.nb = n - E
            t.max_gone = E - 1         # the words before E are gone
            cfg_do(&t, M_SHIFT)        # the policy's move with an empty stack
            rollout_tail_view(o, cls, t.nb, &tail)
            empty[E] = rollout(&t, &tail)
            if E == 0 or blocked:
                continue
            w = E - 1
            cfg_copy(&t, &base)
            t.stk[0] = w
            t.ns = 1
            t.nb = n - E
            t.max_gone = E - 2         # the words before w are gone
            t.missing[w] = 1           # inert: never reduced by gold, RIGHT-headed
            cfg_do(&t, M_SHIFT)        # valid: E is no preset sentence start
            rollout_tail_view(o, cls, t.nb, &tail)
            r = rollout(&t, &tail)
            stuck[E] = r - (1 if o.known[w] and o.head[w] != -1 else 0)
    cfg_free(&t)
    cfg_free(&base)
    o.tail_built = 1


cdef void rollout_tail_current(SwapGoldC* o, const TokenC* sent) noexcept nogil:
    """Build the memo on first use, and again if the preset sentence starts differ from
    those it was built for (one gold read with another Doc's state: the tests)."""
    cdef int i
    if o.tail_built:
        for i in range(o.n):
            if o.tail_sent[i] != preset_start(sent, i):
                break
        else:
            return
    rollout_tail_build(o, sent)


# ---- exact search (docs/specs/swap.md §10.2 C1) -----------------------------------------------
cdef int lstar(const Cfg* c, unordered_map[uint64_t, int]* memo, int* budget) noexcept nogil:
    """Minimum number of wrong heads still to come from c; -1 if the budget ran out."""
    cdef uint64_t key
    cdef int valid[5]
    cdef int m, v, best = SW_INF
    cdef Cfg t
    if c.ns == 0 and c.nb == 0:
        return 0
    key = cfg_key(c)
    it = memo.find(key)
    if it != memo.end():
        return deref(it).second
    budget[0] -= 1
    if budget[0] < 0:
        return -1
    cfg_valid(c, valid)
    cfg_alloc(&t, c.n)
    for m in range(5):
        if not valid[m]:
            continue
        cfg_copy(&t, c)
        t.loss = 0
        cfg_do(&t, m)
        v = lstar(&t, memo, budget)
        if v < 0:
            best = -1
            break
        v += t.loss
        if v < best:
            best = v
    cfg_free(&t)
    if best < 0:
        return -1
    memo[0][key] = best
    return best


cdef int exact_costs(const Cfg* c, int* cost, int budget) noexcept nogil:
    """cost[m] = [m wrong] + L*(m(c)) for every valid m (SW_INF otherwise); 0 if the
    state budget ran out (then cost is undefined), else 1."""
    cdef unordered_map[uint64_t, int] memo
    cdef int valid[5]
    cdef int m, v
    cdef Cfg t
    cfg_valid(c, valid)
    cfg_alloc(&t, c.n)
    for m in range(5):
        cost[m] = SW_INF
        if not valid[m]:
            continue
        cfg_copy(&t, c)
        t.loss = 0
        cfg_do(&t, m)
        v = lstar(&t, &memo, &budget)
        if v < 0:
            cfg_free(&t)
            return 0
        cost[m] = v + t.loss
    cfg_free(&t)
    return 1


# ---- orders (docs/specs/swap.md §2.1) ---------------------------------------------------------
cdef void proj_order(int n, const int* heads, const int* is_node, int* rank,
                     int* work) noexcept nogil:
    """rank[x] for the nodes x (is_node[x]) = position in the in-order traversal of the
    forest `heads` (-1 = child of the virtual root): a node's left dependents, the node,
    its right dependents, each in index order. work: 4n + 2 ints. Iterative."""
    process_order(n, heads, is_node, NULL, rank, work)


cdef void process_order(int n, const int* heads, const int* is_node, const int* pos,
                        int* rank, int* work) noexcept nogil:
    """Like proj_order, but with `pos` the blocks of each node (the node itself and its
    dependents' subtrees) are ordered by their smallest pos instead of by index: a
    projective order of the forest that keeps the current processing order wherever
    projectivity allows (used for T' in the rollouts, docs/specs/swap.md §10.2 RELINEARIZE)."""
    cdef int* start = work              # n + 2: CSR of children, virtual root = index n
    cdef int* kids = work + n + 2        # n
    cdef int* key = work + 2 * n + 2     # n: block key (min pos in the subtree)
    cdef int* stack = work + 3 * n + 2   # n: DFS stack, encoded 2x (+1 = emit)
    cdef int i, x, h, k, j, tmp, sp, r, a, b, lo, hi
    for i in range(n + 2):
        start[i] = 0
    for x in range(n):
        if is_node[x]:
            h = heads[x]
            if h < 0:
                h = n
            start[h + 1] += 1
    for i in range(n + 1):
        start[i + 1] += start[i]
    # fill (children in index order); reuse key[] as fill pointers temporarily
    for i in range(n):
        key[i] = start[i]
    tmp = start[n]
    for x in range(n):
        if is_node[x]:
            h = heads[x]
            if h < 0:
                kids[tmp] = x
                tmp += 1
            else:
                kids[key[h]] = x
                key[h] += 1
    # block keys
    for x in range(n):
        key[x] = pos[x] if pos != NULL else x
    if pos != NULL:
        # subtree minima: repeat relaxation along heads (depth-bounded, O(n * depth))
        for x in range(n):
            if is_node[x]:
                h = heads[x]
                j = 0
                while h >= 0 and j < n:
                    if key[x] < key[h]:
                        key[h] = key[x]
                    else:
                        break
                    h = heads[h]
                    j += 1
        # sort each node's children by key (insertion sort)
        for h in range(n + 1):
            lo = start[h]
            hi = start[h + 1]
            for a in range(lo + 1, hi):
                tmp = kids[a]
                b = a - 1
                while b >= lo and key[kids[b]] > key[tmp]:
                    kids[b + 1] = kids[b]
                    b -= 1
                kids[b + 1] = tmp
    # iterative in-order: push items as 2x (expand) or 2x+1 (emit)
    r = 0
    sp = 0
    lo = start[n]
    hi = start[n + 1]
    for a in range(hi - 1, lo - 1, -1):
        stack[sp] = 2 * kids[a]
        sp += 1
    while sp > 0:
        sp -= 1
        x = stack[sp]
        if x & 1:
            rank[x >> 1] = r
            r += 1
            continue
        x >>= 1
        lo = start[x]
        hi = start[x + 1]
        j = pos[x] if pos != NULL else x      # the node's own block key
        # right blocks (after the node), pushed in reverse order
        for a in range(hi - 1, lo - 1, -1):
            if key[kids[a]] > j:
                stack[sp] = 2 * kids[a]
                sp += 1
        stack[sp] = 2 * x + 1
        sp += 1
        for a in range(hi - 1, lo - 1, -1):
            if not key[kids[a]] > j:
                stack[sp] = 2 * kids[a]
                sp += 1


# ---- per-document data ----------------------------------------------------------------
cdef int _find(int* parent, int x) noexcept nogil:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


cdef bint _dfs_min(Cfg* c, int k, const int* mpc, unordered_map[uint64_t, int]* fail,
                   vector[int]* path, long* budget) noexcept nogil:
    """docs/specs/swap.md §4.1 DFS over the ND-SW lattice with at most k more swaps."""
    cdef uint64_t key
    cdef int s, lazy, i, m
    cdef int order[5]
    cdef Cfg t
    cdef bint ok = False
    if c.ns == 0 and c.nb == 0:
        return True
    key = cfg_key(c)
    it = fail.find(key)
    if it != fail.end() and deref(it).second >= k:
        return False
    budget[0] -= 1
    if budget[0] < 0:
        return False
    s = nd_sw(c)
    lazy = static_lazy(c, mpc)
    order[0] = lazy
    order[1] = M_LEFT
    order[2] = ra_move(c)
    order[3] = M_SWAP
    order[4] = M_SHIFT
    cfg_alloc(&t, c.n)
    for i in range(5):
        m = order[i]
        if m < 0 or not (s & (1 << m)) or (i > 0 and m == lazy):
            continue
        if m == M_SWAP and k == 0:
            continue
        cfg_copy(&t, c)
        cfg_do(&t, m)
        path.push_back(m)
        if _dfs_min(&t, k - (m == M_SWAP), mpc, fail, path, budget):
            ok = True
            break
        path.pop_back()
        if budget[0] < 0:
            break
    cfg_free(&t)
    if not ok and budget[0] >= 0:
        if it == fail.end() or deref(it).second < k:
            fail[0][key] = k
    return ok


cdef class SwapOracleData:
    """Gold-side preprocessing of one document (docs/specs/swap.md §2), built once per Doc: the
    oracle tree, the projective order, the MPCs, and the MINIMAL sequence
    (docs/specs/swap.md §4.1) as a map from configurations on its path to its move. `heads` use
    the package convention (a root points to itself, -1 = unknown)."""

    def __init__(self, heads, long budget=1000000, bint minimal=True):
        cdef int n = len(heads)
        cdef int i, x, h, j, m
        cdef Pool mem = Pool()
        cdef Cfg c
        cdef int* parent
        cdef int* is_node
        cdef vector[int] path
        cdef unordered_map[uint64_t, int] fail
        cdef long b
        self.mem = mem
        self.c.n = n
        self.c.head = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.known = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.rank = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.mpc = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.thead2 = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.trank2 = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.trank3 = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.work = <int*>mem.alloc(6 * n + 8, sizeof(int))
        self.c.clean = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.next_clean = <int*>mem.alloc(n + 2, sizeof(int))
        self.c.rank3 = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.tail_loss = <int*>mem.alloc(4 * (n + 1), sizeof(int))
        self.c.tail_sent = <signed char*>mem.alloc(n + 1, sizeof(signed char))
        self.c.start_count = <int*>mem.alloc(n + 1, sizeof(int))
        self.c.tail_built = 0
        self.c.minimal = new unordered_map[uint64_t, int]()
        self.c.mpc_fallback = 0
        is_node = <int*>mem.alloc(n + 1, sizeof(int))
        parent = <int*>mem.alloc(n + 1, sizeof(int))
        for i in range(n):
            h = heads[i]
            if h is None or h < 0 or h >= n:
                self.c.head[i] = -1
                self.c.known[i] = 0
            else:
                self.c.known[i] = 1
                self.c.head[i] = -1 if h == i else h
            is_node[i] = 1
        # docs/specs/swap.md §12.9: the oracle needs a tree; break cycles by making a node a root
        for i in range(n):
            x = self.c.head[i]
            j = 0
            while x >= 0 and x != i and j <= n:
                x = self.c.head[x]
                j += 1
            if x == i or j > n:
                self.c.head[i] = -1
        proj_order(n, self.c.head, is_node, self.c.rank, self.c.work)
        # clean cut points (no arc of the oracle tree joins a word before E to one from
        # E on) and rank3, for the rollouts' tail memo
        for i in range(n + 1):
            parent[i] = 0          # crossing arcs per cut point, as differences
        for i in range(n):
            h = self.c.head[i]
            if h >= 0:
                parent[(i if i < h else h) + 1] += 1
                parent[(h if i < h else i) + 1] -= 1
        j = 0
        for i in range(n + 1):
            j += parent[i]
            self.c.clean[i] = j == 0
        self.c.next_clean[n + 1] = n + 1
        for i in range(n, -1, -1):
            self.c.next_clean[i] = i if self.c.clean[i] else self.c.next_clean[i + 1]
        for i in range(n):
            parent[i] = i              # pos = index
        process_order(n, self.c.head, is_node, parent, self.c.rank3, self.c.work)
        # MPC (docs/specs/swap.md §2.2): the static oracle without SW, union-find on attachments
        for i in range(n):
            parent[i] = i
        self._init_cfg(&c)
        while True:
            if can_la(&c):
                parent[c.stk[c.ns - 2]] = c.stk[c.ns - 1]
                cfg_do(&c, M_LEFT)
            elif can_ra(&c):
                if c.ns >= 2:
                    parent[c.stk[c.ns - 1]] = c.stk[c.ns - 2]
                cfg_do(&c, ra_move(&c))
            elif c.nb > 0:
                cfg_do(&c, M_SHIFT)
            else:
                break
        for i in range(n):
            self.c.mpc[i] = _find(parent, i)
        cfg_free(&c)
        self.eager_seq = self._static_sequence(False)
        self.lazy_seq = self._static_sequence(True)
        self.c.n_eager_swaps = self.eager_seq.count(M_SWAP)
        self.c.n_lazy_swaps = self.lazy_seq.count(M_SWAP)
        seq = self.lazy_seq
        if minimal:
            # docs/specs/swap.md §4.1: iterative deepening on #SW over the ND-SW lattice
            b = budget
            found = False
            for k in range(self.c.n_lazy_swaps + 1):
                fail.clear()
                path.clear()
                self._init_cfg(&c)
                ok = _dfs_min(&c, k, self.c.mpc, &fail, &path, &b)
                cfg_free(&c)
                if ok:
                    seq = [path[i] for i in range(path.size())]
                    found = True
                    break
                if b < 0:
                    break
            if not found:
                self.c.mpc_fallback = 1
        self.minimal_seq = seq
        self.c.n_minimal_swaps = seq.count(M_SWAP)
        # the MINIMAL sequence as state -> move
        self._init_cfg(&c)
        for m in seq:
            self.c.minimal[0][cfg_key(&c)] = m
            cfg_do(&c, m)
        cfg_free(&c)

    def __dealloc__(self):
        if self.c.minimal != NULL:
            del self.c.minimal
            self.c.minimal = NULL

    cdef void _init_cfg(self, Cfg* c):
        cdef int i, n = self.c.n
        cfg_alloc(c, n)
        c.ns = 0
        c.nb = n
        for i in range(n):
            c.buf[i] = n - 1 - i
        c.thead = self.c.head
        c.trank = self.c.rank
        c.ghead = self.c.head
        c.known = self.c.known
        c.sent = NULL
        c.loss = 0
        cfg_set_missing(c)

    def _static_sequence(self, bint lazy):
        cdef Cfg c
        cdef int m
        seq = []
        self._init_cfg(&c)
        for _ in range(2 * self.c.n * self.c.n + 2 * self.c.n + 2):
            if c.ns == 0 and c.nb == 0:
                break
            m = static_lazy(&c, self.c.mpc) if lazy else static_eager(&c)
            if m < 0 or (m == M_SWAP and c.stk[c.ns - 2] > c.stk[c.ns - 1]):
                break
            seq.append(m)
            cfg_do(&c, m)
        cfg_free(&c)
        return seq

    @property
    def projective(self):
        """The gold tree is projective (its projective order is the identity,
        docs/specs/swap.md §2.1)."""
        return all(self.c.rank[i] == i for i in range(self.c.n))

    @property
    def swap_counts(self):
        """(#SW EAGER, #SW LAZY, #SW MINIMAL, MINIMAL fell back to LAZY)."""
        return (self.c.n_eager_swaps, self.c.n_lazy_swaps, self.c.n_minimal_swaps,
                bool(self.c.mpc_fallback))
