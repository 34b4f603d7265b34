"""Simulator: drive a transition system of the package by hand, through the very Cython
transitions and cost functions that training uses (not a Python re-implementation).

    from spacy_dynoracle.testing import Simulator
    sim = Simulator("arc_hybrid", 5)                 # options as in the config
    sim.actions()                 # ['SHIFT'] - valid unlabelled actions, stable names
    sim.costs([1, 1, 1, 4, 4])    # {'SHIFT': 0} - cost of every valid action
    sim.apply("SHIFT"); sim.copy(); sim.is_final()
    sim.heads()                   # head per word; a root points to itself; -1 = not attached
    sim.stack(), sim.buffer()     # word indices; stack bottom->top, buffer front->back

Gold heads use the same convention (a root points to itself, -1 = unknown); a forest is
several sentences. The loss of a final state is the number of words whose head differs
from gold. A dynamic oracle is exact when, in every reachable state,
`costs[a] == minloss(after a) - minloss(now)` for every valid `a`.

The contract above is stable; everything else here is an extension:

* `Simulator(..., labels=["a", "b"])` adds labelled classes; `actions(labelled=True)`
  lists them as "LEFT-a", and `costs(gold_heads, gold_labels)` returns the labelled costs
  exactly as `set_costs` gives them to training (normalised: cheapest valid class 0; a gold
  label the arc's moves do not carry backs off to "dep", as in `init_gold`).
  `left_labels` / `right_labels` are labels seen on leftward / rightward arcs only: the
  system's class table (`class_table`) gives them to every arc move, or with
  `label_sets="per_direction"` to the moves of that direction.
* `Simulator(..., sent_starts=[1, 0, -1, ...])` presets sentence boundaries (spaCy's
  `Token.is_sent_start`: 1 starts a sentence, -1 cannot, 0 unknown).
* `sim.labels()` gives the label of each attached word.
* `sim.training_costs(gold_heads, gold_labels)`: the labelled costs greedy training uses,
  i.e. `costs(...)` narrowed by the `eager_root`, `close_sentences`, `keep_sentences`, `target`
  and `defer` options
  (`Simulator(..., eager_root=True)`).

Systems with their own state instead of spaCy's StateC (`LIST_SYSTEMS`: easy-first) get a
`ListSimulator` with the same contract: actions are named by move and place ("ROOT",
"RIGHT@2", "LEFT@2": pair 2 of the pending list), `stack()` is the pending list and
`buffer()` is empty.

`python_step_loop(parser, docs)`: the reference greedy parse of a parser (tests, benchmarks).
"""
from typing import Dict, List, Optional, Sequence

from spacy.tokens import Doc
from spacy.vocab import Vocab

from . import LIST_SYSTEMS, SYSTEMS, get_system_class, load_compiled

__all__ = ["Simulator", "ListSimulator", "python_step_loop"]


