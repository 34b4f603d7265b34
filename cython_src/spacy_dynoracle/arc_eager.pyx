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
from cymem.cymem cimport Pool

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC
from spacy.pipeline._parser_internals.stateclass cimport StateClass

from .system_base cimport (
    DynOracleSystem, DynGold, GoldC, Transition, SHIFT, LEFT, RIGHT, ROOT, REDUCE, N_MOVES,
    INVALID_COST, arc_label_cost, gold_kids_from,
    shift_is_valid, root_is_valid, pop_as_root,
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
    spec_gold = [None] * (n + 1)       # spec numbering: word i -> i + 1, root -> 0
    for i in range(n):
        h = gold.c.heads[i]
        spec_gold[i + 1] = -1 if h < 0 else (0 if h == i else h + 1)
    table = NPOracleTable(spec_gold)
    gold.extra_obj = table
    gold.c.extra = <void*>table.c


cdef inline void np_costs(const StateC* st, const GoldC* g, bint with_ra,
                          int* rho) noexcept nogil:
    """rho[NP_*] of the state (docs/specs/arc_eager_nonproj_oracle.md §3) from the DP module: the
    stack in spec numbering (word i -> i + 1, the virtual root 0 at the bottom), R = pushed by
    RIGHT."""
    cdef NPOracle* o = <NPOracle*>g.extra
    cdef int k = st.stack_depth() + 1
    cdef int i, x
    o.stack[0] = 0
    o.is_R[0] = 1
    for i in range(1, k):
        x = st._stack[i - 1]
        o.stack[i] = x + 1
        o.is_R[i] = 1 if (with_ra and st._heads[x] != -1) else 0
    np_scores(o, o.stack, o.is_R, k, st._b_i + 1, rho)


# ---- helpers for the Goldberg-Nivre costs --------------------------------------------
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


cdef class Shift:
    """Push b0 (spec SH: an L word, head to be found later).

    Validity: the buffer is not empty, and b0 does not start a preset sentence while the
        stack holds words.
    Cost (G&N): [g(b0) on the stack or the root, other than the word (or root) just
        below b0] + |D(b0) ∩ Σ_L|.
    Action: push b0.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return shift_is_valid(st)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.push()

    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int b0 = st.B(0)
        cdef int h = g.heads[b0]
        cdef weight_t cost = kids_headless_on_stack(st, g, b0)
        if h == b0:
            cost += st.stack_depth() >= 1
        elif h >= 0 and h != st.S(0) and on_stack(st, h):
            cost += 1
        return cost

    @staticmethod
    cdef weight_t cost(const StateC* st, const void* gold, attr_t label) noexcept nogil:
        return Shift.gn_cost(st, <const GoldC*>gold)


cdef class RightArc:
    """Push b0 as a right dependent of s0 (spec RA, label R; the arc s0 -> b0 and its
    label are made when b0 is reduced).

    Validity: stack and buffer not empty; b0 does not start a preset sentence.
    Cost (G&N): [g(b0) != s0 and g(b0) in Σ ∪ {root} ∪ β] + |D(b0) ∩ Σ_L|.
    Action: _heads[b0] = s0, push b0.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return (st.stack_depth() >= 1 and st.buffer_length() >= 1
                and not st.is_sent_start(st.B(0)))

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st._heads[st.B(0)] = st.S(0)
        st.push()

    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int b0 = st.B(0)
        cdef int h = g.heads[b0]
        cdef weight_t cost = kids_headless_on_stack(st, g, b0)
        if h == b0:
            cost += 1                       # the root arc needed b0 directly on the root
        elif h >= 0 and h != st.S(0) and (h > b0 or on_stack(st, h)):
            cost += 1
        return cost

    @staticmethod
    cdef weight_t cost(const StateC* st, const void* gold, attr_t label) noexcept nogil:
        return RightArc.gn_cost(st, <const GoldC*>gold)


cdef class LeftArc:
    """Attach the L top s0 to b0 and pop it (spec LA).

    Validity: stack and buffer not empty, s0 has no head (L), b0 does not start a preset
        sentence.
    Cost (G&N): [g(s0) in {s1 or the root} ∪ β] + |D(s0) ∩ B| (+1 for a wrong label on
        the gold arc).
    Action: arc b0 -> s0, pop.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return (st.stack_depth() >= 1 and st.buffer_length() >= 1
                and st._heads[st.S(0)] == -1 and not st.is_sent_start(st.B(0)))

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.add_arc(st.B(0), st.S(0), label)
        st.pop()

    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int s0 = st.S(0)
        cdef int h = g.heads[s0]
        cdef weight_t cost = gold_kids_from(g, s0, st._b_i)
        if h == s0:
            cost += st.stack_depth() == 1
        elif h >= 0 and (h == st.S(1) or h > st.B(0)):
            cost += 1
        return cost

    @staticmethod
    cdef weight_t cost(const StateC* st, const void* gold, attr_t label) noexcept nogil:
        g = <const GoldC*>gold
        return LeftArc.gn_cost(st, g) + arc_label_cost(g, st.B(0), st.S(0), label)


cdef class Reduce:
    """Attach s0 to s1 and pop it (spec RE, corrected: an R top gets its pending arc, an L
    top is a correction of its SHIFT).

    Validity: at least two words on the stack.
    Cost (G&N): [s0 is L and g(s0) in B] + |D(s0) ∩ B| (+1 for a wrong label).
    Action: arc s1 -> s0, pop.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return st.stack_depth() >= 2

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

    @staticmethod
    cdef weight_t cost(const StateC* st, const void* gold, attr_t label) noexcept nogil:
        g = <const GoldC*>gold
        return Reduce.gn_cost(st, g) + arc_label_cost(g, st.S(1), st.S(0), label)


cdef class RootArc:
    """Make the only stack word s0 a sentence root (spec RE into token 0) and pop it.

    Validity: s0 is the only stack word (necessarily L), and b0 (if any) may start a
        sentence.
    Cost (G&N): [g(s0) in B] + |D(s0) ∩ B|.
    Action: s0 points to itself, pop; b0 starts the next sentence.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return root_is_valid(st)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        pop_as_root(st)

    @staticmethod
    cdef weight_t gn_cost(const StateC* st, const GoldC* g) noexcept nogil:
        cdef int s0 = st.S(0)
        cdef int h = g.heads[s0]
        return (h >= st._b_i) + gold_kids_from(g, s0, st._b_i)

    @staticmethod
    cdef weight_t cost(const StateC* st, const void* gold, attr_t label) noexcept nogil:
        return RootArc.gn_cost(st, <const GoldC*>gold)


cdef class ArcEager(DynOracleSystem):
    """Corrected arc-eager: SHIFT, RIGHT, LEFT, REDUCE, ROOT (module docstring)."""
    name = "arc_eager"
    move_types = (SHIFT, LEFT, RIGHT, ROOT, REDUCE)
    arc_move_types = (LEFT, REDUCE)
    projective = True
    oracles = (ORACLE_DYNAMIC, ORACLE_GN, ORACLE_STATIC)
    dynamic_oracles = (ORACLE_DYNAMIC, ORACLE_GN)
    nonprojective_oracles = (ORACLE_DYNAMIC, ORACLE_GN)
    cdef bint use_gn

    def set_oracle(self, oracle):
        DynOracleSystem.set_oracle(self, oracle)
        self.use_gn = oracle == ORACLE_GN

    cdef Transition init_transition(self, int clas, int move, attr_t label) except *:
        cdef Transition t
        t.clas = clas
        t.move = move
        t.label = label
        t.score = 0
        if move == SHIFT:
            t.is_valid = Shift.is_valid
            t.do = Shift.transition
            t.get_cost = Shift.cost
        elif move == RIGHT:
            t.is_valid = RightArc.is_valid
            t.do = RightArc.transition
            t.get_cost = RightArc.cost
        elif move == LEFT:
            t.is_valid = LeftArc.is_valid
            t.do = LeftArc.transition
            t.get_cost = LeftArc.cost
        elif move == REDUCE:
            t.is_valid = Reduce.is_valid
            t.do = Reduce.transition
            t.get_cost = Reduce.cost
        elif move == ROOT:
            t.is_valid = RootArc.is_valid
            t.do = RootArc.transition
            t.get_cost = RootArc.cost
        else:
            raise ValueError(f"arc_eager has no move {move}")
        return t

    # ---- gold ----------------------------------------------------------------------
    def attach_oracle(self, DynGold gold):
        if not self.use_static and not self.use_gn:
            attach_np_table(gold)

    # ---- hooks -----------------------------------------------------------------------
    cdef void move_validity(self, const StateC* st, int* valid) noexcept nogil:
        for m in range(N_MOVES):
            valid[m] = 0
        valid[SHIFT] = Shift.is_valid(st, 0)
        valid[RIGHT] = RightArc.is_valid(st, 0)
        valid[LEFT] = LeftArc.is_valid(st, 0)
        valid[REDUCE] = Reduce.is_valid(st, 0)
        valid[ROOT] = RootArc.is_valid(st, 0)

    cdef void move_arcs(self, const StateC* st, int* head, int* child) noexcept nogil:
        for m in range(N_MOVES):
            head[m] = -1
            child[m] = -1
        head[LEFT] = st.B(0)
        child[LEFT] = st.S(0)
        head[REDUCE] = st.S(1)
        child[REDUCE] = st.S(0)
        head[ROOT] = st.S(0)
        child[ROOT] = st.S(0)

    cdef void gn_costs(self, const StateC* st, const GoldC* g, const int* valid,
                       weight_t* cost) noexcept nogil:
        for m in range(N_MOVES):
            cost[m] = 0
        if valid[SHIFT]:
            cost[SHIFT] = Shift.gn_cost(st, g)
        if valid[RIGHT]:
            cost[RIGHT] = RightArc.gn_cost(st, g)
        if valid[LEFT]:
            cost[LEFT] = LeftArc.gn_cost(st, g)
        if valid[REDUCE]:
            cost[REDUCE] = Reduce.gn_cost(st, g)
        if valid[ROOT]:
            cost[ROOT] = RootArc.gn_cost(st, g)

    cdef void move_costs(self, const StateC* st, const GoldC* g, const int* valid,
                         weight_t* cost) noexcept nogil:
        cdef int rho[4]
        cdef int best = NP_NEG
        cdef int m
        if self.use_gn or g.extra == NULL:
            self.gn_costs(st, g, valid, cost)
            return
        np_costs(st, g, 1, rho)
        # docs/specs/arc_eager_nonproj_oracle.md §3: cost = max over valid moves of rho - rho[t];
        # REDUCE and ROOT are RE
        for m in range(N_MOVES):
            cost[m] = 0
        if valid[SHIFT] and rho[NP_SH] > best:
            best = rho[NP_SH]
        if valid[RIGHT] and rho[NP_RA] > best:
            best = rho[NP_RA]
        if valid[LEFT] and rho[NP_LA] > best:
            best = rho[NP_LA]
        if (valid[REDUCE] or valid[ROOT]) and rho[NP_RE] > best:
            best = rho[NP_RE]
        if valid[SHIFT]:
            cost[SHIFT] = best - rho[NP_SH]
        if valid[RIGHT]:
            cost[RIGHT] = best - rho[NP_RA]
        if valid[LEFT]:
            cost[LEFT] = best - rho[NP_LA]
        if valid[REDUCE]:
            cost[REDUCE] = best - rho[NP_RE]
        if valid[ROOT]:
            cost[ROOT] = best - rho[NP_RE]

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


# ---- measurement (benchmarks/arc_eager_oracle.py) -----------------------------------------
from libc.stdint cimport uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline long now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000000000 + ts.tv_nsec


def oracle_walk(DynOracleSystem exact, DynOracleSystem other, StateClass state,
                DynGold gold, double p_random, uint64_t seed):
    """Drive `state` to the end: at each state compute the costs of `exact` (timed, ns)
    and of `other` on the same state; follow a zero-cost move of `exact` (uniformly among
    them), or with probability p_random any valid move. Returns (times_ns, n_states,
    states where the costs differ, states where the zero-cost sets differ)."""
    cdef int valid[N_MOVES]
    cdef weight_t c1[N_MOVES]
    cdef weight_t c2[N_MOVES]
    cdef int cand[N_MOVES]
    cdef int m, i, n_cand, choice, clas, zero_diff, cost_diff, n_states = 0
    cdef long t0, t1
    cdef uint64_t rng = seed * 6364136223846793005ULL + 1442695040888963407ULL
    cdef int n_zero_diff = 0, n_cost_diff = 0
    times = []
    while not state.c.is_final():
        exact.move_validity(state.c, valid)
        t0 = now_ns()
        exact.move_costs(state.c, &gold.c, valid, c1)
        t1 = now_ns()
        times.append(t1 - t0)
        other.move_costs(state.c, &gold.c, valid, c2)
        n_states += 1
        zero_diff = 0
        cost_diff = 0
        for m in range(N_MOVES):
            if valid[m]:
                cost_diff |= c1[m] != c2[m]
                zero_diff |= (c1[m] == 0) != (c2[m] == 0)
        n_cost_diff += cost_diff
        n_zero_diff += zero_diff
        rng ^= rng << 13
        rng ^= rng >> 7
        rng ^= rng << 17
        n_cand = 0
        if (rng % 1000000) / 1000000.0 >= p_random:
            for m in range(N_MOVES):
                if valid[m] and c1[m] == 0:
                    cand[n_cand] = m
                    n_cand += 1
        if n_cand == 0:
            for m in range(N_MOVES):
                if valid[m]:
                    cand[n_cand] = m
                    n_cand += 1
        rng ^= rng << 13
        rng ^= rng >> 7
        rng ^= rng << 17
        choice = cand[rng % n_cand]
        clas = -1
        for i in range(exact.n_moves):
            if exact.c[i].move == choice:
                clas = i
                break
        exact.c[clas].do(state.c, exact.c[clas].label)
    return times, n_states, n_cost_diff, n_zero_diff
