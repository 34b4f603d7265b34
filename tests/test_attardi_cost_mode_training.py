"""Training identity of attardi's cost modes (issue 23; docs/systems/attardi.md, "Cost values").

Greedy training reads the costs only as "cost <= 0 or not" (spaCy's cpu_log_loss after
class_costs' shift, next_class, the training targets, the cut path), and attardi's
exact_costs=False gives the same zero-cost sets as exact costs in every state, guard states
included (its oracle caches only what both modes know). So the same seed and config trained
(with the explore rules and the training targets too)
with exact_costs = true, false and "beam" (the default) give bit-identical weights and
losses. spaCy's beam update reads cost values (it scales its gradient by a history's summed
cost): there "beam" switches to exact values, so "beam" and true stay identical, while false differs,
the negative control that shows the comparison can fail. A second negative control: another
seed gives other weights.
"""
import random

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from bruteforce import random_forest
from synthetic import LABELS, long_nonprojective_heads, make_examples, train, tree_words
from spacy_dynoracle import get_system_class


def _example(vocab, sentences):
    """An Example whose gold is the given sentences (token heads, each from 0) in order."""
    heads, deps, words, starts = [], [], [], []
    for sent in sentences:
        offset = len(heads)
        heads += [h + offset for h in sent]
        deps += ["ROOT" if h == i else LABELS[(h - i) % len(LABELS)] for i, h in enumerate(sent)]
        words += tree_words(sent)
        starts += [True] + [False] * (len(sent) - 1)
    gold = Doc(vocab, words=words, heads=heads, deps=deps, sent_starts=starts)
    return Example(Doc(vocab, words=words), gold)


def _uncovered_sentences(degree, count, seed):
    """Non-projective sentences the system of this degree cannot derive (not covered)."""
    system = get_system_class("attardi")(spacy.blank("xx").vocab.strings, degree=degree)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        heads = long_nonprojective_heads(rng.randint(14, 24), seed=rng.randrange(10 ** 6),
                                         crossings=3)
        if not system.is_covered(heads):
            found.append(heads)
    return found


def training_examples(vocab, degree):
    """Non-projective one-sentence Docs, two-sentence Docs (any projectivity) and Docs
    holding a sentence the system cannot derive (alone, or with a covered sentence)."""
    examples = make_examples(vocab, 10, seed=1, kind="nonprojective", min_len=4, max_len=12)
    examples += make_examples(vocab, 8, seed=2, kind="nonprojective", sents_per_doc=2,
                              min_len=3, max_len=9)
    rng = random.Random(3)
    for i, heads in enumerate(_uncovered_sentences(degree, 4, seed=degree)):
        other = random_forest(rng.randint(3, 8), rng, "nonprojective")
        examples.append(_example(vocab, [heads] if i % 2 else [other, heads]))
    return examples


def train_attardi(degree, seed=0, epochs=3, beam=False, component=None, **system_options):
    """attardi trained from `seed` with exploration from the first epoch (p = 0.9), the cut
    of long Docs into segments (update_with_oracle_cut_size) and, with `beam`, spaCy's beam
    update on every batch; `component`: more component settings. Returns (losses per epoch,
    the model's bytes, the system)."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config={
        "transition_system": "attardi", "oracle": "dynamic", "min_action_freq": 1,
        "system_options": {"degree": degree, **system_options},
        "explore_after_epochs": 0, "explore_prob": 0.9, "update_with_oracle_cut_size": 16,
        "beam_width": 3 if beam else 1, "beam_update_prob": 1.0 if beam else 0.0,
        **(component or {})})
    examples = training_examples(nlp.vocab, degree)
    losses = train(nlp, examples, epochs=epochs, seed=seed, batch=6)
    parser = nlp.get_pipe("dynoracle_parser")
    return losses, parser.model.to_bytes(), parser


def _stats(parser):
    return parser.moves.oracle_stats()


# the default guard, and a tight one under which many training states end `guard` (the
# zero-cost sets that are bounds only, where the modes' caches used to differ)
GUARDS = {"default": {}, "tight": {"max_rho": 6, "budget": 3000}}


@pytest.mark.parametrize("guard", sorted(GUARDS))
@pytest.mark.parametrize("degree", [2, 3])
def test_greedy_training_identical_in_every_cost_mode(degree, guard):
    runs = {mode: train_attardi(degree, exact_costs=mode, **GUARDS[guard])
            for mode in (True, False, "beam")}
    losses, weights, parser = runs[True]
    for mode in (False, "beam"):
        assert runs[mode][0] == losses, mode
        assert runs[mode][1] == weights, mode
    # not vacuous: exploration left the oracle's paths, uncovered Docs were trained, and the
    # exact mode computed values the cheap one did not (more table combinations)
    assert parser.n_off_path > 0
    stats, cheap = _stats(parser), _stats(runs["beam"][2])
    assert stats["docs_uncovered"] > 0
    assert stats["combos"] > cheap["combos"]
    if guard == "tight":
        assert stats["guard"] > 0 and stats["guard"] == cheap["guard"]


# every other reader of the costs in greedy training: the explore rule "margin", the training
# targets (each narrows the zero-cost set), the guard states left out of the loss
# ("bounded_costs": "skip", which reads the guard status) and the cut along the static path
TARGET_OPTIONS = {
    "static": {"target": "static", "eager_root": True, "close_sentences": True,
               "keep_sentences": True, "defer": "last", "bounded_costs": "skip",
               "cut_path": "static"},
    "model_best": {"target": "model_best", "defer": "repairs_last", "bounded_costs": "skip"},
}


@pytest.mark.parametrize("targets", sorted(TARGET_OPTIONS))
def test_greedy_training_identical_with_every_target_option(targets):
    options = {**GUARDS["tight"], **TARGET_OPTIONS[targets]}
    component = {"explore_rule": "margin", "explore_margin": 0.5}
    runs = {mode: train_attardi(3, component=component, exact_costs=mode, **options)
            for mode in (True, False, "beam")}
    for mode in (False, "beam"):
        assert runs[mode][0] == runs[True][0] and runs[mode][1] == runs[True][1], mode
    parser = runs["beam"][2]
    assert parser.moves.n_bounded_skipped > 0 and parser.n_off_path > 0


@pytest.mark.parametrize("degree", [2, 3])
def test_beam_training_default_reads_exact_values(degree):
    exact = train_attardi(degree, beam=True, epochs=2, exact_costs=True)
    default = train_attardi(degree, beam=True, epochs=2)
    assert default[0] == exact[0] and default[1] == exact[1]
    assert _stats(default[2])["combos"] == _stats(exact[2])["combos"]
    # negative control: the beam update reads cost values, so lower bounds change it
    cheap = train_attardi(degree, beam=True, epochs=2, exact_costs=False)
    assert cheap[1] != exact[1] and cheap[0] != exact[0]


def test_identity_check_can_fail_with_another_seed():
    """Negative control of the greedy comparison: another seed, other weights and losses."""
    one = train_attardi(2, seed=0)
    other = train_attardi(2, seed=1)
    assert one[1] != other[1] and one[0] != other[0]
