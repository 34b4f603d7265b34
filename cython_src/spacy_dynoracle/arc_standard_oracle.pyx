# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Exact tabular dynamic oracles for arc-standard, on plain arrays (nogil).

Spec: docs/specs/lr_spine_and_arc_standard.md.

* `as_F_paper`: [GSS14] Algorithm 1 with the correction of §6 P1 (axiom 0, the past loss
  is left out: costs only need the future loss F). Exact for complete projective gold
  (§3.3-3.4): the buffer is collapsed to the right stack of gold fragments (§3.2).
* `as_F_general`: the extension of §3.6, exact for any arc-factored loss, hence for
  non-projective gold (the best reachable projective tree) and for partial gold (an
  unknown head makes every arc to that word right). The remaining computation is a chain
  of left expansions (one stack node) and right expansions (a push computation over a
  buffer segment, i.e. the best projective tree over the segment, Eisner's algorithm).
  Here the segment trees come from Eisner charts over every sub-interval of a block,
  computed once per document (they do not depend on the configuration), and the push
  rules are factored through Eisner's half items, so that one F costs
  O(lL^2 m^2 + lL m^2 deg) for lL stack nodes and m buffer words instead of the spec's
  O(m^3 + lL m^2 (lL + m)).
* `as_costs`: delta(arc) + F(successor) for SHIFT, LEFT, RIGHT (§3.5) up to a constant
  shared by the three; a move's cost is its value minus the smallest value.

Configuration (docs/specs/lr_spine_and_arc_standard.md §1, §7): node 0 is the virtual root,
pre-shifted, at the bottom of the stack; stk[0..lL-1] bottom -> top; buffer b..n. Transitions
(docs/specs/lr_spine_and_arc_standard.md §2.1): sh; la adds s1 -> s2 and removes s2 (needs
s2 != 0); ra adds s2 -> s1 and removes s1.

Gold blocks (our addition; exact, and checked by the shared brute force). A block is a
maximal interval of words that no known gold arc between two words crosses: with complete
gold, a sentence of the Doc's gold forest (partial gold may give finer blocks).

* Projection. For a set S of blocks, take any computation from c and keep only its moves
  among S's nodes; where an S node d becomes the dependent of a node outside S (d is then
  the top S node of the stack), attach d instead to the S node below it on the stack, or
  make it a root when there is none. This is a computation from c|S (stack: 0 and the S
  nodes of the stack, buffer: S's buffer words) whose loss on S's words is no larger:
  the replaced arc crossed blocks, so it was wrong, unless d's gold head is unknown and
  both arcs are free. So F(c) >= F(c|S) + F(c|rest).
* Cut. If every stack word lies in S and S's buffer words come before the others, an
  optimal computation for c|S followed by one for c|rest is a computation from c, so
  F(c) = F(c|S) + F(c|rest). With S = the blocks up to E, the end of b's block, the later
  blocks (entirely in the buffer) add the same to every successor: costs need only the
  DP over the stack and the buffer b..E, not the Doc's whole buffer (`as_F_cut`).
* Next block. When b lies in a later block than s0 (the top sentence has no word left in
  the buffer), LEFT and RIGHT keep b's block whole, so their F splits once more into
  F(stack, empty buffer) + F([0], b..E): two small DPs instead of one.
* The DP of a part is [GSS14]'s when its sentence (the top word's block, which is also
  the buffer's) is complete projective gold, even if other sentences of the Doc are not,
  and the §3.6 DP otherwise, with m <= the sentence's length instead of the Doc's.
* Mixed stacks. When the model has put words of several gold sentences on the stack,
  they must end in one tree t* (arc-standard reduces the top two only, and ROOT needs a
  stack of one word), so the sentences do not simply add up: the arcs that glue them
  cross blocks, but they may fall on words that are lost anyway. Let the top run be the
  stack words of the top word's block, the lower runs the words below it, and the
  buffer b..E (the top block's words, by the cut). Then some optimal computation takes
  every buffer word of t* before the first lower-run word (lemma L1, proved in
  docs/proofs/arc_standard_mixed_stacks.md; t*'s buffer words are a prefix b..j-1 that
  the DP chooses, not always all of b..E. It is also checked against the §3.6 DP over
  the whole Doc on random configurations of Docs up to 60 words, mixed stacks included
  (test_arc_standard_cut_at_sentences_equals_whole_doc_dp), and by the shared brute
  force on multi-sentence gold). After that point the
  rest is arc-standard on a stack alone (lower_root_costs): the lower words are taken
  top-down, each becomes a dependent of the current root or takes it, and 0 takes the
  last root. Every arc there between the top tree's root h and a lower word crosses
  blocks, so h matters only through its type (gold root, unknown head, other): one
  linear-time pass gives, per type, the cost of the lower runs plus the final arc, and
  the top run's DP uses it as the cost of its last arc 0 -> h. A mixed state thus costs
  O(stack) plus a DP over the top sentence alone, instead of a DP over the whole stack
  (O(lL^2 m^2) with lL up to the Doc's length when an untrained model explores).

Buffer fragments (the §3.6 DP; exact, checked by the shared brute force and against the
DP over words, `contract=False`). A fragment is an interval I of buffer words that is
exactly the gold subtree of its root r, projective (every subtree in it is an interval).
Let c' be c with I replaced by r alone. Then F(c) = F(c'):
* (<=) run an optimal computation of c', building I's gold tree (a push computation,
  loss 0) where it shifts r;
* (>=) take the final tree T of an optimal computation of c and contract I to one node
  at I's place: an outside word whose head was in I hangs on r, and r takes the head of
  ρ, the word of I nearest T's root (its head is outside I, so no cycle appears). A
  monotone map of positions keeps non-crossing arcs non-crossing, so the tree is
  projective, hence built by some computation of c'. No word loses more: an outside
  word v with head in I has no gold head in I (else v would be in r's subtree), so δ
  is κ(v) before and after; r pays δ(T(ρ) -> r) <= 1 = δ(T(ρ) -> ρ) when ρ != r (ρ's
  gold head is in I), the same arc when ρ = r; the other words of I only lose arcs.
So the DP runs over buffer nodes, the largest fragments and the remaining single words,
and its segments start and end at node boundaries. The Eisner charts stay those of
words: over an interval that is a union of nodes, the best word-level tree with root r
is no better than the best over the nodes (the same contraction inside the segment).
Fragments depend on the gold only (`build_fragments`, once per document). In a long
sentence most of the buffer is made of a few such subtrees: m words become M nodes, and
the DP's O(lL^2 m^2) becomes O(lL^2 M^2) (M is about the number of the buffer's gold
subtrees that cross no arc and are not cut by b, as the fragments of §3.2).

Budget (the guard; a count, never a clock, so training stays reproducible). A DP costs
O(lL^2 M^2) (§3.6) or O(lL (lL + nR) nR) ([GSS14]) cells, and an exploring model can
push most of a long sentence: lL and M both near 100 are 10^8 cells for one F. Before a
DP runs, as_F_cut predicts its cells (dp_cells, the same counts the DPs add to o.cells);
when they exceed o.budget, the split between "top run" and "lower runs" of the mixed
stacks moves up the stack until the DP fits: the DP runs over 0, the top t stack words
and the buffer, and the words below are priced by lower_root_costs, as if no gold arc
joined them to the words above. The proof of the mixed stacks
(docs/proofs/arc_standard_mixed_stacks.md) uses that property (G) only in its per-word
accounting ("an old head in the other group costs κ >= any new head"). Without it:
* the computation Theorem 3 (<=) builds is a real computation from c whose loss is at
  most the priced value (the pass prices the arcs across the split at κ >= δ), so the
  guarded F is an upper bound on F;
* in Lemmas 2-3 and Theorem 2 a word whose head changes pays at most one more than
  before only when its old head was across the split and gold, and pricing an arc across
  the split at κ costs at most one more only for a word whose gold head is across; so
  the guarded F is at most F + g, where g counts the words on one side with a known gold
  head on the other (cross_arcs).
So the exact value of each move lies in [val - slack, val], and as_move_costs gives
max(0, val - slack - min val): a lower bound on the exact cost, 0 for every move the
exact oracle gives 0 (a superset of the optimal moves, never a costly one among them),
and the exact costs when g = 0 (then the split is a true one). States where the guard
tripped are counted (AS_PATH_GUARD), and those where some slack is not 0 as well
(AS_PATH_INEXACT). One state then costs at most 4 budgets (sh, la, ra and the next
block's F) plus O(stack + buffer) cells.
"""
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset

from .conventions cimport word_node, spec_head
from .oracle_arrays cimport (
    gold_arrays_new, gold_heads_array, gold_children, gold_block_ends, gold_right_stack,
    eisner_inside,
)


cdef inline int dlt(const ASOracleC* o, int h, int d) noexcept nogil:
    """delta(h -> d): 0 if the arc is gold or d's gold head is unknown, else 1."""
    cdef int g = o.head[d]
    return 0 if (g == h or g == AS_UNKNOWN) else 1


cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef struct BlockArcs:      # the arcs of one gold block (as_build's Eisner charts)
    ASOracleC* o
    int a                   # the block's first node: chart position s is node a + s


cdef int block_arc_gain(const void* arcs, int h, int d) noexcept nogil:
    """Minus dlt of the arc between chart positions h -> d of a block (eisner_inside's
    weight)."""
    cdef const BlockArcs* blk = <const BlockArcs*>arcs
    return -dlt(blk.o, blk.a + h, blk.a + d)


cdef int as_build(ASOracleC* o, const int32_t* heads, int n, bint force_general,
                  bint split, bint contract) noexcept nogil:
    """Gold from token heads (a root points to itself, -1 = unknown) into oracle space:
    CSR children, the gold blocks (one block for the Doc unless `split`), which blocks
    need the §3.6 DP (non-projective or partial, or all with force_general) and, if any
    does, the Eisner charts of every block and the buffer fragments (`contract`).
    Returns 0, -1 if out of memory, -2 if a head lies outside the Doc."""
    cdef int i, h, d, a, c, e, s, t, u, v, x, y, N1, J, L, Lmax
    cdef long total
    cdef bint gen
    memset(o, 0, sizeof(ASOracleC))
    o.n = n
    N1 = n + 1
    o.head = gold_arrays_new(N1, &o.kid_start, &o.kids)
    o.blk_of = <int*>malloc(N1 * sizeof(int))
    o.blk_a = <int*>malloc(N1 * sizeof(int))
    o.blk_e = <int*>malloc(N1 * sizeof(int))
    o.blk_gen = <unsigned char*>calloc(N1, 1)
    o.blk_off = <long*>calloc(N1, sizeof(long))
    o.sub = <int*>malloc((N1 + 2) * sizeof(int))
    o.mark = <unsigned char*>calloc(N1 + 1, 1)
    o.R = <int*>malloc((N1 + 1) * sizeof(int))
    o.X = <int*>malloc((N1 + 2) * sizeof(int))
    o.sidx = <int*>calloc(N1 + 1, sizeof(int))
    o.p2v = <int*>calloc(N1 + 1, sizeof(int))
    o.sub2 = <int*>malloc((N1 + 2) * sizeof(int))
    o.rc_other = 1
    o.rc_root = 0
    o.rc_unk = 0
    if not (o.head and o.kid_start and o.kids and o.blk_of and o.blk_a and o.blk_e
            and o.blk_gen and o.blk_off and o.sub and o.mark and o.R and o.X and o.sidx
            and o.p2v and o.sub2):
        return -1
    o.head[0] = -1
    for i in range(n):
        if heads[i] >= n:
            return -2       # a head outside the Doc: would index past every array
    for i in range(n):
        o.head[word_node(i)] = spec_head(heads[i], i, AS_UNKNOWN)
    cdef int* fill = <int*>calloc(2 * (N1 + 1), sizeof(int))
    if not fill:
        return -1
    gold_children(o.head, N1, o.kid_start, o.kids, fill)
    # blocks (one for the Doc unless split): fill[x] = the last node of word x's gold block
    gold_block_ends(o.head, N1, fill + N1 + 1, fill)
    o.blk_of[0] = -1
    o.nblk = 0
    a = 1
    for x in range(1, N1):
        if x == n or (split and fill[x] == x):
            o.blk_a[o.nblk] = a
            o.blk_e[o.nblk] = x
            for y in range(a, x + 1):
                o.blk_of[y] = o.nblk
            o.nblk += 1
            a = x + 1
    free(fill)
    # per block: complete and projective w.r.t. node 0 (no two arcs cross) -> [GSS14]
    o.paper_exact = True
    Lmax = 0
    total = 0
    for J in range(o.nblk):
        a = o.blk_a[J]
        e = o.blk_e[J]
        L = e - a + 1
        if L > Lmax:
            Lmax = L
        gen = force_general
        for d in range(a, e + 1):
            if o.head[d] == AS_UNKNOWN:
                gen = True
        for d in range(a, e + 1):
            if gen:
                break
            s = imin(d, o.head[d])
            t = d + o.head[d] - s
            for y in range(a, e + 1):
                if y == d:
                    continue
                u = imin(y, o.head[y])
                v = y + o.head[y] - u
                if s < u < t < v or u < s < v < t:
                    gen = True
                    break
        o.blk_gen[J] = gen
        if gen:
            o.paper_exact = False
        o.blk_off[J] = total
        total += <long>L * L
    # scratch of the §3.6 DP: its buffer part lies in one block (S0, S1, Ir grow with
    # the stack, in as_F_general). Built for projective gold too: the §3.6 DP is exact
    # there as well, and as_F_cut runs it when it visits fewer cells than [GSS14]'s
    o.H0 = <int*>malloc((Lmax + 3) * sizeof(int))
    o.H1 = <int*>malloc((Lmax + 3) * sizeof(int))
    o.minU = <int*>malloc((Lmax + 3) * sizeof(int))
    o.minUnk = <int*>malloc((Lmax + 3) * sizeof(int))
    if not (o.H0 and o.H1 and o.minU and o.minUnk):
        return -1
    # Eisner charts (arc cost dlt) over every sub-interval of every block: a §3.6 DP over
    # a mixed stack may have its buffer part in a projective block
    o.Cl = <int*>malloc(total * sizeof(int))
    o.Cr = <int*>malloc(total * sizeof(int))
    cdef int* Il = <int*>malloc(<long>Lmax * Lmax * sizeof(int))
    cdef int* Irr = <int*>malloc(<long>Lmax * Lmax * sizeof(int))
    if not (o.Cl and o.Cr and Il and Irr):
        free(Il)
        free(Irr)
        return -1
    cdef int* Cl
    cdef int* Cr
    cdef BlockArcs arcs
    arcs.o = o
    for J in range(o.nblk):
        a = o.blk_a[J]
        L = o.blk_e[J] - a + 1
        Cl = o.Cl + o.blk_off[J]        # Cl[s * L + t]: words a + s .. a + t
        Cr = o.Cr + o.blk_off[J]
        # the least-cost charts: minus the max-plus charts of the negated costs
        arcs.a = a
        eisner_inside(block_arc_gain, &arcs, L, -AS_INF, Cr, Cl, Irr, Il)
        for s in range(L):
            for t in range(s, L):
                Cl[s * L + t] = -Cl[s * L + t]
                Cr[s * L + t] = -Cr[s * L + t]
    free(Il)
    free(Irr)
    o.contract = contract
    o.nP = <int*>malloc((Lmax + 2) * sizeof(int))
    o.nRt = <int*>malloc((Lmax + 2) * sizeof(int))
    o.node_of = <int*>malloc((Lmax + 2) * sizeof(int))
    o.frag_end = <int*>malloc(N1 * sizeof(int))
    o.frag_root = <int*>malloc(N1 * sizeof(int))
    if not (o.nP and o.nRt and o.node_of and o.frag_end and o.frag_root):
        return -1
    for i in range(Lmax + 2):
        o.node_of[i] = -1
    return build_fragments(o)


cdef int build_fragments(ASOracleC* o) noexcept nogil:
    """frag_end / frag_root (module docstring, "Buffer fragments"): a word r whose gold
    subtree covers exactly the interval lo(r)..hi(r) and is projective (every subtree in
    it is an interval too, which is projectivity) is a fragment; per first word, the
    largest one. Subtrees are summed bottom-up (deepest words first)."""
    cdef int n = o.n, N1 = o.n + 1, d, h, k, steps, dmax = 0
    cdef int* lo = <int*>malloc(N1 * sizeof(int))
    cdef int* hi = <int*>malloc(N1 * sizeof(int))
    cdef int* size = <int*>malloc(N1 * sizeof(int))
    cdef int* depth = <int*>malloc(N1 * sizeof(int))
    cdef int* order = <int*>malloc(N1 * sizeof(int))
    cdef int* cnt = <int*>calloc(N1 + 2, sizeof(int))
    cdef unsigned char* ok = <unsigned char*>malloc(N1)
    if not (lo and hi and size and depth and order and cnt and ok):
        free(lo); free(hi); free(size); free(depth); free(order); free(cnt); free(ok)
        return -1
    for d in range(1, N1):
        lo[d] = hi[d] = d
        size[d] = 1
        ok[d] = 1
        o.frag_end[d] = d
        o.frag_root[d] = d
        # depth below the nearest root or unknown head (at most n steps: a cycle in a
        # malformed gold only makes no fragment)
        k = 0
        h = o.head[d]
        steps = 0
        while h >= 1 and steps <= n:
            k += 1
            h = o.head[h]
            steps += 1
        if steps > n:
            ok[d] = 0
            k = 0
        depth[d] = k
        if k > dmax:
            dmax = k
        cnt[k + 1] += 1
    for k in range(dmax + 1):           # counting sort, deepest first
        cnt[k + 1] += cnt[k]
    for d in range(1, N1):
        order[N1 - 2 - cnt[depth[d]]] = d
        cnt[depth[d]] += 1
    for k in range(N1 - 1):
        d = order[k]                    # every child of d came before d
        if hi[d] - lo[d] + 1 != size[d]:
            ok[d] = 0
        h = o.head[d]
        if h >= 1:
            if lo[d] < lo[h]:
                lo[h] = lo[d]
            if hi[d] > hi[h]:
                hi[h] = hi[d]
            size[h] += size[d]
            if not ok[d]:
                ok[h] = 0
    for d in range(1, N1):
        if ok[d] and hi[d] > o.frag_end[lo[d]]:
            o.frag_end[lo[d]] = hi[d]
            o.frag_root[lo[d]] = d
    free(lo); free(hi); free(size); free(depth); free(order); free(cnt); free(ok)
    return 0


cdef void as_free(ASOracleC* o) noexcept nogil:
    free(o.head); free(o.blk_of); free(o.blk_a)     # free(head): kid_start, kids too
    free(o.blk_e); free(o.blk_gen); free(o.blk_off); free(o.sub); free(o.mark); free(o.R)
    free(o.X); free(o.T); free(o.sidx); free(o.S0); free(o.S1); free(o.Ir); free(o.H0)
    free(o.H1); free(o.minU); free(o.minUnk); free(o.Cl); free(o.Cr); free(o.p2v)
    free(o.sub2); free(o.nP); free(o.nRt); free(o.node_of); free(o.frag_end)
    free(o.frag_root)
    memset(o, 0, sizeof(ASOracleC))


cdef void lower_root_costs(ASOracleC* o, const int* stk, int t1) noexcept nogil:
    """o.rc_*: the best cost of the stack words stk[1..t1-1] (the runs below the top
    sentence's run, all in other blocks) plus the arc from node 0, once the top tree
    (root h of a given type) is built and the buffer words it takes are taken (module
    docstring, "Mixed stacks"). With no buffer word left to take, this part is
    arc-standard on a stack alone: the words are taken top-down, each either becomes a
    dependent of the current root or takes it (and becomes the root); finally 0 takes the
    root. All arcs between h and these words cross blocks, so h enters only through its
    type: δ(x -> h) = κ(h) (0 if h's head is unknown, else 1) and δ(0 -> h).

    DP over the current root, O(words + gold arcs): "stay" adds κ(x) to every state but
    x's gold head (lazy offset g), "x takes c" costs 1, or 0 onto x's gold dependents and
    unknown-headed states. h is a phantom state whose "taken" cost κ(h) is factored out:
    every other state descends from exactly one taking of h. Then
      rc(type) = min(phantom + δ(0 -> h), κ(h) + min over states c of value + δ(0 -> c))."""
    cdef int t, x, kx, h, kk, k, best, tv
    cdef int g = 0                      # lazy offset of the states' values
    cdef int ph = 0                     # the phantom (the top tree's root stays root)
    cdef int mn = 0                     # min over all states, phantom included
    cdef int mnU = 0                    # min over unknown-headed states and the phantom
    cdef int q = AS_INF
    cdef unsigned char* isin = o.mark   # state flags (the paper DP clears mark after use)
    for t in range(t1 - 1, 0, -1):
        x = stk[t]
        kx = 0 if o.head[x] == AS_UNKNOWN else 1
        best = imin(mn + 1, mnU)        # x takes the current root
        for kk in range(o.kid_start[x], o.kid_start[x + 1]):
            k = o.kids[kk]
            if isin[k]:
                best = imin(best, o.p2v[k] + g)
        g += kx                         # the current root takes x
        ph += kx
        mn += kx
        mnU += kx
        h = o.head[x]
        if kx and h > 0 and isin[h]:    # ... at no cost when the root is x's gold head
            o.p2v[h] -= 1
            tv = o.p2v[h] + g
            mn = imin(mn, tv)
            if o.head[h] == AS_UNKNOWN:
                mnU = imin(mnU, tv)
        isin[x] = 1
        o.p2v[x] = best - g
        mn = imin(mn, best)
        if not kx:
            mnU = imin(mnU, best)
    for t in range(1, t1):
        x = stk[t]
        tv = o.p2v[x] + g + (0 if (o.head[x] == 0 or o.head[x] == AS_UNKNOWN) else 1)
        q = imin(q, tv)
        isin[x] = 0
    o.rc_other = imin(ph + 1, 1 + q)
    o.rc_root = imin(ph, 1 + q)
    o.rc_unk = imin(ph, q)


cdef int as_F_cut(ASOracleC* o, const int* stk, int lL, int b, int e) noexcept nogil:
    """F of the configuration cut at e: stack stk, buffer b..e (empty if b > e; else e
    is the end of b's block). When b's block is not the stack top's, the cut applies once
    more between the stack and the buffer.

    Clean stack (all words in one block): [GSS14]'s DP if that block (and the buffer's)
    is complete projective gold and it visits fewer cells than the §3.6 DP (exact for
    any gold: on long sentences its buffer nodes are often fewer than [GSS14]'s
    fragment roots, and its stack term is half of [GSS14]'s), else the §3.6 DP. Mixed
    stack: the same DP over 0, the top run and the buffer, with the arc that hangs the top
    tree on 0 costing what the runs below need (lower_root_costs).

    The guard (o.budget > 0): when that DP would visit more cells than the budget, the
    split moves up the stack until it fits, the words below it are priced by the same
    pass, and the result is an upper bound on F, at most cross_arcs above it (adds to
    o.cur_slack; module docstring, "Budget")."""
    cdef int t1 = lL - 1, t2, v, Jt, nG, nP, g
    cdef bint clean, gen
    cdef int zero = 0
    if b <= e and lL >= 2 and o.blk_of[stk[lL - 1]] != o.blk_of[b]:
        # b's block holds no stack word: the cut again, between the stack and the buffer
        return as_F_cut(o, stk, lL, b, b - 1) + as_F_cut(o, &zero, 1, b, e)
    clean = lL <= 2 or o.blk_of[stk[1]] == o.blk_of[stk[lL - 1]]
    if lL >= 2:
        Jt = o.blk_of[stk[lL - 1]]
    else:
        Jt = o.blk_of[b] if b <= e else -1
    gen = Jt >= 0 and o.blk_gen[Jt]
    if clean:
        t1 = 1
    else:
        while o.blk_of[stk[t1 - 1]] == Jt:  # the top run: stk[t1..lL-1]
            t1 -= 1
    # the DP's size: §3.6 over M buffer nodes, [GSS14] over nR fragment roots (those of
    # the whole stack: at least those of any top part of it); on complete projective gold
    # both are exact and the one that visits fewer cells runs
    nG = buffer_nodes(o, b, e)
    nP = 0 if gen else paper_right_stack(o, stk, lL, b, e)
    t2 = t1
    if o.budget > 0 and lL - t1 >= 2:
        while lL - t2 >= 2 and dp_cells(lL - t2 + 1, nG, True) > o.budget and (
                gen or dp_cells(lL - t2 + 1, nP, False) > o.budget):
            t2 += 1
        if t2 > t1:
            o.last_path |= AS_PATH_GUARD
            g = cross_arcs(o, stk, lL, t1, t2, b, e)
            if g:
                o.last_path |= AS_PATH_INEXACT
                o.cur_slack += g
    if not gen and dp_cells(lL - t2 + 1, nG, True) < dp_cells(lL - t2 + 1, nP, False):
        gen = True
    if t2 == 1:
        if gen:
            o.last_path |= AS_PATH_GENERAL
            return as_F_general(o, stk, lL, b, e)
        o.last_path |= AS_PATH_PAPER
        return as_F_paper(o, stk, lL, b, e)
    if not clean:
        o.last_path |= AS_PATH_MIXED
    lower_root_costs(o, stk, t2)
    cdef int* top = o.sub2              # [0] + the top run (above the guard's split)
    top[0] = 0
    for v in range(t2, lL):
        top[v - t2 + 1] = stk[v]
    if gen:
        o.last_path |= AS_PATH_GENERAL
        v = as_F_general(o, top, lL - t2 + 1, b, e)
    else:
        o.last_path |= AS_PATH_PAPER
        v = as_F_paper(o, top, lL - t2 + 1, b, e)
    o.rc_other = 1
    o.rc_root = 0
    o.rc_unk = 0
    return v


cdef int as_F(ASOracleC* o, const int* stk, int lL, int b) noexcept nogil:
    """F(c) of the whole configuration: the DP cut at the end of b's block plus the later
    blocks, each from [0] alone."""
    cdef int J, v, total
    cdef int zero = 0
    if b > o.n:
        return as_F_cut(o, stk, lL, b, o.n)
    J = o.blk_of[b]
    total = as_F_cut(o, stk, lL, b, o.blk_e[J])
    for J in range(J + 1, o.nblk):
        v = as_F_cut(o, &zero, 1, o.blk_a[J], o.blk_e[J])
        if total >= AS_INF or v >= AS_INF:
            return AS_INF
        total += v
    return total


cdef int paper_right_stack(ASOracleC* o, const int* stk, int lL, int b, int e_buf) noexcept nogil:
    """[GSS14]'s right stack of gold fragment roots of the buffer b..e_buf
    (docs/specs/lr_spine_and_arc_standard.md §3.2) into o.R; returns their number."""
    cdef int t, nR
    for t in range(lL):
        o.mark[stk[t]] = 1
    nR = gold_right_stack(o.head, o.kid_start, o.kids, o.mark, b, e_buf, o.R)
    for t in range(lL):
        o.mark[stk[t]] = 0
    return nR


cdef int buffer_nodes(const ASOracleC* o, int b, int e) noexcept nogil:
    """The number of buffer nodes of the §3.6 DP over b..e (as_F_general's scan)."""
    cdef int M = 0, w = b
    while w <= e:
        if o.contract and o.frag_end[w] <= e:
            w = o.frag_end[w]
        w += 1
        M += 1
    return M


cdef long dp_cells(long lLp, long M, bint gen) noexcept nogil:
    """Cells a DP visits (the counts as_F_general / as_F_paper add to o.cells) for a stack
    of lLp nodes, 0 included, and M buffer nodes (§3.6) or fragment roots ([GSS14])."""
    if gen:
        return (M + 1) * ((M + 1) * lLp * (lLp + 1) // 2 + M * lLp)
    return lLp * (M + 1) * (lLp + M)


cdef int cross_arcs(ASOracleC* o, const int* stk, int lL, int t1, int t2, int b,
                    int e) noexcept nogil:
    """Known gold arcs between the stack words stk[t1..t2-1] and the words above them
    (stk[t2..], the buffer b..e): the most the guard's split can cost (module docstring,
    "Budget")."""
    cdef int t, h, w, g = 0
    for t in range(t2, lL):
        o.mark[stk[t]] = 1
    for t in range(t1, t2):
        o.mark[stk[t]] = 2
    for t in range(t1, t2):
        h = o.head[stk[t]]
        if h >= 1 and (o.mark[h] == 1 or b <= h <= e):
            g += 1
    for t in range(t2, lL):
        h = o.head[stk[t]]
        if h >= 1 and o.mark[h] == 2:
            g += 1
    for w in range(b, e + 1):
        h = o.head[w]
        if h >= 1 and o.mark[h] == 2:
            g += 1
    for t in range(t1, lL):
        o.mark[stk[t]] = 0
    return g


cdef int as_F_paper(ASOracleC* o, const int* stk, int lL, int b, int e_buf) noexcept nogil:
    """Future loss F(c) by [GSS14] Algorithm 1, corrected
    (docs/specs/lr_spine_and_arc_standard.md §3.3, pseudocode §3.4), for the buffer
    b..e_buf. Exact for complete projective gold."""
    cdef int t, i, k, nR, N, p, a, e, h, x, y, v, span
    cdef long size, idx
    # 1) right stack of fragment roots (§3.2)
    nR = paper_right_stack(o, stk, lL, b, e_buf)
    # 2) string-order sequence, pivot p = stack top
    N = lL + nR
    p = lL - 1
    for t in range(lL):
        o.X[t] = stk[t]
    for t in range(nR):
        o.X[lL + t] = o.R[t]
    # 3) chart T[a][e][h], a <= p <= e, flat ((a * (N - p)) + (e - p)) * N + h
    size = <long>(p + 1) * (N - p) * N
    if size > o.T_cap:
        free(o.T)
        o.T = <int*>malloc(size * sizeof(int))
        o.T_cap = size if o.T != NULL else 0
        if o.T == NULL:
            return AS_INF
    cdef int* T = o.T
    o.cells += size
    for idx in range(size):
        T[idx] = AS_INF
    cdef int W = N - p
    T[(p * W + 0) * N + p] = 0
    for span in range(0, N - 1):
        for a in range(p - span if p - span > 0 else 0, p + 1):
            e = a + span
            if e >= N or e < p:
                continue
            for h in range(a, e + 1):
                v = T[(a * W + (e - p)) * N + h]
                if v >= AS_INF:
                    continue
                if a > 0:                       # left expansion with X[a-1] = σL[i+1]
                    x = a - 1
                    idx = (x * W + (e - p)) * N
                    T[idx + h] = imin(T[idx + h], v + (o.head[o.X[x]] != o.X[h]))   # la
                    if x > 0:
                        T[idx + x] = imin(T[idx + x], v + (o.head[o.X[h]] != o.X[x]))   # ra
                    else:       # ra onto node 0 ends the top tree: rc_* (as_F_cut)
                        T[idx + x] = imin(T[idx + x], v + (o.rc_root if o.head[o.X[h]] == 0
                                                           else o.rc_other))
                if e < N - 1:                   # right expansion with X[e+1] = σR[j+1]
                    y = e + 1
                    idx = (a * W + (y - p)) * N
                    T[idx + h] = imin(T[idx + h], v + (o.head[o.X[y]] != o.X[h]))   # ra
                    T[idx + y] = imin(T[idx + y], v + (o.head[o.X[h]] != o.X[y]))   # la
    return T[(0 * W + (N - 1 - p)) * N + 0]


cdef int as_F_general(ASOracleC* o, const int* stk, int lL, int b, int e) noexcept nogil:
    """Future loss F(c) for any arc-factored 0/1 loss
    (docs/specs/lr_spine_and_arc_standard.md §3.6) of the configuration with buffer b..e (within
    one block, or empty), factored as follows.

    The buffer is first cut into nodes B[0..M-1] (module docstring, "Buffer fragments"):
    each largest complete projective gold subtree that lies in the buffer is one node,
    rooted at its gold root; every other word is a node of its own. Segments start and
    end at node boundaries only (P[j]: words before node j), segment roots are node roots
    (Rt[j]); the Eisner charts stay those of words. B[q] below is node q's root word.

    U_i[p](h) = best tree over σL[1..i] (top first) and the buffer nodes B[0..p-1] with
    root h. Its entries are kept as
      S[p][k]  root σL[k] (k <= i);
      H[q]     root B[q]: the part of the tree left of B[q] inclusive (σL[1..i], B[0..q]);
               the part right of B[q] is any projective tree over B[q..p-1] headed by
               B[q], i.e. U_i[p](B[q]) = H[q] + Cr(q, p-1) (Eisner);
      Ir[r][k] σL[k] -> B[r] with B[r]'s left half built: min_p S[p][k] + Cl(p, r) + δ,
               so that a push computation (segment tree) attached to σL[k] is
               Ir[r][k] + Cr(r, p2-1).
    Left expansion with x = σL[i+1]: h takes x (la), or x takes the root (ra).
    Right expansion: the root takes a segment root (via Ir / Cr), or a segment root B[q]
    takes the root (H[q] <- root value + δ + Cl(p, q)).
    O(lL^2 M^2 + lL M^2 deg) for M buffer nodes (M <= m words).
    """
    cdef int m = e + 1 - b if e >= b else 0
    cdef int J = o.blk_of[b] if m > 0 else 0
    cdef int L = o.blk_e[J] - o.blk_a[J] + 1
    cdef int i, k, p, q, r, v, t, best, mu, mk, h, x, y, kk, sk, c_gen, c_unk, c_kid
    cdef int jp, jq, jr, jh, w, M
    cdef long cells = 0
    cdef int* S = o.S0
    cdef int* Sn = o.S1
    cdef int* H = o.H0
    cdef int* Hn = o.H1
    cdef int* tmp
    cdef int* Ir = o.Ir
    cdef int* P = o.nP
    cdef int* Rt = o.nRt
    cdef int* nod = o.node_of
    # Cl(b + s, b + t) = Cl[s * L + t], the same for Cr (the block's charts from b on)
    cdef const int* Cl = NULL
    cdef const int* Cr = NULL
    if m > 0:
        Cl = o.Cl + o.blk_off[J] + <long>(b - o.blk_a[J]) * (L + 1)
        Cr = o.Cr + o.blk_off[J] + <long>(b - o.blk_a[J]) * (L + 1)
    # buffer nodes: a fragment that ends past e (cannot happen inside a block) stays words
    M = 0
    w = b
    while w <= e:
        y = w
        r = w
        if o.contract and o.frag_end[w] <= e:
            y = o.frag_end[w]
            r = o.frag_root[w]
        P[M] = w - b
        Rt[M] = r - b
        nod[r - b] = M
        M += 1
        w = y + 1
    P[M] = m
    cdef int rowS = lL          # S[j * lL + k - 1], j <= M
    cdef long need = <long>(M + 1) * lL
    if need > o.S_cap:
        free(o.S0); free(o.S1); free(o.Ir)
        o.S0 = <int*>malloc(need * sizeof(int))
        o.S1 = <int*>malloc(need * sizeof(int))
        o.Ir = <int*>malloc(need * sizeof(int))
        o.S_cap = need
        if not (o.S0 and o.S1 and o.Ir):
            o.S_cap = 0
            for jq in range(M):
                nod[Rt[jq]] = -1
            return AS_INF
    S = o.S0
    Sn = o.S1
    Ir = o.Ir
    for k in range(1, lL + 1):
        o.sidx[stk[lL - k]] = k
    for t in range((M + 1) * rowS):
        S[t] = AS_INF
    for q in range(M):
        H[q] = AS_INF
    # axiom: U_1[0](σL[1]) = 0 (docs/specs/lr_spine_and_arc_standard.md §6 P1: no past loss)
    S[0] = 0
    for i in range(1, lL + 1):
        for t in range(M * rowS):
            Ir[t] = AS_INF
        for jp in range(M + 1):
            p = P[jp]
            cells += i * (M + 1) + M
            # S_i[p][k] from push computations attached to σL[k]
            if jp > 0:
                for k in range(1, i + 1):
                    best = S[jp * rowS + k - 1]
                    for jr in range(jp):
                        v = Ir[jr * rowS + k - 1]
                        if v < AS_INF:
                            v += Cr[Rt[jr] * L + p - 1]
                            if v < best:
                                best = v
                    S[jp * rowS + k - 1] = best
            # U_i[p] is final: its best root value, and over roots with unknown gold head
            mu = AS_INF
            mk = AS_INF
            for k in range(1, i + 1):
                v = S[jp * rowS + k - 1]
                if v < mu:
                    mu = v
                if o.head[stk[lL - k]] == AS_UNKNOWN and v < mk:
                    mk = v
            for jq in range(jp):
                v = H[jq]
                if v < AS_INF:
                    v += Cr[Rt[jq] * L + p - 1]
                    if v < mu:
                        mu = v
                    if o.head[b + Rt[jq]] == AS_UNKNOWN and v < mk:
                        mk = v
            o.minU[jp] = mu
            o.minUnk[jp] = mk
            if mu >= AS_INF or jp == M:
                continue
            # right expansion, the root σL[k] takes a segment root B[r] (r >= p)
            for k in range(1, i + 1):
                v = S[jp * rowS + k - 1]
                if v >= AS_INF:
                    continue
                h = stk[lL - k]
                for jr in range(jp, M):
                    r = Rt[jr]
                    t = v + Cl[p * L + r] + dlt(o, h, b + r)
                    if t < Ir[jr * rowS + k - 1]:
                        Ir[jr * rowS + k - 1] = t
            # right expansion, a segment root B[q] (q >= p) takes the root
            for jq in range(jp, M):
                q = Rt[jq]
                y = b + q
                best = imin(mu + 1, mk)
                for kk in range(o.kid_start[y], o.kid_start[y + 1]):
                    h = o.kids[kk]
                    sk = o.sidx[h]
                    if sk and sk <= i:
                        best = imin(best, S[jp * rowS + sk - 1])
                    elif b <= h < b + p:
                        jh = nod[h - b]
                        if jh >= 0 and H[jh] < AS_INF:
                            best = imin(best, H[jh] + Cr[(h - b) * L + p - 1])
                if best < AS_INF:
                    best += Cl[p * L + q]
                    if best < H[jq]:
                        H[jq] = best
        if i == lL:
            break
        # left expansion with x = σL[i+1]
        x = stk[lL - i - 1]
        c_gen, c_unk, c_kid = 1, 0, 0
        if x == 0:
            c_gen, c_unk, c_kid = o.rc_other, o.rc_unk, o.rc_root
        for jp in range(M + 1):
            p = P[jp]
            for k in range(1, i + 1):
                v = S[jp * rowS + k - 1]
                Sn[jp * rowS + k - 1] = v + dlt(o, stk[lL - k], x) if v < AS_INF else AS_INF
            for k in range(i + 2, lL + 1):
                Sn[jp * rowS + k - 1] = AS_INF
            # ra: x takes the root of U_i[p]: δ = 1, 0 for an unknown head or a gold
            # arc; onto node 0, which ends the top tree, rc_other / rc_unk / rc_root
            best = imin(o.minU[jp] + c_gen, o.minUnk[jp] + c_unk)
            for kk in range(o.kid_start[x], o.kid_start[x + 1]):
                h = o.kids[kk]
                sk = o.sidx[h]
                if sk and sk <= i:
                    best = imin(best, S[jp * rowS + sk - 1] + c_kid)
                elif b <= h < b + p:
                    jh = nod[h - b]
                    if jh >= 0 and H[jh] < AS_INF:
                        best = imin(best, H[jh] + Cr[(h - b) * L + p - 1] + c_kid)
            Sn[jp * rowS + i] = best if best < AS_INF else AS_INF
        for jq in range(M):
            Hn[jq] = H[jq] + dlt(o, b + Rt[jq], x) if H[jq] < AS_INF else AS_INF
        tmp = S; S = Sn; Sn = tmp
        tmp = H; H = Hn; Hn = tmp
    for k in range(1, lL + 1):
        o.sidx[stk[lL - k]] = 0
    for jq in range(M):
        nod[Rt[jq]] = -1
    o.cells += cells
    v = S[M * rowS + lL - 1]       # root σL[lL] = node 0
    return v if v < AS_INF else AS_INF


cdef void as_costs(ASOracleC* o, const int* stk, int lL, int b, const int* want,
                   int* val) noexcept nogil:
    """val[0], val[1], val[2] = δ(arc) + F(successor) of sh, la, ra
    (docs/specs/lr_spine_and_arc_standard.md §3.5), all three minus the same constant (the
    F of the blocks after b's block, module docstring), AS_INF where not wanted or not
    valid in the spec's system (la needs s2 != 0).
    o.slack[a]: 0 when val[a] is exact; else the guard made val[a] an upper bound at most
    o.slack[a] above the exact value, and a sound cost of move a is
    max(0, val[a] - o.slack[a] - min(val)) (as_move_costs)."""
    cdef int n = o.n
    cdef int d = lL - 1                 # stack words
    cdef int e = n                      # end of b's block: the DPs' buffer is b..e
    cdef int e2                         # the same for la / ra
    cdef int s1 = 0, s2 = 0, t, fb = 0
    cdef int zero = 0
    cdef int* sub = o.sub
    val[0] = val[1] = val[2] = AS_INF
    o.last_path = 0
    o.cells = 0
    if b <= n:
        e = o.blk_e[o.blk_of[b]]
    if e < n:
        o.last_path |= AS_PATH_CUT
    if d >= 1:
        s1 = stk[lL - 1]
        if o.blk_of[stk[1]] != o.blk_of[s1]:
            o.last_path |= AS_PATH_MIXED
    if d >= 2:
        s2 = stk[lL - 2]
    o.slack[0] = o.slack[1] = o.slack[2] = 0
    if want[0] and b <= n:              # sh
        for t in range(lL):
            sub[t] = stk[t]
        sub[lL] = b
        o.cur_slack = 0
        val[0] = as_F_cut(o, sub, lL + 1, b + 1, e)
        o.slack[0] = o.cur_slack
    e2 = e
    if d >= 1 and b <= n and o.blk_of[b] != o.blk_of[s1] and (want[1] or want[2]):
        # b's block is untouched by la / ra: F = F(stack', nothing) + F([0], b..e)
        o.last_path |= AS_PATH_NEXT
        fb = as_F_cut(o, &zero, 1, b, e)    # a stack of 0 alone: never guarded
        e2 = b - 1
    if want[1] and d >= 2:              # la: s1 -> s2, s2 leaves the stack
        for t in range(lL - 2):
            sub[t] = stk[t]
        sub[lL - 2] = s1
        o.cur_slack = 0
        val[1] = dlt(o, s1, s2) + as_F_cut(o, sub, lL - 1, b, e2) + fb
        o.slack[1] = o.cur_slack
    if want[2] and d >= 1:              # ra: s2 -> s1 (s2 = 0: ROOT), s1 leaves the stack
        o.cur_slack = 0
        val[2] = dlt(o, s2, s1) + as_F_cut(o, stk, lL - 1, b, e2) + fb
        o.slack[2] = o.cur_slack


cdef void as_move_costs(const ASOracleC* o, const int* val, int* cost) noexcept nogil:
    """Costs of sh, la, ra from as_costs' values: value minus the smallest value, exact
    unless the guard tripped; then value - slack - smallest, at least 0, a lower bound on
    the exact cost (the exact value lies in [val - slack, val], so the exact smallest is
    at most min(val)). Every move of cost 0 in the exact costs has cost 0 here."""
    cdef int i, best = AS_INF, c
    for i in range(3):
        if val[i] < best:
            best = val[i]
    for i in range(3):
        if val[i] >= AS_INF:
            cost[i] = AS_INF
            continue
        c = val[i] - o.slack[i] - best
        cost[i] = c if c > 0 else 0


cdef class ArcStandardOracle:
    """Python handle (tests, benchmarks): owns one ASOracleC.

    heads: token heads (a root points to itself, -1 or None = unknown);
    force_general: the §3.6 DP for every block; split=False: one block for the whole Doc
    (the oracle before the block decomposition, for comparisons); contract=False: every
    buffer word is a node of the §3.6 DP (the DP before "Buffer fragments"); budget > 0:
    the guard's limit on the cells of one DP ("Budget"; 0 = exact everywhere)."""

    def __init__(self, heads, force_general=False, split=True, contract=True, budget=0):
        arr = gold_heads_array(heads)
        cdef int32_t[::1] view = arr
        cdef int r = as_build(&self.c, &view[0], len(arr), force_general, split, contract)
        if r == -2:
            raise ValueError(f"gold head out of range for {len(arr)} words: {list(arr)}")
        if r < 0:
            raise MemoryError()
        self.c.budget = budget

    def __dealloc__(self):
        as_free(&self.c)

    @property
    def paper_exact(self):
        """Every block is complete projective gold (the [GSS14] DP everywhere)."""
        return bool(self.c.paper_exact)

    @property
    def blocks(self):
        """[(first token, last token, "paper" or "general")] of the gold blocks."""
        return [(self.c.blk_a[J] - 1, self.c.blk_e[J] - 1,
                 "general" if self.c.blk_gen[J] else "paper") for J in range(self.c.nblk)]

    @property
    def last_slack(self):
        """{"sh", "la", "ra": slack} of the last costs() call (all 0 unless the guard
        tripped with gold arcs across its split)."""
        return {name: self.c.slack[i] for i, name in enumerate(("sh", "la", "ra"))}

    @property
    def last_cells(self):
        """DP cells the last costs() call visited (its work, a count)."""
        return self.c.cells

    @property
    def last_path(self):
        """AS_PATH_* flags of the last costs() call."""
        return self.c.last_path

    def future(self, stack, int b):
        """F(c) for a stack of nodes (bottom -> top, starting with 0) and buffer start b."""
        import numpy
        arr = numpy.asarray(stack, dtype=numpy.intc)
        cdef int[::1] v = arr
        self.c.cur_slack = 0
        return as_F(&self.c, &v[0], len(arr), b)

    @property
    def last_future_slack(self):
        """How far the last future() may lie above the exact F (0 unless guarded)."""
        return self.c.cur_slack

    def costs(self, stack, int b):
        """{"sh", "la", "ra": cost} of the spec's moves valid in the configuration (node
        space, as future()), from as_costs, the function training uses."""
        import numpy
        arr = numpy.asarray(stack, dtype=numpy.intc)
        cdef int[::1] v = arr
        cdef int lL = len(arr)
        cdef int want[3]
        cdef int val[3]
        want[0] = b <= self.c.n
        want[1] = lL >= 3
        want[2] = lL >= 2
        cdef int cost[3]
        as_costs(&self.c, &v[0], lL, b, want, val)
        as_move_costs(&self.c, val, cost)
        return {name: cost[i] for i, name in enumerate(("sh", "la", "ra")) if want[i]}
