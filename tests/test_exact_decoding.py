"""Exact decoding of dynoracle_parser with the window model (spacy_dynoracle.exact_decoding):
the batched window scores are the model's own state scores, the exact sequence is the
best one of the model (its replayed score equals the DP's and is >= greedy's), and the
marginals on the Doc are distributions."""
import math

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc

from spacy_dynoracle import exact_decoding as ed
from synthetic import make_examples

TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 16,
           "depth": 1, "embed_size": 200, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}


def make_parser(system, seed=0, scale=1.0):
    nlp = spacy.blank("xx")
    model = {"@architectures": "spacy_dynoracle.WindowParserModel.v1", "tok2vec": TOK2VEC,
             "hidden_width": 16, "maxout_pieces": 2}
    parser = nlp.add_pipe("dynoracle_parser", config={
        "model": model, "transition_system": system, "min_action_freq": 1})
    examples = make_examples(nlp.vocab, 12, seed=seed)
    spacy.util.fix_random_seed(seed)   # tok2vec init: deterministic tests
    nlp.initialize(lambda: examples)
    rng = np.random.default_rng(seed)       # the upper layer starts at zero: randomise
    for name in ("lower", "upper"):
        layer = parser.model.get_ref(name)
        for p in ("W", "b"):
            layer.set_param(p, (scale * rng.normal(size=layer.get_param(p).shape)).astype("f"))
    return nlp, parser, examples


def step_scores(parser, doc, state):
    step = parser.model.predict([doc])
    return np.asarray(step.predict([state]))[0]


