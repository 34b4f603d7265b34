"""Training-step time of each oracle ÷ the static oracle, per transition system (and
spaCy's parser for reference), on the same batches of real sentences.

Per registered system, one pipeline per oracle the system declares is built from
configs/dynoracle.cfg (same tok2vec and parser model, labels from the same data), its
exploration switched on (epoch past explore_after_epochs, so exploring oracles follow the
model with probability explore_prob as in training), and `nlp.update` is timed over the
same batches, interleaved between the oracles, several repetitions.

    python benchmarks/train_step.py --treebank UD_Hungarian-Szeged --batches 20 --reps 3

--variant OPTS adds, per system that has the options, one more pipeline per oracle with
those system options (e.g. `--variant exact_costs=false`), timed in the same interleaved
loop; its ratio is to the static oracle of the same variant.

    python benchmarks/train_step.py --treebank UD_Portuguese-Bosque --min-sent-len 100 \
        --systems lr_spine --oracles dynamic --batches 3 --batch-docs 2 --reps 6 \
        --variant exact_costs=false

Every pipeline of the package runs with its oracle clock on (the system's `timed`: the
thread CPU time of each call of its oracle, static or dynamic, the same for every system)
and also reports the oracle's CPU per update, the update minus it, and the ratio "by oracle
CPU" (column "oracle CPU", `ratio_by_oracle_cpu` in --json): the static update with
its oracle's CPU replaced by this pipeline's, over the static update. On this loaded machine
the update's median swings ±20% between runs, the oracle's own CPU much less, so that is the
steadier estimate of the ratio. spaCy's parser has no clock (no ratio by oracle CPU).

--model DIR starts every pipeline of its system from a trained pipeline instead (its
weights, its system; the oracle and variant options set per pipeline), so that the model
explores as a learning one does, not as an untrained one (issue 23's converged-run clause);
spaCy's parser stays the untrained reference.

    python benchmarks/train_step.py --treebank UD_Portuguese-Bosque --min-sent-len 100 \
        --systems lr_spine --oracles static,dynamic --batches 3 --batch-docs 2 --reps 3 \
        --model training/lr_spine-dynamic/model-last

--instructions DIR counts instructions per update instead of seconds: the script reruns
itself under callgrind (files in DIR), which counts only inside the `nlp.update` calls, one
pass per pipeline (no --reps: the same build and inputs give the same count whatever the
machine's load; docs/long_sentences.md, "Training update by instruction counts").

    python benchmarks/train_step.py --treebank UD_Portuguese-Bosque --systems swap \
        --oracles dynamic --batches 3 --batch-docs 2 --model M --instructions /tmp/icount
"""
import argparse
import statistics
import time
from pathlib import Path

from common import (Callgrind, build_nlp, csv_list, load_examples, load_trained,
                    registered_systems, rerun_under_callgrind, summary, system_overrides,
                    treebank_files, write_json)
from spacy_dynoracle.options import parse_options


def time_updates(nlp, batches, sgd, seed=0, meter=None):
    """Wall and CPU seconds of one update per batch; with a Callgrind `meter`, its
    instrumentation is on during each update (only). Before each update the random
    generators are seeded from (seed, batch), the same for every pipeline: `update` draws
    its segment length from Python's `random` (update_with_oracle_cut_size: uniform in
    50-200 moves) and interleaved pipelines would otherwise get different lengths, hence
    different numbers of states per update."""
    from spacy.util import fix_random_seed

    losses = {}
    wall = cpu = 0.0
    for i, batch in enumerate(batches):
        fix_random_seed(seed * 1000 + i)
        if meter:
            meter.on()
        start, cpu0 = time.perf_counter(), time.process_time()
        nlp.update(batch, sgd=sgd, losses=losses)
        wall += time.perf_counter() - start
        cpu += time.process_time() - cpu0
        if meter:
            meter.off()
    return wall, cpu


