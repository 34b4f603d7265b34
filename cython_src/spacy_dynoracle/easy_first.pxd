# Easy-first (Goldberg & Elhadad 2010) as GN13 define it, docs/specs/arc_eager_hybrid_easyfirst.md
# §1.3: its own state (a list of pending heads, not spaCy's StateC), its moves and its costs.
# The design for the model and the training step: docs/systems/easy_first.md.
from cymem.cymem cimport Pool
from spacy.typedefs cimport attr_t, weight_t

from .system_base cimport GoldC, OracleClock, WordArcs


cdef struct EasyFirstC:
    int n                   # words
    int size                # pending items, the virtual root lam[0] included
    int* lam                # [n + 1] the pending list in spec nodes (easy_first_oracle.pxd)
    char* in_list           # [n + 1] per node: pending
    int* heads              # [n] head word (a root points to itself), -1 not attached
    attr_t* labels          # [n]
    int* left_edge          # [n] leftmost word of each word's subtree built so far
    signed char* sent_start # [n] preset boundaries: 1 starts a sentence, -1 cannot, 0 unknown


cdef int ef_n_actions(const EasyFirstC* st) noexcept nogil
cdef bint ef_is_valid(const EasyFirstC* st, int action) noexcept nogil
cdef void ef_apply(EasyFirstC* st, int action, attr_t label) noexcept nogil
cdef int ef_action_move(int action) noexcept nogil
cdef void ef_action_arc(const EasyFirstC* st, int action, int* head, int* child) noexcept nogil


cdef class EasyFirstState(WordArcs):      # heads, labels: the parse so far
    cdef Pool mem
    cdef EasyFirstC c


cdef class EasyFirst:
    cdef readonly object strings
    cdef readonly str oracle
    cdef int oracle_kind            # index into easy_first.ORACLES
    cdef readonly bint projective_formula
    cdef readonly object cfg
    cdef long long _stats[4]        # states, states with a DP block, DP items, DP cells
    cdef OracleClock clock          # action_costs' CPU (system_base.pxd; `timed`)
    cdef int action_costs(self, const EasyFirstC* st, const GoldC* gold, int* cost) except -1 nogil
