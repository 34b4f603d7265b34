# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Shared machinery of every transition system in the package.

A concrete system (arc_hybrid.pyx, ...) defines its moves as small cdef classes in spaCy's
style, declares them once in its move table (declare_moves) and overrides the per-state
hooks declared in system_base.pxd. Everything spaCy needs around them lives here, once: the
moves most systems share (Shift, RootArc), the labelled class table built from the move
table, gold construction, cost normalisation, validity, the exploration step used by
training, and annotation of the Doc. docs/architecture.md shows how the pieces fit.
"""
import contextlib
from collections import Counter

import numpy

from cymem.cymem cimport Pool
from libc.math cimport INFINITY, exp
from libcpp.vector cimport vector

from spacy.ml.parser_model cimport cpu_log_loss
from spacy.pipeline._parser_internals._state cimport ArcC
from spacy.pipeline._parser_internals.stateclass cimport StateClass
from spacy.pipeline.transition_parser cimport Parser
from spacy.tokens.doc cimport Doc, set_children_from_heads
from spacy.training.example cimport Example

# Stable unlabelled move names (Simulator, docs) and spaCy class-name codes, by move id.
MOVE_NAMES = ("SHIFT", "LEFT", "RIGHT", "ROOT", "SWAP",
              "LEFT_2", "RIGHT_2", "LEFT_3", "RIGHT_3", "REDUCE")
MOVE_CODES = ("S", "L", "R", "T", "W", "L2", "R2", "L3", "R3", "D")
ORACLES = ("dynamic", "static")
# Training options every system accepts (system_options in the config), with defaults.
COMMON_OPTIONS = {
    # greedy training target: when s0 is a gold sentence root and making it a root (ROOT)
    # is optimal, ROOT is the only target, not every zero-cost move (see step_batch)
    "eager_root": False,
    # greedy training target: while every stack word's gold arcs lie left of b0 (the stack
    # holds finished sentences) and another move is optimal, SHIFT is not a target
    "close_sentences": False,
    # greedy training target: when ROOT would make a word that is not a gold root a root
    # while b0 continues its gold sentence (a false sentence boundary) and another move is
    # optimal, ROOT is not a target (close_sentences' mirror: see keep_sentences_target)
    "keep_sentences": False,
    # greedy training target among the zero-cost classes (TARGETS): "all" of them (spaCy's
    # multi-label loss), the model's own best-scoring one ("model_best", Goldberg & Nivre's
    # update), or the static oracle's move where it is optimal ("static")
    "target": "all",
    # greedy training target: the temperature T of the distribution the log loss pulls the
    # zero-cost classes towards, q_i ∝ exp(score_i / T) (tempered_log_loss). 1.0 is spaCy's
    # loss (q is the model's own distribution over them); below 1 it sharpens towards the
    # model's best one (target="model_best" is the limit T → 0), above 1 it flattens towards
    # an even spread over every optimal move (issue 19: spurious ambiguity)
    "target_temperature": 1.0,
    # greedy training target: the moves that decide nothing, SHIFT and arc_eager_nm's
    # unshifting REDUCE, are targets wherever they are optimal ("free"), or only where no
    # other move is ("last"): under arc_eager_nm's exact costs they are always optimal, so
    # "free" lets a model defer every decision (see defer_last_target); "repairs_last": as
    # "last", and a move replacing an arc (arc_eager_nm's repairing LEFT) is a target only
    # where no move that decides without undoing is optimal
    "defer": "free",
    # the zero-cost path spaCy's update cuts long Docs along (segment start states, see
    # get_oracle_sequence_from_state): the first zero-cost class in class order, as spaCy
    # ("first"), or the static oracle's move where it is optimal ("static"); attardi takes
    # "static" on gold it cannot build either way (docs/systems/attardi.md)
    "cut_path": "first",
    # states whose costs are only bounds (an oracle's guard when the exact search would
    # exceed its budget: attardi's, lr_spine's, arc_standard's when a gold arc crosses its
    # split; last_costs_bounded): trained on like any other ("train"), or left out of
    # the loss ("skip"; the move is still taken, counted in n_bounded_skipped). Such bounds
    # mark every move that may be optimal as a target, which says little (issue 19:
    # exploring from a weak model, 41-47% of attardi's training states are such states)
    "bounded_costs": "train",
    # the labels of each arc move (get_actions): every arc move gets every label seen
    # >= min_freq times ("shared"), or the labels seen >= min_freq times on gold arcs of its
    # own direction in word order ("per_direction", as spaCy's arc-eager; only for systems
    # whose arc moves fix that direction: not swap)
    "label_sets": "shared",
}
# The COMMON_OPTIONS that act only through a dynamic oracle's zero-cost set: the training
# targets narrow it, cut_path chooses a path through it, bounded_costs reads its guard. A
# static oracle has one zero-cost move per state and no guard, so they change nothing there
# (a run id of a static oracle does not name them: projects/ud/scripts/matrix.py)
DYNAMIC_ONLY_OPTIONS = ("eager_root", "close_sentences", "keep_sentences", "target",
                        "target_temperature", "defer", "cut_path", "bounded_costs")
TARGETS = ("all", "model_best", "static")
DEFERS = ("free", "last", "repairs_last")
# The exploration rules (the factory's explore_rule; parser.follow_oracle_mask draws which
# states may explore, step_batch decides each exploring state's move):
#   "prob": after k epochs a state follows the model's prediction with probability p;
#   "margin": as "prob", but an exploring state follows a wrong prediction only when the
#       best zero-cost class scores within explore_margin of it, else the oracle's move;
#   "anneal": as "prob" with p ramping linearly from 0 at epoch k to p at epoch
#       k + explore_ramp_epochs.
EXPLORE_RULES = ("prob", "margin", "anneal")
CUT_PATHS = ("first", "static")
BOUNDED_COSTS = ("train", "skip")
LABEL_SETS = ("shared", "per_direction")
BACKOFF_LABEL = "dep"
# the names of an arc's direction in word order (MoveDef.direction), by enum value
DIRECTIONS = (None, "leftward", "rightward")

cdef enum:             # indices into DEFERS
    DEFER_FREE = 0
    DEFER_LAST = 1
    DEFER_REPAIRS_LAST = 2

cdef enum:             # indices into TARGETS
    TARGET_ALL = 0
    TARGET_MODEL_BEST = 1
    TARGET_STATIC = 2


cdef struct TargetOptions:
    # the system options that narrow the training target (COMMON_OPTIONS), read once from
    # the cfg for step_batch and the Simulator alike (target_options)
    bint eager_root
    bint close_sentences
    bint keep_sentences
    int target              # index into TARGETS
    int defer               # index into DEFERS


cdef TargetOptions target_options(DynOracleSystem system) except *:
    """The system's training-target options (its cfg; __init__ checked their values)."""
    cdef TargetOptions options
    options.eager_root = system.cfg.get("eager_root", False)
    options.close_sentences = system.cfg.get("close_sentences", False)
    options.keep_sentences = system.cfg.get("keep_sentences", False)
    options.target = TARGETS.index(system.cfg.get("target", "all"))
    options.defer = DEFERS.index(system.cfg.get("defer", "free"))
    return options


cdef class WordArcs:
    """The arcs over a Doc's words that a C struct holds, seen from Python: `heads` (head word
    per word; a root points to itself; -1 = none: unknown in gold, not attached yet in a
    parse) and `labels` (label id per word; 0 = none). A subclass points word_arcs at its
    arrays (DynGold: the gold tree; easy_first.EasyFirstState: the parse)."""

    cdef int word_arcs(self, const int32_t** heads, const attr_t** labels) noexcept:
        """Point heads and labels at the subclass's arrays; returns the number of words."""
        return 0

    @property
    def heads(self):
        return word_arc_list(self, False)

    @property
    def labels(self):
        return word_arc_list(self, True)


