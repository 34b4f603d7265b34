"""Train and evaluate the matrix: treebanks x pipelines x (every registered system x
every oracle it declares, + spaCy's stock parser) x seeds. Systems come from the
package's registry (scripts/matrix.py), so a new system is picked up without edits.

    python scripts/run_matrix.py --treebanks UD_Hungarian-Szeged,UD_Latin-Perseus \
        --seeds 0,1,2 --epochs 30 [--systems arc_hybrid --oracles static,dynamic] [--dry-run]

Finished runs (run.json, eval_*.json present) are skipped, so an interrupted matrix
resumes where it stopped. A run that fails is recorded in <output>/failures.jsonl and
the matrix goes on.
"""
import argparse
import json
import time
import traceback
from pathlib import Path

from udproj import PROJECT, run_dir
from matrix import BIAFFINE, all_runs, make_run, with_variant
from spacy_dynoracle.options import parse_options


def csv(value):
    return [v for v in value.split(",") if v] if value else None


def parse_run(spec: str):
    """'system:oracle[:key=value,...]' (or 'spacy', or 'biaffine') -> the matrix Run."""
    parts = spec.split(":")
    if parts[0] in ("spacy", BIAFFINE):
        return make_run(parts[0])
    if len(parts) < 2:
        raise SystemExit(f"--run {spec!r}: expected SYSTEM:ORACLE[:KEY=VALUE,...]")
    try:
        options = parse_options(parts[2].split(",")) if len(parts) > 2 and parts[2] else {}
        return make_run(parts[0], parts[1], options)
    except ValueError as err:
        raise SystemExit(f"--run {spec!r}: {err}") from None


