# Oracles of the swap system over plain arrays (knows nothing of spaCy's StateC).
# Spec: docs/specs/swap.md (§1 system, §2 gold preprocessing, §3 predicates, §4 static
# oracles, §6 non-deterministic oracles, §10 cost for every configuration).
#
# Oracle space: tokens 0..n-1 of the doc; the virtual root is implicit (-1) at the bottom of
# the stack, so the spec's "s1 = 0" is "ns == 1" here and its RA with s1 = 0 is ROOT.
# A configuration (Cfg) is the stack stk[0..ns-1] (bottom -> top) and the buffer kept as a
# stack in reverse, buf[nb-1] = b0 (docs/specs/swap.md §1.3), plus missing[x] = number of live
# dependents of x in the tree the policy follows (docs/specs/swap.md §2.3).
from libc.stdint cimport uint64_t
from libcpp.unordered_map cimport unordered_map
from spacy.structs cimport TokenC

cdef enum:
    SW_INF = 1 << 28

# unlabelled moves: the package's one move enum (conventions.pxd)
from .conventions cimport (
    SHIFT as M_SHIFT, LEFT as M_LEFT, RIGHT as M_RIGHT, ROOT as M_ROOT, SWAP as M_SWAP,
)


cdef struct SwapGoldC:
    int n
    int* head            # oracle tree: gold head, -1 = virtual root (unknown heads too)
    int* known           # 1 if the gold head is known (counts in the loss)
    # rank: position in the projective order of the gold tree (docs/specs/swap.md §2.1)
    int* rank
    int* mpc             # maximal projective component representative (docs/specs/swap.md §2.2)
    int mpc_fallback     # 1 if MINIMAL hit the state budget and fell back to LAZY
    int n_minimal_swaps
    int n_lazy_swaps
    int n_eager_swaps
    unordered_map[uint64_t, int]* minimal   # state key -> MINIMAL move on its path
    # scratch of the dynamic cost (O(n) each)
    int* thead2          # repaired tree T' (docs/specs/swap.md §10.2)
    int* trank2          # its projective order
    int* trank3          # an order of T' following the processing sequence
    int* work
    # the rollouts' tail memo (docs/systems/swap.md, "Long sentences (issue 23)"): per
    # cut point E, whether no oracle-tree arc joins a word before E to one from E on
    int* clean
    int* next_clean      # the first clean cut point >= j (n + 2 entries; next_clean[n] = n)
    int* rank3           # process_order of the oracle tree with pos = index (the order
                         # trank3 gives the untouched words behind a clean cut)
    int* tail_loss       # [order class 0/1][empty/stuck][E]: loss of the rest of a rollout
                         # from the cut point E (-1: no memo; rollout_tail_build)
    signed char* tail_sent   # the preset sentence starts the memo was built for
    int* start_count     # per word i, the preset sentence starts at 0..i (of tail_sent)
    int tail_built


cdef struct Cfg:
    int n
    int* stk
    int ns
    int* buf
    int nb
    int* missing         # live dependents per token w.r.t. thead
    int* live            # 1 while the token is on the stack or in the buffer
    int loss             # wrong heads built so far (w.r.t. ghead, known heads only)
    const int* thead     # tree the policy follows (-1 = root)
    const int* trank     # order the policy swaps towards
    const int* ghead     # real gold (-1 = root) for the loss
    const int* known
    const TokenC* sent   # preset sentence starts (NULL: none)
    const int* start_count   # prefix counts of sent's starts (SwapGoldC.start_count), so
                             # SHIFT's validity is O(1); NULL: scan sent
    int max_gone         # the largest word neither on the stack nor in the buffer (-1:
                         # none), so ROOT's validity is O(1) (cfg_valid)


cdef struct RolloutTail:
    # A rollout's view of the untouched end of the Doc (docs/systems/swap.md, "Long
    # sentences (issue 23)"). u: buffer entries at the bottom of buf[] not popped since the
    # state (the words n-u..n-1, in order, untouched by the state); at a SHIFT whose buffer
    # is exactly those words and whose first word E is a clean cut point, the rest of the
    # rollout's loss is empty_loss[E] (empty stack) or stuck_loss[E] (words before E below,
    # -1: not memoized).
    int u
    const int* clean
    const int* empty_loss
    const int* stuck_loss
    int hits_empty       # memo entries taken with an empty stack / a stuck one (counted)
    int hits_stuck
    int memo_loss        # the loss they added


cdef int cfg_alloc(Cfg* c, int n) noexcept nogil
cdef void cfg_free(Cfg* c) noexcept nogil
cdef void cfg_copy(Cfg* dst, const Cfg* src) noexcept nogil
cdef void cfg_set_missing(Cfg* c) noexcept nogil
cdef uint64_t cfg_key(const Cfg* c) noexcept nogil
cdef void cfg_valid(const Cfg* c, int* valid) noexcept nogil
cdef void cfg_do(Cfg* c, int move) noexcept nogil
cdef int cfg_wrong(const Cfg* c, int move) noexcept nogil

cdef bint can_la(const Cfg* c) noexcept nogil
cdef bint can_ra(const Cfg* c) noexcept nogil
cdef bint can_sw_eager(const Cfg* c) noexcept nogil
cdef bint can_sw_lazy(const Cfg* c, const int* mpc) noexcept nogil
cdef int static_eager(const Cfg* c) noexcept nogil
cdef int static_lazy(const Cfg* c, const int* mpc) noexcept nogil
cdef bint can_shift(const Cfg* c) noexcept nogil
cdef int nd_all(const Cfg* c) noexcept nogil
cdef int nd_sw(const Cfg* c) noexcept nogil
cdef bint eager_completes(const Cfg* c) noexcept nogil
cdef int rollout(Cfg* c, RolloutTail* tail) noexcept nogil
cdef int untouched_tail(const Cfg* c) noexcept nogil
cdef void rollout_tail_build(SwapGoldC* o, const TokenC* sent) noexcept nogil
cdef void rollout_tail_current(SwapGoldC* o, const TokenC* sent) noexcept nogil
cdef void rollout_tail_view(const SwapGoldC* o, int order_class, int u, RolloutTail* tail) noexcept nogil
cdef int exact_costs(const Cfg* c, int* cost, int budget) noexcept nogil
cdef bint same_segment(const TokenC* sent, int a, int b) noexcept nogil
cdef void proj_order(int n, const int* heads, const int* is_node, int* rank, int* work) noexcept nogil
cdef void process_order(int n, const int* heads, const int* is_node, const int* pos, int* rank,
                        int* work) noexcept nogil


cdef class SwapOracleData:
    """Per-document oracle data (GoldC.extra points at .c); owns every buffer."""
    cdef SwapGoldC c
    cdef object mem
    cdef readonly object eager_seq, lazy_seq, minimal_seq
    cdef void _init_cfg(self, Cfg* c)
