"""Oracle time per parser state, p50 / p99 / max, per transition system and oracle, on
real sentences.

States are those training visits: for each sentence (one per Doc) the system's state is
driven to the end, following at each step a zero-cost move (the oracle) or, with
probability --p-random, a random valid move, so off-gold states are included. Each state
is timed through the path training uses, `moves.step_batch` on a batch of one state
(costs of every labelled class via set_costs' class_costs, spaCy's log loss, the move),
and separately through `_sim_class_costs` (set_costs alone plus Python lists).

    python benchmarks/oracle_time.py --treebank UD_Hungarian-Szeged --sentences 300
"""
import argparse
import gc
import json
import random
import time
from pathlib import Path

import numpy

from common import (build_nlp, csv_list, load_examples, registered_systems, system_overrides,
                    treebank_files)


def percentiles(ns):
    a = numpy.asarray(ns, dtype=numpy.float64) / 1000.0   # microseconds
    return {"p50_us": float(numpy.percentile(a, 50)), "p99_us": float(numpy.percentile(a, 99)),
            "max_us": float(a.max()), "mean_us": float(a.mean()), "states": int(a.size)}


def walk(moves, examples, p_random, rng, max_seconds):
    n = moves.n_moves
    step_ns, cost_ns, lengths = [], [], []
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
            # set_costs alone (normalised class costs), the Simulator's access path
            t0 = time.perf_counter_ns()
            moves._sim_class_costs(state, gold)
            cost_ns.append(time.perf_counter_ns() - t0)
            # the training step: costs once, loss, and the move (oracle or random)
            scores = numpy.asarray(rng.random((1, n)), dtype="f")
            d_scores = numpy.zeros((1, n), dtype="f")
            follow = numpy.asarray([0 if rng.random() < p_random else 1], dtype=numpy.uint8)
            t0 = time.perf_counter_ns()
            moves.step_batch([state], [gold], scores, d_scores, follow, seen)
            step_ns.append(time.perf_counter_ns() - t0)
            lengths.append(len(eg.reference))
    return step_ns, cost_ns, lengths


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--systems", default="", help="comma-separated (default: every registered one)")
    ap.add_argument("--sentences", type=int, default=300, help="dev (or test) sentences, one per Doc")
    ap.add_argument("--p-random", type=float, default=0.3, help="probability of a random valid move")
    ap.add_argument("--max-seconds", type=float, default=60.0, help="time budget per system x oracle")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    train, dev = treebank_files(args.treebank)
    sents = load_examples(dev or train, select="all" if dev else "tail:0.1", n_sents=1,
                          limit=args.sentences)
    n_words = sum(len(eg.reference) for eg in sents)
    print(f"{args.treebank}: {len(sents)} sentences ({n_words} words, max length "
          f"{max(len(eg.reference) for eg in sents)}), p_random={args.p_random}; microseconds per state")
    print(f"{'system':14}{'oracle':16}{'states':>8}{'step p50':>10}{'p99':>9}{'max':>10}"
          f"{'costs p50':>11}{'p99':>9}{'max':>10}")
    out = []
    for name, cls in registered_systems(csv_list(args.systems)):
        for oracle in cls.oracles:
            try:
                nlp = build_nlp("dynoracle.cfg", train, system_overrides(name, oracle))
            except Exception as err:
                print(f"# {name} {oracle}: {err!r}")
                continue
            moves = nlp.get_pipe("parser").moves
            sents = load_examples(dev or train, select="all" if dev else "tail:0.1", n_sents=1,
                                  limit=args.sentences, vocab=nlp.vocab)
            rng = numpy.random.default_rng(args.seed)
            gc.collect()
            gc.disable()    # no collector pauses inside the timings
            try:
                step_ns, cost_ns, lengths = walk(moves, sents, args.p_random, rng, args.max_seconds)
            except Exception as err:
                gc.enable()
                print(f"# {name} {oracle}: {err!r}")
                out.append({"system": name, "oracle": oracle, "error": repr(err)})
                continue
            gc.enable()
            step, cost = percentiles(step_ns), percentiles(cost_ns)
            worst = int(numpy.argmax(step_ns))
            print(f"{name:14}{oracle:16}{step['states']:>8}{step['p50_us']:>10.1f}{step['p99_us']:>9.1f}"
                  f"{step['max_us']:>10.1f}{cost['p50_us']:>11.1f}{cost['p99_us']:>9.1f}{cost['max_us']:>10.1f}")
            out.append({"system": name, "oracle": oracle, "step_batch": step, "set_costs": cost,
                        "n_classes": moves.n_moves, "max_at_sentence_length": lengths[worst]})
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"treebank": args.treebank, "sentences": len(sents),
                                         "words": n_words, "p_random": args.p_random,
                                         "results": out}, indent=2))


if __name__ == "__main__":
    main()
