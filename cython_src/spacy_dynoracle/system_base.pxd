# The contract every transition system of the package implements.
#
# A system is a spaCy `TransitionSystem` over spaCy's own `StateC` (no custom state struct,
# see docs/specs/spacy_integration.md §1.4). It declares its moves once in a move table
# (declare_moves: validity, action and arc ends per move id), from which the base builds
# spaCy's class table and the first two of four per-state hooks, all computed once per state
# for every *unlabelled* move type at the same time:
#
#   move_validity(st, valid)              valid[m] for each move type m (from the table)
#   move_arcs(st, head, child)            the arc each move type would add (-1: none), so
#                                         that the base adds the label cost per labelled
#                                         class (from the table; lr_spine overrides it)
#   move_costs(st, gold, valid, cost)     cost[m] for each valid m: exact increase of the best
#                                         reachable unlabelled loss (the dynamic oracle)
#   static_move(st, gold)                 the canonical move of the static oracle
#
# The base class turns these into spaCy's per-class `set_valid` / `set_costs` (costs are
# normalised so the cheapest valid class costs 0, see docs/specs/spacy_integration.md §2).
#
# Conventions (docs/conventions.md): a sentence root points to itself, both in gold
# (`GoldC.heads[r] == r`) and in the state (`StateC._heads[r] == r` once the root has been
# popped by ROOT); -1 means "not attached yet" in a state and "unknown" in gold.
from libc.stdint cimport int32_t
from posix.time cimport clock_gettime, timespec, CLOCK_THREAD_CPUTIME_ID
from cymem.cymem cimport Pool

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC
from spacy.pipeline._parser_internals.transition_system cimport Transition, TransitionSystem


# The one move-id enum, the k-move ids and the numbering of the virtual root
# (conventions.pxd), re-exported so that a system cimports everything from here.
from .conventions cimport (
    SHIFT, LEFT, RIGHT, ROOT, SWAP, LEFT_2, RIGHT_2, LEFT_3, RIGHT_3, REDUCE, N_MOVES,
    left_move, right_move, VIRTUAL_ROOT_NODE, word_node, spec_head,
)

cdef enum:
    INVALID_COST = 9000     # cost of an invalid class, as in spaCy's own systems


cdef struct GoldC:
    int32_t length
    int32_t* heads          # gold head; == i for a root; -1 = unknown
    attr_t* labels          # gold label id; 0 = unknown (no label cost)
    int32_t* kid_start      # CSR: gold dependents of h are kids[kid_start[h]:kid_start[h+1]],
    int32_t* kids           #      sorted by position
    void* extra             # system-specific oracle data (tables, caches)


# The Python view of the arcs over a Doc's words that a C struct holds (DynGold's gold tree,
# easy_first's EasyFirstState): `heads` and `labels` as lists, written once in
# system_base.pyx; a subclass says where its arrays are.
cdef class WordArcs:
    cdef int word_arcs(self, const int32_t** heads, const attr_t** labels) noexcept


cdef class DynGold(WordArcs):
    cdef Pool mem
    cdef GoldC c
    cdef public object extra_obj     # keeps system-specific Python-owned buffers alive

    cdef object attach(self, object owner, void* data)


cdef inline bint gold_is_root(const GoldC* g, int i) noexcept nogil:
    return g.heads[i] == i


cdef inline weight_t arc_label_cost(const GoldC* g, int head, int child, attr_t label) noexcept nogil:
    """1 if the arc head->child is gold but `label` is a known wrong label
    (docs/specs/arc_eager_hybrid_easyfirst.md §5.4)."""
    if child < 0 or label == 0 or g.heads[child] != head or g.labels[child] == 0:
        return 0
    return g.labels[child] != label


cdef inline int gold_kids_from(const GoldC* g, int h, int lo) noexcept nogil:
    """Number of gold dependents of h at positions >= lo (kids are sorted)."""
    cdef int k = g.kid_start[h + 1]
    cdef int n = 0
    while k > g.kid_start[h] and g.kids[k - 1] >= lo:
        n += 1
        k -= 1
    return n


# No gold arc joins a word left of b to a word at or right of b: b starts a gold sentence
# (system_base.pyx; keep_sentences' target and arc_eager_nm's `spacy` boundary terms).
cdef bint gold_sentence_starts_at(const GoldC* gold, int b) noexcept nogil


