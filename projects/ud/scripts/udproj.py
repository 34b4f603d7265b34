"""Shared helpers of the UD project scripts: where treebanks, runs and results live."""
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]          # projects/ud
REPO = PROJECT.parents[1]                               # the spacy-dynoracle repo
CONFIGS = REPO / "configs"
PEER_SYSTEMS = ("udpipe1", "biaffine")                # run.json "system" of the peers (they read none of our configs)
LAST_SCORES = "eval_test_gold_sents_last.json"       # run_matrix.py scores a run's model-last last: a run is finished
sys.path.insert(0, str(Path(__file__).resolve().parent))

from spacy_dynoracle.options import ud_root  # noqa: E402  (--ud-root, else $UD_ROOT, else ../shared/ud)


def treebank_files(treebank: str, root=None, assets=PROJECT / "assets"):
    """{"train", "dev", "test"} paths of a treebank (dev None when UD releases none).
    Looks in the project's assets/<treebank> first (spacy project assets), then UD_ROOT."""
    for folder in (Path(assets) / treebank, ud_root(root) / treebank):
        train = sorted(folder.glob("*-ud-train.conllu"))
        if train:
            dev = sorted(folder.glob("*-ud-dev.conllu"))
            test = sorted(folder.glob("*-ud-test.conllu"))
            return {"train": train[0], "dev": dev[0] if dev else None,
                    "test": test[0] if test else None, "folder": folder}
    raise SystemExit(f"no *-ud-train.conllu for {treebank} in {Path(assets) / treebank} "
                     f"or {ud_root(root) / treebank}: run `spacy project assets` or set UD_ROOT")


def train_source(files):
    """(path, select) of the training data: the train file, or its first 90% where the
    treebank has no dev file (dev_source takes the rest)."""
    return files["train"], "all" if files["dev"] is not None else "head:0.9"


def dev_source(files):
    """(path, select) of the dev data: the dev file, or the last 10% of train."""
    if files["dev"] is not None:
        return files["dev"], "all"
    return files["train"], "tail:0.1"


def split_sources(files) -> dict:
    """{"dev": (path, select), "test": (path, select)}: the data every run is scored on (dev:
    dev_source; test: the test file, whole; its path is None where the treebank has none)."""
    return {"dev": dev_source(files), "test": (files["test"], "all")}


def run_dir(output: Path, treebank: str, pipeline: str, run_id: str, seed: int) -> Path:
    return Path(output) / treebank / pipeline / f"{run_id}-s{seed}"


def versions() -> dict:
    import spacy
    import spacy_dynoracle

    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    # thinc, blis and numpy too: a run repeats exactly only with the same numeric stack (a
    # reinstall after a machine reset changed every retrained run from update 100 on)
    from importlib.metadata import PackageNotFoundError, version

    def installed(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    return {"spacy_dynoracle": spacy_dynoracle.__version__, "git": commit,
            "spacy": spacy.__version__, "python": platform.python_version(),
            **{name: installed(name) for name in ("thinc", "blis", "numpy")},
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs"}


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
