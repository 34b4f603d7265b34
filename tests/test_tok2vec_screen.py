"""projects/ud/scripts/tok2vec_screen.py (issue 18 item 3): the screened pipeline is the
tagger config's tok2vec + morphologizer, each variant changes only its own keys, and spaCy
builds every variant's pipeline."""
import copy
import sys
from pathlib import Path

import pytest
from spacy.util import load_config, load_model_from_config

from spacy_dynoracle.affix_embed import as_multi_hash_embed

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "ud"
sys.path.insert(0, str(PROJECT / "scripts"))
CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def flat(section, prefix=""):
    out = {}
    for key, value in section.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@pytest.mark.parametrize("variant", ["base", "rows2x", "w128rows2x", "avg", "drop2", "affix",
                                     "affix+rows2x", "affix-suffixes"])
def test_a_variant_changes_only_its_own_keys(variant):
    import tok2vec_screen

    cfg = copy.deepcopy(dict(tok2vec_screen.screen_config(variant, epochs=3)))
    tagger = copy.deepcopy(dict(load_config(CONFIGS / "dynoracle_tagger.cfg")))
    model = tagger["components"]["tok2vec"]["model"]
    model["embed"] = as_multi_hash_embed(model["embed"])     # the screens' baseline
    assert cfg["nlp"]["pipeline"] == ["tok2vec", "morphologizer"]
    assert set(cfg["components"]) == {"tok2vec", "morphologizer"}
    for name in ("tagger", "parser"):
        del tagger["components"][name]
    changed = {k for k, v in flat(cfg).items() if flat(tagger).get(k, object()) != v}
    expected = set(tok2vec_screen.VARIANTS[variant]) | {
        "nlp.pipeline", "training.max_epochs", "training.eval_frequency"}
    assert {k for k in changed if not k.startswith("training.score_weights")} == expected


@pytest.mark.parametrize("variant", ["base", "w128rows2x", "charembed", "affix-long"])
def test_spacy_builds_each_variant(variant):
    import tok2vec_screen

    nlp = load_model_from_config(tok2vec_screen.screen_config(variant, epochs=3), auto_fill=True)
    assert nlp.pipe_names == ["tok2vec", "morphologizer"]
    embed = nlp.get_pipe("tok2vec").model.get_ref("embed")
    assert embed.name.startswith("charembed") == (variant == "charembed")
    extractor = embed.layers[0]
    assert (extractor.name == "extract_affix_features") == variant.startswith("affix")
    if variant == "affix-long":
        assert extractor.attrs["suffix_lengths"] == [1, 2, 3, 4, 5, 6, 7]


def test_a_treebank_without_dev_is_screened_on_the_runs_split(tmp_path):
    """Latin-Perseus has no dev file: the screen trains on the first 90% of train and scores
    the last 10%, the data every run of run_matrix.py is scored on."""
    import tok2vec_screen
    from udproj import treebank_files

    folder = tmp_path / "UD_Latin-Perseus"
    folder.mkdir()
    (folder / "la_perseus-ud-train.conllu").write_text("")
    data = tok2vec_screen.data_paths(treebank_files("UD_Latin-Perseus", tmp_path, assets=tmp_path / "none"))
    train = str(folder / "la_perseus-ud-train.conllu")
    assert data == ["--paths.train", train, "--paths.dev", train,
                    "--paths.train_select", "head:0.9", "--paths.dev_select", "tail:0.1"]
    (folder / "la_perseus-ud-dev.conllu").write_text("")
    data = tok2vec_screen.data_paths(treebank_files("UD_Latin-Perseus", tmp_path, assets=tmp_path / "none"))
    assert data[3] == str(folder / "la_perseus-ud-dev.conllu") and data[5::2] == ["all", "all"]


def test_an_unknown_variant_names_the_valid_ones():
    import tok2vec_screen

    with pytest.raises(SystemExit, match="valid: base, rows2x"):
        tok2vec_screen.screen_config("wide", epochs=3)
