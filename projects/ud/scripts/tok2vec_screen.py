"""Screen settings of the shared tok2vec through the morphologizer alone: the tagger
pipeline's config (configs/dynoracle_tagger.cfg) cut to tok2vec + morphologizer, trained on
one treebank's train set and scored on its dev set (UPOS and UFeats accuracy of model-best).

    python scripts/tok2vec_screen.py --treebank UD_Hungarian-Szeged --variants base,rows2x,w128rows2x

A morphologizer trains in about a tenth of a converged parser run's CPU time, so this is
the cheap first look at an embedding before it goes to the parser screens (issue 18 item 3,
results_converged_2026-11-27.md, session 4). The parser runs of a chosen setting take the
same values through run_matrix.py's --set. Output: <output>/<treebank>-<variant>/ with
config.cfg, train.log and model/; one line per variant on stdout (dev UPOS, UFeats, train
CPU s of `spacy train`).
"""
import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

from spacy.util import load_config

from spacy_dynoracle.options import ud_root
from udproj import CONFIGS, PROJECT

CONFIG = CONFIGS / "dynoracle_tagger.cfg"
ROWS_2X = [10000, 2000, 5000, 2500]
#: variant name -> config overrides (dotted keys), or "char" for spaCy's CharacterEmbed
VARIANTS = {
    "base": {},
    "rows2x": {"components.tok2vec.model.embed.rows": ROWS_2X},
    "w128": {"components.tok2vec.model.encode.width": 128},
    "w128rows2x": {"components.tok2vec.model.embed.rows": ROWS_2X,
                   "components.tok2vec.model.encode.width": 128},
    "charembed": "char",
    "avg": {"training.optimizer.use_averages": True},
    "drop2": {"training.dropout": 0.2},
    "drop3": {"training.dropout": 0.3},
}
CHARACTER_EMBED = {"@architectures": "spacy.CharacterEmbed.v2",
                   "width": "${components.tok2vec.model.encode.width}",
                   "rows": 7000, "nM": 64, "nC": 8, "include_static_vectors": False}


def screen_config(variant: str, epochs: int):
    """The tagger pipeline's config cut to tok2vec + morphologizer, with `variant` applied."""
    if variant not in VARIANTS:
        raise SystemExit(f"--variants: unknown variant {variant!r}; valid: {', '.join(VARIANTS)}")
    overrides = VARIANTS[variant]
    # spaCy applies the dotted-key overrides itself, as `spacy train --key value` does
    cfg = load_config(CONFIG, overrides={
        "nlp.pipeline": ["tok2vec", "morphologizer"], "training.max_epochs": epochs,
        "training.eval_frequency": 100, **(overrides if isinstance(overrides, dict) else {})})
    for name in ("tagger", "parser"):      # overrides cannot remove a section
        del cfg["components"][name]
    cfg["training"]["score_weights"] = {"pos_acc": 0.5, "morph_acc": 0.5}
    if overrides == "char":                # nor replace one with different keys
        cfg["components"]["tok2vec"]["model"]["embed"] = dict(CHARACTER_EMBED)
    return cfg


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", required=True, help="a UD folder with a dev set, e.g. UD_Hungarian-Szeged")
    ap.add_argument("--variants", default="base", help=f"comma-separated, of: {', '.join(VARIANTS)}")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--output", type=Path, default=PROJECT / "training" / "tok2vec_screen")
    args = ap.parse_args(argv)
    folder = ud_root(args.ud_root) / args.treebank
    train, dev = sorted(folder.glob("*-ud-train.conllu")), sorted(folder.glob("*-ud-dev.conllu"))
    if not train or not dev:
        raise SystemExit(f"{folder}: needs a *-ud-train.conllu and a *-ud-dev.conllu")
    for variant in args.variants.split(","):
        cfg = screen_config(variant, args.epochs)
        out = args.output / f"{args.treebank}-{variant}"
        out.mkdir(parents=True, exist_ok=True)
        cfg.to_disk(out / "config.cfg")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(out / "train.log", "w") as log:
            subprocess.run([sys.executable, "-m", "spacy", "train", str(out / "config.cfg"),
                            "--output", str(out / "model"), "--paths.train", str(train[0]),
                            "--paths.dev", str(dev[0])], check=True, stdout=log, stderr=subprocess.STDOUT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        perf = json.loads((out / "model" / "model-best" / "meta.json").read_text())["performance"]
        print(f"{args.treebank} {variant}: UPOS {100 * perf['pos_acc']:.2f} "
              f"UFeats {100 * perf['morph_acc']:.2f} train CPU {cpu:.0f} s", flush=True)


if __name__ == "__main__":
    main()