cdef list word_arc_list(WordArcs arcs, bint labels):
    """arcs' labels (labels) or heads, one per word, as a list."""
    cdef const int32_t* head_of
    cdef const attr_t* label_of
    cdef int i, n = arcs.word_arcs(&head_of, &label_of)
    if labels:
        return [label_of[i] for i in range(n)]
    return [head_of[i] for i in range(n)]


cdef class DynGold(WordArcs):
    """Gold tree of one Doc in the form the cost functions read (GoldC)."""

    def __init__(self, heads, labels):
        """heads: gold head per word (== i for a root, -1 or None = unknown);
        labels: label id per word (0 or None = unknown)."""
        cdef int n = len(heads)
        cdef int i, h
        if n <= 0:
            raise ValueError("DynGold needs at least one word")
        self.mem = Pool()
        self.c.length = n
        self.c.heads = <int32_t*>self.mem.alloc(n, sizeof(int32_t))
        self.c.labels = <attr_t*>self.mem.alloc(n, sizeof(attr_t))
        self.c.kid_start = <int32_t*>self.mem.alloc(n + 1, sizeof(int32_t))
        self.c.kids = <int32_t*>self.mem.alloc(n, sizeof(int32_t))
        self.c.extra = NULL
        for i in range(n):
            h = -1 if heads[i] is None else heads[i]
            if h < -1 or h >= n:
                raise ValueError(f"gold head {h} of word {i} is outside the doc (length {n})")
            self.c.heads[i] = h
            self.c.labels[i] = 0 if labels[i] is None else labels[i]
        # CSR children lists, sorted by position (counting sort over heads)
        for i in range(n):
            h = self.c.heads[i]
            if h >= 0 and h != i:
                self.c.kid_start[h + 1] += 1
        for i in range(n):
            self.c.kid_start[i + 1] += self.c.kid_start[i]
        fill = [self.c.kid_start[i] for i in range(n)]
        for i in range(n):
            h = self.c.heads[i]
            if h >= 0 and h != i:
                self.c.kids[fill[h]] = i
                fill[h] += 1

    cdef object attach(self, object owner, void* data):
        """Hang a system's per-Doc oracle data on this gold (its attach_oracle): move_costs
        reads `data` through c.extra, which stays valid while `owner` (extra_obj) lives.
        Returns owner."""
        self.extra_obj = owner
        self.c.extra = data
        return owner

    cdef int word_arcs(self, const int32_t** heads, const attr_t** labels) noexcept:
        heads[0] = self.c.heads
        labels[0] = self.c.labels
        return self.c.length

    def __len__(self):
        return self.c.length


cdef weight_t unused_cost(const StateC* st, const void* gold, attr_t label) noexcept nogil:
    """spaCy's per-class cost hook (Transition.get_cost), which nothing calls here: set_costs
    is overridden and takes every move's cost at once from move_costs."""
    return 0


cdef class Shift:
    """Push the first word of the buffer.

    Validity: the buffer is not empty, and b0 does not start a preset sentence while the
        stack holds words of the previous one (shift_is_valid).
    Cost: the system's move_costs (all moves at once).
    Action: push b0.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return shift_is_valid(st)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.push()


cdef class RootArc:
    """Make the only stack word s0 a sentence root (the arc from the virtual root) and pop it.

    Validity: s0 is the only stack word, and b0 (if any) may start a sentence
        (root_is_valid).
    Cost: the system's move_costs.
    Action: s0 points to itself, pop; b0 starts the next sentence.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return root_is_valid(st)

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        pop_as_root(st)


