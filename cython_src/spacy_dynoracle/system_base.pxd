# The contract every transition system of the package implements.
#
# A system is a spaCy `TransitionSystem` over spaCy's own `StateC` (no custom state struct,
# see docs/specs/spacy_integration.md §1.4). Each system overrides three per-state hooks, all
# computed once per state for every *unlabelled* move type at the same time:
#
#   move_validity(st, valid)              valid[m] for each move type m
#   move_arcs(st, head, child)            the arc each move type would add (-1: none), so
#                                         that the base adds the label cost per labelled class
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
from cymem.cymem cimport Pool

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC
from spacy.pipeline._parser_internals.transition_system cimport Transition, TransitionSystem


# Unlabelled move types, shared by all systems so that names are stable (MOVE_NAMES in
# system_base.pyx). A system uses a subset; the order here is also the class-table order
# of spaCy's initialize_actions, which sorts by move id.
cdef enum:
    SHIFT = 0
    LEFT = 1        # arc from the buffer front / stack top to a stack item, leftwards
    RIGHT = 2
    ROOT = 3        # pop s0 as a sentence root (attach to the virtual root)
    SWAP = 4
    LEFT_2 = 5
    RIGHT_2 = 6
    LEFT_3 = 7
    RIGHT_3 = 8
    REDUCE = 9
    N_MOVES = 10

cdef enum:
    INVALID_COST = 9000     # cost of an invalid class, as in spaCy's own systems


cdef struct GoldC:
    int32_t length
    int32_t* heads          # gold head; == i for a root; -1 = unknown
    attr_t* labels          # gold label id; 0 = unknown (no label cost)
    int32_t* kid_start      # CSR: gold dependents of h are kids[kid_start[h]:kid_start[h+1]],
    int32_t* kids           #      sorted by position
    void* extra             # system-specific oracle data (tables, caches)


cdef class DynGold:
    cdef Pool mem
    cdef GoldC c
    cdef public object extra_obj     # keeps system-specific Python-owned buffers alive


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


cdef class DynOracleSystem(TransitionSystem):
    cdef readonly bint use_static
    # the costs need gold.c.extra (the oracle's data, built by attach_oracle): set_costs
    # and step_batch raise instead of computing costs without it
    cdef bint needs_oracle_data
    cdef object _oracle

    cdef void move_validity(self, const StateC* st, int* valid) noexcept nogil
    cdef void move_arcs(self, const StateC* st, int* head, int* child) noexcept nogil
    cdef void move_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                         weight_t* cost) noexcept nogil
    cdef int static_move(self, const StateC* st, const GoldC* gold) noexcept nogil
    cdef int class_costs(self, int* is_valid, weight_t* costs, const StateC* st,
                         const GoldC* gold) noexcept nogil
    cdef int require_oracle_data(self, DynGold gold) except -1
    # states whose training loss step_batch left out (bounded_costs="skip")
    cdef public long n_bounded_skipped
    cdef bint last_costs_bounded(self) noexcept
