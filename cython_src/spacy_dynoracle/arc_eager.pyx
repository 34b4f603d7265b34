# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Corrected arc-eager (Nederhof, docs/specs/arc_eager_nonproj_oracle.md §2.2) on spaCy's StateC,
with three oracles:

* ``dynamic``: the exact optimal step for any gold tree, non-projective included: the
  continuation DP of docs/specs/arc_eager_nonproj_oracle.md §6 (arc_eager_oracle.pyx), policy
  PURE, inner table once per Doc.
* ``goldberg-nivre``: arc-decomposable costs in the manner of Goldberg & Nivre 2013
  (docs/specs/arc_eager_hybrid_easyfirst.md §3, §5.1; reachable-before minus reachable-after,
  docs/specs/arc_eager_nonproj_oracle.md §12.7), re-derived for this system (root at the stack
  bottom, corrected REDUCE). Exact on projective gold; an approximation on non-projective gold.
* ``static``: the canonical sequence (first zero-cost move of the G&N costs in the order
  LEFT, RIGHT, REDUCE, ROOT, SHIFT: reduce as soon as complete).

The virtual root (token 0 of the spec) sits at the bottom of the stack and is never
popped (docs/specs/arc_eager_nonproj_oracle.md §2: "token 0 starts on the stack"). Moves, on
StateC:

    SHIFT    push b0 (spec SH: label L, no head yet)
    RIGHT    push b0 with its head fixed to s0 (spec RA: label R). As in the spec the arc is
             *created* when b0 is popped by REDUCE, which carries the label; meanwhile
             `_heads[b0] = s0` marks it R (no arc in the arc maps yet).
    LEFT-l   arc b0 -> s0 (label l), pop; only for an L top (spec LA).
    REDUCE-l arc s1 -> s0 (label l), pop (spec RE, corrected: any label; for an R top this
             is its pending right arc, for an L top the correction of an earlier SHIFT).
    ROOT     s0 becomes a sentence root (spec RE into token 0), pop; s0 alone on the stack.

