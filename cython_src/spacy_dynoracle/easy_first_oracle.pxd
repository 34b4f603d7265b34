# The oracles of easy-first (docs/specs/arc_eager_hybrid_easyfirst.md §1.3, §3, §5.3, §6;
# docs/systems/easy_first.md) over plain arrays, nogil, knowing nothing of spaCy.
#
# Numbering is conventions.pxd's: node 0 is the virtual root, word i is node i + 1
# (word_node, spec_head). A configuration is the pending list lam[0..size-1] of nodes,
# lam[0] = VIRTUAL_ROOT_NODE; pair i is (lam[i], lam[i + 1]), i = 0..size-2. The actions of
# a configuration are laid out per pair: action 2*i + EF_RIGHT adds lam[i] -> lam[i + 1]
# and removes lam[i + 1] (at pair 0: the ROOT move), action 2*i + EF_LEFT adds
# lam[i + 1] -> lam[i] and removes lam[i] (never at pair 0: the virtual root takes no head).
from .conventions cimport VIRTUAL_ROOT_NODE
from .oracle_owner cimport OracleOwner

cdef enum:
    EF_RIGHT = 0        # the left item of the pair is the head
    EF_LEFT = 1         # the right item of the pair is the head
    EF_NEG = -1000000   # "minus infinity" of the DP (clamped, never accumulates)


cdef struct EFGold:
    int n_nodes          # words + 1
    int* head            # [n_nodes] gold head node; VIRTUAL_ROOT_NODE for a sentence root;
                         # -1 unknown (and for node 0)
    int* kid_start       # [n_nodes + 1] CSR: gold dependents of node x are
    int* kids            #   kids[kid_start[x]:kid_start[x + 1]]
    bint formula_exact   # complete and projective over 0..n: the arc-decomposition cost
                         # (§5.3) is exact in every reachable configuration (§3.1)
    int* block_end       # [n_nodes] per word node, the last node of its gold block (the
                         # gold sentences: oracle_arrays' gold_block_ends); [0] is 0
    char* block_formula  # [n_nodes] at a block's last node: the block's gold is complete and
                         # projective (with its root arc), so §5.3's formula is exact on it


cdef struct EFWork:         # what the DP did in one ef_dynamic_costs call
    int blocks           # gold blocks it ran on
    int items            # sum of their list sizes (a block's pending items + the virtual root)
    long long cells      # sum of the cubes of those sizes: the O(m^3) work


cdef EFGold* ef_gold_new(const int* word_heads, int n_words) noexcept nogil
cdef void ef_gold_free(void* g) noexcept nogil     # an EFGold* (OracleOwner's free_data)

cdef void ef_formula_costs(const EFGold* g, const int* lam, int size, const char* in_list,
                           int* cost) noexcept nogil
cdef int ef_exact_costs(const EFGold* g, const int* lam, int size, int* cost) noexcept nogil
cdef int ef_dynamic_costs(const EFGold* g, const int* lam, int size, const char* in_list,
                          bint use_formula, int* cost, EFWork* work) noexcept nogil
cdef void ef_static_costs(const EFGold* g, const int* lam, int size, const char* in_list,
                          int* cost) noexcept nogil
cdef int ef_first_zero(const int* cost, int size) noexcept nogil


cdef class EasyFirstGoldTable(OracleOwner):
    cdef EFGold* c
