"""Per-state time of the exact non-projective oracle (issue 7) on real training sentences,
and how often Goldberg & Nivre's costs disagree with it on those states.

    python benchmarks/arc_eager_oracle.py --treebank UD_Hungarian-Szeged --system arc_eager
    python benchmarks/arc_eager_oracle.py --treebank UD_Latin-Perseus --system arc_hybrid \
        --n-sents 10 --p-random 0.1

Docs of --n-sents consecutive training sentences (as the ConlluCorpus reader builds them;
gold roots point to themselves). Each Doc is walked to the end by
spacy_dynoracle.arc_eager.oracle_walk: at each state the exact oracle's costs are timed in C
(`move_costs`, nogil, no Python in the timed region), G&N's costs are computed on the same
state, and the walk follows a zero-cost move of the exact oracle or, with probability
--p-random, a random valid move (exploration). The per-Doc table (spec §6.1) is timed
separately. Reported: p50/p99/max per state, table time per Doc, the share of states where
G&N's costs / zero-cost set differ from the exact ones (all states, and states of Docs with
non-projective gold).
"""
import argparse
import random
import time
from pathlib import Path

import numpy
from spacy.pipeline._parser_internals.stateclass import StateClass
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_dynoracle import get_system_class, load_compiled
from spacy_dynoracle.conllu_io import read_conllu

UD = Path(__file__).resolve().parents[2] / "shared" / "ud"


def nonprojective(heads):
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads) if h != d and h >= 0]
    arcs += [(-1, d) for d, h in enumerate(heads) if h == d]
    return any(a < c < b < d for a, b in arcs for c, d in arcs)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--system", default="arc_eager", choices=["arc_eager", "arc_hybrid"])
    ap.add_argument("--n-sents", type=int, default=1, help="sentences per Doc")
    ap.add_argument("--p-random", type=float, default=0.1)
    ap.add_argument("--limit", type=int, default=0, help="first N sentences only")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    ae = load_compiled("arc_eager")
    base = load_compiled("system_base")
    cls = get_system_class(args.system)
    vocab = Vocab()
    exact = cls(vocab.strings, oracle="dynamic", projectivize=False)
    gn = cls(vocab.strings, oracle="goldberg-nivre", projectivize=False)
    actions = {m: ({"dep": 1} if m in cls.arc_move_types else
                   {"ROOT": 1} if base.MOVE_NAMES[m] == "ROOT" else {"": 1}) for m in cls.move_types}
    exact.initialize_actions(actions)
    gn.initialize_actions(actions)
    path = sorted((UD / args.treebank).glob("*-ud-train.conllu"))[0]
    sents = [s.heads for s in read_conllu(path, on_error="skip")]
    if args.limit:
        sents = sents[:args.limit]
    times, tables, lengths = [], [], []
    tot = {"all": [0, 0, 0], "nonproj": [0, 0, 0]}
    for i in range(0, len(sents), args.n_sents):
        heads = []
        for s in sents[i:i + args.n_sents]:
            off = len(heads)
            heads += [off + (h - 1) if h > 0 else off + d for d, h in enumerate(s)]
        doc = Doc(vocab, words=[f"w{j}" for j in range(len(heads))])
        gold = base.DynGold(heads, [0] * len(heads))
        t0 = time.perf_counter()
        ae.attach_np_table(gold)
        tables.append(time.perf_counter() - t0)
        lengths.append(len(heads))
        t, n, cost_diff, zero_diff = ae.oracle_walk(exact, gn, StateClass(doc), gold,
                                                    args.p_random, args.seed * 100003 + i)
        times.extend(t)
        keys = ["all"] + (["nonproj"] if nonprojective(heads) else [])
        for key in keys:
            tot[key][0] += n
            tot[key][1] += cost_diff
            tot[key][2] += zero_diff
    a = numpy.asarray(times, dtype=numpy.float64) / 1000.0
    print(f"{args.treebank} train, {args.system}, {len(sents)} sentences, {args.n_sents} per Doc "
          f"(mean {numpy.mean(lengths):.1f} words), p_random={args.p_random}")
    print(f"  exact oracle per state: {a.size} states, p50 {numpy.percentile(a, 50):.1f} us, "
          f"p99 {numpy.percentile(a, 99):.1f} us, max {a.max():.1f} us, mean {a.mean():.1f} us")
    tb = numpy.asarray(tables) * 1e6
    print(f"  table per Doc (incl. Python): p50 {numpy.percentile(tb, 50):.1f} us, "
          f"p99 {numpy.percentile(tb, 99):.1f} us, max {tb.max():.1f} us")
    for key, (n, c, z) in tot.items():
        if n:
            print(f"  G&N vs exact, {key} states ({n}): costs differ {c / n:.2%}, "
                  f"zero-cost set differs {z / n:.2%}")


if __name__ == "__main__":
    main()
