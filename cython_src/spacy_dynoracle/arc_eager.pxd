# What arc_eager.pyx shares with arc_hybrid.pyx, whose non-projective segments use the same
# continuation DP (docs/specs/dp_tabulation.md §8: arc-hybrid is its special case without RA).
from spacy.typedefs cimport weight_t
from spacy.pipeline._parser_internals._state cimport StateC

from .system_base cimport GoldC


cdef weight_t left_arc_gn_cost(const StateC* st, const GoldC* g) noexcept nogil
cdef void np_move_costs(const StateC* st, const GoldC* g, bint with_ra, const int* valid,
                        weight_t* cost) noexcept nogil


cdef inline bint s0_b0_arc_is_valid(const StateC* st) noexcept nogil:
    """An arc between s0 and b0 may be made: stack and buffer not empty, and b0 does not start
    a preset sentence (docs/conventions.md). arc_eager's RIGHT; arc_eager_nm's RIGHT and
    LEFT."""
    return (st.stack_depth() >= 1 and st.buffer_length() >= 1
            and not st.is_sent_start(st.B(0)))
