# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Arc-standard (Nivre 2004) with exact tabular dynamic oracles (Goldberg, Sartorio & Satta
2014, corrected; and the spec's extension for any arc-factored loss).
Spec: docs/specs/lr_spine_and_arc_standard.md §2.1, §2.7, §3.3-3.6, §7.

The virtual root is pre-shifted at the bottom of the stack without being a token
(docs/specs/lr_spine_and_arc_standard.md §7): ROOT is the spec's `ra` with s2 = root, valid when
s0 is the only real stack word. A root popped by ROOT points to itself (docs/conventions.md), so
several roots are several contiguous sentences. The stack holds subtree roots only, so spaCy's
8-token feature template (S0, S1, S2, B0, B1 and children) keeps its meaning.

Oracles (`oracle=`):
* "dynamic" (default): exact costs. Complete projective gold uses the [GSS14] DP over the
  right stack of gold fragments (docs/specs/lr_spine_and_arc_standard.md §3.3); non-projective or
  partially annotated gold uses the §3.6 DP (exact w.r.t. the best reachable projective tree), so
  the default is to train on raw, unlifted trees (`projectivize = false`).
* "general": the §3.6 DP for every sentence (for comparisons and timing).
* "static": attach as soon as the dependent is complete, LEFT before RIGHT, else SHIFT
  (docs/specs/lr_spine_and_arc_standard.md §2.7). With the static oracle non-projective gold is
  lifted by default.
`projectivize = true` gives the pseudo-projective route (lifted gold, deprojectivized
output) for comparison.

