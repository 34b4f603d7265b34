"""EasyFirstParser: the `dynoracle_parser` component for easy-first (transition_system =
"easy_first"), a system with its own state (a pending list, easy_first.pyx) that spaCy's
StateC parser cannot drive (docs/systems/easy_first.md, part 2).

The parts it shares with DynOracleParser are reused: the factory's config keys and checks,
the exploration schedule (ExplorationSchedule), the gold (DynGold, attach_oracle), the label
back-off 'dep' and ROOT (docs/conventions.md), spaCy's lifting (projectivize) and scorer.
What is its own: the model (architectures.EasyFirstModel.v1), the parse loop and the
training episode (easy_first_parse.pyx, one Cython call per batch), and the label table
(cfg["labels"], saved with the cfg).
"""
from collections import Counter
from itertools import islice

import numpy
from spacy.pipeline._parser_internals import nonproj
from spacy.pipeline.trainable_pipe import TrainablePipe
from spacy.tokens import Doc
from spacy.training import validate_examples, validate_get_examples
from thinc.api import set_dropout_rate

from . import load_compiled
from .load_overrides import LoadsConfigOverrides
from .parser import ExplorationSchedule

BACKOFF_LABEL = "dep"
ROOT_LABEL = "ROOT"


def gold_sentence_spans(heads):
    """The shortest spans (start, end) that no gold arc crosses: the gold sentences (a
    word with an unknown head (None) attaches nowhere)."""
    n = len(heads)
    covered = [0] * (n + 1)     # covered[k] > 0: an arc joins a word < k to one >= k
    for i, h in enumerate(heads):
        if h is not None and h >= 0 and h != i:
            covered[min(i, h) + 1] += 1
            covered[max(i, h) + 1] -= 1
    spans, start, open_arcs = [], 0, 0
    for k in range(1, n + 1):
        open_arcs += covered[k]
        if k == n or open_arcs == 0:
            spans.append((start, k))
            start = k
    return spans


def training_segments(heads, max_length):
    """Consecutive gold sentences packed into segments of at most max_length words (a
    longer sentence is a segment of its own); one segment if max_length < 1."""
    if max_length < 1:
        return [(0, len(heads))]
    segments = []
    for start, end in gold_sentence_spans(heads):
        if segments and end - segments[-1][0] <= max_length:
            segments[-1] = (segments[-1][0], end)
        else:
            segments.append((start, end))
    return segments


