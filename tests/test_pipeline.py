"""The dynoracle_parser component inside spaCy: factory, training, save/load, sentences."""
import json
import random
import subprocess
import sys
import warnings

import pytest
import spacy
from spacy.tokens import Doc

import spacy_dynoracle
from spacy_dynoracle.parser import DynOracleParser
from synthetic import component_config, make_examples, train


def make_nlp(**config):
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config=component_config(**config))
    return nlp


def uas(nlp, examples):
    right = total = 0
    for eg in examples:
        doc = nlp(Doc(nlp.vocab, words=[t.text for t in eg.reference]))
        for t, g in zip(doc, eg.reference):
            right += t.head.i == g.head.i
            total += 1
    return right / total


def test_factory_errors_name_the_choices():
    nlp = spacy.blank("xx")
    with pytest.raises(ValueError, match="arc_hybrid"):
        nlp.add_pipe("dynoracle_parser", config={"transition_system": "nope"})
    with pytest.raises(ValueError, match=r"'arc_eager_nm'; choose one of \['dynamic', 'spacy'\]"):
        nlp.add_pipe("dynoracle_parser", config={"oracle": "nope"})      # the default system's
    with pytest.raises(ValueError, match="static"):
        nlp.add_pipe("dynoracle_parser", config={"transition_system": "arc_eager", "oracle": "nope"})
    with pytest.raises(ValueError, match="explore_prob"):
        nlp.add_pipe("dynoracle_parser", config={"explore_prob": 1.5})


@pytest.mark.parametrize("config,message", [
    ({"beam_width": 0}, "beam_width=0 is invalid; use an integer >= 1 (1 = greedy; >= 2 = beam search)"),
    ({"degree": 3}, "degree=3 is invalid; transition_system 'arc_eager_nm' has no 'degree' option "
                    "(only attardi); remove it"),
    ({"system_options": {"degree": 3}}, "arc_eager_nm"),
    ({"explore_prob": 1.5}, "explore_prob=1.5 is invalid; use a number in [0, 1]"),
    ({"explore_prob": -0.1}, "explore_prob=-0.1 is invalid; use a number in [0, 1]"),
    ({"explore_after_epochs": -1}, "explore_after_epochs=-1 is invalid; use an integer >= 0"),
    ({"beam_update_prob": 2.0}, "beam_update_prob=2.0 is invalid; use a number in [0, 1]"),
    ({"explore_rule": "bist"}, "explore_rule='bist' is invalid; use one of ['prob', 'margin', 'anneal']"),
    ({"explore_margin": -0.5}, "explore_margin=-0.5 is invalid; use a number >= 0"),
    ({"explore_ramp_epochs": 0}, "explore_ramp_epochs=0 is invalid; use an integer >= 1"),
    ({"max_k": 3}, "max_k=3 is invalid; transition_system 'arc_eager_nm' has no 'max_k' option (only lr_spine)"),
    ({"transition_system": "attardi", "max_k": 1}, "transition_system 'attardi' has no 'max_k' option"),
    ({"transition_system": "attardi", "system_options": {"degree": 4}}, "attardi: degree must be 2 or 3, got 4"),
    ({"transition_system": "attardi", "degree": 4}, "attardi: degree must be 2 or 3, got 4"),
    ({"transition_system": "lr_spine", "system_options": {"max_k": 0}},
     "lr_spine: max_k must be an integer in 1..3, not 0"),
    ({"transition_system": "attardi", "degree": 3, "system_options": {"degree": 2}},
     "'degree' is set twice, as a component key (3) and in system_options (2)"),
])
def test_bad_settings_fail_at_add_pipe_naming_value_and_valid_ones(config, message):
    with pytest.raises(ValueError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)        # the deprecated component keys
        spacy.blank("xx").add_pipe("dynoracle_parser", config=config)
    assert message in str(info.value)


def system_cfg(config):
    moves = spacy.blank("xx").add_pipe("dynoracle_parser", config=config).moves
    return {key: moves.cfg.get(key) for key in ("degree", "max_k")}


