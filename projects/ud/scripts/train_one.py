"""Train one run of the matrix with `spacy train` from configs/, overrides on the command
line, and record the exact command, wall-clock time and versions next to the model.

    python scripts/train_one.py --treebank UD_Hungarian-Szeged --system arc_hybrid \
        --oracle dynamic --seed 0 --epochs 10 [--pipeline tagger] [--explore-after 1 --explore-prob 0.9]
    python scripts/train_one.py --treebank UD_Hungarian-Szeged --system spacy   # stock parser

Output: <output>/<treebank>/<pipeline>/<run id>-s<seed>/ with model-best, model-last,
train_log.jsonl (spaCy's ConsoleLogger.v3: one line per dev evaluation, with the epoch) and
run.json. An existing run.json means the run is done: it is skipped unless --force.
A dynamic run with an explicit schedule gets it in its id (e.g. swap-dynamic-k2-p0.5), so
runs that differ only in the schedule neither skip each other nor merge in the report.
"""
import argparse
import json
import resource
import shlex
import shutil
import subprocess
import sys
import time
import dataclasses
from pathlib import Path

from udproj import (CONFIGS, PROJECT, dev_source, run_dir, train_source, treebank_files, versions,
                    write_json)
from matrix import BIAFFINE, Run, make_run
from spacy_dynoracle.options import option_text, parse_options


def has_xpos(path, max_lines=20000) -> bool:
    """Whether a CoNLL-U file has XPOS values (some UD treebanks have only `_`)."""
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            cols = line.split("\t")
            if len(cols) == 10 and cols[0].isdigit() and cols[4] != "_":
                return True
            if i > max_lines:
                break
    return False


def pipeline_without_tagger(config: Path) -> str:
    """The [nlp] pipeline of a config without its tagger, as an override value."""
    from spacy.util import load_config

    names = load_config(config, interpolate=False)["nlp"]["pipeline"]
    return json.dumps([name for name in names if name != "tagger"], separators=(",", ":"))


def train_command(run: Run, files, out: Path, *, pipeline="parser", seed=0, epochs=10,
                  eval_frequency=200, explore_after=None, explore_prob=None, limit=0,
                  dev_limit=0, patience=0, settings=None, venv=None, extra=()):
    """The `spacy train` command of a run; the biaffine parser's runs with the python of its
    venv (scripts/biaffine.py) and the `--code` file that registers the CoNLL-U reader there."""
    config = CONFIGS / run.config(pipeline)
    (train, train_select), (dev, dev_select) = train_source(files), dev_source(files)
    overrides = {
        "paths.train": train, "paths.dev": dev,
        "paths.train_select": train_select, "paths.dev_select": dev_select,
        "system.seed": seed, "training.max_epochs": epochs, "training.patience": patience,
        "training.eval_frequency": eval_frequency,
        "corpora.train.limit": limit,
        "corpora.dev.limit": dev_limit,
        "training.logger.@loggers": "spacy.ConsoleLogger.v3",
        "training.logger.progress_bar": "null",
        "training.logger.output_file": out / "train_log.jsonl",
        **run.overrides(),
        **(settings or {}),   # run_matrix --set: the same for every parser of a comparison
    }
    if pipeline == "tagger" and not has_xpos(files["train"]):
        # no XPOS to learn: the tagger has no labels, keep the morphologizer (UPOS + FEATS)
        overrides["nlp.pipeline"] = pipeline_without_tagger(config)
    if run.system != "spacy" and run.dynamic:
        if explore_after is not None:
            overrides["components.parser.explore_after_epochs"] = explore_after
        if explore_prob is not None:
            overrides["components.parser.explore_prob"] = explore_prob
    python, code = sys.executable, []
    if run.system == BIAFFINE:
        from biaffine import CODE, venv_python

        python, code = venv_python(venv), ["--code", str(CODE)]
    cmd = [str(python), "-m", "spacy", "train", str(config), "--output", str(out), *code]
    for key, value in overrides.items():
        cmd += [f"--{key}", option_text(value)]
    return cmd + list(extra)


def with_schedule(run: Run, explore_after=None, explore_prob=None) -> Run:
    """The run, its id suffixed with an explicit exploration schedule (dynamic runs)."""
    if run.system == "spacy" or not run.dynamic:
        return run
    suffix = "".join(f"-{tag}{value}" for tag, value in (("k", explore_after), ("p", explore_prob))
                     if value is not None)
    base, plus, variant = run.id.partition("+")   # a --variant name stays last
    if not suffix or base.endswith(suffix):    # idempotent: run_matrix applies it too
        return run
    return dataclasses.replace(run, id=base + suffix + plus + variant)


def resolved_schedule(run: Run, explore_after=None, explore_prob=None):
    """The (k, p) a run trains with: the explicit values, else its system's default_schedule
    (None for runs that do not explore: spaCy's parser, the biaffine parser, static oracles)."""
    if run.system in ("spacy", BIAFFINE) or not run.dynamic:
        return None
    from spacy_dynoracle import get_system_class

    default_k, default_p = get_system_class(run.system).default_schedule
    return (default_k if explore_after is None else explore_after,
            default_p if explore_prob is None else explore_prob)


