"""Pipelines saved by earlier versions of the package (tests/data/saved_pipelines/<commit>/,
each made by tests/data/make_saved_pipelines.py at the commit in its made_by.json) load and
parse the fixed Docs exactly as they did when saved: the registered architecture names, the
component's config keys, its cfg and its moves stay readable across refactorings.
e13063e: before degree / max_k moved into system_options; 556c892: main before the
refactoring of issue 21's last duplicates (oracle_arrays.pxd, declare_stack_arcs)."""
import importlib.util
import json
import warnings
from pathlib import Path

import numpy
import pytest
import spacy

DATA = Path(__file__).parent / "data"
SNAPSHOTS = sorted(p.parent for p in (DATA / "saved_pipelines").glob("*/made_by.json"))
EXPECTED = {snapshot.name: json.loads((snapshot / "expected_parses.json").read_text(encoding="utf-8"))
            for snapshot in SNAPSHOTS}
PIPELINES = [(snapshot, name) for snapshot in sorted(EXPECTED) for name in sorted(EXPECTED[snapshot])]


def maker():
    spec = importlib.util.spec_from_file_location("make_saved_pipelines", DATA / "make_saved_pipelines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_saved_pipeline_has_its_expected_parses():
    assert len(SNAPSHOTS) >= 2
    for snapshot in SNAPSHOTS:
        assert sorted(EXPECTED[snapshot.name]) == sorted(maker().PIPELINES) == sorted(
            p.name for p in snapshot.iterdir() if p.is_dir())
        assert json.loads((snapshot / "made_by.json").read_text())["commit"].startswith(snapshot.name)


@pytest.mark.parametrize("snapshot,name", PIPELINES)
def test_saved_pipeline_loads_and_parses_identically(snapshot, name):
    saved = DATA / "saved_pipelines" / snapshot / name
    config = spacy.util.load_config(saved / "config.cfg", interpolate=False)
    component = config["components"]["dynoracle_parser"]
    old_keys = {key for key in ("degree", "max_k") if component.get(key) is not None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nlp = spacy.load(saved)
    # pipelines saved while degree / max_k were component keys load with a deprecation warning
    assert {key for key in old_keys if any(f"component key {key} = " in str(w.message)
                                           for w in caught if w.category is FutureWarning)} == old_keys
    got = maker().parses(nlp)
    expected = EXPECTED[snapshot][name]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (g["heads"], g["deps"], g["sent_starts"]) == (e["heads"], e["deps"], e["sent_starts"])
        assert ("arc_marginals" in g) == ("arc_marginals" in e)
        if "arc_marginals" in e:
            numpy.testing.assert_allclose(g["arc_marginals"], e["arc_marginals"], atol=2e-6)
