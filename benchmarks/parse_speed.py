"""Parse speed of every transition system of the package ÷ spaCy's own parser, same model
config, one run.

Each pipeline (one per registered system, from spacy_dynoracle.SYSTEMS, and spaCy's
`parser`) is trained briefly with spaCy's training loop from configs/ (identical tok2vec
and parser model settings), then all parse the same documents in interleaved, repeated
timings. Prints words/s (full pipeline and parser step alone; median and min-max over the
repetitions) and each system's ratio to spaCy's parser.

    python benchmarks/parse_speed.py --treebank UD_Hungarian-Szeged --epochs 1
    python benchmarks/parse_speed.py --system arc_hybrid          # one system only
    python benchmarks/parse_speed.py --system lr_spine,attardi,swap \
        --features lr_spine=spine,attardi=attardi,swap=swap --python-loop

Every system of SYSTEMS and LIST_SYSTEMS (easy_first, with the model its class names:
EasyFirstModel.v1) is timed. --curve also times the parser step per Doc of one sentence of
n words (the dev words cut into Docs of n words, no preset boundaries) for n up to 200:
the cost per sentence against its length, in the same run, for every pipeline.

    python benchmarks/parse_speed.py --system easy_first --curve 10,25,50,100,200

--features SYSTEM=TEMPLATE trains that system with spacy_dynoracle.SpineParserModel.v1 and
the feature template (state_features.pyx); --python-loop adds, for each of these, a row
parsing the same trained model with the Python step loop (testing.python_step_loop) that
the package used before its C loop, so that both loops are timed in one run.
"""
import argparse
import statistics
import tempfile
import time
from pathlib import Path

import spacy
from spacy.tokens import Doc

from common import (csv_list, registered_systems, summary, train_pipeline, treebank_files,
                    write_json)


