"""projects/ud/scripts/exact_table.py (issue 8's table): the window model's config differs
from configs/dynoracle.cfg in the parser model's state features only, the three runs train
with train_one.py's command, and the report reads the evaluation records."""
import copy
import json
import sys
from pathlib import Path

from spacy.util import load_config

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "ud"
sys.path.insert(0, str(PROJECT / "scripts"))
CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def test_window_config_changes_only_the_parser_model(tmp_path):
    import exact_table

    path = exact_table.window_config(tmp_path)
    window = copy.deepcopy(dict(load_config(path, interpolate=False)))
    default = copy.deepcopy(dict(load_config(CONFIGS / "dynoracle.cfg", interpolate=False)))
    wm = window["components"]["parser"].pop("model")
    dm = default["components"]["parser"].pop("model")
    assert window == default
    assert wm["@architectures"] == "spacy_dynoracle.WindowParserModel.v1"
    # same sizes and the same shared tok2vec: only the state features differ
    assert (wm["hidden_width"], wm["maxout_pieces"]) == (dm["hidden_width"], dm["maxout_pieces"])
    assert wm["tok2vec"] == dm["tok2vec"]


def test_runs_train_with_train_one_commands(tmp_path):
    import exact_table
    from train_one import train_command

    files = {"train": tmp_path / "x-ud-train.conllu", "dev": tmp_path / "x-ud-dev.conllu",
             "test": None}
    runs = dict(exact_table.runs(tmp_path))
    assert set(runs) == {"window", "default", "spacy"}
    cmds = {name: " ".join(map(str, train_command(run, files, tmp_path / name, seed=0, epochs=10)))
            for name, run in runs.items()}
    assert cmds["window"].split()[4] == str(tmp_path / "configs" / "dynoracle_window.cfg")
    assert cmds["default"].split()[4].endswith("configs/dynoracle.cfg")
    assert cmds["spacy"].split()[4].endswith("configs/spacy_parser.cfg")
    for name in ("window", "default"):
        assert "--components.parser.transition_system arc_hybrid" in cmds[name]
        assert "--components.parser.oracle dynamic" in cmds[name]
    for cmd in cmds.values():
        assert "--training.max_epochs 10" in cmd and "--system.seed 0" in cmd


def test_report_reads_the_records(tmp_path):
    import exact_table
    from udproj import run_dir

    calib = {"n": 10, "n_bins": 1, "ece": 0.05, "mce": 0.05, "brier": 0.1, "accuracy": 0.8,
             "confidence": 0.85, "bins": [{"lower": 0.0, "upper": 1.0, "count": 10,
                                           "confidence": 0.85, "accuracy": 0.8}]}
    scores = lambda las: {"UAS": las + 5, "LAS": las, "CLAS": las - 5, "Sentences": 90.0}
    spd = {"words_per_cpu_s": 1234}
    records = {
        "window": {"greedy": {"scores": scores(70.0), "calibration": {"decoded": calib}},
                   "exact": {"scores": scores(71.5), "calibration": {"decoded": calib}},
                   "speed": {"greedy": spd, "exact": {"words_per_cpu_s": 99}},
                   "gold_sents": {"greedy": {"scores": scores(80.0), "calibration": {"decoded": calib}},
                                  "exact": {"scores": scores(81.0), "calibration": {"decoded": calib}}}},
        "default": {"greedy": {"scores": scores(75.0)}, "speed": {"greedy": spd}},
        "spacy": {"greedy": {"scores": scores(74.0)}, "speed": {"greedy": spd}},
    }
    for name, run in exact_table.runs(tmp_path):
        folder = run_dir(tmp_path, "UD_X", "parser", run.id, 0)
        folder.mkdir(parents=True)
        (folder / "table_dev.json").write_text(json.dumps(records[name]))
    text = exact_table.report(tmp_path, ["UD_X"], 0)
    assert "| UD_X | 70.00 (75.00) | 71.50 (76.50) | 75.00 (80.00) | 74.00 (79.00) | 5.00 | 5.00 |" in text
    assert "| UD_X | 1,234 | 99 | 1,234 | 1,234 |" in text
    assert "ECE 5.0" in text
    gold = text.split("gold sentence boundaries preset")[1]
    assert "| UD_X | 80.00 (85.00) | 81.00 (86.00) | - (-) | - (-) | 5.00 | 5.00 |" in gold


def test_paired_bootstrap():
    import exact_table

    same = exact_table.paired_bootstrap([5, 6, 7], [5, 6, 7], [10, 10, 10])
    assert same["diff"] == 0 and same["ci95"] == [0.0, 0.0]
    better = exact_table.paired_bootstrap([5, 6, 7, 4], [6, 7, 8, 5], [10, 10, 10, 10])
    assert better["diff"] == 10.0 and better["ci95"][0] > 0 and better["p_le_0"] == 0.0
    mixed = exact_table.paired_bootstrap([5, 7, 5, 7], [7, 5, 7, 5], [10, 10, 10, 10])
    assert mixed["diff"] == 0 and mixed["ci95"][0] < 0 < mixed["ci95"][1]
