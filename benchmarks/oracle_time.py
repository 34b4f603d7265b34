"""Oracle time per parser state on real sentences, per transition system and oracle:
states/s and p50 / p99 / max time per state, states over 50 ms, the system's own oracle
counters, and (optionally) how often another oracle's zero-cost set differs.

States are those training visits. The sentences of a treebank split are grouped into Docs of
--n-sents sentences, as spaCy trains on them (spacy_dynoracle.ConlluCorpus.v1, 10 by
default; gold roots point to themselves), and each Doc is walked from the initial state to the
end: at each state the training step `moves.step_batch` on a batch of one state (costs of every
labelled class once, spaCy's log loss, the move) is timed, and the walk follows a zero-cost
move (the oracle) or, with probability --p-random, the best of random scores among the valid
moves (a model's mistake), so off-gold states are included. With --reps R each state is timed
on R copies and the fastest kept (on a shared machine one timing mostly measures preemption).

    python benchmarks/oracle_time.py --treebanks UD_Hungarian-Szeged --limit 300
    python benchmarks/oracle_time.py --systems attardi --option degree=3 \\
        --treebanks UD_Latin-Perseus,UD_Hungarian-Szeged,UD_English-EWT
    python benchmarks/oracle_time.py --systems arc_eager,arc_hybrid --oracles dynamic \\
        --agree goldberg-nivre --treebanks UD_Latin-Perseus     # G&N vs the exact oracle

With --model DIR the states are those a trained pipeline visits while it explores: its
system, oracle and labels, its scores at each state (tok2vec run on each Doc), and the walk
follows the model's best valid move with probability --p-random (0.9 = training's default
exploration) instead of random scores; --systems/--oracles do not apply, --option does (the
system options of the model's system, e.g. `--option tail_memo=false` for swap).

    python benchmarks/oracle_time.py --model training/lr_spine-dynamic/model-best --p-random 0.9 --reps 3

--clock cpu times each state by the thread's CPU time instead of the wall clock: on a loaded
machine a niced process is preempted inside single states, which the wall clock counts
(attardi's 54-136 ms states of docs/systems/attardi.md took 5 ms of CPU). --slowest K prints
where the K slowest states are (Doc, step = the state's index in that Doc's walk, stack
depth, buffer length, the system's last oracle path and cells when it counts them).

    python benchmarks/oracle_time.py --model training/attardi-dynamic/model-last --p-random 0.9 \\
        --reps 3 --clock cpu --slowest 8

UD_ROOT overrides the location of the treebanks (default ../shared/ud).
"""
import argparse
import gc
import time
from pathlib import Path

import numpy

from common import (build_nlp, csv_list, load_examples, load_trained, registered_systems,
                    system_overrides, treebank_files, write_json)
from spacy_dynoracle.options import parse_options

TREEBANKS = "UD_Hungarian-Szeged"


def zero_set(valid, costs):
    return frozenset(i for i, (v, c) in enumerate(zip(valid, costs)) if v and c <= 0)


def has_crossing(doc) -> bool:
    """Whether a gold Doc has a non-projective arc."""
    from spacy_dynoracle.trees import is_projective

    return not is_projective([0 if t.head.i == t.i else t.head.i + 1 for t in doc])


LENGTH_BUCKETS = ((1, 30), (31, 100), (101, 10**9))   # words of the state's sentence


def sentence_lengths(doc):
    """Per token, the number of words of its gold sentence."""
    out = numpy.zeros((len(doc),), dtype=numpy.int64)
    for sent in doc.sents:
        out[sent.start:sent.end] = len(sent)
    return out


