"""The parse-time penalty on the moves that make non-projective structure
(dynoracle_parser's nonprojective_penalty, issue 19; docs/systems/swap.md and attardi.md,
"A parse-time penalty on crossing arcs")."""
import math
import random

import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_dynoracle.parser import penalised_scores
from spacy_dynoracle.system_base import MOVE_CODES, MOVE_NAMES
from spacy_dynoracle.trees import is_projective
from synthetic import component_config, make_examples, train

HUGE = 1e6      # far above any score difference of a model: no penalised move is ever best

#: the feature template of each system's SpineParserModel (state_features.greedy_parse)
TEMPLATES = {"swap": "swap", "attardi": "attardi"}
TINY_TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None,
                "width": 32, "depth": 2, "embed_size": 500, "window_size": 1,
                "maxout_pieces": 2, "subword_features": True}


def make_nlp(system, parse_loop="spacy", **config):
    """A dynoracle_parser; parse_loop "template" gives it the system's feature template, so
    that greedy parsing runs state_features.greedy_parse instead of spaCy's C loop."""
    if parse_loop == "template":
        config["model"] = {"@architectures": "spacy_dynoracle.SpineParserModel.v1",
                           "feature_template": TEMPLATES[system], "max_k": 2,
                           "hidden_width": 32, "maxout_pieces": 2, "tok2vec": TINY_TOK2VEC}
    # every zero-cost move a target (attardi's default is the static one) at spaCy's loss
    # (swap's default temperature is 2): the few training updates then give a parser that
    # makes the crossing arcs these tests penalise
    config.setdefault("system_options", {"target": "all", "target_temperature": 1.0})
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config=component_config(transition_system=system, **config))
    return nlp


_TRAINED = {}


def trained(system, parse_loop="spacy"):
    """A parser trained a little on non-projective trees (cached per module: tests set the
    penalty and put it back)."""
    key = (system, parse_loop)
    if key not in _TRAINED:
        nlp = make_nlp(system, parse_loop)
        train(nlp, make_examples(nlp.vocab, 60, seed=11, kind="nonprojective", sents_per_doc=2),
              epochs=4)
        _TRAINED[key] = nlp
    return _TRAINED[key]


def sample_docs(vocab, n=40):
    return [Doc(vocab, words=[t.text for t in eg.reference])
            for eg in make_examples(vocab, n, seed=12, kind="nonprojective", min_len=5,
                                    max_len=14)]


def parse(nlp, penalty=0.0, beam_width=1):
    parser = nlp.get_pipe("dynoracle_parser")
    saved = dict(parser.cfg)
    parser.nonprojective_penalty = penalty
    parser.cfg["beam_width"] = beam_width
    try:
        docs = list(nlp.pipe(sample_docs(nlp.vocab)))
    finally:
        parser.cfg.clear()
        parser.cfg.update(saved)
    return docs


def trees(docs):
    return [[(t.head.i, t.dep_) for t in doc] for doc in docs]


def n_nonprojective(docs):
    """The predicted sentences whose tree is not projective."""
    return sum(not is_projective([0 if t.head.i == t.i else t.head.i - sent.start + 1 for t in sent])
               for doc in docs for sent in doc.sents)


def greedy_moves(nlp, docs, penalty):
    """Greedy parse stepped in Python with the penalised scores: (the move names taken,
    the heads), the reference of the C loops' decisions."""
    parser = nlp.get_pipe("dynoracle_parser")
    moves = parser.moves
    codes = [name.split("-")[0] for name in parser.move_names]
    taken = []
    with penalised_scores(parser.model, moves.nonprojective_class_mask(), penalty):
        batch = moves.init_batch(docs)
        step_model = parser.model.predict(docs)
        states = [s for s in batch if not s.is_final()]
        while states:
            scores = step_model.predict(states)
            for state, row in zip(states, scores):
                valid = {MOVE_CODES[m] for m in moves._sim_moves(state)}
                best = max((j for j in range(len(codes)) if codes[j] in valid), key=lambda j: row[j])
                taken.append(MOVE_NAMES[MOVE_CODES.index(codes[best])])
            states = parser.transition_states(states, scores)
        step_model.clear_memory()
    return taken, [[state.H(i) for i in range(len(doc))] for state, doc in zip(batch, docs)]


# ---- the moves each system declares ----------------------------------------------------

