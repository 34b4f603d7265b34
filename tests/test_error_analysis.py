"""projects/ud/scripts/error_analysis.py (issue 19): crossing arcs, the per-bucket LAS of each
run, where the LAS difference of two runs goes, and that a run's parse (gold sentences preset)
is the one run_matrix scores."""
import json
import random
import sys
from pathlib import Path

import pytest

from conllu_samples import NONPROJ, perturb_treebank, random_tree_heads, random_treebank, tiny_dynoracle_parser, write

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "ud"
sys.path.insert(0, str(PROJECT / "scripts"))

import error_analysis as ea  # noqa: E402
from spacy_dynoracle.corpus import read_sentences  # noqa: E402
from spacy_dynoracle.trees import is_projective, nonprojective_dependents  # noqa: E402


def brute_crossing(heads):
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
    return [any(a < c < b < e or c < a < e < b for c, e in arcs) for a, b in arcs]


def test_crossing_arcs_by_hand():
    # "A hearing is scheduled on the issue today .": the arc hearing(2) -> issue(7) crosses
    # the root arc (0, 4) and scheduled's arcs to today(8) and .(9); hearing's own arc
    # (2, 4) shares an end with every arc that overlaps it, so it crosses none.
    heads = [2, 4, 4, 0, 7, 7, 2, 4, 4]
    crossed = ea.crossing_dependents(heads)
    assert [d for d, x in enumerate(crossed, 1) if x] == [4, 7, 8, 9]
    assert ea.crossing_dependents([2, 0, 2]) == [False] * 3


def test_crossing_arcs_hold_the_nonprojective_ones_and_only_nonprojective_trees_have_them():
    r = random.Random(3)
    for _ in range(300):
        heads = random_tree_heads(r, r.randint(1, 9))[1:]
        crossed = ea.crossing_dependents(heads)
        assert crossed == brute_crossing(heads)
        assert set(nonprojective_dependents(heads)) <= {d for d, x in enumerate(crossed, 1) if x}
        assert any(crossed) == (not is_projective(heads))


def _pair(tmp_path, seed=0):
    gold_text = random_treebank(seed, n_sents=40)
    gold = write(tmp_path, gold_text, "gold.conllu")
    a = write(tmp_path, perturb_treebank(gold_text, seed + 1), "a.conllu")
    b = write(tmp_path, perturb_treebank(gold_text, seed + 2, p_head=0.5), "b.conllu")
    return [list(read_sentences(p)) for p in (gold, a, b)]


def test_bucket_counts_add_up_to_the_scorers_las_and_the_difference(tmp_path):
    gold, a, b = _pair(tmp_path)
    w = ea.collect(gold, {"a": a, "b": b})
    for name in ("a", "b"):
        # the same LAS/UAS as spacy_dynoracle.evaluate on Docs of the same sentences
        assert 100 * sum(w.las_ok[name]) / w.n == pytest.approx(w.np_arcs[name]["LAS"])
        assert 100 * sum(w.head_ok[name]) / w.n == pytest.approx(w.np_arcs[name]["UAS"])
    total = 100 * (sum(w.las_ok["b"]) - sum(w.las_ok["a"])) / w.n
    assert total != 0
    for group, keys in w.groups.items():
        assert len(keys) == w.n
        points = 0.0
        for bucket in set(keys):
            idx = [i for i, k in enumerate(keys) if k == bucket]
            points += 100 * (sum(w.las_ok["b"][i] for i in idx) - sum(w.las_ok["a"][i] for i in idx)) / w.n
        assert points == pytest.approx(total)
        table = ea.difference_table(w, group, "a")
        assert table.splitlines()[-1] == f"| all | 100.0 | {total:+.2f} |"