def walk(moves, examples, args, rng, other=None, nlp=None):
    """Time every state of every Doc; returns per-state times (ns), whether the state's Doc
    has non-projective gold, the length of the state's gold sentence (b0's, or s0's when
    the buffer is empty), the agreement counts with `other` (a second system) and per state
    where it is (Doc index, step = the state's index in its Doc's walk, stack depth, buffer
    length, the system's `last_oracle_path` and `last_oracle_cells` if it has them). With
    `nlp` (a trained pipeline whose parser owns `moves`) the scores are the model's."""
    n = moves.n_moves
    seen = numpy.zeros((n,), dtype=numpy.uint8)
    clock = time.thread_time_ns if args.clock == "cpu" else time.perf_counter_ns
    times, in_np, lens = [], [], []
    where = []      # per state: (Doc index, step, stack depth, buffer length, oracle path, cells)
    agree = {"states": 0, "zero_set_differs": 0, "costs_differ": 0,
             "np_states": 0, "np_zero_set_differs": 0, "np_costs_differ": 0}
    deadline = time.time() + args.max_seconds
    for doc_i, eg in enumerate(examples):
        if time.time() > deadline:
            break
        states, golds, _ = moves.init_gold_batch([eg])
        if not states:
            continue
        state, gold = states[0], golds[0]
        np_doc = has_crossing(eg.reference)
        step_model = model_scorer(nlp, eg.predicted) if nlp is not None else None
        gold2 = other.init_gold_batch([eg])[1][0] if other is not None else None
        sent_len = sentence_lengths(eg.reference)
        step = 0
        while not state.is_final():
            front = state.B(0) if state.buffer_length() > 0 else state.S(0)
            where.append([doc_i, step, state.stack_depth(), state.buffer_length(), None, None])
            step += 1
            lens.append(int(sent_len[front]) if 0 <= front < len(sent_len) else 0)
            if other is not None:
                valid, a = moves._sim_class_costs(state, gold)
                _, b = other._sim_class_costs(state, gold2)
                zs = zero_set(valid, a) != zero_set(valid, b)
                cs = any(v and x != y for v, x, y in zip(valid, a, b))
                agree["states"] += 1
                agree["zero_set_differs"] += zs
                agree["costs_differ"] += cs
                if np_doc:   # Docs with non-projective gold (with --n-sents 1: NP sentences)
                    agree["np_states"] += 1
                    agree["np_zero_set_differs"] += zs
                    agree["np_costs_differ"] += cs
            if step_model is not None:
                scores = numpy.ascontiguousarray(step_model.predict([state]), dtype="f")
            else:
                scores = numpy.asarray(rng.random((1, n)), dtype="f")
            d_scores = numpy.zeros((1, n), dtype="f")
            follow = numpy.asarray([0 if rng.random() < args.p_random else 1], dtype=numpy.uint8)
            best = None
            for _ in range(args.reps - 1):
                copy = state.copy()
                t0 = clock()
                moves.step_batch([copy], [gold], scores, d_scores.copy(), follow, seen)
                t = clock() - t0
                best = t if best is None else min(best, t)
            t0 = clock()
            moves.step_batch([state], [gold], scores, d_scores, follow, seen)
            t = clock() - t0
            times.append(t if best is None else min(best, t))
            in_np.append(np_doc)
            where[-1][4] = getattr(moves, "last_oracle_path", None)
            where[-1][5] = getattr(moves, "last_oracle_cells", None)
        if step_model is not None:
            step_model.clear_memory()
    return times, in_np, lens, agree, where


def model_scorer(nlp, doc):
    """The parser's step model on `doc` after the pipes before the parser (its tok2vec)."""
    for name, pipe in nlp.pipeline:
        if name == "parser":
            break
        doc = pipe(doc)
    return nlp.get_pipe("parser").model.predict([doc])


