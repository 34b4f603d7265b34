# What the exact oracles share over plain arrays (docs/architecture.md): a gold tree's arrays
# and CSR children, its gold blocks, [GSS14]'s right stack, a max-plus Eisner inside pass,
# and the gold heads their Python handles take.
# Numbering is conventions.pxd's: node 0 is the virtual root, word i is node i + 1; a gold
# head array holds a node per node, negative for "unknown" (each oracle's own marker) and
# for node 0. nogil (but for gold_heads_array), knowing nothing of spaCy; cimported by the
# oracles' .pyx files only (not by their .pxd), so that a change here rebuilds just them.
from libc.stdlib cimport malloc

ctypedef fused mark_t:      # the oracles' mark arrays: bytes (arc_standard), ints (lr_spine)
    unsigned char
    int


cdef inline int* gold_arrays_new(int n_nodes, int** kid_start, int** kids) noexcept nogil:
    """One allocation for a gold tree's head[n_nodes] (returned), kid_start[n_nodes + 1]
    and kids[n_nodes] (gold_children's CSR); free(head) frees all three. NULL if out of
    memory (kid_start and kids are then left alone)."""
    cdef int* head = <int*>malloc((3 * n_nodes + 1) * sizeof(int))
    if head != NULL:
        kid_start[0] = head + n_nodes
        kids[0] = head + 2 * n_nodes + 1
    return head


cdef inline object gold_heads_array(heads):
    """Gold heads given from Python (None = unknown) as a C-contiguous int32 numpy array,
    -1 for None: the input of the oracles' Python handles."""
    import numpy
    return numpy.asarray([-1 if h is None else h for h in heads], dtype=numpy.int32)


cdef inline void gold_children(const int* head, int n_nodes, int* kid_start, int* kids,
                               int* fill) noexcept nogil:
    """CSR gold children: the dependents of node h are kids[kid_start[h]:kid_start[h + 1]],
    sorted by position (a counting sort over heads); a node with a negative head is nobody's.
    kid_start has n_nodes + 1 entries; kids and fill (scratch) n_nodes."""
    cdef int d, h
    for h in range(n_nodes + 1):
        kid_start[h] = 0
    for d in range(n_nodes):
        if head[d] >= 0:
            kid_start[head[d] + 1] += 1
    for h in range(n_nodes):
        kid_start[h + 1] += kid_start[h]
    for h in range(n_nodes):
        fill[h] = kid_start[h]
    for d in range(n_nodes):
        h = head[d]
        if h >= 0:
            kids[fill[h]] = d
            fill[h] += 1


cdef inline void gold_block_ends(const int* head, int n_nodes, int* reach,
                                 int* block_end) noexcept nogil:
    """block_end[x] for every word node x (1..n_nodes - 1): the last node of x's gold block,
    the blocks being cut after word x unless a known gold arc between two words spans x,
    x + 1 (with complete gold: the Doc's sentences; docs/specs/lr_spine_and_arc_standard.md,
    arc_standard_oracle.pyx's module docstring). block_end[0] is not written; reach is
    scratch of n_nodes entries (reach[lo]: the furthest right end of an arc from lo)."""
    cdef int d, h, lo, x, first = 1, far = 0
    for x in range(n_nodes):
        reach[x] = 0
    for d in range(1, n_nodes):
        h = head[d]
        if h >= 1:
            lo = d if d < h else h
            if d + h - lo > reach[lo]:
                reach[lo] = d + h - lo
    for x in range(1, n_nodes):
        if reach[x] > far:
            far = reach[x]
        if x == n_nodes - 1 or far <= x:
            for d in range(first, x + 1):
                block_end[d] = x
            first = x + 1


cdef inline int gold_right_stack(const int* head, const int* kid_start, const int* kids,
                                 mark_t* mark, int b, int e, int* R) noexcept nogil:
    """[GSS14]'s right stack (docs/specs/lr_spine_and_arc_standard.md §3.2): the buffer nodes
    b..e, in order, that are roots of gold fragments, i.e. whose gold head (or unknown head)
    precedes b or who have a marked gold dependent, into R; returns their number. On entry
    mark flags (1) the roots of the stack's elements and is 0 elsewhere; each root found is
    marked while the scan goes on (a later node heading it is a root too) and unmarked after,
    so mark is left as it was found."""
    cdef int x, k, nR = 0
    cdef bint is_root
    for x in range(b, e + 1):
        is_root = head[x] < b
        if not is_root:
            for k in range(kid_start[x], kid_start[x + 1]):
                if mark[kids[k]]:
                    is_root = True
                    break
        if is_root:
            R[nR] = x
            nR += 1
            mark[x] = 1
    for k in range(nR):
        mark[R[k]] = 0
    return nR


# ---- a first-order Eisner inside pass, max-plus -------------------------------------------
ctypedef int (*arc_weight_t)(const void* arcs, int h, int d) noexcept nogil


cdef inline int add_floored(int a, int b, int floor) noexcept nogil:
    """a + b, but never below floor (the chart's minus infinity does not accumulate)."""
    cdef int s = a + b
    return floor if s < floor else s


cdef inline void eisner_inside(arc_weight_t weight, const void* arcs, int S, int floor,
                               int* Cr, int* Cl, int* Ir, int* Il) noexcept nogil:
    """The best projective trees over positions 0..S-1 (Eisner's first-order inside pass in
    the max-plus semiring; docs/specs/lr_spine_and_arc_standard.md §3.6): X[s * S + t] spans
    s..t, C the complete items, I the incomplete ones, r with the head on the left (s), l on
    the right (t); weight(arcs, h, d) is the weight of the arc h -> d (floor: no such arc). Every sum
    is floored at floor. Writes the cells s <= t of Cr and Cl, s < t of Ir and Il.
    A min-cost chart is minus the chart of the negated costs (arc_standard_oracle.pyx)."""
    cdef int s, t, k, length, split, best
    for s in range(S):
        Cr[s * S + s] = 0
        Cl[s * S + s] = 0
    for length in range(1, S):
        for s in range(S - length):
            t = s + length
            split = floor
            for k in range(s, t):
                split = max(split, add_floored(Cr[s * S + k], Cl[(k + 1) * S + t], floor))
            Ir[s * S + t] = add_floored(split, weight(arcs, s, t), floor)
            Il[s * S + t] = add_floored(split, weight(arcs, t, s), floor)
            best = floor
            for k in range(s, t):
                best = max(best, add_floored(Cl[s * S + k], Il[k * S + t], floor))
            Cl[s * S + t] = best
            best = floor
            for k in range(s + 1, t + 1):
                best = max(best, add_floored(Ir[s * S + k], Cr[k * S + t], floor))
            Cr[s * S + t] = best
