# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""The oracles of easy-first over plain arrays (numbering and action layout:
easy_first_oracle.pxd; the system: easy_first.pyx; the maths: docs/systems/easy_first.md).

* ef_formula_costs: Goldberg & Nivre's arc-decomposition cost,
  docs/specs/arc_eager_hybrid_easyfirst.md §5.3: an action adding (h, d) and removing d costs
  [g(d) pending and g(d) != h] + |D(d) pending|. Exact when the gold arcs among the pending
  items are all jointly reachable, which holds in every reachable configuration when the gold
  is complete and projective over 0..n (§3.1, §10.1; the multi-sentence forest of projective
  sentences is projective too). On non-projective gold it over-estimates (§9).
* ef_exact_costs: exact for every gold (non-projective, multi-sentence, unknown heads), which
  the spec does not give for easy-first (§9: "nothing comparable is specified"). The
  completions of a configuration are exactly the projective trees over its pending list with
  lam[0] as root (easy-first on the shorter "sentence" lam derives exactly those, §1.3), so
  the best loss still reachable is (built loss) + (pending words with a known gold head) -
  best(lam), best = the most gold arcs in a projective tree over lam: a first-order Eisner
  DP with weight [g(d) = h]. The action (h, d) leaves the trees over lam in which d is a
  leaf attached to its neighbour h, so its cost is best(lam) minus their best, which is
  inside + outside of the one Eisner item "d a leaf under its neighbour h" (C[h, d]):
  one inside-outside pass, O(size^3), gives every action's cost.
* ef_dynamic_costs: the exact oracle training uses, cut at gold sentences (blocks). best(lam)
  is the sum over the gold blocks B of best([root] + B's pending items) (a tree over lam
  restricted to a block, its items with a head outside the block re-attached to the root,
  stays projective and keeps every gold arc into the block, which only come from inside it
  or from the root; the blocks' best trees side by side under the root are one projective
  tree), whatever the built arcs, since the completions are the trees over lam whatever they
  are. So an action's cost depends only on the block of its dependent: the DP runs per block,
  and a block with complete projective gold needs only the formula (exact on any pending list
  of its words, each one being reachable). tests/test_easy_first.py checks the decomposition
  by exhaustive search (test_optimal_completions_decompose_at_gold_sentences).
