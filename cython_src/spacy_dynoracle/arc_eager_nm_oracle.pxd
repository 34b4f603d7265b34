# The exact dynamic oracle of arc_eager_nm (docs/systems/arc_eager_nm.md, "The exact oracle")
# over plain arrays, nogil, knowing nothing of spaCy.
#
# The open words of a state (its stack, then its buffer, in word order) are the *items*;
# the best reachable completions are the projective forests over the items in which every
# stack word with a head (NM_HEADED: pushed by RIGHT) takes no dependent on its left and
# takes as head either the item just before it or a later item. The oracle scores such
# forests one gold block at a time (a caller fills the block's items, then nm_block_best).
# Word numbering: words 0..n-1; gold[w] == w for a root, -1 unknown.
from .oracle_owner cimport OracleOwner

cdef enum:
    NM_FREE = 0       # a buffer word, or a stack word without a head: any head, any dependents
    NM_HEADED = 1     # a stack word with a head (RIGHT): head = the item before it or later
    NM_NEG = -1000000  # "minus infinity" of the chart (floored, never accumulates)


cdef struct NMOracle:
    int n
    int* gold            # [n] gold head word; w for a root; -1 unknown
    int* block_start     # [n] first word of w's gold block (cut where no gold arc spans)
    int* block_end       # [n] last word of w's gold block
    int max_block        # longest gold block (chart size)
    int cannot_start_words   # the Doc has words preset not to start a sentence: -1 not
                             # known yet (the caller reads it from its state once)
    # one block's items, filled by the caller before nm_block_best (scratch)
    int* word            # [n] the items' words, left to right
    char* kind           # [n] NM_FREE or NM_HEADED
    char* arc_ok         # [n] NM_HEADED: its arc to the item before it has the gold label
    char* no_split       # [n] the item cannot start a sentence (a preset -1)
    int* item_of         # [n] scratch: the item of word w among the filled items (valid
                         # only where word[item_of[w]] == w)
    int* reach           # [n] scratch: the last item a positive arc from item i reaches
    int* seg_end         # [n] scratch: the last item of item i's segment (FREE items that
                         # are consecutive words: their spans are the shared chart's), i - 1
                         # where i shares nothing (HEADED, or outside the shared block)
    int* seg_start       # [n] scratch: the first item of item i's segment; i + 1 where none
    int* pos_head        # [n] scratch: the item whose arc into item i has weight 1; -1 none
    int* left_deps       # [n] scratch: per item t, the items d < t from the current row on
                         # with pos_head[d] == t (chart_rows' split bounds)
    int* span_arcs       # [n] scratch: chart_rows' bound of the current row's cells
    int* tree_left       # [n] scratch: chart_rows' T terms of the current row
    int* root_weight     # [n] scratch: chart_rows' weight of item r as a tree's root
    int* seg_deps        # [n] scratch: chart_rows' count of the items d > r of r's segment
                         # with pos_head[d] == r
    int* hints           # [4 n] scratch: chart_rows' column hints (max_hinted)
    int chart_size       # the blocks the chart holds: max_block, more once a preset
                         # sentence was scored whole
    int* chart           # 7 * chart_size^2: Eisner's Cr, Cl, Ir, Il, and Clg (computed
                         # whole), or the rows a call computes (nm_block_best's Chart)
    int* top             # [chart_size + 1] (in chart's allocation): the best forest of the
                         # items before each
    # the shared charts: per gold block, the chart of its words all FREE (a span of the
    # untouched run of a state's items reads it; arc_eager_nm_oracle.pyx, "Shared charts")
    int* shared_at       # [n] offset in `shared` of the block that starts at word w
    char* shared_ok      # [n] that block's chart is computed
    long shared_total    # ints of `shared`: 7 * the sum of the blocks' squared lengths
    int* shared          # allocated at the first use; NULL before
    int sh_first         # the gold block prepared last (nm_shared_chart): its first word,
    int sh_size          # its length (0: none),
    int* sh              # and its chart (Cr, Cl, Ir and T by rows, Cr, Cl and Il by
                         # columns: sh_size^2 each; nm_shared_chart)
    bint full_chart      # the reference: every state's chart computed whole (tests)
    bint no_cut          # the reference: items not cut at open gaps (tests)
    bint run_only        # the reference: only the last segment (the run) read from the
                         # shared chart, every span starting before it computed (tests)
    bint no_bound        # the reference: every split loop runs to its end, not stopping
                         # at its cell's bound (tests)
    long cells           # chart cells the calls computed (the work count; the caller resets)
    long budget          # the most cells a state's calls may compute (0: no limit)
    bint over            # a call would have exceeded the budget: it and every call after
                         # it computed nothing and returned 0 (the caller resets)


cdef NMOracle* nm_oracle_new(const int* gold, int n) noexcept nogil
cdef void nm_oracle_free(void* o) noexcept nogil      # an NMOracle* (OracleOwner's free_data)
cdef int nm_block_best(NMOracle* o, int size) noexcept nogil
cdef void nm_shared_chart(NMOracle* o, int w) noexcept nogil


cdef class NMOracleTable(OracleOwner):
    cdef NMOracle* c