# The sentence convention of docs/conventions.md, shared by the systems' SHIFT and ROOT moves.
cdef inline bint shift_is_valid(const StateC* st) noexcept nogil:
    """The buffer is not empty, and b0 does not start a preset sentence while the stack
    holds words of the previous one."""
    if st.buffer_length() == 0:
        return 0
    return st.stack_depth() == 0 or not st.is_sent_start(st.B(0))


cdef inline bint root_is_valid(const StateC* st) noexcept nogil:
    """s0 is the only stack word, and b0 (if any) may start the next sentence."""
    return (st.stack_depth() == 1
            and (st.buffer_length() == 0 or not st.cannot_sent_start(st.B(0))))


cdef inline void pop_as_root(StateC* st) noexcept nogil:
    """s0 becomes a sentence root: it points to itself (no arc is added), and is popped."""
    st._heads[st.S(0)] = st.S(0)
    st.pop()


# ---- the oracle's CPU clock ---------------------------------------------------------------
# Every system's oracle is read through one place (DynOracleSystem.oracle_costs /
# oracle_static_move, easy_first's action_costs), which adds the thread CPU time of the call
# to `ns` while `on`: benchmarks/train_step.py compares two oracles by their own CPU, which
# the machine's load moves far less than whole-update times (issue 23). Off by default: two
# clock reads (system calls) per state are not worth paying in normal training.
cdef struct OracleClock:
    bint on
    long long ns


cdef inline long long oracle_clock_start(const OracleClock* clock) noexcept nogil:
    """The thread's CPU nanoseconds now if the clock is on, else 0 (no system call)."""
    cdef timespec t
    if not clock.on:
        return 0
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return t.tv_sec * 1000000000LL + t.tv_nsec


cdef inline void oracle_clock_stop(OracleClock* clock, long long start) noexcept nogil:
    """Add the thread's CPU time since `start` (oracle_clock_start) if the clock is on."""
    if clock.on:
        clock.ns += oracle_clock_start(clock) - start


# ---- the move table -----------------------------------------------------------------------
# Each system declares its moves once (DynOracleSystem.declare_moves): per move id, the
# validity and action spaCy's class table calls (Transition.is_valid / .do) and where the
# arc it adds ends, hence the arc's direction in word order (label_sets="per_direction"). The
# base builds init_transition, move_validity, move_arcs and the move_types / arc_move_types
# from it.
ctypedef bint (*move_is_valid_t)(const StateC* st, attr_t label) noexcept nogil
ctypedef int (*move_do_t)(StateC* st, attr_t label) noexcept nogil

cdef enum:             # the ends of a move's arc (MoveDef.head_at / child_at)
    NO_ARC = 0         # the move adds no arc (so an undeclared move, zero-filled, has none)
    AT_S0 = 1          # AT_S0 + k: the stack word S(k)
    AT_S1 = 2
    AT_S2 = 3
    AT_S3 = 4
    AT_B0 = 100        # the buffer front B(0)
    AT_SYSTEM = 101    # computed by the system's own move_arcs (lr_spine's spines)

cdef enum:             # the direction in word order of a move's arc (MoveDef.direction)
    DIRECTION_NOT_FIXED = 0   # no arc, or not fixed by the move (swap: SWAP reorders the stack)
    LEFTWARD = 1              # the head follows its dependent
    RIGHTWARD = 2             # the head precedes its dependent
    DIRECTION_FROM_ENDS = 3   # declare_move only: derive it from head_at and child_at


cdef enum:             # whether a move makes non-projective structure (MoveDef.nonprojective,
                       # declare_move's last argument)
    PROJECTIVE_MOVE = 0
    NONPROJECTIVE_MOVE = 1


cdef struct MoveDef:
    move_is_valid_t is_valid    # NULL: the system has no such move
    move_do_t do
    int head_at                 # NO_ARC, AT_S0 + k, AT_B0 or AT_SYSTEM
    int child_at
    int direction               # LEFTWARD, RIGHTWARD or DIRECTION_NOT_FIXED
    bint nonprojective          # the move makes non-projective structure (swap's SWAP,
                                # attardi's degree >= 2 arcs): the moves the parser's
                                # nonprojective_penalty lowers the score of at parse time