def parse_settings(items):
    """--set items ['a.b=1', ...] -> {'a.b': 1}, read by spacy_dynoracle.options.parse_options
    (as `spacy train` reads its own overrides); a malformed item stops the script."""
    try:
        return parse_options(items)
    except ValueError as err:
        raise SystemExit(f"--set: {err}; e.g. components.parser.model.extra_state_tokens=true") from None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebanks", required=True, help="comma-separated UD folder names")
    ap.add_argument("--systems", default="", help="subset of systems ('spacy' = stock parser); default all")
    ap.add_argument("--oracles", default="", help="subset of oracles; default all each system declares")
    ap.add_argument("--no-stock", action="store_true", help="leave spaCy's stock parser out")
    ap.add_argument("--run", action="append", default=[], metavar="SYSTEM:ORACLE[:KEY=VALUE,...]",
                    help="an explicit run instead of the registry's matrix (repeatable), e.g. "
                         "arc_eager:static:projectivize=true, swap:nd-all:beam_width=8, spacy, "
                         "biaffine (spaCy's biaffine parser, trained in --biaffine-venv)")
    ap.add_argument("--pipelines", default="parser", help="parser,tagger")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--eval-frequency", type=int, default=200)
    ap.add_argument("--patience", type=int, default=0,
                    help="stop after this many updates without a better dev score (0 = train all --epochs)")
    ap.add_argument("--limit", type=int, default=0, help="training Examples per epoch (0 = all)")
    ap.add_argument("--dev-limit", type=int, default=0, help="dev Examples for evaluations during training (0 = all)")
    ap.add_argument("--explore-after", type=int, default=None)
    ap.add_argument("--explore-prob", type=float, default=None)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="settings",
                    help="a spaCy config override for every run of this call, spaCy's parser included "
                         "(repeatable), e.g. components.parser.model.extra_state_tokens=true; needs --variant")
    ap.add_argument("--variant", default="",
                    help="name of the --set settings, appended to each run id as '+NAME' so the runs "
                         "get their own folders and report rows")
    ap.add_argument("--biaffine-venv", type=Path, default=None,
                    help="the venv of --run biaffine (default projects/ud/.venv-biaffine; "
                         "scripts/biaffine.py --make-venv)")
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--output", type=Path, default=PROJECT / "training")
    ap.add_argument("--dry-run", action="store_true", help="list the runs and stop")
    args = ap.parse_args(argv)

    systems = csv(args.systems)
    if args.run:
        runs = [parse_run(spec) for spec in args.run]
    else:
        runs = all_runs(systems, csv(args.oracles), stock=not args.no_stock)
    from train_one import with_schedule

    runs = [with_schedule(r, args.explore_after, args.explore_prob) for r in runs]
    settings = parse_settings(args.settings)
    if bool(settings) != bool(args.variant):
        raise SystemExit("--set and --variant go together: name the settings (--variant NAME) "
                         "so their runs do not share folders with the default ones")
    # the [training] block is the same in every config (a step cap, say); the rest names the
    # spaCy parsers' components, which the biaffine parser's config does not have
    component_settings = sorted(k for k in settings if not k.startswith("training."))
    if component_settings and any(r.system == BIAFFINE for r in runs):
        raise SystemExit(f"--set {', '.join(component_settings)}: overrides the spaCy parsers' "
                         "components; the biaffine parser has none of them (only training.* "
                         "settings apply to it): run it in a call of its own")
    runs = [with_variant(r, args.variant) for r in runs]
    seeds = [int(s) for s in args.seeds.split(",")]
    jobs = [(tb, pipe, run, seed) for tb in csv(args.treebanks) for pipe in csv(args.pipelines)
            for seed in seeds for run in runs]
    print(f"{len(jobs)} runs: {len(csv(args.treebanks))} treebanks x {len(csv(args.pipelines))} "
          f"pipelines x {len(runs)} (system, oracle) x {len(seeds)} seeds", flush=True)
    from train_one import never_explores

    for run in runs:
        why = never_explores(run, args.epochs, args.explore_after, args.explore_prob)
        if why:
            print(f"warning: {why}", flush=True)
    if args.dry_run:
        for tb, pipe, run, seed in jobs:
            print(f"{tb} {pipe} {run.id} seed {seed}")
        return
    from train_one import train
    from evaluate_run import evaluate_run

    failures = args.output / "failures.jsonl"
    failed = []
    for i, (tb, pipe, run, seed) in enumerate(jobs, 1):
        name = f"{tb} {pipe} {run.id} seed {seed}"
        print(f"\n=== [{i}/{len(jobs)}] {name} ===", flush=True)
        try:
            folder = train(run, tb, output=args.output, pipeline=pipe, seed=seed,
                           ud_root=args.ud_root, epochs=args.epochs,
                           eval_frequency=args.eval_frequency, patience=args.patience,
                           limit=args.limit, dev_limit=args.dev_limit,
                           explore_after=args.explore_after, explore_prob=args.explore_prob,
                           settings=settings, venv=args.biaffine_venv)
            evaluate_run(folder, args.ud_root, venv=args.biaffine_venv)
            # test again with the gold sentence boundaries preset, as UDPipe 1 parses
            evaluate_run(folder, args.ud_root, gold_sents=True, splits=("test",), venv=args.biaffine_venv)
            # and model-last (the converged protocol reports both; spaCy never scores it)
            evaluate_run(folder, args.ud_root, model="model-last", gold_sents=True, splits=("test",),
                         venv=args.biaffine_venv)
        except Exception as err:  # keep going: one broken system must not stop the matrix
            traceback.print_exc()
            failures.parent.mkdir(parents=True, exist_ok=True)
            with failures.open("a") as f:
                f.write(json.dumps({"treebank": tb, "pipeline": pipe, "run": run.id, "seed": seed,
                                    "error": repr(err), "time": time.strftime("%Y-%m-%d %H:%M:%S")}) + "\n")
            failed.append(name)
    if failed:
        # the other runs went on; the exit status still says that not every run finished
        # (a queue or a shell loop would otherwise log a killed run as done)
        raise SystemExit(f"{len(failed)} of {len(jobs)} runs failed (see {failures}): "
                         + "; ".join(failed))


if __name__ == "__main__":
    main()
