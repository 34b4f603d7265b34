"""system_options.label_sets: "shared" (every arc move carries every frequent label) or
"per_direction" (each arc move the labels frequent on gold arcs of its own direction in word
order, as spaCy's arc-eager); gold labels outside a direction's set back off to "dep"."""
import random

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_dynoracle.testing import Simulator
from synthetic import make_examples

PER_DIRECTION_SYSTEMS = [("arc_eager", {}), ("arc_hybrid", {}), ("arc_standard", {}),
                         ("lr_spine", {"max_k": 3}), ("attardi", {"degree": 3})]
MIN_FREQ = 2
# per direction: leftward nsubj 3, amod 1, punct 1; rightward obj 4, punct 2, amod 1. So with
# min_action_freq 2 the leftward moves carry nsubj, the rightward ones obj and punct; shared,
# every arc move carries all four (nsubj 3, obj 4, punct 3, amod 2)
CORPUS = ([([1, 1, 1], ["nsubj", "ROOT", "obj"])] * 3
          + [([1, 1, 1], ["amod", "ROOT", "punct"]),
             ([1, 1, 1], ["punct", "ROOT", "amod"]),
             ([0, 0, 0], ["ROOT", "punct", "obj"])])
LEFTWARD = {"nsubj", "dep"}
RIGHTWARD = {"obj", "punct", "dep"}
SHARED = {"nsubj", "obj", "punct", "amod", "dep"}


def corpus(vocab):
    examples = []
    for heads, deps in CORPUS:
        words = ["a", "b", "c"]
        examples.append(Example(Doc(vocab, words=words),
                                Doc(vocab, words=words, heads=heads, deps=deps)))
    return examples


def parser_for(system, label_sets, **options):
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config={
        "transition_system": system, "min_action_freq": MIN_FREQ,
        "system_options": {"label_sets": label_sets, **options}})
    examples = corpus(nlp.vocab)
    nlp.initialize(lambda: examples)
    return nlp, nlp.get_pipe("dynoracle_parser"), examples


@pytest.mark.parametrize("system,options", PER_DIRECTION_SYSTEMS, ids=[s for s, _ in PER_DIRECTION_SYSTEMS])
def test_each_arc_move_carries_the_labels_of_its_direction(system, options):
    _, parser, _ = parser_for(system, "per_direction", **options)
    moves = parser.moves
    directions = moves.arc_directions
    assert set(directions.values()) == {"leftward", "rightward"}
    for move, direction in directions.items():
        assert set(moves.labels[move]) == (LEFTWARD if direction == "leftward" else RIGHTWARD)
    _, shared, _ = parser_for(system, "shared", **options)
    for move in directions:
        assert set(shared.moves.labels[move]) == SHARED
    n_arc_moves = len(directions)
    assert shared.moves.n_moves - moves.n_moves == n_arc_moves * len(SHARED) - sum(
        len(LEFTWARD if d == "leftward" else RIGHTWARD) for d in directions.values())


def test_arc_eager_class_table_and_backoff_per_direction():
    """arc_eager's labelled moves are LEFT (b0 -> s0, leftward) and REDUCE (s1 -> s0,
    rightward); a gold label its direction's moves do not carry backs off to 'dep', so that
    exactly the class with the backed-off label builds the gold arc at no cost."""
    nlp, parser, examples = parser_for("arc_eager", "per_direction")
    moves = parser.moves
    names = sorted(moves.get_class_name(i) for i in range(moves.n_moves))
    assert names == sorted(["S", "R", "T-ROOT", "L-nsubj", "L-dep", "D-obj", "D-punct", "D-dep"])
    strings = nlp.vocab.strings
    # doc B: amod leftward (not carried leftward: dep), punct rightward (kept)
    # doc C: punct leftward (dep), amod rightward (dep)
    for eg, expect in ((examples[3], ["dep", "ROOT", "punct"]), (examples[4], ["dep", "ROOT", "dep"])):
        state = moves.init_batch([eg.predicted])[0]
        gold = moves.init_gold(state, eg)
        assert [strings[label] for label in gold.labels] == expect
    eg = examples[3]
    state = moves.init_batch([eg.predicted])[0]
    gold = moves.init_gold(state, eg)
    moves._sim_apply(state, moves.class_index(0))            # SHIFT: s0 = a, b0 = b
    valid, costs = moves._sim_class_costs(state, gold)
    zero = {moves.get_class_name(i) for i in range(moves.n_moves) if valid[i] and costs[i] <= 0}
    assert zero == {"L-dep"}
    # shared: amod is carried by LEFT, and L-amod is the one gold class
    nlp, parser, examples = parser_for("arc_eager", "shared")
    moves = parser.moves
    state = moves.init_batch([examples[3].predicted])[0]
    gold = moves.init_gold(state, examples[3])
    moves._sim_apply(state, moves.class_index(0))
    valid, costs = moves._sim_class_costs(state, gold)
    assert {moves.get_class_name(i) for i in range(moves.n_moves)
            if valid[i] and costs[i] <= 0} == {"L-amod"}


