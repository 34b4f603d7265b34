# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Easy-first (Goldberg & Elhadad 2010) in GN13's form, docs/specs/arc_eager_hybrid_easyfirst.md
§1.3, with its oracles (easy_first_oracle.pyx). docs/systems/easy_first.md has the system, what
is exact where, the measurements and the design of the model and training step (part 2).

A configuration is the pending list lam = [ROOT, l_1, .., l_k] (spec nodes: the virtual root
is node 0, word i node i + 1, conventions.pxd) and the arcs built so far. Every adjacent pair
(lam[i], lam[i + 1]) offers two actions (layout: easy_first_oracle.pxd): the left item takes
the right one as dependent (RIGHT; at pair 0 the ROOT move: the word becomes a sentence root
and points to itself, docs/conventions.md), or the right item takes the left one (LEFT; not
at pair 0). Exactly n actions build a projective forest whose roots are the virtual root's
children; each root's words are contiguous.

Preset sentence boundaries (TokenC.sent_start) are respected: an arc between adjacent items
a < b may not cross a preset sentence start, i.e. the first word of b's subtree must not
start one (every word between a and b is in a's or b's subtree, whose own arcs crossed no
start); ROOT may not end a sentence before a word that cannot start one. So with every
boundary preset each preset sentence gets exactly one root, and a non-final state always has
a valid action (the first item's sentence either has another pending item, joined by an arc,
or ends, and ROOT closes it).

State, moves and costs run nogil over plain arrays; one call of EasyFirst.action_costs gives
every action's cost of a state (what a batch training step needs once per state).
"""
from libc.string cimport memcpy, memmove
from libc.stdlib cimport malloc, free
from libc.stdint cimport int32_t

from cymem.cymem cimport Pool
from spacy.typedefs cimport attr_t, weight_t
from spacy.tokens.doc cimport Doc

from .conventions cimport LEFT, RIGHT, ROOT, VIRTUAL_ROOT_NODE, word_node
from .system_base cimport (DynGold, GoldC, WordArcs, arc_label_cost, INVALID_COST,
                           oracle_clock_start, oracle_clock_stop)
from .easy_first_oracle cimport (
    EFGold, EFWork, EF_RIGHT, EF_LEFT, EasyFirstGoldTable, ef_dynamic_costs, ef_formula_costs,
    ef_static_costs, ef_first_zero,
)
from .system_base import MOVE_NAMES, EXPLORE_RULES

ORACLES = ("dynamic", "goldberg-nivre", "static")

cdef enum:              # indices into ORACLES
    ORACLE_DYNAMIC = 0
    ORACLE_FORMULA = 1
    ORACLE_STATIC = 2


cdef inline int word_of(int node) noexcept nogil:
    return node - 1


cdef inline void remove_item(EasyFirstC* st, int i) noexcept nogil:
    """Take lam[i] out of the pending list."""
    st.in_list[st.lam[i]] = 0
    memmove(&st.lam[i], &st.lam[i + 1], (st.size - i - 1) * sizeof(int))
    st.size -= 1


cdef inline bint no_start_between(const EasyFirstC* st, int pair) noexcept nogil:
    """No preset sentence start between the items of the pair: the first word of the right
    item's subtree does not start a sentence."""
    return st.sent_start[st.left_edge[word_of(st.lam[pair + 1])]] != 1


cdef class AttachRoot:
    """ROOT (pair 0): the first pending word becomes a sentence root.

    Validity: a word is pending, and the word after its subtree (the first word of the next
    item's subtree), if any, may start a sentence (is not preset -1).
    Cost: the oracle's action 2*0 + EF_RIGHT (the arc virtual root -> word).
    Action: heads[w] = w (a root points to itself, no arc), label ROOT; w leaves the list.
    """
    @staticmethod
    cdef bint is_valid(const EasyFirstC* st, int pair) noexcept nogil:
        if pair != 0 or st.size < 2:
            return 0
        return st.size == 2 or st.sent_start[st.left_edge[word_of(st.lam[2])]] != -1

    @staticmethod
    cdef void transition(EasyFirstC* st, int pair, attr_t label) noexcept nogil:
        cdef int w = word_of(st.lam[1])
        st.heads[w] = w
        st.labels[w] = label
        remove_item(st, 1)


