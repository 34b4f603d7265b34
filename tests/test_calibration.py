"""Calibration of arc marginals (spacy_dynoracle.calibration): the ECE of synthetic data
whose value is known in closed form, the word-level pairs read off Docs, and the
end-to-end evaluation of a window-model pipeline (CLI included)."""
import json

import numpy as np
import pytest
from conllu_samples import random_treebank, tiny_parser, tiny_window_parser, write
from spacy.tokens import Doc
from spacy.vocab import Vocab
from typer.testing import CliRunner

from spacy_dynoracle.calibration import (arc_confidences, evaluate_with_calibration, reliability,
                                         reliability_markdown)
from spacy_dynoracle.cli import app
from spacy_dynoracle.evaluate import evaluate_pipeline

runner = CliRunner()


def test_hand_computed_ece():
    # 100 words at 0.95 (90 right), 100 at 0.55 (55 right), 50 at 0.3 exactly (none right),
    # 10 at 1.0 (all right): bins [0.9, 1] (110 words: conf (95 + 10) / 110, acc 100 / 110),
    # [0.5, 0.6) gap 0, [0.3, 0.4) (0.3 is on the edge: it goes up) gap 0.3.
    conf = [0.95] * 100 + [0.55] * 100 + [0.3] * 50 + [1.0] * 10
    hit = [1] * 90 + [0] * 10 + [1] * 55 + [0] * 45 + [0] * 50 + [1] * 10
    r = reliability(conf, hit)
    top_gap = abs(100 / 110 - (0.95 * 100 + 10) / 110)
    assert r["ece"] == pytest.approx(110 / 260 * top_gap + 50 / 260 * 0.3, abs=1e-12)
    assert r["mce"] == pytest.approx(0.3)
    assert [b["count"] for b in r["bins"]] == [0, 0, 0, 50, 0, 100, 0, 0, 0, 110]
    assert r["bins"][0]["accuracy"] is None and r["n"] == 260
    assert r["accuracy"] == pytest.approx(155 / 260)
    assert r["brier"] == pytest.approx(np.mean((np.array(conf) - np.array(hit)) ** 2))
    table = reliability_markdown(r)
    assert "| [0.3, 0.4) | 50 | 30.0 | 0.0 | -30.0 |" in table and "[0.9, 1.0]" in table


def test_one_bin_is_the_overall_gap_and_perfect_calibration_is_zero():
    rng = np.random.default_rng(0)
    conf = rng.random(1000)
    hit = rng.random(1000) < 0.4
    assert reliability(conf, hit, n_bins=1)["ece"] == pytest.approx(abs(conf.mean() - hit.mean()))
    # every word in a bin at the bin's accuracy: calibrated exactly
    conf = np.repeat([0.05, 0.25, 0.5, 0.75, 1.0], 20)
    hit = np.concatenate([[1] * 1 + [0] * 19, [1] * 5 + [0] * 15, [1] * 10 + [0] * 10,
                          [1] * 15 + [0] * 5, [1] * 20])
    r = reliability(conf, hit)
    assert r["ece"] == pytest.approx(0.0, abs=1e-12) and r["mce"] == pytest.approx(0.0, abs=1e-12)


def test_sampled_ece_matches_its_closed_form():
    """conf ~ U(0, 1), correct ~ Bernoulli(conf^2): in bin [a, b) the mean confidence is
    (a + b) / 2 and the accuracy (a^2 + ab + b^2) / 3, so ECE = sum (b - a) * gap; an honest
    Bernoulli(conf) gives ECE -> 0. Both up to sampling error (N = 400 000)."""
    rng = np.random.default_rng(1)
    conf = rng.random(400_000)
    edges = np.arange(11) / 10
    a, b = edges[:-1], edges[1:]
    expected = ((b - a) * np.abs((a + b) / 2 - (a * a + a * b + b * b) / 3)).sum()
    r = reliability(conf, rng.random(conf.size) < conf ** 2)
    assert r["ece"] == pytest.approx(expected, abs=3e-3)
    # c >= c^2 everywhere, so the bins' gaps add up to E[c - c^2] = 1/6 exactly
    assert expected == pytest.approx(1 / 6)
    assert reliability(conf, rng.random(conf.size) < conf)["ece"] < 5e-3
    # a model that always says 0.9 and is right half the time: ECE 0.4 exactly
    assert reliability(np.full(1000, 0.9), np.arange(1000) % 2 == 0)["ece"] == pytest.approx(0.4)


