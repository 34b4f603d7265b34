"""spacy.load(path, config=...) and from_bytes honour the config's values over the saved
pipeline's where they are read only while parsing or training, and refuse a structural one
that differs (spacy_dynoracle/load_overrides.py). Tiny synthetic pipelines, trained a few
updates, saved once per module."""
import inspect
import random

import pytest
import spacy
import srsly
from spacy.tokens import Doc

from spacy_dynoracle import get_system_class
from spacy_dynoracle.factory import NOT_RECORDED, make_dynoracle_parser
from spacy_dynoracle.load_overrides import OPTION_PREFIX, RECORD_KEY
from synthetic import component_config, make_examples, train

NAME = "dynoracle_parser"
KEY = f"components.{NAME}."
#: the configs the saved pipelines were built with
CONFIGS = {
    # never explores in epoch 0, so that an exploration override shows in n_off_path
    "arc_standard": dict(transition_system="arc_standard", explore_after_epochs=5),
    # every zero-cost move a target: the tiny model then makes the crossing arcs the
    # penalty tests need (with attardi's default static target it makes none)
    "attardi": dict(transition_system="attardi", system_options={"target": "all"}),
    "easy_first": dict(transition_system="easy_first", explore_after_epochs=5),
}


def make_nlp(**config):
    nlp = spacy.blank("xx")
    nlp.add_pipe(NAME, config=component_config(**config))
    return nlp


def parses(nlp, examples):
    docs = nlp.pipe([Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples])
    return [[(t.head.i, t.dep_) for t in doc] for doc in docs]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """{system: (folder of the saved pipeline, to_bytes(), parses of the pipeline in
    memory, examples)}; attardi learns from non-projective trees, so its parses use the
    non-projective moves a penalty can take away."""
    out = {}
    for system, config in CONFIGS.items():
        nlp = make_nlp(**config)
        kind = "nonprojective" if system == "attardi" else "projective"
        examples = make_examples(nlp.vocab, 40, seed=5, kind=kind, min_len=5, max_len=12)
        train(nlp, examples, epochs=3)
        path = tmp_path_factory.mktemp(system) / "model"
        nlp.to_disk(path)
        out[system] = (path, nlp.to_bytes(), parses(nlp, examples), examples)
    return out


def load(saved, system, **overrides):
    return spacy.load(saved[system][0], config={KEY + k: v for k, v in overrides.items()})


def one_update(nlp, examples):
    """The loss of one seeded training update at epoch 0, and the parser after it."""
    random.seed(0)
    spacy.util.fix_random_seed(0)
    parser = nlp.get_pipe(NAME)
    parser.epoch = 0
    losses = nlp.update(examples[:16], losses={})
    return losses[NAME], parser


def unrecorded(record):
    """The factory's arguments that `record` lacks, but those it leaves out by design."""
    return set(inspect.signature(make_dynoracle_parser).parameters) - NOT_RECORDED - set(record)


@pytest.mark.parametrize("config", [
    dict(transition_system="arc_standard", oracle="static", explore_margin=0.5,
         system_options={"target": "static"}),
    dict(transition_system="easy_first", explore_prob=0.3, projectivize=False),
])
def test_the_record_holds_every_factory_argument_as_the_config_gives_it(config):
    """Every argument of the factory but NOT_RECORDED is in the record, at the component
    config's value (null stays null: the system's default is not a request), and the system
    options under their prefixed names; a new factory argument cannot be left out."""
    assert NOT_RECORDED < set(inspect.signature(make_dynoracle_parser).parameters)
    nlp = make_nlp(**config)
    record = nlp.get_pipe(NAME).cfg[RECORD_KEY]
    assert unrecorded(record) == set()
    given = nlp.config["components"][NAME]
    assert {key: value for key, value in record.items() if not key.startswith(OPTION_PREFIX)} \
        == {key: value for key, value in given.items() if key in record}
    assert {key: value for key, value in record.items() if key.startswith(OPTION_PREFIX)} \
        == {OPTION_PREFIX + key: value for key, value in given["system_options"].items()}
    assert record["oracle"] == config.get("oracle")       # None when the config leaves it unset
    # the negative control: a record without an argument is caught
    assert unrecorded({key: value for key, value in record.items() if key != "decode"}) == {"decode"}


@pytest.mark.parametrize("system", list(CONFIGS))
def test_a_load_without_overrides_parses_as_the_saved_pipeline(saved, system):
    path, data, expected, examples = saved[system]
    assert parses(spacy.load(path), examples) == expected
    nlp = make_nlp(**CONFIGS[system])      # the bytes round trip too
    assert parses(nlp.from_bytes(data), examples) == expected