cdef class BufferLeftArc:
    """Attach s0 to b0 and pop it (LEFT of arc-eager, spec LA, and of arc-hybrid).

    Validity: stack and buffer not empty, s0 has no head (in arc-eager: an L word, not pushed
        by RIGHT; in arc-hybrid every stack word), b0 does not start a preset sentence.
    Cost: the system's move_costs (their G&N formula: arc_eager.left_arc_gn_cost).
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


cdef class StackLeftArc:
    """Attach s1 to s0 and remove s1 (arc-standard's la; s1 is never the virtual root).

    Validity: at least two words on the stack.
    Cost: the system's move_costs.
    Action: arc s0 -> s1; s1 leaves the stack, s0 stays on top.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return st.stack_depth() >= 2

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        cdef int s0 = st.S(0)
        cdef int s1 = st.S(1)
        st.add_arc(s0, s1, label)
        st.pop()
        st.pop()
        st._stack.push_back(s0)


cdef class StackRightArc:
    """Attach s0 to s1 and pop it (arc-standard's ra with s1 a word).

    Validity: at least two words on the stack.
    Cost: the system's move_costs.
    Action: arc s1 -> s0, pop.
    """
    @staticmethod
    cdef bint is_valid(const StateC* st, attr_t label) noexcept nogil:
        return st.stack_depth() >= 2

    @staticmethod
    cdef int transition(StateC* st, attr_t label) noexcept nogil:
        st.add_arc(st.S(1), st.S(0), label)
        st.pop()


def exact_costs_mode(system, value):
    """The option exact_costs of attardi and lr_spine, checked: True, False or "beam" (null
    means "beam", the default); a ValueError naming the system and the valid values otherwise."""
    if value is None:
        return "beam"
    if value is not True and value is not False and value != "beam":
        raise ValueError(f"{system}: exact_costs must be true, false or \"beam\", got {value!r}")
    return value


class CostValues:
    """Within the block an oracle object with an `exact` flag (attardi's AttardiOracle,
    lr_spine's LRSWork) computes exact cost values (exact=True: the beam update, the systems'
    beam_update_costs when exact_costs is "beam") or the zero-cost set with lower bounds
    (exact=False: attardi's cut path, which reads only the zero-cost set); its mode before is
    restored on exit, error or not."""
    def __init__(self, oracle, bint exact):
        self.oracle = oracle
        self.exact = exact

    def __enter__(self):
        self.saved = self.oracle.exact
        self.oracle.exact = self.exact
        return self

    def __exit__(self, *exc):
        self.oracle.exact = self.saved
        return False


cdef class DynOracleSystem(TransitionSystem):
    """Base of the package's systems. Subclasses set the class attributes below, declare
    their moves (declare_moves) and override the hooks of system_base.pxd."""
    name = "base"
    projective = True        # derives projective trees only: train on lifted gold by default
    options = {}             # system options (e.g. degree) -> default value
    # the options every system of this base takes besides its own (COMMON_OPTIONS)
    common_options = COMMON_OPTIONS
    # the options (own or common) that shape the move table or the label set, and so the
    # class table and the model's output layer: fixed when the pipeline is trained, so a
    # saved pipeline refuses another value at load time (load_overrides.py). Every other
    # option is read only while parsing or training, and a load-time config value wins.
    # A system adds its own: structural_options = DynOracleSystem.structural_options | {...}
    structural_options = frozenset({"label_sets"})
    oracles = ORACLES        # oracle names the system accepts
    dynamic_oracles = ("dynamic",)   # those defined in every state (exploration allowed)
    nonprojective_oracles = ()       # oracles that train on non-projective gold as it is:
                                     # with them a projective system does not lift by default
    # (k, p) of the exploration schedule when the config leaves explore_after_epochs /
    # explore_prob null: follow the oracle for k epochs, then the model with probability p
    # (Goldberg & Nivre 2012's p = 0.9; systems whose costs train better with less
    # exploration override it, with the measurement in their docs/systems page)
    default_schedule = (1, 0.9)
    # the oracle when the config leaves `oracle` null: the one whose parser scores best at
    # convergence (issue 19); a system that trains better with another overrides it, with
    # the measurement in its docs/systems page
    default_oracle = "dynamic"
    # defaults of COMMON_OPTIONS that differ for this system: a system overrides one only
    # with the converged measurement in its docs/systems page (the options' effect on one
    # system says nothing of another)
    common_option_defaults = {}
    explore_rules = EXPLORE_RULES    # the values of the factory's explore_rule

    def __init__(self, strings, labels_by_action=None, min_freq=None, *,
                 projectivize=None, oracle=None, **options):
        TransitionSystem.__init__(self, strings)
        if oracle is None:
            oracle = self.default_oracle
        unknown = set(options) - set(self.options) - set(COMMON_OPTIONS)
        if unknown:
            raise ValueError(f"transition system {self.name!r} has no option(s) "
                             f"{sorted(unknown)}; its options are "
                             f"{sorted(self.options) + sorted(COMMON_OPTIONS)}")
        if projectivize is None:
            projectivize = self.default_projectivize(oracle)
        self.cfg["projectivize"] = bool(projectivize)
        for key, default in self.options.items():
            self.cfg[key] = options.get(key, default)
        for key, default in COMMON_OPTIONS.items():
            default = self.common_option_defaults.get(key, default)
            self.cfg[key] = bool(options.get(key, default)) if isinstance(default, bool) \
                else options.get(key, default)
        for key, choices in (("target", TARGETS), ("defer", DEFERS), ("cut_path", CUT_PATHS),
                             ("bounded_costs", BOUNDED_COSTS), ("label_sets", LABEL_SETS)):
            if self.cfg[key] not in choices:
                raise ValueError(f"system option {key}={self.cfg[key]!r} is not one of "
                                 f"{list(choices)}")
        self.cfg["target_temperature"] = check_target_temperature(
            self.cfg["target_temperature"], self.cfg["target"],
            explicit="target_temperature" in options)
        self.set_oracle(oracle)
        self.declare_moves()
        self.check_label_sets()
        if labels_by_action:
            self.initialize_actions(labels_by_action, min_freq=min_freq)

    def __reduce__(self):
        return (_rebuild, (self.__class__, self.strings, self.labels, dict(self.cfg),
                           self.oracle))

    def check_label_sets(self):
        """label_sets="per_direction" needs every arc move to fix its arc's direction in word
        order (the move table): a gold arc's backed-off label is chosen by its direction,
        and must be a label of every move that can build it."""
        if self.cfg["label_sets"] != "per_direction":
            return
        unfixed = [MOVE_NAMES[m] for m, d in self.arc_directions.items() if d is None]
        if unfixed:
            raise ValueError(
                f"system option label_sets='per_direction' does not apply to transition "
                f"system {self.name!r}: the direction in word order of the arcs of its "
                f"{', '.join(unfixed)} is not fixed by the move; valid values for "
                f"{self.name!r}: ['shared']")

    def default_projectivize(self, oracle):
        """Lift non-projective gold unless the system derives non-projective trees or the
        oracle handles non-projective gold itself (e.g. arc_eager's exact DP)."""
        return bool(self.projective) and oracle not in self.nonprojective_oracles

    def set_oracle(self, oracle):
        """Choose the oracle whose costs set_costs returns (training only)."""
        if oracle not in self.oracles:
            raise ValueError(f"unknown oracle {oracle!r} for transition system "
                             f"{self.name!r}; choose one of {list(self.oracles)}")
        self.use_static = oracle == "static"
        self._oracle = oracle

    @property
    def oracle(self):
        return self._oracle

    @property
    def explores(self):
        """Whether the chosen oracle has costs off the gold path, so that training may
        follow the model; other oracles are always followed (teacher forcing)."""
        return self._oracle in self.dynamic_oracles

    @property
    def projectivize(self):
        return self.cfg.get("projectivize", self.projective)

    # ---- the move table ------------------------------------------------------------
    cdef int declare_moves(self) except -1:
        """Declare every move of the system (declare_move), once, from __init__ (after
        set_oracle and the system's options). The base declares the rows most systems share,
        SHIFT (Shift) and ROOT (RootArc); a system calls it first, then declares its own
        moves (a row declared again replaces the base's: swap's SHIFT, lr_spine's ROOT)."""
        self.declare_move(SHIFT, Shift.is_valid, Shift.transition)
        self.declare_move(ROOT, RootArc.is_valid, RootArc.transition, AT_S0, AT_S0)
        return 0

    cdef int declare_stack_arcs(self, int direction=DIRECTION_FROM_ENDS) except -1:
        """LEFT and RIGHT as the reductions of the top two stack words, StackLeftArc (arc
        s0 -> s1) and StackRightArc (arc s1 -> s0): arc-standard's la and ra
        (docs/specs/lr_spine_and_arc_standard.md §2.1), swap's LA and RA (docs/specs/swap.md
        §1.1, which gives DIRECTION_NOT_FIXED: SWAP reorders the stack)."""
        self.declare_move(LEFT, StackLeftArc.is_valid, StackLeftArc.transition, AT_S0, AT_S1,
                          direction)
        self.declare_move(RIGHT, StackRightArc.is_valid, StackRightArc.transition, AT_S1, AT_S0,
                          direction)
        return 0

    cdef int declare_move(self, int move, move_is_valid_t is_valid, move_do_t do,
                          int head_at=NO_ARC, int child_at=NO_ARC,
                          int direction=DIRECTION_FROM_ENDS,
                          bint nonprojective=PROJECTIVE_MOVE) except -1:
        """One row of the move table: the move id, spaCy's validity and action for its
        classes, where its arc ends (NO_ARC: none; ROOT's is (AT_S0, AT_S0), s0 points to
        itself) and the arc's direction in word order. A move with an arc other than ROOT
        carries the arc labels. By default the direction follows from the ends, for a stack
        in word order (a stack word precedes the words above it and the buffer); a system
        gives it where the ends do not say it (AT_SYSTEM) or the stack is reordered
        (DIRECTION_NOT_FIXED). nonprojective: the move is how the system makes
        non-projective structure (swap's SWAP, attardi's LEFT_k / RIGHT_k for k >= 2), the
        moves whose scores the parser's nonprojective_penalty lowers at parse time
        (nonprojective_move_types)."""
        if not 0 <= move < N_MOVES:
            raise ValueError(f"{self.name}: no move id {move}")
        if direction == DIRECTION_FROM_ENDS:
            direction = direction_from_ends(head_at, child_at)
        self.move_table[move].is_valid = is_valid
        self.move_table[move].do = do
        self.move_table[move].head_at = head_at
        self.move_table[move].child_at = child_at
        self.move_table[move].direction = direction
        self.move_table[move].nonprojective = nonprojective
        return 0

    @property
    def move_types(self):
        """The system's unlabelled moves, by move id (its move table)."""
        return tuple(m for m in range(N_MOVES) if self.move_table[m].is_valid != NULL)

    @property
    def arc_move_types(self):
        """The moves that add an arc, hence carry labels (ROOT's one label is "ROOT")."""
        return tuple(m for m in self.move_types
                     if m != ROOT and self.move_table[m].head_at != NO_ARC)

    @property
    def arc_directions(self):
        """{move id: "leftward", "rightward" or None (not fixed by the move)} of the arc
        moves, from the move table."""
        return {m: DIRECTIONS[self.move_table[m].direction] for m in self.arc_move_types}

    @property
    def nonprojective_move_types(self):
        """The moves that make non-projective structure (declared so in the move table):
        empty for a system that derives projective trees only."""
        return tuple(m for m in self.move_types if self.move_table[m].nonprojective)

    def nonprojective_class_mask(self):
        """Per class of the class table (float32, length n_moves): 1 for the classes of the
        nonprojective_move_types, 0 for the others. The parser subtracts
        nonprojective_penalty times this from its scores at parse time."""
        mask = numpy.zeros((self.n_moves,), dtype="float32")
        cdef int i
        for i in range(self.n_moves):
            if self.move_table[self.c[i].move].nonprojective:
                mask[i] = 1
        return mask

    cdef Transition init_transition(self, int clas, int move, attr_t label) except *:
        cdef Transition t
        if not 0 <= move < N_MOVES or self.move_table[move].is_valid == NULL:
            name = MOVE_NAMES[move] if 0 <= move < N_MOVES else move
            raise ValueError(f"transition system {self.name!r} has no move {name}; its moves "
                             f"are {[MOVE_NAMES[m] for m in self.move_types]}")
        t.clas = clas
        t.move = move
        t.label = label
        t.score = 0
        t.is_valid = self.move_table[move].is_valid
        t.do = self.move_table[move].do
        t.get_cost = unused_cost
        return t

    # ---- labels and the class table -------------------------------------------------
    @property
    def action_types(self):
        return tuple(self.move_types)

    @property
    def builtin_labels(self):
        return ["ROOT", BACKOFF_LABEL]

    def get_doc_labels(self, doc):
        labels = set(self.builtin_labels)
        for token in doc:
            if token.dep_:
                labels.add(token.dep_)
        return labels

    def get_actions(self, **kwargs):
        """Class table {move: {label: freq}} from the training examples: the labels of
        their gold arcs (lifted when projectivize is on) counted per direction in word
        order, then class_table."""
        projectivize = kwargs.get("projectivize", self.projectivize)
        counts = {"leftward": Counter(), "rightward": Counter()}
        n_roots = 0
        for example in kwargs.get("examples", []):
            eg = Example(example.reference, example.reference)
            heads, labels = eg.get_aligned_parse(projectivize=projectivize)
            for child, (head, label) in enumerate(zip(heads, labels)):
                if head is None or label is None:
                    continue
                if head == child:
                    n_roots += 1
                else:
                    counts["leftward" if head > child else "rightward"][label] += 1
        return self.class_table(counts, n_roots, min_freq=kwargs.get("min_freq", None),
                                learn_tokens=kwargs.get("learn_tokens") is True)

    def class_table(self, label_counts, n_roots=1, min_freq=None, learn_tokens=False):
        """Class table {move: {label: freq}} from the gold arcs' label frequencies per
        direction ({"leftward": {label: freq}, "rightward": ...}). With label_sets="shared"
        every arc move gets the labels seen in either direction (a label seen in either
        direction may be needed by any arc move once non-projective moves reorder the
        stack: swap); with "per_direction" each arc move gets those seen on arcs of its own
        direction (arc_directions), as spaCy's arc-eager. Labels rarer than min_freq back
        off to 'dep' (init_gold), which every arc move has."""
        if self.cfg["label_sets"] == "shared":
            shared = Counter(label_counts.get("leftward", {}))
            shared.update(label_counts.get("rightward", {}))
            by_direction = {d: shared for d in DIRECTIONS}
        else:
            by_direction = {d: label_counts.get(d, {}) for d in DIRECTIONS}
        directions = self.arc_directions
        actions = {}
        for move in self.move_types:
            if move == ROOT:
                actions[move] = {"ROOT": max(n_roots, 1)}
            elif move in directions:
                actions[move] = {label: freq for label, freq in by_direction[directions[move]].items()
                                 if min_freq is None or freq >= min_freq}
                actions[move].setdefault(BACKOFF_LABEL, 0)
                if learn_tokens:
                    actions[move].setdefault("subtok", 0)
            else:
                actions[move] = {"": 1}
        return actions

    def move_name(self, int move, attr_t label):
        label_str = self.strings[label] if label else ""
        if label_str:
            return MOVE_CODES[move] + "-" + label_str
        return MOVE_CODES[move]

    cdef Transition lookup_transition(self, object name_or_id) except *:
        if isinstance(name_or_id, int):
            return self.c[name_or_id]
        code, _, label_str = name_or_id.partition("-")
        if code not in MOVE_CODES:
            raise KeyError(f"unknown transition {name_or_id!r}")
        move = MOVE_CODES.index(code)
        label = self.strings[label_str] if label_str else 0
        for i in range(self.n_moves):
            if self.c[i].move == move and self.c[i].label == label:
                return self.c[i]
        raise KeyError(f"unknown transition {name_or_id!r}")

    def class_index(self, int move, label=None):
        """Index of the class (move, label) in the table; the first class of the move
        when label is None; -1 if absent."""
        cdef attr_t label_id = 0
        if label is not None:
            label_id = label if isinstance(label, int) else self.strings[label]
        for i in range(self.n_moves):
            if self.c[i].move == move and (label is None or self.c[i].label == label_id):
                return i
        return -1

    # ---- gold --------------------------------------------------------------------
    def has_gold(self, Example eg, start=0, end=None):
        for word in eg.y[start:end]:
            if word.dep != 0:
                return True
        return False

    def arc_label_sets(self):
        """{direction: the labels every arc move of that direction carries} (label_sets
        "shared": the labels of every arc move, under each direction)."""
        per_direction = self.cfg["label_sets"] == "per_direction"
        directions = self.arc_directions
        sets = {}
        for d in DIRECTIONS:
            moves = [m for m in directions if not per_direction or directions[m] == d]
            sets[d] = set.intersection(*[set(self.labels.get(m, ())) for m in moves]) \
                if moves else set()
        return sets

    def gold_label_ids(self, heads, labels, strings):
        """The label id of each word's gold arc as the costs read it (GoldC.labels): ROOT
        for a root, None where the head or label is unknown (head None or -1), else the
        label if the arc moves of the arc's direction carry it, else BACKOFF_LABEL, as
        spaCy backs off a rare label. A move builds a gold arc only in the arc's own
        direction, so exactly its class with this label costs no label error."""
        known = self.arc_label_sets()
        label_ids = []
        for i, (h, lab) in enumerate(zip(heads, labels)):
            if h is None or h < 0:
                label_ids.append(None)
            elif h == i:
                label_ids.append(self.root_label)
            elif lab is None or lab == "":
                label_ids.append(None)
            else:
                usable = lab in known["leftward" if h > i else "rightward"]
                label_ids.append(strings.add(lab if usable else BACKOFF_LABEL))
        return label_ids

    def init_gold(self, StateClass state, Example example):
        heads, labels = example.get_aligned_parse(projectivize=self.projectivize)
        gold = DynGold(heads, self.gold_label_ids(heads, labels, example.x.vocab.strings))
        self.attach_oracle(gold)
        return gold

    def attach_oracle(self, DynGold gold):
        """Hang per-document oracle data (tables built once per Doc) on a new gold, via
        `gold.c.extra` / `gold.extra_obj`. Called by init_gold and by the Simulator, so both
        reach move_costs with the same data. Default: nothing to attach."""
        pass

    def init_gold_batch(self, examples):
        all_states = self.init_batch([eg.predicted for eg in examples])
        golds = []
        states = []
        for state, eg in zip(all_states, examples):
            if self.has_gold(eg) and not state.is_final():
                golds.append(self.init_gold(state, eg))
                states.append(state)
        n_steps = sum([len(s.queue) for s in states])
        return states, golds, n_steps

    def is_gold_parse(self, StateClass state, DynGold gold):
        for i in range(gold.c.length):
            if gold.c.heads[i] >= 0 and state.c.H(i) != gold.c.heads[i]:
                return False
        return True

    # ---- the per-state hooks (validity and arcs from the move table; costs and the
    # static move overridden by each system) ------------------------------------------
    cdef void move_validity(self, const StateC* st, int* valid) noexcept nogil:
        cdef int m
        for m in range(N_MOVES):
            if self.move_table[m].is_valid != NULL:
                valid[m] = self.move_table[m].is_valid(st, 0)
            else:
                valid[m] = 0

    cdef void move_arcs(self, const StateC* st, int* head, int* child) noexcept nogil:
        cdef int m
        for m in range(N_MOVES):
            head[m] = word_at(st, self.move_table[m].head_at)
            child[m] = word_at(st, self.move_table[m].child_at)

    cdef void move_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                         weight_t* cost) noexcept nogil:
        for m in range(N_MOVES):
            cost[m] = INVALID_COST

    cdef int static_move(self, const StateC* st, const GoldC* gold) noexcept nogil:
        return -1

    # ---- the oracle as training reads it, clocked -----------------------------------
    cdef int oracle_static_move(self, const StateC* st, const GoldC* gold) noexcept nogil:
        """static_move, its CPU time on the oracle clock."""
        cdef long long start = oracle_clock_start(&self.clock)
        cdef int move = self.static_move(st, gold)
        oracle_clock_stop(&self.clock, start)
        return move

    cdef void oracle_costs(self, const StateC* st, const GoldC* gold, const int* valid,
                           weight_t* cost) noexcept nogil:
        """The unlabelled cost of every move by the system's oracle, not normalised: 0 for
        the static oracle's move and 1 for the others under a static oracle, else
        move_costs; its CPU time on the oracle clock either way."""
        cdef int m, static
        cdef long long start
        if self.use_static:
            static = self.oracle_static_move(st, gold)
            for m in range(N_MOVES):
                cost[m] = 0 if m == static else 1
            return
        start = oracle_clock_start(&self.clock)
        self.move_costs(st, gold, valid, cost)
        oracle_clock_stop(&self.clock, start)

    @property
    def timed(self):
        """Whether the oracle clock runs: oracle_costs and oracle_static_move add their
        thread CPU time to oracle_stats()["oracle_cpu_s"] (off by default)."""
        return self.clock.on

    @timed.setter
    def timed(self, bint on):
        self.clock.on = on

    def oracle_stats(self):
        """The oracle's counters (oracle_counts, the system's own) and `oracle_cpu_s`: the
        CPU seconds the oracle took while `timed` (0 if it never was), since the system was
        created."""
        out = self.oracle_counts()
        out["oracle_cpu_s"] = self.clock.ns / 1e9
        return out

    def oracle_counts(self):
        """{name: count} of the system's oracle work (oracle_stats); none by default."""
        return {}

    # ---- validity and costs per labelled class ------------------------------------
    cdef int set_valid(self, int* output, const StateC* st) noexcept nogil:
        cdef int valid[N_MOVES]
        self.move_validity(st, valid)
        for i in range(self.n_moves):
            output[i] = valid[self.c[i].move]
        return 0

    cdef bint last_costs_bounded(self) noexcept:
        """Whether the last move_costs gave bounds only (a guard's sound fallback), not
        exact costs. Systems whose oracle is exact in every state keep this False. Only
        read when the oracle is dynamic (class_costs calls no move_costs under a static
        oracle, so a system's record of its last oracle call would be stale)."""
        return False

    @property
    def last_costs_were_bounded(self):
        """Python view: the last costs were a guard's bounds."""
        return not self.use_static and self.last_costs_bounded()

    cdef int class_costs(self, int* is_valid, weight_t* costs, const StateC* st,
                         const GoldC* gold) noexcept nogil:
        """Validity and normalised cost of every class; -1 if no class is valid."""
        cdef int valid[N_MOVES]
        cdef int head[N_MOVES]
        cdef int child[N_MOVES]
        cdef weight_t move_cost[N_MOVES]
        cdef int i, m
        cdef weight_t best = INVALID_COST
        self.move_validity(st, valid)
        self.move_arcs(st, head, child)
        self.oracle_costs(st, gold, valid, move_cost)
        for i in range(self.n_moves):
            m = self.c[i].move
            is_valid[i] = valid[m]
            if not valid[m]:
                costs[i] = INVALID_COST
                continue
            costs[i] = move_cost[m] + arc_label_cost(gold, head[m], child[m], self.c[i].label)
            if costs[i] < best:
                best = costs[i]
        if best >= INVALID_COST:
            return -1
        # spaCy's loss treats classes with cost <= min(1, cheapest) as gold and gives no
        # gradient when the cheapest costs >= 2: make the cheapest valid class cost 0.
        if best != 0:
            for i in range(self.n_moves):
                if is_valid[i]:
                    costs[i] -= best
        return 0

    cdef bint lacks_oracle_data(self, const GoldC* gold) noexcept nogil:
        """In move_costs of a system without a fallback (needs_oracle_data): the gold has no
        oracle data. Only a DynGold made by hand gets here (init_gold and the Simulator
        attach it; set_costs and step_batch raise first): the system gives no costs (all
        0) rather than crash, and missing_oracle counts it."""
        if gold.extra != NULL:
            return False
        self.missing_oracle += 1
        return True

    cdef int require_oracle_data(self, DynGold gold) except -1:
        if self.needs_oracle_data and gold.c.extra == NULL:
            raise ValueError(f"{self.name}: the gold has no oracle data; build it with "
                             f"moves.attach_oracle(gold) (init_gold does)")
        return 0

    cdef int set_costs(self, int* is_valid, weight_t* costs,
                       const StateC* state, gold) except -1:
        cdef DynGold g = gold
        self.require_oracle_data(g)
        if self.class_costs(is_valid, costs, state, &g.c) < 0:
            raise ValueError(f"{self.name}: no valid move in a non-final state "
                             f"(stack {state.stack_depth()}, buffer {state.buffer_length()})")
        return 0

    def get_oracle_sequence_from_state(self, StateClass state, gold, _debug=None):
        """The zero-cost path from a state, as class ids: spaCy's update
        (`_init_gold_batch`) applies it to cut a long Doc into segments, and each
        segment's start state is a state on it. spaCy takes the first zero-cost class in
        class order, and SHIFT is class 0: with a dynamic oracle, where SHIFT is optimal
        whenever an attachment or a sentence root can still wait, that path postpones every
        one it can, so the segment starts hold deep stacks of finished words and open
        sentences that no parser would build. With cut_path="static" the path takes the
        static oracle's move where one of its classes is optimal (its canonical path, which
        is zero-cost wherever the static move is: static_target), else the first zero-cost
        class. The first-zero-cost path skips the costs wherever cut_path_free_class is
        valid (the same path)."""
        if self.cfg.get("cut_path", "first") == "static" and not self.use_static:
            return self.static_oracle_sequence(state, gold)
        if _debug is None and self.n_moves > 0 and self.cut_path_free_class() >= 0:
            return self.zero_cost_path(state, gold, False)
        return TransitionSystem.get_oracle_sequence_from_state(self, state, gold, _debug)

    def static_oracle_sequence(self, StateClass state, gold):
        """The cut path of cut_path="static" (get_oracle_sequence_from_state): the static
        oracle's move where one of its classes is optimal, else the first zero-cost class;
        attardi takes it on gold it cannot build whatever cut_path says."""
        return self.zero_cost_path(state, gold, True)

    def cut_path_free_class(self):
        """A class the first-zero-cost cut path may take without computing any cost
        wherever it is valid, -1 if none: it must be zero-cost whenever valid under the
        current costs and come before every other class, so the first zero-cost class is
        it wherever it is valid. Only arc_eager_nm's exact oracle has one (SHIFT)."""
        return -1

    def zero_cost_path(self, StateClass state, gold, bint static):
        """The first zero-cost class at each state until the state is final, narrowed to
        the static oracle's move where it is optimal if `static`, else taking
        cut_path_free_class without costs wherever it is valid (the two cut paths of
        get_oracle_sequence_from_state)."""
        cdef DynGold g = gold
        cdef int n = self.n_moves
        cdef Pool mem = Pool()
        cdef int* is_valid = <int*>mem.alloc(max(n, 1), sizeof(int))
        cdef weight_t* costs = <weight_t*>mem.alloc(max(n, 1), sizeof(weight_t))
        cdef int free = -1 if static else self.cut_path_free_class()
        cdef int i, choice
        self.require_oracle_data(g)
        history = []
        while not state.is_final():
            if free >= 0 and self.c[free].is_valid(state.c, self.c[free].label):
                choice = free
            else:
                self.set_costs(is_valid, costs, state.c, g)
                if static:
                    static_target(self, is_valid, costs, state.c, &g.c)
                choice = -1
                for i in range(n):
                    if is_valid[i] and costs[i] <= 0:
                        choice = i
                        break
                if choice == -1:
                    raise ValueError(f"{self.name}: no zero-cost move on the oracle path")
            history.append(choice)
            self.c[choice].do(state.c, self.c[choice].label)
        return history

    def beam_update_costs(self):
        """A context manager around spaCy's beam update (DynOracleParser.update), the one
        training path that reads cost values and not only "cost <= 0": thinc's Beam sums
        the costs along each history (state.loss = parent.loss + cost) and spaCy's
        _beam_utils.update_beam scales the max-violation gradient by the predicted history's
        sum (MaxViolation.cost). The greedy path (step_batch: cpu_log_loss, next_class, the
        training targets) and the cut path read only the zero-cost set. A system whose
        default costs are exact on the zero-cost set only (exact_costs = "beam", or null:
        attardi's and lr_spine's default) makes them exact values inside the block, through
        the object cost_values_oracle gives; otherwise nothing changes."""
        oracle = self.cost_values_oracle()
        if oracle is not None and self.cfg.get("exact_costs") in (None, "beam"):
            return CostValues(oracle, True)
        return contextlib.nullcontext()

    def cost_values_oracle(self):
        """The oracle object whose `exact` flag selects exact cost values or the zero-cost set
        with lower bounds (CostValues), for a system with the option exact_costs; None for
        the others."""
        return None

    def step_batch(self, states, golds, float[:, ::1] scores, float[:, ::1] d_scores,
                   const unsigned char[::1] follow_oracle, unsigned char[::1] seen,
                   str explore_rule="prob", float explore_margin=1.0):
        """One training step for a batch of states, computing each state's costs once:
        the multi-label log loss of spaCy's parser into d_scores, `seen[j] = 1` for
        classes that were gold somewhere, and the transition (next_class): the
        best-scoring zero-cost class where follow_oracle[i] (Goldberg & Nivre's "best
        gold"), else the best-scoring valid class (the model's own prediction), which
        explore_rule="margin" follows only when it is zero-cost or scores within
        explore_margin of the best zero-cost class. With the eager_root, close_sentences,
        target or defer options the zero-cost classes are narrowed first (training_target;
        target="model_best" keeps the best-scoring one, which needs the scores and so is
        applied here). Returns how many states took a class that costs > 0 under those
        training costs (a move off the oracle's paths: exploration that was followed)."""
        cdef int n = self.n_moves
        cdef Pool mem = Pool()
        cdef int* is_valid = <int*>mem.alloc(n, sizeof(int))
        cdef weight_t* costs = <weight_t*>mem.alloc(n, sizeof(weight_t))
        cdef StateClass state
        cdef DynGold gold
        cdef int i, j, best
        cdef TargetOptions options = target_options(self)
        cdef bint skip_bounded = self.cfg.get("bounded_costs", "train") == "skip"
        cdef bint trained
        cdef int off_path = 0
        # 1.0 calls spaCy's own loss, so the default trains bit for bit as before
        cdef double temperature = self.cfg.get("target_temperature", 1.0)
        if explore_rule not in EXPLORE_RULES:
            raise ValueError(f"explore_rule={explore_rule!r} is not one of {list(EXPLORE_RULES)}")
        # "prob" and "anneal" differ in how many states explore (follow_oracle), not in
        # the move an exploring state takes: that is the model's prediction, as under a
        # margin no wrong class can exceed
        cdef float margin = explore_margin if explore_rule == "margin" else INFINITY
        for gold in golds:
            self.require_oracle_data(gold)
        for i in range(len(states)):
            state = states[i]
            gold = golds[i]
            if self.class_costs(is_valid, costs, state.c, &gold.c) < 0:
                raise ValueError(f"{self.name}: no valid move in a non-final state")
            training_target(self, &options, is_valid, costs, state.c, &gold.c)
            if options.target == TARGET_MODEL_BEST:
                best_zero_cost_target(n, is_valid, costs, &scores[i, 0])
            trained = not (skip_bounded and not self.use_static and self.last_costs_bounded())
            if trained:
                if temperature == 1.0:
                    cpu_log_loss(&d_scores[i, 0], costs, is_valid, &scores[i, 0], n)
                else:
                    tempered_log_loss(&d_scores[i, 0], costs, is_valid, &scores[i, 0], n,
                                      temperature)
                for j in range(n):
                    if is_valid[j] and costs[j] <= 0:
                        seen[j] = 1
            else:
                self.n_bounded_skipped += 1
            best = next_class(n, is_valid, costs, &scores[i, 0], follow_oracle[i], margin)
            off_path += costs[best] > 0
            self.c[best].do(state.c, self.c[best].label)
        return off_path

    # ---- output ------------------------------------------------------------------
    def set_annotations(self, StateClass state, Doc doc):
        cdef vector[ArcC] arcs
        cdef ArcC arc
        cdef int i
        for i in range(doc.length):
            doc.c[i].head = 0
            doc.c[i].dep = self.root_label
        state.c.get_arcs(&arcs)
        for arc in arcs:
            if arc.child != arc.head:
                doc.c[arc.child].head = arc.head - arc.child
                doc.c[arc.child].dep = arc.label
        set_children_from_heads(doc.c, 0, doc.length)

    # ---- Python access for spacy_dynoracle.testing.Simulator ----------------------
    def _sim_moves(self, StateClass state):
        """Valid unlabelled move ids of a state."""
        cdef int valid[N_MOVES]
        self.move_validity(state.c, valid)
        return [m for m in self.move_types if valid[m]]

    def _sim_costs(self, StateClass state, DynGold gold):
        """{move id: unlabelled cost} of the valid moves, through the same hooks as
        class_costs (oracle_costs: static 0/1 costs when the oracle is static), not
        normalised."""
        cdef int valid[N_MOVES]
        cdef weight_t cost[N_MOVES]
        self.move_validity(state.c, valid)
        self.oracle_costs(state.c, &gold.c, valid, cost)
        return {m: cost[m] for m in self.move_types if valid[m]}

    def _sim_class_costs(self, StateClass state, DynGold gold, bint training=False):
        """(is_valid, normalised cost) per labelled class, exactly as set_costs; with
        training, as step_batch trains on them (narrowed by the eager_root, close_sentences,
        target and defer options; target="model_best" needs the model's scores, so it shows every
        zero-cost class here)."""
        cdef Pool mem = Pool()
        cdef int* is_valid = <int*>mem.alloc(max(self.n_moves, 1), sizeof(int))
        cdef weight_t* costs = <weight_t*>mem.alloc(max(self.n_moves, 1), sizeof(weight_t))
        cdef TargetOptions options
        self.set_costs(is_valid, costs, state.c, gold)
        if training:
            options = target_options(self)
            training_target(self, &options, is_valid, costs, state.c, &gold.c)
        return ([is_valid[i] for i in range(self.n_moves)],
                [costs[i] for i in range(self.n_moves)])

    def _sim_static_move(self, StateClass state, DynGold gold):
        """The static oracle's unlabelled move id in this state (static_move), -1 if none."""
        return self.oracle_static_move(state.c, &gold.c)

    def _sim_apply(self, StateClass state, int clas):
        self.c[clas].do(state.c, self.c[clas].label)

    def _sim_heads(self, StateClass state):
        return [state.c.H(i) for i in range(state.c.length)]

    def _sim_stack(self, StateClass state):
        return [state.c.S(i) for i in range(state.c.stack_depth() - 1, -1, -1)]

    def _sim_buffer(self, StateClass state):
        return [state.c.B(i) for i in range(state.c.buffer_length())]

    def _sim_state_extra(self, StateClass state):
        """What else than stack, buffer, heads and labels the valid moves depend on (the
        Simulator's key for memoised search): nothing, unless a system overrides it
        (arc_eager_nm: the unshiftable buffer words)."""
        return ()