def test_tables_of_a_hand_made_prediction(tmp_path):
    # np1 of NONPROJ, predicted: 'issue' (gold head hearing, crossing) attached to 'scheduled'
    # (projective, wrong head), 'today' with the wrong label; p1 and np2 exactly right.
    gold = write(tmp_path, NONPROJ, "gold.conllu")
    pred_text = NONPROJ.replace("7\tissue\tissue\tNOUN\tNN\t_\t2\tnmod", "7\tissue\tissue\tNOUN\tNN\t_\t4\tobl")
    pred_text = pred_text.replace("8\ttoday\ttoday\tNOUN\tNN\t_\t4\tobl:tmod", "8\ttoday\ttoday\tNOUN\tNN\t_\t4\tobj")
    assert pred_text.count("\t4\tobl\t") == 1 and "\tobj\t" in pred_text
    pred = write(tmp_path, pred_text, "pred.conllu")
    gold_s, pred_s = list(read_sentences(gold)), list(read_sentences(pred))
    w = ea.collect(gold_s, {"gold": gold_s, "pred": pred_s})
    assert w.n == 22
    assert sum(w.head_ok["pred"]) == 21 and sum(w.las_ok["pred"]) == 20
    overall = ea.overall_table(w)
    assert "| pred | 90.91 | 95.45 | 1 (4.5%) | 1 (4.5%) |" in overall
    # gold crossing arcs: np1's 4, 7, 8, 9 and np2's 1, 4, 8, 9 (written -> who and who -> by
    # cross the root arc of say and say -> ?)
    assert [d for d, x in enumerate(ea.crossing_dependents(gold_s[2].heads), 1) if x] == [1, 4, 8, 9]
    assert sum(w.gold_crossing) == 8
    crossing = ea.crossing_table(w)
    row = next(line for line in crossing.splitlines() if line.startswith("| pred |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    gold_x = sum(w.gold_crossing)
    pred_x = sum(w.pred_crossing["pred"])
    assert cells[4] == f"{gold_x} / {pred_x}"
    assert cells[5] == "0 (0.0%)"        # np2's 4 crossing arcs cross in gold too
    # scored against pred as the reference, np1's 4 crossing arcs cross nothing there
    swapped = ea.crossing_table(ea.collect(pred_s, {"x": gold_s}))
    assert "| x | 2 / 3 | 100.0 | 66.7 | 4 / 8 | 4 (50.0%) | 100.0 | 87.5 | 75.0 |" in swapped
    assert pred_x == 4                # np1 became projective: none of its arcs crosses
    assert cells[6] == "87.5"         # 7 of 8: only 'issue' lost its head
    assert cells[7] == "100.0"        # every crossing arc left (np2's) is right
    by_length = ea.bucket_table(w, "arc length")
    assert "| 3-6 |" in by_length and "| root | 3 (13.6%) | 100.0 / 100.0 | 100.0 / 100.0 |" in by_length
    diff = ea.difference_table(w, "arc length", "gold")
    assert diff.splitlines()[-1] == f"| all | 100.0 | {-200 / 22:+.2f} |"
    assert "| 3-6 | 27.3 | -9.09 (100%) |" in diff     # issue (5 words away) and today (4)
    assert "| 1 | 31.8 | +0.00 (0%) |" in diff
    by_arc = ea.difference_table(w, "gold arc", "gold")      # issue and today both cross in gold
    assert "| crosses another | 36.4 | -9.09 (100%) |" in by_arc
    flips = ea.flips_table(w, "gold")
    assert "| pred | 0 (0.0%) | 0 | 2 (9.1%) | 0 | -9.09 |" in flips
    back = ea.flips_table(w, "pred")    # gold wins 'issue' and 'today', both crossed in gold
    assert "| gold | 2 (9.1%) | 2 | 0 (0.0%) | 0 | +9.09 |" in back
    # gold's 8 crossing arcs, all right; pred has np2's 4 of them: pred and gold tie there
    cost = ea.crossing_cost_table(w, "pred")
    assert "| gold | 8 | 100.0 | 75.0 | +9.09 | +0.00 |" in cost
    assert "| pred | 4 | 100.0 | 100.0 | +0.00 | -9.09 |" in ea.crossing_cost_table(w, "gold")
    # 'issue' (gold head hearing, 5 to its left) went to scheduled, 3 to its left
    places = ea.head_place_table(w)
    assert places.splitlines()[3] == "| pred | 87.5 | 12.5 | 0.0 | 0.0 | 0.0 | 100.0 | 0.0 | 0.0 | 0.0 | 0.0 |"
    assert ea.head_place(4, 6, 5) == "other side" and ea.head_place(4, 0, 5) == "root"
    assert ea.head_place(2, 1, 5) == "same side, further" and ea.head_place(9, 7, 5) == "same side, nearer"
    text = ea.report(w, "np", baseline="gold")
    assert text.count("### ") == 6 + 2 * len(w.groups)


def test_a_prediction_with_other_sentences_or_words_is_refused(tmp_path):
    gold, a, _ = _pair(tmp_path)
    with pytest.raises(ValueError, match="predicted sentences against"):
        ea.collect(gold, {"a": a[:-1]})
    a[3].words[0].form = "changed"
    with pytest.raises(ValueError, match="sentence 4 .*other words"):
        ea.collect(gold, {"a": a})
    with pytest.raises(ValueError, match="baseline 'c' is not one of the runs"):
        ea.report(ea.collect(gold, {"b": gold}), "x", baseline="c")


def test_the_command_line_on_conllu_files(tmp_path, capsys):
    gold_text = random_treebank(5, n_sents=20)
    gold = write(tmp_path, gold_text, "gold.conllu")
    pred = write(tmp_path, perturb_treebank(gold_text, 6), "pred.conllu")
    ea.main(["--gold", str(gold), "--pred", f"x={pred}", "--pred", f"y={gold}"])
    out = capsys.readouterr().out
    assert "| y | 100.00 | 100.00 | 0 (0.0%) | 0 (0.0%) |" in out
    assert "y − x" in out
    ea.main(["--gold", str(gold), "--pred", f"x={pred}", "--pred", f"y={gold}", "--baseline", "y"])
    assert "x − y" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        ea.main(["--gold", str(gold), "--pred", "no-file-name"])
    assert "expected NAME=FILE" in capsys.readouterr().err


def test_a_prediction_with_several_roots_is_scored_and_a_gold_one_refused(tmp_path, capsys):
    """spaCy's biaffine parser gives sentences several roots: its cached parse is read back
    (error_analysis.read_predictions) and scored, where the gold must still be a UD tree."""
    from spacy_dynoracle.conllu_read import ConlluError

    gold = write(tmp_path, NONPROJ, "gold.conllu")
    # "Dogs bark loudly." with "loudly" a second root: one head wrong, one root too many
    two_roots = NONPROJ.replace("3\tloudly\tloudly\tADV\tRB\t_\t2\tadvmod",
                                "3\tloudly\tloudly\tADV\tRB\t_\t0\troot")
    assert two_roots != NONPROJ
    pred = write(tmp_path, two_roots, "pred.conllu")
    ea.main(["--gold", str(gold), "--pred", f"two_roots={pred}", "--pred", f"gold={gold}"])
    out = capsys.readouterr().out
    assert "| gold | 100.00 | 100.00 |" in out
    n_words = sum(1 for line in NONPROJ.splitlines() if line and line[0].isdigit())
    las = f"{100 * (n_words - 1) / n_words:.2f}"
    assert f"| two_roots | {las} | {las} |" in out
    with pytest.raises(ConlluError, match="several roots"):
        ea.main(["--gold", str(pred), "--pred", f"gold={gold}"])


def test_a_runs_parse_keeps_the_gold_sentences_and_scores_as_run_matrix_does(tmp_path, monkeypatch):
    from evaluate_run import evaluate

    root = tmp_path / "ud"
    (root / "UD_Tiny").mkdir(parents=True)
    train = write(root / "UD_Tiny", random_treebank(0, n_sents=60), "tiny-ud-train.conllu")
    write(root / "UD_Tiny", random_treebank(1, n_sents=25), "tiny-ud-test.conllu")
    folder = tmp_path / "training" / "UD_Tiny" / "parser" / "swap-dynamic-s0"
    nlp = tiny_dynoracle_parser(train, iterations=5, system="swap", explore_after_epochs=0)
    folder.mkdir(parents=True)
    nlp.to_disk(folder / "model-best")
    (folder / "run.json").write_text(json.dumps({"treebank": "UD_Tiny", "pipeline": "parser",
                                                 "system": "swap"}))
    for split in ("dev", "test"):
        out = ea.predict(folder, split, tmp_path / "cache", ud_root=root)
        assert out == tmp_path / "cache" / "UD_Tiny" / "parser" / split / "swap-dynamic-s0.conllu"
        path, select = ea.split_source("UD_Tiny", split, root)
        gold = list(read_sentences(path, select=select))
        w = ea.collect(gold, {"swap": list(read_sentences(out))})
        scored = evaluate(nlp, path, select=select, gold_sents=True)
        assert 100 * sum(w.las_ok["swap"]) / w.n == pytest.approx(scored["LAS"]["f1"])
        assert w.np_arcs["swap"]["recall"] == pytest.approx(scored["NonProjArcs"]["recall"])
    assert len(gold) == 25
    # the parser segmenting (run_matrix's eval_test.json) goes through the same parse, timed
    segmenting = evaluate(nlp, path, select=select)
    assert segmenting["speed"]["words"] == sum(len(s.words) for s in gold)
    assert not segmenting["settings"]["gold_sents"]
    # the tags are the pipeline's too: this one has no tagger, so UPOS is "_", not the gold X
    assert {w.upos for s in read_sentences(out) for w in s.words} == {"_"}
    # cached: the second call does not parse (no pipeline is loaded)
    monkeypatch.setattr("evaluate_run.load_pipeline", lambda *a: pytest.fail("parsed again"))
    ea.predict(folder, "test", tmp_path / "cache", ud_root=root)
    # ... unless the cache was made from another model or before the run was retrained
    stamp = out.with_suffix(".json")
    made = json.loads(stamp.read_text())
    assert made == ea.parse_stamp(folder, "test")
    stamp.write_text(json.dumps({**made, "model_mtime": made["model_mtime"] - 1}))
    with pytest.raises(pytest.fail.Exception, match="parsed again"):
        ea.predict(folder, "test", tmp_path / "cache", ud_root=root)
    with pytest.raises(ValueError, match="split 'train': choose from"):
        ea.split_source("UD_Tiny", "train", root)
