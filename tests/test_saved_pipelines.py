"""Pipelines saved by an earlier version of the package (tests/data/saved_pipelines, made by
tests/data/make_saved_pipelines.py at the commit in made_by.json) load and parse the fixed
Docs exactly as they did when saved: the registered architecture names, the component's
config keys, its cfg and its moves stay readable across refactorings."""
import importlib.util
import json
import warnings
from pathlib import Path

import numpy
import pytest
import spacy

DATA = Path(__file__).parent / "data"
SAVED = DATA / "saved_pipelines"
EXPECTED = json.loads((SAVED / "expected_parses.json").read_text(encoding="utf-8"))


def maker():
    spec = importlib.util.spec_from_file_location("make_saved_pipelines", DATA / "make_saved_pipelines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_saved_pipeline_has_its_expected_parses():
    assert sorted(EXPECTED) == sorted(maker().PIPELINES) == sorted(
        p.name for p in SAVED.iterdir() if p.is_dir())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saved_pipeline_loads_and_parses_identically(name):
    config = spacy.util.load_config(SAVED / name / "config.cfg", interpolate=False)
    old_keys = {"degree", "max_k"} & set(config["components"]["dynoracle_parser"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nlp = spacy.load(SAVED / name)
    # pipelines saved while degree / max_k were component keys load with a deprecation warning
    assert {key for key in old_keys if any(f"component key {key} = " in str(w.message)
                                           for w in caught if w.category is FutureWarning)} == old_keys
    got = maker().parses(nlp)
    expected = EXPECTED[name]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (g["heads"], g["deps"], g["sent_starts"]) == (e["heads"], e["deps"], e["sent_starts"])
        assert ("arc_marginals" in g) == ("arc_marginals" in e)
        if "arc_marginals" in e:
            numpy.testing.assert_allclose(g["arc_marginals"], e["arc_marginals"], atol=2e-6)