def test_degree_and_max_k_are_system_options():
    assert system_cfg({"transition_system": "attardi", "system_options": {"degree": 3}})["degree"] == 3
    assert system_cfg({"transition_system": "lr_spine", "system_options": {"max_k": 3}})["max_k"] == 3
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser")
    config = nlp.config["components"]["dynoracle_parser"]
    assert config.get("degree") is None and config.get("max_k") is None


@pytest.mark.parametrize("system,key,value", [("attardi", "degree", 3), ("lr_spine", "max_k", 3),
                                              ("attardi", "degree", 2), ("arc_eager", "degree", 2),
                                              ("swap", "max_k", 2)])
def test_deprecated_component_keys_load_with_a_warning(system, key, value):
    """Configs written before system_options held degree and max_k set them as component
    keys, for every system (2 where the system has no such option): they load as before."""
    has_option = key in spacy_dynoracle.get_system_class(system).options
    advice = r"set it in \[components.dynoracle_parser.system_options\]" if has_option else "remove it"
    with pytest.warns(FutureWarning, match=rf"the component key {key} = {value} is deprecated: {advice}"):
        old = system_cfg({"transition_system": system, key: value})
    new = system_cfg({"transition_system": system, "system_options": {key: value} if has_option else {}})
    assert old == new


def test_system_options_reach_the_system_and_survive_save_load(tmp_path):
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config={
        "transition_system": "swap", "system_options": {"exact_live": 3, "region_nd_all": False}})
    moves = nlp.get_pipe("dynoracle_parser").moves
    assert moves.cfg["exact_live"] == 3 and moves.cfg["region_nd_all"] is False
    nlp.get_pipe("dynoracle_parser").add_label("dep")
    nlp.initialize()
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model").get_pipe("dynoracle_parser").moves
    assert loaded.cfg["exact_live"] == 3 and loaded.cfg["region_nd_all"] is False
    # an option the system does not have names the system's options
    with pytest.raises(ValueError, match="exact_live"):
        spacy.blank("xx").add_pipe("dynoracle_parser", config={
            "transition_system": "swap", "system_options": {"uncovered": "exact"}})


@pytest.mark.parametrize("system,oracle", [
    ("arc_hybrid", "dynamic"), ("arc_hybrid", "static"),
    ("arc_eager", "dynamic"),
])
def test_arc_hybrid_learns(system, oracle):
    nlp = make_nlp(transition_system=system, oracle=oracle, explore_after_epochs=1,
                   explore_prob=0.9)
    train_egs = make_examples(nlp.vocab, 120, seed=1)
    losses = train(nlp, train_egs, epochs=8)
    assert losses[-1] < losses[0] / 2
    assert uas(nlp, make_examples(nlp.vocab, 30, seed=2)) > 0.8


@pytest.mark.parametrize("config,lifted", [
    ({"transition_system": "arc_hybrid"}, False),             # exact DP oracle: no lifting
    ({"transition_system": "arc_hybrid", "oracle": "static"}, True),   # static: lifted by default
    ({"transition_system": "arc_hybrid", "projectivize": True}, True),  # lifting on request
    ({}, True),                                    # the default, arc_eager_nm with spaCy's costs
    ({"transition_system": "arc_eager"}, False),
    ({"transition_system": "arc_eager", "oracle": "static"}, True),
])
def test_nonprojective_training_output_has_no_lifting_labels(config, lifted):
    """Projective systems train on lifted gold (and deprojectivize their output) only with
    oracles that need it; the exact dynamic oracles take non-projective gold as it is."""
    nlp = make_nlp(**config)
    examples = make_examples(nlp.vocab, 60, seed=3, kind="nonprojective", min_len=4)
    train(nlp, examples, epochs=2)
    parser = nlp.get_pipe("dynoracle_parser")
    assert parser.moves.projectivize == lifted
    assert any("||" in name for name in parser.move_names) == lifted
    for doc in nlp.pipe([Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples]):
        assert all("||" not in t.dep_ for t in doc)