SYSTEMS = ["arc_hybrid", "arc_eager", "arc_standard"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_window_scores_are_the_models_state_scores(system):
    nlp, parser, examples = make_parser(system)
    rng = np.random.default_rng(1)
    seen = np.ones(parser.moves.n_moves, dtype=bool)
    seen[sorted(parser.model.attrs["unseen_classes"])] = False
    for eg in examples[:4]:
        doc = Doc(nlp.vocab, words=[t.text for t in eg.reference])
        S = ed.window_class_scores(parser, doc)
        n = len(doc)
        state = parser.moves.init_batch([doc])[0]
        while not state.is_final():
            s0 = state.S(0) if state.stack_depth() > 0 else n
            b0 = state.B(0) if state.buffer_length() > 0 else n
            ref = step_scores(parser, doc, state)
            assert np.allclose(S[s0, b0][seen], ref[seen], atol=1e-4), (system, s0, b0)
            valid = parser.moves._sim_moves(state)
            m = int(rng.choice(valid))
            parser.moves._sim_apply(state, parser.moves.class_index(m))


def sequence_score(parser, doc, classes, normalize="all"):
    """Sum of the log-softmax window scores of a class sequence, replayed on real states;
    normalize="valid": each softmax over the classes valid in its state, as greedy decoding
    sees them (docs/specs/dp_tabulation.md §5.6)."""
    S = ed.window_class_scores(parser, doc)
    L = ed._log_softmax(S)
    class_move = ed._class_moves(parser)
    n = len(doc)
    state = parser.moves.init_batch([doc])[0]
    total = 0.0
    for c in classes:
        s0 = state.S(0) if state.stack_depth() > 0 else n
        b0 = state.B(0) if state.buffer_length() > 0 else n
        if normalize == "valid":
            valid = set(parser.moves._sim_moves(state))
            sc = np.where([m in valid for m in class_move], S[s0, b0], -np.inf)
            total += sc[c] - np.log(np.exp(sc - sc.max()).sum()) - sc.max()
        else:
            total += L[s0, b0, c]
        parser.moves._sim_apply(state, c)
    assert state.is_final()
    return total


def greedy_classes(parser, doc):
    class_move = ed._class_moves(parser)
    unseen = sorted(parser.model.attrs["unseen_classes"])
    state = parser.moves.init_batch([doc])[0]
    out = []
    while not state.is_final():
        sc = step_scores(parser, doc, state).astype(float)
        sc[unseen] = -np.inf
        valid = set(parser.moves._sim_moves(state))
        sc[[m not in valid for m in class_move]] = -np.inf
        c = int(sc.argmax())
        out.append(c)
        parser.moves._sim_apply(state, c)
    return out


@pytest.mark.parametrize("system", SYSTEMS)
def test_exact_is_the_best_sequence_and_beats_greedy(system):
    nlp, parser, examples = make_parser(system, seed=2)
    better = 0
    for eg in examples:
        doc = Doc(nlp.vocab, words=[t.text for t in eg.reference])
        best, seq = ed.exact_sequence(parser, doc)
        replayed = sequence_score(parser, doc, [c for _, c in seq])
        assert math.isclose(replayed, best, rel_tol=1e-6, abs_tol=1e-6)
        greedy = sequence_score(parser, doc, greedy_classes(parser, doc))
        assert greedy <= best + 1e-6
        better += greedy < best - 1e-6
    print(f"{system}: exact beats greedy on {better}/{len(examples)} docs")


@pytest.mark.parametrize("system", SYSTEMS)
def test_exact_parse_sets_heads_and_marginals(system):
    nlp, parser, examples = make_parser(system, seed=3)
    docs = [Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples[:5]]
    ed.exact_parse(parser, docs)
    for doc in docs:
        marg = doc._.dynoracle_arc_marginals
        assert marg.shape == (len(doc), len(doc))
        assert np.allclose(marg.sum(axis=1), 1.0, atol=1e-9)
        for t in doc:
            probs = t._.dynoracle_head_probs
            assert probs and probs == sorted(probs, key=lambda x: -x[1])
            assert 0 <= t.head.i < len(doc)
        assert sum(t.head.i == t.i for t in doc) >= 1


def test_exact_decoding_refuses_a_non_window_model():
    nlp = spacy.blank("xx")
    parser = nlp.add_pipe("dynoracle_parser", config={"min_action_freq": 1})
    nlp.initialize(lambda: make_examples(nlp.vocab, 4))
    with pytest.raises(ValueError, match="window model"):
        ed.window_class_scores(parser, Doc(nlp.vocab, words=["a", "b"]))


def window_nlp(system, **cfg):
    nlp = spacy.blank("xx")
    model = {"@architectures": "spacy_dynoracle.WindowParserModel.v1", "tok2vec": TOK2VEC,
             "hidden_width": 16, "maxout_pieces": 2}
    parser = nlp.add_pipe("dynoracle_parser", config={
        "model": model, "transition_system": system, "min_action_freq": 1, **cfg})
    examples = make_examples(nlp.vocab, 12, seed=4)
    spacy.util.fix_random_seed(4)   # tok2vec init: deterministic tests
    nlp.initialize(lambda: examples)
    rng = np.random.default_rng(4)
    for name in ("lower", "upper"):
        layer = parser.model.get_ref(name)
        for p in ("W", "b"):
            layer.set_param(p, rng.normal(size=layer.get_param(p).shape).astype("f"))
    return nlp, parser, examples


@pytest.mark.parametrize("system", SYSTEMS)
def test_pipeline_decode_exact_and_marginals(system):
    nlp, parser, examples = window_nlp(system, decode="exact", arc_marginals=True)
    words = [[t.text for t in eg.reference] for eg in examples[:4]]
    docs = list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))
    ref = ed.exact_parse(parser, [Doc(nlp.vocab, words=w) for w in words])
    for doc, r in zip(docs, ref):
        assert [t.head.i for t in doc] == [t.head.i for t in r]
        assert [t.dep_ for t in doc] == [t.dep_ for t in r]
        assert np.allclose(doc._.dynoracle_arc_marginals, r._.dynoracle_arc_marginals)
    # greedy decoding of the same model differs somewhere (it is not the best computation)
    parser.cfg["decode"] = "greedy"
    greedy = list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))
    assert any([t.head.i for t in g] != [t.head.i for t in d] for g, d in zip(greedy, docs))
    assert all(d._.dynoracle_arc_marginals is not None for d in greedy)   # arc_marginals=True


