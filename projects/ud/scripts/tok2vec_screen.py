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

from spacy.util import load_config, set_dot_to_object

from spacy_dynoracle.affix_embed import ARCHITECTURE, as_multi_hash_embed
from udproj import CONFIGS, PROJECT, dev_source, train_source, treebank_files

CONFIG = CONFIGS / "dynoracle_tagger.cfg"
ROWS_2X = [10000, 2000, 5000, 2500]
AFFIX = {"components.tok2vec.model.embed.@architectures": ARCHITECTURE}
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
    # spacy_dynoracle.AffixMultiHashEmbed.v1 (affix_embed.py): lower-cased prefixes of 1-3
    # and suffixes of 1-5 characters on top of the base features, rows from its defaults
    "affix": AFFIX,
    "affix+rows2x": {**AFFIX, "components.tok2vec.model.embed.rows": ROWS_2X},
    "affix-suffixes": {**AFFIX, "components.tok2vec.model.embed.prefix_lengths": [],
                       "components.tok2vec.model.embed.prefix_rows": []},
    "affix-long": {**AFFIX, "components.tok2vec.model.embed.suffix_lengths": [1, 2, 3, 4, 5, 6, 7],
                   "components.tok2vec.model.embed.suffix_rows": [1000, 2000, 2500, 2500, 2500, 2500, 2500]},
}
CHARACTER_EMBED = {"@architectures": "spacy.CharacterEmbed.v2",
                   "width": "${components.tok2vec.model.encode.width}",
                   "rows": 7000, "nM": 64, "nC": 8, "include_static_vectors": False}


def screen_config(variant: str, epochs: int):
    """The tagger pipeline's config cut to tok2vec + morphologizer, its embed MultiHashEmbed.v2,
    with `variant` applied."""
    if variant not in VARIANTS:
        raise SystemExit(f"--variants: unknown variant {variant!r}; valid: {', '.join(VARIANTS)}")
    overrides = VARIANTS[variant]
    # the screens' baseline ("base") is MultiHashEmbed.v2, the tagger config's embed before it
    # took the affix one: each variant is overrides on top of it
    cfg = load_config(CONFIG, overrides={"nlp.pipeline": ["tok2vec", "morphologizer"],
                                         "training.max_epochs": epochs, "training.eval_frequency": 100})
    model = cfg["components"]["tok2vec"]["model"]
    model["embed"] = as_multi_hash_embed(model["embed"])
    for key, value in (overrides.items() if isinstance(overrides, dict) else ()):
        set_dot_to_object(cfg, key, value)      # as `spacy train --key value` sets it
    for name in ("tagger", "parser"):      # overrides cannot remove a section
        del cfg["components"][name]
    cfg["training"]["score_weights"] = {"pos_acc": 0.5, "morph_acc": 0.5}
    if overrides == "char":                # nor replace one with different keys
        cfg["components"]["tok2vec"]["model"]["embed"] = dict(CHARACTER_EMBED)
    return cfg


def data_paths(files) -> list:
    """The `spacy train` options of a treebank's train and dev data: the runs' split
    (udproj.dev_source; train_one.py gives the same paths.* values)."""
    (train, train_select), (dev, dev_select) = train_source(files), dev_source(files)
    return ["--paths.train", str(train), "--paths.dev", str(dev),
            "--paths.train_select", train_select, "--paths.dev_select", dev_select]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", required=True,
                    help="a UD folder, e.g. UD_Hungarian-Szeged (without a dev set: the last 10%% "
                         "of train is dev, the rest train, as in run_matrix.py)")
    ap.add_argument("--variants", default="base", help=f"comma-separated, of: {', '.join(VARIANTS)}")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--output", type=Path, default=PROJECT / "training" / "tok2vec_screen")
    args = ap.parse_args(argv)
    data = data_paths(treebank_files(args.treebank, args.ud_root))
    for variant in args.variants.split(","):
        cfg = screen_config(variant, args.epochs)
        out = args.output / f"{args.treebank}-{variant}"
        out.mkdir(parents=True, exist_ok=True)
        cfg.to_disk(out / "config.cfg")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(out / "train.log", "w") as log:
            subprocess.run([sys.executable, "-m", "spacy", "train", str(out / "config.cfg"),
                            "--output", str(out / "model"), *data],
                           check=True, stdout=log, stderr=subprocess.STDOUT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        perf = json.loads((out / "model" / "model-best" / "meta.json").read_text())["performance"]
        print(f"{args.treebank} {variant}: UPOS {100 * perf['pos_acc']:.2f} "
              f"UFeats {100 * perf['morph_acc']:.2f} train CPU {cpu:.0f} s", flush=True)


if __name__ == "__main__":
    main()
