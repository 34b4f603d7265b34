# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Non-monotonic arc-eager on spaCy's StateC (docs/systems/arc_eager_nm.md): the moves of spaCy's
own arc-eager parser (Honnibal, Goldberg & Johnson 2013; Honnibal & Johnson 2015;
spacy/pipeline/_parser_internals/arc_eager.pyx, NON_MONOTONIC) with this package's sentence
conventions (docs/conventions.md: ROOT instead of spaCy's BREAK, preset boundaries respected).

    SHIFT    push b0 (an L word: headless). Valid: shift_is_valid (docs/conventions.md), and
             on a non-empty stack also b0 is not the last buffer word and b0 is not
             unshiftable (spaCy's Shift.is_valid).
    RIGHT-l  arc s0 -> b0 (label l), push b0 (an R word). The arc is made now, as in spaCy:
             a later LEFT may replace it.
    LEFT-l   arc b0 -> s0 (label l), **replacing s0's head if it has one** (a repair of an
             earlier RIGHT), b0 becomes reshiftable, pop. Valid for any s0.
    REDUCE   s0 has a head: pop. s0 is headless (then there are words below it: the stack
             bottom has no head): **unshift** it, i.e. put it back at the front of the buffer,
             marked unshiftable (StateC.unshift): it cannot be SHIFTed again until a LEFT
             with it as b0 changed the stack, or the stack is empty, so no loop.
    ROOT     s0 becomes a sentence root, pop; s0 alone (system_base.RootArc). spaCy pops a
             headless word at depth 1 by REDUCE and makes it a root at the end; here that is
             ROOT, which carries the label ROOT.

Invariants (docs/systems/arc_eager_nm.md, "The system"): the stack is in word order, the head
of a stack word pushed by RIGHT is the word directly below it, the stack bottom is headless,
buffer words are headless (rebuffered words were headless when unshifted), and a popped
word's head is final. So every non-final state has a valid move: REDUCE with two or more
stack words, ROOT or (SHIFT, LEFT, RIGHT) with one, SHIFT with none.

Oracle ``dynamic`` (the default): exact costs, from the forests over the open words that
arc_eager_nm_oracle.pyx scores per gold block (docs/systems/arc_eager_nm.md, "The exact
oracle"): SHIFT and the unshift cost nothing (the open words and what each may still become
do not change), RIGHT costs what making b0 HEADED lowers the best forest of its block by,
LEFT, the popping REDUCE and ROOT what removing s0 lowers it by, less the gold arc they
make. A state whose chart cells would exceed the system option `budget` gets cost 0 for
every move instead (the guard: sound, counted; docs/systems/arc_eager_nm.md, "Long
sentences").

Oracle ``spacy``: spaCy's approximate costs (push_cost, pop_cost and the per-move rules of
spaCy's arc_eager.pyx) read on this package's gold, with spaCy's BREAK terms moved onto ROOT,
the boundary move here: SHIFT, RIGHT and LEFT cost 1 more when b0 starts a gold sentence and
the stack holds words of the previous one, ROOT 1 more when b0 continues s0's gold sentence
(docs/systems/arc_eager_nm.md, "The `spacy` costs": every difference from spaCy's rules).
They are not exact: docs/systems/arc_eager_nm.md gives how often their zero-cost set differs
from exhaustive search.
"""
from cymem.cymem cimport Pool
from cython.operator cimport dereference as deref
from libcpp.vector cimport vector

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC, ArcC
from spacy.pipeline._parser_internals.stateclass cimport StateClass

from .system_base cimport (
    DynOracleSystem, GoldC, SHIFT, LEFT, RIGHT, ROOT, REDUCE, N_MOVES, AT_S0, AT_B0,
    INVALID_COST, shift_is_valid, gold_sentence_starts_at,
)
from .system_base cimport DynGold
from .arc_eager cimport s0_b0_arc_is_valid
from .oracle_cells cimport OracleCells, cell_counts, record_cells
from .arc_eager_nm_oracle cimport (
    NMOracle, NMOracleTable, nm_block_best, nm_shared_chart, NM_FREE, NM_HEADED,
)

ORACLE_DYNAMIC = "dynamic"
ORACLE_SPACY = "spacy"


cdef class NMShift:
    """Push b0 as an L word (spaCy's Shift).

    Validity: shift_is_valid (buffer not empty; b0 starts no preset sentence unless the stack
        is empty); on a non-empty stack also: b0 is not the last word of the buffer (its only
        moves on the stack would be REDUCE, i.e. unshifting it again) and b0 is not
        unshiftable (it was unshifted and the stack has not changed since: no loop).
    Action: push b0.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        if not shift_is_valid(st):
            return 0
        if st.stack_depth() == 0:
            return 1
        return st.buffer_length() >= 2 and not st.is_unshiftable(st.B(0))

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.push()


cdef class NMRightArc:
    """Arc s0 -> b0, push b0 (spaCy's RightArc: the arc is made at the push).

    Validity: stack and buffer not empty; b0 starts no preset sentence.
    Action: add_arc(s0, b0, l), push b0.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return s0_b0_arc_is_valid(st)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.add_arc(st.S(0), st.B(0), label)
        st.push()


cdef class NMLeftArc:
    """Arc b0 -> s0, replacing s0's head if it has one; pop (spaCy's LeftArc).

    Validity: stack and buffer not empty; b0 starts no preset sentence (any s0: the repair).
    Action: add_arc(b0, s0, l) (StateC.add_arc deletes the old arc), b0 reshiftable (the
        stack changed, so shifting b0 again cannot loop), pop.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return s0_b0_arc_is_valid(st)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.add_arc(st.B(0), st.S(0), label)
        st.set_reshiftable(st.B(0))
        st.pop()


cdef class NMReduce:
    """Pop s0 if it has a head, else unshift it (spaCy's Reduce, NON_MONOTONIC).

    Validity: s0 has a head, or there is a word below it (a headless word alone on the stack
        is made a root by ROOT instead, docs/conventions.md).
    Action: pop, or StateC.unshift (s0 back to the front of the buffer, unshiftable).
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return st.stack_depth() >= 2 or (st.stack_depth() == 1 and st.has_head(st.S(0)))

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        if st.has_head(st.S(0)):
            st.pop()
        else:
            st.unshift()


# ---- spaCy's approximate costs ------------------------------------------------------------
cdef struct SpacyCounts:
    # spaCy's GoldParseStateC flags (update_gold_state) for the two words its costs read
    bint s0_head_in_stack      # gold head of s0 is a stack word
    bint s0_head_in_buffer     # ... a buffer word before the buffer's first sentence start
    int s0_kids_in_stack       # stack words whose gold head is s0
    int s0_kids_in_buffer      # buffer words (before the first sentence start) headed by s0
    bint b0_head_in_stack
    bint b0_head_in_buffer
    int b0_kids_in_stack


cdef void spacy_counts(const StateC* st, const GoldC* g, SpacyCounts* c) noexcept nogil:
    """The flags of spaCy's update_gold_state for s0 and b0, read on GoldC (a root points to
    itself, -1 unknown): the stack, and the buffer up to its first sentence start (spaCy stops
    there: words of the next sentence are no one's head). O(stack + buffer)."""
    cdef int s0 = st.S(0)
    cdef int b0 = st.B(0)
    cdef int hs0 = g.heads[s0] if s0 >= 0 else -1
    cdef int hb0 = g.heads[b0] if b0 >= 0 else -1
    cdef int i, w, h
    c.s0_head_in_stack = c.s0_head_in_buffer = c.b0_head_in_stack = c.b0_head_in_buffer = 0
    c.s0_kids_in_stack = c.s0_kids_in_buffer = c.b0_kids_in_stack = 0
    for i in range(st.stack_depth()):
        w = st.S(i)
        h = g.heads[w]
        if h >= 0 and h != w:
            c.s0_kids_in_stack += h == s0
            c.b0_kids_in_stack += h == b0
        if hs0 == w and hs0 != s0:
            c.s0_head_in_stack = 1
        if hb0 == w and hb0 != b0:
            c.b0_head_in_stack = 1
    for i in range(st.buffer_length()):
        w = st.B(i)
        if st.is_sent_start(w):
            break
        h = g.heads[w]
        if s0 >= 0 and h >= 0 and h != w and h == s0:
            c.s0_kids_in_buffer += 1
        if hs0 == w and hs0 != s0:
            c.s0_head_in_buffer = 1
        if hb0 == w and hb0 != b0:
            c.b0_head_in_buffer = 1


cdef void spacy_move_costs(const StateC* st, const GoldC* g, const int* valid,
                           weight_t* cost) noexcept nogil:
    """spaCy 3.8's arc-eager costs (arc_eager.pyx: push_cost, pop_cost, Shift/Reduce/LeftArc/
    RightArc/Break.cost) without the label term (the base adds it). ROOT is spaCy's REDUCE of
    a headless word alone on the stack (which spaCy's parser makes a root) and its BREAK:
    here a sentence ends by ROOT once the previous sentence is reduced to its root, where
    spaCy marks it by BREAK before the sentence's last word is pushed. So BREAK's two terms
    move one decision later (docs/systems/arc_eager_nm.md, "The `spacy` costs", the table):
    push_cost's [BREAK valid and B(1) starts a gold sentence] (a push that passes a boundary
    still unmarked) becomes [b0 starts a gold sentence, the stack is not empty] on SHIFT and
    RIGHT, and on LEFT, which spaCy forbids once BREAK marked b0 (all three join b0's
    sentence to the previous one); Break.cost's [B(1) starts no gold sentence] becomes ROOT's
    [b0 starts no gold sentence] (ROOT ends s0's sentence before b0). A gold sentence start
    is a word no gold arc crosses (system_base.gold_sentence_starts_at, as keep_sentences)."""
    cdef SpacyCounts c
    cdef int s0 = st.S(0)
    cdef int s1 = st.S(1)
    cdef int b0 = st.B(0)
    cdef weight_t push_cost, pop_cost, reduce_cost
    cdef bint b0_starts_gold_sentence
    cdef int m
    for m in range(N_MOVES):
        cost[m] = 0
    spacy_counts(st, g, &c)
    # O(b0): asked only where a move can pass or make a boundary (s0 and b0 exist)
    b0_starts_gold_sentence = s0 >= 0 and b0 >= 0 and gold_sentence_starts_at(g, b0)
    push_cost = c.b0_head_in_stack + c.b0_kids_in_stack + b0_starts_gold_sentence
    pop_cost = c.s0_head_in_buffer + c.s0_kids_in_buffer
    if valid[SHIFT]:
        cost[SHIFT] = push_cost
    if valid[RIGHT]:
        cost[RIGHT] = push_cost
        if s0 >= 0 and g.heads[b0] == s0:
            cost[RIGHT] -= 1
        elif c.b0_head_in_buffer and not st.is_unshiftable(b0):
            cost[RIGHT] += 1
    if valid[LEFT]:
        cost[LEFT] = pop_cost + b0_starts_gold_sentence
        if st.has_head(s0):
            cost[LEFT] += s1 >= 0 and g.heads[s0] == s1     # clobbering a correct arc
        else:
            cost[LEFT] += c.s0_head_in_stack + c.s0_kids_in_stack
        if g.heads[s0] == b0:
            cost[LEFT] -= 1
    if valid[REDUCE] or valid[ROOT]:
        if b0 >= 0 and st.is_sent_start(b0):
            reduce_cost = 0         # a preset boundary: spaCy's state after its BREAK
        else:
            reduce_cost = pop_cost
            if not st.has_head(s0):   # put back in the buffer: the arcs to S are saved
                reduce_cost -= c.s0_head_in_stack + c.s0_kids_in_stack
        if valid[REDUCE]:
            cost[REDUCE] = reduce_cost
        if valid[ROOT]:
            cost[ROOT] = reduce_cost
            if b0 >= 0 and not st.is_sent_start(b0) and not b0_starts_gold_sentence:
                cost[ROOT] += 1     # a sentence ends inside a gold sentence


# ---- the exact costs (arc_eager_nm_oracle.pyx) ------------------------------------------
cdef inline int item_at(const StateC* st, int i) noexcept nogil:
    """Open word i of the state in word order: the stack from its bottom, then the buffer."""
    cdef int depth = st.stack_depth()
    return st.S(depth - 1 - i) if i < depth else st.B(i - depth)


cdef attr_t right_arc_label(const StateC* st, int head, int child) noexcept nogil:
    """The label of the arc head -> child (head < child) in the state; 0 if there is none.
    A RIGHT arc of a stack word is its head's last right arc (nothing attaches to the head
    while the word is above it), so the search from the back ends at once."""
    cdef const vector[ArcC]* arcs
    cdef int i
    it = st._right_arcs.const_find(head)
    if it == st._right_arcs.const_end():
        return 0
    arcs = &deref(it).second
    for i in range(<int>arcs.size() - 1, -1, -1):
        if arcs.at(i).child == child:
            return arcs.at(i).label
    return 0


cdef inline bint has_gold_label(const StateC* st, const GoldC* g, int w) noexcept nogil:
    """The stack word w's arc (from RIGHT) carries w's gold label, or that is unknown."""
    return g.labels[w] == 0 or right_arc_label(st, st.H(w), w) == g.labels[w]


cdef void block_bounds(NMOracle* o, const StateC* st, int pivot, int* lo,
                       int* hi) noexcept nogil:
    """The open words (numbers lo..hi, item_at) nm_block_best scores for open word number
    pivot: its gold block cut at preset sentence starts (no arc crosses one), or, when a
    word of its preset sentence cannot start a sentence, that whole sentence (a tree may
    then have to join the one before it across a gold cut: arc_eager_nm_oracle.pyx).
    Whether the Doc has such words at all is read once per gold (o.cannot_start_words)."""
    cdef int n_items = st.stack_depth() + st.buffer_length()
    cdef int p = item_at(st, pivot)
    cdef int i
    if o.cannot_start_words < 0:
        o.cannot_start_words = 0
        for i in range(st.length):
            if st.cannot_sent_start(i):
                o.cannot_start_words = 1
                break
    lo[0] = pivot
    hi[0] = pivot
    if not o.cannot_start_words:      # the gold block, cut at preset starts
        while (lo[0] > 0 and item_at(st, lo[0] - 1) >= o.block_start[p]
               and not st.is_sent_start(item_at(st, lo[0]))):
            lo[0] -= 1
        while (hi[0] + 1 < n_items and item_at(st, hi[0] + 1) <= o.block_end[p]
               and not st.is_sent_start(item_at(st, hi[0] + 1))):
            hi[0] += 1
        return
    while lo[0] > 0 and not st.is_sent_start(item_at(st, lo[0])):
        lo[0] -= 1
    while hi[0] + 1 < n_items and not st.is_sent_start(item_at(st, hi[0] + 1)):
        hi[0] += 1
    for i in range(lo[0], hi[0] + 1):
        if st.cannot_sent_start(item_at(st, i)):
            return                      # the whole preset sentence
    while lo[0] < pivot and item_at(st, lo[0]) < o.block_start[p]:
        lo[0] += 1
    while hi[0] > pivot and item_at(st, hi[0]) > o.block_end[p]:
        hi[0] -= 1


cdef int block_best(NMOracle* o, const StateC* st, const GoldC* g, int lo, int hi, int skip,
                    int headed) noexcept nogil:
    """nm_block_best over open words lo..hi (block_bounds), without open word `skip` (a move
    pops it; -1: none) and with open word `headed` HEADED (RIGHT pushes it; -1: none). The
    shared chart is the last item's gold block's: the run of untouched words ends there."""
    cdef int depth = st.stack_depth()
    cdef int size = 0
    cdef int last = hi - 1 if hi == skip else hi
    cdef int i, w
    if last >= lo:
        nm_shared_chart(o, item_at(st, last))
    for i in range(lo, hi + 1):
        if i == skip:
            continue
        w = item_at(st, i)
        o.word[size] = w
        o.arc_ok[size] = 1
        o.kind[size] = NM_FREE
        if i == headed:
            o.kind[size] = NM_HEADED        # its label is the class's: the base's label cost
        elif i < depth and st.has_head(w):
            o.kind[size] = NM_HEADED
            o.arc_ok[size] = has_gold_label(st, g, w)
        o.no_split[size] = st.cannot_sent_start(w)
        size += 1
    return nm_block_best(o, size)


cdef void nm_exact_costs(const StateC* st, const GoldC* g, const int* valid,
                         weight_t* cost) noexcept nogil:
    """The exact costs (module docstring; docs/systems/arc_eager_nm.md, "The exact
    oracle"), unlabelled: the base adds the label term of LEFT and RIGHT, exact here too
    (a gold RIGHT arc with a wrong label loses exactly that arc: the best forest after RIGHT
    keeps b0's arc to s0 when it is gold). REDUCE of a HEADED s0 makes final the arc (and
    label) RIGHT gave it. A move changes the block of s0 (a pop) or of b0 (RIGHT) only.
    Over the budget of chart cells (o.over) every move costs 0: the guard (sound, below)."""
    cdef NMOracle* o = <NMOracle*>g.extra
    cdef int m
    o.cells = 0
    o.over = 0
    nm_exact_costs_within(o, st, g, valid, cost)
    if o.over:
        # the guard: 0 is a lower bound of every cost, and the cost of every optimal move
        # (the base's label term on LEFT and RIGHT stays: it is part of the exact cost and 0
        # on an optimal move)
        for m in range(N_MOVES):
            cost[m] = 0


cdef void nm_exact_costs_within(NMOracle* o, const StateC* st, const GoldC* g,
                                const int* valid, weight_t* cost) noexcept nogil:
    """nm_exact_costs within the budget (o.over once a call would exceed it)."""
    cdef int depth = st.stack_depth()
    cdef int top = depth - 1
    cdef int s0, b0, m, drop, lo, hi, lo_b, hi_b
    cdef int base_s = 0
    cdef bint pops
    for m in range(N_MOVES):
        cost[m] = 0
    if depth == 0:
        return                                  # SHIFT only: free
    s0 = st.S(0)
    b0 = st.B(0) if st.buffer_length() > 0 else -1
    pops = valid[LEFT] or valid[ROOT] or (valid[REDUCE] and st.has_head(s0))
    if pops:
        block_bounds(o, st, top, &lo, &hi)
        base_s = block_best(o, st, g, lo, hi, -1, -1)
        drop = base_s - block_best(o, st, g, lo, hi, top, -1)
        if valid[LEFT]:
            cost[LEFT] = drop - (g.heads[s0] == b0)
        if valid[REDUCE] and st.has_head(s0):
            cost[REDUCE] = drop - (g.heads[s0] == st.S(1) and has_gold_label(st, g, s0))
        if valid[ROOT]:
            cost[ROOT] = drop - (g.heads[s0] == s0)
    if valid[RIGHT]:
        block_bounds(o, st, top + 1, &lo_b, &hi_b)
        if not (pops and lo_b == lo and hi_b == hi):
            base_s = block_best(o, st, g, lo_b, hi_b, -1, -1)
        cost[RIGHT] = base_s - block_best(o, st, g, lo_b, hi_b, -1, top + 1)
    # SHIFT and the unshifting REDUCE: free (0)


cdef class ArcEagerNM(DynOracleSystem):
    """Non-monotonic arc-eager: SHIFT, RIGHT, LEFT (repairing), REDUCE (unshifting), ROOT
    (module docstring)."""
    name = "arc_eager_nm"
    projective = True
    oracles = (ORACLE_DYNAMIC, ORACLE_SPACY)
    dynamic_oracles = (ORACLE_DYNAMIC, ORACLE_SPACY)
    nonprojective_oracles = (ORACLE_DYNAMIC,)     # exact on any gold: no lifting
    # spaCy's approximate costs stay the default: under exact costs SHIFT and the unshift
    # are always optimal, so the default target lets the model defer every decision
    # (5-epoch screen, Hungarian: dev LAS 32.69 against 21.05), and with the committing
    # target (system_options.defer = "last") the exact costs only tie them (32.91 +- 0.76
    # against 33.15 +- 1.68, 3 seeds), and with BREAK's terms on ROOT they train better
    # still (35.10 +- 0.97, sentence F1 92.58; docs/systems/arc_eager_nm.md, "Training")
    default_oracle = ORACLE_SPACY
    # as spaCy's parser and arc_eager: explore from the first update, follow the model
    default_schedule = (0, 1.0)
    # budget: the most chart cells the exact oracle may compute in one state before the
    # guard gives every move cost 0 (a count, so training stays reproducible; ~1 ms at 200
    # words; of the converged Bosque model's training walks on its long Docs 2.6% of the
    # states before the segments of arc_eager_nm_oracle.pyx, none since (max 19,171 cells;
    # docs/systems/arc_eager_nm.md, "Long sentences"); 0 = no guard
    options = {"budget": 20000}
    cdef bint use_exact
    cdef readonly long budget       # the guard's limit on one state's chart cells (0: none)
    cdef bint _last_guard           # the last move_costs ran over budget
    cdef long _states               # states whose costs came from the exact oracle
    cdef long _guards               # ... of them over budget
    cdef OracleCells _cells         # chart cells the exact oracle computed

    def __init__(self, strings, labels_by_action=None, min_freq=None, *, projectivize=None,
                 oracle=None, **options):
        DynOracleSystem.__init__(self, strings, labels_by_action, min_freq,
                                 projectivize=projectivize, oracle=oracle, **options)
        self.budget = int(self.cfg["budget"])
        if self.budget < 0:
            raise ValueError(f"arc_eager_nm: budget must be >= 0 (0 = no guard), got {self.budget}")

    def set_oracle(self, oracle):
        DynOracleSystem.set_oracle(self, oracle)
        self.use_exact = oracle == ORACLE_DYNAMIC
        self.needs_oracle_data = self.use_exact    # no fallback: costs from attach_oracle's data

    def attach_oracle(self, DynGold gold):
        """The exact oracle's per-Doc tables (gold blocks, chart), once per gold."""
        if not self.use_exact or gold.c.extra != NULL:
            return
        table = NMOracleTable(gold.heads)
        (<NMOracleTable>table).c.budget = self.budget
        gold.attach(table, <void*>(<NMOracleTable>table).c)

    cdef int declare_moves(self) except -1:
        DynOracleSystem.declare_moves(self)
        self.declare_move(SHIFT, NMShift.is_valid, NMShift.transition)
        self.declare_move(RIGHT, NMRightArc.is_valid, NMRightArc.transition, AT_S0, AT_B0)
        self.declare_move(LEFT, NMLeftArc.is_valid, NMLeftArc.transition, AT_B0, AT_S0)
        self.declare_move(REDUCE, NMReduce.is_valid, NMReduce.transition)

    cdef void move_costs(self, const StateC* st, const GoldC* g, const int* valid,
                         weight_t* cost) noexcept nogil:
        cdef NMOracle* o
        self._last_guard = 0
        self._cells.last = 0
        if not self.use_exact:
            spacy_move_costs(st, g, valid, cost)
        elif self.lacks_oracle_data(g):
            for m in range(N_MOVES):
                cost[m] = 0
        else:
            nm_exact_costs(st, g, valid, cost)
            o = <NMOracle*>g.extra
            self._last_guard = o.over
            self._states += 1
            self._guards += o.over
            record_cells(&self._cells, o.cells)

    cdef bint last_costs_bounded(self) noexcept:
        """The last move_costs ran over budget: the guard's zero costs, not exact ones."""
        return self.use_exact and self._last_guard

    def cut_path_free_class(self):
        """SHIFT (class 0) under the exact costs: the exact oracle never charges it
        (move_costs leaves it 0, class_costs' shift of the cheapest to 0 keeps it 0, no
        label), so wherever it is valid it is the first-zero-cost cut path's move, and the
        base takes it without computing costs. That path shifts a whole Doc first: on
        Bosque's long Docs those states held 43% of the chart cells the exact oracle
        computed per update (docs/systems/arc_eager_nm.md, "Long sentences"). The same
        path (tests/test_arc_eager_nm.py)."""
        if self.use_exact and self.n_moves > 0 and self.c[0].move == SHIFT:
            return 0
        return -1

    def oracle_counts(self):
        """States whose costs came from the exact oracle, those of them over budget
        (guard), and the chart cells computed (all states, and the most in one)."""
        out = {"states": self._states, "guard": self._guards, "missing_oracle": self.missing_oracle}
        out.update(cell_counts(self._cells))
        return out

    @property
    def last_oracle_path(self):
        """"guard" if the last costs were the guard's, else "exact" (benchmarks report it)."""
        return "guard" if self._last_guard else "exact"

    @property
    def last_oracle_cells(self):
        """Chart cells the last move_costs computed: the oracle's work in that state, a
        count (it does not depend on the machine)."""
        return self._cells.last

    cdef int static_move(self, const StateC* st, const GoldC* g) noexcept nogil:
        """The canonical optimal move that system_options target="static" trains on
        (docs/conventions.md, "Training target among the optimal moves"): the first of the
        cheapest valid moves in arc_eager's order, LEFT, RIGHT making a gold arc, popping
        REDUCE, ROOT, SHIFT, then the moves that are free only because a repair can undo
        them: RIGHT making another arc, the unshifting REDUCE. With the exact oracle SHIFT
        and the unshift always cost 0, so the plain target spreads over them whatever the
        gold (docs/systems/arc_eager_nm.md, "Training")."""
        cdef int valid[N_MOVES]
        cdef weight_t cost[N_MOVES]
        cdef int order[7]
        cdef int i, m
        cdef weight_t best = INVALID_COST
        cdef bint gold_right = st.stack_depth() > 0 and st.buffer_length() > 0 \
            and g.heads[st.B(0)] == st.S(0)
        cdef bint unshifts = st.stack_depth() > 0 and not st.has_head(st.S(0))
        self.move_validity(st, valid)
        self.move_costs(st, g, valid, cost)
        for m in range(N_MOVES):
            if valid[m] and cost[m] < best:
                best = cost[m]
        order[:] = [LEFT, RIGHT if gold_right else -1, -1 if unshifts else REDUCE, ROOT,
                    SHIFT, RIGHT, REDUCE]
        for i in range(7):
            m = order[i]
            if m >= 0 and valid[m] and cost[m] == best:
                return m
        return -1

    def _sim_state_extra(self, StateClass state):
        """The unshiftable buffer words: part of the state's identity for memoised search
        (SHIFT's validity reads them)."""
        return tuple(w for w in self._sim_buffer(state) if state.c.is_unshiftable(w))