cdef int next_class(int n, const int* is_valid, const weight_t* costs, const float* scores,
                    bint follow_oracle, float margin) noexcept nogil:
    """The class the training step takes. The oracle's move is the best-scoring zero-cost
    class (the first in class order among equals), the model's prediction the best-scoring
    valid class. follow_oracle: the oracle's move. Otherwise (exploring) the prediction,
    unless it is wrong (cost > 0) and scores more than `margin` above the oracle's move:
    then the oracle's move (explore_rule="margin": only near misses are explored, so a
    weak model's confident errors do not take training into states far from the gold
    path; "prob" passes an infinite margin). A zero-cost prediction is the oracle's move."""
    cdef int j
    cdef int oracle = -1
    cdef int model = -1
    for j in range(n):
        if not is_valid[j]:
            continue
        if costs[j] <= 0 and (oracle == -1 or scores[j] > scores[oracle]):
            oracle = j
        if model == -1 or scores[j] > scores[model]:
            model = j
    if oracle == -1:        # no zero-cost class (class_costs makes the cheapest cost 0)
        return model
    if follow_oracle or scores[model] - scores[oracle] > margin:
        return oracle
    return model


cdef void eager_root_target(DynOracleSystem system, const int* is_valid, weight_t* costs,
                            const StateC* st, const GoldC* gold) noexcept nogil:
    """The eager_root training target. A dynamic oracle lets a finished sentence root wait
    on the stack: in arc_hybrid and arc_eager, SHIFT over the sentence boundary costs 0
    when ROOT(s0) does too, because s0 can still be made a root after the next sentence
    is reduced. Trained on every zero-cost move, a greedy model learns that delaying is
    free, carries old roots into the next sentence and then joins sentences (UD Docs of
    10 sentences: sentence F1 61 vs 71 for arc_hybrid static on Hungarian-Szeged). So when
    s0 is a gold root and a ROOT class costs 0, every other zero-cost class gets cost 1:
    ROOT is the one target, as in the static oracles. The target stays a subset of the
    optimal moves, so following it loses nothing; the costs of set_costs (and the
    Simulator's) are unchanged."""
    cdef int head[N_MOVES]
    cdef int child[N_MOVES]
    cdef int w
    system.move_arcs(st, head, child)
    w = child[ROOT]
    if w < 0 or w >= gold.length or gold.heads[w] != w:
        return
    keep_only_move(system, is_valid, costs, ROOT)


