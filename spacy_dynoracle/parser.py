"""DynOracleParser: spaCy's DependencyParser with the package's transition systems and an
exploration schedule (Goldberg & Nivre 2013, docs/specs/arc_eager_hybrid_easyfirst.md §7.3).

Training follows the oracle (the best-scoring zero-cost move) for the first
`explore_after_epochs` epochs, then the model's own prediction with probability
`explore_prob`, per state and step (`explore_rule = "prob"`). `"anneal"` ramps that
probability up linearly over `explore_ramp_epochs` epochs; `"margin"` follows a wrong
prediction only when the best zero-cost move scores within `explore_margin` of it
(moves.step_batch). `oracle="static"` trains on one canonical move per state and always
follows it. Costs are computed once per state (moves.step_batch).
"""
import contextlib
import math
import random
import warnings

import numpy
from spacy.pipeline._parser_internals import nonproj
from spacy.pipeline.dep_parser import DependencyParser
from spacy.tokens import Doc
from spacy.training import validate_examples
from thinc.api import set_dropout_rate

from . import load_compiled
from .load_overrides import LoadsConfigOverrides
from .exact_decoding import (check_exact_config, exact_states, preset_boundaries, set_marginals,
                             window_class_scores_batch)


class ExplorationSchedule:
    """The exploration schedule of training (explore_after_epochs, explore_prob,
    explore_rule in `cfg`), shared by the parser components (DynOracleParser; easy-first's
    EasyFirstParser): the current epoch and which states follow the oracle."""
    #: current training epoch (0-based), set by the spacy_dynoracle.set_epoch.v1 callback
    epoch = None
    #: training states stepped by update() and, of those, how many took a move that costs
    #: > 0 (exploration that left the oracle's paths; moves.step_batch's count)
    n_train_states = 0
    n_off_path = 0
    _warned_no_epoch = False

    def explore_prob_now(self, epoch: int) -> float:
        """The probability that a state explores at this epoch: 0 before epoch k
        (explore_after_epochs), then explore_prob; with explore_rule="anneal" it ramps
        linearly from 0 at epoch k to explore_prob at epoch k + explore_ramp_epochs."""
        k = self.cfg.get("explore_after_epochs", 0)
        p = self.cfg.get("explore_prob", 1.0)
        if epoch < k:
            return 0.0
        if self.cfg.get("explore_rule", "prob") == "anneal":
            return p * min(1.0, (epoch - k) / self.cfg.get("explore_ramp_epochs", 1))
        return p

    def follow_oracle_mask(self, n: int) -> numpy.ndarray:
        """Per state: 1 = follow the oracle's best zero-cost move, 0 = explore (the model's
        prediction, which explore_rule="margin" narrows in moves.step_batch)."""
        if not self.moves.explores:  # static oracles: always follow the oracle
            return numpy.ones((n,), dtype=numpy.uint8)
        k = self.cfg.get("explore_after_epochs", 0)
        p = self.cfg.get("explore_prob", 1.0)
        epoch = self.epoch
        if epoch is None:
            epoch = 0
            if k > 0 and p > 0 and not self._warned_no_epoch:
                warnings.warn(
                    f"{self.name}: the training epoch is unknown, so exploration "
                    f"(explore_after_epochs={k}) never starts. Add\n"
                    "[training.before_update]\n@callbacks = \"spacy_dynoracle.set_epoch.v1\"\n"
                    "to the training config."
                )
                self._warned_no_epoch = True
        p = self.explore_prob_now(epoch)
        if p <= 0.0:
            return numpy.ones((n,), dtype=numpy.uint8)
        if p >= 1.0:
            return numpy.zeros((n,), dtype=numpy.uint8)
        return (numpy.random.random(n) >= p).astype(numpy.uint8)


