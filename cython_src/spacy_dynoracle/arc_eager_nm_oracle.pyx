# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""The exact dynamic oracle of arc_eager_nm over plain arrays (the argument and its checks:
docs/systems/arc_eager_nm.md, "The exact oracle").

**The completions.** Call the open words of a state (stack, then buffer: in word order)
its items, a stack word with a head (pushed by RIGHT; the head is the word just below it and
may still be replaced by LEFT) HEADED, every other item FREE. The heads the open words can
still end with are exactly the projective forests over the items (a virtual root before
them) in which a HEADED item has no dependent on its left and has as head either the item
just before it or a later item. (A FREE stack word can go back to the buffer by the unshift
as soon as it is on top, so it is a buffer word that waits; a HEADED word cannot: it leaves
by REDUCE, into the word below, or by LEFT.) tests/test_arc_eager_nm.py checks this against
exhaustive search; the unshiftable marks do not enter it. So the best loss still reachable
is (loss of the popped words) + (open words with a known gold head) - best, best = the most
gold arcs of such a forest, and a move's cost is how much it lowers best (or the gold arc it
loses by popping a word).

**Blocks.** best is the sum over the gold blocks (cut where no gold arc between words spans
the gap; as easy_first_oracle.pyx, which scores the plain projective trees over a list) of
each block's best: a forest restricted to a block, an item with a head outside re-attached
to the virtual root, keeps every gold arc into the block, and the blocks' forests side by
side are one forest. Inside a block a HEADED item at the block's first place takes the
virtual root (weight 0) for "the item before it", which lies in the previous block; a
HEADED item elsewhere never needs the root (its head can become the item before it, which
crosses nothing). A caller also cuts at preset sentence starts (no arc crosses them).

**Open cuts.** The same holds for a finer cut, made per call over the block's items: at
every gap between two items that no arc of positive weight spans (item_arc_weight 1: a gold
arc between two open items, not forbidden by a HEADED item, and with the gold label when it
is a HEADED item's arc from the item before it). A best forest restricted to a piece keeps
every positive arc; an item whose head fell outside (over an arc of weight <= 0, so 0) is a
FREE root (root weight >= 0), or a HEADED item at the piece's first place, which takes the
virtual root (weight 0), or a HEADED item elsewhere whose head was a later item outside,
which takes the item before it instead (adjacent: crosses nothing; no cycle, a HEADED item
having no left dependents; weight >= 0). Conversely the pieces' forests side by side are
one forest: a HEADED item at a piece's first place takes the last item of the piece before
(adjacent, weight 0 since no positive arc spans the cut). So best = the sum over the
pieces. open_reach finds the cuts in O(m) from the items' gold heads; a move's variant (s0
popped, b0 HEADED) gets its own, as its items are filled anew. On random walks the cuts are
where the slowest states of the shared charts (below) spent their time: a deep stack of
RIGHT-pushed words whose arcs were not gold (or lost their gold arc to a popped word) is
cut off from the buffer's run instead of tying its rows to it. On a converged model's
training walks they save nothing measurable (its costly items are FREE words that the
cuts keep together: the segments below are what helps there). Not made with a preset
word that cannot start a sentence in the block (Clg: trees may have to join across any
cut; the whole chart as before). Each call counts the chart cells it computes (o.cells; a cell
costs O(m)) and computes nothing once they would exceed o.budget (o.over: the caller's
guard, arc_eager_nm.pyx).

**Preset boundaries.** Two trees of the forest are two sentences: ROOT pops the first one's
root while some open word of the second one is b0, and ROOT is invalid before a word that
cannot start a sentence (no_split). That b0 can be any word c of the second tree whose
subtree begins at the tree's first item a (the words before c must be popped, with heads up
to c, before the ROOT, and c must still be open), i.e. any word on the path from a up to
the tree's root, if it can go back to the buffer (not HEADED). So a tree may begin a
sentence iff that path holds a FREE word that may start one: the chart Clg, the complete
left spans whose spine holds such a word. Where a word of a preset sentence cannot start
one, a tree may have to join the one before it across a gold cut (either root taking the
other tree's words as dependents), so the caller then scores that whole preset sentence
(between preset starts) as one block; the block's first tree needs no ROOT before it.

**Shared charts.** Per block of m items the forests are Eisner's chart over the items with
these weights, then the sequence of trees under the virtual root. Computed whole that is
O(m^3) per call, two or three calls a state: 28 ms for a state of a 201-word sentence
(docs/long_sentences.md). But the weight of an arc between two FREE items depends on the
gold only, so a chart cell whose span holds only FREE items that are consecutive words
(nothing popped between them) is the cell of the same words in the chart of the whole gold
block with every word FREE: that chart (and T, below) is computed once per gold block, at
its first use (nm_shared_chart; memory 7 * the sum of the blocks' squared lengths per Doc).
A call splits its items into segments, the maximal runs of FREE items that are consecutive
words of that block (a HEADED item, or a popped word between two items, ends one), reads
every cell whose span lies inside a segment from the shared chart and computes only the
cells whose span crosses a segment boundary, by rows of decreasing start (a cell reads its
row to its left and the later rows of its column; chart_rows). The call's cells are kept by
rows and by columns, the shared chart keeps both too, and the shared cells a computed cell
reads in its column are copied into the call's columns first, so that the column side of
every split loop is contiguous (O(m^2) copying a call); its row's shared start is read in
place, each loop in two pieces (chart_rows). The trees under the virtual root go through T[a, b], the
best single tree over items a..b (shared inside a segment too), so the forest of the items
before each b is O(m^2). The buffer's untouched words (the suffix of the sentence from the
furthest word the buffer front has reached) end the items in one segment, the "run"; until
nmdeep19 only the run was read from the shared chart, every span starting before it
computed: O(R m^2) for R items before the run (NMOracleTable.run_only keeps that scoring as
a reference). What that left was not deep stacks of RIGHT arcs: on the converged Bosque
model's training walks the items before the run were 98% FREE (the variants popping s0 or
making b0 HEADED break one long run of words SHIFT pushed in two, and spaCy's cut path
pushes a whole Doc; docs/systems/arc_eager_nm.md, "Long sentences"). With segments a call
computes the spans across a boundary only: one boundary at p costs p (m - p) cells (O(m)
each) instead of the p m - p (p - 1) / 2 before. With preset words that cannot start a
sentence (Clg) a call computes the whole chart as before (block_best_full, also what
`full_chart` selects: the tests compare the ways on every state).