cdef void keep_only_move(DynOracleSystem system, const int* is_valid, weight_t* costs,
                         int move) noexcept nogil:
    """If a class of `move` costs 0, every other zero-cost class gets cost 1: `move` is the
    one target (eager_root_target, static_target). Otherwise nothing changes, so the target
    stays a non-empty subset of the optimal classes."""
    cdef int i
    cdef bint optimal = False
    for i in range(system.n_moves):
        if system.c[i].move == move and is_valid[i] and costs[i] <= 0:
            optimal = True
            break
    if not optimal:
        return
    for i in range(system.n_moves):
        if system.c[i].move != move and is_valid[i] and costs[i] <= 0:
            costs[i] = 1


cdef void drop_moves(DynOracleSystem system, const int* is_valid, weight_t* costs,
                     const bint* dropped) noexcept nogil:
    """If a class of a move not in `dropped` (flags by move id) costs 0, the zero-cost
    classes of the dropped moves get cost 1: they are no target (drop_move,
    defer_last_target; keep_only_move's mirror). Otherwise nothing changes, so the target
    stays a non-empty subset of the optimal classes."""
    cdef int i
    cdef bint other = False
    for i in range(system.n_moves):
        if not dropped[system.c[i].move] and is_valid[i] and costs[i] <= 0:
            other = True
            break
    if not other:
        return
    for i in range(system.n_moves):
        if dropped[system.c[i].move] and is_valid[i] and costs[i] <= 0:
            costs[i] = 1