@pytest.mark.parametrize("system", ["arc_hybrid", "arc_eager", "easy_first"])
def test_multi_sentence_docs_and_segmentation(system):
    nlp = make_nlp(transition_system=system)
    examples = make_examples(nlp.vocab, 80, seed=4, sents_per_doc=3)
    train(nlp, examples, epochs=6)
    for doc in nlp.pipe([Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples[:20]]):
        for sent in doc.sents:
            roots = [t for t in sent if t.head == t]
            assert len(roots) == 1
            assert all(sent.start <= t.head.i < sent.end for t in sent)


@pytest.mark.parametrize("system,trained", [
    ("arc_hybrid", False), ("arc_hybrid", True), ("arc_eager", False), ("arc_eager", True),
    ("arc_standard", False), ("lr_spine", False), ("lr_spine", True), ("attardi", False),
    ("swap", False), ("easy_first", False), ("easy_first", True)])
def test_preset_sentence_boundaries_are_respected(system, trained):
    """Boundaries set before the parser (senter, sentencizer) are kept: one root per
    sentence, no arc across. Holds for any model, so also for an untrained one."""
    nlp = make_nlp(transition_system=system)
    examples = make_examples(nlp.vocab, 40, seed=5, sents_per_doc=2)
    if trained:
        train(nlp, examples, epochs=2)
    else:
        nlp.initialize(lambda: examples)
    rng = random.Random(0)
    for _ in range(40):
        n = rng.randint(2, 30)
        starts = [True] + [rng.random() < 0.25 for _ in range(n - 1)]
        doc = Doc(nlp.vocab, words=[rng.choice(["root", "w1", "w-1", "w2"]) for _ in range(n)],
                  sent_starts=starts)
        doc = nlp(doc)
        bounds = [i for i, s in enumerate(starts) if s] + [n]
        for a, b in zip(bounds, bounds[1:]):
            roots = [i for i in range(a, b) if doc[i].head.i == i]
            assert len(roots) == 1, (starts, [t.head.i for t in doc])
            assert all(a <= doc[i].head.i < b for i in range(a, b))


def test_long_documents_parse():
    nlp = make_nlp()
    nlp.initialize(lambda: make_examples(nlp.vocab, 20, seed=6))
    doc = nlp(Doc(nlp.vocab, words=["w1", "root", "w-1"] * 400))
    assert len(doc) == 1200
    assert all(0 <= t.head.i < len(doc) for t in doc)


