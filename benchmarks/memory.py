"""Peak memory (resident set) of training and parsing with each transition system, next
to spaCy's own parser. Each system runs in a fresh process (so peaks do not mix): build
and initialize the pipeline from configs/, run --updates training updates with
exploration on, then parse the dev set; the peak RSS (ru_maxrss) is read after each phase.
The oracle's own peak (tracemalloc, Python-heap allocations incl. cymem pools) while
computing the costs of every state of the dev sentences is reported too.

    python benchmarks/memory.py --treebank UD_Hungarian-Szeged --updates 20
"""
import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from common import csv_list, registered_systems, write_json


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # Linux: KiB


def child(args):
    import tracemalloc

    import spacy_dynoracle.parser as dynparser
    from common import build_nlp, load_examples, system_overrides, treebank_files

    train, dev = treebank_files(args.treebank)
    base = rss_mb()
    if args.child == "spacy":
        nlp = build_nlp("spacy_parser.cfg", train)
    else:
        nlp = build_nlp("dynoracle.cfg", train, system_overrides(args.child, args.oracle))
        for _, pipe in nlp.pipeline:
            if isinstance(pipe, dynparser.DynOracleParser):
                pipe.epoch = 10**6
    examples = load_examples(train, limit=args.updates * 2, vocab=nlp.vocab)
    after_init = rss_mb()
    sgd = nlp.create_optimizer()
    for i in range(args.updates):
        nlp.update(examples[2 * i: 2 * i + 2], sgd=sgd)
    after_train = rss_mb()
    gold = load_examples(dev or train, select="all" if dev else "tail:0.1", vocab=nlp.vocab)
    list(nlp.pipe([eg.predicted for eg in gold], batch_size=64))
    after_parse = rss_mb()
    oracle_peak = None
    if args.child != "spacy":
        moves = nlp.get_pipe("parser").moves
        sents = load_examples(dev or train, select="all" if dev else "tail:0.1", n_sents=1, limit=200,
                              vocab=nlp.vocab)
        tracemalloc.start()
        for eg in sents:
            states, golds, _ = moves.init_gold_batch([eg])
            for state, g in zip(states, golds):
                while not state.is_final():
                    valid, costs = moves._sim_class_costs(state, g)
                    best = min((c, i) for i, (v, c) in enumerate(zip(valid, costs)) if v)[1]
                    moves._sim_apply(state, best)
        oracle_peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    print(json.dumps({"system": args.child, "oracle": None if args.child == "spacy" else args.oracle,
                      "peak_rss_mb": {"start": base, "initialized": after_init,
                                      "after_updates": after_train, "after_parse": after_parse},
                      "oracle_walk_peak_mb": oracle_peak}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--systems", default="", help="comma-separated (default: every registered one)")
    ap.add_argument("--oracle", default="dynamic")
    ap.add_argument("--updates", type=int, default=20)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    rows = []
    names = ["spacy"] + [n for n, _ in registered_systems(csv_list(args.systems))]
    for name in names:
        cmd = [sys.executable, __file__, "--child", name, "--treebank", args.treebank,
               "--oracle", args.oracle, "--updates", str(args.updates)]
        start = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"# {name}: failed\n{proc.stderr[-2000:]}")
            continue
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        row["seconds"] = round(time.time() - start, 1)
        rows.append(row)
    print(f"{args.treebank}: peak RSS in MiB after each phase ({args.updates} updates of 2 Docs, "
          f"then the dev set parsed); oracle walk = tracemalloc peak over 200 dev sentences")
    print(f"{'system':14}{'initialized':>12}{'updates':>10}{'parse':>10}{'Δ vs spaCy':>12}{'oracle walk':>13}")
    stock = next((r for r in rows if r["system"] == "spacy"), None)
    for r in rows:
        p = r["peak_rss_mb"]
        delta = p["after_parse"] - stock["peak_rss_mb"]["after_parse"] if stock else float("nan")
        ow = "-" if r["oracle_walk_peak_mb"] is None else f"{r['oracle_walk_peak_mb']:.2f}"
        print(f"{r['system']:14}{p['initialized']:>12.0f}{p['after_updates']:>10.0f}{p['after_parse']:>10.0f}"
              f"{delta:>+12.0f}{ow:>13}")
    if args.json:
        write_json(args.json, {"treebank": args.treebank, "updates": args.updates,
                               "results": rows})


if __name__ == "__main__":
    main()