cdef void drop_move(DynOracleSystem system, const int* is_valid, weight_t* costs,
                    int move) noexcept nogil:
    """drop_moves of one move (close_sentences_target, keep_sentences_target)."""
    cdef bint dropped[N_MOVES]
    cdef int m
    for m in range(N_MOVES):
        dropped[m] = m == move
    drop_moves(system, is_valid, costs, dropped)


cdef void defer_last_target(DynOracleSystem system, bint repairs_last, const int* is_valid,
                            weight_t* costs, const StateC* st) noexcept nogil:
    """defer="last": the moves that decide nothing are targets only where no other move is
    optimal. They are SHIFT and arc_eager_nm's unshift, a REDUCE that adds no arc (the move
    table: arc_eager's REDUCE attaches s0 to s1) of a headless s0, which puts s0 back in the
    buffer. Under arc_eager_nm's exact costs both are optimal in every state where they are
    valid (the open words and what each may become do not change), so the target "every
    optimal move" lets a model defer every decision; this one commits (RIGHT, LEFT, a popping
    REDUCE, ROOT) wherever committing is optimal (docs/systems/arc_eager_nm.md, "Training").
    repairs_last: among the committing moves, those whose arc replaces one (its child has a
    head already: arc_eager_nm's repairing LEFT) are targets only where no other committing
    move is optimal. The target stays a non-empty subset of the optimal moves; the costs of
    set_costs are unchanged."""
    cdef bint deferring[N_MOVES]
    cdef int head[N_MOVES]
    cdef int child[N_MOVES]
    cdef int m
    for m in range(N_MOVES):
        deferring[m] = False
    deferring[SHIFT] = True
    deferring[REDUCE] = (system.move_table[REDUCE].child_at == NO_ARC
                         and st.stack_depth() > 0 and not st.has_head(st.S(0)))
    drop_moves(system, is_valid, costs, deferring)
    if not repairs_last:
        return
    system.move_arcs(st, head, child)
    for m in range(N_MOVES):      # deferring moves stay dropped, with the repairs
        deferring[m] = deferring[m] or (child[m] >= 0 and st.has_head(child[m]))
    drop_moves(system, is_valid, costs, deferring)


