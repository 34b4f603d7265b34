"""Easy-first as a spaCy component (issue 22 part 2, docs/systems/easy_first.md): the model,
the parse loop's incremental rescoring, the training episode's gradients and exploration,
the cut of training Docs at gold sentence boundaries, `spacy package`. The pipeline tests
every system shares (preset boundaries, multi-sentence Docs, save/load, byte-identical
retraining) have an easy_first case in tests/test_pipeline.py."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_dynoracle import load_compiled
from spacy_dynoracle.easy_first_parser import EasyFirstParser, gold_sentence_spans, training_segments
from synthetic import EASY_FIRST_MODEL, component_config, make_examples, train


def make_nlp(**config):
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config=component_config(transition_system="easy_first", **config))
    return nlp


def uas(nlp, examples):
    right = total = 0
    for eg in examples:
        doc = nlp(Doc(nlp.vocab, words=[t.text for t in eg.reference]))
        right += sum(t.head.i == g.head.i for t, g in zip(doc, eg.reference))
        total += len(doc)
    return right / total


@pytest.mark.parametrize("oracle", ["dynamic", "static"])
def test_easy_first_learns_a_synthetic_treebank(oracle):
    nlp = make_nlp(oracle=oracle, explore_after_epochs=1, explore_prob=0.9)
    assert isinstance(nlp.get_pipe("dynoracle_parser"), EasyFirstParser)
    losses = train(nlp, make_examples(nlp.vocab, 120, seed=1), epochs=8)
    assert losses[-1] < losses[0] / 4
    assert uas(nlp, make_examples(nlp.vocab, 40, seed=2)) > 0.9


def test_exploration_leaves_the_oracle_paths_only_when_asked():
    """n_off_path counts the training moves whose cost is above the state's cheapest: 0 while
    following the oracle (before explore_after_epochs, or the static oracle), > 0 once the
    model's own predictions are followed."""
    counts = {}
    for name, config in (("explore", {"explore_after_epochs": 0, "explore_prob": 0.9}),
                         ("not yet", {"explore_after_epochs": 5, "explore_prob": 0.9}),
                         ("static", {"oracle": "static", "explore_after_epochs": 0})):
        nlp = make_nlp(**config)
        train(nlp, make_examples(nlp.vocab, 40, seed=3), epochs=2)
        parser = nlp.get_pipe("dynoracle_parser")
        counts[name] = (parser.n_off_path, parser.n_train_states)
    assert counts["explore"][0] > 0
    assert counts["not yet"][0] == 0 and counts["static"][0] == 0
    # every word is one step: the episodes ran to the end
    assert counts["explore"][1] == counts["not yet"][1] == 2 * sum(
        len(eg.reference) for eg in make_examples(spacy.blank("xx").vocab, 40, seed=3))


def reference_parse(parser, doc):
    """The greedy parse with every pair rescored from scratch at every step (numpy, the
    children read from the heads), through the system's Python access."""
    scores = parser.model.predict([doc])
    Yf, lb, uW, ub = scores.Yf, scores.lower_b, scores.upper_W, scores.upper_b
    row0 = scores.row0s[0]
    L = len(parser.labels)
    label_ids = [parser.vocab.strings[lab] for lab in parser.labels]
    moves = parser.moves
    state = load_compiled("easy_first").EasyFirstState.from_doc(doc)

    def row(word):
        return 0 if word is None or word < 0 else row0 + word

    while not state.is_final():
        pending = [-1] + state.pending
        heads = state.heads

        def children(w):
            kids = [c for c, h in enumerate(heads) if h == w and c != w]
            left = [c for c in kids if c < w]
            right = [c for c in kids if c > w]
            return [row(min(left) if left else None), row(max(right) if right else None)]

        best = None
        for a in moves._sim_actions(state):
            j, d = divmod(a, 2)
            rows = [row(pending[k]) if 0 <= k < len(pending) else 0 for k in range(j - 2, j + 4)]
            for item in (pending[j], pending[j + 1]):
                rows += children(item) if item >= 0 else [0, 0]
            pre = lb + sum(Yf[r, s] for s, r in enumerate(rows))
            out = uW @ pre.max(axis=-1) + ub
            for col in ([0] if j == 0 else range(1 + d * L, 1 + (d + 1) * L)):
                if best is None or out[col] > best[0]:
                    best = (out[col], a, col)
        _, a, col = best
        moves._sim_apply(state, a, parser.vocab.strings["ROOT"] if col == 0
                         else label_ids[(col - 1) % L])
    return state.heads, state.labels


@pytest.mark.parametrize("trained", [False, True])
def test_rescoring_only_near_the_last_attachment_parses_as_rescoring_everything(trained):
    """The parse loop rescores pairs r - 3 .. r + 1 after removing lam[r] and keeps each new
    child as the leftmost / rightmost: the same parses as rescoring every pair every step."""
    nlp = make_nlp()
    examples = make_examples(nlp.vocab, 60, seed=4, sents_per_doc=2, max_len=14)
    if trained:
        train(nlp, examples, epochs=2)
    else:
        nlp.initialize(lambda: examples)
    parser = nlp.get_pipe("dynoracle_parser")
    for eg in examples[:25]:
        words = [t.text for t in eg.reference]
        state = parser.predict([Doc(nlp.vocab, words=words)])[0]
        assert (state.heads, state.labels) == reference_parse(parser, Doc(nlp.vocab, words=words))


