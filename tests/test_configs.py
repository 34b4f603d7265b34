"""The four training configs stay in sync: dynoracle vs stock parser differ only in the
parser block, the *_tagger variants only add a tagger and a morphologizer that share the
tok2vec (and their zero score weights) and embed affixes (AffixMultiHashEmbed.v1: measured
on the tagger pipeline, issue 18; the parser-only configs keep MultiHashEmbed), and the
biaffine peer's tagger config differs from spaCy's parser's only in the parser."""
import copy
from pathlib import Path

import pytest
from spacy.util import load_config

from spacy_dynoracle.affix_embed import BASE_ARCHITECTURE, as_multi_hash_embed

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
TAGGING = ("tagger", "morphologizer")


def load(name):
    return copy.deepcopy(dict(load_config(CONFIGS / name, interpolate=False)))


def without_parser(cfg):
    cfg["components"] = dict(cfg["components"])
    cfg["components"].pop("parser")
    return cfg


def with_plain_embed(cfg):
    """The config with its affix embed block as the MultiHashEmbed.v2 block it extends."""
    cfg["components"]["tok2vec"]["model"]["embed"] = as_multi_hash_embed(cfg["components"]["tok2vec"]["model"]["embed"])
    return cfg


def without_tagging(cfg):
    cfg["nlp"] = dict(cfg["nlp"])
    cfg["nlp"]["pipeline"] = [p for p in cfg["nlp"]["pipeline"] if p not in TAGGING]
    cfg["components"] = {k: v for k, v in cfg["components"].items() if k not in TAGGING}
    cfg["training"] = dict(cfg["training"])
    cfg["training"]["score_weights"] = {
        k: v for k, v in cfg["training"]["score_weights"].items()
        if k not in ("tag_acc", "pos_acc", "morph_acc", "morph_per_feat")}
    return cfg


@pytest.mark.parametrize("dyn,stock", [("dynoracle.cfg", "spacy_parser.cfg"),
                                       ("dynoracle_tagger.cfg", "spacy_parser_tagger.cfg")])
def test_stock_baseline_differs_only_in_parser(dyn, stock):
    a, b = load(dyn), load(stock)
    assert a["components"]["parser"]["factory"] == "dynoracle_parser"
    assert b["components"]["parser"]["factory"] == "parser"
    # same parser model and shared settings
    for key in ("model", "update_with_oracle_cut_size", "learn_tokens", "min_action_freq", "scorer"):
        assert a["components"]["parser"][key] == b["components"]["parser"][key], key
    assert without_parser(a) == without_parser(b)


@pytest.mark.parametrize("plain,tagged", [("dynoracle.cfg", "dynoracle_tagger.cfg"),
                                          ("spacy_parser.cfg", "spacy_parser_tagger.cfg")])
def test_tagger_pipeline_adds_only_tagging(plain, tagged):
    a, b = load(plain), load(tagged)
    assert b["nlp"]["pipeline"] == ["tok2vec", "tagger", "morphologizer", "parser"]
    for name in TAGGING:
        listener = b["components"][name]["model"]["tok2vec"]
        assert listener["@architectures"] == "spacy.Tok2VecListener.v1"   # shares the tok2vec
        assert b["training"]["score_weights"].get({"tagger": "tag_acc", "morphologizer": "pos_acc"}[name]) == 0.0
    assert a["components"]["tok2vec"]["model"]["embed"]["@architectures"] == BASE_ARCHITECTURE
    assert without_tagging(with_plain_embed(b)) == a


BIAFFINE_PARSER = ("senter", "arc_predicter", "arc_labeler")


def test_biaffine_peer_differs_from_the_stock_tagger_config_only_in_its_parser():
    """configs/biaffine_tagger.cfg (spaCy's biaffine parser, trained in its own venv) has the
    stock tagger config's tok2vec, tagger, morphologizer, corpora, batcher, optimizer and
    training settings; only the parser is replaced by a senter, the arc predicter and the arc
    labeler, which share the tok2vec, and the tok2vec and the senter annotate during training
    (the senter reads the tok2vec's doc.tensor there). Its embed is the same
    AffixMultiHashEmbed.v1 block (the venv builds the embed's compiled module against its own
    spaCy: projects/ud/scripts/biaffine.py)."""
    stock, biaffine = load("spacy_parser_tagger.cfg"), load("biaffine_tagger.cfg")
    assert biaffine["components"]["tok2vec"] == stock["components"]["tok2vec"]
    assert biaffine["nlp"]["pipeline"] == ["tok2vec", "tagger", "morphologizer", *BIAFFINE_PARSER]
    assert biaffine["components"]["arc_predicter"]["factory"] == "experimental_arc_predicter"
    assert biaffine["components"]["arc_labeler"]["factory"] == "experimental_arc_labeler"
    for name in BIAFFINE_PARSER:
        assert biaffine["components"][name]["model"]["tok2vec"] == stock["components"]["parser"]["model"]["tok2vec"]
    for name in ("arc_predicter", "arc_labeler"):   # model-best on the same dev score
        assert biaffine["components"][name]["scorer"] == stock["components"]["parser"]["scorer"]
    assert biaffine["components"]["arc_predicter"]["model"]["hidden_width"] == \
        stock["components"]["parser"]["model"]["hidden_width"]
    # the senter annotates from the tok2vec's doc.tensor, so the tok2vec annotates as well
    assert biaffine["training"].pop("annotating_components") == ["tok2vec", "senter"]
    assert stock["training"].pop("annotating_components") == []
    # the dynoracle epoch callback has nothing to drive here
    assert stock["training"].pop("before_update") == {"@callbacks": "spacy_dynoracle.set_epoch.v1"}
    assert "before_update" not in biaffine["training"]
    assert biaffine["initialize"].pop("before_init") == {"@callbacks": "spacy_dynoracle_ud.root_label_string.v1"}
    assert stock["initialize"].pop("before_init") is None
    for cfg, parser in ((stock, ("parser",)), (biaffine, BIAFFINE_PARSER)):
        cfg["nlp"]["pipeline"] = [p for p in cfg["nlp"]["pipeline"] if p not in parser]
        cfg["components"] = {k: v for k, v in cfg["components"].items() if k not in parser}
    assert biaffine == stock


@pytest.mark.parametrize("name", ["dynoracle.cfg", "dynoracle_tagger.cfg"])
def test_configs_ship_the_factory_default_system(name):
    """A user who copies a config gets the package's default parser (README, "Systems and
    oracles"), and the factory's default is the same system."""
    from spacy_dynoracle.factory import make_dynoracle_parser  # noqa: F401  (registers it)
    from spacy.language import Language

    factory_default = Language.get_factory_meta("dynoracle_parser").default_config["transition_system"]
    parser = load(name)["components"]["parser"]
    assert parser["transition_system"] == factory_default == "arc_eager_nm"
    assert parser["oracle"] is None   # the system's own default oracle ("spacy")