cdef void close_sentences_target(DynOracleSystem system, const int* is_valid, weight_t* costs,
                                 const StateC* st, const GoldC* gold) noexcept nogil:
    """The close_sentences training target, eager_root's general form. At a gold sentence
    boundary a dynamic oracle lets finished words wait: when every stack word's gold head
    and gold dependents lie left of b0 (the stack holds finished sentences), SHIFT often
    costs 0 as well as the moves that close them (arc_eager's REDUCE, arc_hybrid's and
    arc_standard's RIGHT, ROOT), since they can still be closed after the next sentence is
    reduced. On zero-cost walks over random multi-sentence gold, eager_root's case (s0 a
    gold root, ROOT optimal) is 65% of these states in arc_hybrid and arc_eager and 40% in
    arc_standard; the rest have a finished dependent on s0. So in such a state, if a move
    other than SHIFT is optimal, SHIFT classes get cost 1. The target stays a non-empty
    subset of the optimal moves; the costs of set_costs are unchanged. Gold with an unknown
    head on the stack, or a stack word right of b0 (swap's SWAP), is left alone."""
    cdef int i, s, h
    cdef int b0
    if st.buffer_length() == 0 or st.stack_depth() == 0:
        return
    b0 = st.B(0)
    for i in range(st.stack_depth()):
        s = st.S(i)
        if s >= b0:
            return
        h = gold.heads[s]
        if h < 0 or h >= b0 or gold_kids_from(gold, s, b0) > 0:
            return
    drop_move(system, is_valid, costs, SHIFT)


cdef bint gold_sentence_starts_at(const GoldC* gold, int b) noexcept nogil:
    """No gold arc joins a word left of b to a word at or right of b: b starts a gold
    sentence (unknown heads join nothing). O(b); keep_sentences_target asks it only when
    ROOT of a non-root word is optimal, arc_eager_nm's `spacy` costs once per state."""
    cdef int i, h
    for i in range(b):
        h = gold.heads[i]
        if h >= b or gold_kids_from(gold, i, b) > 0:
            return False
    return True