def test_reliability_rejects_bad_input():
    with pytest.raises(ValueError, match="outcomes"):
        reliability([0.5, 0.5], [1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        reliability([1.5], [1])
    with pytest.raises(ValueError, match="n_bins"):
        reliability([0.5], [1], n_bins=0)
    assert reliability([], [])["ece"] is None


def test_arc_confidences_read_the_decoded_head_and_the_argmax():
    vocab = Vocab()
    words = ["a", "b", "c"]
    gold = Doc(vocab, words=words, heads=[1, 1, 1], deps=["x", "ROOT", "y"])
    pred = Doc(vocab, words=words, heads=[1, 1, 0], deps=["x", "ROOT", "y"])
    pred._.dynoracle_arc_marginals = np.array([[0.1, 0.9, 0.0],
                                               [0.0, 0.7, 0.3],
                                               [0.6, 0.4, 0.0]])
    out = arc_confidences([gold], [pred])
    conf, hit = out["decoded"]
    assert conf.tolist() == [0.9, 0.7, 0.6] and hit.tolist() == [True, True, False]
    conf, hit = out["argmax"]
    assert conf.tolist() == [0.9, 0.7, 0.6] and hit.tolist() == [True, True, False]
    pred._.dynoracle_arc_marginals = np.array([[0.1, 0.9, 0.0], [0.0, 0.7, 0.3], [0.3, 0.7, 0.0]])
    conf, hit = arc_confidences([gold], [pred])["argmax"]
    assert conf.tolist()[2] == 0.7 and hit.tolist()[2]
    assert arc_confidences([gold], [pred])["decoded"][0].tolist()[2] == 0.3
    with pytest.raises(ValueError, match="marginals"):
        arc_confidences([gold], [Doc(vocab, words=words)])
    with pytest.raises(ValueError, match="numbers"):
        arc_confidences([gold, gold], [pred])


@pytest.fixture(scope="module")
def window_model(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("calibration")
    path = write(tmp, random_treebank(11, n_sents=40))
    model = tmp / "window"
    tiny_window_parser(path, iterations=4).to_disk(model)
    return model, path


@pytest.mark.parametrize("decode", ["greedy", "exact"])
def test_evaluate_with_calibration_agrees_with_the_scores(window_model, decode):
    import spacy

    model, path = window_model
    nlp = spacy.load(model)
    parser = nlp.get_pipe("parser")
    assert not parser.cfg["arc_marginals"] and parser.cfg["decode"] == "greedy"
    scores, calib = evaluate_with_calibration(nlp, path, decode=decode, n_sents=3)
    # the decoded heads' accuracy is the UAS; the settings are restored afterwards
    assert calib["decoded"]["n"] == scores["words"]
    assert 100 * calib["decoded"]["accuracy"] == pytest.approx(scores["UAS"]["f1"])
    assert 0 <= calib["decoded"]["ece"] <= 1 and 0 <= calib["argmax"]["ece"] <= 1
    assert scores["settings"]["decode"] == decode
    assert not parser.cfg["arc_marginals"] and parser.cfg["decode"] == "greedy"
    parser.cfg["decode"] = decode
    assert evaluate_pipeline(nlp, path, n_sents=3)["LAS"] == scores["LAS"]


def test_gold_sentences_with_exact_decoding(window_model):
    """Preset gold boundaries constrain exact decoding and the marginals (window masks):
    the sentences come out exactly as given."""
    import spacy

    model, path = window_model
    scores, calib = evaluate_with_calibration(spacy.load(model), path, decode="exact",
                                              gold_sents=True, n_sents=3)
    assert scores["Sentences"]["f1"] == pytest.approx(100.0)
    assert 100 * calib["decoded"]["accuracy"] == pytest.approx(scores["UAS"]["f1"])


def test_calibration_command(window_model, tmp_path):
    model, path = window_model
    out = tmp_path / "calib.json"
    result = runner.invoke(app, ["calibration", str(model), str(path), "--decode", "exact",
                                 "--n-sents", "3", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "ECE" in result.output and "[0.9, 1.0]" in result.output
    data = json.loads(out.read_text())
    assert set(data["calibration"]) == {"decoded", "argmax"}
    assert data["scores"]["settings"]["decode"] == "exact"


def test_calibration_command_needs_marginals(tmp_path):
    path = write(tmp_path, random_treebank(3, n_sents=8))
    model = tmp_path / "stock"
    tiny_parser(path, iterations=1).to_disk(model)
    result = runner.invoke(app, ["calibration", str(model), str(path)])
    assert result.exit_code == 1 and "no arc marginals" in result.output


def test_calibration_command_lenient(window_model, tmp_path):
    """calibration takes --lenient as every command that reads CoNLL-U does (issue 20)."""
    model, path = window_model
    crlf = write(tmp_path, path.read_text(encoding="utf-8").replace("\n", "\r\n"), "crlf.conllu")
    result = runner.invoke(app, ["calibration", str(model), str(crlf), "--n-sents", "3"])
    assert result.exit_code == 1 and f"{crlf}:1: " in result.output and "--lenient" in result.output
    with pytest.warns(UserWarning, match="repaired .* CR LF line ends"):
        result = runner.invoke(app, ["calibration", str(model), str(crlf), "--n-sents", "3", "--lenient"])
    assert result.exit_code == 0, result.output
    assert "ECE" in result.output
