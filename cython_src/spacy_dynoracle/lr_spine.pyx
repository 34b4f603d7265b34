# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""LR-spine (Sartorio, Satta & Nivre 2013) with spine depth capped at `max_k`, and its
tabular dynamic oracle (Goldberg, Sartorio & Satta 2014, corrected, made exact for the cap).
Spec: docs/specs/lr_spine_and_arc_standard.md §2.2-2.3, §2.7, §3.7-3.8, §6 P12, §7.

Stack elements are trees; their left and right spines are the attachment sites. On
spaCy's StateC the stack holds the element roots and the spines are read off the arcs
(docs/specs/lr_spine_and_arc_standard.md §2.3): a dependent attached by LEFT_k (RIGHT_k) becomes
the new leftmost (rightmost) child of its head, so the most recently added left (right) arc of a
node, `StateC.L(x, 1)` (`R(x, 1)`), is its outermost child, an O(1) lookup.

Moves (k = 1..max_k, spaCy's fixed class set; LEFT = LEFT_1, RIGHT = RIGHT_1):
  SHIFT     push b0
  LEFT_k    ls(s0)[k] -> s1, s1 leaves the stack     (spec la_k; s1 is never the root)
  RIGHT_k   rs(s1)[k] -> s0, pop                      (spec ra_k)
  ROOT      s0 becomes a sentence root (spec ra_1 with σ2 = the virtual root), pop

The virtual root is pre-shifted at the bottom of the stack
(docs/specs/lr_spine_and_arc_standard.md §7). Its tree holds the sentences finished so far, and
its right spine is <root, r, rc(r), ...> for the last popped root r, so with s0 the only real
stack word RIGHT_k (k >= 2) attaches s0 to rs(r)[k-1], continuing the previous sentence (not
across a preset sentence start). So ROOT does not end a sentence here, it starts one: with preset
boundaries ROOT needs s0's span to begin where a sentence may start, not b0
(docs/conventions.md). The shared rule (b0 may start a sentence) would forbid the static oracle's
early ROOT of a root that still has right dependents to come, which a model trained without
preset boundaries predicts in most sentences.

Oracles: "dynamic" (exact for the capped system on complete projective gold; the default
`projectivize = true` lifts non-projective gold, §6 P11; on raw non-projective gold the
costs are an approximation, docs/specs/lr_spine_and_arc_standard.md §3.9) and "static" (the first
zero-cost move in the canonical order LEFT_1..k, RIGHT_1..k, ROOT, SHIFT: attach as soon as
possible).
"""
from libcpp.vector cimport vector

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC

from .system_base cimport (
    DynOracleSystem, DynGold, GoldC, SHIFT, LEFT, RIGHT, ROOT, LEFT_2, RIGHT_2, LEFT_3,
    RIGHT_3, N_MOVES, AT_S0, AT_SYSTEM, LEFTWARD, RIGHTWARD, left_move, right_move,
    VIRTUAL_ROOT_NODE, word_node,
    pop_as_root, first_optimal_move,
)
from .lr_spine_oracle cimport (
    LRSGold, LRSElem, LRSWork, LRS_INF, LRS_MAXK, LRSpineGold,
    LRS_PATH_PLAIN, LRS_PATH_MIXED, LRS_PATH_DIRTY, LRS_PATH_NEXT, LRS_PATH_GUARD,
)
from .system_base import exact_costs_mode

_PATH_NAMES = ("plain", "mixed", "dirty", "next", "guard", "lower")   # LRS_PATH_* bits 0..5

cdef enum:
    MAX_K = 3          # moves with ids: LEFT/RIGHT, LEFT_2/RIGHT_2, LEFT_3/RIGHT_3


cdef inline int spine_node(const StateC* st, int x, int k, bint left) noexcept nogil:
    """The k-th node (1-based) of x's left/right spine, or -1."""
    while k > 1 and x >= 0:
        x = st.L(x, 1) if left else st.R(x, 1)
        k -= 1
    return x


cdef inline int leftmost(const StateC* st, int x) noexcept nogil:
    cdef int y = st.L(x, 1)
    while y >= 0:
        x = y
        y = st.L(x, 1)
    return x


cdef inline int last_root(const StateC* st) noexcept nogil:
    """The last sentence root popped before the stack's bottom element (the virtual root's
    rightmost child), or -1: the root above the word left of the bottom tree's span."""
    if st.stack_depth() == 0:
        return -1
    cdef int w = leftmost(st, st._stack[0]) - 1
    if w < 0:
        return -1
    while st._heads[w] != w and st._heads[w] >= 0:
        w = st._heads[w]
    return w if st._heads[w] == w else -1


cdef inline int right_head(const StateC* st, int k) noexcept nogil:
    """The head RIGHT_k attaches s0 to: rs(s1)[k], or with s0 alone on the stack the k-th
    node of the virtual root's right spine (k >= 2), i.e. rs(last root)[k-1]; -1 if none."""
    cdef int d = st.stack_depth()
    cdef int r
    if d >= 2:
        return spine_node(st, st.S(1), k, False)
    if d == 1 and k >= 2:
        r = last_root(st)
        if r < 0:
            return -1
        return spine_node(st, r, k - 1, False)
    return -1


cdef inline bint valid_left(const StateC* st, int k) noexcept nogil:
    return st.stack_depth() >= 2 and spine_node(st, st.S(0), k, True) >= 0


cdef inline bint valid_right(const StateC* st, int k) noexcept nogil:
    cdef int d = st.stack_depth()
    if d >= 2:
        return spine_node(st, st.S(1), k, False) >= 0
    if d == 1 and k >= 2 and right_head(st, k) >= 0:
        # the head is in a finished sentence: not across a preset sentence start
        return not st.is_sent_start(leftmost(st, st.S(0)))
    return False


cdef inline void do_left(StateC* st, int k, attr_t label) noexcept nogil:
    cdef int s0 = st.S(0)
    cdef int s1 = st.S(1)
    st.add_arc(spine_node(st, s0, k, True), s1, label)
    st.pop()
    st.pop()
    st._stack.push_back(s0)


cdef inline void do_right(StateC* st, int k, attr_t label) noexcept nogil:
    st.add_arc(right_head(st, k), st.S(0), label)
    st.pop()


cdef class LeftArc:
    """LEFT_k: s1 becomes the new leftmost dependent of ls(s0)[k] and leaves the stack.

    Validity: two stack words, s0's left spine has k nodes.
    Cost: δ(ls(s0)[k] -> s1) + F(la_k(c)) - F(c) (docs/specs/lr_spine_and_arc_standard.md §3.8).
    Action: arc ls(s0)[k] -> s1; s0's element now has left spine ls(s0)[1..k] . ls(s1).
    """
    @staticmethod
    cdef bint is_valid1(const StateC* st, attr_t label) noexcept nogil:
        return valid_left(st, 1)

    @staticmethod
    cdef bint is_valid2(const StateC* st, attr_t label) noexcept nogil:
        return valid_left(st, 2)

    @staticmethod
    cdef bint is_valid3(const StateC* st, attr_t label) noexcept nogil:
        return valid_left(st, 3)

    @staticmethod
    cdef int transition1(StateC* st, attr_t label) noexcept nogil:
        do_left(st, 1, label)

    @staticmethod
    cdef int transition2(StateC* st, attr_t label) noexcept nogil:
        do_left(st, 2, label)

    @staticmethod
    cdef int transition3(StateC* st, attr_t label) noexcept nogil:
        do_left(st, 3, label)


cdef class RightArc:
    """RIGHT_k: s0 becomes the new rightmost dependent of rs(s1)[k] and is popped.

    Validity: two stack words and s1's right spine has k nodes; or (k >= 2) s0 alone on
        the stack, the virtual root's right spine has k nodes and s0's span does not start
        a preset sentence.
    Cost: δ(rs(s1)[k] -> s0) + F(ra_k(c)) - F(c) (docs/specs/lr_spine_and_arc_standard.md §3.8).
    Action: arc rs(s1)[k] -> s0, pop; the right spine becomes rs(s1)[1..k] . rs(s0).
    """
    @staticmethod
    cdef bint is_valid1(const StateC* st, attr_t label) noexcept nogil:
        return valid_right(st, 1)

    @staticmethod
    cdef bint is_valid2(const StateC* st, attr_t label) noexcept nogil:
        return valid_right(st, 2)

    @staticmethod
    cdef bint is_valid3(const StateC* st, attr_t label) noexcept nogil:
        return valid_right(st, 3)

    @staticmethod
    cdef int transition1(StateC* st, attr_t label) noexcept nogil:
        do_right(st, 1, label)

    @staticmethod
    cdef int transition2(StateC* st, attr_t label) noexcept nogil:
        do_right(st, 2, label)

    @staticmethod
    cdef int transition3(StateC* st, attr_t label) noexcept nogil:
        do_right(st, 3, label)


cdef class RootArc:
    """Make s0 a sentence root (spec ra_1 with σ2 = the virtual root) and pop it.

    Validity: s0 is the only stack word, and s0's span starts where a sentence may start
        (no preset "cannot start" on its leftmost word), or there is no earlier root to
        continue. b0 need not start a sentence: RIGHT_k (k >= 2) can still attach later
        words to the new root's right spine, and must when they cannot start a sentence.
    Cost: δ(root -> s0) + F(ra_1(c)) - F(c).
    Action: s0 points to itself, pop; s0 is now the virtual root's rightmost child.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return st.stack_depth() == 1 and (
            not st.cannot_sent_start(leftmost(st, st.S(0))) or last_root(st) < 0)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        pop_as_root(st)


cdef class LRSpine(DynOracleSystem):
    """LR-spine with spine depth capped at max_k (1..3; max_k = 1 is arc-standard)."""
    name = "lr_spine"
    projective = True
    # budget: the most DP entries one state's oracle may insert before the guard bounds the
    # costs (a count, so training stays reproducible; lr_spine_oracle.pyx, "Guard"); 0 = none.
    # exact_costs: "beam" (default; null means it too) = exact cost values only where training
    # reads them (the beam update, beam_update_costs), elsewhere exact_costs=False's costs;
    # True, exact costs; False, the exact zero-cost set and lower bounds >= 1 for the other
    # moves (all greedy training reads), for less work. Both modes run the same zero-cost pass
    # first, so they give the same zero-cost sets and end the same states "guard"
    # (lr_spine_oracle.pyx, "Two phases"; docs/systems/lr_spine.md, "The default exact_costs =
    # "beam""); the Simulator gets the same costs as training in each mode.
    # greedy_bounds: True, the zero-cost pass values a successor without its DP where a greedy
    # computation's loss meets the lost words or, by Bellman, the state's value, else runs its
    # DP under the smaller of that loss and the bound (fewer DP entries; lr_spine_oracle.pyx,
    # "Settling successors without a DP"); False, every successor through its DP
    options = {"max_k": 2, "budget": 200000, "exact_costs": "beam", "greedy_bounds": True}
    # max_k declares LEFT_k / RIGHT_k up to k = max_k (declare_moves); the others tune the oracle
    structural_options = DynOracleSystem.structural_options | {"max_k"}
    cdef readonly int K
    cdef readonly LRSWork work
    cdef vector[LRSElem] _elems
    cdef int _last_path                 # LRS_PATH_* flags of the last move_costs
    cdef long _path_counts[7]           # states through the oracle, and per LRS_PATH_* bit

    def __init__(self, strings, labels_by_action=None, min_freq=None, *,
                 projectivize=None, oracle="dynamic", **options):
        K = options.get("max_k", self.options["max_k"])
        if not isinstance(K, int) or not 1 <= K <= MAX_K:
            raise ValueError(f"lr_spine: max_k must be an integer in 1..{MAX_K}, not {K!r}")
        self.K = K
        self.work = LRSWork(K)
        DynOracleSystem.__init__(self, strings, labels_by_action, min_freq,
                                 projectivize=projectivize, oracle=oracle, **options)
        if int(self.cfg["budget"]) < 0:
            raise ValueError(f"lr_spine: budget must be >= 0 (0 = no guard), got {self.cfg['budget']}")
        self.work.budget = int(self.cfg["budget"])
        exact = exact_costs_mode("lr_spine", self.cfg.get("exact_costs", self.options["exact_costs"]))
        greedy = self.cfg.get("greedy_bounds", self.options["greedy_bounds"])
        if greedy not in (True, False):
            raise ValueError(f"lr_spine: greedy_bounds must be true or false, got {greedy!r}")
        self.work.exact = exact is True
        self.work.greedy_bounds = greedy
        self.needs_oracle_data = True   # no fallback: costs come from attach_oracle's data

    cdef int declare_moves(self) except -1:
        """SHIFT, LEFT, RIGHT, ROOT, then LEFT_k, RIGHT_k for 2 <= k <= max_k."""
        DynOracleSystem.declare_moves(self)
        self.declare_move(ROOT, RootArc.is_valid, RootArc.transition, AT_S0, AT_S0)
        # the arcs of LEFT_k and RIGHT_k end on the spines (move_arcs); the stack's trees
        # cover consecutive spans in word order, so LEFT_k's head (in s0's tree) follows s1
        # and RIGHT_k's (in s1's tree, or an earlier sentence's) precedes s0
        self.declare_move(LEFT, LeftArc.is_valid1, LeftArc.transition1, AT_SYSTEM, AT_SYSTEM,
                          LEFTWARD)
        self.declare_move(RIGHT, RightArc.is_valid1, RightArc.transition1, AT_SYSTEM, AT_SYSTEM,
                          RIGHTWARD)
        if self.K >= 2:
            self.declare_move(LEFT_2, LeftArc.is_valid2, LeftArc.transition2, AT_SYSTEM,
                              AT_SYSTEM, LEFTWARD)
            self.declare_move(RIGHT_2, RightArc.is_valid2, RightArc.transition2, AT_SYSTEM,
                              AT_SYSTEM, RIGHTWARD)
        if self.K >= 3:
            self.declare_move(LEFT_3, LeftArc.is_valid3, LeftArc.transition3, AT_SYSTEM,
                              AT_SYSTEM, LEFTWARD)
            self.declare_move(RIGHT_3, RightArc.is_valid3, RightArc.transition3, AT_SYSTEM,
                              AT_SYSTEM, RIGHTWARD)

    cdef void move_arcs(self, const StateC* st, int* head, int* child) noexcept nogil:
        cdef int k
        for m in range(N_MOVES):
            head[m] = -1
            child[m] = -1
        for k in range(1, self.K + 1):
            if st.stack_depth() >= 2:
                head[left_move(k)] = spine_node(st, st.S(0), k, True)
                child[left_move(k)] = st.S(1)
            head[right_move(k)] = right_head(st, k)
            child[right_move(k)] = st.S(0)
        head[ROOT] = st.S(0)
        child[ROOT] = st.S(0)

    cdef void read_elems(self, const StateC* st) noexcept nogil:
        """The configuration in oracle space: the virtual root's element, then one element
        per stack word (bottom -> top), spines cut at depth K (deeper nodes are dead)."""
        cdef int d = st.stack_depth()
        cdef int K = self.K
        cdef int i, x, r
        cdef LRSElem* e
        self._elems.resize(d + 1)
        e = &self._elems[0]
        e.root = VIRTUAL_ROOT_NODE
        e.nl = 1
        e.ls[0] = VIRTUAL_ROOT_NODE
        e.nr = 1
        e.rs[0] = VIRTUAL_ROOT_NODE
        r = last_root(st)
        while r >= 0 and e.nr < K:
            e.rs[e.nr] = word_node(r)
            e.nr += 1
            r = st.R(r, 1)
        for i in range(d):
            e = &self._elems[i + 1]
            x = st._stack[i]
            e.root = word_node(x)
            e.nl = 0
            r = x
            while r >= 0 and e.nl < K:
                e.ls[e.nl] = word_node(r)
                e.nl += 1
                r = st.L(r, 1)
            e.nr = 0
            r = x
            while r >= 0 and e.nr < K:
                e.rs[e.nr] = word_node(r)
                e.nr += 1
                r = st.R(r, 1)

    cdef void move_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                         weight_t* cost) noexcept nogil:
        """All move costs from the capped tabular oracle
        (docs/specs/lr_spine_and_arc_standard.md §3.8): δ(arc) + F(successor) for every move of
        the spec's system here, minus the smallest (= F(c))."""
        cdef int want[2 * LRS_MAXK + 1]
        cdef int val[2 * LRS_MAXK + 1]
        cdef int K = self.K
        cdef int k, best, n_valid = 0
        cdef const LRSGold* g
        for m in range(N_MOVES):
            cost[m] = 0
            n_valid += valid[m] != 0
        self._last_path = 0
        if n_valid <= 1:
            return
        if self.lacks_oracle_data(gold):
            return
        g = <const LRSGold*>gold.extra
        self.read_elems(st)
        want[0] = st.buffer_length() > 0
        for k in range(1, 2 * K + 1):
            want[k] = 1
        self.work.values(g, self._elems.data(), self._elems.size(), word_node(st._b_i), want,
                         val)
        self._last_path = self.work.last_path
        self._path_counts[0] += 1
        for k in range(6):
            if self._last_path & (1 << k):
                self._path_counts[k + 1] += 1
        best = LRS_INF
        for k in range(2 * K + 1):
            if val[k] < best:
                best = val[k]
        if valid[SHIFT]:
            cost[SHIFT] = val[0] - best
        for k in range(1, K + 1):
            if valid[left_move(k)]:
                cost[left_move(k)] = val[k] - best
            if valid[right_move(k)]:
                cost[right_move(k)] = val[K + k] - best
        if valid[ROOT]:
            cost[ROOT] = val[K + 1] - best

    cdef int static_move(self, const StateC* st, const GoldC* g) noexcept nogil:
        """Attach as soon as possible (docs/specs/lr_spine_and_arc_standard.md §2.7), made safe
        for the cap: the first move of LEFT_1..K, RIGHT_1..K, ROOT, SHIFT whose exact cost is
        0 (first_optimal_move)."""
        cdef int valid[N_MOVES]
        cdef weight_t cost[N_MOVES]
        self.move_validity(st, valid)
        self.move_costs(st, g, valid, cost)
        return first_optimal_move(valid, cost, self.K)

    def oracle_counts(self):
        """States whose costs came from the oracle, and how many of them used each DP
        path (see last_oracle_path); gold without oracle data (missing_oracle); lower
        passes computed (the rest came from the cache); DP entries inserted (the oracle's
        work: `inserts` in all, `max_inserts` in one state); with exact_costs=False, the
        entries the bound dropped (`pruned`, counted in `inserts` too), the states whose bound
        came from the memo (`memo_hits`) and those valued again (`reruns`); with
        greedy_bounds, the successors valued without a DP (`settled`: greedy loss = lost
        words; `certified`: δ + greedy loss = the state's value from the memo), put above
        the bound by their lost words (`excluded`, exact_costs=False), whose DP ran under the
        greedy loss (`bounded`), and those DPs that kept nothing under it (`greedy_misses`,
        only where the DP is not exact); with both, the successors valued by Bellman's last
        move (`eliminated`: every other successor above the state's value from the memo);
        with exact costs, the DPs that valued the moves the zero-cost pass only bounded
        (`phase1_dps`) and the states where their budget ran out (`lower_states`, path
        "lower": the zero-cost set exact, other moves bounded below). oracle_stats adds the
        oracle's CPU (DynOracleSystem's clock)."""
        out = {"states": self._path_counts[0]}
        for i, name in enumerate(_PATH_NAMES):
            out[name] = self._path_counts[i + 1]
        out["lower_passes"] = self.work.rho_misses
        out["inserts"] = self.work.inserts
        out["max_inserts"] = self.work.max_inserts
        out["pruned"] = self.work.pruned
        out["memo_hits"] = self.work.memo_hits
        out["reruns"] = self.work.reruns
        for name in ("settled", "certified", "excluded", "bounded", "greedy_misses", "eliminated",
                     "phase1_dps", "lower_states"):
            out[name] = getattr(self.work, name)
        out["missing_oracle"] = self.missing_oracle
        return out

    def cost_values_oracle(self):
        """The LRSWork, whose `exact` flag the beam update sets (system_base's
        beam_update_costs: exact values there when exact_costs is "beam", the default)."""
        return self.work

    cdef bint last_costs_bounded(self) noexcept:
        """The count budget ran out in the last move_costs: bounded costs (LRSWork.values,
        "Guard"), not exact ones."""
        return (self._last_path & LRS_PATH_GUARD) != 0

    @property
    def last_oracle_path(self):
        """Which DP paths the last move_costs used over its successors, joined by "+"
        (lr_spine_oracle.pyx, LRSWork.F): "plain" (the stack holds one gold block),
        "mixed" (top DP + lower pass), "dirty" (mixed, split not clean: whole-stack DP),
        "next" (s0's block ends before b's: whole-stack DP), "guard" (the count budget ran
        out: bounded costs, LRSWork.values), "lower" (exact costs: the zero-cost set exact,
        the budget of the other moves' exact values ran out); None without an oracle
        call."""
        names = [name for i, name in enumerate(_PATH_NAMES) if self._last_path & (1 << i)]
        return "+".join(names) if names else None

    # ---- gold ------------------------------------------------------------------------
    def attach_oracle(self, DynGold gold):
        """The base's hook (init_gold and the Simulator): the oracle's gold, once per Doc."""
        return attach_oracle(gold)


def attach_oracle(DynGold gold):
    """Build the oracle's gold once per document and hang it on the DynGold."""
    cdef LRSpineGold og = LRSpineGold(gold.heads)
    return gold.attach(og, <void*>&og.c)
