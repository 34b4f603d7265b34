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
* ef_static_costs: the non-deterministic static oracle (§6: GN13's easy-first baseline):
  0 iff the action adds a gold arc whose dependent has no pending gold dependent, i.e. the
  gold tree stays reachable; 1 otherwise. Meaningful only where the gold tree is reachable.
"""
from libc.stdlib cimport malloc, calloc, free

from .conventions cimport VIRTUAL_ROOT_NODE, word_node, spec_head
from .oracle_arrays cimport (
    gold_arrays_new, gold_heads_array, gold_children, eisner_inside, add_floored,
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
    fill = <int*>malloc(n * sizeof(int))
    if g.head == NULL or fill == NULL:
        free(fill)
        ef_gold_free(g)
        return NULL
    g.head[VIRTUAL_ROOT_NODE] = -1
    g.formula_exact = True
    for x in range(n_words):
        h = spec_head(word_heads[x], x, -1)
        g.head[word_node(x)] = h
        if h < 0:
            g.formula_exact = False        # unknown heads: the DP (§9 covers complete gold)
    gold_children(g.head, n, g.kid_start, g.kids, fill)
    free(fill)
    # projective over 0..n (root arcs from node 0 included): no two gold arcs cross
    for y in range(1, n):
        if not g.formula_exact:
            break
        a = g.head[y] if g.head[y] < y else y
        b = y if g.head[y] < y else g.head[y]
        for d in range(y + 1, n):
            c = g.head[d] if g.head[d] < d else d
            x = d if g.head[d] < d else g.head[d]
            if (a < c < b < x) or (c < a < x < b):
                g.formula_exact = False
                break
    return g


cdef void ef_gold_free(void* data) noexcept nogil:
    """Free an EFGold (void*: EasyFirstGoldTable's OracleOwner calls it; NULL is a no-op)."""
    cdef EFGold* g = <EFGold*>data
    if g == NULL:
        return
    free(g.head)            # and kid_start, kids (gold_arrays_new)
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
                          bint use_formula, int* cost) noexcept nogil:
    """The exact dynamic oracle: §5.3's formula where it is exact (complete projective gold,
    when use_formula), the DP everywhere else; -1 on allocation failure."""
    if use_formula and g.formula_exact:
        ef_formula_costs(g, lam, size, in_list, cost)
        return 0
    return ef_exact_costs(g, lam, size, cost)


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
