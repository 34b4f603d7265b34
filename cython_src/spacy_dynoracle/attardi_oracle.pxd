# The dynamic oracle of Attardi's non-projective system (degree D), over plain arrays.
# Spec: docs/specs/attardi.md. Knows nothing of spaCy.
#
# Nodes are 0..n: node 0 is the artificial root, word i (0-based token) is node i+1.
# A configuration is (stack, b): stack[0..ls) bottom->top with stack[0] == 0, and the
# buffer is the suffix b..n (docs/specs/attardi.md §1.1). Transitions are numbered
#     t = 0: sh,   t = 2k-1: la_k,   t = 2k: ra_k      (k = 1..D)
# so a state has 2D+1 transition slots.
from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector
from libcpp.utility cimport pair


cdef enum:
    ORC_INF = 1000000       # unreachable (never returned for legal states)
    ORC_GUARD = -2          # the size/time guard stopped the search
    ORC_MAX_T = 7           # 2*D+1 for D <= 3
    ORC_MAX_D = 3

# which path produced the costs of a state (counted, reported by the Simulator)
cdef enum:
    PATH_FAST = 0           # zero-future fast path only, no table (docs/specs/attardi.md §2.7)
    PATH_TABLE = 1          # tabular search with buffer reduction (+ pruning): covered gold
    PATH_FULL = 2           # tabular search without reduction/pruning: gold not covered (§2.9)
    PATH_PARTIAL = 3        # gold with unknown heads: full search, unknown arcs cost 0
    PATH_GUARD = 4          # guard tripped: documented fallback (all valid moves cost 0)
    PATH_LOCAL = 5          # not covered, reduction restricted to locally covered fragments
    PATH_BOUND = 6          # no table: every successor's F decided by the fast path or by
                            #   lower bound == upper bound (orphans vs. greedy completion)
    PATH_LOWER = 7          # exact costs asked, but the guard stopped the exact value of a
                            #   suboptimal move: exact zero-cost set, lower bounds (as
                            #   exact_costs=False)
    N_PATHS = 8


cdef struct HSlot:          # a slot of search()'s open-addressing accumulator: one cache
    uint64_t key            #   line per probe (the item's key, value and _lost together)
    int32_t val
    int32_t lost            # the item's _lost (pruned at the dump if val + lost > cap)
    int32_t stamp           # the slot is live iff stamp == the accumulator's generation


cdef struct AttGold:
    int n                   # words; nodes are 0..n
    int n_unknown           # words whose gold head is unknown (-1)
    int covered             # 1 if the static policy derives the whole gold tree (§1.3)
    int* head               # head[x] for x in 0..n; head[0] = -1; -1 = unknown
    int* kid_start          # CSR gold children of node x: kids[kid_start[x]:kid_start[x+1]]
    int* kids
    int* post               # post-order of the nodes reachable from 0 (children first)
    int n_post
    int* lcov               # lcov[x] = 1 if the gold subtree of x is derivable on its own
                            #   (its yield contiguous and covered); used by PATH_LOCAL
    # blocks: a cut e (1 <= e <= n+1) is a position no gold arc between words crosses
    # (sentences of a spaCy Doc); F(σ, b) splits at the first cut >= b (see costs())
    int* cut_next           # cut_next[b] = the smallest cut >= b, for b in 1..n+1
    int* block_cov          # for a cut e <= n: its block [e, cut_next[e+1]) is derived by the
                            #   static policy on its own
    int* cov_before         # for a cut e: every block before e is covered
    int* block_loss         # for a cut e <= n: F([0], e) of its block alone, -1 = not known yet
    int* cache              # exact F of the last state's successors, entries
    int cache_len           #   [F, b, ls, stack[0..ls)] (see AttardiOracle._store_cache)


cdef class OracleGold:
    cdef vector[int] _head, _kid_start, _kids, _post, _lcov
    cdef vector[int] _cut_next, _block_cov, _cov_before, _block_loss, _cache
    cdef AttGold c
    cdef void build(self, const int32_t* heads, int n_tokens, int D, bint root_ra1) noexcept nogil