class EasyFirstParser(LoadsConfigOverrides, ExplorationSchedule, TrainablePipe):
    """Easy-first (Goldberg & Elhadad 2010) with GN13's dynamic oracle as a spaCy pipe. Its
    transition system is not saved (its options live in the config only); loading settles
    the cfg's values against the config (LoadsConfigOverrides)."""
    saves_moves = False

    def __init__(self, vocab, model, name, moves, *, projectivize, update_with_oracle_cut_size,
                 min_action_freq, scorer, **schedule):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.moves = moves
        self.scorer = scorer
        self.cfg = {"labels": [], "projectivize": bool(projectivize),
                    "update_with_oracle_cut_size": update_with_oracle_cut_size,
                    "min_action_freq": min_action_freq, **schedule}

    @property
    def labels(self):
        return tuple(self.cfg["labels"])

    def add_label(self, label):
        if label in self.cfg["labels"] or label == ROOT_LABEL:
            return 0
        self.cfg["labels"].append(label)
        return 1

    @property
    def postprocesses(self):
        return (nonproj.deprojectivize,) if self.cfg["projectivize"] else ()

    def _label_ids(self):
        return [self.vocab.strings.add(label) for label in self.cfg["labels"]]

    def initialize(self, get_examples, *, nlp=None, labels=None):
        """The label table (the gold arcs' labels, lifted with projectivize, seen at least
        min_action_freq times, and the back-off 'dep'), then the model."""
        validate_get_examples(get_examples, "EasyFirstParser.initialize")
        if labels is None:
            counts = Counter()
            for eg in get_examples():
                heads, deps = eg.get_aligned_parse(projectivize=self.cfg["projectivize"])
                counts.update(dep for i, (h, dep) in enumerate(zip(heads, deps))
                              if h is not None and h != i and dep)
            labels = sorted(lab for lab, freq in counts.items()
                            if freq >= self.cfg["min_action_freq"])
        self.cfg["labels"] = [lab for lab in labels if lab not in (ROOT_LABEL, BACKOFF_LABEL)] \
            + [BACKOFF_LABEL]
        self.model.attrs["resize_output"](self.model, 1 + 2 * len(self.cfg["labels"]))
        docs = [eg.predicted for eg in islice(get_examples(), 10)]
        self.model.initialize(X=docs)

    def gold_label_ids(self, heads, deps):
        """GoldC's label per word: ROOT for a root, None (no label cost) where the head or
        label is unknown, the label if the table has it, else the back-off 'dep'."""
        known = set(self.cfg["labels"])
        strings = self.vocab.strings
        return [None if h is None or h < 0 else strings.add(ROOT_LABEL) if h == i
                else None if not dep else strings.add(dep if dep in known else BACKOFF_LABEL)
                for i, (h, dep) in enumerate(zip(heads, deps))]

    def predict(self, docs):
        """One final EasyFirstState per Doc (None for an empty one), parsed greedily."""
        docs = [docs] if isinstance(docs, Doc) else list(docs)
        system = load_compiled("easy_first")
        states = [system.EasyFirstState.from_doc(doc) if len(doc) else None for doc in docs]
        live = [i for i, state in enumerate(states) if state is not None]
        if live:
            scores = self.model.predict(docs)
            load_compiled("easy_first_parse").parse_batch(
                [states[i] for i in live], [scores.row0s[i] for i in live], scores.Yf,
                scores.lower_b, scores.upper_W, scores.upper_b, self._label_ids(),
                self.vocab.strings.add(ROOT_LABEL))
        return states

    def set_annotations(self, docs, states):
        docs = [docs] if isinstance(docs, Doc) else docs
        parse = load_compiled("easy_first_parse")
        for doc, state in zip(docs, states):
            if state is not None:
                parse.set_annotations(state, doc)
                for postprocess in self.postprocesses:
                    postprocess(doc)

    def training_states(self, examples):
        """(states, golds, example index, first word) of every training segment: each Doc
        cut at gold sentence boundaries into segments of at most update_with_oracle_cut_size
        words (easy-first's states are not left to right, so spaCy's cut along the oracle
        path does not apply; docs/systems/easy_first.md)."""
        system = load_compiled("easy_first")
        DynGold = load_compiled("system_base").DynGold
        out = ([], [], [], [])
        for d, eg in enumerate(examples):
            if not any(token.dep for token in eg.reference):
                continue
            heads, deps = eg.get_aligned_parse(projectivize=self.cfg["projectivize"])
            labels = self.gold_label_ids(heads, deps)
            for start, end in training_segments(heads, self.cfg["update_with_oracle_cut_size"]):
                gold = DynGold([None if h is None else h - start for h in heads[start:end]],
                               labels[start:end])
                self.moves.attach_oracle(gold)
                for part, value in zip(out, (system.EasyFirstState.from_doc(eg.predicted, start, end),
                                             gold, d, start)):
                    part.append(value)
        return out

    def update(self, examples, *, drop=0.0, sgd=None, losses=None):
        """One batch: every segment's whole episode in one Cython call
        (easy_first_parse.train_batch), the multi-label log loss over its zero-cost
        classes, following the oracle or, past explore_after_epochs, the model."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        validate_examples(examples, "EasyFirstParser.update")
        states, golds, doc_of, starts = self.training_states(examples)
        if not states:
            return losses
        set_dropout_rate(self.model, drop)
        scores, backprop = self.model.begin_update([eg.predicted for eg in examples])
        max_n = max(len(gold) for gold in golds)
        follow = numpy.ascontiguousarray(
            self.follow_oracle_mask(len(states) * max_n).reshape((len(states), max_n)))
        margin = self.cfg["explore_margin"] if self.cfg["explore_rule"] == "margin" else -1.0
        gradients = scores.gradients()
        loss, n_steps, n_off = load_compiled("easy_first_parse").train_batch(
            self.moves, states, golds, [scores.row0s[d] + s for d, s in zip(doc_of, starts)],
            follow, scores.Yf, scores.lower_b, scores.upper_W, scores.upper_b,
            self._label_ids(), self.vocab.strings.add(ROOT_LABEL), margin, *gradients)
        self.n_train_states += n_steps
        self.n_off_path += n_off
        backprop(gradients)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses


def make_easy_first_parser(nlp, name, model, moves, *, projectivize, update_with_oracle_cut_size,
                           min_action_freq, scorer, unsupported, **schedule):
    """The factory's component for easy_first (factory.make_dynoracle_parser dispatches
    here): refuses the keys that have no meaning for it (`unsupported`: {key: (value,
    the only accepted value)}) and a model that is not EasyFirstModel.v1."""
    for key, (value, accepted) in unsupported.items():
        if value != accepted:
            raise ValueError(f"dynoracle_parser: {key}={value!r} is not supported with "
                             f"transition_system 'easy_first'; use {accepted!r}")
    if not model.attrs.get("easy_first"):
        raise ValueError(
            "dynoracle_parser: transition_system 'easy_first' needs the model "
            "spacy_dynoracle.EasyFirstModel.v1 (it scores pairs of the pending list); set "
            "@architectures = \"spacy_dynoracle.EasyFirstModel.v1\" in the component's model "
            f"block (got {model.name!r})")
    return EasyFirstParser(nlp.vocab, model, name, moves,
                           projectivize=True if projectivize is None else projectivize,
                           update_with_oracle_cut_size=update_with_oracle_cut_size,
                           min_action_freq=min_action_freq, scorer=scorer, **schedule)
