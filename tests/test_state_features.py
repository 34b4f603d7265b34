"""The feature templates of state_features.pyx (issue 19): their tokens on hand-built
states, spaCy's own templates reproduced, the Cython greedy loop against the Python step
loop, save/load of a pipeline with each template, and the config errors."""
import random
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.ml.parser_model import ParserStepModel
from spacy.tokens import Doc

from spacy_dynoracle import load_compiled
from spacy_dynoracle.architectures import SpineStepModel
from spacy_dynoracle.testing import Simulator, python_step_loop
from synthetic import make_examples, train_parser

PROJECT_SCRIPTS = Path(__file__).resolve().parents[1] / "projects" / "ud" / "scripts"
TINY_TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None,
                "width": 32, "depth": 2, "embed_size": 500, "window_size": 1,
                "maxout_pieces": 2, "subword_features": True}


def features():
    return load_compiled("state_features")


def token_ids(sim, template, max_k=2):
    ids = numpy.full((1, features().n_features(template, max_k)), -1, dtype="i")
    features().fill_token_ids([sim.state], ids, template, max_k)
    return ids[0].tolist()


def run(system, n, actions, **options):
    sim = Simulator(system, n, **options)
    for a in actions:
        sim.apply(a)
    return sim


class _FakeStep:
    """Enough of a ParserStepModel for spaCy's own get_token_ids (set_context_tokens)."""
    def __init__(self, nF):
        self.state2vec = type("state2vec", (), {"nF": nF})


@pytest.mark.parametrize("template,nF", [("base", 8), ("extra", 13)])
def test_spacys_templates_are_spacys_own(template, nF):
    rng = random.Random(5)
    for _ in range(150):
        n = rng.randint(1, 9)
        sim = Simulator("swap", n)
        for _ in range(rng.randrange(3 * n + 1)):
            if sim.is_final():
                break
            sim.apply(rng.choice(sim.actions()))
        if sim.is_final():
            continue
        spacys = ParserStepModel.get_token_ids(_FakeStep(nF), [sim.state]).tolist()[0]
        assert token_ids(sim, template) == spacys


def test_attardi_template_sees_every_arc_of_degree_3():
    # arcs 0 -> 1, 3 -> 2, 5 -> 4; stack [0, 3, 5, 6], buffer [7]
    sim = run("attardi", 8, ["SHIFT", "SHIFT", "RIGHT", "SHIFT", "SHIFT", "LEFT", "SHIFT",
                             "SHIFT", "LEFT", "SHIFT"], degree=3)
    assert sim.stack() == [0, 3, 5, 6] and sim.buffer() == [7]
    row = token_ids(sim, "attardi", 3)
    assert len(row) == 15
    assert row[:8] == [7, -1, 6, 5, 3, -1, -1, -1]          # the base 8
    assert row[8] == 0                                     # S3: la_3 / ra_3's far end
    assert row[9:15] == [4, -1, 2, -1, -1, 1]              # L/R of S1, S2, S3
    row2 = token_ids(sim, "attardi", 2)                    # degree 2: no S3
    assert len(row2) == 12 and row2[8:] == [4, -1, 2, -1]


def test_swap_template_sees_the_swapped_back_words():
    # arcs 0 -> 1, 3 -> 2; SWAP sends 0 back in front of 4
    sim = run("swap", 5, ["SHIFT", "SHIFT", "RIGHT", "SHIFT", "SHIFT", "LEFT", "SWAP"])
    assert sim.stack() == [3] and sim.buffer() == [0, 4]
    row = token_ids(sim, "swap")
    assert row[:8] == [0, 4, 3, -1, -1, -1, 2, -1]
    assert row[8:] == [-1, -1, 1, 4]     # L(S1), R(S1), R(B0) = 0's dependent, the unread 4
    sim.apply("SHIFT")                   # 0 back on the stack, nothing swapped back
    row = token_ids(sim, "swap")
    assert row[2:4] == [0, 3] and row[8:] == [2, -1, -1, -1]


def test_offsets_of_a_batch_and_unknown_templates():
    """The tokens of a batch are concatenated: a state's ids carry its doc's offset."""
    from spacy.pipeline._parser_internals.stateclass import StateClass

    first = run("swap", 4, ["SHIFT", "SHIFT"])
    second = Simulator("swap", 3)
    second.state = StateClass(second.doc, offset=4)     # the second doc of a batch
    for a in ["SHIFT", "SHIFT", "LEFT"]:
        second.apply(a)
    ids = numpy.full((2, 12), -1, dtype="i")
    features().fill_token_ids([first.state, second.state], ids, "swap", 2)
    assert ids[0, :4].tolist() == [2, 3, 1, 0]
    assert ids[1, :4].tolist() == [2 + 4, -1, 1 + 4, -1] and ids[1, 6] == 0 + 4
    with pytest.raises(ValueError, match=r"'nope'.*'base', 'spine', 'extra', 'attardi', 'swap'"):
        features().n_features("nope", 2)
    with pytest.raises(ValueError, match="reads 12 tokens"):
        features().fill_token_ids([first.state], numpy.zeros((1, 8), dtype="i"), "swap", 2)


# ---- pipelines ------------------------------------------------------------------------

