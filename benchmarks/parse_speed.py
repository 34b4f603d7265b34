"""Parse speed of dynoracle_parser / spaCy's own parser, same model config, one run.

Both pipelines are trained briefly with spaCy's training loop from configs/ (identical
tok2vec and parser model settings), then parse the same documents in interleaved,
repeated timings. Prints words/s (full pipeline and parser step alone) and the ratios.

    python benchmarks/parse_speed.py --treebank UD_Hungarian-Szeged --epochs 1
"""
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import spacy
from spacy.tokens import Doc

from common import train_pipeline, treebank_files


def time_parser(nlp, docs, parser_only):
    docs = [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]) for d in docs]
    if parser_only:
        for name, proc in nlp.pipeline:
            if name != "parser":
                docs = list(proc.pipe(docs, batch_size=256))
        start = time.perf_counter()
        list(nlp.get_pipe("parser").pipe(docs, batch_size=256))
    else:
        start = time.perf_counter()
        list(nlp.pipe(docs, batch_size=256))
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--system", default="arc_hybrid")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    train, dev = treebank_files(args.treebank)
    from spacy_dynoracle.conllu_io import read_conllu, sentences_to_docs

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        common = {"training.max_epochs": args.epochs, "training.eval_frequency": 10**6}
        pipes = {
            "spacy parser": train_pipeline("spacy_parser.cfg", tmp / "stock", train, dev, common),
            f"dynoracle {args.system}": train_pipeline(
                "dynoracle.cfg", tmp / "dyn", train, dev,
                {**common, "components.parser.transition_system": args.system}),
        }
        nlps = {name: spacy.load(path) for name, path in pipes.items()}
        vocab = next(iter(nlps.values())).vocab
        docs = list(sentences_to_docs(vocab, read_conllu(dev or train), n_sents=10))
        n_words = sum(len(d) for d in docs)
        results = {}
        for parser_only in (False, True):
            times = {name: [] for name in nlps}
            for name, nlp in nlps.items():  # warm-up
                time_parser(nlp, docs[:20], parser_only)
            for _ in range(args.reps):  # interleaved
                for name, nlp in nlps.items():
                    times[name].append(time_parser(nlp, docs, parser_only))
            key = "parser step" if parser_only else "full pipeline"
            results[key] = {name: [n_words / t for t in ts] for name, ts in times.items()}
    names = list(nlps)
    print(f"{n_words} words, {len(docs)} docs, {args.reps} interleaved repetitions (median, min-max words/s)")
    print(f"{'':15} " + "".join(f"{n:>28}" for n in names) + f"{'ratio dyn/spacy':>18}")
    for key, res in results.items():
        cells = []
        for n in names:
            w = res[n]
            cells.append(f"{statistics.median(w):>12,.0f} ({min(w):,.0f}-{max(w):,.0f})")
        ratio = statistics.median(res[names[1]]) / statistics.median(res[names[0]])
        print(f"{key:15} " + "".join(f"{c:>28}" for c in cells) + f"{ratio:>18.3f}")
        results[key]["ratio"] = ratio
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
