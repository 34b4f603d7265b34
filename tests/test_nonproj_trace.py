"""projects/ud/scripts/nonproj_trace.py (issue 19), for both systems with non-projective
moves (swap, attardi): the stepped parse is the pipeline's, the gold's non-projective move
counts are the static oracles' (Simulator, sentence by sentence), every non-projective move
the model makes is counted once, the arcs they build partition into right and wrong heads,
and the displaced arcs are a subset of the wrong ones whose gold arc crosses none."""
import json
import sys
from pathlib import Path

import pytest

from conllu_samples import random_treebank, tiny_dynoracle_parser, write

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "ud"
sys.path.insert(0, str(PROJECT / "scripts"))

import nonproj_trace as npt  # noqa: E402
from bruteforce import static_sequence  # noqa: E402
from spacy_dynoracle.corpus import read_sentences  # noqa: E402

NP_ACTIONS = {"swap": {"SWAP"}, "attardi": {"LEFT_2", "RIGHT_2"}}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("nonproj") / "ud"
    (root / "UD_Tiny").mkdir(parents=True)
    write(root / "UD_Tiny", random_treebank(0, n_sents=60), "tiny-ud-train.conllu")
    test = write(root / "UD_Tiny", random_treebank(1, n_sents=25), "tiny-ud-test.conllu")
    return root, test


def tiny_model(root, system):
    folder = root.parent / "training" / "UD_Tiny" / "parser" / f"{system}-dynamic-s0"
    if not folder.exists():
        from spacy.util import fix_random_seed

        fix_random_seed(0)      # the weights' initialisation: the same tiny model every run
        # every zero-cost move a target (attardi's default is the static one), so that the
        # tiny model takes the non-projective moves the trace counts
        nlp = tiny_dynoracle_parser(root / "UD_Tiny" / "tiny-ud-train.conllu", iterations=5,
                                    system=system, explore_after_epochs=0,
                                    system_options={"target": "all"})
        folder.mkdir(parents=True)
        nlp.to_disk(folder / "model-best")
        (folder / "run.json").write_text(json.dumps({"treebank": "UD_Tiny", "pipeline": "parser",
                                                     "system": system, "oracle": "dynamic"}))
    return folder


@pytest.mark.parametrize("system", ["swap", "attardi"])
def test_nonproj_trace_on_a_tiny_model(tiny, monkeypatch, system):
    root, test = tiny
    monkeypatch.setenv("UD_ROOT", str(root))
    folder = tiny_model(root, system)
    out = npt.analyse_run(folder, "test", {}, system=system)
    assert out["matches_pipeline"] and out["system"] == system
    gold = list(read_sentences(test))
    assert out["sentences"] == len(gold) == 25
    # the gold's static non-projective move counts, sentence by sentence (Simulator)
    for oracle in npt.SYSTEMS[system]["static_oracles"]:
        expected = 0
        for sent in gold:
            heads = [i if w.head == 0 else w.head - 1 for i, w in enumerate(sent.words)]
            actions = static_sequence(system, heads, oracle=oracle)[1]
            expected += sum(a in NP_ACTIONS[system] for a in actions)
        assert out["gold_np"][oracle] == expected, oracle
        assert expected > 0
    assert out["model_np"] == sum(out["np_moves"].values()) == sum(out["np_by_move"].values()) > 0
    assert set(out["np_by_move"]) <= NP_ACTIONS[system]
    arcs = out["np_arcs"]
    if system == "swap":        # SWAP builds no arc
        assert arcs["built"] == 0
    else:                       # every LEFT_2 / RIGHT_2 builds one arc
        assert arcs["built"] == out["model_np"]
        assert arcs["right_head"] + arcs["wrong_head"] == arcs["built"]
        assert arcs["right_labelled"] <= arcs["right_head"]
        assert arcs["crossing_final_right_head"] <= arcs["crossing_final"] <= arcs["built"]
        assert arcs["wrong_zero_cost"] <= arcs["wrong_head"]
        assert arcs["displaced"] <= min(arcs["wrong_gold_crosses_none"],
                                        arcs["wrong_alternative_keeps"])
        assert arcs["displaced_alternative_np"] <= arcs["displaced"]
        # a zero-cost move never loses a reachable arc: a wrong head taken by a zero-cost
        # move was unreachable, so its zero-cost alternative cannot keep it either
        assert arcs["wrong_alternative_keeps"] <= arcs["wrong_head"] - arcs["wrong_zero_cost"]
    side = npt.train_side(folder, n_docs=2, system=system)
    for walk in ("oracle", "explore"):
        acc = side[walk]
        assert acc["states"] == acc["ref_not_states"] + acc["ref_np_states"] > 0
        assert 0 <= acc["mass_ref_not"] <= acc["np_zero_ref_not"] <= acc["ref_not_states"]
        assert acc["np_only_zero"] + acc["other_zero_with_np"] == acc["np_zero"]
        # target="static" narrows the zero-cost set: never more non-projective targets, and
        # where the static move is optimal and projective, none
        assert acc["np_static_target_ref_not"] <= acc["np_static_target"] <= acc["np_zero"]
        assert acc["np_static_target"] - acc["np_static_target_ref_not"] <= acc["ref_np_states"]


def test_nonproj_trace_refuses_another_system(tiny, monkeypatch):
    root, _ = tiny
    monkeypatch.setenv("UD_ROOT", str(root))
    with pytest.raises(SystemExit, match="not a swap model"):
        npt.analyse_run(tiny_model(root, "attardi"), "test", {}, system="swap")