def check_nonprojective_penalty(value, moves, decode="greedy") -> float:
    """The parse-time penalty on the moves that make non-projective structure (component
    setting nonprojective_penalty), as a float; ValueError naming the bad value and the
    valid ones. 0 = no penalty (every system, every decoder)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"dynoracle_parser: nonprojective_penalty={value!r} is invalid; use a "
                         "finite number (a score difference; 0 = no penalty)")
    if value == 0:
        return 0.0
    if not moves.nonprojective_move_types:
        raise ValueError(
            f"dynoracle_parser: nonprojective_penalty={value!r} has no effect with transition_system "
            f"{moves.name!r}: its move table declares no move that makes non-projective structure "
            "(swap's SWAP and attardi's moves of degree >= 2 are); the non-projective arcs of a "
            "projective system come from lifting (projectivize), which decoding does not see. "
            "Use nonprojective_penalty = 0")
    if decode != "greedy":
        raise ValueError(
            f"dynoracle_parser: nonprojective_penalty={value!r} is not supported with "
            f"decode={decode!r}; it applies to decode='greedy' (spaCy's greedy loop or, with "
            "beam_width >= 2, the beam), or use nonprojective_penalty = 0")
    return float(value)


@contextlib.contextmanager
def penalised_scores(model, mask, penalty: float):
    """Within the block, the parser model's scores are lowered by `penalty` for the classes
    where `mask` is 1 (moves.nonprojective_class_mask()): the upper layer's bias b, which
    spaCy's C greedy loop (get_c_weights), state_features.greedy_parse and the beam's step
    model all add to every score, is replaced by b - penalty * mask. The parameter is set
    to a new array and the original array object is put back on exit, error or not, so
    neither training (update does not predict) nor the saved weights see the penalty."""
    if not model.attrs.get("has_upper"):
        raise ValueError("dynoracle_parser: nonprojective_penalty needs the parser model's upper "
                         "layer (use_upper = true): it lowers that layer's bias")
    upper = model.get_ref("upper")
    bias = upper.get_param("b")
    if bias.shape != mask.shape:
        raise ValueError(f"dynoracle_parser: the model scores {bias.shape[0]} classes, the "
                         f"transition system has {mask.shape[0]}")
    upper.set_param("b", bias - upper.ops.asarray(mask * penalty, dtype=bias.dtype))
    try:
        yield
    finally:
        upper.set_param("b", bias)


class DynOracleParser(LoadsConfigOverrides, ExplorationSchedule, DependencyParser):
    """spaCy's parser with the package's transition systems (module docstring); loaded with
    spacy.load(path, config=...), a config value that differs from the saved pipeline's wins
    where it is read only at parse or training time (LoadsConfigOverrides)."""
    _warned_greedy_beam = False

    def _replace_moves(self, moves):
        load_compiled("system_base").replace_parser_moves(self, moves)

    @property
    def nonprojective_penalty(self) -> float:
        """What cfg["nonprojective_penalty"] subtracts from the score of every class of the
        system's non-projective moves when parsing (0 = nothing; docs/systems/swap.md and
        attardi.md, "A parse-time penalty on crossing arcs"). Settable on a loaded pipeline:
        the cfg is saved with it."""
        return check_nonprojective_penalty(self.cfg.get("nonprojective_penalty", 0.0),
                                           self.moves, self.cfg.get("decode", "greedy"))

    @nonprojective_penalty.setter
    def nonprojective_penalty(self, value):
        check_nonprojective_penalty(value, self.moves, self.cfg.get("decode", "greedy"))
        self.cfg["nonprojective_penalty"] = float(value)

    @property
    def postprocesses(self):
        # Lifted (pseudo-projective) training needs its labels decoded; native
        # non-projective systems emit plain labels and skip this.
        if self.moves.projectivize:
            return (nonproj.deprojectivize,)
        return ()

    def predict(self, docs):
        """decode="exact": the model's best computation by the tabulation
        (exact_decoding.py, docs/tabulation.md); otherwise spaCy's greedy/beam search, with
        the scores of the non-projective moves lowered by nonprojective_penalty."""
        penalty = self.nonprojective_penalty
        if penalty != 0.0:
            with penalised_scores(self.model, self.moves.nonprojective_class_mask(), penalty):
                return super().predict(docs)
        if self.cfg.get("decode", "greedy") == "exact":
            docs = [docs] if isinstance(docs, Doc) else docs
            scores = window_class_scores_batch(self, docs)
            if self.cfg.get("arc_marginals"):       # reused by set_annotations
                self._window_scores = {id(doc): S for doc, S in zip(docs, scores)}
            return exact_states(self, docs, scores=scores)
        return super().predict(docs)

    def set_annotations(self, docs, states_or_beams):
        presets = None
        if self.cfg.get("arc_marginals"):
            docs = [docs] if isinstance(docs, Doc) else list(docs)
            # the preset sentence boundaries constrain the marginals: read them before
            # the parse overwrites them
            presets = [preset_boundaries(doc) for doc in docs]
        super().set_annotations(docs, states_or_beams)
        if self.cfg.get("arc_marginals"):
            cache = self.__dict__.pop("_window_scores", None) or {}
            set_marginals(self, docs, scores=[cache.get(id(doc)) for doc in docs],
                          presets=presets)

    def greedy_parse(self, docs, drop=0.0):
        """spaCy's C loop hard-codes StateC.set_context_tokens; models with their own
        feature template (SpineParserModel.v1, architectures.py) are parsed by the same
        loop reading the template (state_features.greedy_parse)."""
        template = self.model.attrs.get("feature_template")
        if template is None:
            return super().greedy_parse(docs, drop=drop)
        self._ensure_labels_are_added(docs)
        set_dropout_rate(self.model, drop)
        batch = self.moves.init_batch(docs)
        step_model = self.model.predict(docs)
        load_compiled("state_features").greedy_parse(self, batch, step_model, template,
                                                      self.model.attrs["max_k"])
        step_model.clear_memory()
        return batch

    def update(self, examples, *, drop=0.0, sgd=None, losses=None):
        """spaCy's Parser.update with the transition step replaced by moves.step_batch,
        which computes each state's costs once for both the loss and the move to follow."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        validate_examples(examples, "DynOracleParser.update")
        for multitask in self._multitasks:
            multitask.update(examples, drop=drop, sgd=sgd)
        n_examples = len([eg for eg in examples if self.moves.has_gold(eg)])
        if n_examples == 0:
            return losses
        set_dropout_rate(self.model, drop)
        if self.cfg["beam_width"] >= 2 and self.cfg["beam_update_prob"] <= 0.0 \
                and not self._warned_greedy_beam:
            # spaCy's setting, kept, but easy to miss: beam_width alone only changes decoding
            warnings.warn(
                f"{self.name}: beam_width={self.cfg['beam_width']} with beam_update_prob=0: "
                "training updates are greedy and the beam is used only when parsing. Set "
                "beam_update_prob > 0 to train with the beam (0.5 is spaCy's beam_parser default).")
            self._warned_greedy_beam = True
        if self.cfg["beam_width"] >= 2 and numpy.random.random() < self.cfg["beam_update_prob"]:
            # the beam update reads cost values, not only the zero-cost set (beam_update_costs)
            with self.moves.beam_update_costs():
                return self.update_beam(examples, beam_width=self.cfg["beam_width"], sgd=sgd,
                                        losses=losses, beam_density=self.cfg["beam_density"])
        max_moves = self.cfg["update_with_oracle_cut_size"]
        if max_moves >= 1:
            # Chop long sequences into segments that start on the oracle path, as spaCy does.
            max_moves = int(random.uniform(max_moves // 2, max_moves * 2))
            states, golds, _ = self._init_gold_batch(examples, max_length=max_moves)
        else:
            states, golds, _ = self.moves.init_gold_batch(examples)
        if not states:
            return losses
        model, backprop_tok2vec = self.model.begin_update([eg.x for eg in examples])
        unseen = self.model.attrs["unseen_classes"]
        seen = numpy.zeros((self.moves.n_moves,), dtype=numpy.uint8)
        loss = 0.0
        n_moves = 0
        while states:
            scores, backprop = model.begin_update(states)
            d_scores = numpy.zeros(scores.shape, dtype="f")
            follow = self.follow_oracle_mask(len(states))
            self.n_off_path += self.moves.step_batch(
                states, golds, scores, d_scores, follow, seen,
                explore_rule=self.cfg.get("explore_rule", "prob"),
                explore_margin=self.cfg.get("explore_margin", 1.0))
            self.n_train_states += len(states)
            loss += float((d_scores ** 2).sum())
            backprop(d_scores)
            keep = [i for i, s in enumerate(states) if not s.is_final()]
            states = [states[i] for i in keep]
            golds = [golds[i] for i in keep]
            if max_moves >= 1 and n_moves >= max_moves:
                break
            n_moves += 1
        for clas in numpy.flatnonzero(seen):
            unseen.discard(int(clas))
        losses[self.name] += loss
        backprop_tok2vec(golds)
        if sgd not in (None, False):
            self.finish_update(sgd)
        del backprop
        del backprop_tok2vec
        model.clear_memory()
        del model
        return losses


def arc_marginals_parser(nlp, enable: bool = True):
    """The pipeline's dynoracle_parser that can give arc marginals (a window model and a
    system with a chart), with `arc_marginals` switched on in its cfg if `enable` (the
    marginals are a function of the trained model alone, so a window-model pipeline trained
    with arc_marginals = false gives them too). ValueError saying why otherwise."""
    parsers = [(name, pipe) for name, pipe in nlp.pipeline if isinstance(pipe, DynOracleParser)]
    if not parsers:
        raise ValueError(
            "this pipeline has no arc marginals: they need a dynoracle_parser with the window "
            "model (spacy_dynoracle.WindowParserModel.v1) and arc_marginals = true "
            f"(pipeline: {', '.join(nlp.pipe_names) or 'empty'}; see docs/tabulation.md)")
    errors = []
    for name, parser in parsers:
        try:
            check_exact_config(parser.model, parser.cfg.get("transition_system", "arc_hybrid"))
        except ValueError as e:
            errors.append(f"{name}: {e}")
            continue
        if enable:
            parser.cfg["arc_marginals"] = True
        return parser
    raise ValueError("this pipeline has no arc marginals: " + "; ".join(errors))
