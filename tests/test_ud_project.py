"""projects/ud: the weasel project file parses, and its run matrix is enumerated from the
package's registry (a newly registered system joins without edits)."""
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "ud"
sys.path.insert(0, str(PROJECT / "scripts"))


def test_project_file_parses():
    from weasel.util import load_project_config

    config = load_project_config(PROJECT)
    commands = {c["name"] for c in config["commands"]}
    assert {"stats", "train", "evaluate", "matrix-runs", "matrix-report", "quick-runs",
            "quick-report", "benchmarks"} <= commands
    assert config["workflows"]["quick"] == ["quick-runs", "quick-report"]
    assert config["workflows"]["matrix"] == ["matrix-runs", "matrix-report"]
    for asset in config["assets"]:
        assert asset["dest"].startswith("assets/UD_") and len(asset["checksum"]) == 32
    for cmd in config["commands"]:
        for line in cmd["script"]:
            for part in line.split():
                if part.endswith(".py") and not part.startswith("../"):
                    assert (PROJECT / part).is_file(), part
                if part.startswith("../../benchmarks/"):
                    assert (PROJECT / part).is_file(), part


class FakeSystem:
    oracles = ("dynamic", "static", "shiny")
    dynamic_oracles = ("dynamic", "shiny")
    options = {"degree": 2, "other": True}


def test_matrix_enumerates_registry(monkeypatch):
    import spacy_dynoracle
    import matrix

    monkeypatch.setitem(spacy_dynoracle.SYSTEMS, "fake_system", ("fake_module", "Fake"))
    real = spacy_dynoracle.get_system_class

    def get(name):
        if name == "fake_system":
            return FakeSystem
        if name == "broken":
            raise ImportError("not built")
        return real(name)

    monkeypatch.setattr(spacy_dynoracle, "get_system_class", get)
    with pytest.warns(UserWarning, match="broken"):
        runs = matrix.all_runs(["fake_system", "broken", "spacy"])
    ids = [r.id for r in runs]
    # every oracle x the option grid of the options the class declares, + the stock parser
    assert ids == [f"fake_system-degree{d}-{o}" for d in matrix.OPTION_GRID["degree"]
                   for o in FakeSystem.oracles] + ["spacy_parser"]
    assert [r.dynamic for r in runs[:3]] == [True, False, True]
    assert runs[0].overrides() == {"components.parser.transition_system": "fake_system",
                                   "components.parser.oracle": "dynamic",
                                   "components.parser.degree": 2}
    assert runs[-1].config("tagger") == "spacy_parser_tagger.cfg"
    assert runs[0].config("parser") == "dynoracle.cfg"
    with pytest.raises(ImportError):
        matrix.all_runs(["broken"], strict=True)
    # with no selection, every registered name is visited
    seen = []
    monkeypatch.setattr(matrix, "system_runs", lambda name: seen.append(name) or [])
    matrix.all_runs()
    assert seen == list(spacy_dynoracle.SYSTEMS)


def test_train_command_uses_configs_and_overrides(tmp_path):
    import matrix
    from train_one import train_command

    files = {"train": tmp_path / "x-ud-train.conllu", "dev": None, "test": None}
    run = matrix.Run("arc_hybrid-dynamic", "arc_hybrid", "dynamic", True)
    cmd = train_command(run, files, tmp_path / "out", seed=3, epochs=2, explore_after=0)
    text = " ".join(cmd)
    assert "-m spacy train" in text and text.split()[4].endswith("configs/dynoracle.cfg")
    assert "--paths.train_select head:0.9" in text and "--paths.dev_select tail:0.1" in text
    assert "--system.seed 3" in text and "--components.parser.explore_after_epochs 0" in text
