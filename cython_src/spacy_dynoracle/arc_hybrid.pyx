# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Arc-hybrid (Kuhlmann, Gómez-Rodríguez & Satta 2011) with the exact dynamic oracle of
Goldberg & Nivre 2013. Spec: docs/specs/arc_eager_hybrid_easyfirst.md §1.2, §5.2, §6.

The virtual root sits at the bottom of the stack (ROOT-first,
docs/specs/arc_eager_hybrid_easyfirst.md §1.2) without being a token: ROOT is the spec's RIGHT
with s1 = root, valid when s0 is the only real stack item. A root popped by ROOT gets
`_heads[s0] = s0` (the package convention), so for this system

    x is on the stack  <=>  x < _b_i and x has no head yet
    x is in the buffer <=>  x >= _b_i        (the buffer is a contiguous suffix)

and every cost below is O(1 + gold degree), with no per-step bookkeeping.

Oracles: ``dynamic`` is exact for any gold tree. On projective gold (per segment between
gold cuts, see arc_eager_oracle.pyx) it uses the G&N formulas above; where the segment of
the buffer front is non-projective it uses the continuation DP of
docs/specs/arc_eager_nonproj_oracle.md §6 with every stack word labelled L and no RA (arc-hybrid
is that special case, docs/specs/dp_tabulation.md §8): SHIFT = SH, LEFT = LA, RIGHT/ROOT = RE. So
non-projective gold is *not* lifted by default. ``goldberg-nivre`` is the formula alone
(exact on projective gold only); ``static`` trains on lifted gold by default.

Sentences: several roots make several sentences (each root's yield is contiguous because
the derived forest is projective w.r.t. the virtual root). Preset boundaries
(`TokenC.sent_start`) are honoured: no arc crosses a preset sentence start, SHIFT cannot
push a sentence start onto a non-empty stack, and ROOT may not end a sentence before a
token that cannot start one (docs/conventions.md).
"""
from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC

from .system_base cimport (
    DynOracleSystem, DynGold, GoldC, BufferLeftArc, StackRightArc, SHIFT, LEFT, RIGHT, ROOT,
    N_MOVES, AT_S0, AT_S1, AT_B0, gold_kids_from, shift_else_reduce,
)
from .arc_eager_oracle cimport NPOracle
from .arc_eager cimport np_move_costs, left_arc_gn_cost
from .arc_eager import attach_np_table



cdef inline bint on_stack(const StateC* st, int x) noexcept nogil:
    return x < st._b_i and st._heads[x] == -1


cdef inline bint in_buffer(const StateC* st, int x) noexcept nogil:
    return x >= st._b_i


cdef inline int kids_on_stack(const StateC* st, const GoldC* g, int h) noexcept nogil:
    cdef int k, n = 0
    for k in range(g.kid_start[h], g.kid_start[h + 1]):
        if g.kids[k] >= h:
            break              # only left dependents can be on the stack while h is b0
        if on_stack(st, g.kids[k]):
            n += 1
    return n


cdef class ShiftCost:
    """SHIFT pushes the first word of the buffer; validity and action are
    system_base.Shift's.

    Cost: [g(b0) in stack ∪ {root}, other than s0] + |D(b0) ∩ stack|.
    """
    @staticmethod
    cdef weight_t move_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int b0 = st.B(0)
        cdef int s0 = st.S(0)
        cdef int h = g.heads[b0]
        cdef weight_t cost = kids_on_stack(st, g, b0)
        if h == b0:
            cost += st.stack_depth() >= 1          # the root is deeper than s0 now
        elif h >= 0 and h != s0 and on_stack(st, h):
            cost += 1
        return cost


cdef class PopCost:
    """RIGHT (system_base.StackRightArc) and ROOT (system_base.RootArc, the spec's RIGHT with
    s1 = root) attach s0 to the word or root below it and pop it; validity and action are
    theirs.

    Cost: [g(s0) in B] + |D(s0) ∩ B| (+1 for a wrong label on the gold arc).
    """
    @staticmethod
    cdef weight_t move_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int s0 = st.S(0)
        cdef int h = g.heads[s0]
        return (h >= 0 and h != s0 and in_buffer(st, h)) + gold_kids_from(g, s0, st._b_i)


cdef class ArcHybrid(DynOracleSystem):
    """Arc-hybrid: SHIFT, LEFT, RIGHT, ROOT. Projective trees; with the exact ``dynamic``
    oracle it trains on non-projective gold as it is (no lifting by default); with
    ``static`` it trains on spaCy's pseudo-projective lifting and deprojectivizes."""
    name = "arc_hybrid"
    projective = True
    oracles = ("dynamic", "goldberg-nivre", "static")
    dynamic_oracles = ("dynamic", "goldberg-nivre")
    nonprojective_oracles = ("dynamic", "goldberg-nivre")
    cdef bint use_dp

    def set_oracle(self, oracle):
        DynOracleSystem.set_oracle(self, oracle)
        self.use_dp = oracle == "dynamic"

    def attach_oracle(self, DynGold gold):
        if self.use_dp:
            attach_np_table(gold)

    cdef int declare_moves(self) except -1:
        DynOracleSystem.declare_moves(self)
        # LEFT: every stack word of arc-hybrid has no head, as BufferLeftArc requires
        self.declare_move(LEFT, BufferLeftArc.is_valid, BufferLeftArc.transition, AT_B0, AT_S0)
        self.declare_move(RIGHT, StackRightArc.is_valid, StackRightArc.transition, AT_S1, AT_S0)

    cdef void move_costs(self, const StateC* st, const GoldC* g, const int* valid,
                         weight_t* cost) noexcept nogil:
        cdef NPOracle* o = <NPOracle*>g.extra
        if self.use_dp and o != NULL and st._b_i < o.n and o.nonproj[st._b_i + 1]:
            # non-projective segment: the continuation DP
            # (docs/specs/arc_eager_nonproj_oracle.md §6), all words L
            np_move_costs(st, g, 0, valid, cost)
            return
        cost[SHIFT] = ShiftCost.move_cost(st, g) if valid[SHIFT] else 0
        cost[LEFT] = left_arc_gn_cost(st, g) if valid[LEFT] else 0
        cost[RIGHT] = PopCost.move_cost(st, g) if valid[RIGHT] else 0
        cost[ROOT] = PopCost.move_cost(st, g) if valid[ROOT] else 0

    cdef int static_move(self, const StateC* st, const GoldC* g) noexcept nogil:
        """docs/specs/arc_eager_hybrid_easyfirst.md §6: attach as soon as the word is complete,
        LEFT before RIGHT, else SHIFT."""
        cdef int valid[N_MOVES]
        cdef int s0 = st.S(0)
        cdef int h
        self.move_validity(st, valid)
        if s0 >= 0 and gold_kids_from(g, s0, st._b_i) == 0:
            h = g.heads[s0]
            if valid[LEFT] and h == st.B(0):
                return LEFT
            if valid[RIGHT] and h == st.S(1):
                return RIGHT
            if valid[ROOT] and h == s0:
                return ROOT
        return shift_else_reduce(valid)