def test_pipeline_decode_round_trip_and_errors():
    nlp, parser, examples = window_nlp("arc_hybrid", decode="exact")
    data = nlp.to_bytes()
    nlp2 = spacy.blank("xx")
    cfg = dict(nlp.config["components"]["dynoracle_parser"])
    cfg.pop("factory")
    nlp2.add_pipe("dynoracle_parser", config=cfg)
    nlp2.from_bytes(data)
    words = [t.text for t in examples[0].reference]
    a, b = nlp(Doc(nlp.vocab, words=words)), nlp2(Doc(nlp2.vocab, words=words))
    assert nlp2.get_pipe("dynoracle_parser").cfg["decode"] == "exact"
    assert [t.head.i for t in a] == [t.head.i for t in b]
    with pytest.raises(ValueError, match="decode"):
        spacy.blank("xx").add_pipe("dynoracle_parser", config={"decode": "beam"})
    with pytest.raises(ValueError, match="window model"):
        spacy.blank("xx").add_pipe("dynoracle_parser", config={"decode": "exact", "transition_system": "arc_eager"})
    with pytest.raises(ValueError, match="support"):   # the default system, arc_eager_nm
        spacy.blank("xx").add_pipe("dynoracle_parser", config={
            "decode": "exact", "model": {"@architectures": "spacy_dynoracle.WindowParserModel.v1",
                                         "tok2vec": TOK2VEC}})
    with pytest.raises(ValueError, match="support"):
        spacy.blank("xx").add_pipe("dynoracle_parser", config={
            "decode": "exact", "transition_system": "attardi",
            "model": {"@architectures": "spacy_dynoracle.WindowParserModel.v1",
                      "tok2vec": TOK2VEC}})


def test_uncertain_arcs_rendering():
    from spacy_dynoracle.render import render_trees

    nlp, parser, examples = window_nlp("arc_hybrid", decode="exact", arc_marginals=True)
    doc = nlp(Doc(nlp.vocab, words=[t.text for t in examples[0].reference]))
    data = ed.uncertain_arcs_displacy(doc, threshold=1.01, min_alt=0.0)
    marg = doc._.dynoracle_arc_marginals
    n_alt = sum(1 for d in range(len(doc)) for h in range(len(doc))
                if h != doc[d].head.i and h != d and marg[d, h] > 0)
    base = sum(1 for t in doc if t.head.i != t.i)
    assert len(data["arcs"]) == base + n_alt
    assert all(any(ch.isdigit() for ch in a["label"]) for a in data["arcs"])
    svg = render_trees([data], page=False)
    assert "?0." in svg or "?1." in svg
    with pytest.raises(ValueError, match="marginals"):
        ed.uncertain_arcs_displacy(Doc(nlp.vocab, words=["a"]))


@pytest.mark.parametrize("system", ["arc_hybrid", "arc_eager"])
def test_valid_normalised_exact_decoding_is_the_greedy_models_best(system):
    """normalize='valid': the score of a computation is the sum of the greedy model's own
    log-probabilities (softmax over the valid classes of each state); the exact sequence
    replays to the DP score and is at least as probable as the greedy one. The valid set
    depends on s1, so this runs the context charts (arc_hybrid; arc_eager [i^b, j; p])."""
    nlp, parser, examples = make_parser(system, seed=5, scale=0.3)   # soft softmaxes
    better = 0
    for eg in examples:
        doc = Doc(nlp.vocab, words=[t.text for t in eg.reference])
        best, seq = ed.exact_sequence(parser, doc, normalize="valid")
        replayed = sequence_score(parser, doc, [c for _, c in seq], "valid")
        assert math.isclose(replayed, best, rel_tol=1e-6, abs_tol=1e-6)
        greedy = sequence_score(parser, doc, greedy_classes(parser, doc), "valid")
        assert greedy <= best + 1e-6
        better += greedy < best - 1e-6
    assert better > 0
    docs = [Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples[:3]]
    ed.exact_parse(parser, docs, normalize="valid")
    for doc in docs:
        assert np.allclose(doc._.dynoracle_arc_marginals.sum(axis=1), 1.0)


