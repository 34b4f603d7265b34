# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""The swap system (Nivre 2009: arc-standard + SWAP) with the static and non-deterministic
oracles of Björkelund & Nivre 2015 and a cost for every state. Spec: docs/specs/swap.md.

On spaCy's StateC (docs/specs/spacy_integration.md §1.4): SWAP pops s0 and s1, pushes s0 back and
puts s1 on `_rebuffer`, so s1 becomes B(0) and `push()` takes it first (docs/specs/swap.md §1.3).
The virtual root is implicit at the bottom of the stack: ROOT is the spec's RA with s1 = 0, valid
when s0 is the only stack word. A root popped by ROOT points to itself (docs/conventions.md).

Termination (docs/specs/swap.md §1.2): SWAP needs s1 < s0 (linear order), so it only ever inverts
a non-inverted pair of the processing sequence; each pair swaps at most once and every
sequence is finite (at most n(n-1)/2 swaps). No dead ends: with two stack words RIGHT is
valid, with an empty stack SHIFT is, and with one stack word SHIFT or ROOT is (shown in
docs/systems/swap.md), so spaCy's `force_final` (which would leave `_rebuffer` and loop)
is never needed.

Sentences: the stack only ever holds words of one preset sentence (SHIFT of b0 onto a
non-empty stack needs no preset sentence start between s0 and b0), so no arc crosses a
preset boundary; ROOT needs the buffer to be a suffix of the doc (all words before it
processed) so that each root's words form one contiguous sentence, and may not end a
sentence before a word that cannot start one.

Oracles (`oracle=`): "static-eager", "static-lazy" (= "static"), "static-minimal"
(docs/specs/swap.md §4), "nd-sw", "nd-all" (docs/specs/swap.md §6; 0 for the actions of the set,
1 otherwise), "dynamic" (docs/specs/swap.md §10: a cost for every state, see move_costs).
"""
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, free
from libcpp.unordered_map cimport unordered_map
from cython.operator cimport dereference as deref

from spacy.typedefs cimport attr_t, weight_t
from spacy.pipeline._parser_internals._state cimport StateC

from .system_base cimport (
    DynOracleSystem, DynGold, GoldC, SHIFT, LEFT, RIGHT, ROOT, SWAP, N_MOVES, NO_ARC, AT_S0,
    DIRECTION_NOT_FIXED, NONPROJECTIVE_MOVE, pop_as_root,
)
from spacy.pipeline._parser_internals.stateclass cimport StateClass
from .swap_oracle cimport (
    Cfg, SwapGoldC, SwapOracleData, SW_INF, cfg_alloc, cfg_free, cfg_copy, cfg_set_missing,
    cfg_key, cfg_do, cfg_valid, static_eager, static_lazy, nd_all, nd_sw, eager_completes,
    rollout, exact_costs, same_segment, proj_order, process_order, RolloutTail,
    untouched_tail, rollout_tail_current, rollout_tail_view,
)

cdef enum:
    MODE_DYNAMIC = 0
    MODE_EAGER = 1
    MODE_LAZY = 2
    MODE_MINIMAL = 3
    MODE_ND_SW = 4
    MODE_ND_ALL = 5

# the values of the system option static_swaps (SwapSystem.options)
STATIC_SWAPS = ("eager", "lazy")

MODES = {"dynamic": MODE_DYNAMIC, "static": MODE_LAZY, "static-eager": MODE_EAGER,
         "static-lazy": MODE_LAZY, "static-minimal": MODE_MINIMAL, "nd-sw": MODE_ND_SW,
         "nd-all": MODE_ND_ALL}


cdef inline bint buffer_is_suffix(const StateC* st) noexcept nogil:
    """The buffer holds exactly the last buffer_length() words of the doc."""
    cdef int r = st._rebuffer.size()
    cdef int i, lo
    if r == 0:
        return True
    lo = st._rebuffer[0]
    for i in range(1, r):
        if st._rebuffer[i] < lo:
            lo = st._rebuffer[i]
    return lo == st._b_i - r


cdef class Shift:
    """Push b0 (the front of the buffer: a swapped-back word first).

    Validity: the buffer is not empty, and the stack is empty or b0 is in the preset
        sentence of s0 (no preset sentence start in (min(s0, b0), max(s0, b0)]).
    Cost: from Swap.move_costs (all moves at once).
    Action: push b0 (StateC.push takes from _rebuffer first).
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        if st.buffer_length() == 0:
            return 0
        return st.stack_depth() == 0 or same_segment(st._sent, st.S(0), st.B(0))

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.push()