def stats(times_ns):
    a = numpy.asarray(times_ns, dtype=numpy.float64) / 1000.0   # microseconds
    if not a.size:
        return {"states": 0}
    return {"states": int(a.size), "states_per_s": float(a.size / (a.sum() / 1e6)),
            "p50_us": float(numpy.percentile(a, 50)), "p99_us": float(numpy.percentile(a, 99)),
            "max_ms": float(a.max() / 1000), "over_50ms": int((a > 50000).sum())}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebanks", default=TREEBANKS, help="comma-separated UD folder names")
    ap.add_argument("--treebank", dest="treebanks", help=argparse.SUPPRESS)   # older spelling
    ap.add_argument("--split", default="train", choices=["train", "dev"],
                    help="which sentences (dev = the dev file, or the last 10%% of train)")
    ap.add_argument("--limit", type=int, default=0, help="sentences per treebank (0 = all)")
    ap.add_argument("--sentences", dest="limit", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--n-sents", type=int, default=10, help="sentences per Doc (training uses 10)")
    ap.add_argument("--min-sent-len", type=int, default=0,
                    help="only the Docs holding a sentence of at least this many words (--limit "
                         "then counts the sentences of those Docs)")
    ap.add_argument("--systems", default="", help="comma-separated (default: every registered one)")
    ap.add_argument("--oracles", default="", help="comma-separated (default: each system's oracles)")
    ap.add_argument("--option", action="append", default=[],
                    help="system option KEY=VALUE for the systems that have it (e.g. degree=3), repeatable")
    ap.add_argument("--agree", default="",
                    help="also count the states where this other oracle's zero-cost set differs")
    ap.add_argument("--p-random", type=float, default=0.1,
                    help="probability of a random (mistaken) move; with --model, of the model's move")
    ap.add_argument("--model", type=Path,
                    help="a trained pipeline: walk with its scores (see above)")
    ap.add_argument("--reps", type=int, default=1, help="time each state on this many copies, keep the fastest")
    ap.add_argument("--max-seconds", type=float, default=600.0, help="time budget per treebank x system x oracle")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="wall-clock time per state (default) or the thread's CPU time (not "
                         "inflated by preemption on a loaded machine)")
    ap.add_argument("--slowest", type=int, default=0,
                    help="print the K slowest states (Doc, step in its walk, stack, buffer, oracle path)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    options = parse_options(args.option)
    only_oracles = csv_list(args.oracles)
    print(f"Docs of {args.n_sents} sentences"
          + (f" holding one of >= {args.min_sent_len} words" if args.min_sent_len else "")
          + f", p_random={args.p_random}, reps={args.reps}, clock={args.clock}"
          + (f", model {args.model} (p_random: its move)" if args.model else "") + "; "
          "time per state of moves.step_batch (costs of every class, loss, move)", flush=True)
    print(f"{'treebank':22}{'system':13}{'oracle':15}{'states':>8}{'states/s':>10}{'p50 us':>9}"
          f"{'p99 us':>9}{'max ms':>9}{'>50ms':>6}{'NP-doc p99':>11}", flush=True)
    results = []
    for tb in csv_list(args.treebanks):
        train, dev = treebank_files(tb)
        path, select = (train, "all") if args.split == "train" else (dev or train, "all" if dev else "tail:0.1")
        if args.model:
            trained, name, oracle = load_trained(args.model, options=options)
            runs = [(name, type(trained.get_pipe("parser").moves), [oracle])]
        else:
            trained = None
            runs = [(name, cls, cls.oracles) for name, cls in registered_systems(csv_list(args.systems))]
        for name, cls, oracles in runs:
            opts = {k: v for k, v in options.items() if k in getattr(cls, "options", {})}
            for oracle in oracles:
                if only_oracles and oracle not in only_oracles and trained is None:
                    continue
                try:
                    nlp = trained or build_nlp("dynoracle.cfg", train, system_overrides(name, oracle, **opts))
                except Exception as err:
                    print(f"# {tb} {name} {oracle}: {err!r}", flush=True)
                    continue
                moves = nlp.get_pipe("parser").moves
                other = None
                if args.agree and args.agree in cls.oracles and args.agree != oracle:
                    nlp2 = build_nlp("dynoracle.cfg", train, system_overrides(name, args.agree, **opts))
                    other = nlp2.get_pipe("parser").moves
                    if [other.get_class_name(i) for i in range(other.n_moves)] != [moves.get_class_name(i) for i in range(moves.n_moves)]:
                        raise SystemExit(f"{name}: {oracle} and {args.agree} pipelines have different classes")
                examples = load_examples(path, select=select, n_sents=args.n_sents, vocab=nlp.vocab,
                                         limit=-(-args.limit // args.n_sents) if args.limit else 0,
                                         min_sent_len=args.min_sent_len)
                rng = numpy.random.default_rng(args.seed)
                gc.collect()
                gc.disable()    # no collector pauses inside the timings
                t0 = time.time()
                try:
                    times, in_np, lens, agree, where = walk(moves, examples, args, rng, other,
                                                            trained)
                except Exception as err:
                    print(f"# {tb} {name} {oracle}: {err!r}", flush=True)
                    results.append({"treebank": tb, "system": name, "oracle": oracle, "error": repr(err)})
                    continue
                finally:
                    gc.enable()
                row = {"treebank": tb, "system": name, "oracle": oracle, "options": opts,
                       "model": str(args.model) if args.model else None,
                       "docs": len(examples), "sentences": sum(len(list(eg.reference.sents)) for eg in examples),
                       "wall_s": round(time.time() - t0, 1), **stats(times),
                       "np_docs": stats([t for t, np_ in zip(times, in_np) if np_]),
                       "by_sentence_length": {f"{lo}-{hi if hi < 10**9 else ''}": stats(
                           [t for t, ln in zip(times, lens) if lo <= ln <= hi])
                           for lo, hi in LENGTH_BUCKETS}}
                if hasattr(moves, "oracle_stats"):
                    row["oracle_stats"] = moves.oracle_stats()
                if other is not None:
                    row["agreement"] = {"oracle": args.agree, **agree}
                results.append(row)
                if not row["states"]:
                    print(f"{tb:22}{name:13}{oracle:15}{0:>8}", flush=True)
                    continue
                print(f"{tb:22}{name:13}{oracle:15}{row['states']:>8}{row['states_per_s']:>10.0f}"
                      f"{row['p50_us']:>9.1f}{row['p99_us']:>9.1f}{row['max_ms']:>9.2f}{row['over_50ms']:>6}"
                      f"{row['np_docs'].get('p99_us', float('nan')):>11.1f}", flush=True)
                for bucket, st in row["by_sentence_length"].items():
                    if st["states"]:
                        print(f"    sentence of {bucket:8} words: {st['states']:>7} states, p50 "
                              f"{st['p50_us']:.1f} us, p99 {st['p99_us']:.1f} us, max {st['max_ms']:.2f} ms, "
                              f">50ms {st['over_50ms']}", flush=True)
                if "oracle_stats" in row:
                    print(f"    {row['oracle_stats']}", flush=True)
                if args.slowest:
                    slow = sorted(range(len(times)), key=lambda i: -times[i])[:args.slowest]
                    row["slowest"] = [{"ms": times[i] / 1e6, "sentence_len": lens[i],
                                       **dict(zip(("doc", "step", "stack", "buffer", "path", "cells"),
                                                  where[i]))} for i in slow]
                    for r in row["slowest"]:
                        print(f"    slow: {r}", flush=True)
                if other is not None and agree["states"]:
                    print(f"    {args.agree} vs {oracle}: zero-cost set differs on "
                          f"{agree['zero_set_differs']}/{agree['states']} states "
                          f"({100 * agree['zero_set_differs'] / agree['states']:.1f}%), costs differ on "
                          f"{100 * agree['costs_differ'] / agree['states']:.1f}%"
                          + (f"; in Docs with non-projective gold {agree['np_zero_set_differs']}/{agree['np_states']} "
                             f"({100 * agree['np_zero_set_differs'] / agree['np_states']:.1f}%), costs "
                             f"{100 * agree['np_costs_differ'] / agree['np_states']:.1f}%"
                             if agree["np_states"] else ""), flush=True)
    if args.json:
        write_json(args.json, {"n_sents": args.n_sents, "p_random": args.p_random,
                               "min_sent_len": args.min_sent_len,
                               "model": str(args.model) if args.model else None,
                               "reps": args.reps, "clock": args.clock, "split": args.split,
                               "results": results})


if __name__ == "__main__":
    main()
