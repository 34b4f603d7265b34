"""Dev scores of dynoracle_parser (static vs dynamic oracle) next to spaCy's own parser,
trained in the same run from configs/ with the same tok2vec, epochs and data.

    python benchmarks/compare_oracles.py --treebank UD_Hungarian-Szeged --epochs 10 \
        --system arc_hybrid --seeds 0 --json results.json

Scores come from spacy_dynoracle.evaluate (CoNLL-18 definitions, gold words; the parser
segments) on dev, or on the last 10% of train when the treebank has no dev split.
"""
import argparse
import json
import time
from pathlib import Path

import spacy

from common import REPO, train_pipeline, treebank_files, write_json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--system", default="arc_hybrid")
    ap.add_argument("--oracles", default="static,dynamic",
                    help="comma-separated oracle names; ORACLE+lift trains on lifted gold; "
                         "SYSTEM:ORACLE another system's oracle in the same run")
    ap.add_argument("--train-select", default="all",
                    help="the training sentences (head:F / tail:F, as paths.train_select): "
                         "a short screen on part of train")
    ap.add_argument("--no-spacy-parser", action="store_true",
                    help="leave out spaCy's parser (e.g. a run split over two processes)")
    ap.add_argument("--gold-sents", action="store_true",
                    help="score dev with the gold sentence boundaries preset")
    ap.add_argument("--own-segments", action="store_true",
                    help="with --gold-sents: also score dev with the parser's own sentence "
                         "boundaries (LAS_own, sentence F1 sent_F1)")
    ap.add_argument("--option", action="append", default=[],
                    help="KEY=VALUE set under components.parser of every dynoracle run, "
                         "repeatable (e.g. system_options.target=static)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--output", type=Path, default=REPO / "training" / "compare")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    from spacy_dynoracle.evaluate import evaluate_pipeline
    from spacy_dynoracle.options import parse_options

    parsed_options = parse_options(args.option)
    options = {f"components.parser.{k}": v for k, v in parsed_options.items()}
    tag = "".join(f" {k}={v}" for k, v in parsed_options.items())

    train, dev = treebank_files(args.treebank)
    runs = [] if args.no_spacy_parser else [("spacy parser", "spacy_parser.cfg", {})]
    for spec in filter(None, args.oracles.split(",")):     # --oracles "": spaCy's parser only
        # "oracle+lift": train on spaCy's pseudo-projective lifting of the gold, whatever
        # the oracle's default (e.g. dynamic+lift for arc_eager, issue 7)
        oracle, _, lift = spec.partition("+")
        system, _, oracle = oracle.rpartition(":")
        system = system or args.system
        overrides = {"components.parser.transition_system": system,
                     "components.parser.oracle": oracle, **options}
        if lift == "lift":
            overrides["components.parser.projectivize"] = True
        elif lift:
            raise SystemExit(f"unknown suffix in {spec!r}; use ORACLE or ORACLE+lift")
        runs.append((f"{system} {spec.rpartition(':')[2]}{tag}", "dynoracle.cfg", overrides))
    rows = []
    for seed in [int(s) for s in args.seeds.split(",")]:
        for name, config, overrides in runs:
            out = args.output / args.treebank / f"{name.replace(' ', '_')}-s{seed}"
            start = time.time()
            model = train_pipeline(config, out, train, dev, {
                **overrides, "training.max_epochs": args.epochs, "system.seed": seed,
                **({"paths.train_select": args.train_select} if args.train_select != "all" else {}),
                "training.eval_frequency": 10**6})
            seconds = time.time() - start
            nlp = spacy.load(model)
            scores = evaluate_pipeline(nlp, dev or train, select="all" if dev else "tail:0.1",
                                       gold_sents=args.gold_sents)
            row = {"treebank": args.treebank, "model": name, "seed": seed, "train_s": round(seconds),
                   "UAS": scores["UAS"]["f1"], "LAS": scores["LAS"]["f1"], "CLAS": scores["CLAS"]["f1"],
                   "NP_arc_R": scores["NonProjArcs"]["recall"], "NP_arc_P": scores["NonProjArcs"]["precision"]}
            if args.own_segments and args.gold_sents:
                own = evaluate_pipeline(nlp, dev or train, select="all" if dev else "tail:0.1")
                row["LAS_own"] = own["LAS"]["f1"]
                row["sent_F1"] = own["Sentences"]["f1"]
            elif not args.gold_sents:
                row["sent_F1"] = scores["Sentences"]["f1"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    segments = "gold sentences" if args.gold_sents else "parser segments"
    print(f"\n{args.treebank}, {args.epochs} epochs, train {args.train_select}, dev ({segments}, gold words)")
    print(f"{'model':24}{'seed':>5}{'UAS':>8}{'LAS':>8}{'CLAS':>8}{'NP-arc R':>10}{'train s':>9}"
          f"{'LAS own':>9}{'sent F1':>9}")
    for r in rows:
        np_r = "-" if r["NP_arc_R"] is None else f"{r['NP_arc_R']:.2f}"
        own = "".join(f"{r[k]:>9.2f}" if k in r else f"{'-':>9}" for k in ("LAS_own", "sent_F1"))
        print(f"{r['model']:24}{r['seed']:>5}{r['UAS']:>8.2f}{r['LAS']:>8.2f}{r['CLAS']:>8.2f}{np_r:>10}{r['train_s']:>9}{own}")
    if args.json:
        write_json(args.json, rows)


if __name__ == "__main__":
    main()