cdef class RootArc:
    """Make s0 a sentence root: the spec's RA with s1 = the virtual root.

    Validity: s0 is the only stack word; the buffer is empty, or it is a suffix of the doc
        whose first word may start a sentence.
    Cost: from Swap.move_costs.
    Action: s0 points to itself, pop; the first buffer word starts the next sentence.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        if st.stack_depth() != 1:
            return 0
        if st.buffer_length() == 0:
            return 1
        if not buffer_is_suffix(st):
            return 0
        return not st.cannot_sent_start(st._b_i - <int>st._rebuffer.size())

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        pop_as_root(st)


cdef class Swap:
    """Move s1 back to the front of the buffer (docs/specs/swap.md §1.1 SW).

    Validity: at least two words on the stack and s1 < s0 (linear order: termination).
    Cost: from Swap.move_costs.
    Action: s0 stays on top, s1 becomes b0 (StateC._rebuffer).
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return st.stack_depth() >= 2 and st.S(1) < st.S(0)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        cdef int s0 = st.S(0)
        cdef int s1 = st.S(1)
        st.pop()
        st.pop()
        st._stack.push_back(s0)
        st._rebuffer.push_back(s1)


cdef void cfg_from_state(Cfg* c, const StateC* st, const SwapGoldC* o) noexcept nogil:
    """The oracle configuration of a state (allocates c; cfg_free it)."""
    cdef int i, nb
    cfg_alloc(c, st.length)
    c.ns = st._stack.size()
    for i in range(c.ns):
        c.stk[i] = st._stack[i]
    nb = st.buffer_length()
    c.nb = nb
    for i in range(nb):
        c.buf[nb - 1 - i] = st.B(i)
    c.thead = o.head
    c.trank = o.rank
    c.ghead = o.head
    c.known = o.known
    c.sent = st._sent
    c.loss = 0
    cfg_set_missing(c)


cdef bint in_gold_region(const StateC* st, const Cfg* c, const SwapGoldC* o,
                         int tail) noexcept nogil:
    """docs/specs/swap.md §7 (a)-(c): only gold arcs built, no live word whose gold head is gone,
    and every inverted pair of the processing sequence in projective order; (d) is checked by
    the caller with eager_completes. `tail`: the processing sequence ends in this many
    words that are the Doc's last ones in order (untouched_tail; 0 = not known): they
    follow every other live word, so no pair with one of them is inverted."""
    cdef int x, h, i, j, m, a, b
    cdef int* p
    for x in range(c.n):
        h = st._heads[x]
        if h != -1 and h != (o.head[x] if o.head[x] >= 0 else x):
            return False
        if c.live[x] and o.head[x] >= 0 and not c.live[o.head[x]]:
            return False
    m = c.ns + c.nb - tail
    p = <int*>malloc((m + 1) * sizeof(int))
    for i in range(c.ns):
        p[i] = c.stk[i]
    for i in range(c.nb - tail):
        p[c.ns + i] = c.buf[c.nb - 1 - i]
    for i in range(m):
        a = p[i]
        for j in range(i + 1, m):
            b = p[j]
            if a > b and o.rank[a] > o.rank[b]:
                free(p)
                return False
    free(p)
    return True


cdef inline bint has_valid(int moves, const int* valid) noexcept nogil:
    cdef int m
    for m in range(5):
        if moves & (1 << m) and valid[m]:
            return True
    return False


