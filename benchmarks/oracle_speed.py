"""Oracle time per state on every training sentence of UD treebanks, for any registered
transition system (by name), with states reached by a mix of oracle and random moves.

Each training sentence (one per Doc) is walked from the initial state to the end; at each
state the training step `moves.step_batch` (costs of every class once, spaCy's log loss, the
move) is timed; the move followed is a zero-cost one, or with probability --p-random the
best of random scores among the valid ones (a "mistake"). Prints states/s and p50/p99/max
time per state, and the system's own oracle counters when it has them (`oracle_stats()`,
e.g. attardi: states per oracle path, documents covered/uncovered).

    python benchmarks/oracle_speed.py --systems attardi --option degree=2
    python benchmarks/oracle_speed.py --systems attardi,arc_hybrid --treebanks UD_Hungarian-Szeged

UD_ROOT overrides the location of the treebanks (default ../shared/ud).
"""
import argparse
import gc
import json
import time
from pathlib import Path

import numpy

from common import parse_option_value, treebank_files

TREEBANKS = "UD_Latin-Perseus,UD_Hungarian-Szeged,UD_English-EWT"


def read_examples(path, vocab, limit=0):
    """One Example per training sentence (gold tree as reference, words only as predicted),
    read with spacy_dynoracle.conllu_io.read_conllu."""
    from spacy.tokens import Doc
    from spacy.training import Example

    from spacy_dynoracle.conllu_io import read_conllu

    out = []
    for sent in read_conllu(path, on_error="skip"):
        words = [w.form for w in sent.words]
        heads = [(w.head - 1) if w.head else i for i, w in enumerate(sent.words)]
        deps = [w.deprel if w.head else "ROOT" for w in sent.words]
        ref = Doc(vocab, words=words, heads=heads, deps=deps)
        out.append(Example(Doc(vocab, words=words), ref))
        if limit and len(out) >= limit:
            break
    return out


def walk(moves, examples, p_random, rng, max_seconds):
    n = moves.n_moves
    times, lengths = [], []
    seen = numpy.zeros((n,), dtype=numpy.uint8)
    deadline = time.time() + max_seconds
    for eg in examples:
        if time.time() > deadline:
            break
        states, golds, _ = moves.init_gold_batch([eg])
        if not states:
            continue
        state, gold = states[0], golds[0]
        while not state.is_final():
            scores = numpy.asarray(rng.random((1, n)), dtype="f")
            d_scores = numpy.zeros((1, n), dtype="f")
            follow = numpy.asarray([0 if rng.random() < p_random else 1], dtype=numpy.uint8)
            t0 = time.perf_counter_ns()
            moves.step_batch([state], [gold], scores, d_scores, follow, seen)
            times.append(time.perf_counter_ns() - t0)
            lengths.append(len(eg.reference))
    return times, lengths


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", default="attardi", help="comma-separated registered names")
    ap.add_argument("--treebanks", default=TREEBANKS)
    ap.add_argument("--oracle", default="dynamic")
    ap.add_argument("--option", action="append", default=[],
                    help="system option KEY=VALUE (e.g. degree=3), repeatable")
    ap.add_argument("--p-random", type=float, default=0.1, help="probability of a random move")
    ap.add_argument("--limit", type=int, default=0, help="sentences per treebank (0 = all)")
    ap.add_argument("--max-seconds", type=float, default=600.0, help="time budget per run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    from spacy.vocab import Vocab

    from spacy_dynoracle import get_system_class

    options = dict(kv.split("=", 1) for kv in args.option)
    options = {k: parse_option_value(v) for k, v in options.items()}
    results = []
    print(f"p_random={args.p_random}, oracle={args.oracle}, options={options}; times per state "
          "of moves.step_batch (costs + loss + move)")
    print(f"{'treebank':22}{'system':12}{'sents':>7}{'states':>9}{'states/s':>10}{'p50 us':>9}"
          f"{'p99 us':>9}{'max ms':>9}{'>50ms':>7}")
    for tb in args.treebanks.split(","):
        train, _ = treebank_files(tb)
        for name in args.systems.split(","):
            cls = get_system_class(name)
            opts = {k: v for k, v in options.items() if k in cls.options}
            vocab = Vocab()
            examples = read_examples(train, vocab, args.limit)
            moves = cls(vocab.strings, oracle=args.oracle, **opts)
            moves.initialize_actions(moves.get_actions(examples=examples, min_freq=30))
            rng = numpy.random.default_rng(args.seed)
            gc.collect()
            gc.disable()
            t0 = time.time()
            times, lengths = walk(moves, examples, args.p_random, rng, args.max_seconds)
            wall = time.time() - t0
            gc.enable()
            a = numpy.asarray(times, dtype=numpy.float64) / 1000.0
            row = {"treebank": tb, "system": name, "options": opts, "sentences": len(examples),
                   "states": int(a.size), "states_per_s": a.size / (a.sum() / 1e6),
                   "p50_us": float(numpy.percentile(a, 50)), "p99_us": float(numpy.percentile(a, 99)),
                   "max_ms": float(a.max() / 1000), "over_50ms": int((a > 50000).sum()),
                   "wall_s": wall, "max_at_length": lengths[int(a.argmax())]}
            if hasattr(moves, "oracle_stats"):
                row["oracle_stats"] = moves.oracle_stats()
            results.append(row)
            print(f"{tb:22}{name:12}{len(examples):>7}{a.size:>9}{row['states_per_s']:>10.0f}"
                  f"{row['p50_us']:>9.1f}{row['p99_us']:>9.1f}{row['max_ms']:>9.2f}{row['over_50ms']:>7}")
            if "oracle_stats" in row:
                print(f"    {row['oracle_stats']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"p_random": args.p_random, "results": results}, indent=2))


if __name__ == "__main__":
    main()