def static_reference(pipelines, name, oracle):
    """The (system, oracle) key of the reference of `oracle`'s ratios among `pipelines`: the
    system's "static" oracle (swap: static-lazy, its "static"), of the same variant; None
    without one."""
    suffix = oracle[oracle.index("["):] if "[" in oracle else ""
    ref = next((o + suffix for o in ("static", "static-lazy") if (name, o + suffix) in pipelines),
               None) or next((o for (n, o) in pipelines if n == name and o.startswith("static")
                              and (o.endswith(suffix) if suffix else "[" not in o)), None)
    return (name, ref) if ref is not None else None


def ratio_by_oracle_cpu(times, oracle_cpu, ref, key, n_updates):
    """The static update (`ref`'s median) with its oracle's CPU replaced by `key`'s, over the
    static update: `key`'s ratio to static by the oracles' own CPU (per update, oracle_cpu);
    None unless both pipelines have an oracle clock."""
    if ref is None or ref not in oracle_cpu or key not in oracle_cpu:
        return None
    static_update = statistics.median(times[ref]) / n_updates
    return (static_update - oracle_cpu[ref] + oracle_cpu[key]) / static_update


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--systems", default="", help="comma-separated (default: every registered one)")
    ap.add_argument("--oracles", default="", help="comma-separated subset (default: each system's oracles); the "
                         "static ones come along unless some are listed (e.g. dynamic,static-lazy "
                         "for swap: only its static-lazy)")
    ap.add_argument("--option", action="append", default=[],
                    help="system option KEY=VALUE for the systems that have it (e.g. degree=3), repeatable")
    ap.add_argument("--variant", action="append", default=[],
                    help="comma-separated KEY=VALUE system options: one more pipeline per oracle "
                         "of each system that has them, repeatable")
    ap.add_argument("--projectivize", choices=["true", "false"],
                    help="the component's projectivize for every pipeline of the package "
                         "(default: the config's, i.e. each system's own)")
    ap.add_argument("--batches", type=int, default=20, help="batches of --batch-docs Docs (10 sentences each)")
    ap.add_argument("--batch-docs", type=int, default=2)
    ap.add_argument("--min-sent-len", type=int, default=0,
                    help="only the Docs holding a sentence of at least this many words")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="process CPU time (robust on a shared machine; default) or wall-clock time")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--model", type=Path,
                    help="a trained pipeline: its system's pipelines start from its weights")
    ap.add_argument("--instructions", type=Path, metavar="DIR",
                    help="instructions per update by callgrind (its files in DIR), one pass "
                         "per pipeline, instead of seconds")
    ap.add_argument("--no-spacy", action="store_true",
                    help="leave spaCy's parser (the reference pipeline) out")
    args = ap.parse_args()
    meter = Callgrind.current() if args.instructions else None
    if args.instructions and meter is None:   # this process only starts the counted one
        raise SystemExit(rerun_under_callgrind(args.instructions))
    import spacy_dynoracle.parser as dynparser

    train, _ = treebank_files(args.treebank)
    n_docs = args.batches * args.batch_docs
    pipes = {} if args.no_spacy else {("spacy", "stock"): build_nlp("spacy_parser.cfg", train)}
    options = parse_options(args.option)
    only = csv_list(args.oracles)
    # the static oracles (the ratios' references) come along unless some are listed
    all_static = not any(o.startswith("static") for o in only or ())
    model_system = None
    if args.model:
        from spacy.util import load_config
        model_system = load_config(args.model / "config.cfg")["components"]["parser"][
            "transition_system"]

    def pipeline(name, oracle, opts):
        extra = ({"components.parser.projectivize": args.projectivize == "true"}
                 if args.projectivize else {})
        if name != model_system:
            return build_nlp("dynoracle.cfg", train,
                             {**system_overrides(name, oracle, **opts), **extra})
        return load_trained(args.model, oracle, opts, extra)[0]

    variants = [("", {})] + [(f"[{v}]", parse_options(csv_list(v))) for v in args.variant]
    for name, cls in registered_systems(csv_list(args.systems)):
        for suffix, extra in variants:
            if extra and not set(extra) <= set(getattr(cls, "options", {})):
                continue
            opts = {k: v for k, v in {**options, **extra}.items() if k in getattr(cls, "options", {})}
            for oracle in cls.oracles:
                if only and oracle not in only and not (all_static and oracle.startswith("static")):
                    continue
                try:
                    nlp = pipeline(name, oracle, opts)
                except Exception as err:  # an oracle that cannot be built is reported, not fatal
                    print(f"# {name} {oracle}{suffix}: {err!r}")
                    continue
                for _, pipe in nlp.pipeline:   # EasyFirstParser too: not a DynOracleParser
                    if isinstance(pipe, dynparser.ExplorationSchedule):
                        pipe.epoch = 10**6      # exploration on (past explore_after_epochs)
                pipes[(name, oracle + suffix)] = nlp
    batches = {}   # the same Docs for every pipeline, in each pipeline's own vocab
    for key, nlp in pipes.items():
        egs = load_examples(train, limit=n_docs, vocab=nlp.vocab, min_sent_len=args.min_sent_len)
        batches[key] = [egs[i:i + args.batch_docs] for i in range(0, len(egs), args.batch_docs)]
    n_words = sum(len(eg.reference) for b in next(iter(batches.values())) for eg in b)
    n_updates = len(next(iter(batches.values())))
    times = {key: [] for key in pipes}
    sgds = {key: nlp.create_optimizer() for key, nlp in pipes.items()}
    oracle_cpu = {}   # the pipelines with an oracle clock: its CPU over the timed updates
    for key, nlp in pipes.items():   # warm-up
        time_updates(nlp, batches[key][:2], sgds[key])
        moves = getattr(nlp.get_pipe("parser"), "moves", None)
        if hasattr(moves, "timed") and not meter:   # every system of the package, not spaCy's
            moves.timed = True
            oracle_cpu[key] = -moves.oracle_stats()["oracle_cpu_s"]
    if meter:
        return report_instructions(args, pipes, batches, sgds, meter, n_updates, n_words)
    for rep in range(args.reps):
        for key, nlp in pipes.items():
            times[key].append(time_updates(nlp, batches[key], sgds[key], seed=1 + rep))
    raw = {f"{k[0]} {k[1]}": {"wall_s": [t[0] for t in ts], "cpu_s": [t[1] for t in ts]}
           for k, ts in times.items()}
    clock = 1 if args.clock == "cpu" else 0
    times = {k: [t[clock] for t in ts] for k, ts in times.items()}
    for key in oracle_cpu:   # per update: the oracle's CPU (mean over the timed updates)
        oracle_cpu[key] += pipes[key].get_pipe("parser").moves.oracle_stats()["oracle_cpu_s"]
        oracle_cpu[key] /= args.reps * n_updates
    print(f"{args.treebank}: {n_updates} updates of {args.batch_docs} Docs ({n_words} words), "
          f"{args.reps} interleaved repetitions; {args.clock} seconds per update median (min-max); "
          f"ratio = median / the same system's static median (static-lazy for swap); 'oracle CPU' = the "
          f"static median with its oracle's CPU replaced by this pipeline's, / the static median")
    print(f"{'system':14}{'oracle':30}{'s/update':>10}{'min':>9}{'max':>9}{'words/s':>10}{'÷ static':>10}"
          f"{'÷ spaCy':>9}{'oracle CPU':>12}")
    stock = statistics.median(times[("spacy", "stock")]) if ("spacy", "stock") in times else None
    out = []
    for (name, oracle), ts in times.items():
        med = statistics.median(ts)
        ref = static_reference(times, name, oracle)
        static = times.get(ref)
        ratio = med / statistics.median(static) if static else None
        per = [t / n_updates for t in ts]
        by_cpu = ratio_by_oracle_cpu(times, oracle_cpu, ref, (name, oracle), n_updates)
        print(f"{name:14}{oracle:30}{statistics.median(per):>10.4f}{min(per):>9.4f}{max(per):>9.4f}"
              f"{n_words / med:>10,.0f}{(f'{ratio:.3f}' if ratio else '-'):>10}"
              f"{(f'{med / stock:.3f}' if stock else '-'):>9}"
              f"{(f'{by_cpu:.3f}' if by_cpu else '-'):>12}")
        # per repetition (the pipelines are interleaved, so a repetition's pipelines ran
        # under about the same load): this machine's spread of the ratio
        per_rep = [t / s for t, s in zip(ts, static)] if static else []
        if per_rep and static is not ts:
            print(f"{'':44}per repetition ÷ static: " + ", ".join(f"{r:.3f}" for r in per_rep))
        row = {"system": name, "oracle": oracle, "seconds_per_update": summary(per),
               "words_per_s": n_words / med, "ratio_to_static": ratio,
               "ratio_to_spacy": med / stock if stock else None,
               "ratio_to_static_per_rep": per_rep, "oracle_s_per_update": None,
               "rest_s_per_update": None, "ratio_by_oracle_cpu": by_cpu}
        if (name, oracle) in oracle_cpu:
            row["oracle_s_per_update"] = oracle_cpu[(name, oracle)]
            row["rest_s_per_update"] = med / n_updates - oracle_cpu[(name, oracle)]
        out.append(row)
    for r in out:
        if r["oracle_s_per_update"] is not None:
            print(f"# {r['system']} {r['oracle']}: oracle {r['oracle_s_per_update']:.4f} s/update "
                  f"(CPU), update minus oracle {r['rest_s_per_update']:.4f}")
    stats = {}
    for (name, oracle), nlp in pipes.items():
        moves = getattr(nlp.get_pipe("parser"), "moves", None)
        if oracle != "stock" and hasattr(moves, "oracle_stats"):
            stats[f"{name} {oracle}"] = moves.oracle_stats()
            print(f"# {name} {oracle} oracle_stats: {stats[f'{name} {oracle}']}")
    if args.json:
        write_json(args.json, {"treebank": args.treebank, "updates": n_updates,
                               "words": n_words, "reps": args.reps, "clock": args.clock,
                               "results": out, "times": raw, "oracle_stats": stats})


