"""Helpers shared by the benchmarks: locate UD data, train a config quickly."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"


def ud_root() -> Path:
    """UD_ROOT, else ../shared/ud beside the repo."""
    root = Path(os.environ.get("UD_ROOT", REPO.parent / "shared" / "ud"))
    if not root.is_dir():
        raise SystemExit(f"UD treebanks not found at {root}: set UD_ROOT")
    return root


def treebank_files(name: str):
    """(train, dev) CoNLL-U paths of a treebank folder name such as UD_Hungarian-Szeged;
    without a dev file, dev is None (carve it with select='tail:0.1')."""
    folder = ud_root() / name
    train = sorted(folder.glob("*-ud-train.conllu"))
    dev = sorted(folder.glob("*-ud-dev.conllu"))
    if not train:
        raise SystemExit(f"no *-ud-train.conllu in {folder}")
    return train[0], (dev[0] if dev else None)


def train_pipeline(config_name: str, output: Path, train, dev, overrides=None, quiet=True):
    """Train configs/<config_name> with spaCy's own training loop; return model-last path."""
    from spacy.cli.train import train as spacy_train

    overrides = dict(overrides or {})
    overrides.setdefault("paths.train", str(train))
    if dev is None:
        overrides["paths.dev"] = str(train)
        overrides.setdefault("paths.train_select", "head:0.9")
        overrides["paths.dev_select"] = "tail:0.1"
    else:
        overrides.setdefault("paths.dev", str(dev))
    if quiet:
        import logging

        logging.getLogger("spacy").setLevel(logging.ERROR)
    spacy_train(CONFIGS / config_name, output, overrides=overrides)
    return output / "model-last"