@pytest.mark.parametrize("system", ["arc_hybrid", "easy_first"])
def test_save_load_round_trip_in_a_fresh_process(system, tmp_path):
    nlp = make_nlp(transition_system=system, oracle="dynamic")
    examples = make_examples(nlp.vocab, 60, seed=7, sents_per_doc=2)
    train(nlp, examples, epochs=3)
    texts = [" ".join(t.text for t in eg.reference) for eg in examples[:15]]
    expected = [[(t.head.i, t.dep_) for t in doc] for doc in nlp.pipe(texts)]
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    assert [[(t.head.i, t.dep_) for t in doc] for doc in loaded.pipe(texts)] == expected
    nlp2 = make_nlp(transition_system=system)  # bytes round trip too
    nlp2.from_bytes(nlp.to_bytes())
    assert [[(t.head.i, t.dep_) for t in doc] for doc in nlp2.pipe(texts)] == expected
    code = (
        "import json, sys, spacy\n"
        f"nlp = spacy.load({str(tmp_path / 'model')!r})\n"
        f"texts = {texts!r}\n"
        "print(json.dumps([[(t.head.i, t.dep_) for t in d] for d in nlp.pipe(texts)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [[list(x) for x in doc] for doc in expected]
    assert loaded.get_pipe("dynoracle_parser").cfg["transition_system"] == system


def test_version_mismatch_is_a_clear_error_and_spacy_blank_survives(monkeypatch):
    from spacy_dynoracle import _build_info

    monkeypatch.setattr(_build_info, "SPACY_VERSION", "3.0.0")
    nlp = spacy.blank("en")  # entry points still load
    with pytest.raises(spacy_dynoracle.SpacyVersionMismatch, match="3.0.0"):
        nlp.add_pipe("dynoracle_parser")
    assert spacy.blank("de") is not None


@pytest.mark.parametrize("built,running,ok", [
    ("3.8.18", "3.8.18", True), ("3.8.18", "3.8.10", True), ("3.8.18", "3.8.15", True),
    ("3.8.10", "3.8.18", True), ("3.8.18", "3.8.9", False), ("3.8.18", "3.8.19", False),
    ("3.8.18", "3.9.0", False), ("3.8.18", "3.8.18.dev0", False), ("3.8.5", "3.8.5", True),
    ("3.8.5", "3.8.6", False),
])
def test_spacy_abi_range(built, running, ok):
    assert spacy_dynoracle.spacy_abi_compatible(built, running) is ok


def test_spacy_versions_with_the_same_headers_are_accepted(monkeypatch):
    from spacy_dynoracle import _build_info

    monkeypatch.setattr(_build_info, "SPACY_VERSION", "3.8.10")  # built against another release in range
    spacy.blank("en").add_pipe("dynoracle_parser")
    monkeypatch.setattr(_build_info, "SPACY_VERSION", "3.8.9")
    with pytest.raises(spacy_dynoracle.SpacyVersionMismatch, match=r"only in spaCy 3\.8\.10 to 3\.8\.18"):
        spacy.blank("en").add_pipe("dynoracle_parser")


def test_entry_point_modules_import_nothing_compiled():
    code = (
        "import sys, spacy\n"
        "spacy.blank('en')\n"
        "import spacy_dynoracle.factory, spacy_dynoracle.corpus, spacy_dynoracle.architectures\n"
        "bad = [m for m in sys.modules if m.startswith('spacy_dynoracle.') and "
        "getattr(sys.modules[m], '__file__', '').endswith('.so')]\n"
        "print(bad)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_exploration_schedule():
    nlp = make_nlp(explore_after_epochs=2, explore_prob=0.75)
    parser = nlp.get_pipe("dynoracle_parser")
    parser.epoch = 1
    assert parser.follow_oracle_mask(1000).all()
    parser.epoch = 2
    share = 1 - parser.follow_oracle_mask(20000).mean()
    assert 0.72 < share < 0.78
    static = make_nlp(transition_system="arc_eager", oracle="static", explore_after_epochs=0, explore_prob=1.0)
    sp = static.get_pipe("dynoracle_parser")
    sp.epoch = 5
    assert sp.follow_oracle_mask(100).all()


def test_anneal_ramps_the_exploration_probability_from_epoch_k():
    """explore_rule="anneal": p is 0 before and at epoch k, rises linearly to explore_prob
    at epoch k + explore_ramp_epochs and stays there; "prob" explores at the full p from
    epoch k. Measured through the mask training draws (follow_oracle_mask)."""
    k, p, ramp = 1, 0.8, 4
    for rule, expected in (("anneal", {0: 0.0, 1: 0.0, 2: 0.2, 3: 0.4, 5: 0.8, 9: 0.8}),
                           ("prob", {0: 0.0, 1: 0.8, 2: 0.8, 9: 0.8})):
        parser = make_nlp(explore_after_epochs=k, explore_prob=p, explore_rule=rule,
                          explore_ramp_epochs=ramp).get_pipe("dynoracle_parser")
        for epoch, share in expected.items():
            parser.epoch = epoch
            assert parser.explore_prob_now(epoch) == pytest.approx(share)
            explored = 1 - parser.follow_oracle_mask(20000).mean()
            assert abs(explored - share) < 0.02, (rule, epoch, explored)


@pytest.mark.parametrize("system", ["arc_hybrid", "attardi"])
def test_default_exploration_rule_trains_as_before(system):
    """The default explore_rule ("prob") leaves training unchanged: on a fixed seed it gives
    the same losses and weights as the rule set explicitly, and as "margin" with a margin no
    score difference reaches (which follows every prediction, as "prob" does); a margin of 0
    follows fewer wrong predictions and so trains differently."""
    examples = make_examples(spacy.blank("xx").vocab, 24, seed=3)
    runs = {}
    for name, config in (("default", {}), ("prob", {"explore_rule": "prob"}),
                         ("margin inf", {"explore_rule": "margin", "explore_margin": 1e30}),
                         ("margin 0", {"explore_rule": "margin", "explore_margin": 0.0})):
        nlp = make_nlp(transition_system=system, explore_after_epochs=1, explore_prob=0.9,
                       **config)
        history = train(nlp, list(examples), epochs=3, seed=0)
        parser = nlp.get_pipe("dynoracle_parser")
        runs[name] = (history, parser.model.to_bytes(), parser.n_off_path)
    assert runs["prob"] == runs["default"]
    assert runs["margin inf"] == runs["default"]
    assert runs["default"][2] > 0                       # it explored, and left the oracle's paths
    assert runs["margin 0"][2] < runs["default"][2]
    assert runs["margin 0"][1] != runs["default"][1]


def test_beam_width_without_beam_updates_warns_once():
    """beam_width >= 2 with spaCy's default beam_update_prob = 0 trains greedily and uses
    the beam only to parse: legal, but a silent surprise, so training says it once."""
    for prob, expected in ((0.0, 1), (1.0, 0)):
        nlp = make_nlp(beam_width=2, beam_update_prob=prob)
        examples = make_examples(nlp.vocab, 8, seed=1)
        nlp.initialize(lambda: examples)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                nlp.update(examples[:4], drop=0.0)
        assert len([w for w in caught if "beam_update_prob" in str(w.message)]) == expected


def test_schedule_defaults_come_from_the_system():
    """explore_after_epochs / explore_prob left null take the system's default_schedule;
    explicit values win."""
    default = make_nlp().get_pipe("dynoracle_parser")      # the default system is arc_eager_nm
    assert (default.cfg["transition_system"], default.cfg["oracle"]) == ("arc_eager_nm", "spacy")
    assert (default.cfg["explore_after_epochs"], default.cfg["explore_prob"]) == (0, 1.0)
    hybrid = make_nlp(transition_system="arc_hybrid").get_pipe("dynoracle_parser")
    assert (hybrid.cfg["explore_after_epochs"], hybrid.cfg["explore_prob"]) == (1, 0.9)
    swap = make_nlp(transition_system="swap").get_pipe("dynoracle_parser")
    assert (swap.cfg["explore_after_epochs"], swap.cfg["explore_prob"]) == (2, 0.5)
    swap.epoch = 1
    assert swap.follow_oracle_mask(100).all()
    attardi = make_nlp(transition_system="attardi").get_pipe("dynoracle_parser")
    assert (attardi.cfg["explore_after_epochs"], attardi.cfg["explore_prob"]) == (2, 0.5)
    mine = make_nlp(transition_system="swap", explore_after_epochs=0,
                    explore_prob=0.9).get_pipe("dynoracle_parser")
    assert (mine.cfg["explore_after_epochs"], mine.cfg["explore_prob"]) == (0, 0.9)


def test_oracle_default_comes_from_the_system():
    """oracle left null (the factory's default) takes the system's default_oracle, which the
    parser's cfg records; an explicit oracle wins."""
    from spacy_dynoracle import LIST_SYSTEMS, SYSTEMS, get_system_class

    for name in [*SYSTEMS, *LIST_SYSTEMS]:
        parser = make_nlp(transition_system=name).get_pipe("dynoracle_parser")
        default = get_system_class(name).default_oracle
        assert default in get_system_class(name).oracles
        assert parser.cfg["oracle"] == parser.moves.oracle == default
    static = make_nlp(transition_system="arc_eager", oracle="static").get_pipe("dynoracle_parser")
    assert static.cfg["oracle"] == static.moves.oracle == "static"


def test_unknown_epoch_warns_once():
    nlp = make_nlp(explore_after_epochs=1)
    parser = nlp.get_pipe("dynoracle_parser")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parser.follow_oracle_mask(3)
        parser.follow_oracle_mask(3)
    assert len([w for w in caught if "set_epoch" in str(w.message)]) == 1
    assert isinstance(parser, DynOracleParser)


REPRODUCIBLE = [("arc_hybrid", {}), ("arc_eager", {}), ("arc_standard", {}), ("lr_spine", {}),
                ("swap", {}), ("attardi", {"system_options": {"degree": 2}}),
                ("attardi", {"system_options": {"degree": 3}}), ("easy_first", {}),
                ("arc_eager_nm", {"oracle": "spacy"}), ("arc_eager_nm", {})]


@pytest.mark.parametrize("system, options", REPRODUCIBLE)
def test_same_seed_and_config_train_byte_identical_models(system, options):
    """Training is reproducible: the same seed and config give the same model, byte for
    byte, with exploration on (dynamic oracle, p = 0.5 from epoch 1) and dropout; no cost
    depends on wall-clock time (attardi's max_ms is off by default)."""
    models, losses = [], []
    options = dict(options)
    oracle = options.pop("oracle", "dynamic")
    for _ in range(2):
        nlp = make_nlp(transition_system=system, oracle=oracle, explore_after_epochs=1,
                       explore_prob=0.5, **options)
        examples = make_examples(nlp.vocab, 24, seed=9, kind="nonprojective", sents_per_doc=2)
        losses.append(train(nlp, examples, epochs=3, batch=6, drop=0.1))
        models.append(nlp.to_bytes())
        parser = nlp.get_pipe("dynoracle_parser")
    assert losses[0] == losses[1]
    assert models[0] == models[1]
    if system == "attardi":     # no wall-clock cut on the costs unless asked for
        assert parser.moves.oracle_.max_ms == 0 and parser.moves.cfg["max_ms"] == 0



def test_training_target_defaults_come_from_the_system():
    """target is "static" for attardi (its common_option_defaults, chosen on dev at
    convergence: docs/systems/attardi.md) and "all" for every other system; an explicit value
    wins."""
    from spacy_dynoracle import SYSTEMS

    def target(nlp):
        return nlp.get_pipe("dynoracle_parser").moves.cfg["target"]

    for name in SYSTEMS:
        expected = "static" if name == "attardi" else "all"
        assert target(make_nlp(transition_system=name)) == expected, name
    assert target(make_nlp(transition_system="attardi", system_options={"target": "all"})) == "all"


def test_target_temperature_defaults_come_from_the_system(tmp_path):
    """target_temperature is 2.0 for swap (its common_option_defaults, chosen on dev at
    convergence: docs/systems/swap.md) and 1.0 (spaCy's loss) for every other system that
    takes it; an explicit value wins, and it survives save and load."""
    from spacy_dynoracle import SYSTEMS

    def temperature(nlp):
        return nlp.get_pipe("dynoracle_parser").moves.cfg.get("target_temperature")

    for name in SYSTEMS:
        expected = None if name == "easy_first" else (2.0 if name == "swap" else 1.0)
        assert temperature(make_nlp(transition_system=name)) == expected, name
    nlp = make_nlp(transition_system="swap", system_options={"target_temperature": 1.0})
    assert temperature(nlp) == 1.0
    nlp.to_disk(tmp_path / "model")
    assert temperature(spacy.load(tmp_path / "model")) == 1.0


def test_sentence_target_defaults_come_from_the_system(tmp_path):
    """close_sentences / keep_sentences are on for arc_eager (its common_option_defaults,
    chosen at convergence: docs/systems/arc_eager.md) and off for every other system; an
    explicit value wins, and a saved pipeline keeps what it was trained with."""
    from spacy_dynoracle import SYSTEMS

    def sentence_targets(nlp):
        cfg = nlp.get_pipe("dynoracle_parser").moves.cfg
        return cfg["close_sentences"], cfg["keep_sentences"]

    for name in SYSTEMS:
        on = name == "arc_eager"
        assert sentence_targets(make_nlp(transition_system=name)) == (on, on), name
    off = make_nlp(transition_system="arc_eager",
                   system_options={"close_sentences": False, "keep_sentences": False})
    assert sentence_targets(off) == (False, False)
    examples = make_examples(off.vocab, 4, seed=3)
    off.initialize(lambda: examples)
    off.to_disk(tmp_path / "off")
    assert sentence_targets(spacy.load(tmp_path / "off")) == (False, False)
