# Tabular dynamic oracle for LR-spine with a cap K on spine depth, over plain arrays
# (knows nothing of spaCy). Spec: ../shared/specs/lr_spine_and_arc_standard.md §2.2,
# §3.2, §3.7-3.8, §6 P2/P12.
#
# Oracle space (spec §1, §7): node 0 is the virtual root (left end), word i is node i+1.
# A configuration is a stack of elements (bottom -> top), each given by its root and its
# left and right spines, root first, cut at depth K (deeper spine nodes are dead: depths
# never decrease, spec P12), and the first buffer node b.
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

cdef enum:
    LRS_MAXK = 4           # largest supported cap
    LRS_INF = 1 << 28
    LRS_UNKNOWN = -2       # gold head unknown


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


cdef struct LRSGold:
    int n
    int* head              # gold head node per node; head[0] = -1; LRS_UNKNOWN
    int* kid_start
    int* kids
    int* blk_e             # blk_e[x]: last node of x's gold block (a sentence; see F)
    bint projective        # complete projective gold: the oracle is exact (spec §3.9)


cdef int lrs_gold_build(LRSGold* g, const int32_t* heads, int n) noexcept nogil
cdef void lrs_gold_free(LRSGold* g) noexcept nogil


cdef class LRSWork:
    """Scratch of the DP, reused across states (one per transition system)."""
    cdef vector[vector[Entry]] cells
    cdef vector[int] mark, R, rootR, maxL, maxR, posL, posR
    cdef const LRSGold* g
    cdef vector[char] drop
    cdef vector[LRSElem] succ
    cdef vector[LRSElem] SL
    cdef int K
    cdef public bint cut   # cut the buffer at the end of b's gold block (default)
    cdef int prune_ls_at(self, Spine* sp, int i) noexcept nogil
    cdef int prune_rs_at(self, Spine* sp, int j) noexcept nogil
    cdef void insert(self, vector[Entry]* cell, Entry* e, int i, int j) noexcept nogil
    cdef void dominance(self, vector[Entry]* cell) noexcept nogil
    cdef int F(self, const LRSGold* g, const LRSElem* el, int nE, int b) noexcept nogil
    cdef void values(self, const LRSGold* g, const LRSElem* el, int nE, int b,
                     const int* want, int* val) noexcept nogil


cdef class LRSpineGold:
    cdef LRSGold c
