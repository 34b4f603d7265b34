# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Tabular dynamic oracle for LR-spine, exact for the capped system (spine depth <= K).

Spec: docs/specs/lr_spine_and_arc_standard.md §3.7-3.8 ([GSS14] §6, with the
correction P2: restriction 1 keeps left-spine nodes with gold children among the
*unconsumed* stack roots, k > i). The spec leaves the capped oracle open (P12); this
module solves it by carrying each useful spine node's depth:

* a spine node deeper than K is dead (depths never decrease), so it is dropped;
* when tree a takes tree b's root on a spine node x at depth k, b's spine nodes move to
  depth (their depth + k) and the nodes of a's spine below x are cut. With a cap, the
  gold attachment point no longer dominates (attaching higher keeps b's spine shallower),
  so the DP branches over every useful attachment point (the useful nodes and the root,
  all at depth <= K; any other point is dominated by the next useful node above it);
* restriction 2 (dominance) compares depths too: entry a is dropped when another entry b
  of the cell has the same root, every useful node of a at the same or a smaller depth
  on the same side, and loss(b) <= loss(a).

Without a binding cap (K at least the longest spine) this is the spec's DP: with the
gold point or the deepest point chosen, the other branches are dominated.

Fragments of the buffer (the right stack, §3.2) are collapsed to their roots, as in the
spec: nodes inside a fragment never need outside dependents, and attaching to them is
dominated by attaching to the fragment root.

Buffer cut at gold blocks (issue 5; exact, checked against the whole-buffer DP in
tests/test_spine_oracles.py and by the shared brute force). A block is a maximal interval of
words that no known gold arc between two words crosses (with complete gold, a sentence of
the Doc). F runs over the stack and the buffer b..E only, E the end of b's block: the later
blocks, entirely in the buffer, add 0 to F for every successor. (>=) An optimal
computation over b..E that ends with the stack [0], followed by the gold computation of
each later sentence (shift its words, LEFT_1/RIGHT_1, ROOT), is a computation from c.
(<=) In the DP a later block contributes only its root r (head 0), the last right items.
Take any derivation of the whole-buffer DP and drop its steps with later roots: where the
current tree t takes r on its right spine, t's left spine and its loss on earlier words
are unchanged (its right spine only serves later items); where r takes t (the arc
root(t) -> r is wrong), let root(t) play r's part from then on: the arcs r takes from
deeper elements become arcs from root(t) (cost <= 1 each, r's were wrong), r's own head
becomes root(t)'s (cost <= 1, root(t) -> r was wrong), and every left-spine node of t sits
one level shallower than under r. So the earlier words lose no more without the later
blocks, and the costs (differences of values) are those of the whole-Doc DP.

Mixed stacks (stack elements of several gold blocks; LRSWork.F, lower_pass). The
lr_spine analogue of arc_standard's lemma L1 (the proof note,
docs/proofs/arc_standard_mixed_stacks.md §9; arc_standard_oracle.pyx, "Mixed stacks"). J is
the block of s0's root. Every arc between words of different blocks costs κ of its dependent
(1, 0 if its head is unknown; the proof's (B3)). F takes one of four paths (LRS_PATH_*, counted
by the system):

* plain: every word element's root is in J (or one word element): the DP (dp).
* next: b lies in a block after J and starts it (b - 1 ends a block), so no stack node
  lies in b's block: F = F(stack, empty buffer) + dp([0], b..E), the proof's Lemma 4 (cut
  after the last stack word). The second part starts from a fresh 0 (spines <0>): after
  the stack is reduced, 0's right spine runs through earlier blocks, and an arc from
  such a node onto b..E costs κ >= δ(0 -> .) and puts its dependent deeper.
* mixed: the top run el[t1..] (the elements with roots in J, a top segment), the lower
  elements el[1..t1-1] (roots before J), b in J or the buffer empty, and a clean split:
  (a) the right spine of el[t1-1] holds no J node (the lower elements below it lie
  left of its root); (b) every left-spine node of a top element is a J node, or (the
  default, mixed = 2; mixed = 1 is the strict condition) an earlier-block node with no
  gold child among the lower roots. Right spines of top elements are J nodes (right of
  a J root, left of b). Then some optimal computation builds the top run and a buffer
  prefix b..j-1 into one tree H without touching the lower elements, reduces the lower
  elements and H (the lower pass: a stack-only LR-spine computation, H only through its
  root h), and parses j..E from [0]. So F = the DP over [fresh 0] + top run + b..E whose
  first arc 0 -> h costs rho(type of h) (gold root / unknown head / other) instead of
  δ(0 -> h), with rho = F([el[0..t1-1], <P>], empty buffer) for a phantom word P of that
  type (lower_pass; h meets the lower words only through cross-block arcs, priced by κ,
  and the arc onto 0). That DP also lets later right items attach below h on 0's right
  spine, which the real computation cannot do after the lower pass; such an arc can be
  made before 0 -> h onto H's right spine, one level shallower, at the same δ. The
  lower pass is cached (8 slots keyed by the gold's serial and the lower elements): it
  changes only when a move merges the top run with a lower element.
* dirty: anything else (a top element with a useful earlier-block node on its left
  spine, e.g. after LEFT_k from a J word onto a lower element; a lower element with a
  J node on its right spine; s0's tree holding words of b's later block): the
  whole-stack DP, as before.

Without (b) the mixed path is wrong: a J-rooted element can carry an earlier-block word
on its left spine that is still to take a lower root (counterexample n = 6, K = 2 in the
proof note §9). Condition (b) in the default form: a left-spine node only ever takes
roots of elements below it (la_k), and an earlier-block node x with no gold child among
the lower roots has none among the top roots either (B2), so every arc from x costs κ
of its dependent, exactly as from a J node with no gold child left below it, which the
strict condition allows. Status: the decomposition is not proved (the proof note's §9
gives the argument's outline); it agreed with exhaustive search on about 10,500 clean
configurations per cap (K = 2, 3, uncapped; a colleague's brute force outside the repo)
and is checked against the whole-Doc DP on random multi-sentence Docs, complete and
partial gold, K = 1..3, both conditions (test_lr_spine_mixed_stacks_equal_whole_doc_dp,
which fails without condition (b), with the lower pass priced for the wrong type, or
with the next path taken when b does not start its block), and through the system by
the shared brute force (tests/test_oracles.py).

Guard (issue 23: long sentences, deep stacks). With LRSWork.budget > 0 the DPs of one
state (values) may insert at most `budget` entries (a count, not a clock: training stays
reproducible); dp checks the count before each cell and stops (LRS_TRIPPED). The
successors valued before that keep their exact values; each later one gets an interval
[low, up] from DPs under a fresh quarter of the budget:

* up (upper): the split value at a forced split t1 (split_value: the mixed path's top DP
  with the lower pass, at any t1, clean or not), the top run halved until it fits, and at
  most the words still to attach. It is the loss of a computation from the successor,
  so up >= F: the top DP's derivation builds the top run and a buffer prefix into a tree
  H (the items it puts below h on 0's right spine go onto H's right spine before, one level
  shallower: the mixed path's argument), the lower pass's derivation then reduces the
  lower elements with H in place of the phantom P (the same arcs; an arc between h and a
  lower word costs δ <= 1 where P's costs 1, the arc onto 0 the same for h's type, and h's
  other spine nodes are not used), and the rest of the buffer follows from [0]. Only
  optimality needs the clean split; this needs none.
* low (lost): the words still to attach whose known gold head can no longer take them.
  A stack root d of el[t] can still be taken by a head on the left spine of a higher
  element (that element takes the elements between at the head's own depth, la_k, which
  keeps the head, then d) or on the right spine of a lower one (d takes the elements
  above it, ra_1, and those between by la_1, then ra_k at the head's depth); by a buffer
  word or 0 always. A buffer word can be taken by a head on an element's right spine (the
  stack above it merged and hung there, the words between too, at that depth). Any
  other head of such a word is inside a tree off the spines it would need, so the word
  loses 1 in every computation: low <= F.

values then returns val = U + max(0, low - U), U the smallest up over the moves: the
costs val - min(val) = max(0, low(move) - U) are lower bounds on the exact costs (low <=
exact value, U >= the smallest exact value), 0 for every move of exact cost 0, and exact
wherever low = up. States that ran out are counted (guard_states, path "guard"); the
work is at most 5/4 of the budget plus one cell's expansions per stopped DP.

Zero-cost set only (the zero-cost pass; issue 23). Greedy training reads only which moves
cost 0 (spaCy's log loss and the move to follow), so the zero-cost pass values: exact for
every move whose value is the smallest, a lower bound above that smallest value for the
others (costs >= 1, at most the exact cost), as attardi's exact_costs=False. That lets every DP
drop the entries that cannot end at or below a bound V on the smallest value (branch and
bound), which is exact for every successor whose value is <= V:

* an item (a stack root or a right item of dp) whose known gold head can no longer take it
  (the guard's lost(): a word left of b, on no spine it would need) is attached by a wrong
  arc in every derivation, so at cell (i, j) the items still to come (sufL[i], sufR[j])
  and the current root (if it is such an item, or the wildcard) add at least their count
  to the loss: an entry with loss + that count > V - δ is dropped (insert), and since a
  derivation's loss only grows, no derivation of value <= V - δ loses an entry;
* V is the smallest value found so far among the state's successors, the arcs of cost 0
  first; or, from the start, F of the state itself when the previous state of the same
  Doc had this configuration as a successor of exact value (memo, LRS_MEMO_SLOTS
  configurations keyed by config_key): Bellman's equation, min over the moves of
  δ + F(successor) = F(state). A successor whose DP keeps no final entry gets V + 1. If
  the bound was too low (no successor at or below it, e.g. after a hash collision, or on
  non-projective gold where the DP is not exact), the state is valued again without one
  (counted, reruns).

Settling successors without a DP (greedy_bounds; issue 23). Before a successor's DP runs,
two cheap bounds on its F, O(words left in b's block) each, where the gold is complete and
projective (the DP is exact there):

* up, greedy: the loss of one computation of the capped system from the successor to the
  end of b's block (the stack reduced onto el[0]): at each step an arc of cost 0 that
  strands no gold dependent still to attach (doom: a node that leaves the spine its
  dependent needs), else SHIFT while the top element has a gold relation with the buffer,
  else the arc of least δ + doom (ties to one after which a free arc follows). A
  computation, so up >= F;
* lost: the guard's lower bound (the words whose known head can no longer take them).

Then, exactly: lost = up gives F = up (settled); δ + up <= F(state) gives F = up (certified:
F(state) = min over the moves of δ + F(successor) <= δ + F <= δ + up, so all are equal), with
F(state) from the memo, which now also runs in the exact mode (keys of 128 bits: a false hit
could certify a wrong value); δ + lost > the bound puts the move above it (excluded).
Otherwise the DP runs under the smaller of up and the bound (bounded), which keeps every
entry that may end at or below F when F <= up, so its value is exact; a DP that keeps nothing
under up (only where the DP is not exact) runs again without it (greedy_misses). The smallest
δ + up over the moves is also the first bound. On an exploring model's states the greedy loss
is often well above F (it cannot foresee which of two stack words to sacrifice), so most
successors still run their DP.

Bellman's last move (issue 23; the zero-cost pass). Bellman's equation, min over the valid
moves of δ + F(successor) = F(state), exact wherever the DP is (complete projective gold),
gives one successor's value for free: when F(state) is known (the memo) and every valid move
is wanted, one successor is valued last (SHIFT, whose DP has the most stack items; with
greedy_bounds the one that still needs a DP and may attain F(state), δ + lost <= F(state),
with the least δ + greedy loss), and if every other successor is above F(state) (pruned under
the memo's bound, or valued above it), it attains it: F = F(state) - δ, no DP (counted,
eliminated). Otherwise (another one attains F(state), or the guard tripped) it runs its DP
as before. On an exploring model's states this is mostly the one zero-cost move, whose DP is
a large one (SHIFT onto a deep stack). The values are the same; only the work changes.

Two phases (issue 23, lrcost14). values() first runs the zero-cost pass above in both modes:
the same DPs, the same memo and lower-pass cache reads and writes, the same guard. With
exact=True (exact costs) exact_phase then values each move the pass only bounded from below
(prn), by its DP under its greedy loss (complete projective gold) or without a threshold,
under what the pass left of the state's budget plus a quarter of it (the guard's quarter,
unused when the pass did not run out), and leaves nothing a later state reads: no memo
entry (the memo holds the zero-cost pass's exact values only), no lower-pass cache entry
(rho_frozen). So the two modes give the same zero-cost set and end the same states "guard"
in every state of a walk, whatever the budget, and exact_costs = "beam" (greedy training with
exact=False, the beam update with exact=True) trains as exact_costs = true does
(tests/test_lr_spine_cost_mode_training.py). When phase 1's budget runs out, the moves not yet
valued keep their lower bounds (path "lower", counted lower_states): the zero-cost set is still
exact. A state's work is at most 5/4 of the budget plus the cells in progress either way. Before lrcost14 the exact mode valued
the successors in another order with the greedy loss as threshold, so its guard tripped in other
states than the zero-set mode's (docs/systems/lr_spine.md, "`exact_costs = false`").

Exact for complete projective gold; for non-projective or partial gold it is an
approximation (docs/specs/lr_spine_and_arc_standard.md §3.9; an unknown head makes every arc to
that word right), whose costs are still >= 0 with a zero-cost move among those asked for.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from .conventions cimport word_node, spec_head
from .oracle_arrays cimport gold_children, gold_block_ends, gold_right_stack


cdef long _gold_serial = 0      # LRSGold.serial: the lower-pass cache's key


cdef inline unsigned long long config_key(const LRSElem* el, int nE, int b,
                                          unsigned long long seed) noexcept nogil:
    """A 64-bit hash (FNV-1a, its offset basis xor seed) of a configuration: b and every
    element's root and spines (the memo's key: two seeds give 128 bits; a collision could
    only weaken or delay the zero-set bound, but would make greedy_bounds certify a wrong value,
    see values)."""
    cdef unsigned long long h = 14695981039346656037ULL ^ (seed * 0x9E3779B97F4A7C15ULL)
    cdef int t, s
    h = (h ^ <unsigned long long>(b + 1)) * 1099511628211ULL
    h = (h ^ <unsigned long long>nE) * 1099511628211ULL
    for t in range(nE):
        h = (h ^ <unsigned long long>(el[t].root + 7)) * 1099511628211ULL
        h = (h ^ <unsigned long long>(el[t].nl * 16 + el[t].nr)) * 1099511628211ULL
        for s in range(el[t].nl):
            h = (h ^ <unsigned long long>(el[t].ls[s] + 7)) * 1099511628211ULL
        for s in range(el[t].nr):
            h = (h ^ <unsigned long long>(el[t].rs[s] + 7)) * 1099511628211ULL
    return h


cdef inline int join_spines(int* out, const int* upper, int k, const int* lower, int n_lower,
                            int K) noexcept nogil:
    """out = upper[0..k-1] . lower[0..n_lower-1], cut at depth K; returns its length."""
    cdef int s, n = 0
    for s in range(k):
        out[n] = upper[s]
        n += 1
    for s in range(n_lower):
        if n >= K:
            break
        out[n] = lower[s]
        n += 1
    return n


cdef inline void merge_top(const LRSElem* s1, const LRSElem* s2, int t, int K,
                           LRSElem* top) noexcept nogil:
    """The element that la_k (t = k: arc ls(s1)[k] -> root(s2); left spine ls(s1)[1..k] .
    ls(s2), right spine rs(s1)) or ra_k (t = K + k: arc rs(s2)[k] -> root(s1); left spine
    ls(s2), right spine rs(s2)[1..k] . rs(s1)) makes of the top element s1 and the one
    below it, s2, spines cut at depth K (top must not be s1 or s2)."""
    if t <= K:
        top.root = s1.root
        top.nl = join_spines(top.ls, s1.ls, t, s2.ls, s2.nl, K)
        top.nr = join_spines(top.rs, s1.rs, s1.nr, s1.rs, 0, K)
    else:
        top.root = s2.root
        top.nl = join_spines(top.ls, s2.ls, s2.nl, s2.ls, 0, K)
        top.nr = join_spines(top.rs, s2.rs, t - K, s1.rs, s1.nr, K)


cdef inline int root_type(const LRSGold* g, int h) noexcept nogil:
    """0: gold root, 1: unknown head, 2: other (the index into LRSWork.rho_val); the
    wildcard -1 has a known head that is not 0 (LRSWork.insert), so it is "other"."""
    if h < 0:
        return 2
    cdef int gh = g.head[h]
    return 0 if gh == 0 else (1 if gh == LRS_UNKNOWN else 2)


cdef inline int dlt(const LRSGold* g, int h, int d) noexcept nogil:
    """δ(h -> d); d < 0 is a wildcard root (see LRSWork.insert), never a gold dependent."""
    if d < 0:
        return 1
    cdef int gh = g.head[d]
    return 0 if (gh == h or gh == LRS_UNKNOWN) else 1


cdef int lrs_gold_build(LRSGold* g, const int32_t* heads, int n) noexcept nogil:
    cdef int i, h, d, a, c, e, s, t, x
    cdef int N1 = n + 1
    global _gold_serial
    memset(g, 0, sizeof(LRSGold))
    g.n = n
    _gold_serial += 1
    g.serial = _gold_serial
    # head[n + 1]: the phantom P of the lower pass (LRSWork.lower_pass), which writes its
    # gold head there for the duration of its DPs; LRS_UNKNOWN otherwise
    g.head = <int*>malloc((N1 + 1) * sizeof(int))
    g.kid_start = <int*>calloc(N1 + 1, sizeof(int))
    g.kids = <int*>malloc(N1 * sizeof(int))
    g.blk_e = <int*>malloc(N1 * sizeof(int))
    cdef int* fill = <int*>malloc((N1 + 1) * sizeof(int))
    if not (g.head and g.kid_start and g.kids and g.blk_e and fill):
        free(fill)
        return -1
    cdef bint complete = True
    g.head[0] = -1
    g.head[N1] = LRS_UNKNOWN
    for i in range(n):
        g.head[word_node(i)] = spec_head(heads[i], i, LRS_UNKNOWN)
        if heads[i] < 0:
            complete = False
    gold_children(g.head, N1, g.kid_start, g.kids, fill)
    # gold blocks: cut after word x unless a known arc between two words spans x, x+1
    # (with complete gold, the Doc's sentences); F cuts the buffer at b's block end
    g.blk_e[0] = n
    gold_block_ends(g.head, N1, fill, g.blk_e)
    free(fill)
    cdef bint projective = True
    for d in range(1, N1):
        if not projective:
            break
        if g.head[d] < 0:
            continue
        a = d if d < g.head[d] else g.head[d]
        c = d + g.head[d] - a
        for e in range(1, N1):
            if g.head[e] < 0 or e == d:
                continue
            s = e if e < g.head[e] else g.head[e]
            t = e + g.head[e] - s
            if a < s < c < t or s < a < t < c:
                projective = False
                break
    g.projective = complete and projective
    return 0


cdef void lrs_gold_free(LRSGold* g) noexcept nogil:
    free(g.head)
    free(g.kid_start)
    free(g.kids)
    free(g.blk_e)
    memset(g, 0, sizeof(LRSGold))


cdef inline bint covers(const Spine* a, const Spine* b) noexcept nogil:
    """Every node of spine a is on spine b at the same or a smaller depth."""
    cdef int s, t
    cdef bint found
    for s in range(a.len):
        found = False
        for t in range(b.len):
            if b.node[t] == a.node[s]:
                found = b.dep[t] <= a.dep[s]
                break
        if not found:
            return False
    return True


cdef inline void clear_spine_marks(const LRSElem* el, int nE, int* lmark,
                                   int* rmark) noexcept nogil:
    """lmark[x] = 0 for the left-spine nodes x of el[0..nE-1], rmark[x] = 0 for the
    right-spine ones (the per-node scratch of dp and lost, reset after use)."""
    cdef int t, s
    for t in range(nE):
        for s in range(el[t].nl):
            lmark[el[t].ls[s]] = 0
        for s in range(el[t].nr):
            rmark[el[t].rs[s]] = 0


cdef inline void append(Spine* sp, int node, int dep, int K) noexcept nogil:
    if dep <= K and sp.len < LRS_MAXK:
        sp.node[sp.len] = node
        sp.dep[sp.len] = dep
        sp.len += 1


cdef inline int items_after(const int* first, const int* nxt, int x, int i) noexcept nogil:
    """The items on node x's list (LRSWork.mark_pending: by decreasing position, first[x],
    then nxt[k]) at a position after i."""
    cdef int n = 0
    cdef int k = first[x]
    while k > i:
        n += 1
        k = nxt[k]
    return n


cdef inline int stranded(const LRSGold* g, const int* unatt, int x, bint right,
                         int skip) noexcept nogil:
    """The gold dependents of node x still to attach (unatt) on its right (right) or left
    side, other than skip: those a spine x leaves would have served (LRSWork.doom)."""
    cdef int kk, c, n = 0
    for kk in range(g.kid_start[x], g.kid_start[x + 1]):
        c = g.kids[kk]
        if c != skip and unatt[c] and ((c > x) if right else (c < x)):
            n += 1
    return n


cdef class LRSWork:
    def __init__(self, int K, bint cut=True, int mixed=2, long budget=0, bint exact=True,
                 bint greedy_bounds=False):
        if not 1 <= K <= LRS_MAXK:
            raise ValueError(f"the LR-spine oracle supports a cap 1..{LRS_MAXK}, not {K}")
        if not 0 <= mixed <= 2:
            raise ValueError(f"mixed must be 0, 1 or 2, not {mixed}")
        self.K = K
        self.cut = cut      # False: the DP over the Doc's whole buffer (tests)
        self.mixed = mixed  # 0: mixed stacks through the whole-stack DP (tests); needs cut
        self.rho_keys.resize(LRS_RHO_SLOTS)
        self.rho_serials.resize(LRS_RHO_SLOTS, -1)
        self.rho_vals.resize(3 * LRS_RHO_SLOTS, 0)
        self.rho_next = 0
        self.rho_on = False
        self.rho_frozen = False
        if budget < 0:
            raise ValueError(f"budget must be >= 0 (0 = no guard), not {budget}")
        self.budget = budget
        self.limit = -1
        self.exact = exact    # False: the zero-cost set only (module docstring)
        self.thresh = LRS_INF
        self.cap = LRS_INF
        cdef LRSMemo empty
        empty.serial = -1
        empty.key = 0
        empty.F = 0
        empty.key2 = 0
        self.memo.resize(LRS_MEMO_SLOTS, empty)
        self.memo_next = 0
        self.greedy_bounds = greedy_bounds  # module docstring, "Settling successors without a DP"
        self.bellman = True     # with greedy_bounds: Bellman's last move (tests switch it off)
        self.state_F = -1

    cdef int prune_ls_at(self, Spine* sp, int i) noexcept nogil:
        """Restriction 1 (left, docs/specs/lr_spine_and_arc_standard.md §3.7 with P2): keep the
        root and the nodes with a gold child among rootL[k], k > i."""
        cdef int s, t = 1
        for s in range(1, sp.len):
            if sp.node[s] >= 0 and self.maxL[sp.node[s]] > i:
                sp.node[t] = sp.node[s]
                sp.dep[t] = sp.dep[s]
                t += 1
        sp.len = t if sp.len > 0 else 0
        return 0

    cdef int prune_rs_at(self, Spine* sp, int j) noexcept nogil:
        """Restriction 1 (right): keep the root and the nodes with a gold child among
        rootR[k], k > j."""
        cdef int s, t = 1
        for s in range(1, sp.len):
            if sp.node[s] >= 0 and self.maxR[sp.node[s]] > j:
                sp.node[t] = sp.node[s]
                sp.dep[t] = sp.dep[s]
                t += 1
        sp.len = t if sp.len > 0 else 0
        return 0

    cdef void insert(self, vector[Entry]* cell, Entry* e, int i, int j) noexcept nogil:
        """Prune (restriction 1), then add e to the cell unless an entry there dominates it
        (restriction 2), removing the entries e dominates.

        A root that can take no more gold dependents (none among the unconsumed roots) and
        whose known gold head is no node of an unconsumed element (spine nodes of σL[k],
        k > i; fragment roots σR[k], k > j) gets δ = 1 for every arc it will still be part
        of, as a head or as a dependent, and is pruned from the spines once it is a
        dependent: its identity no longer matters. Such roots become the wildcard -1, so
        entries that differ only in them merge (exact; it keeps cells small for deep
        stacks).

        Restriction 2 with depths (module docstring): x dominates e when both have the same
        root, every useful node of e is on x's spine on the same side at the same or a
        smaller depth, and loss(x) <= loss(e); an exact duplicate is the case of equal keys.
        The relation is transitive, so filtering on insertion leaves the cell's
        non-dominated entries whatever the order of insertion (one of each set of equal
        ones), as a pass over the full cell would, without storing and sorting the
        dominated ones (about three in four of the entries made on Hungarian).

        With a bound (thresh, exact=False; module docstring, "Zero-cost set only"), e is
        dropped when its loss plus the sure losses still to come (self.cap: those of the
        target cell's unconsumed items; its own root's, if sure) exceeds the bound."""
        cdef int h = e.root
        cdef int gh, lb
        cdef size_t s = 0
        cdef size_t size
        cdef Entry* x
        self.inserts += 1
        self.prune_ls_at(&e.ls, i)
        self.prune_rs_at(&e.rs, j)
        if h > 0 and self.maxL[h] <= i and self.maxR[h] <= j:
            gh = self.g.head[h]
            if gh >= 0 and self.posL[gh] <= i and self.posR[gh] <= j:
                e.root = -1
                e.ls.node[0] = -1
                e.rs.node[0] = -1
        if self.thresh < LRS_INF:
            # the wildcard's future arc as a dependent costs 1 (above); 0 is never one;
            # the pending items of the cell lose 1 each unless e's spine holds their head
            lb = 1 if e.root < 0 else (self.sure[e.root] if e.root > 0 else 0)
            lb += self.pend[i * self.pend_w + j]
            if e.loss + lb > self.cap and e.loss + lb - self.spine_credit(e, i, j) > self.cap:
                self.pruned += 1
                return
        size = cell.size()
        while s < size:
            x = &cell[0][s]
            if x.root == e.root:
                if x.loss <= e.loss and covers(&e.ls, &x.ls) and covers(&e.rs, &x.rs):
                    return
                if e.loss <= x.loss and covers(&x.ls, &e.ls) and covers(&x.rs, &e.rs):
                    size -= 1
                    x[0] = cell[0][size]
                    cell.pop_back()
                    continue
            s += 1
        cell.push_back(e[0])

    cdef int dp(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil:
        """The tabular DP (docs/specs/lr_spine_and_arc_standard.md §3.7, capped; module docstring),
        el[0..nE-1] bottom -> top, el[0].root == 0, the buffer cut at the end of b's block. With
        rho_on (the top DP of a mixed stack, see F) the first arc 0 -> h costs rho_val[type(h)],
        not δ(0 -> h). LRS_TRIPPED when the count budget runs out (inserts > limit, checked
        before each cell: the guard, see values)."""
        cdef int n = g.n
        cdef int K = self.K
        cdef int lL = nE
        cdef int i, j, k, t, s, x, r, ra, rb, dx, nR, lR, diag, kk, best, h, nb
        cdef int capL, capR
        cdef bint is_root
        cdef bint tripped = False
        cdef Entry e
        cdef Entry ne
        cdef const Entry* pe
        cdef const LRSElem* tb
        cdef vector[Entry]* cell
        if <int>self.mark.size() < n + 2:
            self.mark.resize(n + 2, 0)
            self.maxL.resize(n + 2, 0)
            self.maxR.resize(n + 2, 0)
            self.R.resize(n + 2, 0)
            self.rootR.resize(n + 3, 0)
            self.posL.resize(n + 2, 0)
            self.posR.resize(n + 2, 0)
        self.g = g
        # SL[i] = el[lL - i], i = 1..lL (top first); Phase 1: right stack (§3.2), marking
        # only the roots of the stack elements
        for t in range(lL):
            self.mark[el[t].root] = 1
        # the buffer is cut at the end of b's gold block (see the module docstring:
        # later blocks add 0 to F and change no cost)
        nb = g.blk_e[b] if (self.cut and b <= n) else n
        nR = gold_right_stack(g.head, g.kid_start, g.kids, self.mark.data(), b, nb,
                              self.R.data())
        for t in range(lL):
            self.mark[el[t].root] = 0
        lR = 1 + nR
        # with a bound: the sure losses of the items after i (stack) and after j (right)
        if self.thresh < LRS_INF:
            self.mark_sure(g, el, lL, b, nR)
            if <int>self.sufL.size() < lL + 2:
                self.sufL.resize(lL + 2, 0)
            if <int>self.sufR.size() < lR + 2:
                self.sufR.resize(lR + 2, 0)
            self.sufL[lL] = 0
            for i in range(lL - 1, 0, -1):
                self.sufL[i] = self.sufL[i + 1] + self.sure[el[lL - i - 1].root]
            self.sufR[lR] = 0
            for j in range(lR - 1, 0, -1):
                self.sufR[j] = self.sufR[j + 1] + self.sure[self.R[j - 1]]
        self.rootR[1] = el[lL - 1].root
        for t in range(nR):
            self.rootR[2 + t] = self.R[t]
        # maxL[x] = max{k : gh[rootL[k]] == x}, maxR[x] = max{k >= 2 : gh[rootR[k]] == x}
        for i in range(1, lL + 1):
            h = g.head[el[lL - i].root]
            if h >= 0:
                self.maxL[h] = i
        for j in range(2, lR + 1):
            h = g.head[self.rootR[j]]
            if h >= 0:
                self.maxR[h] = j
        # posL[x] = k if x is on a spine of σL[k]; posR[x] = j if x = rootR[j], j >= 2
        for i in range(1, lL + 1):
            tb = &el[lL - i]
            for t in range(tb.nl):
                self.posL[tb.ls[t]] = i
            for t in range(tb.nr):
                self.posL[tb.rs[t]] = i
        for j in range(2, lR + 1):
            self.posR[self.rootR[j]] = j
        if self.thresh < LRS_INF:
            self.mark_pending(g, el, lL, lR)
        # cells T[i][j] at (i - 1) * lR + (j - 1)
        if <int>self.cells.size() < lL * lR:
            self.cells.resize(lL * lR)
        for t in range(lL * lR):
            self.cells[t].clear()
        # axiom: the top element, pruned, loss 0 (the past loss is left out, §6 P1)
        tb = &el[lL - 1]
        e.root = tb.root
        e.loss = 0
        e.ls.len = 0
        e.rs.len = 0
        for t in range(tb.nl):
            append(&e.ls, tb.ls[t], t + 1, K)
        for t in range(tb.nr):
            append(&e.rs, tb.rs[t], t + 1, K)
        capL = capR = LRS_INF
        if self.thresh < LRS_INF:
            self.cap = self.thresh - self.sufL[1] - self.sufR[1]
        self.insert(&self.cells[0], &e, 1, 1)
        for diag in range(2, lL + lR + 1):
            if tripped:
                break
            for i in range(1, lL + 1):
                j = diag - i
                if j < 1 or j > lR:
                    continue
                if self.limit >= 0 and self.inserts > self.limit:
                    tripped = True
                    break
                cell = &self.cells[(i - 1) * lR + (j - 1)]     # complete and filtered (insert)
                if self.thresh < LRS_INF:   # the bounds of the two target cells
                    if i < lL:
                        capL = self.thresh - self.sufL[i + 1] - self.sufR[j]
                    if j < lR:
                        capR = self.thresh - self.sufL[i] - self.sufR[j + 1]
                for s in range(<int>cell.size()):
                    e = cell[0][s]
                    ra = e.root
                    if i < lL:
                        tb = &el[lL - i - 1]         # σL[i+1], below the current tree
                        rb = tb.root
                        # la: the head is on e's left spine, the dependent is rb
                        if rb != 0:
                            for t in range(e.ls.len):
                                dx = e.ls.dep[t]
                                ne.root = ra
                                ne.loss = e.loss + dlt(g, e.ls.node[t], rb)
                                ne.ls.len = 0
                                for k in range(t + 1):
                                    append(&ne.ls, e.ls.node[k], e.ls.dep[k], K)
                                for k in range(tb.nl):
                                    append(&ne.ls, tb.ls[k], k + 1 + dx, K)
                                ne.rs = e.rs
                                self.cap = capL
                                self.insert(&self.cells[i * lR + (j - 1)], &ne, i + 1, j)
                        # ra: the head is on tb's right spine, the dependent is ra
                        if ra != 0:
                            for t in range(tb.nr):
                                if t + 1 > K:
                                    break
                                dx = t + 1
                                ne.root = rb
                                if self.rho_on and rb == 0:
                                    # the top DP of a mixed stack (see F): 0 -> h is
                                    # priced by the lower pass for h's root type
                                    ne.loss = e.loss + self.rho_val[root_type(g, ra)]
                                else:
                                    ne.loss = e.loss + dlt(g, tb.rs[t], ra)
                                ne.ls.len = 0
                                for k in range(tb.nl):
                                    append(&ne.ls, tb.ls[k], k + 1, K)
                                ne.rs.len = 0
                                for k in range(t + 1):
                                    append(&ne.rs, tb.rs[k], k + 1, K)
                                for k in range(e.rs.len):
                                    append(&ne.rs, e.rs.node[k], e.rs.dep[k] + dx, K)
                                self.cap = capL
                                self.insert(&self.cells[i * lR + (j - 1)], &ne, i + 1, j)
                    if j < lR:
                        r = self.rootR[j + 1]
                        # la (k = 1 only): r takes ra; r's spines are (<r>, <r>)
                        if ra != 0:
                            ne.root = r
                            ne.loss = e.loss + dlt(g, r, ra)
                            ne.ls.len = 0
                            append(&ne.ls, r, 1, K)
                            for k in range(e.ls.len):
                                append(&ne.ls, e.ls.node[k], e.ls.dep[k] + 1, K)
                            ne.rs.len = 0
                            append(&ne.rs, r, 1, K)
                            self.cap = capR
                            self.insert(&self.cells[(i - 1) * lR + j], &ne, i, j + 1)
                        # ra: the head is on e's right spine, the dependent is r
                        for t in range(e.rs.len):
                            dx = e.rs.dep[t]
                            ne.root = ra
                            ne.loss = e.loss + dlt(g, e.rs.node[t], r)
                            ne.ls = e.ls
                            ne.rs.len = 0
                            for k in range(t + 1):
                                append(&ne.rs, e.rs.node[k], e.rs.dep[k], K)
                            append(&ne.rs, r, dx + 1, K)
                            self.cap = capR
                            self.insert(&self.cells[(i - 1) * lR + j], &ne, i, j + 1)
        best = LRS_TRIPPED if tripped else LRS_INF
        cell = &self.cells[(lL - 1) * lR + (lR - 1)]
        for s in range(<int>cell.size()):
            if not tripped and cell[0][s].root == 0 and cell[0][s].loss < best:
                best = cell[0][s].loss
        for i in range(1, lL + 1):
            h = g.head[el[lL - i].root]
            if h >= 0:
                self.maxL[h] = 0
        for j in range(2, lR + 1):
            h = g.head[self.rootR[j]]
            if h >= 0:
                self.maxR[h] = 0
            self.posR[self.rootR[j]] = 0
        clear_spine_marks(el, lL, self.posL.data(), self.posL.data())
        if self.thresh < LRS_INF:
            for t in range(lL):
                self.sure[el[t].root] = 0
                h = g.head[el[t].root]
                if h >= 0:
                    self.lfirst[h] = 0
            for t in range(nR):
                self.sure[self.R[t]] = 0
                h = g.head[self.R[t]]
                if h >= 0:
                    self.rfirst[h] = 0
        return best

    cdef void mark_sure(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                        int nR) noexcept nogil:
        """sure[x] = 1 for the items of dp (the element roots el[1..], the right items
        self.R[0..nR-1]) whose known gold head can no longer take them, as in lost(): each
        is attached by a wrong arc in every derivation (dp clears the marks)."""
        cdef int t
        if <int>self.sure.size() < g.n + 2:
            self.sure.resize(g.n + 2, 0)
        self.mark_spines(g, el, nE)
        for t in range(1, nE):
            self.sure[el[t].root] = self.root_lost(g, el[t].root, t, b)
        for t in range(nR):
            self.sure[self.R[t]] = self.right_lost(g, self.R[t], b)
        clear_spine_marks(el, nE, self.lsel.data(), self.rsel.data())

    cdef void mark_spines(self, const LRSGold* g, const LRSElem* el, int nE) noexcept nogil:
        """lsel[x] / rsel[x] = t + 1 for the left / right spine nodes x of el[t] (root_lost,
        right_lost; the caller clears them with clear_spine_marks)."""
        cdef int t, s
        if <int>self.lsel.size() < g.n + 2:
            self.lsel.resize(g.n + 2, 0)
            self.rsel.resize(g.n + 2, 0)
        for t in range(nE):
            for s in range(el[t].nl):
                self.lsel[el[t].ls[s]] = t + 1
            for s in range(el[t].nr):
                self.rsel[el[t].rs[s]] = t + 1

    cdef bint root_lost(self, const LRSGold* g, int d, int t, int b) noexcept nogil:
        """The root d of el[t] can no longer get its gold head (after mark_spines): a known
        head left of b (not 0, not unknown, not a buffer word) that is neither on the left
        spine of a higher element nor on the right spine of a lower one."""
        cdef int h = g.head[d]
        return not (h <= 0 or h >= b or self.lsel[h] > t + 1 or 0 < self.rsel[h] < t + 1)

    cdef bint right_lost(self, const LRSGold* g, int x, int b) noexcept nogil:
        """Buffer word x can no longer get its gold head (after mark_spines): a known head
        left of b on no element's right spine."""
        cdef int h = g.head[x]
        return h > 0 and h < b and self.rsel[h] == 0

    cdef void mark_pending(self, const LRSGold* g, const LRSElem* el, int lL,
                           int lR) noexcept nogil:
        """pend[i * (lR + 2) + j]: the pending items of cell (i, j), items still to come (a
        stack item σL[k], k > i, or a right item rootR[k], k > j), not sure, whose known
        gold head is a node of the tree the cell has built (on a spine of σL[1..i], posL,
        or a right item rootR[2..j], posR). Such an item can only be attached correctly
        by a node of the current tree that is on its left spine (a stack item) or right
        spine (a right item) now: a node off those spines never returns to them (la_k keeps
        a prefix of the left spine below the new root, ra_k a prefix of the right one; the
        tree taken loses the other spine) and a stack item that takes the tree has its head
        below it. So entry e of the cell loses at least pend - spine_credit(e) more (insert).
        Each item adds 1 to a rectangle of cells (2-D difference array, then prefix sums)."""
        cdef int W = lR + 2
        cdef int k, d, h, p, q, r1, r2, c1, c2, i, j
        cdef int* D
        self.pend_w = W
        self.pend.assign((lL + 2) * W, 0)
        D = self.pend.data()
        # spine_credit's lists: per head node, its non-sure dependents among the stack items
        # σL[k] (k >= 2) and among the right items rootR[k] (k >= 2), by decreasing k
        if <int>self.lfirst.size() < self.g.n + 2:
            self.lfirst.resize(self.g.n + 2, 0)
            self.rfirst.resize(self.g.n + 2, 0)
        if <int>self.lnext.size() < lL + 2:
            self.lnext.resize(lL + 2, 0)
        if <int>self.rnext.size() < lR + 2:
            self.rnext.resize(lR + 2, 0)
        for k in range(2, lL + 1):
            d = el[lL - k].root
            if d > 0 and not self.sure[d] and g.head[d] >= 0:
                self.lnext[k] = self.lfirst[g.head[d]]
                self.lfirst[g.head[d]] = k
        for k in range(2, lR + 1):
            d = self.rootR[k]
            if d > 0 and not self.sure[d] and g.head[d] >= 0:
                self.rnext[k] = self.rfirst[g.head[d]]
                self.rfirst[g.head[d]] = k
        for k in range(2, lL + lR + 1):
            if k <= lL:                      # stack item σL[k]
                d = el[lL - k].root
            elif k - lL >= 2:                # right item rootR[k - lL]
                d = self.rootR[k - lL]
            else:
                continue
            if d <= 0 or self.sure[d]:
                continue
            h = g.head[d]
            if h < 0:
                continue
            p = self.posL[h]
            q = self.posR[h]
            if k <= lL:
                if 1 <= p < k:               # head in σL[p]: pending for i in [p, k-1]
                    r1, r2, c1, c2 = p, k - 1, 1, lR
                elif q >= 2:                 # head is rootR[q]: for i < k, j >= q
                    r1, r2, c1, c2 = 1, k - 1, q, lR
                else:
                    continue
            else:
                if p >= 1:                   # head in σL[p]: for i >= p, j < k
                    r1, r2, c1, c2 = p, lL, 1, k - lL - 1
                elif 2 <= q < k - lL:        # head is rootR[q]: for j in [q, k-1]
                    r1, r2, c1, c2 = 1, lL, q, k - lL - 1
                else:
                    continue
            if r1 > r2 or c1 > c2:
                continue
            D[r1 * W + c1] += 1
            D[r1 * W + c2 + 1] -= 1
            D[(r2 + 1) * W + c1] -= 1
            D[(r2 + 1) * W + c2 + 1] += 1
        for i in range(1, lL + 1):
            for j in range(1, lR + 1):
                D[i * W + j] += D[(i - 1) * W + j] + D[i * W + j - 1] - D[(i - 1) * W + j - 1]

    cdef int spine_credit(self, const Entry* e, int i, int j) noexcept nogil:
        """The pending items of cell (i, j) (mark_pending) whose gold head is on e's left
        spine (stack items σL[k], k > i) or right spine (right items rootR[k], k > j): walks
        mark_pending's per-head lists of such items (decreasing k), so it costs the items
        counted, not every gold child of the spine nodes."""
        cdef int s, n = 0
        for s in range(e.ls.len):
            if e.ls.node[s] >= 0:
                n += items_after(self.lfirst.data(), self.lnext.data(), e.ls.node[s], i)
        for s in range(e.rs.len):
            if e.rs.node[s] >= 0:
                n += items_after(self.rfirst.data(), self.rnext.data(), e.rs.node[s], j)
        return n

    cdef int F(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil:
        """Future loss F(c) (docs/specs/lr_spine_and_arc_standard.md §3.7), el[0..nE-1] bottom ->
        top, el[0].root == 0.

        Mixed stacks (see the module docstring, "Mixed stacks"): let J be the gold block
        of s0's root and the top run el[t1..nE-1] the elements whose roots lie in J (a top
        segment: roots increase upwards). When b is in J (or the buffer is empty) and the
        split is clean, F = the top DP over [fresh 0] + top run + b..E with its first arc
        0 -> h priced rho_val[type(h)] (the lower pass, cached). Otherwise the one
        whole-stack DP (dp), as before."""
        cdef int t, t1, s, x, h, JE, v, m, saved
        cdef bint clean
        cdef const LRSElem* e
        if not (self.cut and self.mixed) or nE < 2:
            self.last_path |= LRS_PATH_PLAIN
            return self.dp(g, el, nE, b)
        JE = g.blk_e[el[nE - 1].root]
        if b <= g.n and g.blk_e[b] != JE:
            # next block: b's block starts after s0's root. If it starts at b (b - 1 ends
            # a block), no stack node lies in it and F = F(stack, empty buffer) + the DP
            # of [fresh 0] and b..E (arc-standard's Lemma 4, proof of
            # docs/proofs/arc_standard_mixed_stacks.md §4; in LR-spine an arc from a node
            # of 0's right spine below 0 onto b..E costs κ >= δ(0 -> .) at a greater
            # depth, so a fresh 0 loses nothing). Else s0's tree holds words of b's block:
            # the whole-stack DP.
            if g.blk_e[b - 1] == b - 1:
                self.last_path |= LRS_PATH_NEXT
                v = self.F(g, el, nE, g.n + 1)
                if v == LRS_TRIPPED or v >= LRS_INF:    # out of budget, or above the bound
                    return v
                saved = self.thresh
                if saved < LRS_INF:
                    self.thresh = saved - v
                m = self.dp(g, self.fresh_root_sub(1), 1, b)
                self.thresh = saved
                return m if (m == LRS_TRIPPED or m >= LRS_INF) else v + m
            self.last_path |= LRS_PATH_DIRTY
            return self.dp(g, el, nE, b)
        if nE < 3:
            self.last_path |= LRS_PATH_PLAIN
            return self.dp(g, el, nE, b)
        t1 = nE - 1
        while t1 > 1 and g.blk_e[el[t1 - 1].root] == JE:
            t1 -= 1
        if t1 == 1:
            self.last_path |= LRS_PATH_PLAIN
            return self.dp(g, el, nE, b)
        # clean split: (a) the highest lower element's right spine holds no J node (the
        # lower ones lie left of its root); (b) every left-spine node of a top element is
        # in J or, in mode 2, takes no lower root as a gold dependent (such a node is a
        # site for la_k onto lower roots only, where every arc from it costs κ(dep), as
        # from a J node; right spines of top elements lie in J: they are right of a J
        # root and left of b)
        clean = True
        e = &el[t1 - 1]
        for s in range(1, e.nr):
            if g.blk_e[e.rs[s]] == JE:
                clean = False
        if clean:
            if <int>self.lmark.size() < g.n + 2:
                self.lmark.resize(g.n + 2, 0)
            for t in range(1, t1):
                h = g.head[el[t].root]
                if h >= 1:
                    self.lmark[h] = 1
            for t in range(t1, nE):
                for s in range(1, el[t].nl):
                    x = el[t].ls[s]
                    if g.blk_e[x] != JE and (self.mixed == 1 or self.lmark[x]):
                        clean = False
            for t in range(1, t1):
                h = g.head[el[t].root]
                if h >= 1:
                    self.lmark[h] = 0
        if not clean:
            self.last_path |= LRS_PATH_DIRTY
            return self.dp(g, el, nE, b)
        self.last_path |= LRS_PATH_MIXED
        return self.split_value(g, el, nE, b, t1)

    cdef int split_value(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                         int t1) noexcept nogil:
        """The value of the split at t1 (1 < t1 < nE): the DP over [fresh 0] + el[t1..] +
        b..E whose first arc 0 -> h is priced by the lower pass over el[0..t1-1] (see F,
        the mixed path, where it is F under the clean split; upper, where it is an upper
        bound at any split). LRS_TRIPPED if the count budget runs out."""
        cdef int t, v
        cdef int m = nE - t1 + 1
        if self.lower_pass(g, el, t1) == LRS_TRIPPED:
            return LRS_TRIPPED
        self.fresh_root_sub(m)
        for t in range(t1, nE):
            self.sub[t - t1 + 1] = el[t]
        self.rho_on = True
        v = self.dp(g, self.sub.data(), m, b)
        self.rho_on = False
        return v

    cdef LRSElem* fresh_root_sub(self, int m) noexcept nogil:
        """self.sub with room for m elements, sub[0] a fresh virtual root 0 (spines <0>):
        the start of the separate DPs of the next and mixed paths."""
        cdef LRSElem* z
        if <int>self.sub.size() < m:
            self.sub.resize(m)
        z = &self.sub[0]
        z.root = 0
        z.nl = 1
        z.nr = 1
        z.ls[0] = 0
        z.rs[0] = 0
        return z

    cdef int lower_pass(self, const LRSGold* g, const LRSElem* el, int t1) noexcept nogil:
        """rho_val[ty] = F([el[0..t1-1], <P>], empty buffer) for a phantom word P of root
        type ty (0: gold root, 1: unknown head, 2: any other known head): the best way to
        finish the lower elements once the top run and a buffer prefix form one tree H of
        root h. Only h's type matters: every arc between h and a lower word crosses blocks,
        so it costs κ of its dependent (δ(0 -> h) for the arc onto 0), and H's other nodes
        serve no lower element (its left-spine J nodes are dominated by its root, its
        right spine takes nothing from below). P is node n + 1 with gold head 0,
        LRS_UNKNOWN or LRS_OTHER written into g.head[n + 1] for the three DPs and reset.
        Cached on (g.serial, the lower elements), LRS_RHO_SLOTS slots overwritten in
        turn: the successors of one state and the states of one sentence share them, and
        a batch steps the states of several Docs in turn. LRS_TRIPPED (and the slot left
        empty) if the count budget runs out."""
        cdef int t, s, ty, slot, saved
        cdef int P = g.n + 1
        cdef int* gh = <int*>g.head
        cdef const LRSElem* a
        cdef const LRSElem* c
        cdef vector[LRSElem]* key
        cdef bint same
        for slot in range(LRS_RHO_SLOTS):
            key = &self.rho_keys[slot]
            same = self.rho_serials[slot] == g.serial and <int>key.size() == t1
            t = 0
            while same and t < t1:
                a = &el[t]
                c = &key[0][t]
                if a.root != c.root or a.nl != c.nl or a.nr != c.nr:
                    same = False
                    break
                for s in range(a.nl):
                    if a.ls[s] != c.ls[s]:
                        same = False
                for s in range(a.nr):
                    if a.rs[s] != c.rs[s]:
                        same = False
                t += 1
            if same:
                for ty in range(3):
                    self.rho_val[ty] = self.rho_vals[3 * slot + ty]
                return 0
        self.rho_misses += 1
        slot = -1           # rho_frozen: computed, not stored
        if not self.rho_frozen:
            slot = self.rho_next
            self.rho_next = (slot + 1) % LRS_RHO_SLOTS
            key = &self.rho_keys[slot]
            self.rho_serials[slot] = g.serial
            key.resize(t1)
            for t in range(t1):
                key[0][t] = el[t]
        if <int>self.sub.size() < t1 + 1:
            self.sub.resize(t1 + 1)
        for t in range(t1):
            self.sub[t] = el[t]
        self.sub[t1].root = P
        self.sub[t1].nl = 1
        self.sub[t1].nr = 1
        self.sub[t1].ls[0] = P
        self.sub[t1].rs[0] = P
        saved = self.thresh
        self.thresh = LRS_INF       # exact: the values are cached and priced into other DPs
        for ty in range(3):
            gh[P] = 0 if ty == 0 else (LRS_UNKNOWN if ty == 1 else LRS_OTHER)
            self.rho_val[ty] = self.dp(g, self.sub.data(), t1 + 1, g.n + 1)
            if slot >= 0:
                self.rho_vals[3 * slot + ty] = self.rho_val[ty]
            if self.rho_val[ty] == LRS_TRIPPED:
                if slot >= 0:
                    self.rho_serials[slot] = -1
                gh[P] = LRS_UNKNOWN
                self.thresh = saved
                return LRS_TRIPPED
        gh[P] = LRS_UNKNOWN
        self.thresh = saved
        return 0

    cdef int succ_F(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                    int* low) noexcept nogil:
        """F(el, b) while the state's budget lasts (low[0] = F); once it has run out (this
        call or an earlier one of the state), an upper bound (returned) and a lower bound
        (low[0]) instead, under a fresh budget of a quarter for the bounds of the state."""
        cdef int v
        if not self.in_fallback:
            v = self.F(g, el, nE, b)
            if v != LRS_TRIPPED:
                low[0] = v
                return v
            self.in_fallback = True
            self.limit = self.inserts + (self.budget + 3) // 4
        self.thresh = LRS_INF       # the bounds are those of the whole DPs
        low[0] = self.lost(g, el, nE, b)
        return self.upper(g, el, nE, b)

    cdef int upper(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil:
        """An upper bound on F(el, b) (module docstring, "Guard"): the split value at
        t1 = nE - m for a top run of m = (nE - 1) // 2 elements, halved until its DPs fit in
        what is left of the budget, and never above the number of words still to attach
        (each loses at most 1; later blocks lose 0)."""
        cdef int m, v
        cdef int trivial = nE - 1
        if b <= g.n:
            trivial += (g.blk_e[b] if self.cut else g.n) - b + 1
        m = (nE - 1) // 2
        while m >= 1:
            v = self.split_value(g, el, nE, b, nE - m)
            if v != LRS_TRIPPED:
                return v if v < trivial else trivial
            m //= 2
        return trivial

    cdef int lost(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil:
        """A lower bound on F(el, b): the words still to attach (element roots, buffer
        words up to the end of b's block) whose known gold head, a word, can no longer take
        them (module docstring, "Guard"): for a stack root d of el[t], a head left of b that
        is neither on the left spine of a higher element nor on the right spine of a lower
        one; for a buffer word, a head left of b on no element's right spine."""
        cdef int t, x, E
        cdef int n_lost = 0
        self.mark_spines(g, el, nE)
        for t in range(1, nE):
            n_lost += self.root_lost(g, el[t].root, t, b)
        if b <= g.n:
            E = g.blk_e[b] if self.cut else g.n
            for x in range(b, E + 1):
                n_lost += self.right_lost(g, x, b)
        clear_spine_marks(el, nE, self.lsel.data(), self.rsel.data())
        return n_lost

    cdef int greedy(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil:
        """An upper bound on F(el, b) (module docstring, "Settling successors without a
        DP"): the loss of one computation of the capped system from the configuration to
        the end of b's block (the stack reduced onto el[0]), the words still to attach
        given a wrong head. Its moves, at each step: an arc of cost 0 that strands no gold
        dependent still to attach (doom), the smallest k first; else SHIFT while the top
        element has a gold relation with the words left in the block (needs_buffer); else
        the arc of the least δ + doom, ties to one after which such a free arc follows."""
        cdef int K = self.K
        cdef int E, top, t, k, c, best, best_c, x, loss = 0
        cdef LRSElem* s1
        cdef LRSElem* s2
        cdef LRSElem merged
        E = (g.blk_e[b] if self.cut else g.n) if b <= g.n else g.n
        if <int>self.gstack.size() < nE + E - b + 2:
            self.gstack.resize(nE + E - b + 2)
        if <int>self.unatt.size() < g.n + 2:
            self.unatt.resize(g.n + 2, 0)
        for t in range(nE):
            self.gstack[t] = el[t]
            if t > 0:
                self.unatt[el[t].root] = 1
        for x in range(b, E + 1):
            self.unatt[x] = 1
        top = nE
        while True:
            best = -1
            if top >= 2:
                s1 = &self.gstack[top - 1]
                s2 = &self.gstack[top - 2]
                for k in range(1, K + 1):
                    if k <= s1.nl and s2.root != 0 and dlt(g, s1.ls[k - 1], s2.root) == 0 \
                            and self.doom(g, s1, s2, k) == 0:
                        best = k
                        break
                    if k <= s2.nr and dlt(g, s2.rs[k - 1], s1.root) == 0 \
                            and self.doom(g, s1, s2, K + k) == 0:
                        best = K + k
                        break
                if best < 0 and (b > E or not self.needs_buffer(g, s1, b, E)):
                    # nothing left for the top in the block: the cheapest arc now, ties
                    # to one after which a free arc follows
                    best_c = LRS_INF
                    for t in range(1, 2 * K + 1):
                        c = self.arc_price(g, s1, s2, t)
                        if c < 0:
                            continue
                        c = 2 * c + (0 if top >= 3 and self.free_after(
                            g, s1, s2, &self.gstack[top - 3], t) else 1)
                        if c < best_c:
                            best_c = c
                            best = t
            if best < 0:
                if b > E:
                    break
                s1 = &self.gstack[top]
                s1.root = b
                s1.nl = s1.nr = 1
                s1.ls[0] = s1.rs[0] = b
                top += 1
                b += 1
                continue
            if best <= K:
                loss += dlt(g, s1.ls[best - 1], s2.root)
                self.unatt[s2.root] = 0
            else:
                loss += dlt(g, s2.rs[best - K - 1], s1.root)
                self.unatt[s1.root] = 0
            merge_top(s1, s2, best, K, &merged)
            s2[0] = merged
            top -= 1
        return loss

    cdef bint needs_buffer(self, const LRSGold* g, const LRSElem* s1, int b,
                           int E) noexcept nogil:
        """greedy: the top element s1 still has a gold relation with the buffer b..E: its
        root's gold head is there, or a node of its right spine has a gold dependent
        there (still to attach)."""
        cdef int s
        cdef int h = g.head[s1.root]
        if b <= h <= E:
            return True
        for s in range(s1.nr):
            if stranded(g, self.unatt.data(), s1.rs[s], True, -1):
                return True
        return False

    cdef int arc_price(self, const LRSGold* g, const LRSElem* s1, const LRSElem* s2,
                       int t) noexcept nogil:
        """greedy: δ + doom of arc move t (k: la_k, K + k: ra_k) on the top element s1 and
        the one below it, s2; -1 if t is not valid there."""
        cdef int K = self.K
        cdef int k = t if t <= K else t - K
        if t <= K:
            if k > s1.nl or s2.root == 0:
                return -1
            return dlt(g, s1.ls[k - 1], s2.root) + self.doom(g, s1, s2, t)
        if k > s2.nr:
            return -1
        return dlt(g, s2.rs[k - 1], s1.root) + self.doom(g, s1, s2, t)

    cdef bint free_after(self, const LRSGold* g, const LRSElem* s1, const LRSElem* s2,
                         const LRSElem* s3, int t) noexcept nogil:
        """greedy's tie-break: after arc move t on s2 s1, the new top and s3 below it have
        an arc of price 0."""
        cdef LRSElem merged
        cdef int u, dep = s2.root if t <= self.K else s1.root
        cdef bint free = False
        merge_top(s1, s2, t, self.K, &merged)
        self.unatt[dep] = 0
        for u in range(1, 2 * self.K + 1):
            if self.arc_price(g, &merged, s3, u) == 0:
                free = True
                break
        self.unatt[dep] = 1
        return free

    cdef int doom(self, const LRSGold* g, const LRSElem* s1, const LRSElem* s2,
                  int t) noexcept nogil:
        """The gold dependents still to attach (greedy's unatt) that move t (k: la_k,
        K + k: ra_k) on the top element s1 and the one below it, s2, takes off every
        spine their head was on, other than the move's own dependent (whose arc is δ):
        a stack root needs its head on a left spine, a word to its right on a right one,
        and a node that leaves a spine never returns to it. la_k: the left-spine nodes of
        s1 below ls(s1)[k], the right spine of s2, the left-spine nodes of s2 pushed past
        depth K; ra_k: the left spine of s1, the right-spine nodes of s2 below rs(s2)[k],
        the right-spine nodes of s1 pushed past depth K."""
        cdef int K = self.K
        cdef int k, s, n = 0
        cdef const int* un = self.unatt.data()
        if t <= K:
            k = t
            for s in range(k, s1.nl):
                n += stranded(g, un, s1.ls[s], False, s2.root)
            for s in range(s2.nr):
                n += stranded(g, un, s2.rs[s], True, -1)
            for s in range(s2.nl):
                if k + 1 + s > K:
                    n += stranded(g, un, s2.ls[s], False, -1)
        else:
            k = t - K
            for s in range(s1.nl):
                n += stranded(g, un, s1.ls[s], False, -1)
            for s in range(k, s2.nr):
                n += stranded(g, un, s2.rs[s], True, s1.root)
            for s in range(s1.nr):
                if k + 1 + s > K:
                    n += stranded(g, un, s1.rs[s], True, -1)
        return n

    cdef void values(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                     const int* want, int* val) noexcept nogil:
        """val[0] (sh), val[k] (la_k), val[K + k] (ra_k), k = 1..K: δ(arc) + F(successor)
        (docs/specs/lr_spine_and_arc_standard.md §3.8), LRS_INF where not wanted or not valid in
        the capped system.

        exact=False (module docstring, "Zero-cost set only"): exact for the moves of the
        smallest value, a lower bound above it for the others; the bound starts at F of
        this configuration when the memo has it, and the state is valued again without
        one if it was too low.

        The guard (module docstring, "Guard"): with a budget, the DPs of one state may
        insert at most `budget` entries. Once that runs out, the remaining successors get
        an interval [low, up] instead of their value (succ_F), and the values become
        val = U + max(0, low - U), U the smallest upper bound over the moves, so that
        val - min(val) = max(0, low - U) is a lower bound on each exact cost (exact ones
        have low = up = value), 0 for every move the exact oracle gives 0. A move whose
        value was only bounded below by the threshold has no upper bound: it takes no part
        in U."""
        cdef int K = self.K
        cdef int t, s, n_exact
        cdef int low[2 * LRS_MAXK + 1]
        cdef int up = LRS_INF
        cdef int bound = LRS_INF
        cdef long start = self.inserts
        cdef unsigned long long key = 0
        cdef bint exact_values = self.exact
        self.last_path = 0
        self.in_fallback = False
        self.limit = start + self.budget if self.budget > 0 else -1
        self.state_F = -1
        # phase 0, the zero-cost pass, is the same computation in both modes (module
        # docstring, "Two phases"): exact=False for its move_value calls
        self.exact = False
        key = config_key(el, nE, b, 0)
        for s in range(LRS_MEMO_SLOTS):
            if self.memo[s].serial == g.serial and self.memo[s].key == key \
                    and self.memo[s].key2 == config_key(el, nE, b, 1):
                self.state_F = self.memo[s].F
                bound = self.state_F
                self.memo_hits += 1
                break
        for t in range(2 * K + 1):
            val[t] = LRS_INF
            low[t] = LRS_INF
        n_exact = self.successor_values(g, el, nE, b, want, val, low, &bound)
        if n_exact == 0 and not self.in_fallback and bound < LRS_INF:
            # every successor above the memo's bound: value them again without one
            self.reruns += 1
            bound = LRS_INF
            self.state_F = -1
            for t in range(2 * K + 1):
                val[t] = LRS_INF
                low[t] = LRS_INF
            self.successor_values(g, el, nE, b, want, val, low, &bound)
        self.exact = exact_values
        if exact_values and not self.in_fallback:
            # what the zero-cost pass left of the state's budget, and the quarter the guard's
            # bounds would have had (the pass did not run out, so they were not used)
            self.limit = start + self.budget + (self.budget + 3) // 4 if self.budget > 0 else -1
            self.exact_phase(g, el, nE, b, val, low)
        self.thresh = LRS_INF
        self.limit = -1
        self.last_inserts = self.inserts - start
        if self.last_inserts > self.max_inserts:
            self.max_inserts = self.last_inserts
        if not self.in_fallback:
            return
        self.guard_states += 1
        self.last_path |= LRS_PATH_GUARD
        for t in range(2 * K + 1):
            if val[t] < up and not self.prn[t]:
                up = val[t]
        for t in range(2 * K + 1):
            if val[t] < LRS_INF:
                val[t] = up + (low[t] - up if low[t] > up else 0)

    cdef int successor_values(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                              const int* want, int* val, int* low, int* bound) noexcept nogil:
        """values' successors: val[t] = δ + F(successor) and low[t] = val[t], or, once the
        guard has tripped, val[t] = δ + an upper bound and low[t] = δ + a lower bound; with
        exact=False, bound[0] + 1 (prn[t] = 1) for a successor above the running bound.
        With exact=False the arcs of cost 0 go first, then SHIFT, then the other arcs (the
        likely-best first makes the bound tight early). Returns how many successors got a
        value without the threshold cutting them (exact or guard-bounded)."""
        cdef int K = self.K
        cdef int t, k, pass_, n = 0
        cdef const LRSElem* s1
        cdef const LRSElem* s2
        cdef int d[2 * LRS_MAXK + 1]
        cdef int m, bb, last
        cdef bint all_wanted = True     # every valid move is wanted (Bellman's equation)
        for t in range(2 * K + 1):
            self.prn[t] = 0
            d[t] = -1                       # -1: not wanted or not valid
            self.gup[t] = -1
        if b <= g.n:
            d[0] = 0
        if nE >= 2:
            s1 = &el[nE - 1]
            s2 = &el[nE - 2]
            for k in range(1, K + 1):
                if k <= s1.nl and s2.root != 0:
                    d[k] = dlt(g, s1.ls[k - 1], s2.root)
                if k <= s2.nr:
                    d[K + k] = dlt(g, s2.rs[k - 1], s1.root)
        for t in range(2 * K + 1):
            if d[t] >= 0 and not want[t]:
                all_wanted = False
                d[t] = -1
        if self.greedy_bounds and g.projective and not self.in_fallback:
            # the bounds of every successor first (module docstring, "Settling successors
            # without a DP"); the best of them is a bound for the DPs
            for t in range(2 * K + 1):
                if d[t] >= 0:
                    self.successor(g, el, nE, b, t, &m, &bb)
                    self.gup[t] = self.greedy(g, self.succ.data(), m, bb)
                    self.glo[t] = self.lost(g, self.succ.data(), m, bb)
                    if d[t] + self.gup[t] < bound[0]:
                        bound[0] = d[t] + self.gup[t]
        last = self.bellman_candidate(g, d, all_wanted)
        for pass_ in range(3):              # arcs of cost 0, SHIFT, other arcs
            for t in range(2 * K + 1):
                if d[t] < 0 or t == last or (pass_ == 0 and (t == 0 or d[t] != 0)) \
                        or (pass_ == 1 and t != 0) or (pass_ == 2 and (t == 0 or d[t] == 0)):
                    continue
                n += self.move_value(g, el, nE, b, t, val, low, bound, &self.skey[t])
        if last < 0:
            return n
        for t in range(2 * K + 1):
            if d[t] >= 0 and t != last and not self.prn[t] and val[t] <= self.state_F:
                break
        else:
            if not self.in_fallback:
                # every other move is above F(state) (pruned under the memo's bound, or
                # valued above it): move `last` attains it
                self.eliminated += 1
                val[last] = low[last] = self.state_F
                self.successor(g, el, nE, b, last, &m, &bb)
                self.remember(g, m, bb, self.state_F - d[last], &self.skey[last])
                return n + 1
        return n + self.move_value(g, el, nE, b, last, val, low, bound, &self.skey[last])

    cdef int bellman_candidate(self, const LRSGold* g, const int* d,
                               bint all_wanted) noexcept nogil:
        """The move whose successor successor_values values last and, when every other
        successor is above F(state), not at all (module docstring, "Bellman's last move"):
        with F(state) from the memo, every valid move wanted and complete projective gold
        (where Bellman's equation holds for the DP's values), without greedy_bounds SHIFT
        if valid (its DP has the most stack items), else none; with them, the successor that
        needs a DP (neither settled nor certified by its bounds) and may attain F(state)
        (δ + lost <= F(state)) with the least δ + greedy loss, SHIFT first on ties; -1 if
        none."""
        cdef int t, best = -1
        if not (self.bellman and all_wanted and self.state_F >= 0 and g.projective) \
                or self.in_fallback:
            return -1
        if not self.greedy_bounds:
            return 0 if d[0] >= 0 else -1
        for t in range(2 * self.K + 1):
            if d[t] < 0 or self.gup[t] < 0 or self.glo[t] == self.gup[t] \
                    or d[t] + self.gup[t] <= self.state_F or d[t] + self.glo[t] > self.state_F:
                continue
            if best < 0 or d[t] + self.gup[t] < d[best] + self.gup[best]:
                best = t
        return best

    cdef void exact_phase(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                          int* val, int* low) noexcept nogil:
        """Phase 1 (exact=True; module docstring, "Two phases"): the exact value of every
        move the zero-cost pass only bounded (prn), each successor's DP under its greedy
        loss as threshold where the gold is complete and projective (settled without a DP
        when the lost words meet it), under the limit values sets (what the zero-cost pass
        left of the state's budget plus a quarter of it). It changes
        nothing a later state's zero-cost pass reads: no memo entry, no lower-pass cache
        entry. When the budget runs out, the moves not yet valued keep their lower bounds
        (>= 1 above the smallest value: the zero-cost set stays exact), path LRS_PATH_LOWER."""
        cdef int t, d, m, bb, v, up, lo
        self.rho_frozen = True
        for t in range(2 * self.K + 1):
            if not self.prn[t]:
                continue
            d = self.successor(g, el, nE, b, t, &m, &bb)
            self.thresh = LRS_INF
            up = -1
            if g.projective:
                up = self.gup[t] if self.greedy_bounds else self.greedy(g, self.succ.data(), m, bb)
                lo = self.glo[t] if self.greedy_bounds else self.lost(g, self.succ.data(), m, bb)
                if lo == up:
                    self.settled += 1
                    val[t] = low[t] = d + up
                    self.prn[t] = 0
                    continue
                self.thresh = up
            self.phase1_dps += 1
            v = self.F(g, self.succ.data(), m, bb)
            if v >= LRS_INF and up >= 0:
                self.greedy_misses += 1     # nothing under the greedy loss: not exact gold
                self.thresh = LRS_INF
                v = self.F(g, self.succ.data(), m, bb)
            if v == LRS_TRIPPED:
                self.lower_states += 1
                self.last_path |= LRS_PATH_LOWER
                break
            val[t] = low[t] = d + v
            self.prn[t] = 0
        self.thresh = LRS_INF
        self.rho_frozen = False

    cdef void remember(self, const LRSGold* g, int m, int b, int v,
                       unsigned long long* key) noexcept nogil:
        """Put F = v of the configuration self.succ[0..m-1], b into the memo (key[0]: its
        first 64-bit key)."""
        key[0] = config_key(self.succ.data(), m, b, 0)
        self.memo[self.memo_next].serial = g.serial
        self.memo[self.memo_next].key = key[0]
        self.memo[self.memo_next].key2 = config_key(self.succ.data(), m, b, 1)
        self.memo[self.memo_next].F = v
        self.memo_next = (self.memo_next + 1) % LRS_MEMO_SLOTS

    cdef int successor(self, const LRSGold* g, const LRSElem* el, int nE, int b, int t,
                       int* m, int* b_next) noexcept nogil:
        """Write move t's successor (0: sh, k: la_k, K + k: ra_k; valid) into self.succ:
        m[0] elements, first buffer node b_next[0]. Returns δ of its arc (0 for sh)."""
        cdef int s
        cdef LRSElem* top
        cdef const LRSElem* s1 = &el[nE - 1]
        cdef const LRSElem* s2 = &el[nE - 2] if nE >= 2 else NULL
        if <int>self.succ.size() < nE + 1:
            self.succ.resize(nE + 1)
        if t == 0:
            for s in range(nE):
                self.succ[s] = el[s]
            top = &self.succ[nE]
            top.root = b
            top.nl = 1
            top.nr = 1
            top.ls[0] = b
            top.rs[0] = b
            m[0] = nE + 1
            b_next[0] = b + 1
            return 0
        for s in range(nE - 2):
            self.succ[s] = el[s]
        merge_top(s1, s2, t, self.K, &self.succ[nE - 2])
        m[0] = nE - 1
        b_next[0] = b
        if t <= self.K:
            return dlt(g, s1.ls[t - 1], s2.root)
        return dlt(g, s2.rs[t - self.K - 1], s1.root)

    cdef int move_value(self, const LRSGold* g, const LRSElem* el, int nE, int b, int t,
                        int* val, int* low, int* bound, unsigned long long* key) noexcept nogil:
        """val[t], low[t] for move t (0: sh, k: la_k, K + k: ra_k), valid and wanted, as
        successor_values says; with exact=False its DP keeps only what may end at or below
        bound[0] - δ, an exact value lowers bound[0] and goes into the memo. With greedy_bounds
        (module docstring, "Settling successors without a DP"; gup[t] >= 0) the successor
        is first valued by its bounds: lost = greedy loss, or δ + greedy loss = F of the
        state (memo), gives F without a DP; with exact=False, δ + lost > bound[0] puts it
        above the bound; else its DP runs under the greedy loss as threshold. Returns 1
        when the move got a value (exact or guard-bounded), 0 when the threshold cut it."""
        cdef int d, v, m, up
        cdef bint exact_v = False
        cdef bint by_greedy = False
        d = self.successor(g, el, nE, b, t, &m, &b)
        self.thresh = LRS_INF
        up = self.gup[t] if self.greedy_bounds else -1
        if up >= 0 and not self.in_fallback:
            if self.glo[t] == up:
                self.settled += 1
                exact_v = True
            elif self.state_F >= 0 and d + up <= self.state_F:
                self.certified += 1
                exact_v = True
            elif not self.exact and bound[0] < LRS_INF and d + self.glo[t] > bound[0]:
                self.excluded += 1
                self.prn[t] = 1
                val[t] = low[t] = bound[0] + 1
                return 0
            else:
                self.bounded += 1
                self.thresh = up
                by_greedy = True
        if exact_v:
            v = up
            low[t] = up
        else:
            if not self.exact and not self.in_fallback and bound[0] < LRS_INF \
                    and bound[0] - d < self.thresh:
                self.thresh = bound[0] - d
                by_greedy = False
            v = self.succ_F(g, self.succ.data(), m, b, &low[t])
            if v >= LRS_INF and by_greedy and not self.in_fallback:
                # nothing under the greedy loss: only where the DP is not exact
                self.greedy_misses += 1
                self.thresh = LRS_INF
                v = self.succ_F(g, self.succ.data(), m, b, &low[t])
            if v >= LRS_INF and self.thresh < LRS_INF and not self.in_fallback:
                # above the bound: a lower bound only (the DP kept no entry at or below it)
                self.prn[t] = 1
                val[t] = low[t] = bound[0] + 1
                self.thresh = LRS_INF
                return 0
        val[t] = d + v
        low[t] += d
        if (self.greedy_bounds or not self.exact) and not self.in_fallback:
            self.remember(g, m, b, v, key)
            if not self.exact and val[t] < bound[0]:
                bound[0] = val[t]
        self.thresh = LRS_INF
        return 1


cdef class LRSpineGold:
    """Owns the oracle-space gold of one document."""

    def __init__(self, heads):
        import numpy
        arr = numpy.asarray([(-1 if h is None else h) for h in heads], dtype=numpy.int32)
        cdef int32_t[::1] view = arr
        if lrs_gold_build(&self.c, &view[0], len(arr)) < 0:
            raise MemoryError()

    def __dealloc__(self):
        lrs_gold_free(&self.c)

    @property
    def projective(self):
        return bool(self.c.projective)


cdef vector[LRSElem] elems_from_py(elems, int K) except *:
    """Elements given bottom -> top as (left spine, right spine), node lists root first, in
    oracle space (node 0 = the virtual root), cut at depth K."""
    cdef vector[LRSElem] el
    cdef LRSElem e
    cdef int t
    for ls, rs in elems:
        if ls[0] != rs[0]:
            raise ValueError("the spines of an element share its root")
        e.root = ls[0]
        e.nl = min(len(ls), K)
        e.nr = min(len(rs), K)
        for t in range(e.nl):
            e.ls[t] = ls[t]
        for t in range(e.nr):
            e.rs[t] = rs[t]
        el.push_back(e)
    return el


def lrs_future_bounds(LRSWork work, LRSpineGold gold, elems, int b):
    """Python access (tests): the guard's bounds on F (work.lost, work.upper under the
    quarter budget the guard gives them), for elements as in lrs_values."""
    cdef vector[LRSElem] el = elems_from_py(elems, work.K)
    work.limit = work.inserts + (work.budget + 3) // 4 if work.budget > 0 else -1
    low = work.lost(&gold.c, el.data(), el.size(), b)
    up = work.upper(&gold.c, el.data(), el.size(), b)
    work.limit = -1
    return low, up


def lrs_values(LRSWork work, LRSpineGold gold, elems, int b):
    """Python access (tests): δ(arc) + F(successor) for sh, la_1..K, ra_1..K (None where
    not valid) for elements given bottom -> top as (left spine, right spine), node lists
    root first, in oracle space (node 0 = the virtual root)."""
    cdef int K = work.K
    cdef vector[LRSElem] el = elems_from_py(elems, K)
    cdef int want[2 * LRS_MAXK + 1]
    cdef int val[2 * LRS_MAXK + 1]
    cdef int t
    for t in range(2 * K + 1):
        want[t] = 1
    work.values(&gold.c, el.data(), el.size(), b, want, val)
    return [None if val[t] >= LRS_INF else val[t] for t in range(2 * K + 1)]


def lrs_greedy_bounds(LRSWork work, LRSpineGold gold, elems, int b):
    """Python access (tests): (lost words, greedy loss), the lower and upper bounds on F
    that greedy_bounds uses, for elements as in lrs_values."""
    cdef vector[LRSElem] el = elems_from_py(elems, work.K)
    return (work.lost(&gold.c, el.data(), el.size(), b),
            work.greedy(&gold.c, el.data(), el.size(), b))
