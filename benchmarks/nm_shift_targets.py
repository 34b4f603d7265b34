"""arc_eager_nm: how often SHIFT is a training target, under the exact oracle and under spaCy's
costs, on real gold (docs/systems/arc_eager_nm.md, "Training").

The first --limit sentences of a treebank's train split, grouped into Docs of 10 (roots point
to themselves), are walked from the initial state taking a random zero-cost move of the exact
oracle (a random valid move with probability --p-random). At each state: whether SHIFT is
valid, whether it costs 0 under the exact oracle, whether it is among the cheapest moves under
the `spacy` costs (the target the base's normalisation makes), whether it is a target of the
exact oracle's training target with system_options defer="last" (system_base.defer_last_target:
SHIFT and the unshift only where no other move is optimal), the size of the three target sets,
and how many unshifts the walks take (and how often the unshift is valid and a defer="last"
target).

    UD_ROOT=/work/shared/ud python3 benchmarks/nm_shift_targets.py --treebank UD_Hungarian-Szeged
"""
import argparse
import random

from common import treebank_files
from spacy_dynoracle.testing import Simulator


def conllu_heads(path, limit):
    """Gold heads (0-based, a root points to itself) of the first `limit` sentences."""
    sents, cur = [], []
    for line in open(path, encoding="utf8"):
        line = line.strip()
        if not line:
            if cur:
                sents.append(cur)
                cur = []
            if len(sents) == limit:
                break
            continue
        fields = line.split("\t")
        if line.startswith("#") or "-" in fields[0] or "." in fields[0]:
            continue
        cur.append(int(fields[6]))
    return [[i if h == 0 else h - 1 for i, h in enumerate(s)] for s in sents + ([cur] if cur else [])][:limit]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--p-random", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    train, _ = treebank_files(args.treebank)
    sents = conllu_heads(train, args.limit)
    rng = random.Random(args.seed)
    c = dict(states=0, shift_valid=0, shift_zero_exact=0, shift_target_spacy=0,
             shift_target_last=0, targets_exact=0, targets_spacy=0, targets_last=0,
             unshift_valid=0, unshift_target_last=0, unshifts=0)
    for d in range(0, len(sents), 10):
        heads = []
        for s in sents[d:d + 10]:
            heads += [len(heads) + h for h in s]
        exact = Simulator("arc_eager_nm", len(heads), oracle="dynamic")
        spacy = Simulator("arc_eager_nm", len(heads), oracle="spacy")
        last = Simulator("arc_eager_nm", len(heads), oracle="dynamic", defer="last")
        no_labels = [None] * len(heads)
        while not exact.is_final():
            ce, cs = exact.costs(heads), spacy.costs(heads)
            low = min(cs.values())
            # unlabelled move -> cost 0 for one of its classes (labels unknown: no label cost)
            cl = {}
            for a, v in last.training_costs(heads, no_labels).items():
                move = a.split("-")[0]
                cl[move] = min(cl.get(move, v), v)
            unshift = "REDUCE" in ce and exact.heads()[exact.stack()[-1]] < 0
            c["states"] += 1
            c["targets_exact"] += sum(v == 0 for v in ce.values())
            c["targets_spacy"] += sum(v == low for v in cs.values())
            c["targets_last"] += sum(v == 0 for v in cl.values())
            if unshift:
                c["unshift_valid"] += 1
                c["unshift_target_last"] += cl["REDUCE"] == 0
            if "SHIFT" in ce:
                c["shift_valid"] += 1
                c["shift_zero_exact"] += ce["SHIFT"] == 0
                c["shift_target_spacy"] += cs["SHIFT"] == low
                c["shift_target_last"] += cl["SHIFT"] == 0
            zero = [a for a, v in ce.items() if v == 0]
            move = rng.choice(sorted(ce)) if rng.random() < args.p_random else rng.choice(zero)
            c["unshifts"] += move == "REDUCE" and unshift
            exact.apply(move)
            spacy.apply(move)
            last.apply(move)
    print(c)
    print(f"SHIFT a target where valid: exact {c['shift_zero_exact'] / c['shift_valid']:.1%}, "
          f"spacy {c['shift_target_spacy'] / c['shift_valid']:.1%}, exact defer=last "
          f"{c['shift_target_last'] / c['shift_valid']:.1%}; unshift a defer=last target where "
          f"valid: {c['unshift_target_last'] / max(c['unshift_valid'], 1):.1%}; targets per state: "
          f"exact {c['targets_exact'] / c['states']:.2f}, spacy {c['targets_spacy'] / c['states']:.2f}, "
          f"exact defer=last {c['targets_last'] / c['states']:.2f}")


if __name__ == "__main__":
    main()