So for a word x: x >= _b_i <=> in the buffer; x on the stack and _heads[x] == -1 <=> L.
RIGHT is not offered on an empty stack (RA from the root = SHIFT + ROOT later; same trees).
Every non-final state has a valid move: REDUCE with >= 2 stack words, ROOT or SHIFT with
one, SHIFT with none (docs/conventions.md, preset boundaries included).
"""
from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC

from .system_base cimport (
    DynOracleSystem, DynGold, GoldC, BufferLeftArc, StackRightArc, SHIFT, LEFT, RIGHT, ROOT,
    REDUCE,
    N_MOVES, AT_S0, AT_S1, AT_B0, VIRTUAL_ROOT_NODE, word_node, spec_head,
    gold_kids_from,
)
from .arc_eager_oracle cimport (
    NPOracle, NPOracleTable, np_scores, NP_SH, NP_RA, NP_LA, NP_RE, NP_NEG,
)

ORACLE_DYNAMIC = "dynamic"
ORACLE_GN = "goldberg-nivre"
ORACLE_STATIC = "static"



# ---- per-Doc oracle table (GoldC.extra) -------------------------------------------------
def attach_np_table(DynGold gold):
    """Build the docs/specs/arc_eager_nonproj_oracle.md §6.1 tables for this gold once and hang
    them on gold.c.extra (owned by gold.extra_obj). Idempotent."""
    cdef NPOracleTable table
    if gold.c.extra != NULL:
        return
    n = gold.c.length
    spec_gold = [None] * (n + 1)       # spec numbering: node 0 is the virtual root
    for i in range(n):
        spec_gold[word_node(i)] = spec_head(gold.c.heads[i], i, -1)
    table = NPOracleTable(spec_gold)
    gold.attach(table, <void*>table.c)


cdef inline int np_move(int move, bint with_ra) noexcept nogil:
    """The spec move of a move (docs/specs/arc_eager_nonproj_oracle.md §2.2): SHIFT is SH,
    LEFT LA, REDUCE and ROOT (into the virtual root) RE, RIGHT RA in arc-eager (with_ra) and
    RE in arc-hybrid, where every stack word is L (docs/specs/dp_tabulation.md §8); -1 for
    the other moves."""
    if move == SHIFT:
        return NP_SH
    if move == LEFT:
        return NP_LA
    if move == RIGHT:
        return NP_RA if with_ra else NP_RE
    if move == REDUCE or move == ROOT:
        return NP_RE
    return -1


cdef void np_move_costs(const StateC* st, const GoldC* g, bint with_ra, const int* valid,
                        weight_t* cost) noexcept nogil:
    """The continuation DP's costs (docs/specs/arc_eager_nonproj_oracle.md §3: cost = max over
    valid moves of rho - rho[t]) of the valid moves, read as their spec moves (np_move); the
    others cost 0. rho[NP_*] comes from the DP module for the stack in spec numbering (the
    virtual root at the bottom), R = pushed by RIGHT (with_ra; arc-hybrid has no RIGHT
    push)."""
    cdef NPOracle* o = <NPOracle*>g.extra
    cdef int rho[4]
    cdef int best = NP_NEG
    cdef int k = st.stack_depth() + 1
    cdef int i, m, x, t
    o.stack[0] = VIRTUAL_ROOT_NODE
    o.is_R[0] = 1
    for i in range(1, k):
        x = st._stack[i - 1]
        o.stack[i] = word_node(x)
        o.is_R[i] = 1 if (with_ra and st._heads[x] != -1) else 0
    np_scores(o, o.stack, o.is_R, k, word_node(st._b_i), rho)
    for m in range(N_MOVES):
        t = np_move(m, with_ra)
        if valid[m] and t >= 0 and rho[t] > best:
            best = rho[t]
    for m in range(N_MOVES):
        t = np_move(m, with_ra)
        cost[m] = best - rho[t] if (valid[m] and t >= 0) else 0


# ---- helpers for the Goldberg-Nivre costs --------------------------------------------
cdef weight_t left_arc_gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
    """G&N cost of LEFT (system_base.BufferLeftArc: b0 -> s0, pop; spec LA), in arc-eager and
    arc-hybrid alike: [g(s0) in {s1 or the root} ∪ β] + |D(s0) ∩ B| (+1 for a wrong label
    on the gold arc, added by the base); s1 is the root when s0 is the only stack word."""
    cdef int s0 = st.S(0)
    cdef int h = g.heads[s0]
    cdef weight_t cost = gold_kids_from(g, s0, st._b_i)
    if h == s0:
        cost += st.stack_depth() == 1
    elif h >= 0 and (h == st.S(1) or h > st.B(0)):
        cost += 1
    return cost


cdef inline bint on_stack(const StateC* st, int x) noexcept nogil:
    """x is on the stack (binary search: the stack is sorted by position)."""
    cdef int lo = 0, hi = st._stack.size() - 1, mid, v
    if x < 0 or x >= st._b_i:
        return 0
    while lo <= hi:
        mid = (lo + hi) // 2
        v = st._stack[mid]
        if v == x:
            return 1
        if v < x:
            lo = mid + 1
        else:
            hi = mid - 1
    return 0


cdef inline int kids_headless_on_stack(const StateC* st, const GoldC* g, int h) noexcept nogil:
    """|D(h) ∩ Σ_L| for h = b0: left gold dependents of h that are L stack words."""
    cdef int k, d, n = 0
    for k in range(g.kid_start[h], g.kid_start[h + 1]):
        d = g.kids[k]
        if d >= h:
            break
        if d < st._b_i and st._heads[d] == -1:
            n += 1          # headless words left of the buffer are exactly the L stack words
    return n


cdef inline weight_t push_b0_gn_cost(const StateC* st, const GoldC* g, bint right) noexcept nogil:
    """G&N cost of pushing b0, by SHIFT or (right) by RIGHT as s0's dependent: its left gold
    dependents still headless on the stack, |D(b0) ∩ Σ_L|, plus 1 if its own gold arc is
    lost. A root b0 needs the root directly below it (RIGHT never gives that; SHIFT does on
    an empty stack); a word's head h other than s0 is lost if on the stack, and under RIGHT
    (b0 gets s0 as its head) also if still in the buffer (h > b0)."""
    cdef int b0 = st.B(0)
    cdef int h = g.heads[b0]
    cdef weight_t cost = kids_headless_on_stack(st, g, b0)
    if h == b0:
        cost += 1 if (right or st.stack_depth() >= 1) else 0
    elif h >= 0 and h != st.S(0) and ((right and h > b0) or on_stack(st, h)):
        cost += 1
    return cost


cdef class ShiftCost:
    """SHIFT pushes b0 (spec SH: an L word, head to be found later); validity and action
    are system_base.Shift's.

    Cost (G&N): [g(b0) on the stack or the root, other than the word (or root) just
        below b0] + |D(b0) ∩ Σ_L|.
    """
    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        return push_b0_gn_cost(st, g, False)


cdef class RightArc:
    """Push b0 as a right dependent of s0 (spec RA, label R; the arc s0 -> b0 and its
    label are made when b0 is reduced).

    Validity: stack and buffer not empty; b0 does not start a preset sentence.
    Cost (G&N): [g(b0) != s0 and g(b0) in Σ ∪ {root} ∪ β] + |D(b0) ∩ Σ_L|.
    Action: _heads[b0] = s0, push b0.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return s0_b0_arc_is_valid(st)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st._heads[st.B(0)] = st.S(0)
        st.push()

    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        return push_b0_gn_cost(st, g, True)