cdef class SwapSystem(DynOracleSystem):
    """Swap: SHIFT, LEFT, RIGHT, ROOT, SWAP. Derives any (non-projective) forest; trains on
    the gold trees as they are (no lifting)."""
    name = "swap"
    projective = False
    # "static" is accepted too, as an alias of "static-lazy" (not listed: the UD run
    # matrix enumerates `oracles`)
    oracles = ("dynamic", "static-eager", "static-lazy", "static-minimal", "nd-sw", "nd-all")
    dynamic_oracles = ("dynamic",)
    nonprojective_oracles = tuple(MODES)
    bruteforce_arc_monotone = True   # heads never change; moves depend on stack/buffer only
    # Exploration at p = 0.9 from epoch 1 trains the dynamic cost 7-8 LAS below static-lazy
    # (Latin-Perseus, Hungarian-Szeged); after 2 oracle epochs at p = 0.5 it is within about
    # 1 LAS of it (Hungarian, 3 seeds: -1.0; Latin, seed 0: +0.9; docs/systems/swap.md,
    # "Training on UD").
    default_schedule = (2, 0.5)
    # the loss's pull over the zero-cost classes at temperature 2 (flatter than spaCy's 1):
    # chosen at convergence on Hungarian-Szeged (+1.48 dev LAS, 3 of 3 seeds) and Latin-Perseus
    # (level); over 3 seeds on all four treebanks +0.48 dev (8 of 12 pairs), Latin the one
    # treebank lower (-0.26, inside its seed spread) (docs/systems/swap.md, "The loss's
    # temperature at convergence")
    common_option_defaults = {"target_temperature": 2.0}
    # exact_live: exact search (docs/specs/swap.md §10.2 C1) when at most this many words are
    # live; exact_budget: its state budget (falls back to the heuristic when exceeded).
    # minimal_budget: state budget of the MINIMAL search per document (docs/specs/swap.md §4.1;
    # LAZY when exceeded).
    # region_nd_all: on the gold region the zero-cost set is exactly ND-ALL
    # (docs/specs/swap.md §10.2 C4, BN15's choice: no swap against the projective order); False:
    # exact search and rollout proofs there too (zero sets closer to the exact optimum, more
    # swaps).
    # tail_memo: the dynamic cost leaves the untouched end of the Doc behind the first
    # clean cut point (no gold arc across it) to a per-Doc memo of the rollouts' loss there,
    # and computes T' and its orders before that point only: the same costs in O(the
    # touched part) instead of O(Doc) per rollout (docs/systems/swap.md, "Long sentences
    # (issue 23)"); False: the plain computation (tests compare the two).
    # static_swaps: the static oracle whose move static_move gives under the dynamic and ND
    # oracles (target="static" and cut_path="static" narrow the zero-cost set to it): BN15's
    # EAGER ("eager", the rule of Alg. 1) or LAZY ("lazy"). EAGER swaps wherever s1 and s0 are
    # inverted in the projective order, LAZY only once s0's maximal projective component is
    # built: 2-5x fewer swaps on the UD training sets; with target="static", EAGER's SWAP is
    # the only target in 0.8% (Hungarian) to 3.5% (Latin) of the training states where LAZY
    # does not swap (docs/systems/swap.md, "Spurious swaps, measured"). The static oracles
    # keep their own.
    options = {"exact_live": 5, "exact_budget": 20000, "minimal_budget": 200000,
               "region_nd_all": True, "tail_memo": True, "static_swaps": "eager"}

    cdef int mode
    cdef int exact_live
    cdef int exact_budget
    cdef bint region_nd_all
    cdef bint tail_memo
    cdef bint static_swaps_lazy
    cdef readonly long n_rollouts        # rollouts of the dynamic cost
    cdef readonly long n_memo_empty      # tail memo entries they took: empty stack
    cdef readonly long n_memo_stuck      # ... and stuck words below

    def __init__(self, *args, **kwargs):
        DynOracleSystem.__init__(self, *args, **kwargs)
        self.exact_live = self.cfg.get("exact_live", 5)
        self.exact_budget = self.cfg.get("exact_budget", 20000)
        self.region_nd_all = self.cfg.get("region_nd_all", True)
        self.tail_memo = self.cfg.get("tail_memo", True)
        if self.cfg["static_swaps"] not in STATIC_SWAPS:
            raise ValueError(f"swap option static_swaps={self.cfg['static_swaps']!r} is not one "
                             f"of {list(STATIC_SWAPS)}")
        self.static_swaps_lazy = self.cfg["static_swaps"] == "lazy"

    def oracle_counts(self):
        """Rollouts of the dynamic cost, and the tail memo entries they took."""
        return {"rollouts": self.n_rollouts, "memo_empty": self.n_memo_empty,
                "memo_stuck": self.n_memo_stuck}

    def tail_memo_check(self, StateClass state, DynGold gold):
        """For tests: per valid move m and order class (0: the oracle tree's projective
        order, 1: rank3), the loss of the rollout from m(state) following the oracle tree,
        without the tail memo and with it, the memo entries taken (empty, stuck) and the
        loss they added: [(move code, class, plain, memo, empty, stuck, memo_loss), ...]."""
        cdef SwapGoldC* o = <SwapGoldC*>gold.c.extra
        cdef const StateC* st = state.c
        cdef Cfg c, t
        cdef RolloutTail tail
        cdef int valid[N_MOVES]
        cdef int m, cls, u0, plain, memo
        if o == NULL:
            raise ValueError("no oracle data on this gold (moves.attach_oracle)")
        out = []
        self.move_validity(st, valid)
        cfg_from_state(&c, st, o)
        cfg_alloc(&t, c.n)
        u0 = untouched_tail(&c)
        rollout_tail_current(o, c.sent)
        for m in range(5):
            if not valid[m]:
                continue
            for cls in range(2):
                cfg_copy(&t, &c)
                t.trank = o.rank if cls == 0 else o.rank3
                cfg_do(&t, m)
                plain = rollout(&t, NULL)
                cfg_copy(&t, &c)
                t.trank = o.rank if cls == 0 else o.rank3
                cfg_do(&t, m)
                rollout_tail_view(o, cls, u0 if u0 < t.nb else t.nb, &tail)
                memo = rollout(&t, &tail)
                out.append((m, cls, plain, memo, tail.hits_empty, tail.hits_stuck,
                            tail.memo_loss))
        cfg_free(&t)
        cfg_free(&c)
        return out

    def set_oracle(self, oracle):
        if oracle == "static":
            oracle = "static-lazy"
        DynOracleSystem.set_oracle(self, oracle)
        self.mode = MODES[oracle]
        # static oracles give one move per state through static_move
        self.use_static = self.mode in (MODE_EAGER, MODE_LAZY, MODE_MINIMAL)

    def default_projectivize(self, oracle):
        return False

    cdef int declare_moves(self) except -1:
        DynOracleSystem.declare_moves(self)
        # its own SHIFT (within the preset sentence of s0) and ROOT (the buffer a suffix)
        self.declare_move(SHIFT, Shift.is_valid, Shift.transition)
        # LEFT and RIGHT: docs/specs/swap.md §1.1 LA and RA (with s1 a word). SWAP puts s1
        # back in the buffer, so s1 may follow s0 in word order: neither fixes its arc's
        # direction (no label_sets="per_direction")
        self.declare_stack_arcs(DIRECTION_NOT_FIXED)
        self.declare_move(ROOT, RootArc.is_valid, RootArc.transition, AT_S0, AT_S0)
        # SWAP is how swap builds non-projective arcs (docs/specs/swap.md §1.1): the move
        # the parser's nonprojective_penalty lowers at parse time
        self.declare_move(SWAP, Swap.is_valid, Swap.transition, NO_ARC, NO_ARC,
                          DIRECTION_NOT_FIXED, NONPROJECTIVE_MOVE)

    cdef int static_move(self, const StateC* st, const GoldC* gold) noexcept nogil:
        """EAGER / LAZY (docs/specs/swap.md §4, BN15 Alg. 1) as rules; MINIMAL
        (docs/specs/swap.md §4.1) by lookup of the state on its precomputed sequence, EAGER off
        it (docs/specs/swap.md §12.5). Under the dynamic and ND oracles: the static_swaps
        option's rule, EAGER or LAZY."""
        cdef const SwapGoldC* o = <const SwapGoldC*>gold.extra
        cdef Cfg c
        cdef int valid[N_MOVES]
        cdef int m = -1
        cdef uint64_t key
        if o == NULL:
            return -1
        cfg_from_state(&c, st, o)
        if self.mode == MODE_LAZY or (self.static_swaps_lazy and not self.use_static):
            m = static_lazy(&c, o.mpc)
        elif self.mode == MODE_MINIMAL:
            it = o.minimal.find(cfg_key(&c))
            if it != o.minimal.end():
                m = deref(it).second
            else:
                m = static_eager(&c)
        else:
            m = static_eager(&c)
        cfg_free(&c)
        self.move_validity(st, valid)
        if m >= 0 and valid[m]:
            return m
        # off the gold path (or gold that conflicts with preset sentence starts)
        cdef int order[5]
        order[0] = RIGHT
        order[1] = ROOT
        order[2] = SHIFT
        order[3] = LEFT
        order[4] = SWAP
        for i in range(5):
            if valid[order[i]]:
                return order[i]
        return -1

    cdef void move_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                         weight_t* cost) noexcept nogil:
        cdef SwapGoldC* o = <SwapGoldC*>gold.extra
        cdef Cfg c
        cdef int s, m
        for m in range(N_MOVES):
            cost[m] = 0
        if o == NULL:
            return
        cfg_from_state(&c, st, o)
        if self.mode == MODE_ND_ALL or self.mode == MODE_ND_SW:
            # docs/specs/swap.md §6.2 / §10.2 C3: 0 in the oracle's set, 1 outside; where the set
            # has no valid move (gold that conflicts with preset boundaries or the sentence rule,
            # e.g. unknown heads), the dynamic cost instead
            s = nd_all(&c) if self.mode == MODE_ND_ALL else nd_sw(&c)
            if has_valid(s, valid):
                for m in range(5):
                    cost[m] = 0 if s & (1 << m) else 1
            else:
                self.dynamic_costs(st, &c, o, valid, cost)
        elif self.mode == MODE_DYNAMIC:
            self.dynamic_costs(st, &c, o, valid, cost)
        cfg_free(&c)

    cdef void dynamic_costs(self, const StateC* st, Cfg* c, SwapGoldC* o, const int* valid,
                            weight_t* cost) noexcept nogil:
        """A cost for every state (docs/specs/swap.md §10, design C4 extended):

        * on the gold region (docs/specs/swap.md §7 (a)-(d)), with region_nd_all (the default): 0
          for the moves of ND-ALL, 1 for the others (C4, BN15's choice: swaps only towards
          the projective order); then following zero-cost moves stays in the region;
        * at most `exact_live` live words: exact search (C1), exact costs;
        * otherwise an upper bound ub[m] = [m attaches wrongly] + the loss of the best
          rollout from m(c) (docs/specs/swap.md §10.2 ROLLOUT) following (T, projective order) or
          (T', projective order of T'), T' the repaired tree of live words;
        * (region_nd_all=False) in the gold region every ND-ALL move keeps T reachable,
          so it gets ub = 0 (never zero for a move that loses T: a zero comes from a
          derivation of T);
        * only if no move gets ub = 0 that way, a third rollout per move, following (T',
          the projective order of T' closest to the current processing sequence), may
          lower ub. A zero from a fixed-order rollout is found again in the next state
          (the rollout's next move reproduces it), so following zero-cost moves from a
          state where T is provably reachable never loses T;
        * with region_nd_all, a SWAP tied with another optimal move is admitted only
          towards the projective order of T' (the exact cost makes swaps free wherever
          the tree can still be built in another order, which teaches needless swaps);
        * cost = ub - min ub over the valid moves (docs/specs/swap.md §12.12).
        O(n^2) per state: the region test, RELINEARIZE and 15 rollouts of O(n + #SW); with
        tail_memo, n is the part of the Doc before the untouched end's first clean cut point
        (plus O(Doc) copies)."""
        cdef int ub[5]
        cdef int ub3[5]
        cdef int raw[5]
        cdef int m, k, x, h, lo, i, r, u0, cut, n_live
        cdef bint region
        cdef Cfg t, tp
        cdef int* pos
        cdef RolloutTail tail
        for m in range(5):
            ub[m] = SW_INF
        u0 = untouched_tail(c) if self.tail_memo else 0
        region = in_gold_region(st, c, o, u0) and eager_completes(c)
        if self.region_nd_all and region:
            # docs/specs/swap.md §10.2 C4: BN15's ND-ALL on the gold region (projective-order
            # swaps only)
            k = nd_all(c)
            if has_valid(k, valid):
                for m in range(5):
                    cost[m] = 0 if k & (1 << m) else 1
                return
        if c.ns + c.nb <= self.exact_live and exact_costs(c, raw, self.exact_budget):
            for m in range(5):
                ub[m] = raw[m]
        else:
            # the words from `cut` on are untouched and no gold arc crosses `cut`: there T'
            # is T, and its orders are T's (rank, rank3) shifted to follow the words before
            # `cut` (docs/systems/swap.md, "Long sentences (issue 23)")
            cut = o.next_clean[c.n - u0] if self.tail_memo else c.n
            if self.tail_memo:
                rollout_tail_current(o, c.sent)
            # T': nearest live gold ancestor of every live word (0 = virtual root is live)
            for x in range(cut):
                o.thead2[x] = -1
                if c.live[x]:
                    h = o.head[x]
                    while h >= 0 and not c.live[h]:
                        h = o.head[h]
                    o.thead2[x] = h
            proj_order(cut, o.thead2, c.live, o.trank2, o.work)
            pos = <int*>malloc((c.n + 1) * sizeof(int))
            for i in range(c.ns):
                pos[c.stk[i]] = i
            for i in range(c.nb):
                pos[c.buf[c.nb - 1 - i]] = c.ns + i
            process_order(cut, o.thead2, c.live, pos, o.trank3, o.work)
            free(pos)
            if cut < c.n:
                n_live = 0
                for x in range(cut):
                    n_live += c.live[x]
                for x in range(cut, c.n):
                    o.thead2[x] = o.head[x]
                    o.trank2[x] = o.rank[x] - cut + n_live
                    o.trank3[x] = o.rank3[x] - cut + n_live
            # the rollouts start from c (T: its `missing` is T's) or from tp (T')
            cfg_alloc(&t, c.n)
            cfg_alloc(&tp, c.n)
            cfg_copy(&tp, c)
            tp.thead = o.thead2
            cfg_set_missing(&tp)
            if self.tail_memo:
                # the memo's prefix counts of c.sent (rollout_tail_current): O(1) SHIFT
                # validity in the rollouts
                tp.start_count = o.start_count
            for m in range(5):
                ub3[m] = SW_INF
                if not valid[m]:
                    continue
                for k in range(3):
                    cfg_copy(&t, c if k == 0 else &tp)
                    t.start_count = tp.start_count
                    t.trank = o.rank if k == 0 else (o.trank2 if k == 1 else o.trank3)
                    t.loss = 0
                    cfg_do(&t, m)
                    if self.tail_memo:
                        rollout_tail_view(o, 1 if k == 2 else 0, u0 if u0 < t.nb else t.nb,
                                          &tail)
                        r = rollout(&t, &tail)
                        self.n_memo_empty += tail.hits_empty
                        self.n_memo_stuck += tail.hits_stuck
                    else:
                        r = rollout(&t, NULL)
                    self.n_rollouts += 1
                    if k < 2 and r < ub[m]:
                        ub[m] = r
                    elif k == 2 and r < ub3[m]:
                        ub3[m] = r
            cfg_free(&tp)
            cfg_free(&t)
            if region:
                k = nd_all(c)
                for m in range(5):
                    if valid[m] and k & (1 << m):
                        ub[m] = 0
            lo = SW_INF
            for m in range(5):
                if valid[m] and ub[m] < lo:
                    lo = ub[m]
            if lo > 0:
                # T not provably reachable by the fixed orders: add the relinearised one.
                # (When it is, zeros come only from fixed-order proofs, so that following
                # zero-cost moves finds a proof again in the next state: sound paths.)
                for m in range(5):
                    if ub3[m] < ub[m]:
                        ub[m] = ub3[m]
        lo = SW_INF
        for m in range(5):
            if valid[m] and ub[m] < lo:
                lo = ub[m]
        if self.region_nd_all and valid[SWAP] and ub[SWAP] == lo:
            # Off the gold region swaps are free in the loss whenever the tree can be built
            # in another order, so exact zero sets admit swaps almost everywhere. Like
            # BN15 on the gold region, admit a tied SWAP only towards the projective order
            # of the repaired tree T' (s0 before s1 in it), if another move is optimal too.
            if o.trank2[c.stk[c.ns - 1]] > o.trank2[c.stk[c.ns - 2]] or \
                    c.ns + c.nb <= self.exact_live:
                for m in range(5):
                    if m != SWAP and valid[m] and ub[m] == lo:
                        ub[SWAP] += 1
                        break
        for m in range(5):
            cost[m] = ub[m] - lo if valid[m] else 0

    # ---- gold ------------------------------------------------------------------------
    def attach_oracle(self, DynGold gold):
        """Per-document oracle data (docs/specs/swap.md §2; MINIMAL only when used), built once
        per gold by init_gold and by the Simulator (the base's hook)."""
        return attach_oracle(gold, minimal=self.mode == MODE_MINIMAL,
                             budget=self.cfg.get("minimal_budget", 200000))


def attach_oracle(DynGold gold, minimal=False, budget=200000):
    """Module-level entry point (benchmarks/oracle_timing.py): build the per-document
    oracle data and hang it on the DynGold."""
    cdef SwapOracleData data = SwapOracleData(gold.heads, budget=budget, minimal=minimal)
    return gold.attach(data, <void*>&data.c)