cdef class AttachRight:
    """RIGHT at pair i >= 1: lam[i] takes lam[i + 1] as dependent (GN13's RIGHT^i).

    Validity: both are words, and no preset sentence start lies between them.
    Cost: the oracle's action 2*i + EF_RIGHT.
    Action: arc lam[i] -> lam[i + 1] with the label; lam[i + 1] leaves the list.
    """
    @staticmethod
    cdef bint is_valid(const EasyFirstC* st, int pair) noexcept nogil:
        return 1 <= pair < st.size - 1 and no_start_between(st, pair)

    @staticmethod
    cdef void transition(EasyFirstC* st, int pair, attr_t label) noexcept nogil:
        cdef int child = word_of(st.lam[pair + 1])
        st.heads[child] = word_of(st.lam[pair])
        st.labels[child] = label
        remove_item(st, pair + 1)


cdef class AttachLeft:
    """LEFT at pair i >= 1: lam[i + 1] takes lam[i] as dependent (GN13's LEFT^{i+1}).

    Validity: both are words (the virtual root takes no head), and no preset sentence start
    lies between them.
    Cost: the oracle's action 2*i + EF_LEFT.
    Action: arc lam[i + 1] -> lam[i] with the label (the head's subtree now starts where the
    dependent's did); lam[i] leaves the list.
    """
    @staticmethod
    cdef bint is_valid(const EasyFirstC* st, int pair) noexcept nogil:
        return 1 <= pair < st.size - 1 and no_start_between(st, pair)

    @staticmethod
    cdef void transition(EasyFirstC* st, int pair, attr_t label) noexcept nogil:
        cdef int child = word_of(st.lam[pair])
        cdef int head = word_of(st.lam[pair + 1])
        st.heads[child] = head
        st.labels[child] = label
        st.left_edge[head] = st.left_edge[child]
        remove_item(st, pair)


# ---- the actions of a state: pair 2*i + direction (easy_first_oracle.pxd) ----------------
cdef int ef_n_actions(const EasyFirstC* st) noexcept nogil:
    """Size of the action layout of this state (valid or not): 2 per adjacent pair."""
    return 2 * (st.size - 1)


cdef int ef_action_move(int action) noexcept nogil:
    """The move id (conventions.pxd) of an action."""
    if action == EF_RIGHT:
        return ROOT
    return RIGHT if action % 2 == EF_RIGHT else LEFT


cdef bint ef_is_valid(const EasyFirstC* st, int action) noexcept nogil:
    cdef int pair = action // 2
    if action < 0 or pair >= st.size - 1:
        return 0
    if action == EF_RIGHT:
        return AttachRoot.is_valid(st, pair)
    if action % 2 == EF_RIGHT:
        return AttachRight.is_valid(st, pair)
    return AttachLeft.is_valid(st, pair)


cdef void ef_apply(EasyFirstC* st, int action, attr_t label) noexcept nogil:
    cdef int pair = action // 2
    if action == EF_RIGHT:
        AttachRoot.transition(st, pair, label)
    elif action % 2 == EF_RIGHT:
        AttachRight.transition(st, pair, label)
    else:
        AttachLeft.transition(st, pair, label)


cdef void ef_action_arc(const EasyFirstC* st, int action, int* head, int* child) noexcept nogil:
    """The words of the arc an action adds (ROOT: head == child, the root points to itself)."""
    cdef int pair = action // 2
    cdef int left = st.lam[pair]
    cdef int right = st.lam[pair + 1]
    if action % 2 == EF_RIGHT:
        child[0] = word_of(right)
        head[0] = child[0] if left == VIRTUAL_ROOT_NODE else word_of(left)
    else:
        child[0] = word_of(left)
        head[0] = word_of(right)