def test_training_gradients_match_finite_differences():
    """train_batch's gradients of its loss (scores -> output layer, maxout, slot table) are
    the loss's derivatives, on the oracle's path (follow = 1)."""
    nlp = make_nlp()
    examples = make_examples(nlp.vocab, 6, seed=5, sents_per_doc=2)
    nlp.initialize(lambda: examples)
    parser = nlp.get_pipe("dynoracle_parser")
    parse = load_compiled("easy_first_parse")
    scores = parser.model.predict([eg.predicted for eg in examples])
    rng = numpy.random.RandomState(0)
    uW = rng.normal(0, 0.5, scores.upper_W.shape).astype("f")    # the trained-from-zero layer

    def run(Yf, lb, uW, ub):
        states, golds, doc_of, starts = parser.training_states(examples)
        follow = numpy.ones((len(states), max(len(g) for g in golds)), dtype=numpy.uint8)
        grads = tuple(numpy.zeros(a.shape, dtype="f") for a in (Yf, lb, uW, ub))
        loss, _, _ = parse.train_batch(
            parser.moves, states, golds, [scores.row0s[d] + s for d, s in zip(doc_of, starts)],
            follow, Yf, lb, uW, ub, parser._label_ids(), nlp.vocab.strings["ROOT"], -1.0, *grads)
        return loss, grads

    params = [scores.Yf.copy(), scores.lower_b.copy(), uW, scores.upper_b.copy()]
    _, grads = run(*params)
    checked = 0
    for p, (param, grad) in enumerate(zip(params, grads)):
        flat = numpy.flatnonzero(grad)
        for index in rng.choice(flat, size=min(6, flat.size), replace=False):
            eps = 1e-2
            bumped = [x.copy() for x in params]
            bumped[p].flat[index] += eps
            up, _ = run(*bumped)
            bumped[p].flat[index] -= 2 * eps
            down, _ = run(*bumped)
            numeric = (up - down) / (2 * eps)
            assert numeric == pytest.approx(grad.flat[index], rel=0.05, abs=2e-3), (p, index)
            checked += 1
    assert checked >= 18


def test_training_docs_are_cut_at_gold_sentence_boundaries():
    #          0  1  2 | 3  4 | 5  6  7  8
    heads = [1, 1, 1, 4, 4, 6, 6, 8, 6]
    assert gold_sentence_spans(heads) == [(0, 3), (3, 5), (5, 9)]
    assert training_segments(heads, 5) == [(0, 5), (5, 9)]
    assert training_segments(heads, 2) == [(0, 3), (3, 5), (5, 9)]
    assert training_segments(heads, 0) == [(0, 9)]
    assert gold_sentence_spans([None, 0, None]) == [(0, 2), (2, 3)]
    # an unknown head joins nothing: a word whose head is unknown ends a span
    assert gold_sentence_spans([1, 1, None, 2]) == [(0, 2), (2, 4)]
    nlp = make_nlp(update_with_oracle_cut_size=10)
    examples = make_examples(nlp.vocab, 4, seed=6, sents_per_doc=4, min_len=4, max_len=6)
    nlp.initialize(lambda: examples)
    states, golds, doc_of, starts = nlp.get_pipe("dynoracle_parser").training_states(examples)
    assert len(states) > len(examples)
    for state, gold, d, start in zip(states, golds, doc_of, starts):
        ref = examples[d].reference
        assert all(ref[start + i].head.i == start + h for i, h in enumerate(gold.heads))
        assert ref[start].is_sent_start


@pytest.mark.parametrize("config,message", [
    ({"model": None}, "EasyFirstModel.v1"),
    ({"beam_width": 4}, "beam_width=4"),
    ({"decode": "exact"}, "decode='exact'"),
    ({"oracle": "arc-decomposition"}, "choose one of"),
    ({"system_options": {"eager_root": True}}, "projective_formula"),
])
def test_factory_refuses_what_easy_first_does_not_have(config, message):
    if config.get("model", 0) is None:
        config = {"model": {"@architectures": "spacy.TransitionBasedParser.v2",
                            "state_type": "parser", "hidden_width": 8, "maxout_pieces": 2,
                            "use_upper": True, "tok2vec": EASY_FIRST_MODEL["tok2vec"]}}
    with pytest.raises(ValueError, match=message):
        make_nlp(**config)


# pip installs the packaged sdist without build isolation (no index needed), so the running
# environment must hold the build backend; a fresh venv has setuptools but no `wheel`
# (scripts/test_wheel.sh's), the checkout's environment has both
BUILD_BACKEND = all(importlib.util.find_spec(m) is not None for m in ("setuptools", "wheel"))


@pytest.mark.skipif(not BUILD_BACKEND, reason="installing the packaged sdist needs setuptools "
                    "and wheel in this environment (pip install wheel)")
def test_spacy_package_builds_an_installable_easy_first_pipeline(tmp_path):
    nlp = make_nlp()
    examples = make_examples(nlp.vocab, 30, seed=7)
    train(nlp, examples, epochs=2)
    nlp.to_disk(tmp_path / "model")
    texts = [" ".join(t.text for t in eg.reference) for eg in examples[:5]]
    expected = [[t.head.i for t in doc] for doc in nlp.pipe(texts)]
    (tmp_path / "out").mkdir()
    subprocess.run([sys.executable, "-m", "spacy", "package", str(tmp_path / "model"),
                    str(tmp_path / "out"), "--name", "easyfirst", "--version", "0.0.1",
                    "--build", "sdist"], check=True, capture_output=True)
    sdist, = (tmp_path / "out").glob("*/dist/*.tar.gz")
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                          "--target", str(tmp_path / "site"), str(sdist)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    code = (f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r})\n"
            "import spacy\nnlp = spacy.load('xx_easyfirst')\n"
            f"print([[t.head.i for t in d] for d in nlp.pipe({texts!r})])\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == str(expected)
