# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Attardi's non-projective system of degree D (2 or 3), with the exact polynomial-time dynamic
oracle of Gómez-Rodríguez, Sartorio & Satta (EMNLP 2014). Spec: docs/specs/attardi.md;
the oracle itself lives in attardi_oracle.pyx (plain arrays, no spaCy).

Moves (docs/specs/attardi.md §1.2, k = 1..D): SHIFT; LEFT_k (LEFT = LEFT_1) adds s0 -> s_k and
removes s_k from the stack; RIGHT_k (RIGHT = RIGHT_1) adds s_k -> s0 and pops s0; ROOT makes s0 a
sentence root.

The virtual root (docs/systems/attardi.md, docs/specs/attardi.md §2.10): node 0 sits implicitly
below the bottom of spaCy's stack, already shifted in the initial state. ROOT is the spec's ra_1
with s1 = node 0 (valid when s0 is the only stack word). Node 0 is never the head of ra_k for k >= 2
and never a dependent, so every root is popped from a one-word stack and each root's words form one
contiguous sentence (the package convention). The oracle models exactly this system.

Token i is node i+1 for the oracle; the buffer is always the suffix _b_i.. (no _rebuffer).
"""
from libcpp.vector cimport vector

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC
from spacy.pipeline._parser_internals.stateclass cimport StateClass

from .system_base cimport (
    DynOracleSystem, DynGold, GoldC, SHIFT, LEFT, RIGHT, ROOT, LEFT_2, RIGHT_2,
    LEFT_3, RIGHT_3, N_MOVES, AT_S0, AT_S1, AT_S2, AT_S3, DIRECTION_FROM_ENDS,
    NONPROJECTIVE_MOVE, left_move, right_move,
    VIRTUAL_ROOT_NODE, word_node, shift_else_reduce, first_optimal_move,
)
from .attardi_oracle cimport (
    AttardiOracle, OracleGold, AttGold, ORC_MAX_T, PATH_GUARD,
)
from .system_base import CostValues, exact_costs_mode

UNCOVERED_POLICIES = ("local", "exact", "skip")


cdef inline bint gold_is_covered(const GoldC* g) noexcept nogil:
    """The gold tree is one the system derives (AttGold.covered): not for gold without oracle
    data or with unknown heads. static_move and the cut path treat other gold apart."""
    return g.extra != NULL and (<const AttGold*>g.extra).covered


cdef inline bint complete(const StateC* st, const GoldC* g, int x) noexcept nogil:
    """Every gold dependent of x is attached already (docs/specs/attardi.md §1.3)."""
    for j in range(g.kid_start[x], g.kid_start[x + 1]):
        if st._heads[g.kids[j]] == -1:
            return 0
    return 1


cdef class LeftK:
    """LEFT_k: attach s_k to s0 and remove s_k from the stack (la_k of docs/specs/attardi.md §1.2).

    Validity: at least k+1 words on the stack (node 0 is never a dependent, [fix] §1.2).
    Cost: oracle.
    Action: arc s0 -> s_k, erase s_k; the words above it keep their order.
    """
    @staticmethod
    cdef inline bint valid_k(const StateC* st, int k) noexcept nogil:
        return st.stack_depth() >= k + 1

    @staticmethod
    cdef inline int do_k(StateC* st, int k, attr_t label) noexcept nogil:
        st.add_arc(st.S(0), st.S(k), label)
        st._stack.erase(st._stack.begin() + (st._stack.size() - 1 - k))

    @staticmethod
    cdef bint is_valid1(const StateC* st, attr_t label) noexcept nogil:
        return LeftK.valid_k(st, 1)

    @staticmethod
    cdef bint is_valid2(const StateC* st, attr_t label) noexcept nogil:
        return LeftK.valid_k(st, 2)

    @staticmethod
    cdef bint is_valid3(const StateC* st, attr_t label) noexcept nogil:
        return LeftK.valid_k(st, 3)

    @staticmethod
    cdef int transition1(StateC* st, attr_t label) noexcept nogil:
        return LeftK.do_k(st, 1, label)

    @staticmethod
    cdef int transition2(StateC* st, attr_t label) noexcept nogil:
        return LeftK.do_k(st, 2, label)

    @staticmethod
    cdef int transition3(StateC* st, attr_t label) noexcept nogil:
        return LeftK.do_k(st, 3, label)


cdef class RightK:
    """RIGHT_k: attach s0 to s_k and pop it (ra_k of docs/specs/attardi.md §1.2).

    Validity: at least k+1 words on the stack (ra_1 onto node 0 is ROOT; ra_k, k >= 2, never
        takes node 0 as head: package convention).
    Cost: oracle.
    Action: arc s_k -> s0, pop.
    """
    @staticmethod
    cdef inline bint valid_k(const StateC* st, int k) noexcept nogil:
        return st.stack_depth() >= k + 1

    @staticmethod
    cdef inline int do_k(StateC* st, int k, attr_t label) noexcept nogil:
        st.add_arc(st.S(k), st.S(0), label)
        st.pop()

    @staticmethod
    cdef bint is_valid1(const StateC* st, attr_t label) noexcept nogil:
        return RightK.valid_k(st, 1)

    @staticmethod
    cdef bint is_valid2(const StateC* st, attr_t label) noexcept nogil:
        return RightK.valid_k(st, 2)

    @staticmethod
    cdef bint is_valid3(const StateC* st, attr_t label) noexcept nogil:
        return RightK.valid_k(st, 3)

    @staticmethod
    cdef int transition1(StateC* st, attr_t label) noexcept nogil:
        return RightK.do_k(st, 1, label)

    @staticmethod
    cdef int transition2(StateC* st, attr_t label) noexcept nogil:
        return RightK.do_k(st, 2, label)

    @staticmethod
    cdef int transition3(StateC* st, attr_t label) noexcept nogil:
        return RightK.do_k(st, 3, label)


cdef class Attardi(DynOracleSystem):
    """Attardi's system of degree 2 (default) or 3: SHIFT, LEFT_k, RIGHT_k, ROOT. Derives
    non-projective trees directly (no lifting)."""
    name = "attardi"
    projective = False
    bruteforce_arc_monotone = True    # heads never change; moves depend on stack/buffer only
    # Exploring at p = 0.9 from epoch 1 collapsed the dynamic oracle on Hungarian-Szeged
    # (33.5 ± 1.4 test LAS over 3 seeds vs 51.8 static); after 2 oracle epochs at p = 0.5:
    # 50.4 ± 0.6, and +1.9 test LAS on Latin-Perseus (docs/systems/attardi.md).
    default_schedule = (2, 0.5)
    # the static oracle's move as the training target wherever it is optimal: at convergence
    # attardi trained on every zero-cost move learns spurious crossing arcs; narrowed, it gains
    # dev LAS on Hungarian and Latin (docs/systems/attardi.md, "The static target by default")
    common_option_defaults = {"target": "static"}
    # exact_costs: "beam" (default; null means it too) = exact cost values only where
    # training reads them (the beam update, beam_update_costs), elsewhere exact_costs=False's
    # costs, which give the same zero-cost sets and so the same greedy training for less
    # oracle work (issue 23, docs/systems/attardi.md "Cost values"); true / false = always /
    # never exact values
    options = {"degree": 2, "uncovered": "local", "exact_costs": "beam", "prune": True,
               "budget": 200000, "max_rho": 20, "max_excess": 2, "max_ms": 0.0, "bounds": True}
    # degree declares LEFT_k / RIGHT_k up to k = degree (declare_moves); the others tune the oracle
    structural_options = DynOracleSystem.structural_options | {"degree"}

    cdef public AttardiOracle oracle_
    cdef int D
    cdef vector[int] _nodes
    cdef public object doc_counts

    def __init__(self, strings, labels_by_action=None, min_freq=None, *, projectivize=None,
                 oracle="dynamic", **options):
        # the defaults are the ones declared in Attardi.options, read from there only
        opt = {**self.options, **options}
        D = int(opt["degree"])
        if D not in (2, 3):
            raise ValueError(f"attardi: degree must be 2 or 3, got {D}")
        unc = opt["uncovered"]
        if unc not in UNCOVERED_POLICIES:
            raise ValueError(f"attardi: uncovered must be one of {UNCOVERED_POLICIES}, got {unc!r}")
        self.D = D
        # null is the default "beam" (also models saved when null meant true, which trains
        # alike: "Cost values" in docs/systems/attardi.md)
        exact = exact_costs_mode("attardi", opt["exact_costs"])
        # exact_costs: the same costs for greedy training (set_costs, step_batch) and for the
        # Simulator, so the brute force checks the very values training uses. True: exact
        # costs. False and "beam" (default): the exact zero-cost set, lower bounds >= 1 for
        # the other moves, which is all greedy training reads; "beam" switches to exact
        # values for the beam update (beam_update_costs), which reads them
        # (docs/systems/attardi.md).
        self.oracle_ = AttardiOracle(D, root_ra1=True,
                                     prune=bool(opt["prune"]),
                                     exact=exact is True,
                                     uncovered_mode=1 if unc == "local" else 0,
                                     budget=int(opt["budget"]),
                                     max_m=int(opt["max_rho"]),
                                     # a wall-clock cut makes costs, and so the trained
                                     # model, depend on machine load: off by default, the
                                     # count budgets above bound the work (issue 20)
                                     max_ms=float(opt["max_ms"]),
                                     use_bounds=bool(opt["bounds"]),
                                     max_excess=int(opt["max_excess"]))
        self.doc_counts = {"covered": 0, "uncovered": 0, "skipped": 0, "partial": 0}
        if projectivize:
            raise ValueError("attardi derives non-projective trees: projectivize must be false")
        DynOracleSystem.__init__(self, strings, labels_by_action, min_freq,
                                 projectivize=False, oracle=oracle, **options)

    @property
    def degree(self):
        return self.D

    def get_oracle_sequence_from_state(self, StateClass state, gold, _debug=None):
        """spaCy's zero-cost path (it cuts long documents into segments with it). Only the
        zero-cost set matters here, which exact_costs=False gives exactly for less. On gold
        the system cannot build it is the static path (static_oracle_sequence) whatever
        cut_path says: there the guard's bounds let SHIFT cost 0 where it is not optimal,
        and spaCy's first-zero-cost path (SHIFT is class 0) drifts off every optimal path,
        so later segments start in states that already lost arcs (Latin-Perseus train,
        degree 2: 2,427 wrong heads at the end against 225; docs/systems/attardi.md, "Cut
        path on gold it cannot build", issue 19). Covered gold keeps the configured path."""
        cdef DynGold g = gold
        with CostValues(self.oracle_, False):
            if not self.use_static and not gold_is_covered(&g.c):
                return self.static_oracle_sequence(state, gold)
            return DynOracleSystem.get_oracle_sequence_from_state(self, state, gold, _debug)

    def cost_values_oracle(self):
        """The AttardiOracle, whose `exact` flag the beam update sets (system_base's
        beam_update_costs: exact values there when exact_costs is "beam", the default)."""
        return self.oracle_

    def set_uncovered(self, policy):
        """How gold trees the system cannot derive are trained (docs/systems/attardi.md):
        "local" (default, exact), "exact" (docs/specs/attardi.md §2.9 option 2, exact, slower) or
        "skip" (docs/specs/attardi.md §2.9 option 1: has_gold() is False for them, counted)."""
        if policy not in UNCOVERED_POLICIES:
            raise ValueError(f"attardi: uncovered must be one of {UNCOVERED_POLICIES}, got {policy!r}")
        self.cfg["uncovered"] = policy
        self.oracle_.uncovered_mode = 1 if policy == "local" else 0

    cdef bint last_costs_bounded(self) noexcept:
        """The last costs came from the guard: bounds only (docs/systems/attardi.md,
        "Bounded time: the guard")."""
        return self.oracle_ is not None and self.oracle_.last_path == PATH_GUARD

    def oracle_counts(self):
        """How often each oracle path ran (states) and how gold documents were treated."""
        out = dict(self.oracle_.stats())
        out.update({f"docs_{k}": v for k, v in self.doc_counts.items()})
        return out

    @property
    def last_oracle_path(self):
        """The oracle path that produced the last costs (tests report it)."""
        return self.oracle_.last_path_name

    cdef int declare_moves(self) except -1:
        """SHIFT, ROOT (the spec's ra_1 onto node 0), LEFT_k and RIGHT_k for k <= degree.
        The moves of degree k >= 2 are non-projective: they attach over s_1 .. s_{k-1}, the
        only way the system builds crossing arcs (docs/specs/attardi.md §1.2; degree 1 is
        arc-standard), so they are the moves the parser's nonprojective_penalty lowers."""
        DynOracleSystem.declare_moves(self)
        self.declare_move(LEFT, LeftK.is_valid1, LeftK.transition1, AT_S0, AT_S1)
        self.declare_move(RIGHT, RightK.is_valid1, RightK.transition1, AT_S1, AT_S0)
        self.declare_move(LEFT_2, LeftK.is_valid2, LeftK.transition2, AT_S0, AT_S2,
                          DIRECTION_FROM_ENDS, NONPROJECTIVE_MOVE)
        self.declare_move(RIGHT_2, RightK.is_valid2, RightK.transition2, AT_S2, AT_S0,
                          DIRECTION_FROM_ENDS, NONPROJECTIVE_MOVE)
        if self.D >= 3:
            self.declare_move(LEFT_3, LeftK.is_valid3, LeftK.transition3, AT_S0, AT_S3,
                              DIRECTION_FROM_ENDS, NONPROJECTIVE_MOVE)
            self.declare_move(RIGHT_3, RightK.is_valid3, RightK.transition3, AT_S3, AT_S0,
                              DIRECTION_FROM_ENDS, NONPROJECTIVE_MOVE)

    cdef void move_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                         weight_t* cost) noexcept nogil:
        """All move costs at once from the oracle (docs/specs/attardi.md §2.6/§2.7) on the
        node-level configuration: stack [0, S(d-1)+1, ..., S(0)+1], buffer from _b_i + 1."""
        cdef int want[ORC_MAX_T]
        cdef int out[ORC_MAX_T]
        cdef int d = st.stack_depth()
        cdef int k, i
        cdef const AttGold* g
        for m in range(N_MOVES):
            cost[m] = 0
        if gold.extra != NULL:
            g = <const AttGold*>gold.extra
        else:
            self.oracle_.scratch_gold.build(gold.heads, gold.length, self.D, True)
            g = &self.oracle_.scratch_gold.c
        self._nodes.resize(d + 1)
        self._nodes[0] = VIRTUAL_ROOT_NODE
        for i in range(d):
            self._nodes[i + 1] = word_node(st.S(d - 1 - i))
        want[0] = valid[SHIFT]
        for k in range(1, self.D + 1):
            want[2 * k - 1] = valid[left_move(k)]
            want[2 * k] = valid[right_move(k)] or (k == 1 and valid[ROOT])
        self.oracle_.costs(g, self._nodes.data(), d + 1, word_node(st._b_i), want, out)
        cost[SHIFT] = out[0]
        for k in range(1, self.D + 1):
            cost[left_move(k)] = out[2 * k - 1]
            cost[right_move(k)] = out[2 * k]
        cost[ROOT] = out[2]

    cdef int canonical_move(self, const StateC* st, const GoldC* g) noexcept nogil:
        """Cohen et al.'s canonical static policy (docs/specs/attardi.md §1.3): attach as soon as
        the dependent is complete, LEFT_k before RIGHT_k, smaller k first, else SHIFT. It derives
        every covered gold tree and only those."""
        cdef int valid[N_MOVES]
        cdef int d = st.stack_depth()
        cdef int s0 = st.S(0)
        cdef int k, x
        self.move_validity(st, valid)
        if d >= 1:
            for k in range(1, self.D + 1):
                if d >= k + 1:
                    x = st.S(k)
                    if g.heads[x] == s0 and complete(st, g, x):
                        return left_move(k)
            if complete(st, g, s0):
                if g.heads[s0] == s0 and valid[ROOT]:
                    return ROOT
                for k in range(1, self.D + 1):
                    if d >= k + 1 and g.heads[s0] == st.S(k):
                        return right_move(k)
        return shift_else_reduce(valid)

    cdef int static_move(self, const StateC* st, const GoldC* g) noexcept nogil:
        """The static oracle's move: the canonical policy's (canonical_move) on gold it derives
        (AttGold.covered); on any other gold (not covered, or unknown heads) the canonical move
        where the exact oracle finds it optimal, else the first optimal move in the order
        LEFT_1..D, RIGHT_1..D, ROOT, SHIFT. On such gold the canonical policy gets stuck (a
        word whose gold arc it cannot build never completes, so its head never attaches), and
        it then SHIFTs past the sentence end and closes it with RIGHT: on Latin-Perseus train
        its path merges a third of the sentences of those Docs, every state after that a
        wrong target (docs/systems/attardi.md, "Static oracle", issue 19)."""
        cdef int valid[N_MOVES]
        cdef weight_t cost[N_MOVES]
        cdef int m = self.canonical_move(st, g)
        cdef int i
        if gold_is_covered(g):
            return m
        self.move_validity(st, valid)
        self.move_costs(st, g, valid, cost)
        if m >= 0 and valid[m]:
            for i in range(N_MOVES):
                if valid[i] and cost[i] < cost[m]:
                    break
            else:
                return m
        return first_optimal_move(valid, cost, self.D)

    def _sim_canonical_move(self, StateClass state, DynGold gold):
        """The canonical policy's unlabelled move id (canonical_move), for the tests: the
        static oracle without its fallback on gold the system cannot build."""
        return self.canonical_move(state.c, &gold.c)

    # ---- gold ------------------------------------------------------------------------
    def _oracle_gold(self, heads):
        return OracleGold([(-1 if h is None else h) for h in heads], self.D, True)

    def attach_oracle(self, DynGold gold):
        """The node-level gold of the oracle (children, post-order, coverage, local coverage),
        built once per document, by init_gold and by the Simulator (gold.c.extra)."""
        cdef OracleGold og = OracleGold()
        og.build(gold.c.heads, gold.c.length, self.D, True)
        gold.attach(og, <void*>&og.c)
        if og.c.n_unknown:
            self.doc_counts["partial"] += 1
        elif og.c.covered:
            self.doc_counts["covered"] += 1
        else:
            self.doc_counts["uncovered"] += 1

    def has_gold(self, eg, start=0, end=None):
        if not DynOracleSystem.has_gold(self, eg, start, end):
            return False
        if self.cfg.get("uncovered") != "skip":
            return True
        key = f"attardi{self.D}_covered"
        data = eg.reference.user_data
        if key not in data:
            heads, _ = eg.get_aligned_parse(projectivize=False)
            og = self._oracle_gold(heads)
            data[key] = bool(og.covered) or og.n_unknown > 0
            if not data[key]:
                self.doc_counts["skipped"] += 1
        return data[key]

    def is_covered(self, heads):
        """Whether the system derives this gold tree (token heads, root = self)."""
        return self._oracle_gold(heads).covered