def recorded_schedule(folder: Path):
    """The (k, p) a finished run trained with: run.json's "schedule", or for runs written
    before it was recorded, the values model-best's parser resolved (its cfg)."""
    info = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    if "schedule" in info:
        return tuple(info["schedule"]) if info["schedule"] is not None else None
    cfg = folder / "model-best" / "parser" / "cfg"
    if not cfg.exists():
        return None
    parser = json.loads(cfg.read_text(encoding="utf-8"))
    if "explore_after_epochs" not in parser:
        return None
    return parser["explore_after_epochs"], parser["explore_prob"]


def check_same_schedule(out: Path, schedule):
    """A finished run is reused only if it trained with the schedule this run resolves to: a
    run id without -k/-p means "the system's default", and a default that changed (e.g.
    arc_eager's, issue 18) must not mix old and new runs under one id."""
    before = recorded_schedule(out)
    if schedule is not None and before is not None and tuple(before) != tuple(schedule):
        raise SystemExit(
            f"{out} was trained with the exploration schedule (k, p) = {tuple(before)}, but this "
            f"run resolves to {tuple(schedule)} (the system's default_schedule changed since): "
            "write the new runs to another --output, or give --explore-after/--explore-prob "
            "explicitly (the run id then names them)")


def never_explores(run: Run, epochs: int, explore_after=None, explore_prob=None):
    """Why a dynamic run would never follow its model (None if it explores): exploration
    starts at 0-based epoch k, so k >= epochs (e.g. --epochs 2 with a (2, 0.5) schedule) or
    p = 0 trains on the oracle's zero-cost sets along the gold path only. That is a valid
    experiment (--explore-after 5), but easy to run by accident when epochs are cut."""
    schedule = resolved_schedule(run, explore_after, explore_prob)
    if schedule is None:   # a run that does not explore
        return None
    k, p = schedule
    if p <= 0:
        return f"{run.id} never explores: explore_prob is 0"
    if epochs > 0 and k >= epochs:
        return (f"{run.id} never explores: exploration starts at epoch {k} (0-based) "
                f"and training stops after {epochs} epochs")
    return None


def peer_versions(run: Run, python) -> dict:
    """The versions a run trained with outside this environment (the biaffine venv's)."""
    if run.system != BIAFFINE:
        return {}
    from biaffine import venv_versions

    return venv_versions(python)


def train(run: Run, treebank: str, *, output=PROJECT / "training", pipeline="parser", seed=0,
          ud_root=None, force=False, **kwargs) -> Path:
    files = treebank_files(treebank, ud_root)
    run = with_schedule(run, kwargs.get("explore_after"), kwargs.get("explore_prob"))
    out = run_dir(output, treebank, pipeline, run.id, seed)
    schedule = resolved_schedule(run, kwargs.get("explore_after"), kwargs.get("explore_prob"))
    if (out / "run.json").exists() and not force:
        check_same_schedule(out, schedule)
        print(f"done already: {out} (--force to retrain)", flush=True)
        return out
    why = never_explores(run, kwargs.get("epochs", 10), kwargs.get("explore_after"),
                         kwargs.get("explore_prob"))
    if why:
        print(f"warning: {why}", file=sys.stderr, flush=True)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    cmd = train_command(run, files, out, pipeline=pipeline, seed=seed, **kwargs)
    print("+ " + shlex.join(cmd), flush=True)
    start = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = time.time() - start
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    write_json(out / "run.json", {
        "treebank": treebank, "pipeline": pipeline, "run": run.id, "system": run.system,
        "oracle": run.oracle, "dynamic": run.dynamic, "options": run.options, "seed": seed,
        "schedule": list(schedule) if schedule is not None else None,
        "train_seconds": round(seconds, 1), "train_cpu_seconds": round(cpu, 1), "command": shlex.join(cmd),
        "python": cmd[0],
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in kwargs.items()},
        "versions": {**versions(), **peer_versions(run, cmd[0])}})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", required=True)
    ap.add_argument("--system", required=True, help="a registered system, or 'spacy' (stock parser)")
    ap.add_argument("--oracle", default="dynamic")
    ap.add_argument("--option", action="append", help="system option, e.g. degree=3 (repeatable)")
    ap.add_argument("--pipeline", default="parser", choices=["parser", "tagger"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--eval-frequency", type=int, default=200)
    ap.add_argument("--patience", type=int, default=0,
                    help="stop after this many updates without a better dev score (0 = train all --epochs)")
    ap.add_argument("--explore-after", type=int, default=None, help="schedule k (default: config)")
    ap.add_argument("--explore-prob", type=float, default=None, help="schedule p (default: config)")
    ap.add_argument("--limit", type=int, default=0, help="training Examples per epoch (0 = all)")
    ap.add_argument("--dev-limit", type=int, default=0,
                    help="dev Examples for the evaluations during training (0 = all; eval_dev.json always uses all)")
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--output", type=Path, default=PROJECT / "training")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    run = make_run(args.system, args.oracle, parse_options(args.option))
    train(run, args.treebank, output=args.output, pipeline=args.pipeline, seed=args.seed,
          ud_root=args.ud_root, force=args.force, epochs=args.epochs,
          eval_frequency=args.eval_frequency, patience=args.patience, explore_after=args.explore_after,
          explore_prob=args.explore_prob, limit=args.limit, dev_limit=args.dev_limit)


if __name__ == "__main__":
    main()
