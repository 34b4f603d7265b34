"""projects/ud/scripts/swap_trace.py (issue 19): the stepped parse is the pipeline's, the gold
swap counts are the static oracles' (Simulator), every SWAP the model makes is counted once
as zero-cost or costly, and the length-1 buckets partition the gold arcs of length 1."""
import json
import sys
from pathlib import Path

from conllu_samples import random_treebank, tiny_dynoracle_parser, write

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "ud"
sys.path.insert(0, str(PROJECT / "scripts"))

import swap_trace as st  # noqa: E402
from bruteforce import static_sequence  # noqa: E402
from spacy_dynoracle.corpus import read_sentences  # noqa: E402


def test_swap_trace_on_a_tiny_swap_model(tmp_path, monkeypatch):
    root = tmp_path / "ud"
    (root / "UD_Tiny").mkdir(parents=True)
    train = write(root / "UD_Tiny", random_treebank(0, n_sents=60), "tiny-ud-train.conllu")
    test = write(root / "UD_Tiny", random_treebank(1, n_sents=25), "tiny-ud-test.conllu")
    monkeypatch.setenv("UD_ROOT", str(root))
    folder = tmp_path / "training" / "UD_Tiny" / "parser" / "swap-dynamic-s0"
    nlp = tiny_dynoracle_parser(train, iterations=5, system="swap", explore_after_epochs=0)
    folder.mkdir(parents=True)
    nlp.to_disk(folder / "model-best")
    (folder / "run.json").write_text(json.dumps({"treebank": "UD_Tiny", "pipeline": "parser",
                                                 "system": "swap", "oracle": "dynamic"}))
    out = st.analyse_run(folder, "test", {})
    assert out["matches_pipeline"]
    gold = list(read_sentences(test))
    assert out["sentences"] == len(gold) == 25
    # the gold's static swap counts, sentence by sentence through the Simulator
    for oracle in ("static-eager", "static-lazy", "static-minimal"):
        expected = 0
        for sent in gold:
            heads = [i if w.head == 0 else w.head - 1 for i, w in enumerate(sent.words)]
            expected += static_sequence("swap", heads, oracle=oracle)[1].count("SWAP")
        assert out["gold_swaps"][oracle] == expected, oracle
    assert out["gold_swaps"]["static-eager"] > out["gold_swaps"]["static-lazy"] > 0
    swaps = out["swaps"]
    assert swaps["zero"] + swaps["costly"] == out["model_swaps"] > 0
    assert swaps["zero_lazy_swaps"] + swaps["zero_lazy_not"] == swaps["zero"]
    assert swaps["costly_lazy_swaps"] + swaps["costly_lazy_not"] == swaps["costly"]
    n_length1 = sum(1 for sent in gold for i, w in enumerate(sent.words, 1)
                    if w.head and abs(w.head - i) == 1)
    l1 = out["length1"]
    assert l1["right"][0] + l1["wrong"][0] == n_length1
    assert l1["wrong_head"][0] <= l1["wrong"][0]
    for n, touched, in_sentence in l1.values():
        assert touched <= in_sentence <= n
    side = st.train_side(folder, n_docs=2)
    for walk in ("oracle", "explore"):
        acc = side[walk]
        assert acc["states"] == acc["lazy_not_states"] + acc["lazy_swaps_states"] > 0
        assert 0 <= acc["mass_lazy_not"] <= acc["swap_zero_lazy_not"] <= acc["lazy_not_states"]