cdef class Reduce:
    """Attach s0 to s1 and pop it (spec RE, corrected: an R top gets its pending arc, an L
    top is a correction of its SHIFT).

    Validity: at least two words on the stack (system_base.StackRightArc's).
    Cost (G&N): [s0 is L and g(s0) in B] + |D(s0) ∩ B| (+1 for a wrong label).
    Action: arc s1 -> s0, pop.
    """
    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        cdef int s0 = st.S(0)
        st._heads[s0] = -1          # the pending R mark is not an arc: nothing to delete
        st.add_arc(st.S(1), s0, label)
        st.pop()

    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int s0 = st.S(0)
        cdef int h = g.heads[s0]
        cdef weight_t cost = gold_kids_from(g, s0, st._b_i)
        if st._heads[s0] == -1 and h >= st._b_i:
            cost += 1
        return cost


cdef class RootCost:
    """ROOT makes the only stack word s0 (necessarily L) a sentence root (spec RE into token
    0) and pops it; validity and action are system_base.RootArc's.

    Cost (G&N): [g(s0) in B] + |D(s0) ∩ B|.
    """
    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int s0 = st.S(0)
        cdef int h = g.heads[s0]
        return (h >= st._b_i) + gold_kids_from(g, s0, st._b_i)


cdef class ArcEager(DynOracleSystem):
    """Corrected arc-eager: SHIFT, RIGHT, LEFT, REDUCE, ROOT (module docstring)."""
    name = "arc_eager"
    projective = True
    oracles = (ORACLE_DYNAMIC, ORACLE_GN, ORACLE_STATIC)
    dynamic_oracles = (ORACLE_DYNAMIC, ORACLE_GN)
    nonprojective_oracles = (ORACLE_DYNAMIC, ORACLE_GN)
    # Explore from the first update and always follow the model, as spaCy's parser does: at
    # convergence it scored above (1, 0.9) on dev in 6 of 6 pairs (Ancient_Greek-PTNK,
    # Hungarian-Szeged, Latin-Perseus x 2 seeds; +0.75 dev LAS on average), and trains
    # to its best dev score in fewer epochs (docs/systems/arc_eager.md, "The exploration
    # schedule at convergence")
    default_schedule = (0, 1.0)
    # Train towards closing a finished sentence rather than shifting past it, and never
    # towards a ROOT inside a gold sentence, where another move is optimal: at convergence
    # +0.65 dev LAS against both off (4 of 6 pairs, Hungarian-Szeged and Latin-Perseus x 3
    # seeds), +0.48 test LAS when the parser segments (5 of 6), sentence F1 85 against 70-73
    # (docs/systems/arc_eager.md, "Sentence targets at convergence")
    common_option_defaults = {"close_sentences": True, "keep_sentences": True}
    cdef bint use_gn

    def set_oracle(self, oracle):
        DynOracleSystem.set_oracle(self, oracle)
        self.use_gn = oracle == ORACLE_GN

    cdef int declare_moves(self) except -1:
        DynOracleSystem.declare_moves(self)
        # RIGHT adds its arc when REDUCE pops b0 again (module docstring)
        self.declare_move(RIGHT, RightArc.is_valid, RightArc.transition)
        self.declare_move(LEFT, BufferLeftArc.is_valid, BufferLeftArc.transition, AT_B0, AT_S0)
        self.declare_move(REDUCE, StackRightArc.is_valid, Reduce.transition, AT_S1, AT_S0)

    # ---- gold ----------------------------------------------------------------------
    def attach_oracle(self, DynGold gold):
        if not self.use_static and not self.use_gn:
            attach_np_table(gold)

    # ---- hooks -----------------------------------------------------------------------
    cdef void gn_costs(self, const StateC* st, const GoldC* g, const int* valid,
                       weight_t* cost) noexcept nogil:
        for m in range(N_MOVES):
            cost[m] = 0
        if valid[SHIFT]:
            cost[SHIFT] = ShiftCost.gn_cost(st, g)
        if valid[RIGHT]:
            cost[RIGHT] = RightArc.gn_cost(st, g)
        if valid[LEFT]:
            cost[LEFT] = left_arc_gn_cost(st, g)
        if valid[REDUCE]:
            cost[REDUCE] = Reduce.gn_cost(st, g)
        if valid[ROOT]:
            cost[ROOT] = RootCost.gn_cost(st, g)

    cdef void move_costs(self, const StateC* st, const GoldC* g, const int* valid,
                         weight_t* cost) noexcept nogil:
        if self.use_gn or g.extra == NULL:
            self.gn_costs(st, g, valid, cost)
            return
        np_move_costs(st, g, 1, valid, cost)

    cdef int static_move(self, const StateC* st, const GoldC* g) noexcept nogil:
        """The canonical sequence: the first zero-cost move (G&N costs) in the order LEFT,
        RIGHT, REDUCE, ROOT, SHIFT; off the gold path the cheapest in that order."""
        cdef int valid[N_MOVES]
        cdef weight_t cost[N_MOVES]
        cdef int order[5]
        cdef int i, m, best = -1
        order[0] = LEFT
        order[1] = RIGHT
        order[2] = REDUCE
        order[3] = ROOT
        order[4] = SHIFT
        self.move_validity(st, valid)
        self.gn_costs(st, g, valid, cost)
        for i in range(5):
            m = order[i]
            if valid[m] and (best == -1 or cost[m] < cost[best]):
                best = m
        return best