Preset sentence boundaries are honoured as in arc_hybrid: SHIFT cannot push a sentence
start onto a non-empty stack (so every arc stays inside one sentence) and ROOT may not end
a sentence before a word that cannot start one.
"""
from libcpp.vector cimport vector

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC

from .system_base cimport (
    DynOracleSystem, DynGold, GoldC, SHIFT, LEFT, RIGHT, ROOT, N_MOVES, VIRTUAL_ROOT_NODE,
    word_node, shift_else_reduce,
)
from .oracle_cells cimport OracleCells, cell_counts, record_cells
from .arc_standard_oracle cimport (
    ASOracleC, AS_INF, AS_PATH_PAPER, AS_PATH_GENERAL, AS_PATH_CUT, AS_PATH_MIXED, AS_PATH_NEXT,
    AS_PATH_GUARD, AS_PATH_INEXACT, as_costs, as_move_costs, ArcStandardOracle,
)


cdef inline bint complete(const StateC* st, const GoldC* g, int x) noexcept nogil:
    """Every gold dependent of x is attached to x already."""
    cdef int k
    for k in range(g.kid_start[x], g.kid_start[x + 1]):
        if st._heads[g.kids[k]] != x:
            return False
    return True


cdef class ArcStandard(DynOracleSystem):
    """Arc-standard: SHIFT, LEFT, RIGHT, ROOT, with exact tabular dynamic oracles. The moves
    are system_base's: LEFT is StackLeftArc (the spec's la: s1 -> s2 in the papers'
    indexing), RIGHT StackRightArc (ra), ROOT RootArc (ra with s2 = the virtual root). Their
    cost: δ(arc) + F(successor) - F(c) (docs/specs/lr_spine_and_arc_standard.md §3.5)."""
    name = "arc_standard"
    projective = True
    oracles = ("dynamic", "static", "general")
    dynamic_oracles = ("dynamic", "general")
    # budget: the most DP cells one F may visit before the guard splits the stack (a count,
    # so training stays reproducible; arc_standard_oracle.pyx, "Budget"); 0 = no guard
    options = {"budget": 1000000}
    cdef vector[int] _nodes
    cdef int _last_path             # AS_PATH_* flags of the last move_costs
    cdef long _path_counts[8]       # states through the oracle, and per AS_PATH_* flag
    cdef readonly long budget       # the guard's limit on one DP's cells (0: none)
    cdef OracleCells _cells         # DP cells the oracle visited (a count of its work)

    def __init__(self, strings, labels_by_action=None, min_freq=None, *,
                 projectivize=None, oracle="dynamic", **options):
        # The exact dynamic oracle handles non-projective gold
        # (docs/specs/lr_spine_and_arc_standard.md §3.6): no lifting by default; the static
        # oracle is only complete on projective gold, so it lifts.
        if projectivize is None:
            projectivize = oracle == "static"
        DynOracleSystem.__init__(self, strings, labels_by_action, min_freq,
                                 projectivize=projectivize, oracle=oracle, **options)
        self.needs_oracle_data = True   # no fallback: costs come from attach_oracle's data
        self.budget = int(self.cfg["budget"])
        if self.budget < 0:
            raise ValueError(f"arc_standard: budget must be >= 0 (0 = no guard), got {self.budget}")

    cdef int declare_moves(self) except -1:
        DynOracleSystem.declare_moves(self)
        self.declare_stack_arcs()

    cdef void move_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                         weight_t* cost) noexcept nogil:
        """All move costs from one call into the oracle
        (docs/specs/lr_spine_and_arc_standard.md §3.5) on the node-level configuration:
        stack [0, S(d-1)+1, ..., S(0)+1], buffer from _b_i + 1."""
        cdef int want[3]
        cdef int val[3]
        cdef int mc[3]
        cdef int d = st.stack_depth()
        cdef int i, n_valid
        cdef ASOracleC* o
        for m in range(N_MOVES):
            cost[m] = 0
        self._cells.last = 0
        self._last_path = 0
        n_valid = valid[SHIFT] + valid[LEFT] + valid[RIGHT] + valid[ROOT]
        if n_valid <= 1:
            return      # nothing to compare (and F cancels out)
        if self.lacks_oracle_data(gold):
            return
        o = <ASOracleC*>gold.extra
        self._nodes.resize(d + 1)
        self._nodes[0] = VIRTUAL_ROOT_NODE
        for i in range(d):
            self._nodes[i + 1] = word_node(st._stack[i])
        # ask the spec's system for every move it has here (its min is F(c)), so that the
        # costs are exact increases even where preset boundaries forbid some of them
        want[0] = st.buffer_length() > 0
        want[1] = d >= 2
        want[2] = d >= 1
        as_costs(o, self._nodes.data(), d + 1, word_node(st._b_i), want, val)
        self._last_path = o.last_path
        record_cells(&self._cells, o.cells)
        self._path_counts[0] += 1
        for i in range(7):
            if o.last_path & (1 << i):
                self._path_counts[i + 1] += 1
        as_move_costs(o, val, mc)       # exact, or sound lower bounds when guarded
        cost[SHIFT] = mc[0] if valid[SHIFT] else 0
        cost[LEFT] = mc[1] if valid[LEFT] else 0
        cost[RIGHT] = mc[2] if valid[RIGHT] else 0
        cost[ROOT] = mc[2] if valid[ROOT] else 0

    cdef int static_move(self, const StateC* st, const GoldC* g) noexcept nogil:
        """docs/specs/lr_spine_and_arc_standard.md §2.7: LEFT if correct, else RIGHT (ROOT) if
        correct, else SHIFT. A reduction is correct when its arc is gold and the dependent has
        all its gold dependents."""
        cdef int valid[N_MOVES]
        cdef int s0 = st.S(0)
        cdef int s1 = st.S(1)
        self.move_validity(st, valid)
        if valid[LEFT] and g.heads[s1] == s0 and complete(st, g, s1):
            return LEFT
        if s0 >= 0 and complete(st, g, s0):
            if valid[RIGHT] and g.heads[s0] == s1:
                return RIGHT
            if valid[ROOT] and g.heads[s0] == s0:
                return ROOT
        return shift_else_reduce(valid)

    # ---- gold ------------------------------------------------------------------------
    def attach_oracle(self, DynGold gold):
        """The base's hook (init_gold and the Simulator): the oracle's gold, once per Doc."""
        # "general": the general DP even on complete projective gold (the [GSS14] one otherwise)
        return attach_oracle(gold, self.oracle == "general", self.budget)

    cdef bint last_costs_bounded(self) noexcept:
        """The last move_costs ran over budget and a gold arc crossed the split it made:
        lower bounds, not exact costs (arc_standard_oracle.pyx, "Budget")."""
        return (self._last_path & AS_PATH_INEXACT) != 0

    def oracle_counts(self):
        """States whose costs came from the oracle, and how many of them used each part
        (see last_oracle_path); gold without oracle data (missing_oracle)."""
        names = ("states", "paper", "general", "cut", "mixed", "next", "guard", "inexact")
        out = {name: self._path_counts[i] for i, name in enumerate(names)}
        out["missing_oracle"] = self.missing_oracle
        out.update(cell_counts(self._cells))
        return out

    @property
    def last_oracle_cells(self):
        """DP cells the last move_costs visited: the oracle's work in that state, a count
        (tests bound it; it does not depend on the machine)."""
        return self._cells.last

    @property
    def last_oracle_path(self):
        """Which parts the last move_costs used (the brute-force suite counts states per
        path): "paper" / "general" DPs, "cut" when later gold sentences (blocks) were
        left out, "mixed" when the stack holds words of several, "next" when b0 lies in a
        later one than s0 (arc_standard_oracle.pyx)."""
        cdef int f = self._last_path
        if not f & (AS_PATH_PAPER | AS_PATH_GENERAL):
            return "none"
        parts = [n for n, bit in (("paper", AS_PATH_PAPER), ("general", AS_PATH_GENERAL),
                                  ("cut", AS_PATH_CUT), ("mixed", AS_PATH_MIXED),
                                  ("next", AS_PATH_NEXT), ("guard", AS_PATH_GUARD),
                                  ("inexact", AS_PATH_INEXACT)) if f & bit]
        return "+".join(parts)


def attach_oracle(DynGold gold, force_general=False, budget=0):
    """Build the oracle's gold (docs/specs/lr_spine_and_arc_standard.md §7: per document,
    once) and hang it on the DynGold."""
    cdef ArcStandardOracle og = ArcStandardOracle(gold.heads, force_general, budget=budget)
    return gold.attach(og, <void*>&og.c)
