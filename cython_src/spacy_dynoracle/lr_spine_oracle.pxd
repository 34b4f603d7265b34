# Tabular dynamic oracle for LR-spine with a cap K on spine depth, over plain arrays
# (knows nothing of spaCy). Spec: docs/specs/lr_spine_and_arc_standard.md §2.2,
# §3.2, §3.7-3.8, §6 P2/P12.
#
# Oracle space (docs/specs/lr_spine_and_arc_standard.md §1, §7): node 0 is the virtual root (left
# end), word i is node i+1. A configuration is a stack of elements (bottom -> top), each given by
# its root and its left and right spines, root first, cut at depth K (deeper spine nodes are dead:
# depths never decrease, §6 P12), and the first buffer node b.
cimport cython
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

cdef enum:
    LRS_MAXK = 4           # largest supported cap
    LRS_INF = 1 << 28
    LRS_UNKNOWN = -2       # gold head unknown
    LRS_RHO_SLOTS = 8      # lower-pass cache slots (a batch steps several Docs in turn)
    LRS_OTHER = -3         # the phantom's gold head for type "other" (no node's id)
    # which DP F used (LRSWork.last_path, OR over the F calls of one values())
    LRS_PATH_PLAIN = 1     # one DP: the stack holds one gold block (plus node 0)
    LRS_PATH_MIXED = 2     # mixed stack, clean split: top DP + cached lower pass
    LRS_PATH_DIRTY = 4     # several blocks, no clean split: whole-stack DP (fallback)
    LRS_PATH_NEXT = 8      # b starts a block after s0's: F(stack, no buffer) + DP([0], b..E)
    LRS_PATH_GUARD = 16    # the count budget ran out: bounded costs (LRSWork.values, "Guard")
    LRS_PATH_LOWER = 32    # exact=True: phase 1 ran out of its budget, the zero-cost set is
                           # exact, some other move keeps its lower bound (LRSWork.exact_phase)
    LRS_TRIPPED = -1       # dp / F / lower_pass: stopped by the count budget, no value
    LRS_MEMO_SLOTS = 64    # exact F of recent successors (LRSWork.memo: the next state's bound)


cdef struct LRSElem:
    int root
    int nl
    int nr
    int ls[LRS_MAXK]       # ls[t] is at depth t + 1 (ls[0] = root)
    int rs[LRS_MAXK]


cdef struct Spine:         # a pruned spine: useful nodes with their depths, root first
    int len
    int node[LRS_MAXK]
    int dep[LRS_MAXK]


cdef struct Entry:
    int root
    int loss
    Spine ls
    Spine rs


cdef struct LRSMemo:       # F of one configuration (LRSWork.values: zero-set mode, greedy_bounds)
    long serial            # the gold's serial (-1: empty slot)
    unsigned long long key # config_key of the configuration (seed 0)
    unsigned long long key2  # ... seed 1: 128 bits, a collision is out of reach (greedy_bounds)
    int F


cdef struct LRSGold:
    int n
    int* head              # gold head node per node; head[0] = -1; LRS_UNKNOWN
    int* kid_start
    int* kids
    int* blk_e             # blk_e[x]: last node of x's gold block (a sentence; see F)
    long serial            # unique per build (the lower-pass cache's key)
    # projective: complete projective gold, the oracle is exact
    # (docs/specs/lr_spine_and_arc_standard.md §3.9)
    bint projective


cdef int lrs_gold_build(LRSGold* g, const int32_t* heads, int n) noexcept nogil
cdef void lrs_gold_free(LRSGold* g) noexcept nogil