cdef int alloc_state(EasyFirstC* st, Pool mem, int n) except -1:
    """The arrays of a state of n words (EasyFirstC's sizes), from mem; their values are
    the caller's."""
    st.lam = <int*>mem.alloc(n + 1, sizeof(int))
    st.in_list = <char*>mem.alloc(n + 1, sizeof(char))
    st.heads = <int*>mem.alloc(n, sizeof(int))
    st.labels = <attr_t*>mem.alloc(n, sizeof(attr_t))
    st.left_edge = <int*>mem.alloc(n, sizeof(int))
    st.sent_start = <signed char*>mem.alloc(n, sizeof(signed char))
    return 0


cdef class EasyFirstState(WordArcs):
    """One Doc's easy-first configuration (initial: every word pending)."""

    def __init__(self, int n_words, sent_starts=None):
        cdef int i
        if n_words < 1:
            raise ValueError("an easy-first state needs at least one word")
        if sent_starts is not None and len(sent_starts) != n_words:
            raise ValueError(f"sent_starts has {len(sent_starts)} values for {n_words} words")
        self.mem = Pool()
        self.c.n = n_words
        self.c.size = n_words + 1
        alloc_state(&self.c, self.mem, n_words)
        for i in range(n_words + 1):
            self.c.lam[i] = i                  # node i: the virtual root, then word i - 1
            self.c.in_list[i] = 1
        for i in range(n_words):
            self.c.heads[i] = -1
            self.c.left_edge[i] = i
            self.c.sent_start[i] = 0 if sent_starts is None else sent_starts[i]

    @classmethod
    def from_doc(cls, Doc doc, int start=0, end=None):
        """The initial state of a Doc's words start..end (all by default), with their preset
        boundaries (TokenC.sent_start)."""
        cdef int stop = doc.length if end is None else end
        if not 0 <= start < stop <= doc.length:
            raise ValueError(f"words {start}..{stop} are not a non-empty part of a Doc of "
                             f"{doc.length} words")
        return cls(stop - start, [doc.c[i].sent_start for i in range(start, stop)])

    def copy(self):
        cdef EasyFirstState new = EasyFirstState.__new__(EasyFirstState)
        cdef int n = self.c.n
        new.mem = Pool()
        new.c = self.c
        alloc_state(&new.c, new.mem, n)
        memcpy(new.c.lam, self.c.lam, (n + 1) * sizeof(int))
        memcpy(new.c.in_list, self.c.in_list, (n + 1) * sizeof(char))
        memcpy(new.c.heads, self.c.heads, n * sizeof(int))
        memcpy(new.c.labels, self.c.labels, n * sizeof(attr_t))
        memcpy(new.c.left_edge, self.c.left_edge, n * sizeof(int))
        memcpy(new.c.sent_start, self.c.sent_start, n * sizeof(signed char))
        return new

    def is_final(self):
        return self.c.size == 1

    cdef int word_arcs(self, const int32_t** heads, const attr_t** labels) noexcept:
        heads[0] = <const int32_t*>self.c.heads      # int, as int32_t is here
        labels[0] = self.c.labels
        return self.c.n

    @property
    def pending(self):
        """The pending words, left to right (the virtual root before them is implicit)."""
        return [word_of(self.c.lam[i]) for i in range(1, self.c.size)]