def make_nlp(system, template, max_k=2, **config):
    nlp = spacy.blank("xx")
    model = {"@architectures": "spacy_dynoracle.SpineParserModel.v1",
             "feature_template": template, "max_k": max_k, "hidden_width": 32,
             "maxout_pieces": 2, "tok2vec": TINY_TOK2VEC}
    nlp.add_pipe("dynoracle_parser", config={"transition_system": system, "min_action_freq": 1,
                                             "model": model, **config})
    return nlp


def train(nlp, kind, epochs=2):
    return train_parser(nlp, make_examples(nlp.vocab, 40, seed=1, kind=kind), epochs)


def sample_docs(vocab, n=12):
    return [Doc(vocab, words=[t.text for t in eg.reference])
            for eg in make_examples(vocab, n, seed=7, kind="nonprojective", sents_per_doc=2)]


def python_tokens_read(*args):
    raise AssertionError("parsing stepped the model in Python")


def parses(docs):
    return [[(t.head.i, t.dep_) for t in doc] for doc in docs]


PIPELINES = [
    ("attardi", "attardi", 2, {"system_options": {"degree": 2}}, "nonprojective"),
    ("attardi", "attardi", 3, {"system_options": {"degree": 3}}, "nonprojective"),
    ("swap", "swap", 2, {}, "nonprojective"),
    ("arc_eager", "extra", 2, {}, "projective"),
    ("arc_hybrid", "base", 2, {}, "projective"),
    ("lr_spine", "spine", 3, {"system_options": {"max_k": 3}}, "projective"),
]


@pytest.mark.parametrize("system,template,max_k,config,kind", PIPELINES,
                         ids=[f"{p[0]}-{p[1]}{p[2]}" for p in PIPELINES])
def test_cython_loop_parses_as_the_python_loop_and_saved_pipelines_load(
        system, template, max_k, config, kind, tmp_path, monkeypatch):
    nlp = train(make_nlp(system, template, max_k, **config), kind)
    parser = nlp.get_pipe("dynoracle_parser")
    assert parser.model.get_ref("lower").get_dim("nF") == features().n_features(template, max_k)
    docs = sample_docs(nlp.vocab)
    with monkeypatch.context() as patch:      # the C loop reads no tokens through Python
        patch.setattr(SpineStepModel, "get_token_ids", python_tokens_read)
        c_docs = list(parser.pipe([Doc(nlp.vocab, words=[t.text for t in d]) for d in docs]))
    py_docs = [Doc(nlp.vocab, words=[t.text for t in d]) for d in docs]
    parser.set_annotations(py_docs, python_step_loop(parser, py_docs))
    assert parses(c_docs) == parses(py_docs)
    assert any(t.head.i != t.i for d in c_docs for t in d)   # a parse, not all roots
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    model = loaded.get_pipe("dynoracle_parser").model
    assert (model.attrs["feature_template"], model.attrs["max_k"]) == (template, max_k)
    again = list(loaded.pipe([Doc(loaded.vocab, words=[t.text for t in d]) for d in docs]))
    assert parses(again) == parses(c_docs)


def test_config_errors_name_the_bad_value():
    with pytest.raises(ValueError, match=r"'attardy'.*choose one of"):
        make_nlp("attardi", "attardy")
    with pytest.raises(ValueError, match=r"max_k=2 does not cover attardi's degree 3"):
        make_nlp("attardi", "attardi", 2, system_options={"degree": 3})
    make_nlp("swap", "attardi", 3)       # the template on another system: its own K


def test_run_matrix_selects_the_template_by_option_and_by_set(tmp_path):
    """projects/ud: the run option features=TEMPLATE takes K from the run's degree, and
    run_matrix --set reaches the config spaCy trains (parsed as `spacy train` parses it)."""
    sys.path.insert(0, str(PROJECT_SCRIPTS))
    import matrix
    import run_matrix
    import udproj
    from spacy.cli._util import parse_config_overrides
    from spacy.util import load_config, load_model_from_config
    from train_one import train_command

    run = matrix.make_run("attardi", "dynamic", {"degree": 3, "features": "attardi"})
    config = load_config(udproj.CONFIGS / run.config("tagger"), overrides=run.overrides(),
                         interpolate=True)
    assert config["components"]["parser"]["model"]["max_k"] == 3
    nlp = load_model_from_config(config, auto_fill=True)
    assert nlp.get_pipe("parser").model.get_ref("lower").get_dim("nF") == 15

    settings = run_matrix.parse_settings([
        "components.parser.model.@architectures=spacy_dynoracle.SpineParserModel.v1",
        "components.parser.model.feature_template=swap"])
    varied = matrix.with_variant(matrix.make_run("swap", "dynamic"), "swapfeat")
    files = {"train": tmp_path / "x-ud-train.conllu", "dev": None, "test": None}
    cmd = train_command(varied, files, tmp_path / "out", settings=settings)
    overrides = parse_config_overrides(cmd[cmd.index("--output") + 2:])
    config = load_config(udproj.CONFIGS / varied.config(), overrides=overrides)
    nlp = load_model_from_config(config, auto_fill=True)
    model = nlp.get_pipe("parser").model
    assert model.attrs["feature_template"] == "swap" and model.get_ref("lower").get_dim("nF") == 12
    assert nlp.config["components"]["parser"]["model"]["feature_template"] == "swap"