* ef_static_costs: the non-deterministic static oracle (§6: GN13's easy-first baseline):
  0 iff the action adds a gold arc whose dependent has no pending gold dependent, i.e. the
  gold tree stays reachable; 1 otherwise. Meaningful only where the gold tree is reachable.
"""
from libc.stdlib cimport malloc, calloc, free

from .conventions cimport VIRTUAL_ROOT_NODE, word_node, spec_head
from .oracle_arrays cimport (
    gold_arrays_new, gold_heads_array, gold_children, gold_block_ends, eisner_inside,
    add_floored,
)


cdef EFGold* ef_gold_new(const int* word_heads, int n_words) noexcept nogil:
    """Gold of one Doc from word heads in the package convention (a root points to itself,
    -1 unknown); NULL on allocation failure."""
    cdef EFGold* g = <EFGold*>calloc(1, sizeof(EFGold))
    cdef int n = n_words + 1
    cdef int x, y, h, a, b, c, d
    cdef int* fill
    if g == NULL:
        return NULL
    g.n_nodes = n
    g.head = gold_arrays_new(n, &g.kid_start, &g.kids)
    g.block_end = <int*>malloc(n * sizeof(int))
    g.block_formula = <char*>malloc(n * sizeof(char))
    fill = <int*>malloc(n * sizeof(int))
    if g.head == NULL or g.block_end == NULL or g.block_formula == NULL or fill == NULL:
        free(fill)
        ef_gold_free(g)
        return NULL
    g.head[VIRTUAL_ROOT_NODE] = -1
    for x in range(n_words):
        g.head[word_node(x)] = spec_head(word_heads[x], x, -1)
    gold_children(g.head, n, g.kid_start, g.kids, fill)
    gold_block_ends(g.head, n, fill, g.block_end)      # fill: scratch
    free(fill)
    g.block_end[VIRTUAL_ROOT_NODE] = VIRTUAL_ROOT_NODE
    for y in range(n):
        g.block_formula[y] = 1
    # a block takes the formula if its heads are known (§9 covers complete gold) and no two
    # of its gold arcs cross (root arcs from node 0 included); arcs of different blocks
    # never cross (a root arc from node 0 covers the earlier blocks whole)
    for y in range(1, n):
        if g.head[y] < 0:
            g.block_formula[g.block_end[y]] = 0
            continue
        a = g.head[y] if g.head[y] < y else y
        b = y if g.head[y] < y else g.head[y]
        for d in range(y + 1, g.block_end[y] + 1):
            if g.head[d] < 0:
                continue
            c = g.head[d] if g.head[d] < d else d
            x = d if g.head[d] < d else g.head[d]
            if (a < c < b < x) or (c < a < x < b):
                g.block_formula[g.block_end[y]] = 0
                break
    g.formula_exact = True
    for y in range(1, n):
        if not g.block_formula[g.block_end[y]]:
            g.formula_exact = False
    return g


cdef void ef_gold_free(void* data) noexcept nogil:
    """Free an EFGold (void*: EasyFirstGoldTable's OracleOwner calls it; NULL is a no-op)."""
    cdef EFGold* g = <EFGold*>data
    if g == NULL:
        return
    free(g.head)            # and kid_start, kids (gold_arrays_new)
    free(g.block_end)
    free(g.block_formula)
    free(g)


cdef inline int pending_kids(const EFGold* g, int d, const char* in_list) noexcept nogil:
    """|D(d) ∩ lam|: gold dependents of node d still pending."""
    cdef int k
    cdef int count = 0
    for k in range(g.kid_start[d], g.kid_start[d + 1]):
        count += in_list[g.kids[k]]
    return count


cdef inline int action_dependent(const int* lam, int action, int* head) noexcept nogil:
    """The dependent node of an action (the layout of easy_first_oracle.pxd), its head node
    in head[0]; -1 for LEFT at pair 0, which is no move (the virtual root takes no head)."""
    cdef int i = action // 2
    if action % 2 == EF_RIGHT:
        head[0] = lam[i]
        return lam[i + 1]
    head[0] = lam[i + 1]
    return -1 if lam[i] == VIRTUAL_ROOT_NODE else lam[i]


ctypedef int (*arc_cost_t)(const EFGold* g, const char* in_list, int h, int d) noexcept nogil


cdef inline void action_costs(arc_cost_t arc_cost, const EFGold* g, const int* lam, int size,
                              const char* in_list, int* cost) noexcept nogil:
    """cost[a] = arc_cost(h, d) for every action a, adding h -> d; 0 for LEFT at pair 0,
    which is no move."""
    cdef int a, h, d
    for a in range(2 * (size - 1)):
        d = action_dependent(lam, a, &h)
        cost[a] = 0 if d < 0 else arc_cost(g, in_list, h, d)


cdef int formula_arc_cost(const EFGold* g, const char* in_list, int h, int d) noexcept nogil:
    """§5.3: C(h, d) = [g(d) pending and g(d) != h] + |D(d) pending| (an unknown gold head
    costs nothing itself)."""
    cdef int cost = pending_kids(g, d, in_list)
    if g.head[d] >= 0 and g.head[d] != h and in_list[g.head[d]] != 0:
        cost += 1
    return cost


cdef int static_arc_cost(const EFGold* g, const char* in_list, int h, int d) noexcept nogil:
    """§6: 0 if h -> d is a gold (or unknown-head) arc whose dependent has no pending gold
    dependent, 1 otherwise."""
    return 0 if (g.head[d] < 0 or g.head[d] == h) and pending_kids(g, d, in_list) == 0 else 1


cdef void ef_formula_costs(const EFGold* g, const int* lam, int size, const char* in_list,
                           int* cost) noexcept nogil:
    """§5.3 for every action (formula_arc_cost)."""
    action_costs(formula_arc_cost, g, lam, size, in_list, cost)


cdef inline int gold_weight(const EFGold* g, const int* lam, int h, int d) noexcept nogil:
    """[lam[h] is the gold head of lam[d]] (positions in lam; the root takes no head)."""
    if d == 0:
        return EF_NEG
    return g.head[lam[d]] == lam[h]


cdef struct ListArcs:       # the arcs over a pending list (eisner_inside's weight)
    const EFGold* g
    const int* lam


cdef int list_arc_weight(const void* arcs, int h, int d) noexcept nogil:
    cdef const ListArcs* la = <const ListArcs*>arcs
    return gold_weight(la.g, la.lam, h, d)


cdef inline int clamp_add(int a, int b) noexcept nogil:
    return add_floored(a, b, EF_NEG)


cdef inline void raise_to(int* slot, int value) noexcept nogil:
    if value > slot[0]:
        slot[0] = value


cdef int ef_exact_costs(const EFGold* g, const int* lam, int size, int* cost) noexcept nogil:
    """Every action's exact cost by one Eisner inside-outside pass over lam (module doc);
    -1 on allocation failure. Tables C (complete) and I (incomplete), r: head on the left,
    l: head on the right; X[s*size + t] spans positions s..t."""
    cdef int S = size
    cdef int i, s, t, k, side, length, o, w_r, w_l, best
    cdef ListArcs arcs
    cdef int* mem
    cdef int* Cr
    cdef int* Cl
    cdef int* Ir
    cdef int* Il
    cdef int* oCr
    cdef int* oCl
    cdef int* oIr
    cdef int* oIl
    if size < 2:
        return 0
    mem = <int*>malloc(8 * S * S * sizeof(int))
    if mem == NULL:
        return -1
    Cr, Cl, Ir, Il = mem, mem + S * S, mem + 2 * S * S, mem + 3 * S * S
    oCr, oCl, oIr, oIl = mem + 4 * S * S, mem + 5 * S * S, mem + 6 * S * S, mem + 7 * S * S
    for k in range(8 * S * S):
        mem[k] = EF_NEG
    arcs.g = g
    arcs.lam = lam
    eisner_inside(list_arc_weight, &arcs, S, EF_NEG, Cr, Cl, Ir, Il)
    best = Cr[S - 1]                       # Cr[0, S-1]: the whole list under the root
    # outside, longest spans first; in a span the complete items before the incomplete
    # ones (C[s, t] is built from I[s, t])
    oCr[S - 1] = 0
    for length in range(S - 1, 0, -1):
        for s in range(S - length):
            t = s + length
            o = oCr[s * S + t]
            if o > EF_NEG:
                for k in range(s + 1, t + 1):
                    raise_to(&oIr[s * S + k], clamp_add(o, Cr[k * S + t]))
                    raise_to(&oCr[k * S + t], clamp_add(o, Ir[s * S + k]))
            o = oCl[s * S + t]
            if o > EF_NEG:
                for k in range(s, t):
                    raise_to(&oCl[s * S + k], clamp_add(o, Il[k * S + t]))
                    raise_to(&oIl[k * S + t], clamp_add(o, Cl[s * S + k]))
            for side in range(2):      # Ir[s, t] and Il[s, t]: the same split, their arc
                if side == 0:
                    o = clamp_add(oIr[s * S + t], gold_weight(g, lam, s, t))
                else:
                    o = clamp_add(oIl[s * S + t], gold_weight(g, lam, t, s))
                if o <= EF_NEG:
                    continue
                for k in range(s, t):
                    raise_to(&oCr[s * S + k], clamp_add(o, Cl[(k + 1) * S + t]))
                    raise_to(&oCl[(k + 1) * S + t], clamp_add(o, Cr[s * S + k]))
    # the action (h, d) on pair i: d a leaf under its neighbour h is the item C[i, i+1]
    # (inside = its arc's weight); cost = best - (inside + outside)
    for i in range(S - 1):
        w_r = gold_weight(g, lam, i, i + 1)
        cost[2 * i + EF_RIGHT] = best - clamp_add(w_r, oCr[i * S + i + 1])
        if i == 0:
            cost[2 * i + EF_LEFT] = 0      # not a move (the root takes no head)
        else:
            w_l = gold_weight(g, lam, i + 1, i)
            cost[2 * i + EF_LEFT] = best - clamp_add(w_l, oCl[i * S + i + 1])
    free(mem)
    return 0


cdef int ef_dynamic_costs(const EFGold* g, const int* lam, int size, const char* in_list,
                          bint use_formula, int* cost, EFWork* work) noexcept nogil:
    """The exact dynamic oracle, cut at the gold blocks (module doc): §5.3's formula for the
    actions whose dependent lies in a block with complete projective gold (when
    use_formula), the DP over [root] + a block's pending items for the others; what the DP
    did goes to work. -1 on allocation failure."""
    cdef int i0, i1, j, L, d, end, removal
    cdef int* local
    cdef int* local_cost
    work.blocks = 0
    work.items = 0
    work.cells = 0
    if use_formula:
        ef_formula_costs(g, lam, size, in_list, cost)
        if g.formula_exact:
            return 0
    elif size >= 2:
        cost[EF_LEFT] = 0                  # LEFT at pair 0: not a move
    local = <int*>malloc(size * sizeof(int))
    local_cost = <int*>malloc(2 * size * sizeof(int))
    if local == NULL or local_cost == NULL:
        free(local)
        free(local_cost)
        return -1
    local[0] = VIRTUAL_ROOT_NODE
    i0 = 1
    while i0 < size:                       # the block of lam[i0] is lam[i0..i1]
        end = g.block_end[lam[i0]]
        i1 = i0
        while i1 + 1 < size and lam[i1 + 1] <= end:
            i1 += 1
        if not (use_formula and g.block_formula[end]):
            L = i1 - i0 + 1
            for j in range(L):
                local[j + 1] = lam[i0 + j]
            if ef_exact_costs(g, local, L + 1, local_cost) < 0:
                free(local)
                free(local_cost)
                return -1
            work.blocks += 1
            work.items += L + 1
            work.cells += <long long>(L + 1) * (L + 1) * (L + 1)
            # the pairs inside the block: their local costs
            for j in range(1, L):
                cost[2 * (i0 - 1 + j) + EF_RIGHT] = local_cost[2 * j + EF_RIGHT]
                cost[2 * (i0 - 1 + j) + EF_LEFT] = local_cost[2 * j + EF_LEFT]
            # an item leaving the list costs best(B) - best(B without it) - [the arc is
            # gold]; the first term is any local action's cost plus its gold weight. The
            # first item leaves by pair i0 - 1 (ROOT if i0 == 1), the last by LEFT at pair i1
            d = lam[i0]
            removal = local_cost[EF_RIGHT] + (g.head[d] == VIRTUAL_ROOT_NODE)
            cost[2 * (i0 - 1) + EF_RIGHT] = removal - (g.head[d] == lam[i0 - 1])
            if i1 + 1 < size:
                d = lam[i1]
                removal = local_cost[2 * (L - 1) + EF_RIGHT] + (g.head[d] == local[L - 1])
                cost[2 * i1 + EF_LEFT] = removal - (g.head[d] == lam[i1 + 1])
        i0 = i1 + 1
    free(local)
    free(local_cost)
    return 0


cdef void ef_static_costs(const EFGold* g, const int* lam, int size, const char* in_list,
                          int* cost) noexcept nogil:
    """The non-deterministic static oracle (§6): 0 for an action that adds a gold (or
    unknown-head) arc whose dependent has no pending gold dependent, 1 otherwise
    (static_arc_cost)."""
    action_costs(static_arc_cost, g, lam, size, in_list, cost)


cdef int ef_first_zero(const int* cost, int size) noexcept nogil:
    """The static oracle's deterministic choice (§6): the first zero-cost action in list
    order (RIGHT before LEFT in a pair; LEFT at pair 0 is no move); -1 if none."""
    cdef int a
    for a in range(2 * (size - 1)):
        if a != EF_LEFT and cost[a] == 0:
            return a
    return -1


cdef class EasyFirstGoldTable(OracleOwner):
    """Owns the EFGold of one Doc (OracleOwner frees it; word heads: a root points to itself,
    -1 unknown)."""

    def __cinit__(self, heads):
        cdef int[::1] h = gold_heads_array(list(heads) + [-1])   # [-1]: never empty
        self.c = <EFGold*>self.own(ef_gold_new(&h[0], len(h) - 1), ef_gold_free)

    @property
    def formula_exact(self):
        return bool(self.c.formula_exact)

    @property
    def blocks(self):
        """The gold blocks as word spans (start, end), with whether each takes the formula."""
        out, start = [], 0
        for x in range(1, self.c.n_nodes):
            if self.c.block_end[x] == x:
                out.append((start, x, bool(self.c.block_formula[x])))
                start = x
        return out

    def whole_list_costs(self, pending):
        """Every action's cost by the DP over the whole pending list (pending words, left
        to right; the virtual root in front), not cut at blocks: the reference the cut
        oracle is compared with beyond the brute force's reach (tests)."""
        import numpy
        cdef int[::1] lam = numpy.asarray([VIRTUAL_ROOT_NODE] + [word_node(w) for w in pending],
                                          dtype=numpy.int32)
        cdef int size = lam.shape[0]
        cdef int[::1] cost = numpy.zeros((max(2 * (size - 1), 1),), dtype=numpy.int32)
        if ef_exact_costs(self.c, &lam[0], size, &cost[0]) < 0:
            raise MemoryError()
        return list(cost[:2 * (size - 1)])