cdef class AttardiOracle:
    cdef readonly int D
    cdef public bint root_ra1       # package convention: only ra_1 may attach to node 0
    cdef public bint prune          # the paper's pruning of buffer-only spans (covered gold)
    cdef public bint exact          # exact non-zero cost values (else lower bounds, §2.7)
    cdef public int uncovered_mode  # 0: full search (§2.9 opt. 2); 1: local reduction
    cdef public long budget         # guard: max combinations per state (all its searches)
    cdef public int max_m           # guard: max |rho| per search
    cdef public int max_excess      # guard: max excess cap of a table (wrong arcs beyond |O|)
    cdef public int value_share     # exact values of suboptimal moves: budget / value_share
    cdef public double max_ms       # guard: max wall time per state (milliseconds)
    cdef public bint use_bounds     # greedy_one_more and the +1 of the greedy claim (tests:
                                    #   False sends more successors to the table)
    cdef public bint lost_bound     # the table's lost-dependents pruning (_lost); tests: False
                                    #   is the reference the pruning is checked against
    cdef double _t_end
    cdef public int last_path
    cdef long[N_PATHS] counts
    cdef double[N_PATHS] path_ms
    cdef public long n_searches
    cdef public long n_combos
    cdef public long max_combos
    cdef vector[long] _mhist       # searches per |ρ|

    cdef OracleGold scratch_gold
    # scratch
    cdef vector[int] _st2, _rho, _lo, _hi, _cnt, _nbad, _flag
    cdef vector[int] _cstart, _clen
    cdef vector[int] _orph      # per node: bit 1 = orphan (see lower_bound), bit 2 = on the stack
    cdef vector[int] _gpend     # greedy_run: pending gold dependents (zero outside a run)
    cdef vector[int] _alive     # greedy_run: on the stack or in the buffer (zero outside a run)
    cdef vector[int] _gst       # greedy_run: its stack
    cdef vector[uint64_t] _keys
    cdef vector[pair[uint64_t, int]] _items    # search(): a cell's items before sorting
    cdef vector[int] _vals
    # open-addressing accumulator of the cell being built (generation-stamped slots)
    cdef vector[HSlot] _htab
    cdef vector[int] _hused
    cdef int _hgen
    cdef int _hmask
    cdef long _left_budget
    cdef int _cap
    cdef int _b_cur             # node id of the buffer front of the searched configuration
    # the lost-dependents bound of search() (see _lost)
    cdef vector[int] _pos, _hp, _pre, _cntp, _below, _left
    cdef int _m1, _cur_i, _cur_j, _cur_l

    cdef int static_next(self, const AttGold* g, const int* stack, int ls, int b, int e,
                         const int* pending) noexcept nogil
    cdef bint zero_future(self, const AttGold* g, const int* stack, int ls, int b,
                          int e) noexcept nogil
    cdef int reduce(self, const AttGold* g, const int* stack, int ls, int b, int e,
                    bint local) noexcept nogil
    cdef int search(self, const AttGold* g, const int* rho, int m, int l, bint prune,
                    int cap) noexcept nogil
    cdef int lower_bound(self, const AttGold* g, const int* stack, int ls, int b,
                         int e) noexcept nogil
    cdef int future_loss(self, const AttGold* g, const int* stack, int ls, int b, int e,
                         int cap, int emin) noexcept nogil
    cdef int block_loss(self, AttGold* g, int e) noexcept nogil
    cdef int greedy_upper(self, const AttGold* g, const int* stack, int ls, int b,
                          int e) noexcept nogil
    cdef int greedy_one_more(self, const AttGold* g, const int* stack, int ls, int b, int e,
                             int target) noexcept nogil
    cdef int greedy_run(self, const AttGold* g, const int* stack, int ls, int b, int e,
                        int kind, int node, int limit) noexcept nogil
    cdef int apply(self, int t, const int* stack, int ls, int b, int* out, int* ls2, int* b2,
                   int* head, int* dep) noexcept nogil
    cdef int costs(self, const AttGold* g, const int* stack, int ls, int b, const int* want,
                   int* out) noexcept nogil
    cdef int _guard(self, int T, int* out) noexcept nogil
    cdef int _cached(self, const AttGold* g, const int* stack, int ls, int b) noexcept nogil
    cdef void _store_cache(self, AttGold* g, const int* stack, int ls, int b, const int* want,
                           const int* EF, const int* out) noexcept nogil
    cdef void _tally(self, long combos) noexcept nogil
    cdef void _add(self, uint64_t key, int v) noexcept nogil
    cdef void _prepare_lost(self, const AttGold* g, const int* rho, int m, int l) noexcept nogil
    cdef int _lost(self, const int* s, int D) noexcept nogil
    cdef void _hclear(self) noexcept nogil
    cdef void _hput(self, uint64_t key, int v, int lost) noexcept nogil
    cdef void _gen_alpha(self, int i, int D, vector[pair[uint64_t, int]]* out) noexcept nogil
