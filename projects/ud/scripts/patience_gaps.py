"""How long the converged runs waited between improvements: is the protocol's patience long enough?

A run stops after `patience` updates without a better dev score. From every finished run's
training log (records/<protocol>/.../train_log.jsonl) this counts the *record breaks* (an
evaluation whose score beats every earlier one) by the number of updates since the previous
record, with the median and mean gain (score points: 100 x the training score, for the
parser the mean of dev UAS and LAS). Breaks after exactly `patience` updates are the ones the
rule only just let through; a count that is still large there says that the rule also cut
runs whose next record was a little further away. The tail's decay per evaluation interval
(the ratio of the counts of the last bins) then estimates how many breaks the rule cut.

    python scripts/patience_gaps.py --records records/converged_affix --patience 600

`--runs SUBSTRING` keeps the runs whose folder name contains it (e.g. attardi).
"""
import argparse
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

from report import load_runs


def record_breaks(scores: Iterable[Tuple[int, float]]) -> List[Tuple[int, float]]:
    """(updates since the previous record, gain) of every evaluation that beats all earlier
    ones, the first evaluation excluded (it sets the first record)."""
    breaks, best, best_step = [], None, 0
    for step, score in scores:
        if best is None:
            best, best_step = score, step
        elif score > best:
            breaks.append((step - best_step, score - best))
            best, best_step = score, step
    return breaks


def log_scores(log: List[dict]) -> List[Tuple[int, float]]:
    """(step, score) of each evaluation in a run's training log (report.load_runs's run["log"])."""
    return [(r["step"], r["score"]) for r in log if r.get("score") is not None]


def tail_estimate(counts: Dict[int, int], patience: int, interval: int) -> float:
    """Record breaks beyond `patience` the rule cut, if the counts keep decaying
    geometrically at the mean ratio of the last three bins up to `patience`."""
    bins = [counts.get(patience - k * interval, 0) for k in (3, 2, 1, 0)]
    ratios = [b / a for a, b in zip(bins, bins[1:]) if a > 0]
    if not ratios or bins[-1] == 0:
        return 0.0
    r = min(statistics.mean(ratios), 0.95)
    return bins[-1] * r / (1 - r)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=Path, action="append", required=True,
                    help="a records (or training) folder of a protocol; repeatable")
    ap.add_argument("--patience", type=int, default=600)
    ap.add_argument("--interval", type=int, default=100, help="the evaluation interval (eval_frequency)")
    ap.add_argument("--runs", default="", help="only runs whose folder name contains this")
    args = ap.parse_args()
    logs = [scores for root in args.records for run in load_runs(root)
            if args.runs in run["folder"].name and (scores := log_scores(run["log"]))]
    if not logs:
        raise SystemExit(f"no scored train_log.jsonl under {[str(r) for r in args.records]} (runs {args.runs!r})")
    gains = defaultdict(list)
    for scores in logs:
        for gap, gain in record_breaks(scores):
            gains[gap].append(100 * gain)
    counts = {gap: len(v) for gap, v in gains.items()}
    print(f"{len(logs)} runs, {sum(counts.values())} record breaks; patience {args.patience}\n")
    print("| updates since the previous record | breaks | median gain | mean gain |")
    print("|--:|--:|--:|--:|")
    for gap in sorted(gains):
        v = gains[gap]
        print(f"| {gap} | {len(v)} | {statistics.median(v):.2f} | {statistics.mean(v):.2f} |")
    est = tail_estimate(counts, args.patience, args.interval)
    print(f"\nEstimated breaks the rule cut (geometric tail beyond {args.patience}): {est:.0f}, "
          f"{est / len(logs):.2f} per run")


if __name__ == "__main__":
    main()
