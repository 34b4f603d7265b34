"""Paired ablation table: each variant against a baseline run id, seed by seed, on dev.

    python scripts/ablation.py --output training/converged --baseline arc_eager-dynamic \
        [--variants ID,ID,...] [--metric dev] [--md ablation.md]

Settings are chosen on dev (issue 18: "Choose settings on dev, never on test"), so the table
is dev LAS by default. For every treebank and variant it pairs the variant's runs with the
baseline's runs of the same seed and gives the mean paired difference, the seeds in which
the variant is higher, and the variant's mean dev LAS; the last column averages the paired
differences over every (treebank, seed) pair. Rows that share no seed with the baseline are
left out. `--metric test_gold_sents` gives the same table on test (for the final tables only).

    python scripts/ablation.py --output training/converged --metric dev --versus dev_beam4

compares each run with itself instead: the mean over its seeds of dev LAS with a beam of 4 at
parse time (evaluate_run.py --beam-width 4) minus its greedy dev LAS.
"""
import argparse
import re
import statistics
from collections import defaultdict
from pathlib import Path

from report import group, load_runs, value
from udproj import PROJECT

METRICS = {"dev": ("dev", ("LAS", "f1")),
           "test": ("test", ("LAS", "f1")),
           "test_gold_sents": ("test_gold_sents", ("LAS", "f1")),
           "dev_gold_sents": ("dev_gold_sents", ("LAS", "f1")),
           "sent_f1": ("test", ("Sentences", "f1"))}
#: the same LAS with a parse-time setting: a beam of K (evaluate_run.py --beam-width K)
#: and/or a nonprojective_penalty of X (evaluate_run.py --nonprojective-penalty X), as
#: evaluate_run.eval_path names the files
PARSE_TIME_METRIC = re.compile(
    r"(dev|test)(_gold_sents)?(?=_beam|_npp)(_beam[1-9][0-9]*)?(_npp-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?)?$")
METRIC_FORMS = "<dev|test>[_gold_sents][_beamK][_nppX] (at least one of _beamK, _nppX)"


def metric_source(metric: str):
    """(split, path in its eval json) of a metric name: METRICS, or a parse-time setting's
    <split>[_gold_sents][_beam<K>][_npp<X>]."""
    if metric in METRICS:
        return METRICS[metric]
    if PARSE_TIME_METRIC.match(metric):
        return metric, ("LAS", "f1")
    raise ValueError(f"unknown metric {metric!r}: one of {', '.join(sorted(METRICS))}, "
                     f"or {METRIC_FORMS}")


def by_seed(runs, split, path):
    return {r["info"]["seed"]: value(r, split, path) for r in runs
            if value(r, split, path) is not None}


def paired(base: dict, other: dict):
    """(mean difference, seeds higher, seeds paired) over the seeds both have."""
    seeds = sorted(set(base) & set(other))
    diffs = [other[s] - base[s] for s in seeds]
    if not diffs:
        return None
    return statistics.fmean(diffs), sum(d > 0 for d in diffs), len(diffs), diffs


def ablation_lines(groups, baseline: str, variants, metric: str):
    split, path = metric_source(metric)
    treebanks = [key for key, by_id in groups.items() if baseline in by_id]
    ids = variants or sorted({rid for key in treebanks for rid in groups[key] if rid != baseline})
    base = {key: by_seed(groups[key][baseline], split, path) for key in treebanks}
    head = ["variant"] + [f"{tb.replace('UD_', '')} ({pipe})" for tb, pipe in treebanks] + ["all pairs"]
    lines = [f"{metric} LAS of each variant minus `{baseline}` of the same seed: mean Δ (seeds higher / "
             f"seeds paired), then the variant's mean. `{baseline}` itself: "
             + ", ".join(f"{tb.replace('UD_', '')} {statistics.fmean(base[(tb, p)].values()):.2f}"
                         f" ({len(base[(tb, p)])} seeds)" for tb, p in treebanks) + ".", "",
             "| " + " | ".join(head) + " |", "|---|" + "--:|" * (len(head) - 1)]
    for rid in ids:
        cells, pooled = [rid], []
        for key in treebanks:
            runs = groups[key].get(rid)
            scores = by_seed(runs, split, path) if runs else {}
            result = paired(base[key], scores)
            if result is None:
                cells.append("")
                continue
            mean, higher, n, diffs = result
            pooled += diffs
            own = statistics.fmean(scores.values())
            cells.append(f"{mean:+.2f} ({higher}/{n}), {own:.2f}")
        if not pooled:
            continue
        cells.append(f"{statistics.fmean(pooled):+.2f} ({sum(d > 0 for d in pooled)}/{len(pooled)})")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def versus_lines(groups, metric: str, versus: str, ids=None):
    """For every run id: the mean over its seeds of `versus` minus `metric` of the same run
    (e.g. dev_beam4 against dev: what a beam at parse time gives the same trained model)."""
    split, path = metric_source(metric)
    vsplit, vpath = metric_source(versus)
    keys = sorted(groups)
    ids = ids or sorted({rid for key in keys for rid in groups[key]})
    head = ["run id"] + [f"{tb.replace('UD_', '')} ({pipe})" for tb, pipe in keys]
    lines = [f"{versus} LAS minus {metric} LAS of the same run: mean Δ (seeds higher / seeds with "
             f"both), then the mean {versus} LAS.", "",
             "| " + " | ".join(head) + " |", "|---|" + "--:|" * (len(head) - 1)]
    for rid in ids:
        cells = [rid]
        for key in keys:
            runs = groups[key].get(rid, [])
            base, other = by_seed(runs, split, path), by_seed(runs, vsplit, vpath)
            result = paired(base, other)
            if result is None:
                cells.append("")
                continue
            mean, higher, n, _ = result
            own = statistics.fmean(other[s] for s in set(base) & set(other))
            cells.append(f"{mean:+.2f} ({higher}/{n}), {own:.2f}")
        if any(cells[1:]):
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--output", type=Path, default=PROJECT / "training")
    ap.add_argument("--baseline", help="the run id the variants are compared with")
    ap.add_argument("--variants", default="", help="comma-separated run ids (default: every other id)")
    ap.add_argument("--metric", default="dev",
                    help=f"{', '.join(sorted(METRICS))}, or {METRIC_FORMS} (evaluate_run.py "
                         "--beam-width K, --nonprojective-penalty X)")
    ap.add_argument("--versus", help="instead of a baseline run id: compare each run's --metric with "
                                     "this metric of the same run (e.g. --metric dev --versus dev_beam4)")
    ap.add_argument("--md", type=Path, help="write the table here (default: print it)")
    args = ap.parse_args(argv)
    for metric in filter(None, (args.metric, args.versus)):
        try:
            metric_source(metric)
        except ValueError as err:
            ap.error(str(err))
    if bool(args.baseline) == bool(args.versus):
        ap.error("give either --baseline RUN_ID (variants against it) or --versus METRIC (each run "
                 "against itself)")
    groups = group(load_runs(args.output))
    variants = [v for v in args.variants.split(",") if v]
    if args.versus:
        lines = versus_lines(groups, args.metric, args.versus, variants)
    else:
        if not any(args.baseline in by_id for by_id in groups.values()):
            known = sorted({rid for by_id in groups.values() for rid in by_id})
            ap.error(f"no run id {args.baseline!r} under {args.output}; run ids there: {', '.join(known)}")
        lines = ablation_lines(groups, args.baseline, variants, args.metric)
    text = "\n".join(lines) + "\n"
    if args.md:
        args.md.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