@pytest.mark.parametrize("system,options,moves", [
    ("swap", {}, ("SWAP",)),
    ("attardi", {"degree": 2}, ("LEFT_2", "RIGHT_2")),
    ("attardi", {"degree": 3}, ("LEFT_2", "RIGHT_2", "LEFT_3", "RIGHT_3")),
    ("arc_eager", {}, ()), ("arc_hybrid", {}, ()), ("arc_standard", {}, ()),
    ("lr_spine", {"max_k": 3}, ()),
])
def test_each_system_declares_its_nonprojective_moves_in_its_move_table(system, options, moves):
    nlp = make_nlp(system, system_options=options)
    parser = nlp.get_pipe("dynoracle_parser")
    for label in ("nsubj", "obj"):
        parser.add_label(label)
    nlp.initialize()
    assert tuple(MOVE_NAMES[m] for m in parser.moves.nonprojective_move_types) == moves
    mask = parser.moves.nonprojective_class_mask()
    assert mask.dtype == numpy.float32 and mask.shape == (parser.moves.n_moves,)
    codes = [MOVE_CODES[MOVE_NAMES.index(m)] for m in moves]
    assert [bool(x) for x in mask] == [name.split("-")[0] in codes for name in parser.move_names]


# ---- what the penalty does to parses ---------------------------------------------------

@pytest.mark.parametrize("system", ["swap", "attardi"])
@pytest.mark.parametrize("parse_loop", ["spacy", "template"])
def test_huge_penalty_takes_no_nonprojective_move_in_either_greedy_loop(system, parse_loop):
    """spaCy's C loop (the default model) and state_features.greedy_parse (a feature
    template) parse as the Python loop over the same penalised scores, which takes no SWAP /
    degree >= 2 move: the trees are projective, where the unpenalised model makes
    non-projective ones."""
    nlp = trained(system, parse_loop)
    parser = nlp.get_pipe("dynoracle_parser")
    plain = parse(nlp)
    assert n_nonprojective(plain) > 0
    penalised = parse(nlp, HUGE)
    taken, heads = greedy_moves(nlp, sample_docs(nlp.vocab), HUGE)
    assert [[t.head.i for t in doc] for doc in penalised] == heads
    names = {MOVE_NAMES[m] for m in parser.moves.nonprojective_move_types}
    assert not names & set(taken)
    assert n_nonprojective(penalised) == 0
    # without the penalty the same loop takes them
    taken, heads = greedy_moves(nlp, sample_docs(nlp.vocab), 0.0)
    assert names & set(taken)
    assert [[t.head.i for t in doc] for doc in plain] == heads


@pytest.mark.parametrize("system", ["swap", "attardi"])
def test_huge_penalty_in_the_beam_gives_projective_trees(system):
    nlp = trained(system)
    assert n_nonprojective(parse(nlp, 0.0, beam_width=4)) > 0
    assert n_nonprojective(parse(nlp, HUGE, beam_width=4)) == 0


@pytest.mark.parametrize("system", ["swap", "attardi"])
def test_a_moderate_penalty_makes_fewer_nonprojective_trees(system):
    nlp = trained(system)
    counts = [n_nonprojective(parse(nlp, penalty)) for penalty in (0.0, 1.0, HUGE)]
    assert counts[0] >= counts[1] >= counts[2] == 0


@pytest.mark.parametrize("system", ["swap", "attardi"])
def test_penalty_zero_parses_byte_identically_and_leaves_the_weights_alone(system):
    """Penalty 0 is the parse without the setting, byte for byte; a penalised parse leaves
    the model's weights as they were (the bias is swapped for the parse and put back), so
    the next unpenalised parse is the same again."""
    nlp = trained(system)
    parser = nlp.get_pipe("dynoracle_parser")
    weights = parser.model.to_bytes()
    bias = parser.model.get_ref("upper").get_param("b")
    before = [doc.to_bytes() for doc in parse(nlp)]
    parse(nlp, HUGE)
    parse(nlp, 2.0, beam_width=3)
    assert parser.model.to_bytes() == weights
    assert parser.model.get_ref("upper").get_param("b") is bias
    assert [doc.to_bytes() for doc in parse(nlp, 0.0)] == before
    assert parser.cfg.get("nonprojective_penalty", 0.0) == 0.0


def test_the_bias_is_put_back_when_parsing_fails():
    nlp = trained("swap")
    parser = nlp.get_pipe("dynoracle_parser")
    bias = parser.model.get_ref("upper").get_param("b")
    with pytest.raises(RuntimeError):
        with penalised_scores(parser.model, parser.moves.nonprojective_class_mask(), 5.0):
            assert not numpy.array_equal(parser.model.get_ref("upper").get_param("b"), bias)
            raise RuntimeError("parse failed")
    assert parser.model.get_ref("upper").get_param("b") is bias


# ---- training, saving, loading ---------------------------------------------------------

