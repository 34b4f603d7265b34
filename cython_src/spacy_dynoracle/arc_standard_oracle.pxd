# Tabular dynamic oracles for arc-standard over plain arrays (knows nothing of spaCy).
# Spec: docs/specs/lr_spine_and_arc_standard.md §3.2-3.6.
#
# Oracle space (docs/specs/lr_spine_and_arc_standard.md §1, §7): node 0 is the virtual root at
# the left end, word i of the doc is node i+1. A configuration is the stack of nodes (bottom ->
# top, stk[0] == 0) and the first buffer node b (the buffer is b..n).
#
# Gold blocks: the finest partition of the words into contiguous intervals that no known
# gold arc between two words crosses (complete gold: the sentences of the Doc). The DPs
# stop at the end of b's block; later blocks add the same to every move's value
# (arc_standard_oracle.pyx).
from libc.stdint cimport int32_t

cdef enum:
    AS_INF = 1 << 28
    AS_UNKNOWN = -2        # gold head unknown (partial annotation): every head is right

cdef enum:                 # which parts the last as_costs call used (ASOracleC.last_path)
    AS_PATH_PAPER = 1      # a [GSS14] DP (§3.3)
    AS_PATH_GENERAL = 2    # a §3.6 DP
    AS_PATH_CUT = 4        # the buffer was cut at the end of b's block (later blocks left out)
    AS_PATH_MIXED = 8      # the stack words lie in more than one block
    AS_PATH_NEXT = 16      # b lies in a later block than s0: LEFT/RIGHT split once more
    AS_PATH_GUARD = 32     # a DP over budget: split deeper in the stack, bounds (as_costs)
    AS_PATH_INEXACT = 64   # ... and some gold arc crossed that split: costs are lower bounds


cdef struct ASOracleC:
    int n                  # words; nodes are 0..n
    int* head              # gold head node per node (head[0] = -1; AS_UNKNOWN)
    int* kid_start         # CSR gold children per node (0..n), sorted by position
    int* kids
    # gold blocks
    int nblk
    int* blk_of            # node -> block (node 0: -1)
    int* blk_a             # first node of the block
    int* blk_e             # last node of the block
    unsigned char* blk_gen # 1: non-projective or partial block (needs the §3.6 DP)
    long* blk_off          # offset of the block's Eisner charts in Cl / Cr
    bint paper_exact       # every block is complete projective gold: [GSS14] everywhere
    # §3.6: Eisner complete spans over every sub-interval [s, t] of each block (a, L),
    # built when some block needs the §3.6 DP (its buffer part may be any block's):
    int* Cl                # best tree over s..t headed by t, at off + (s - a) * L + (t - a)
    int* Cr                # best tree over s..t headed by s
    int last_path          # AS_PATH_* flags of the last as_costs call
    long cells             # DP cells the last as_costs call visited (its work, a count)
    # the guard (arc_standard_oracle.pyx, "Budget"): a DP predicted to visit more than
    # `budget` cells (0: no limit) runs on the top of the stack only, with the stack below
    # priced as by the mixed-stack pass; F is then an upper bound, at most `cur_slack`
    # (the gold arcs across that split) above the exact F
    long budget
    int cur_slack
    int slack[3]           # of sh, la, ra in the last as_costs call
    # buffer contraction in the §3.6 DP (arc_standard_oracle.pyx, "Buffer fragments"):
    # frag_end[w] / frag_root[w]: last node and root of the largest gold subtree whose
    # words are exactly frag_start..frag_end with frag_start = w, projective and complete
    # (w itself when there is none); contract = 0 keeps every buffer word a node
    bint contract
    int* frag_end
    int* frag_root
    int* nP                # a §3.6 DP's buffer nodes: first word (offset from b), P[M] = m
    int* nRt               # the node's root word (offset from b)
    int* node_of           # offset from b -> node whose root it is, else -1 (reset per call)
    # cost of the arc 0 -> h that ends the top tree (a DP's last left expansion), by the
    # type of h: gold head elsewhere / gold root / unknown. {1, 0, 0} is δ(0 -> h); with a
    # mixed stack it is the best cost of the stack words below the top sentence (as_F_cut)
    int rc_other
    int rc_root
    int rc_unk
    # scratch (sized once per document; T grows on demand)
    int* sub               # a successor's stack
    int* sub2              # [0] + the top run of a mixed stack
    unsigned char* mark    # also: the lower-run DP's states (as_F_cut)
    int* p2v               # lower-run DP: value of each state (node), minus an offset
    int* R
    int* X
    int* T
    long T_cap
    int* sidx              # node -> 1-based stack index (top = 1) in the general DP
    int* S0                # general DP layers: S[p * lL + k - 1], p <= m (S_cap ints)
    int* S1
    long S_cap
    int* H0                # H[q], q < m
    int* H1
    int* Ir                # Ir[r * lL + k - 1] (S_cap ints)
    int* minU
    int* minUnk


cdef int as_build(ASOracleC* o, const int32_t* heads, int n, bint force_general,
                  bint split, bint contract) noexcept nogil
cdef void as_free(ASOracleC* o) noexcept nogil
cdef int as_F(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil
cdef int as_F_cut(ASOracleC* o, const int* stk, int lL, int b, int e) noexcept nogil
cdef int as_F_paper(ASOracleC* o, const int* stk, int lL, int b, int e) noexcept nogil
cdef int as_F_general(ASOracleC* o, const int* stk, int lL, int b, int e) noexcept nogil
cdef void as_costs(ASOracleC* o, const int* stk, int lL, int b, const int* want,
                   int* val) noexcept nogil
cdef void as_move_costs(const ASOracleC* o, const int* val, int* cost) noexcept nogil


cdef class ArcStandardOracle:
    cdef ASOracleC c