def time_parser(nlp, docs, parser_only):
    docs = [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]) for d in docs]
    if parser_only:
        for name, proc in nlp.pipeline:
            if name != "parser":
                docs = list(proc.pipe(docs, batch_size=256))
        start, cpu = time.perf_counter(), time.process_time()
        list(nlp.get_pipe("parser").pipe(docs, batch_size=256))
    else:
        start, cpu = time.perf_counter(), time.process_time()
        list(nlp.pipe(docs, batch_size=256))
    return time.perf_counter() - start, time.process_time() - cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--system", "--systems", dest="systems", default="",
                    help="comma-separated systems (default: every registered one)")
    ap.add_argument("--oracle", default="dynamic", help="oracle used for the brief training")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=40, help="training Examples per epoch (0 = all)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="process CPU time (robust on a shared machine; default) or wall-clock time")
    ap.add_argument("--features", default="", metavar="SYSTEM=TEMPLATE,...",
                    help="train these systems with SpineParserModel.v1 and the feature template")
    ap.add_argument("--python-loop", action="store_true",
                    help="also time each --features pipeline with the Python step loop")
    ap.add_argument("--curve", default="", metavar="N,N,...",
                    help="also time the parser step per Doc of n words for these lengths")
    ap.add_argument("--curve-docs", type=int, default=20, help="Docs per length of --curve")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    templates = dict(item.split("=", 1) for item in csv_list(args.features) or [])
    train, dev = treebank_files(args.treebank)
    from spacy_dynoracle.conllu_io import read_conllu, sentences_to_docs

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        common = {"training.max_epochs": args.epochs, "training.eval_frequency": 10**6,
                  "corpora.train.limit": args.limit, "corpora.dev.limit": 2}
        pipes = {"spacy parser": train_pipeline("spacy_parser.cfg", tmp / "stock", train, dev, common)}
        for name, cls in registered_systems(csv_list(args.systems), list_systems=True):
            oracle = args.oracle if args.oracle in cls.oracles else cls.oracles[0]
            model = {}
            if getattr(cls, "model_architecture", None):     # easy_first's pair scorer
                model = {"components.parser.model.@architectures": cls.model_architecture}
            if name in templates:
                model = {"components.parser.model.@architectures":
                         "spacy_dynoracle.SpineParserModel.v1",
                         "components.parser.model.feature_template": templates[name]}
            pipes[name] = train_pipeline("dynoracle.cfg", tmp / name, train, dev, {
                **common, "components.parser.transition_system": name,
                "components.parser.oracle": oracle, **model})
        nlps = {name: spacy.load(path) for name, path in pipes.items()}
        if args.python_loop:
            from spacy_dynoracle.testing import python_step_loop

            for name in [n for n in pipes if n in templates]:
                nlp = nlps[f"{name} (python loop)"] = spacy.load(pipes[name])
                parser = nlp.get_pipe("parser")
                parser.greedy_parse = lambda docs, drop=0.0, parser=parser: \
                    python_step_loop(parser, docs)
        vocab = next(iter(nlps.values())).vocab
        docs = list(sentences_to_docs(vocab, read_conllu(dev or train), n_sents=10))
        n_words = sum(len(d) for d in docs)
        results, raw = {}, {}
        for parser_only in (False, True):
            times = {name: [] for name in nlps}
            for name, nlp in nlps.items():  # warm-up
                time_parser(nlp, docs[:20], parser_only)
            for _ in range(args.reps):  # interleaved
                for name, nlp in nlps.items():
                    times[name].append(time_parser(nlp, docs, parser_only))
            key = "parser step" if parser_only else "full pipeline"
            clock = 1 if args.clock == "cpu" else 0
            results[key] = {name: [n_words / t[clock] for t in ts] for name, ts in times.items()}
            raw[key] = {name: {"wall_s": [t[0] for t in ts], "cpu_s": [t[1] for t in ts]}
                        for name, ts in times.items()}
        curve = length_curve(nlps, docs, [int(n) for n in csv_list(args.curve) or []],
                             args.curve_docs, args.reps, 1 if args.clock == "cpu" else 0)
    names = list(nlps)
    print(f"{args.treebank}: {n_words} words, {len(docs)} docs, {args.reps} interleaved "
          f"repetitions; words/s by {args.clock} time, median (min-max); ratio = median / "
          f"spaCy parser's median")
    print(f"{'system':16}" + "".join(f"{k:>34}{'ratio':>8}" for k in results))
    table = {}
    for n in names:
        cells = ""
        for key, res in results.items():
            w = res[n]
            ratio = statistics.median(w) / statistics.median(res["spacy parser"])
            cells += f"{statistics.median(w):>14,.0f} ({min(w):>7,.0f}-{max(w):>7,.0f})  {ratio:>8.3f}"
            table.setdefault(n, {})[key] = {"words_per_s": summary(w), "ratio": ratio,
                                            "ratio_min_max": [min(w) / max(res["spacy parser"]),
                                                              max(w) / min(res["spacy parser"])]}
        print(f"{n:16}{cells}")
    if curve:
        print(f"\nparser step per Doc of n words (one sentence, no preset boundaries), ms, "
              f"median of {args.reps}; ratio = / spaCy parser")
        print(f"{'n':>5}" + "".join(f"{name:>22}" for name in names))
        for n, row in curve.items():
            base = row["spacy parser"]
            print(f"{n:>5}" + "".join(f"{row[name]:>12.2f} ({row[name] / base:>6.2f})"
                                      for name in names))
    if args.json:
        write_json(args.json, {"treebank": args.treebank, "words": n_words,
                               "reps": args.reps, "clock": args.clock,
                               "results": table, "times": raw,
                               "ms_per_doc_by_length": curve})


def length_curve(nlps, docs, lengths, n_docs, reps, clock):
    """{n: {pipeline: median ms of the parser step per Doc of n words}}: the dev words cut
    into n_docs Docs of n words each, timed interleaved like the main table."""
    words = [t.text for d in docs for t in d]
    curve = {}
    for n in lengths:
        if n * n_docs > len(words):
            raise SystemExit(f"--curve {n}: {n_docs} Docs of {n} words need {n * n_docs} "
                             f"words, the dev data has {len(words)}")
        cut = [words[i * n:(i + 1) * n] for i in range(n_docs)]
        times = {name: [] for name in nlps}
        for _ in range(reps):
            for name, nlp in nlps.items():
                times[name].append(time_parser(nlp, [Doc(nlp.vocab, words=w) for w in cut],
                                               True)[clock])
        curve[n] = {name: 1000 * statistics.median(t) / n_docs for name, t in times.items()}
    return curve


if __name__ == "__main__":
    main()
