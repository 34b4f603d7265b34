"""projects/ud/scripts/tok2vec_screen.py (issue 18 item 3): the screened pipeline is the
tagger config's tok2vec + morphologizer, each variant changes only its own keys, and spaCy
builds every variant's pipeline."""
import copy
import sys
from pathlib import Path

import pytest
from spacy.util import load_config, load_model_from_config

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


@pytest.mark.parametrize("variant", ["base", "rows2x", "w128rows2x", "avg", "drop2"])
def test_a_variant_changes_only_its_own_keys(variant):
    import tok2vec_screen

    cfg = copy.deepcopy(dict(tok2vec_screen.screen_config(variant, epochs=3)))
    tagger = copy.deepcopy(dict(load_config(CONFIGS / "dynoracle_tagger.cfg")))
    assert cfg["nlp"]["pipeline"] == ["tok2vec", "morphologizer"]
    assert set(cfg["components"]) == {"tok2vec", "morphologizer"}
    for name in ("tagger", "parser"):
        del tagger["components"][name]
    changed = {k for k, v in flat(cfg).items() if flat(tagger).get(k, object()) != v}
    expected = set(tok2vec_screen.VARIANTS[variant]) | {
        "nlp.pipeline", "training.max_epochs", "training.eval_frequency"}
    assert {k for k in changed if not k.startswith("training.score_weights")} == expected


@pytest.mark.parametrize("variant", ["base", "w128rows2x", "charembed"])
def test_spacy_builds_each_variant(variant):
    import tok2vec_screen

    nlp = load_model_from_config(tok2vec_screen.screen_config(variant, epochs=3), auto_fill=True)
    assert nlp.pipe_names == ["tok2vec", "morphologizer"]
    embed = nlp.get_pipe("tok2vec").model.get_ref("embed")
    assert embed.name.startswith("charembed") == (variant == "charembed")


def test_an_unknown_variant_names_the_valid_ones():
    import tok2vec_screen

    with pytest.raises(SystemExit, match="valid: base, rows2x"):
        tok2vec_screen.screen_config("wide", epochs=3)