**Split bounds.** A cell's value is at most the number of its span's items, but its head
(Cr, Ir: s; Cl, Il: t), whose arc of weight 1 (pos_head: from the item that is its gold
head, open, the arc allowed) comes from an item of the span: each item but the head has
one head inside the span, an arc weighs at most 1, and 1 only from pos_head. The split of
Ir and Il (Cr[s][k] + Cl[k + 1][t]) has both s and t as heads; a tree T[a, b] under the
virtual root adds its root's arc, 1 only for a FREE gold root (which has no pos_head). So
each max over splits (or roots) stops once it reaches that bound (max_sum_to, checked
after its first 16 terms): the same max. On the converged Bosque model's training walks most computed
cells reach it, after a few splits (docs/systems/arc_eager_nm.md, "Long sentences"): a
span of FREE words whose gold arcs inside cross nothing holds every one of them. The cells
counted (o.cells, the guard) do not change; chart_rows keeps each row's bounds in O(1) a
cell (left_deps, and seg_deps for the part of the row inside s's segment).
`no_bound` runs every loop to its end (the reference).

**Hinted splits.** Most computed cells reach their bound (above), and mostly at the split
where a neighbouring cell reached its max: the row's previous cell (t - 1) or the column's
previous cell (row s + 1). So each max first tries those two splits, kept per row and per
column (max_hinted), and a term that reaches the bound is the max (no term exceeds it);
else the whole loop, whose first split reaching its max becomes both hints if that max is
at the bound (else they stay: test_long_sentences' random walk, where few cells reach it,
took 10% longer than main's when every loop also looked for its argmax). On the
converged Bosque model's training walks 90-97% of the computed cells (by max: Cl 90%, the
others 96%) stop at a hinted split, one or two terms instead of a block of 16
(docs/systems/arc_eager_nm.md, "Hinted splits"). Which splits are tried changes only the
time: the same cells, the same values (no_bound, where no term reaches a bound, tries them
in vain and runs every loop).
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy

from .oracle_arrays cimport gold_block_ends, gold_heads_array, eisner_inside, add_floored


cdef NMOracle* nm_oracle_new(const int* gold, int n) noexcept nogil:
    """The per-Doc tables for gold[0..n-1] (a root points to itself, -1 unknown); NULL on
    allocation failure. Three allocations: the int arrays (gold first), the char arrays
    (kind first), the chart (with top)."""
    cdef NMOracle* o = <NMOracle*>calloc(1, sizeof(NMOracle))
    cdef int* ints
    cdef int* node_head
    cdef int* node_end
    cdef int w, start, L
    cdef long total = 0
    if o == NULL:
        return NULL
    o.n = n
    o.cannot_start_words = -1
    # gold, block_start, block_end, word, shared_at, seg_end, seg_start, pos_head,
    # left_deps, span_arcs, tree_left, root_weight, seg_deps: n + 1 each; scratch for
    # gold_block_ends: 3 (n + 1); hints: 4 (n + 1)
    ints = <int*>malloc(20 * (n + 1) * sizeof(int))
    o.kind = <char*>calloc(4 * (n + 1), 1)
    if ints == NULL or o.kind == NULL:
        free(ints)
        nm_oracle_free(o)
        return NULL
    o.gold = ints
    o.block_start = ints + (n + 1)
    o.block_end = ints + 2 * (n + 1)
    o.word = ints + 3 * (n + 1)
    o.shared_at = ints + 4 * (n + 1)
    node_head = ints + 5 * (n + 1)
    node_end = ints + 6 * (n + 1)           # and its scratch (reach): 2 (n + 1)
    o.seg_end = ints + 8 * (n + 1)
    o.seg_start = ints + 9 * (n + 1)
    o.pos_head = ints + 10 * (n + 1)
    o.left_deps = ints + 11 * (n + 1)
    o.span_arcs = ints + 12 * (n + 1)
    o.tree_left = ints + 13 * (n + 1)
    o.root_weight = ints + 14 * (n + 1)
    o.seg_deps = ints + 15 * (n + 1)
    o.hints = ints + 16 * (n + 1)
    o.arc_ok = o.kind + (n + 1)
    o.no_split = o.kind + 2 * (n + 1)
    o.shared_ok = o.kind + 3 * (n + 1)      # calloc: none computed
    # gold blocks in node numbering (conventions.pxd: word w is node w + 1, 0 the root)
    node_head[0] = -1
    for w in range(n):
        o.gold[w] = gold[w]
        node_head[w + 1] = -1 if gold[w] < 0 else (0 if gold[w] == w else gold[w] + 1)
    gold_block_ends(node_head, n + 1, node_end + n + 1, node_end)
    o.max_block = 1
    start = 0
    for w in range(n):
        o.block_start[w] = start
        o.block_end[w] = node_end[w + 1] - 1
        if o.block_end[w] == w:
            L = w - start + 1
            if L > o.max_block:
                o.max_block = L
            o.shared_at[start] = total
            total += 7 * <long>L * L     # nm_shared_chart's seven arrays
            start = w + 1
    o.shared_total = total
    # gold_block_ends' arrays are free now: nm_block_best's scratch for the open cuts
    o.item_of = node_head
    o.reach = node_end
    if not chart_reserve(o, o.max_block):
        nm_oracle_free(o)
        return NULL
    return o


cdef bint chart_reserve(NMOracle* o, int size) noexcept nogil:
    """A chart (and top) for blocks of `size` items: the gold blocks'
    longest at first, grown for a preset sentence scored whole (module docstring). 0 if out
    of memory."""
    cdef int* chart
    if size <= o.chart_size:
        return 1
    chart = <int*>malloc((7 * <long>size * size + size + 1) * sizeof(int))
    if chart == NULL:
        return 0
    free(o.chart)
    o.chart = chart
    o.top = chart + 7 * size * size
    o.chart_size = size
    return 1


cdef void nm_oracle_free(void* data) noexcept nogil:
    """Free an NMOracle (void*: NMOracleTable's OracleOwner calls it; NULL is a no-op)."""
    cdef NMOracle* o = <NMOracle*>data
    if o == NULL:
        return
    free(o.gold)        # with block_start, block_end, word, shared_at, item_of, reach,
                        # seg_end, seg_start, pos_head, left_deps, span_arcs, tree_left,
                        # root_weight, seg_deps, hints
    free(o.kind)        # with arc_ok, no_split, shared_ok
    free(o.chart)       # with top
    free(o.shared)
    free(o)


cdef inline int item_arc_weight(const void* arcs, int h, int d) noexcept nogil:
    """eisner_inside's weight of the arc item h -> item d of the block in o.word: [gold], or
    NM_NEG where a HEADED item forbids it (a dependent on its left; a head on its left other
    than the item just before it). The arc of a HEADED item to the item before it is the one
    it has: gold only with the gold label (arc_ok)."""
    cdef const NMOracle* o = <const NMOracle*>arcs
    if o.kind[d] == NM_HEADED:
        if h == d - 1:
            return 1 if (o.gold[o.word[d]] == o.word[h] and o.arc_ok[d]) else 0
        if h < d:
            return NM_NEG
    if o.kind[h] == NM_HEADED and d < h:
        return NM_NEG
    return 1 if o.gold[o.word[d]] == o.word[h] else 0


cdef inline bint may_start(const NMOracle* o, int i) noexcept nogil:
    """Item i can be the b0 of a ROOT that ends the sentence before it: it can be in the
    buffer then (not HEADED) and may start a sentence."""
    return o.kind[i] != NM_HEADED and not o.no_split[i]


cdef struct Chart:
    # Where one nm_block_best call's cells are ("Shared charts", module docstring). A cell
    # whose span lies inside one segment is the shared chart's (B x B, item i of a segment
    # being the block's word word[i] - first: sh_row); every other is the call's, each array
    # stored by rows (X[s * S + t]) or by columns (X[t * S + s]) as the recurrences read it,
    # so that every inner loop runs over contiguous memory.
    int S
    const int* word
    const int* seg_end   # [S] the last item of item s's segment; s - 1 where s shares nothing
    const int* seg_start # [S] the first item of item t's segment; t + 1 where t shares nothing
    int* Cr              # by rows
    int* Cl              # by rows
    int* Ir              # by rows
    int* T               # by rows: T[a, b] the best single tree under the virtual root
    int* CrC             # by columns
    int* ClC             # by columns
    int* IlC             # by columns
    int B
    int first
    int* shCr            # the shared chart's Cr, Cl, Ir and T by rows, Cr, Cl, Il by columns
    int* shCl
    int* shIr
    int* shT
    int* shCrC
    int* shClC
    int* shIlC
    const int* pos_head  # [S] the item whose arc into item i has weight 1 (-1: none), for
    int* left_deps       # the split loops' bounds (scratch [S] each); bounded 0: no bounds
    int* span_arcs
    int* tree_left
    int* root_weight
    int* seg_deps
    int* hints           # [4 S] scratch: per column, the split that reached the max of
                         # the cell below it, for each of the four maxes (max_hinted)
    bint bounded


cdef inline int* sh_row(const Chart* c, int* X, int i) noexcept nogil:
    """Item i's row of the shared array X stored by rows (or its column, X by columns),
    indexed by item: entry k is the cell of the words of items i and k (both in i's
    segment, so k's word is word[i] + k - i)."""
    cdef int w = c.word[i] - c.first
    return X + w * c.B + w - i


cdef inline void copy_ints(int* dst, const int* src, int lo, int hi) noexcept nogil:
    """dst[k] = src[k] for k in lo..hi-1."""
    memcpy(dst + lo, src + lo, (hi - lo) * sizeof(int))


cdef inline int max_sum_to(const int* x, const int* y, int lo, int hi, int best,
                           int bound) noexcept nogil:
    """max(best, x[k] + y[k] for k in lo..hi-1), a chart's split loop, contiguous; it stops
    after the first 16 terms if best reached bound, which no term exceeds (chart_rows), else
    runs the rest as one loop (checked every 16 terms, each block its own vector reduction,
    test_long_sentences' walk without the guard took 8.7-9.6 s against main's 6.5-7.8)."""
    cdef int k, v
    cdef int end = min(lo + 16, hi)
    for k in range(lo, end):
        v = x[k] + y[k]
        if v > best:
            best = v
    if best >= bound:
        return best
    for k in range(end, hi):
        v = x[k] + y[k]
        if v > best:
            best = v
    return best


cdef inline int max_hinted(const int* xs, const int* xo, int mid, const int* y, int lo,
                           int hi, int bound, int* row_hint, int* col_hint) noexcept nogil:
    """max(2 * NM_NEG, x[k] + y[k] for k in lo..hi-1), x[k] being xs[k] before mid (the
    row's shared start, read in place) and xo[k] from mid on, as max_sum_to, but first the
    terms at the two hinted splits (the ones that reached the max of the row's previous
    cell and of the column's previous cell): one that reaches bound, which no term
    exceeds, is the max ("Hinted splits", module docstring). Else max_sum_to over the two
    pieces, and where that reaches bound both hints become the first split that does."""
    cdef int k = row_hint[0]
    cdef int best, v
    cdef int m = min(max(mid, lo), hi)
    if lo <= k < hi:
        v = (xs[k] if k < mid else xo[k]) + y[k]
        if v >= bound:
            col_hint[0] = k
            return v
    k = col_hint[0]
    if lo <= k < hi:
        v = (xs[k] if k < mid else xo[k]) + y[k]
        if v >= bound:
            row_hint[0] = k
            return v
    best = max_sum_to(xs, y, lo, m, 2 * NM_NEG, bound)
    if best < bound:
        best = max_sum_to(xo, y, m, hi, best, bound)
        if best < bound:
            return best                     # the hints stay: no split reaches the bound
    for k in range(lo, hi):
        if (xs[k] if k < mid else xo[k]) + y[k] == best:
            row_hint[0] = k
            col_hint[0] = k
            break
    return best


cdef inline void fill_pos_heads(NMOracle* o, int S) noexcept nogil:
    """pos_head[d] for the items 0..S-1 (o.word etc.): the item h with item_arc_weight(h,
    d) 1 (d's gold head, open among these items, its arc allowed; a gold root has none),
    else -1. O(S) through item_of (valid only where word[item_of[w]] == w)."""
    cdef int d, h, gh
    for d in range(S):
        o.item_of[o.word[d]] = d
    for d in range(S):
        o.pos_head[d] = -1
        gh = o.gold[o.word[d]]
        if gh < 0 or gh == o.word[d]:
            continue
        h = o.item_of[gh]
        if 0 <= h < S and o.word[h] == gh and item_arc_weight(o, h, d) > 0:
            o.pos_head[d] = h


cdef inline void chart_over(Chart* c, NMOracle* o, int S, int* X, int B, int first) noexcept nogil:
    """c over the items o.word[0..S-1] with its 7 arrays at X (S * S each: Cr, Cl, Ir, T,
    CrC, ClC, IlC), B shared words from `first` (0: none), o's segments and the scratch of
    the split bounds (bounded unless o.no_bound, with pos_head filled for the items): what
    nm_shared_chart and run_best both set before chart_rows."""
    c.S = S
    c.word = o.word
    c.seg_end = o.seg_end
    c.seg_start = o.seg_start
    c.B = B
    c.first = first
    c.Cr = X
    c.Cl = X + S * S
    c.Ir = X + 2 * S * S
    c.T = X + 3 * S * S
    c.CrC = X + 4 * S * S
    c.ClC = X + 5 * S * S
    c.IlC = X + 6 * S * S
    c.pos_head = o.pos_head
    c.left_deps = o.left_deps
    c.span_arcs = o.span_arcs
    c.tree_left = o.tree_left
    c.root_weight = o.root_weight
    c.seg_deps = o.seg_deps
    c.hints = o.hints
    c.bounded = not o.no_bound
    if c.bounded:
        fill_pos_heads(o, S)


cdef void chart_rows(const NMOracle* o, Chart* c) noexcept nogil:
    """The cells of Eisner's chart over the items and of T whose span crosses a segment
    boundary, by rows of decreasing start (a cell reads its own row to its left and the
    later rows of its column), the rest read from the shared chart: oracle_arrays.
    eisner_inside's recurrences (a sum floored once at the end equals its sums floored one
    by one). Cell (s, t) is the call's iff t > seg_end[s] (equivalently s < seg_start[t]).
    The shared cells such a cell reads in column t, from seg_start[t] on, are first copied
    into the call's columns, so that the column side of every split loop is contiguous
    (split in three at the segment ends, the loops were mostly remainders: 20% slower on
    test_long_sentences' walk); row s up to seg_end[s] is read in place (max_hinted's two
    pieces: with the hinted splits few loops run whole, and copying the rows' shared
    starts was 81% of the ints copied on the training walk's states)."""
    cdef int S = c.S
    cdef int s, t, r, b, es, ft, b0, split, best, u, hs, ht, d
    cdef int h_split, h_cl, h_cr, h_t            # the row's hints (max_hinted)
    cdef int* hc = c.hints                       # the columns': split, Cl, Cr, T
    cdef int u_seg = 0                          # u(s, seg_end[s]): s's segment's own arcs
    cdef int root_from = S                      # the first FREE gold root from row s on
    cdef int* rw = c.root_weight
    cdef int cap = 0 if c.bounded else 1 << 29    # the bounds, or none (no_bound)
    cdef const int* ph = c.pos_head
    cdef int* Crs
    cdef int* Cls
    cdef int* Irs
    cdef const int* shCrs                       # row s's shared start, read in place
    cdef const int* shCls
    cdef const int* shIrs
    cdef int* Ta
    cdef int* V = c.tree_left
    for s in range(4 * S):
        hc[s] = -1
    for s in range(S):
        c.Cr[s * S + s] = 0
        c.Cl[s * S + s] = 0
        c.CrC[s * S + s] = 0
        c.ClC[s * S + s] = 0
        ft = c.seg_start[s]                 # column s, read by the rows before ft
        if 0 < ft <= s:
            copy_ints(c.CrC + s * S, sh_row(c, c.shCrC, s), ft, s + 1)
            copy_ints(c.ClC + s * S, sh_row(c, c.shClC, s), ft, s + 1)
            copy_ints(c.IlC + s * S, sh_row(c, c.shIlC, s), ft, s + 1)
    # rw[r]: item r as the root of a tree under the virtual root, its arc's weight; a
    # HEADED item is never a root but at the block's first place, where its head lies in
    # the block before (weight 0; item 0 HEADED shares nothing: row 0 is the call's)
    for r in range(S):
        if o.kind[r] == NM_HEADED:
            rw[r] = 0 if r == 0 else 2 * NM_NEG     # V[r] + any Cr below NM_NEG
        else:
            rw[r] = 1 if o.gold[o.word[r]] == o.word[r] else 0
    if c.bounded:
        for t in range(S):
            c.left_deps[t] = 0
            c.seg_deps[t] = 0
        for d in range(S):                  # seg_deps[r]: r's dependents d > r in its segment
            if c.seg_start[d] <= ph[d] < d:
                c.seg_deps[ph[d]] += 1
    for s in range(S - 1, -1, -1):
        es = c.seg_end[s]
        if c.bounded:
            if ph[s] > s:
                c.left_deps[ph[s]] += 1     # left_deps[t]: the items d in s..t-1 headed by t
            # u(s, es) from u(s + 1, es): s's own arc, if to an item of its segment, and
            # its dependents there
            if es <= s:
                u_seg = 0                   # s alone, or its segment's last item
            u_seg += (s < ph[s] <= es) + c.seg_deps[s]
        if rw[s] == 1:
            root_from = s
        if es >= S - 1:
            continue                        # the whole row is the shared chart's
        Crs = c.Cr + s * S
        Cls = c.Cl + s * S
        Irs = c.Ir + s * S
        if es >= s:                         # split k < es + 1 reads the shared row
            shCrs = sh_row(c, c.shCr, s)
            shCls = sh_row(c, c.shCl, s)
            shIrs = sh_row(c, c.shIr, s)
        else:                               # es = s - 1: none read
            shCrs = Crs
            shCls = Cls
            shIrs = Irs
        b0 = max(s, es + 1)                 # the row's first cell of its own
        # u: the items of s..t whose weight-1 arc comes from an item of s..t ("Split
        # bounds", module docstring), by t from b0 on
        u = u_seg if es >= s else 0
        c.span_arcs[s] = 0                  # T[s][s]'s bound (row s's own where es < s)
        h_split = h_cl = h_cr = h_t = -1
        for t in range(max(s + 1, b0), S):
            if c.bounded:
                u += (s <= ph[t] < t) + c.left_deps[t]
            c.span_arcs[t] = u
            hs = c.bounded and s < ph[s] <= t   # s's own arc inside: s heads the span
            ht = c.bounded and s <= ph[t] < t
            # Ir, Il: Cr[s][k] + Cl[k + 1][t], k = s..t-1 (s and t both heads)
            split = max(max_hinted(shCrs, Crs, es + 1, c.ClC + t * S + 1, s, t,
                                   u - hs - ht + cap, &h_split, hc + t), NM_NEG)
            Irs[t] = add_floored(split, item_arc_weight(o, s, t), NM_NEG)
            c.IlC[t * S + s] = add_floored(split, item_arc_weight(o, t, s), NM_NEG)
            # Cl: Cl[s][k] + Il[k][t], k = s..t-1 (t heads)
            best = max(max_hinted(shCls, Cls, es + 1, c.IlC + t * S, s, t, u - ht + cap, &h_cl,
                                  hc + S + t), NM_NEG)
            Cls[t] = best
            c.ClC[t * S + s] = best
            # Cr: Ir[s][k] + Cr[k][t], k = s+1..t (s heads)
            best = max(max_hinted(shIrs, Irs, es + 1, c.CrC + t * S, s + 1, t + 1, u - hs + cap,
                                  &h_cr, hc + 2 * S + t), NM_NEG)
            Crs[t] = best
            c.CrC[t * S + s] = best
        # T row s, b >= b0: the tree's root r with its left part, V[r] = Cl[s][r] + its root
        # arc (rw), plus Cr[r][b] (column b: contiguous). Bound: the span's arcs of weight 1
        # (span_arcs) plus 1 if a FREE gold root is among the items ("Split bounds")
        for r in range(s, es + 1):
            V[r] = shCls[r] + rw[r]         # >= NM_NEG but for the excluded HEADED items
        for r in range(max(s, es + 1), S):
            V[r] = Cls[r] + rw[r]
        Ta = c.T + s * S
        for b in range(b0, S):
            Ta[b] = max(max_hinted(V, V, s, c.CrC + b * S, s, b + 1,
                                   c.span_arcs[b] + (root_from <= b) + cap, &h_t, hc + 3 * S + b),
                        NM_NEG)


cdef void nm_shared_chart(NMOracle* o, int w) noexcept nogil:
    """Make the gold block of word w the one nm_block_best reads its segments from (o.sh,
    sh_first, sh_size), computing its chart, every word FREE, at its first use (module
    docstring, "Shared charts"): Cr, Cl, Ir and T by rows, Cr, Cl and Il by columns, B^2
    each. Call it before filling the items (it uses them as scratch). Out of memory: no
    shared chart (sh_size 0), every cell computed per call."""
    cdef int first = o.block_start[w]
    cdef int B = o.block_end[w] - first + 1
    cdef int s
    cdef int* X
    cdef Chart c
    o.sh_size = 0
    if o.shared == NULL:
        o.shared = <int*>malloc(o.shared_total * sizeof(int))
        if o.shared == NULL:
            return
    X = o.shared + o.shared_at[first]
    if not o.shared_ok[first]:
        for s in range(B):
            o.word[s] = first + s
            o.kind[s] = NM_FREE
            o.arc_ok[s] = 1
            o.no_split[s] = 0
            o.seg_end[s] = s - 1        # every cell computed here: nothing shared
            o.seg_start[s] = s + 1
        chart_over(&c, o, B, X, 0, first)
        chart_rows(o, &c)
        o.shared_ok[first] = 1
    o.sh = X
    o.sh_first = first
    o.sh_size = B


cdef int nm_block_best(NMOracle* o, int size) noexcept nogil:
    """The most gold arcs of a forest over the block's items o.word[0..size-1] (kinds,
    arc_ok and no_split filled by the caller after nm_shared_chart; module docstring): the
    sum over the pieces between the open cuts (run_best each). With a preset word that
    cannot start a sentence, or o.full_chart, the whole chart (block_best_full); with
    o.no_cut, run_best over all the items."""
    cdef int a, i, far, total
    cdef NMOracle piece
    if size <= 0 or o.over:
        return 0
    if not chart_reserve(o, size):
        return 0                            # out of memory: no gold arc counted
    if o.full_chart:
        return block_best_full(o, size)
    for a in range(size):
        if o.no_split[a]:
            return block_best_full(o, size)
    if o.no_cut:
        return run_best(o, size)
    open_reach(o, size)
    # a piece ends at item i when no positive arc from an item <= i reaches past i; each
    # piece is scored over a view of the items that starts at its first (the chart, top
    # and shared chart are o's: the pieces run one after the other)
    piece = o[0]
    total = 0
    a = 0
    far = -1
    for i in range(size):
        if o.reach[i] > far:
            far = o.reach[i]
        if far <= i:
            piece.word = o.word + a
            piece.kind = o.kind + a
            piece.arc_ok = o.arc_ok + a
            piece.no_split = o.no_split + a
            total += run_best(&piece, i + 1 - a)
            if piece.over:
                break
            a = i + 1
    o.cells = piece.cells                   # the view's counts are o's
    o.over = piece.over
    return total


cdef void open_reach(NMOracle* o, int size) noexcept nogil:
    """reach[i] for the items 0..size-1: the furthest item j >= i such that an arc of
    positive weight (item_arc_weight 1: gold, allowed by the HEADED constraints, with the
    gold label on a HEADED item's own arc) joins items i and j; i if none. O(size): the
    arcs are fill_pos_heads' (an item's gold head is an item only if it is open, and a
    gold root is no arc between items)."""
    cdef int d, h
    fill_pos_heads(o, size)
    for d in range(size):
        o.reach[d] = d
    for d in range(size):
        h = o.pos_head[d]
        if h < 0:
            continue
        if h < d:
            if d > o.reach[h]:
                o.reach[h] = d
        elif h > o.reach[d]:
            o.reach[d] = h


cdef int run_best(NMOracle* o, int size) noexcept nogil:
    """nm_block_best of one piece (no preset word that cannot start a sentence; the chart
    reserved): its segments, the cells whose spans cross a segment boundary (chart_rows),
    the rest from the shared chart, then the forests of the items before each b."""
    cdef int S = size
    cdef int b, a, i, R, ta, es
    cdef long cells = 0
    cdef Chart c
    # segments: maximal runs of FREE items that are consecutive words of the shared
    # chart's gold block (seg_end[i] >= i iff item i is in one)
    for i in range(S - 1, -1, -1):
        if (o.kind[i] != NM_FREE or o.word[i] < o.sh_first
                or o.word[i] >= o.sh_first + o.sh_size):
            o.seg_end[i] = i - 1
        elif i + 1 < S and o.seg_end[i + 1] > i and o.word[i] + 1 == o.word[i + 1]:
            o.seg_end[i] = o.seg_end[i + 1]
        else:
            o.seg_end[i] = i
    for i in range(S):
        if o.seg_end[i] < i:
            o.seg_start[i] = i + 1
        elif i > 0 and o.seg_end[i - 1] >= i:
            o.seg_start[i] = o.seg_start[i - 1]
        else:
            o.seg_start[i] = i
    if o.run_only:                          # the reference: the last segment only
        R = o.seg_start[S - 1] if o.seg_end[S - 1] == S - 1 else S
        for i in range(R):
            o.seg_end[i] = i - 1
            o.seg_start[i] = i + 1
    for i in range(S):                      # row i's own cells: t > seg_end[i], t >= i
        cells += S - max(i, o.seg_end[i] + 1)
    chart_over(&c, o, S, o.chart, o.sh_size, o.sh_first)
    c.shCr = o.sh
    c.shCl = o.sh + c.B * c.B
    c.shIr = o.sh + 2 * c.B * c.B
    c.shT = o.sh + 3 * c.B * c.B
    c.shCrC = o.sh + 4 * c.B * c.B
    c.shClC = o.sh + 5 * c.B * c.B
    c.shIlC = o.sh + 6 * c.B * c.B
    if not spend(o, cells):
        return 0
    chart_rows(o, &c)
    # top[b + 1] = max over a of top[a] + T[a, b], by rows of T (contiguous: T[a, b] is the
    # shared chart's for b <= seg_end[a]); top[a] is final once the rows before a are done
    o.top[0] = 0
    for b in range(1, S + 1):
        o.top[b] = NM_NEG
    for a in range(S):
        ta = o.top[a]
        if ta <= NM_NEG:
            continue
        es = o.seg_end[a]
        if es >= a:
            top_row(o.top + 1, sh_row(&c, c.shT, a), ta, a, es + 1)
        top_row(o.top + 1, c.T + a * S, ta, max(a, es + 1), S)
    return o.top[S]


cdef inline void top_row(int* top1, const int* Ta, int ta, int lo, int hi) noexcept nogil:
    """top1[b] = max(top1[b], ta + Ta[b]) for b in lo..hi-1 where Ta[b] is a tree (above
    NM_NEG): run_best's forests, one row of T. Every top1[b] is stored, so that the loop
    vectorizes (the conditional store did not: 70% of run_best's own CPU on the training
    walk's states)."""
    cdef int b, v, w
    for b in range(lo, hi):
        v = ta + Ta[b] if Ta[b] > NM_NEG else NM_NEG
        w = top1[b]
        top1[b] = v if v > w else w


cdef inline bint spend(NMOracle* o, long cells) noexcept nogil:
    """Count the cells a call is about to compute; 0 (and o.over) if that would exceed the
    state's budget: the caller then computes nothing."""
    if o.budget > 0 and o.cells + cells > o.budget:
        o.over = 1
        return 0
    o.cells += cells
    return 1


cdef int block_best_full(NMOracle* o, int S) noexcept nogil:
    """nm_block_best computed whole (the reference, and the path with preset words that
    cannot start a sentence): Eisner's chart over the items, Clg where a preset word cannot
    start a sentence, then the trees under the virtual root left to right, top[b] = the
    best forest of items 0..b-1. O(S^3); the chart reserved by the caller."""
    cdef int a, r, b, k, v, best, w, length
    cdef bint presets = False
    cdef int* Cr
    cdef int* Cl
    cdef int* Ir
    cdef int* Il
    cdef int* Clg
    Cr = o.chart
    Cl = o.chart + S * S
    Ir = o.chart + 2 * S * S
    Il = o.chart + 3 * S * S
    Clg = o.chart + 4 * S * S
    if not spend(o, <long>S * (S + 1) // 2):
        return 0
    eisner_inside(item_arc_weight, o, S, NM_NEG, Cr, Cl, Ir, Il)
    for a in range(S):
        presets = presets or o.no_split[a]
    if presets:
        # Clg[a, r]: Cl[a, r] whose left spine (the path from a up to r) holds an item
        # that may start a sentence; without presets every tree's root does
        for a in range(S):
            Clg[a * S + a] = 0 if may_start(o, a) else NM_NEG
        for length in range(1, S):
            for a in range(S - length):
                r = a + length
                if may_start(o, r):
                    Clg[a * S + r] = Cl[a * S + r]
                    continue
                best = NM_NEG
                for k in range(a, r):
                    best = max(best, add_floored(Clg[a * S + k], Il[k * S + r], NM_NEG))
                Clg[a * S + r] = best
    else:
        Clg = Cl
    o.top[0] = 0
    for b in range(S):
        best = NM_NEG
        for a in range(b + 1):
            if o.top[a] <= NM_NEG:
                continue
            for r in range(a, b + 1):
                if o.kind[r] == NM_HEADED:
                    # never a sentence root; at the block's first place its head is the
                    # item before it, in the block before (a gold cut between: weight 0)
                    if a == 0 and r == 0:
                        v = Cr[b]
                    else:
                        continue
                else:
                    w = 1 if o.gold[o.word[r]] == o.word[r] else 0
                    # a tree after the first begins a sentence: its spine needs a word
                    # that may start one (Clg)
                    v = add_floored(Clg[a * S + r] if a > 0 else Cl[r], w, NM_NEG)
                    v = add_floored(v, Cr[r * S + b], NM_NEG)
                v = add_floored(o.top[a], v, NM_NEG)
                if v > best:
                    best = v
        o.top[b + 1] = best
    return o.top[S]


# ---- Python access (tests) -------------------------------------------------------------
cdef class NMOracleTable(OracleOwner):
    """Owns an NMOracle (OracleOwner frees it). gold: word heads, a root points to itself,
    -1 or None unknown."""

    def __cinit__(self, gold):
        cdef int[::1] g = gold_heads_array(list(gold) + [-1])    # [-1]: never empty
        self.c = <NMOracle*>self.own(nm_oracle_new(&g[0], len(g) - 1), nm_oracle_free)

    @property
    def blocks(self):
        """The gold blocks as (first word, last word)."""
        return [(self.c.block_start[w], w) for w in range(self.c.n) if self.c.block_end[w] == w]

    def block_best(self, words, headed=(), cannot_start=()):
        """The most gold arcs of a forest over the items `words` (one block, left to right);
        headed: the items that are HEADED (with the gold label); cannot_start: the items
        that cannot start a sentence."""
        cdef int i
        if len(words) > self.c.n:
            raise ValueError("more items than words")
        if len(words):
            nm_shared_chart(self.c, words[len(words) - 1])
        for i, w in enumerate(words):
            self.c.word[i] = w
            self.c.kind[i] = NM_HEADED if w in headed else NM_FREE
            self.c.arc_ok[i] = 1
            self.c.no_split[i] = 1 if w in cannot_start else 0
        return nm_block_best(self.c, len(words))

    @property
    def full_chart(self):
        """Every call computes its chart whole (the reference the shared charts are tested
        against) instead of reading the run's spans from the shared chart."""
        return bool(self.c.full_chart)

    @full_chart.setter
    def full_chart(self, value):
        self.c.full_chart = bool(value)

    @property
    def no_cut(self):
        """Every call scores its block's items as one piece (the reference the open cuts
        are tested against) instead of cutting them where no positive arc spans a gap."""
        return bool(self.c.no_cut)

    @no_cut.setter
    def no_cut(self, value):
        self.c.no_cut = bool(value)

    @property
    def run_only(self):
        """Every call reads only its last segment (the run of untouched words) from the
        shared chart and computes every span that starts before it (the reference the
        segments are tested against: the shared charts before nmdeep19)."""
        return bool(self.c.run_only)

    @run_only.setter
    def run_only(self, value):
        self.c.run_only = bool(value)

    @property
    def no_bound(self):
        """Every split loop runs over all its splits (the reference the split bounds and
        the hinted splits are tested against) instead of stopping once it reaches its
        cell's bound."""
        return bool(self.c.no_bound)

    @no_bound.setter
    def no_bound(self, value):
        self.c.no_bound = bool(value)

    @property
    def cells(self):
        """Chart cells computed per state since the table was made (the work count)."""
        return self.c.cells