def test_window_model_trains_with_the_dynamic_oracle():
    """The window model is an ordinary parser model: spaCy's update with the dynamic
    oracle and exploration lowers its loss, and both decoders parse with it."""
    import random

    nlp = spacy.blank("xx")
    model = {"@architectures": "spacy_dynoracle.WindowParserModel.v1", "tok2vec": TOK2VEC,
             "hidden_width": 32, "maxout_pieces": 2}
    parser = nlp.add_pipe("dynoracle_parser", config={
        "model": model, "transition_system": "arc_eager", "min_action_freq": 1,
        "explore_after_epochs": 1, "explore_prob": 0.5})
    examples = make_examples(nlp.vocab, 24, seed=7)
    random.seed(0)
    spacy.util.fix_random_seed(0)
    nlp.initialize(lambda: examples)
    history = []
    for epoch in range(6):
        parser.epoch = epoch
        losses = {}
        for i in range(0, len(examples), 8):
            nlp.update(examples[i:i + 8], losses=losses, drop=0.0)
        history.append(losses["dynoracle_parser"])
    assert history[-1] < 0.7 * history[0], history
    words = [t.text for t in examples[0].reference]
    greedy = nlp(Doc(nlp.vocab, words=words))
    parser.cfg["decode"] = "exact"
    exact = nlp(Doc(nlp.vocab, words=words))
    assert len(greedy) == len(exact) and all(0 <= t.head.i < len(exact) for t in exact)


@pytest.mark.parametrize("system", SYSTEMS)
def test_exact_decoding_respects_preset_sentence_boundaries(system):
    """Preset boundaries (Token.is_sent_start) are window masks (every system's check reads
    s0 and b0 only): the exact sequence replays validly on the constrained states, is still
    >= the constrained greedy sequence, gives one root per preset sentence, and the
    marginals put no mass on a head across a preset boundary."""
    nlp, parser, examples = make_parser(system, seed=6)
    rng = np.random.default_rng(6)
    checked = 0
    for eg in examples:
        words = [t.text for t in eg.reference]
        n = len(words)
        if n < 4:
            continue
        cuts = sorted(rng.choice(np.arange(1, n), size=min(2, n - 2), replace=False))
        starts = [i == 0 or i in cuts for i in range(n)]
        sent_of = np.cumsum(starts) - 1
        doc = Doc(nlp.vocab, words=words, sent_starts=starts)
        best, seq = ed.exact_sequence(parser, doc)          # raises if the replay is invalid
        replayed = sequence_score(parser, doc, [c for _, c in seq])
        assert math.isclose(replayed, best, rel_tol=1e-6, abs_tol=1e-6)
        assert sequence_score(parser, doc, greedy_classes(parser, doc)) <= best + 1e-6
        free = ed.exact_sequence(parser, Doc(nlp.vocab, words=words))[0]
        assert best <= free + 1e-9                           # a constrained maximum
        ed.exact_parse(parser, [doc])
        heads = np.array([t.head.i for t in doc])
        assert (sent_of[heads] == sent_of).all()
        assert [sum(heads[sent_of == s] == np.flatnonzero(sent_of == s)) for s in range(len(cuts) + 1)] \
            == [1] * (len(cuts) + 1)
        marg = doc._.dynoracle_arc_marginals
        across = sent_of[:, None] != sent_of[None, :]
        assert marg[across].max() == 0.0 and np.allclose(marg.sum(axis=1), 1.0)
        checked += 1
    assert checked >= 3


def test_pipeline_marginals_use_the_presets_not_the_parse():
    """set_annotations reads the preset boundaries before the parse overwrites them: on an
    unsegmented Doc the marginals may put mass on heads in another (parsed) sentence."""
    nlp, parser, examples = window_nlp("arc_hybrid", decode="greedy", arc_marginals=True)
    free = 0
    for eg in examples:
        doc = nlp(Doc(nlp.vocab, words=[t.text for t in eg.reference]))
        sents = np.array([s.start for s in doc.sents for _ in s])
        free += doc._.dynoracle_arc_marginals[sents[:, None] != sents[None, :]].sum() > 0
    assert free > 0