class Simulator:
    def __new__(cls, system: str, *args, **kwargs):
        if cls is Simulator and system in LIST_SYSTEMS:
            return super().__new__(ListSimulator)
        return super().__new__(cls)

    def __init__(self, system: str, n_words: int, *, labels: Sequence[str] = (),
                 left_labels: Sequence[str] = (), right_labels: Sequence[str] = (),
                 sent_starts: Optional[Sequence[int]] = None, **options):
        if n_words < 1:
            raise ValueError("a Simulator needs at least one word")
        base = load_compiled("system_base")
        self._names = base.MOVE_NAMES
        self._codes = base.MOVE_CODES
        self._gold_class = base.DynGold
        self.system_name = system
        self.n_words = n_words
        self.vocab = Vocab()
        words = [f"w{i}" for i in range(n_words)]
        if sent_starts is not None:
            if len(sent_starts) != n_words:
                raise ValueError("sent_starts needs one value per word")
            starts = [None if s == 0 else bool(s == 1) for s in sent_starts]
            self.doc = Doc(self.vocab, words=words, sent_starts=starts)
        else:
            self.doc = Doc(self.vocab, words=words)
        oracle = options.pop("oracle", None)    # None: the system's default_oracle
        cls = get_system_class(system, SYSTEMS)
        self.moves = cls(self.vocab.strings, projectivize=False, oracle=oracle, **options)
        self._labels = list(labels) + list(left_labels) + list(right_labels)
        # label frequencies per arc direction, "dep" first, then in the order given (the
        # class order of spaCy's initialize_actions)
        counts = {}
        for direction, own in (("leftward", left_labels), ("rightward", right_labels)):
            names = list(labels) + list(own)
            counts[direction] = {"dep": len(names) + 1}
            counts[direction].update({lab: len(names) - i for i, lab in enumerate(names)})
        self.moves.initialize_actions(self.moves.class_table(counts))
        self._gold_cache = None
        from spacy.pipeline._parser_internals.stateclass import StateClass

        self.state = StateClass(self.doc)

    # ---- the contract -----------------------------------------------------------
    def actions(self, labelled: bool = False) -> List[str]:
        """Valid actions now: unlabelled move names, or with labelled=True every valid
        labelled class ("LEFT-a"; moves without labels keep their bare name)."""
        valid = self.moves._sim_moves(self.state)
        if not labelled:
            return [self._names[m] for m in valid]
        out = []
        for i in range(self.moves.n_moves):
            name = self._class_name(i)
            if self._class_move(i) in valid:
                out.append(name)
        return out

    def costs(self, gold_heads: Sequence[int],
              gold_labels: Optional[Sequence[Optional[str]]] = None) -> Dict[str, int]:
        """Cost of every valid action for this gold tree. Unlabelled: the raw move costs of
        the oracle, not normalised. With gold_labels: the labelled class costs that
        set_costs hands to training."""
        gold = self._gold(gold_heads, gold_labels)
        if gold_labels is None:
            costs = self.moves._sim_costs(self.state, gold)
            return {self._names[m]: int(c) for m, c in costs.items()}
        valid, costs = self.moves._sim_class_costs(self.state, gold)
        return {self._class_name(i): int(costs[i])
                for i in range(self.moves.n_moves) if valid[i]}

    def apply(self, action: str) -> "Simulator":
        move, _, label = action.partition("-")
        if move not in self._names:
            raise ValueError(f"unknown action {action!r}; moves are {list(self._names)}")
        m = self._names.index(move)
        if m not in self.moves._sim_moves(self.state):
            raise ValueError(f"action {action!r} is not valid in this state: {self!r}")
        clas = self.moves.class_index(m, label or None)
        if clas < 0:
            raise ValueError(f"no class {action!r} in this simulator")
        self.moves._sim_apply(self.state, clas)
        return self

    def copy(self) -> "Simulator":
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.state = self.state.copy()
        return new

    def is_final(self) -> bool:
        return bool(self.state.is_final())

    def heads(self) -> List[int]:
        return self.moves._sim_heads(self.state)

    def stack(self) -> List[int]:
        return self.moves._sim_stack(self.state)

    def buffer(self) -> List[int]:
        return self.moves._sim_buffer(self.state)

    # ---- extensions ---------------------------------------------------------------
    def training_costs(self, gold_heads: Sequence[int],
                       gold_labels: Sequence[Optional[str]]) -> Dict[str, int]:
        """The labelled class costs greedy training (moves.step_batch) uses: those of
        costs(gold_heads, gold_labels), narrowed by the `eager_root`, `close_sentences`,
        `keep_sentences`, `target` and `defer` options when they are on (target="model_best" narrows by the model's
        scores, in step_batch only: here it shows every zero-cost class)."""
        gold = self._gold(gold_heads, gold_labels)
        valid, costs = self.moves._sim_class_costs(self.state, gold, training=True)
        return {self._class_name(i): int(costs[i])
                for i in range(self.moves.n_moves) if valid[i]}

    def static_move(self, gold_heads: Sequence[int]) -> Optional[str]:
        """The unlabelled move the system's static oracle prefers in this state (defined off
        the gold path too: see each system's static_move), or None."""
        move = self.moves._sim_static_move(self.state, self._gold(gold_heads, None))
        return self._names[move] if move >= 0 else None

    def labels(self) -> List[str]:
        """Label of each word's arc ("" where none; roots: "ROOT" once popped)."""
        out = [""] * self.n_words
        for arc in self.state.arcs:
            out[arc["child"]] = self.vocab.strings[arc["label"]]
        for i, h in enumerate(self.heads()):
            if h == i:
                out[i] = "ROOT"
        return out

    def key(self):
        """Hashable identity of the state (for memoised search)."""
        return (tuple(self.stack()), tuple(self.buffer()), tuple(self.heads()),
                tuple(self.labels()) if self._labels else (),
                self._state_extra())

    def __repr__(self):
        return (f"Simulator({self.system_name!r}, stack={self.stack()}, "
                f"buffer={self.buffer()}, heads={self.heads()})")

    # ---- internals ------------------------------------------------------------------
    def _state_extra(self):
        """What the valid moves depend on besides stack, buffer and arcs (arc_eager_nm's
        unshiftable words), for key()."""
        return self.moves._sim_state_extra(self.state)

    def _class_move(self, i):
        return self._names.index(self._class_name(i).split("-")[0])

    def _class_name(self, i):
        code, _, label = self.moves.get_class_name(i).partition("-")
        name = self._names[self._codes.index(code)]
        return f"{name}-{label}" if label and name != "ROOT" else name

    def _gold_label_ids(self, gold_heads, gold_labels):
        """The label ids the costs read, backed off as training backs them off."""
        return self.moves.gold_label_ids(gold_heads, gold_labels, self.vocab.strings)

    def _gold(self, gold_heads, gold_labels):
        key = (tuple(gold_heads), tuple(gold_labels) if gold_labels is not None else None)
        if self._gold_cache is not None and self._gold_cache[0] == key:
            return self._gold_cache[1]
        if len(gold_heads) != self.n_words:
            raise ValueError(f"gold_heads has {len(gold_heads)} values for {self.n_words} words")
        for i, h in enumerate(gold_heads):
            if not (-1 <= h < self.n_words):
                raise ValueError(f"gold head {h} of word {i} is out of range")
        if gold_labels is None:
            label_ids = [0] * self.n_words
        else:
            label_ids = self._gold_label_ids(list(gold_heads), list(gold_labels))
        gold = self._gold_class(list(gold_heads), label_ids)
        self.moves.attach_oracle(gold)  # per-document oracle data, exactly as init_gold
        self._gold_cache = (key, gold)
        return gold