def report_instructions(args, pipes, batches, sgds, meter, n_updates, n_words):
    """One pass of the updates per pipeline, counted by `meter`: instructions per update,
    ÷ the system's static pipeline, ÷ spaCy's parser."""
    meter.on()
    meter.off()
    toggle = meter.dump("empty on-off")
    counts = {}
    for key, nlp in pipes.items():
        time_updates(nlp, batches[key], sgds[key], seed=1, meter=meter)
        counts[key] = meter.dump(" ".join(key)) / n_updates
    print(f"{args.treebank}: {n_updates} updates of {args.batch_docs} Docs ({n_words} words); "
          f"instructions per update (callgrind, each including {toggle:,} of one empty "
          f"instrumentation on-off); ratio = count ÷ the same system's static count (static-lazy for swap)")
    print(f"{'system':14}{'oracle':30}{'instr/update':>16}{'÷ static':>10}{'÷ spaCy':>9}")
    stock = counts.get(("spacy", "stock"))
    out = []
    for (name, oracle), n in counts.items():
        static = counts.get(static_reference(counts, name, oracle))
        ratio = n / static if static else None
        print(f"{name:14}{oracle:30}{n:>16,.0f}{(f'{ratio:.3f}' if ratio else '-'):>10}"
              f"{(f'{n / stock:.3f}' if stock else '-'):>9}")
        out.append({"system": name, "oracle": oracle, "instructions_per_update": n,
                    "ratio_to_static": ratio, "ratio_to_spacy": n / stock if stock else None})
    if args.json:
        write_json(args.json, {"treebank": args.treebank, "updates": n_updates,
                               "words": n_words, "toggle_instructions": toggle,
                               "results": out})


if __name__ == "__main__":
    main()