cdef class EasyFirst:
    """The easy-first system: options, oracles and the Python access the Simulator uses.

    oracle: "dynamic" (exact on every gold: cut at gold sentences, §5.3's formula on those
    with complete projective gold, the inside-outside DP of easy_first_oracle.pyx on the
    others), "goldberg-nivre" (the formula alone, exact on projective gold only: §9) or
    "static" (the non-deterministic static oracle, §6). projective_formula=False makes
    "dynamic" run the DP on every gold sentence (a check of the DP against the formula and
    the brute force).
    """
    name = "easy_first"
    oracles = ORACLES
    options = {"projective_formula": True}
    # no options beside its own (DynOracleSystem's common_options), and none that shapes the
    # action layout: projective_formula only chooses how the dynamic oracle computes costs
    common_options = {}
    structural_options = frozenset()
    # heads once set never change, and the valid actions and the best future depend on the
    # pending list only (without preset boundaries): tests/bruteforce.py memoises the
    # exhaustive search's future on it (and asserts both properties on every state it visits)
    bruteforce_arc_monotone = True
    # the training schedule of the parser component (factory.py, parser.py), as the
    # StateC systems' DynOracleSystem declares it
    default_schedule = (1, 0.9)
    default_oracle = "dynamic"      # the factory's choice when the config leaves oracle null
    explore_rules = EXPLORE_RULES
    dynamic_oracles = ("dynamic", "goldberg-nivre")   # defined off the gold's paths
    # the parser model the component needs (a config's model block names it; projects/ud
    # switches a TransitionBasedParser.v2 block to it)
    model_architecture = "spacy_dynoracle.EasyFirstModel.v1"

    def __init__(self, strings, *, oracle=None, projective_formula=True, **options):
        if oracle is None:
            oracle = self.default_oracle
        if oracle not in ORACLES:
            raise ValueError(f"transition system 'easy_first' has no oracle {oracle!r}; "
                             f"choose one of {list(ORACLES)}")
        if options:
            raise ValueError(f"transition system 'easy_first' has no option(s) "
                             f"{sorted(options)}; its options are {sorted(self.options)}")
        self.strings = strings
        self.oracle = oracle
        self.oracle_kind = ORACLES.index(oracle)
        self.projective_formula = bool(projective_formula)
        self.cfg = {"projective_formula": self.projective_formula}

    @property
    def explores(self):
        """Whether training may leave the oracle's paths (not with the static oracle, whose
        costs mean something only on the gold's own paths)."""
        return self.oracle in self.dynamic_oracles

    def attach_oracle(self, DynGold gold):
        """Build the per-Doc gold of the oracles (EFGold) once and hang it on the gold."""
        if gold.c.extra != NULL:
            return
        table = EasyFirstGoldTable(gold.heads)
        gold.attach(table, <void*>(<EasyFirstGoldTable>table).c)

    cdef int action_costs(self, const EasyFirstC* st, const GoldC* gold, int* cost) except -1 nogil:
        """The unlabelled cost of every action of the layout (invalid ones included: the
        caller intersects with validity), by the chosen oracle; its CPU time on the oracle
        clock (`timed`)."""
        cdef const EFGold* g = <const EFGold*>gold.extra
        cdef EFWork work
        cdef long long start
        if g == NULL:
            with gil:
                raise ValueError("easy_first: the gold has no oracle data; build it with "
                                 "moves.attach_oracle(gold)")
        start = oracle_clock_start(&self.clock)
        if self.oracle_kind == ORACLE_STATIC:
            ef_static_costs(g, st.lam, st.size, st.in_list, cost)
        elif self.oracle_kind == ORACLE_FORMULA:
            ef_formula_costs(g, st.lam, st.size, st.in_list, cost)
        else:
            if ef_dynamic_costs(g, st.lam, st.size, st.in_list, self.projective_formula,
                                cost, &work) < 0:
                with gil:
                    raise MemoryError()
            self._stats[0] += 1
            self._stats[1] += work.blocks > 0
            self._stats[2] += work.items
            self._stats[3] += work.cells
        oracle_clock_stop(&self.clock, start)
        return 0

    def oracle_stats(self):
        """Since the last reset_oracle_stats: the states the dynamic oracle costed, how many
        ran the DP on some gold block (the others took the formula alone), the DP's list
        items (summed over its blocks, the virtual root once per block) and its cells (the
        sum of their cubes: the O(m^3) work), and `oracle_cpu_s`: the CPU seconds action_costs
        took while `timed` (every oracle)."""
        names = ("states", "dp_states", "dp_items", "dp_cells")
        out = {name: int(self._stats[i]) for i, name in enumerate(names)}
        out["oracle_cpu_s"] = self.clock.ns / 1e9
        return out

    def reset_oracle_stats(self):
        for i in range(4):
            self._stats[i] = 0
        self.clock.ns = 0

    @property
    def timed(self):
        """Whether the oracle clock runs (off by default): as DynOracleSystem.timed."""
        return self.clock.on

    @timed.setter
    def timed(self, bint on):
        self.clock.on = on

    # ---- names of actions: "ROOT", "RIGHT@i", "LEFT@i" (pair i of the pending list) ------
    def action_name(self, int action):
        move = MOVE_NAMES[ef_action_move(action)]
        return move if action == EF_RIGHT else f"{move}@{action // 2}"

    def action_id(self, str name):
        """The action of a name; ValueError naming the valid forms."""
        move, _, pair = name.partition("@")
        if name == "ROOT":
            return EF_RIGHT
        if move in ("RIGHT", "LEFT") and pair.isdigit() and int(pair) >= 1:
            return 2 * int(pair) + (EF_RIGHT if move == "RIGHT" else EF_LEFT)
        raise ValueError(f"unknown easy-first action {name!r}; actions are 'ROOT', "
                         f"'RIGHT@i' and 'LEFT@i' for a pair i >= 1 of the pending list")

    # ---- Python access for spacy_dynoracle.testing.Simulator -------------------------
    def _sim_actions(self, EasyFirstState state):
        """The valid actions of a state, in layout order."""
        return [a for a in range(ef_n_actions(&state.c)) if ef_is_valid(&state.c, a)]

    def _sim_costs(self, EasyFirstState state, DynGold gold):
        """{action: raw unlabelled cost} of the valid actions (not normalised)."""
        cdef int n = ef_n_actions(&state.c)
        cdef int* cost = <int*>malloc(max(n, 1) * sizeof(int))
        try:
            self.action_costs(&state.c, &gold.c, cost)
            return {a: cost[a] for a in range(n) if ef_is_valid(&state.c, a)}
        finally:
            free(cost)

    def _sim_class_costs(self, EasyFirstState state, DynGold gold, label_ids):
        """{(action, label id): cost} of every valid labelled class (ROOT carries the one
        label ROOT), as training would use them: the move cost plus 1 for a gold arc with a
        known wrong label (system_base.arc_label_cost), normalised so that the cheapest
        valid class costs 0 (as DynOracleSystem.class_costs)."""
        cdef int head, child
        raw = self._sim_costs(state, gold)
        root_label = self.strings.add("ROOT")
        out = {}
        for a, c in raw.items():
            for label in ([root_label] if a == EF_RIGHT else label_ids):
                ef_action_arc(&state.c, a, &head, &child)
                out[(a, label)] = c + arc_label_cost(&gold.c, head, child, label)
        best = min(out.values()) if out else 0
        return {k: v - best for k, v in out.items()}

    def _sim_static_action(self, EasyFirstState state, DynGold gold):
        """The static oracle's deterministic action (§6: the first zero-cost action of the
        non-deterministic static oracle in list order), -1 if none."""
        cdef int n = ef_n_actions(&state.c)
        cdef int* cost = <int*>malloc(max(n, 1) * sizeof(int))
        cdef int a
        try:
            ef_static_costs(<const EFGold*>gold.c.extra, state.c.lam, state.c.size,
                            state.c.in_list, cost)
            for a in range(n):
                if not ef_is_valid(&state.c, a):
                    cost[a] = 1
            return ef_first_zero(cost, state.c.size)
        finally:
            free(cost)

    def _sim_apply(self, EasyFirstState state, int action, attr_t label):
        if not ef_is_valid(&state.c, action):
            raise ValueError(f"easy-first action {self.action_name(action)} is not valid; "
                             f"valid: {[self.action_name(a) for a in self._sim_actions(state)]}")
        ef_apply(&state.c, action, label)