@pytest.mark.parametrize("system", ["swap", "attardi"])
def test_training_is_unaffected_by_the_penalty(system):
    """The penalty is a parse-time setting: training (exploration included) with it set,
    parsing the dev Docs after every epoch as spaCy's training loop does, gives the same
    losses and weights as without it."""
    examples = make_examples(spacy.blank("xx").vocab, 24, seed=9, kind="nonprojective")
    runs = []
    for penalty in (0.0, HUGE):
        nlp = make_nlp(system, explore_after_epochs=1, explore_prob=0.9,
                       nonprojective_penalty=penalty)
        parser = nlp.get_pipe("dynoracle_parser")
        random.seed(0)
        spacy.util.fix_random_seed(0)
        nlp.initialize(lambda: examples)
        history, parses = [], []
        for epoch in range(3):
            parser.epoch = epoch
            losses = {}
            for i in range(0, len(examples), 8):
                nlp.update(examples[i:i + 8], losses=losses)
            history.append(losses["dynoracle_parser"])
            parses.append(n_nonprojective(nlp.pipe(sample_docs(nlp.vocab, 10))))
        runs.append((history, parser.model.to_bytes()))
        assert parser.cfg["nonprojective_penalty"] == penalty
    assert runs[0] == runs[1]
    assert parses[-1] == 0          # the last run parsed with the penalty


def test_the_setting_is_saved_and_can_be_changed_on_a_loaded_pipeline(tmp_path):
    nlp = make_nlp("swap", nonprojective_penalty=HUGE)
    train(nlp, make_examples(nlp.vocab, 60, seed=11, kind="nonprojective", sents_per_doc=2),
          epochs=4)
    parser = nlp.get_pipe("dynoracle_parser")
    assert parser.cfg["nonprojective_penalty"] == HUGE
    expected = trees(nlp.pipe(sample_docs(nlp.vocab)))
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    loaded_parser = loaded.get_pipe("dynoracle_parser")
    assert loaded_parser.cfg["nonprojective_penalty"] == HUGE
    assert loaded_parser.nonprojective_penalty == HUGE
    docs = list(loaded.pipe(sample_docs(loaded.vocab)))
    assert trees(docs) == expected and n_nonprojective(docs) == 0
    loaded_parser.nonprojective_penalty = 0     # an evaluation sweep, without retraining
    parser.nonprojective_penalty = 0
    assert trees(loaded.pipe(sample_docs(loaded.vocab))) == trees(nlp.pipe(sample_docs(nlp.vocab)))


# ---- errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("config,message", [
    ({"transition_system": "arc_eager", "nonprojective_penalty": 1.0},
     "nonprojective_penalty=1.0 has no effect with transition_system 'arc_eager'"),
    ({"transition_system": "lr_spine", "nonprojective_penalty": 2},
     "has no effect with transition_system 'lr_spine'"),
    ({"transition_system": "easy_first", "nonprojective_penalty": 1.0},
     "nonprojective_penalty=1.0 is not supported with transition_system 'easy_first'"),
])
def test_bad_settings_name_the_value_and_the_valid_ones(config, message):
    with pytest.raises(ValueError) as info:
        spacy.blank("xx").add_pipe("dynoracle_parser", config=component_config(**config))
    assert message in str(info.value)


@pytest.mark.parametrize("value", [math.inf, math.nan, "2", True])
def test_a_penalty_that_is_not_a_finite_number_is_refused(value):
    """(spaCy's config refuses inf and nan before the factory; the setter checks them.)"""
    parser = make_nlp("swap").get_pipe("dynoracle_parser")
    with pytest.raises(ValueError, match=f"nonprojective_penalty={value!r} is invalid; use a finite number"):
        parser.nonprojective_penalty = value
    assert parser.nonprojective_penalty == 0.0


def test_projective_systems_take_penalty_zero_and_refuse_another_on_a_loaded_parser():
    nlp = make_nlp("arc_eager", nonprojective_penalty=0.0)
    parser = nlp.get_pipe("dynoracle_parser")
    with pytest.raises(ValueError, match="its move table declares no move"):
        parser.nonprojective_penalty = 0.5
    parser.cfg["nonprojective_penalty"] = 0.5       # set behind the check: refused at parse
    nlp.initialize(lambda: make_examples(nlp.vocab, 8, seed=1))
    with pytest.raises(ValueError, match="nonprojective_penalty=0.5 has no effect"):
        nlp(Doc(nlp.vocab, words=["w1", "root"]))


def test_exact_decoding_refuses_a_penalty():
    from spacy_dynoracle.parser import check_nonprojective_penalty

    moves = make_nlp("swap").get_pipe("dynoracle_parser").moves
    with pytest.raises(ValueError, match="not supported with decode='exact'; it applies to "
                                         "decode='greedy'"):
        check_nonprojective_penalty(1.0, moves, "exact")
    assert check_nonprojective_penalty(0, moves, "exact") == 0.0
