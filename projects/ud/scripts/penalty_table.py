"""Tables of a nonprojective_penalty sweep (evaluate_run.py --nonprojective-penalty; issue 19,
docs/systems/swap.md "A parse-time penalty on crossing arcs").

    python scripts/penalty_table.py --output training/converged --systems swap,attardi \
        [--split dev_gold_sents] [--md table.md]

For every run of the systems with eval_<split>_npp<X>.json files: per penalty X its LAS,
the LAS difference to X = 0, the non-projective arcs (evaluate.py's NonProjArcs: predicted
/ gold, recall, precision) and the crossing arcs (predicted / gold, the predicted ones
whose gold arc crosses none, and how many of the predicted ones have the gold head). Then,
per system, the LAS difference to X = 0 pooled over its runs (treebanks, seeds and oracles):
the mean and the runs higher, and the penalty with the best mean, the value to choose on dev
(ties: the smaller penalty).
"""
import argparse
import re
import statistics
from pathlib import Path

from report import load_runs
from udproj import PROJECT

NPP = re.compile(r"_npp(?P<x>-?[0-9.]+(?:e[-+]?[0-9]+)?)$")


def sweep(run, split: str) -> dict:
    """{penalty: the eval json} of the run's eval_<split>_npp<X>.json files."""
    out = {}
    for key, scores in run.items():
        if isinstance(key, str) and key.startswith(split + "_npp") and scores:
            m = NPP.search(key)
            if m and key == f"{split}{m.group(0)}":
                out[float(m.group("x"))] = scores
    return dict(sorted(out.items()))


def run_name(run) -> str:
    info = run["info"]
    return f"{info['treebank'].replace('UD_', '')} {info['run']} s{info['seed']}"


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}" if whole else "–"


def one_decimal(value) -> str:
    return "–" if value is None else f"{value:.1f}"


def run_rows(runs, split: str):
    lines = [f"{split}: per run and penalty X, LAS and its difference to X = 0, the non-projective "
             "arcs and the crossing arcs (words whose arc crosses another of its sentence).", "",
             "| run | X | LAS | Δ | NP arcs pred / gold | NP R | NP P | crossing pred / gold | "
             "pred where gold crosses none | crossing P (head) | crossing R (head) |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for run in runs:
        scores = sweep(run, split)
        if 0.0 not in scores:
            continue
        base = scores[0.0]["LAS"]["f1"]
        for x, s in scores.items():
            np_, cx = s["NonProjArcs"], s.get("CrossingArcs", {})
            lines.append(
                f"| {run_name(run)} | {x:g} | {s['LAS']['f1']:.2f} | {s['LAS']['f1'] - base:+.2f} | "
                f"{np_['system']} / {np_['gold']} | {one_decimal(np_['recall'])} | {one_decimal(np_['precision'])} | "
                f"{cx.get('system', '–')} / {cx.get('gold', '–')} | "
                f"{cx.get('system_gold_crosses_none', '–')} | "
                f"{pct(cx.get('correct_system', 0), cx.get('system', 0))} | "
                f"{pct(cx.get('correct', 0), cx.get('gold', 0))} |")
    return lines


def pooled(runs, split: str) -> dict:
    """{penalty: [LAS difference to X = 0 of each run that has both]}."""
    diffs = {}
    for run in runs:
        scores = sweep(run, split)
        if 0.0 not in scores:
            continue
        for x, s in scores.items():
            diffs.setdefault(x, []).append(s["LAS"]["f1"] - scores[0.0]["LAS"]["f1"])
    return dict(sorted(diffs.items()))


def best_penalty(diffs: dict):
    """The penalty with the highest mean difference (the smaller one among equals)."""
    return max(sorted(diffs), key=lambda x: (round(statistics.fmean(diffs[x]), 9), -x)) if diffs else None


def pooled_lines(by_system: dict, split: str):
    lines = [f"{split} LAS difference to X = 0, pooled over each system's runs: mean (runs higher / "
             "runs).", "", "| system | runs | X: mean Δ (runs higher / runs) | best X |",
             "|---|--:|---|--:|"]
    for system, runs in by_system.items():
        diffs = pooled(runs, split)
        if not diffs:
            continue
        cells = ", ".join(f"{x:g}: {statistics.fmean(d):+.2f} ({sum(v > 0 for v in d)}/{len(d)})"
                          for x, d in diffs.items())
        lines.append(f"| {system} | {len(diffs[0.0])} | {cells} | {best_penalty(diffs):g} |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--output", type=Path, default=PROJECT / "training")
    ap.add_argument("--systems", default="swap,attardi")
    ap.add_argument("--split", default="dev_gold_sents",
                    help="dev_gold_sents (default), dev, test_gold_sents, ...: the eval json's name "
                         "before _npp<X>")
    ap.add_argument("--md", type=Path, help="write the tables here (default: print them)")
    args = ap.parse_args(argv)
    systems = [s for s in args.systems.split(",") if s]
    runs = sorted((r for r in load_runs(args.output) if r["info"].get("system") in systems),
                  key=run_name)
    by_system = {s: [r for r in runs if r["info"]["system"] == s] for s in systems}
    text = "\n".join(run_rows(runs, args.split) + [""] + pooled_lines(by_system, args.split)) + "\n"
    if args.md:
        args.md.write_text(text, encoding="utf-8")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