def test_per_direction_counts_the_lifted_gold():
    """With projectivize on, labels are counted on the lifted arcs (spaCy's 'label||head'),
    in the direction of the lifted head."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config={
        "transition_system": "arc_eager", "oracle": "static", "min_action_freq": 1,
        "system_options": {"label_sets": "per_direction"}})
    words = ["a", "b", "c", "d"]
    # the arcs 0 -> 2 and 1 -> 3 cross: lifting reattaches one of them
    heads, deps = [1, 1, 0, 1], ["x", "ROOT", "y", "z"]
    eg = Example(Doc(nlp.vocab, words=words), Doc(nlp.vocab, words=words, heads=heads, deps=deps))
    nlp.initialize(lambda: [eg])
    moves = nlp.get_pipe("dynoracle_parser").moves
    lifted_heads, lifted_labels = eg.get_aligned_parse(projectivize=True)
    assert lifted_heads != heads                       # the example is lifted
    for child, (head, label) in enumerate(zip(lifted_heads, lifted_labels)):
        if head == child:
            continue
        direction = "leftward" if head > child else "rightward"
        carriers = [m for m, d in moves.arc_directions.items() if d == direction]
        assert all(label in moves.labels[m] for m in carriers)
        others = [m for m, d in moves.arc_directions.items() if d != direction]
        assert not any(label in moves.labels[m] for m in others)


def test_label_sets_is_checked_and_refused_where_moves_do_not_fix_the_direction():
    with pytest.raises(ValueError, match=r"label_sets='nope' is not one of \['shared', 'per_direction'\]"):
        Simulator("arc_eager", 3, label_sets="nope")
    with pytest.raises(ValueError, match=r"'swap'.*LEFT, RIGHT.*valid values for 'swap': \['shared'\]"):
        spacy.blank("xx").add_pipe("dynoracle_parser", config={
            "transition_system": "swap", "system_options": {"label_sets": "per_direction"}})
    assert Simulator("swap", 3).moves.arc_directions == {1: None, 2: None}


SYSTEMS_WITH_OPTIONS = PER_DIRECTION_SYSTEMS + [("swap", {})]


@pytest.mark.parametrize("system,options", SYSTEMS_WITH_OPTIONS, ids=[s for s, _ in SYSTEMS_WITH_OPTIONS])
def test_declared_directions_are_those_of_the_arcs_the_moves_build(system, options):
    """The move table's direction of every arc move is the direction in word order of every
    arc it builds, on random walks; swap's LEFT and RIGHT build arcs of both directions
    (SWAP reorders the stack), so it declares none and refuses per_direction."""
    rng = random.Random(0)
    directions = Simulator(system, 1, **options).moves.arc_directions
    names = {"LEFT": 1, "RIGHT": 2, "LEFT_2": 5, "RIGHT_2": 6, "LEFT_3": 7, "RIGHT_3": 8, "REDUCE": 9}
    seen = {}
    for _ in range(300):
        sim = Simulator(system, rng.randint(2, 8), **options)
        while not sim.is_final():
            action = rng.choice(sim.actions())
            before = {(a["head"], a["child"]) for a in sim.state.arcs}
            sim.apply(action)
            for head, child in {(a["head"], a["child"]) for a in sim.state.arcs} - before:
                built = "leftward" if head > child else "rightward"
                seen.setdefault(action, set()).add(built)
                if directions.get(names.get(action)) is not None:
                    assert built == directions[names[action]], (action, head, child, sim)
    assert "LEFT" in seen and ("RIGHT" in seen or "REDUCE" in seen)
    if system == "swap":
        assert seen["LEFT"] == seen["RIGHT"] == {"leftward", "rightward"}


def directional(vocab, examples):
    """The synthetic examples with a rightward arc's label suffixed "_r", so that each
    direction has labels of its own."""
    out = []
    for eg in examples:
        ref = eg.reference
        words = [t.text for t in ref]
        deps = [t.dep_ + ("_r" if t.head.i < t.i else "") for t in ref]
        gold = Doc(vocab, words=words, heads=[t.head.i for t in ref], deps=deps,
                   sent_starts=[bool(t.is_sent_start) for t in ref])
        out.append(Example(Doc(vocab, words=words), gold))
    return out


def make_nlp(label_sets):
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config={
        "transition_system": "arc_eager", "min_action_freq": 1,
        "explore_after_epochs": 1, "explore_prob": 0.9,
        "system_options": {"label_sets": label_sets}})
    return nlp


def test_training_parsing_and_save_load_per_direction(tmp_path):
    nlp = make_nlp("per_direction")
    examples = directional(nlp.vocab, make_examples(nlp.vocab, 120, seed=1))
    random.seed(0)
    spacy.util.fix_random_seed(0)
    nlp.initialize(lambda: examples)
    parser = nlp.get_pipe("dynoracle_parser")
    moves = parser.moves
    left = [m for m, d in moves.arc_directions.items() if d == "leftward"]
    right = [m for m, d in moves.arc_directions.items() if d == "rightward"]
    assert {label.endswith("_r") for label in moves.labels[right[0]] if label != "dep"} == {True}
    assert {label.endswith("_r") for label in moves.labels[left[0]] if label != "dep"} == {False}
    history = []
    for epoch in range(8):
        parser.epoch = epoch
        losses = {}
        random.shuffle(examples)
        for i in range(0, len(examples), 8):
            nlp.update(examples[i:i + 8], losses=losses)
        history.append(losses["dynoracle_parser"])
    assert history[-1] < history[0] / 2
    test = directional(nlp.vocab, make_examples(nlp.vocab, 20, seed=2))
    docs = [nlp(Doc(nlp.vocab, words=[t.text for t in eg.reference])) for eg in test]
    right_heads = sum(t.head.i == g.head.i for d, eg in zip(docs, test) for t, g in zip(d, eg.reference))
    assert right_heads / sum(len(d) for d in docs) > 0.8
    # every predicted label is one its arc's direction carries
    for doc in docs:
        for t in doc:
            if t.head.i != t.i:
                carrier = left[0] if t.head.i > t.i else right[0]
                assert t.dep_ in moves.labels[carrier]
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    lmoves = loaded.get_pipe("dynoracle_parser").moves
    assert lmoves.cfg["label_sets"] == "per_direction"
    assert [lmoves.get_class_name(i) for i in range(lmoves.n_moves)] == \
        [moves.get_class_name(i) for i in range(moves.n_moves)]
    for doc, eg in zip(docs, test):
        again = loaded(Doc(loaded.vocab, words=[t.text for t in eg.reference]))
        assert [(t.head.i, t.dep_) for t in again] == [(t.head.i, t.dep_) for t in doc]


def test_shared_is_the_default_and_gives_every_arc_move_every_label():
    nlp = make_nlp("shared")
    default = spacy.blank("xx")
    default.add_pipe("dynoracle_parser", config={"transition_system": "arc_eager", "min_action_freq": 1})
    examples = make_examples(nlp.vocab, 30, seed=1)
    nlp.initialize(lambda: examples)
    default.initialize(lambda: make_examples(default.vocab, 30, seed=1))
    for pipeline in (nlp, default):
        moves = pipeline.get_pipe("dynoracle_parser").moves
        assert moves.cfg["label_sets"] == "shared"
        sets = [set(moves.labels[m]) for m in moves.arc_directions]
        assert all(s == sets[0] for s in sets)
    assert [nlp.get_pipe("dynoracle_parser").moves.get_class_name(i) for i in range(20)] == \
        [default.get_pipe("dynoracle_parser").moves.get_class_name(i) for i in range(20)]
