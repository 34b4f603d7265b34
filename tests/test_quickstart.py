"""scripts/quickstart.sh as a new user runs it (issue 20): it does not rebuild an up-to-date
install, says so when it does build, trains a pipeline in the treebank's language and labels
its score as a smoke test. Runs on a tiny treebank for one epoch; any attempt to install
(pip) is refused, so the test never touches the environment."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conllu_samples import NONPROJ, random_treebank, write
from package_under_test import checkout_only

# the script's up-to-date check is about the checkout's own build
pytestmark = checkout_only

REPO = Path(__file__).resolve().parents[1]
REFUSED = 97


def quickstart(tmp_path, **env):
    """Run the script with a `python` that refuses `-m pip` (so neither it nor
    scripts/install.sh can install anything); returns the completed process."""
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\n[ "$1 $2" = "-m pip" ] && {{ echo "pip refused" >&2; exit {REFUSED}; }}\n'
                      f'exec {sys.executable} "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    full_env = dict(os.environ, PYTHON=str(python), **env)
    return subprocess.run(["bash", str(REPO / "scripts" / "quickstart.sh")], env=full_env, capture_output=True,
                          text=True, timeout=1800, stdin=subprocess.DEVNULL)


@pytest.fixture
def treebank(tmp_path):
    """A UD folder with one treebank whose files name Hungarian (hu), as UD_Hungarian-Szeged's do."""
    folder = tmp_path / "ud" / "UD_Tiny-Test"
    folder.mkdir(parents=True)
    write(folder, NONPROJ * 3 + random_treebank(5, 20), "hu_tiny-ud-train.conllu")
    write(folder, NONPROJ + random_treebank(6, 5), "hu_tiny-ud-dev.conllu")
    return dict(UD_ROOT=str(tmp_path / "ud"), TREEBANK="UD_Tiny-Test")


def test_quickstart_trains_in_the_treebank_language_without_rebuilding(tmp_path, treebank):
    out = tmp_path / "out"
    result = quickstart(tmp_path, EPOCHS="1", OUT=str(out), **treebank)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "spacy-dynoracle is installed and up to date" in result.stdout
    assert "Installing" not in result.stdout and "pip refused" not in result.stderr
    assert "spaCy language 'hu'" in result.stdout
    assert json.loads((out / "model-best" / "meta.json").read_text(encoding="utf-8"))["lang"] == "hu"
    assert "Smoke test only: 1 epochs are far from a trained parser" in result.stdout
    assert (out / "dev-scores.json").is_file()


def test_quickstart_says_it_is_building_before_it_builds(tmp_path, treebank):
    result = quickstart(tmp_path, REINSTALL="1", **treebank)
    assert result.returncode == REFUSED   # it went on to install, which the fake python refused
    assert result.stdout.startswith("Installing spacy-dynoracle: compiling its Cython extensions")