@cython.final   # no subclass: direct calls to the cdef methods (the DP's inner ones inline)
cdef class LRSWork:
    """Scratch of the DP, reused across states (one per transition system)."""
    cdef vector[vector[Entry]] cells
    cdef vector[int] mark, R, rootR, maxL, maxR, posL, posR
    cdef const LRSGold* g
    cdef vector[LRSElem] succ
    cdef vector[LRSElem] sub       # the top or lower configuration of a mixed stack
    cdef vector[vector[LRSElem]] rho_keys  # lower-pass cache: LRS_RHO_SLOTS slots of
    cdef vector[long] rho_serials          # (gold serial, lower elements) -> 3 values
    cdef vector[int] rho_vals
    cdef int rho_next                      # the slot the next miss overwrites
    cdef vector[int] lmark
    cdef int rho_val[3]            # lower pass per root type: gold root, unknown, other
    cdef bint rho_on               # dp: price the first arc 0 -> h by rho_val
    cdef bint rho_frozen           # lower_pass: read the cache, store nothing (exact_phase)
    cdef int K
    cdef public bint cut   # cut the buffer at the end of b's gold block (default)
    cdef public int mixed  # mixed stacks: 0 whole-stack DP, 1 strict clean split, 2 relaxed (default)
    cdef public int last_path      # LRS_PATH_* flags of the last values()
    cdef public long rho_misses    # lower passes computed (cache misses)
    # the guard (module docstring, "Guard"): a count budget of entry insertions per state
    cdef public long budget        # insertions the exact DPs of one state may make (0: none)
    cdef long limit                # dp stops once inserts exceeds it (-1: no limit)
    cdef bint in_fallback          # values(): the budget ran out, successors get bounds
    cdef public long inserts       # entries inserted by every DP so far (the work count)
    cdef public long last_inserts  # ... by the last values()
    cdef public long max_inserts   # ... by one values(), at most
    cdef public long guard_states  # values() calls that ran out of budget
    cdef vector[int] lsel, rsel    # lost(): element (+1) whose left / right spine holds a node
    # zero-set mode (module docstring, "Zero-cost set only"): exact=False
    # True: exact costs (the zero-cost pass, then exact_phase); False: the zero-cost pass only,
    # exact zero-cost set, lower bounds >= 1 (module docstring, "Two phases")
    cdef public bint exact
    cdef int thresh                # dp keeps only entries that may end at <= thresh (LRS_INF: all)
    cdef int cap                   # insert: thresh minus the sure losses of the target cell
    cdef vector[int] sure          # sure[x] = 1: item x loses 1 in every computation (dp)
    cdef vector[int] sufL, sufR    # sure losses of the items after i (stack) / j (right)
    cdef vector[int] pend          # dp: pending items of cell (i, j) at i * (lR + 2) + j
    cdef int pend_w                # its row width, lR + 2
    cdef vector[int] lfirst, lnext # spine_credit: per head node, its pending stack items
    cdef vector[int] rfirst, rnext # ... and right items (mark_pending builds, dp clears)
    cdef vector[LRSMemo] memo      # ring of exact successor values (the next state's bound)
    cdef int memo_next
    cdef int prn[2 * LRS_MAXK + 1]                 # successor_values: value pruned (> bound)
    cdef unsigned long long skey[2 * LRS_MAXK + 1] # successor_values: the successors' keys
    cdef public long pruned        # entries dropped by the threshold
    cdef public long memo_hits     # states whose bound came from the memo
    cdef public long reruns        # states whose bound was too low (every successor pruned)
    # greedy_bounds (module docstring, "Settling successors without a DP"): a greedy computation's
    # loss bounds F(successor) above, the lost words below
    cdef public bint greedy_bounds # True: settle or bound each successor before its DP
    cdef vector[LRSElem] gstack    # greedy: the simulated stack
    cdef vector[int] unatt         # greedy: 1 for the words still to attach
    cdef int gup[2 * LRS_MAXK + 1]   # successor_values: per move, the greedy loss (-1: none)
    cdef int glo[2 * LRS_MAXK + 1]   # ... and the lost words
    cdef int state_F               # values: F of the state from the memo (-1: unknown)
    cdef public long settled       # successors valued without a DP: lower bound = upper bound
    cdef public long certified     # ... by Bellman: δ + greedy loss = F of the state (memo)
    cdef public long excluded      # successors above the bound by their lost words (exact=False)
    cdef public long bounded       # successors whose DP ran under the greedy loss as threshold
    cdef public long greedy_misses # DPs that kept nothing under the greedy loss (not exact gold)
    # Bellman's last move (module docstring): the one successor that may attain F(state) is
    # valued last, and not at all when every other one is above F(state)
    cdef public bint bellman       # True (default): value it so
    cdef public long eliminated    # successors valued so, without a DP
    cdef public long phase1_dps    # exact=True: DPs of exact_phase (moves the zero-cost pass bounded)
    cdef public long lower_states  # exact=True: values() whose exact_phase ran out (LRS_PATH_LOWER)
    cdef int bellman_candidate(self, const LRSGold* g, const int* d,
                               bint all_wanted) noexcept nogil
    cdef void exact_phase(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                          int* val, int* low) noexcept nogil
    cdef void remember(self, const LRSGold* g, int m, int b, int v,
                       unsigned long long* key) noexcept nogil
    cdef int greedy(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil
    cdef int doom(self, const LRSGold* g, const LRSElem* s1, const LRSElem* s2,
                  int t) noexcept nogil
    cdef bint needs_buffer(self, const LRSGold* g, const LRSElem* s1, int b,
                           int E) noexcept nogil
    cdef int arc_price(self, const LRSGold* g, const LRSElem* s1, const LRSElem* s2,
                       int t) noexcept nogil
    cdef bint free_after(self, const LRSGold* g, const LRSElem* s1, const LRSElem* s2,
                         const LRSElem* s3, int t) noexcept nogil
    cdef int successor(self, const LRSGold* g, const LRSElem* el, int nE, int b, int t,
                       int* m, int* b_next) noexcept nogil
    cdef void mark_sure(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                        int nR) noexcept nogil
    cdef void mark_spines(self, const LRSGold* g, const LRSElem* el, int nE) noexcept nogil
    cdef bint root_lost(self, const LRSGold* g, int d, int t, int b) noexcept nogil
    cdef bint right_lost(self, const LRSGold* g, int x, int b) noexcept nogil
    cdef void mark_pending(self, const LRSGold* g, const LRSElem* el, int lL,
                           int lR) noexcept nogil
    cdef int spine_credit(self, const Entry* e, int i, int j) noexcept nogil
    cdef int dp(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil
    cdef LRSElem* fresh_root_sub(self, int m) noexcept nogil
    cdef int lower_pass(self, const LRSGold* g, const LRSElem* el, int t1) noexcept nogil
    cdef int prune_ls_at(self, Spine* sp, int i) noexcept nogil
    cdef int prune_rs_at(self, Spine* sp, int j) noexcept nogil
    cdef void insert(self, vector[Entry]* cell, Entry* e, int i, int j) noexcept nogil
    cdef int F(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil
    cdef int split_value(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                         int t1) noexcept nogil
    cdef int upper(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil
    cdef int lost(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil
    cdef int succ_F(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                    int* low) noexcept nogil
    cdef void values(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                     const int* want, int* val) noexcept nogil
    cdef int successor_values(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                              const int* want, int* val, int* low, int* bound) noexcept nogil
    cdef int move_value(self, const LRSGold* g, const LRSElem* el, int nE, int b, int t,
                        int* val, int* low, int* bound, unsigned long long* key) noexcept nogil


cdef class LRSpineGold:
    cdef LRSGold c