cdef inline int word_at(const StateC* st, int at) noexcept nogil:
    """The word at an arc end of the move table (-1 if there is none)."""
    if at == AT_B0:
        return st.B(0)
    if at >= AT_S0 and at <= AT_S3:
        return st.S(at - AT_S0)
    return -1


cdef weight_t unused_cost(const StateC* st, const void* gold, attr_t label) noexcept nogil


# The two moves most systems share (their own validity where the system differs: swap's
# SHIFT stays in its preset sentence, lr_spine's and swap's ROOT), system_base.pyx.
cdef class Shift:
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil
    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil


cdef class RootArc:
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil
    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil


# LEFT of arc-eager and arc-hybrid: b0 -> s0.
cdef class BufferLeftArc:
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil
    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil


# The reductions of the top two stack words (arc_standard, swap; arc_hybrid's RIGHT).
cdef class StackLeftArc:
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil
    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil


cdef class StackRightArc:
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil
    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil


cdef inline int shift_else_reduce(const int* valid) noexcept nogil:
    """The static oracles' last resort (arc_hybrid, arc_standard, attardi) when no attachment
    is due: SHIFT; else (off the gold path, or gold that conflicts with preset sentence
    starts) the first valid of RIGHT, ROOT, LEFT; -1 if none."""
    if valid[SHIFT]:
        return SHIFT
    if valid[RIGHT]:
        return RIGHT
    if valid[ROOT]:
        return ROOT
    return LEFT if valid[LEFT] else -1


cdef inline int first_optimal_move(const int* valid, const weight_t* cost, int K) noexcept nogil:
    """Attach as soon as an optimal attachment exists: the first valid move of cost 0 in the
    order LEFT_1..K, RIGHT_1..K, ROOT, SHIFT; if none (preset sentence starts can make every
    valid move costly), the cheapest valid move; -1 if none is valid. The static oracle of
    the systems whose canonical policy needs the exact costs: lr_spine always, attardi on gold
    it cannot build (docs/systems/attardi.md, "Static oracle")."""
    cdef int k, m, best = -1
    for k in range(1, K + 1):
        if valid[left_move(k)] and cost[left_move(k)] == 0:
            return left_move(k)
    for k in range(1, K + 1):
        if valid[right_move(k)] and cost[right_move(k)] == 0:
            return right_move(k)
    if valid[ROOT] and cost[ROOT] == 0:
        return ROOT
    if valid[SHIFT] and cost[SHIFT] == 0:
        return SHIFT
    for m in range(N_MOVES):
        if valid[m] and (best < 0 or cost[m] < cost[best]):
            best = m
    return best


cdef class DynOracleSystem(TransitionSystem):
    cdef MoveDef move_table[N_MOVES]
    cdef readonly bint use_static
    # the costs need gold.c.extra (the oracle's data, built by attach_oracle): set_costs
    # and step_batch raise instead of computing costs without it
    cdef bint needs_oracle_data
    cdef readonly long missing_oracle   # move_costs calls on a gold without oracle data
    cdef object _oracle

    cdef int declare_moves(self) except -1
    cdef int declare_stack_arcs(self, int direction=*) except -1
    cdef int declare_move(self, int move, move_is_valid_t is_valid, move_do_t do,
                          int head_at=*, int child_at=*, int direction=*,
                          bint nonprojective=*) except -1
    cdef bint lacks_oracle_data(self, const GoldC* gold) noexcept nogil

    cdef void move_validity(self, const StateC* st, int* valid) noexcept nogil
    cdef void move_arcs(self, const StateC* st, int* head, int* child) noexcept nogil
    cdef void move_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                         weight_t* cost) noexcept nogil
    cdef int static_move(self, const StateC* st, const GoldC* gold) noexcept nogil
    # the oracle as training and the Simulator read it: the static oracle's move or the
    # dynamic costs, timed by `clock` (the Python view: `timed`, oracle_stats()["oracle_cpu_s"])
    cdef OracleClock clock
    cdef void oracle_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                           weight_t* cost) noexcept nogil
    cdef int oracle_static_move(self, const StateC* st, const GoldC* gold) noexcept nogil
    cdef int class_costs(self, int* is_valid, weight_t* costs, const StateC* st,
                         const GoldC* gold) noexcept nogil
    cdef int require_oracle_data(self, DynGold gold) except -1
    # states whose training loss step_batch left out (bounded_costs="skip")
    cdef public long n_bounded_skipped
    cdef bint last_costs_bounded(self) noexcept