def test_a_value_read_only_by_initialize_is_kept_for_it_and_changes_nothing_else(saved):
    """min_action_freq chose the label table when the pipeline was initialized: another
    value at load time is no error, and the loaded table and parses are the saved ones."""
    path, data, expected, examples = saved["attardi"]
    plain = spacy.load(path).get_pipe(NAME)
    loaded = load(saved, "attardi", min_action_freq=30)
    assert loaded.get_pipe(NAME).cfg["min_action_freq"] == 30
    assert loaded.get_pipe(NAME).moves.n_moves == plain.moves.n_moves
    assert parses(loaded, examples) == expected


def test_a_parse_time_penalty_given_at_load_changes_the_parse_as_set_on_the_parser(saved):
    _, data, plain, examples = saved["attardi"]
    reference = spacy.load(saved["attardi"][0])
    reference.get_pipe(NAME).nonprojective_penalty = 50.0
    penalised = parses(reference, examples)
    assert penalised != plain      # the tiny model makes crossing arcs: the penalty shows
    loaded = load(saved, "attardi", nonprojective_penalty=50.0)
    assert loaded.get_pipe(NAME).cfg["nonprojective_penalty"] == 50.0
    assert parses(loaded, examples) == penalised
    nlp = make_nlp(**CONFIGS["attardi"], nonprojective_penalty=50.0)
    assert parses(nlp.from_bytes(data), examples) == penalised


def test_a_value_set_on_the_parser_and_saved_survives_a_load_without_that_override(saved, tmp_path):
    """The saved value wins where the config is the one the pipeline was saved with: a
    penalty set after building (documented as saved with the cfg) is not undone."""
    nlp = spacy.load(saved["attardi"][0])
    nlp.get_pipe(NAME).nonprojective_penalty = 2.0
    nlp.to_disk(tmp_path / "set")
    assert spacy.load(tmp_path / "set").get_pipe(NAME).cfg["nonprojective_penalty"] == 2.0
    again = spacy.load(tmp_path / "set", config={KEY + "nonprojective_penalty": 3.0})
    assert again.get_pipe(NAME).cfg["nonprojective_penalty"] == 3.0


@pytest.mark.parametrize("how", ["disk", "bytes"])
def test_a_structural_option_that_differs_is_an_error_naming_both_values(saved, how):
    assert get_system_class("attardi").structural_options >= {"degree", "label_sets"}
    with pytest.raises(ValueError, match=rf"dynoracle_parser.*'{NAME}'.*system option 'degree' "
                                         r"to 3.*trained with 2"):
        if how == "disk":
            load(saved, "attardi", **{"system_options.degree": 3})
        else:
            make_nlp(transition_system="attardi", system_options={"degree": 3}).from_bytes(
                saved["attardi"][1])
    with pytest.raises(ValueError, match="'transition_system' to 'arc_hybrid'.*'attardi'"):
        make_nlp(transition_system="arc_hybrid").from_bytes(saved["attardi"][1])
    # the same value as saved is no change
    assert load(saved, "attardi", **{"system_options.degree": 2}).get_pipe(NAME).moves.degree == 2


def test_a_training_time_system_option_given_at_load_is_the_one_training_reads(saved):
    """target = "static" narrows the training targets (step_batch reads the system's cfg):
    loaded with the override, an update gives the loss of the saved pipeline with the
    option set on its system, not the saved pipeline's."""
    examples = saved["arc_standard"][3]
    plain, _ = one_update(load(saved, "arc_standard"), examples)
    reference_nlp = load(saved, "arc_standard")
    reference_nlp.get_pipe(NAME).moves.cfg["target"] = "static"
    reference, _ = one_update(reference_nlp, examples)
    assert reference != plain
    loaded = load(saved, "arc_standard", **{"system_options.target": "static"})
    assert loaded.get_pipe(NAME).moves.cfg["target"] == "static"
    assert one_update(loaded, examples)[0] == reference


def test_an_option_the_system_reads_when_built_follows_the_settled_value(saved, monkeypatch):
    """arc_standard's budget is read into the system when it is built: an override reaches
    it and its cfg; a default changed since saving (the config leaves budget unset) neither
    (the saved pipeline's value, the system rebuilt with it)."""
    moves = load(saved, "arc_standard", **{"system_options.budget": 7}).get_pipe(NAME).moves
    assert moves.budget == 7 and moves.cfg["budget"] == 7
    cls = get_system_class("arc_standard")
    trained = cls.options["budget"]
    monkeypatch.setitem(cls.options, "budget", 11)
    moves = load(saved, "arc_standard").get_pipe(NAME).moves
    assert moves.budget == trained and moves.cfg["budget"] == trained