cdef void keep_sentences_target(DynOracleSystem system, const int* is_valid, weight_t* costs,
                                const StateC* st, const GoldC* gold) noexcept nogil:
    """The keep_sentences training target, close_sentences' mirror. The oracle's loss counts
    heads only, so once a word's gold head is out of reach, making it a root costs no more
    than any wrong head: ROOT is optimal there, and in arc_eager and arc_hybrid (ROOT needs
    s0 alone on the stack) it ends a sentence before b0, inside the gold sentence. A
    converged arc_eager model makes such false roots where its own errors have lost a head
    (Latin-Perseus test: 106 of the 128 false roots it made inside a gold sentence were
    optimal; docs/systems/arc_eager.md "Sentence segmentation"), while spaCy's BREAK costs 1
    wherever B(1) does not start a gold sentence. So when ROOT would make a word whose known
    gold head is another word a root, b0 exists and does not start a gold sentence, and a
    move other than ROOT is optimal, ROOT classes get cost 1. The target stays a non-empty
    subset of the optimal moves; the costs of set_costs are unchanged."""
    cdef int head[N_MOVES]
    cdef int child[N_MOVES]
    cdef int i, w, h
    cdef bint root_optimal = False
    if st.buffer_length() == 0:
        return
    system.move_arcs(st, head, child)
    w = child[ROOT]
    if w < 0 or w >= gold.length:
        return
    h = gold.heads[w]
    if h < 0 or h == w:
        return
    for i in range(system.n_moves):
        if system.c[i].move == ROOT and is_valid[i] and costs[i] <= 0:
            root_optimal = True
            break
    if root_optimal and not gold_sentence_starts_at(gold, st.B(0)):
        drop_move(system, is_valid, costs, ROOT)


cdef void static_target(DynOracleSystem system, const int* is_valid, weight_t* costs,
                        const StateC* st, const GoldC* gold) noexcept nogil:
    """target="static": the static oracle's move is the one target where one of its classes
    is optimal. Exact costs make every optimal move a target, and where many move sequences
    build the same tree (swap, attardi, arc_standard, lr_spine) that spreads the loss over
    spurious alternatives; the static oracle's preference picks one of them consistently,
    while off its path (exploration) every optimal move stays a target. Every system's
    static_move is defined in any state; where it is not optimal nothing is narrowed."""
    cdef int m = system.oracle_static_move(st, gold)
    if m >= 0:
        keep_only_move(system, is_valid, costs, m)


cdef void best_zero_cost_target(int n, const int* is_valid, weight_t* costs,
                                const float* scores) noexcept nogil:
    """target="model_best": the best-scoring zero-cost class is the one target (Goldberg &
    Nivre's update towards the model's own best optimal move); the other zero-cost classes
    get cost 1, so the log loss no longer spreads probability over them."""
    cdef int i
    cdef int best = -1
    for i in range(n):
        if is_valid[i] and costs[i] <= 0 and (best == -1 or scores[i] > scores[best]):
            best = i
    for i in range(n):
        if i != best and is_valid[i] and costs[i] <= 0:
            costs[i] = 1


def check_target_temperature(value, target, explicit=True):
    """The system option target_temperature as a float: finite and > 0. With
    target="model_best" one target class leaves nothing to weigh: a value the config sets
    (explicit) must be 1.0, a system's default becomes 1.0."""
    try:
        temperature = float(value)
    except (TypeError, ValueError):
        temperature = None
    if isinstance(value, bool) or temperature is None or not (0.0 < temperature < INFINITY):
        raise ValueError(f"system option target_temperature={value!r} is not a finite number "
                         f"> 0 (1.0: spaCy's loss; below 1 sharper, above 1 flatter)")
    if temperature != 1.0 and target == "model_best":
        if not explicit:
            return 1.0
        raise ValueError(f"system option target_temperature={value!r} needs target='all' or "
                         f"'static': target='model_best' trains towards one class (the limit "
                         f"of target_temperature -> 0), so only 1.0 is valid with it")
    return temperature


cdef void tempered_log_loss(float* d_scores, const weight_t* costs, const int* is_valid,
                            const float* scores, int n, double temperature) noexcept nogil:
    """spaCy's multi-label log loss (spacy.ml.parser_model.cpu_log_loss, the same softmax
    over every class and the same zero-cost set) with the target distribution at a
    temperature: d_i = softmax(scores)_i - q_i, q_i = exp(score_i / T) / sum over the
    zero-cost classes, 0 elsewhere. T = 1 is cpu_log_loss (the gradient of
    -log sum_zero-cost p_i); T -> 0 puts q on the best-scoring zero-cost class
    (best_zero_cost_target); T -> infinity spreads it evenly over them."""
    cdef int i
    cdef int guess = -1, best = -1
    cdef float min_cost = 1
    cdef double z = 1e-10, gz = 1e-10
    for i in range(n):
        if guess == -1 or scores[i] > scores[guess]:
            guess = i
        if is_valid[i] and costs[i] < min_cost:
            min_cost = costs[i]
    for i in range(n):
        if is_valid[i] and costs[i] <= min_cost and (best == -1 or scores[i] > scores[best]):
            best = i
    if best == -1 or guess == -1:
        return                     # as cpu_log_loss: no zero-cost class, no loss
    for i in range(n):
        z += exp(scores[i] - scores[guess])
        if costs[i] <= costs[best]:
            gz += exp((scores[i] - scores[best]) / temperature)
    for i in range(n):
        d_scores[i] = exp(scores[i] - scores[guess]) / z
        if costs[i] <= costs[best]:
            d_scores[i] -= exp((scores[i] - scores[best]) / temperature) / gz


cdef void training_target(DynOracleSystem system, const TargetOptions* options,
                          const int* is_valid, weight_t* costs, const StateC* st,
                          const GoldC* gold) noexcept nogil:
    """The zero-cost classes greedy training uses: the exact ones, narrowed by the options
    that need no scores (target="model_best" is applied by step_batch)."""
    if options.eager_root:
        eager_root_target(system, is_valid, costs, st, gold)
    # before close_sentences: where a stack of finished words sits before a b0 that does not
    # start a gold sentence (a popped word's lost head lies right of it), closing them is
    # the false boundary keep_sentences avoids
    if options.keep_sentences:
        keep_sentences_target(system, is_valid, costs, st, gold)
    if options.close_sentences:
        close_sentences_target(system, is_valid, costs, st, gold)
    if options.target == TARGET_STATIC:
        static_target(system, is_valid, costs, st, gold)
    # last: it narrows what the others leave (after static_target only where the static
    # move is not optimal)
    if options.defer != DEFER_FREE:
        defer_last_target(system, options.defer == DEFER_REPAIRS_LAST, is_valid, costs, st)


cdef int direction_from_ends(int head_at, int child_at) noexcept:
    """The direction in word order of an arc between two ends of the move table, for a stack
    in word order: deeper stack words come first, the buffer front last."""
    if (head_at == NO_ARC or child_at == NO_ARC or head_at == AT_SYSTEM
            or child_at == AT_SYSTEM or head_at == child_at):
        return DIRECTION_NOT_FIXED
    # AT_S0 + k is S(k): the larger, the further left; AT_B0 right of the whole stack
    if child_at == AT_B0 or (head_at != AT_B0 and head_at > child_at):
        return RIGHTWARD
    return LEFTWARD


def _rebuild(cls, strings, labels, cfg, oracle):
    options = {k: v for k, v in cfg.items() if k in cls.options}
    obj = cls(strings, projectivize=cfg.get("projectivize"), oracle=oracle, **options)
    obj.cfg.update(cfg)
    obj.initialize_actions(labels)
    return obj


def replace_parser_moves(Parser parser, DynOracleSystem moves):
    """Give a parser another transition system (spaCy's Parser.moves is readonly from
    Python): loading rebuilds the system when its saved settings are not the ones it was
    built with (load_overrides.py)."""
    parser.moves = moves