class ListSimulator(Simulator):
    """The Simulator of a system with its own state (LIST_SYSTEMS): the same contract,
    through the system's compiled state, moves and oracles (easy_first.pyx)."""

    def __init__(self, system: str, n_words: int, *, labels: Sequence[str] = (),
                 sent_starts: Optional[Sequence[int]] = None, **options):
        if n_words < 1:
            raise ValueError("a Simulator needs at least one word")
        base = load_compiled("system_base")
        self._gold_class = base.DynGold
        self.system_name = system
        self.n_words = n_words
        self.vocab = Vocab()
        if sent_starts is not None and len(sent_starts) != n_words:
            raise ValueError("sent_starts needs one value per word")
        cls = get_system_class(system, LIST_SYSTEMS)
        self.moves = cls(self.vocab.strings, **options)
        self._labels = list(labels)
        # every arc carries one of these labels ("dep": spaCy's back-off, as in the other systems)
        self._label_ids = [self.vocab.strings.add(lab) for lab in ["dep"] + self._labels]
        self._gold_cache = None
        module = load_compiled(LIST_SYSTEMS[system][0])
        self.state = module.EasyFirstState(n_words, sent_starts)

    def actions(self, labelled: bool = False) -> List[str]:
        valid = [self.moves.action_name(a) for a in self.moves._sim_actions(self.state)]
        if not labelled:
            return valid
        return [a if a == "ROOT" else f"{a}-{self.vocab.strings[lab]}"
                for a in valid for lab in ([0] if a == "ROOT" else self._label_ids)]

    def costs(self, gold_heads: Sequence[int],
              gold_labels: Optional[Sequence[Optional[str]]] = None) -> Dict[str, int]:
        gold = self._gold(gold_heads, gold_labels)
        if gold_labels is None:
            return {self.moves.action_name(a): int(c)
                    for a, c in self.moves._sim_costs(self.state, gold).items()}
        out = {}
        for (a, lab), c in self.moves._sim_class_costs(self.state, gold, self._label_ids).items():
            name = self.moves.action_name(a)
            out[name if name == "ROOT" else f"{name}-{self.vocab.strings[lab]}"] = int(c)
        return out

    def _gold_label_ids(self, gold_heads, gold_labels):
        """Every label is one the moves carry (one label set, no back-off yet: part 2)."""
        return [self.vocab.strings.add("ROOT") if h == i
                else (0 if lab is None else self.vocab.strings.add(lab))
                for i, (h, lab) in enumerate(zip(gold_heads, gold_labels))]

    def training_costs(self, gold_heads, gold_labels):
        """No training-target options yet (part 2): the labelled costs."""
        return self.costs(gold_heads, gold_labels)

    def apply(self, action: str) -> "ListSimulator":
        name, _, label = action.partition("-")
        act = self.moves.action_id(name)
        if name == "ROOT":
            label_id = self.vocab.strings.add("ROOT")
        else:
            label_id = self.vocab.strings.add(label or "dep")
            if label_id not in self._label_ids:
                raise ValueError(f"no label {label!r} in this simulator; labels are "
                                 f"{['dep'] + self._labels}")
        self.moves._sim_apply(self.state, act, label_id)
        return self

    def static_move(self, gold_heads: Sequence[int]) -> Optional[str]:
        act = self.moves._sim_static_action(self.state, self._gold(gold_heads, None))
        return self.moves.action_name(act) if act >= 0 else None

    def is_final(self) -> bool:
        return bool(self.state.is_final())

    def heads(self) -> List[int]:
        return self.state.heads

    def labels(self) -> List[str]:
        return ["" if h < 0 else self.vocab.strings[lab]
                for h, lab in zip(self.state.heads, self.state.labels)]

    def stack(self) -> List[int]:
        return self.state.pending

    def _state_extra(self):
        return ()

    def buffer(self) -> List[int]:
        return []

def python_step_loop(parser, docs):
    """Greedy parse stepped in Python: the model's ParserStepModel.predict (its
    get_token_ids: the feature template's tokens, as training and beam search read them),
    then parser.transition_states, until every state is final. The reference that
    DynOracleParser.greedy_parse (state_features.greedy_parse, a C loop) must equal, and
    the loop it replaced. Returns the states of moves.init_batch(docs)."""
    batch = parser.moves.init_batch(docs)
    step_model = parser.model.predict(docs)
    states = [state for state in batch if not state.is_final()]
    while states:
        states = parser.transition_states(states, step_model.predict(states))
    step_model.clear_memory()
    return batch