@pytest.mark.parametrize("system", ["arc_standard", "easy_first"])
def test_exploration_given_at_load_is_the_schedule_training_follows(saved, system):
    """Saved with explore_after_epochs = 5, a pipeline trains on the oracle's paths in
    epoch 0; loaded with explore_after_epochs = 0, explore_prob = 1 it follows its own
    predictions (n_off_path > 0: moves that cost), from disk and from bytes."""
    examples = saved[system][3]
    explore = {"explore_after_epochs": 0, "explore_prob": 1.0}
    assert one_update(load(saved, system), examples)[1].n_off_path == 0
    parser = one_update(load(saved, system, **explore), examples)[1]
    assert (parser.cfg["explore_after_epochs"], parser.cfg["explore_prob"]) == (0, 1.0)
    assert parser.n_off_path > 0
    nlp = make_nlp(**dict(CONFIGS[system], **explore)).from_bytes(saved[system][1])
    assert one_update(nlp, examples)[1].n_off_path > 0


@pytest.mark.parametrize("system", list(CONFIGS))
def test_the_oracle_given_at_load_is_in_the_cfg_and_the_system(saved, system):
    parser = load(saved, system, oracle="static").get_pipe(NAME)
    assert parser.cfg["oracle"] == parser.moves.oracle == "static"
    parser = load(saved, system).get_pipe(NAME)
    assert parser.cfg["oracle"] == parser.moves.oracle == "dynamic"


def test_easy_first_refuses_another_projectivize_and_keeps_its_labels(saved):
    with pytest.raises(ValueError, match="'projectivize' to False.*trained with True"):
        load(saved, "easy_first", projectivize=False)
    labels = load(saved, "easy_first").get_pipe(NAME).labels
    assert labels and load(saved, "easy_first", oracle="static").get_pipe(NAME).labels == labels


def test_a_pipeline_saved_without_the_record_takes_what_the_config_sets_but_a_penalty_set_on_it(saved, tmp_path):
    """Pipelines saved before the record: a config value that is set and differs from the
    saved one is a request (the oracle here, as the benchmarks ask of old pipelines), except
    a value a user can set on the parser (the penalty: saved in the cfg, not in
    config.cfg), which stays, with a warning. A structural value that differs is refused."""
    path, _, expected, examples = saved["attardi"]
    old = tmp_path / "old"
    nlp = spacy.load(path)
    nlp.get_pipe(NAME).nonprojective_penalty = 7.0
    nlp.to_disk(old)
    cfg = srsly.read_json(old / NAME / "cfg")
    del cfg[RECORD_KEY]
    srsly.write_json(old / NAME / "cfg", cfg)
    with pytest.warns(UserWarning, match="nonprojective_penalty"):
        parser = spacy.load(old).get_pipe(NAME)
    assert parser.cfg["nonprojective_penalty"] == 7.0
    with pytest.warns(UserWarning, match="saved without the record"):
        parser = spacy.load(old, config={KEY + "nonprojective_penalty": 50.0}).get_pipe(NAME)
    assert parser.cfg["nonprojective_penalty"] == 7.0
    with pytest.warns(UserWarning):
        parser = spacy.load(old, config={KEY + "oracle": "static"}).get_pipe(NAME)
    assert parser.cfg["oracle"] == "static" and parser.moves.oracle == "static"
    with pytest.raises(ValueError, match="system option 'degree'"):
        spacy.load(old, config={KEY + "system_options.degree": 3})
    # the same pipeline with its record: the override wins
    assert spacy.load(path, config={KEY + "nonprojective_penalty": 50.0}).get_pipe(NAME).cfg["nonprojective_penalty"] == 50.0


def test_a_structural_default_changed_since_saving_loads_the_saved_move_table(tmp_path, monkeypatch):
    """lr_spine's max_k declares the moves LEFT_k / RIGHT_k up to k = max_k: a pipeline
    trained when the default was 3 (the config leaves max_k unset), loaded now that it is
    2, keeps 3 (no request): the saved moves and model load into a system of max_k 3, from
    disk and from bytes, and parse as the saved pipeline. The system must be rebuilt before
    spaCy loads the saved moves into it and resizes the model to them."""
    cls = get_system_class("lr_spine")
    default = cls.options["max_k"]
    with monkeypatch.context() as patch:
        patch.setitem(cls.options, "max_k", default + 1)
        nlp = make_nlp(transition_system="lr_spine")
        assert nlp.get_pipe(NAME).moves.cfg["max_k"] == default + 1
        examples = make_examples(nlp.vocab, 30, seed=5, kind="nonprojective", min_len=5, max_len=12)
        train(nlp, examples, epochs=2)
        expected = parses(nlp, examples)
        n_moves = nlp.get_pipe(NAME).moves.n_moves
        nlp.to_disk(tmp_path / "model")
        data = nlp.to_bytes()
    assert make_nlp(transition_system="lr_spine").get_pipe(NAME).moves.cfg["max_k"] == default
    for loaded in (spacy.load(tmp_path / "model"),
                   make_nlp(transition_system="lr_spine").from_bytes(data)):
        moves = loaded.get_pipe(NAME).moves
        assert moves.cfg["max_k"] == default + 1 and moves.n_moves == n_moves
        assert parses(loaded, examples) == expected
