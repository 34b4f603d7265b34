"""attardi: does the path spaCy's update cuts long Docs along stay optimal on gold the system
cannot build? (issue 19, docs/systems/attardi.md "Cut path on gold it cannot build")

For each training Doc (10 sentences, as training builds them) whose gold the degree does not
cover, it walks the system's cut path (`get_oracle_sequence_from_state`, the path
`Parser._init_gold_batch` cuts at) and reports: the guard states it passes; the wrong heads at
its end against the minimum, taken as the wrong heads of the static path (`static_move`,
optimal on such gold) from the initial state; the segment starts (every `--cut` states, the
mean of spaCy's random cut length) that lie off every optimal path (the static path from them
ends above the minimum); and the states after the first one off every optimal path (binary
search: the fewest wrong heads reachable never falls along a path). Where the static path
passes guard states its wrong heads only bound the minimum from above; "min_exact_docs" counts
the Docs where it is exact (static path without guard states, or minimum 1, the least an
uncovered tree can have).

    UD_ROOT=/work/shared/ud python benchmarks/attardi_cut_path.py --treebank UD_Latin-Perseus \\
        --degree 2 [--cut-path static]
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import treebank_files  # noqa: E402


def wrong_heads(sim, gold):
    return sum(1 for h, g in zip(sim.heads(), gold) if g >= 0 and h != g)


def static_run(sim, gold):
    """Follow static_move from sim's state to the end: (wrong heads, guard states passed)."""
    sim = sim.copy()
    g = sim._gold(gold, None)
    guards = 0
    while not sim.is_final():
        move = sim.moves._sim_static_move(sim.state, g)
        guards += sim.moves.last_oracle_path == "guard"
        sim.moves._sim_apply(sim.state, sim.moves.class_index(move, None))
    return wrong_heads(sim, gold), guards


def main(argv=None):
    import spacy
    from spacy_dynoracle.corpus import create_conllu_reader
    from spacy_dynoracle.testing import Simulator

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Latin-Perseus")
    ap.add_argument("--degree", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="training Docs (0: all)")
    ap.add_argument("--cut", type=int, default=100, help="states per segment")
    ap.add_argument("--cut-path", default="first", help="system_options.cut_path")
    ap.add_argument("--per-doc", action="store_true")
    args = ap.parse_args(argv)
    train, _ = treebank_files(args.treebank)
    egs = list(create_conllu_reader(train, n_sents=10, limit=args.limit)(spacy.blank("xx")))

    def new_sim(n):
        return Simulator("attardi", n, degree=args.degree, cut_path=args.cut_path)

    tot = dict(docs=len(egs), uncovered=0, segment_starts=0, starts_off=0, path_states=0,
               states_off=0, path_guard=0, wrong_end=0, wrong_min=0, static_guard=0,
               min_exact_docs=0)
    for i, eg in enumerate(egs):
        heads, _ = eg.get_aligned_parse(projectivize=False)
        gold = [-1 if h is None else h for h in heads]
        sim = new_sim(len(gold))
        if sim.moves.is_covered(gold):
            continue
        g = sim._gold(gold, None)
        least, static_guard = static_run(sim, gold)
        path = sim.moves.get_oracle_sequence_from_state(sim.state.copy(), g)
        starts_off = guards = 0
        for k, clas in enumerate(path):
            if k and k % args.cut == 0:
                tot["segment_starts"] += 1
                starts_off += static_run(sim, gold)[0] > least
            sim.moves._sim_costs(sim.state, g)
            guards += sim.moves.last_oracle_path == "guard"
            sim.moves._sim_apply(sim.state, clas)
        wrong = wrong_heads(sim, gold)
        first_off = len(path) + 1
        if wrong > least:
            lo, hi = 0, len(path)
            while lo < hi:
                mid = (lo + hi) // 2
                at = new_sim(len(gold))
                for clas in path[:mid]:
                    at.moves._sim_apply(at.state, clas)
                if static_run(at, gold)[0] > least:
                    hi = mid
                else:
                    lo = mid + 1
            first_off = lo
        tot["uncovered"] += 1
        tot["starts_off"] += starts_off
        tot["path_states"] += len(path)
        tot["states_off"] += max(0, len(path) + 1 - first_off)
        tot["path_guard"] += guards
        tot["wrong_end"] += wrong
        tot["wrong_min"] += least
        tot["static_guard"] += static_guard
        tot["min_exact_docs"] += static_guard == 0 or least == 1
        if args.per_doc:
            print(json.dumps(dict(doc=i, words=len(gold), path=len(path), first_off=first_off,
                                  starts_off=starts_off, guard=guards, wrong_end=wrong,
                                  min=least, static_guard=static_guard)), flush=True)
    print(json.dumps({"treebank": args.treebank, "degree": args.degree,
                      "cut_path": args.cut_path, **tot}))


if __name__ == "__main__":
    main()
