"""Turn the JSON of the benchmark suite (../../benchmarks/*.py --json) into markdown tables.

    python scripts/bench_report.py bench --out bench/README.md   # parse_speed, train_step, oracle_time, memory .json
"""
import json
import sys
from pathlib import Path


def load(folder, name):
    path = Path(folder) / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def section(title, columns):
    """The heading and header rows of a table section: columns are (name, alignment row
    cell), "---" left, "--:" right."""
    return [f"## {title}", "", row(name for name, _ in columns),
            "|" + "|".join(align for _, align in columns) + "|"]


def row(cells):
    return "| " + " | ".join(cells) + " |"


def main():
    args = sys.argv[1:]
    target = None
    if "--out" in args:
        i = args.index("--out")
        target = Path(args[i + 1])
        del args[i:i + 2]
    folder = args[0] if args else "bench"
    out = []
    d = load(folder, "parse_speed")
    if d:
        out += section(f"Parse speed ÷ spaCy's parser ({d['treebank']}, {d['words']} words, "
                       f"{d['reps']} interleaved repetitions, {d.get('clock', 'wall')} time)",
                       [("system", "---"), ("full pipeline words/s (median, min–max)", "--:"),
                        ("ratio", "--:"), ("parser step words/s", "--:"), ("ratio", "--:")])
        for name, r in d["results"].items():
            cells = []
            for key in ("full pipeline", "parser step"):
                w = r[key]["words_per_s"]
                lo, hi = r[key]["ratio_min_max"]
                cells += [f"{w['median']:,.0f} ({w['min']:,.0f}–{w['max']:,.0f})",
                          f"{r[key]['ratio']:.2f} ({lo:.2f}–{hi:.2f})"]
            out.append(row([name] + cells))
        out.append("")
    d = load(folder, "train_step")
    if d:
        out += section(f"Training-update time ÷ the static oracle ({d['treebank']}, {d['updates']} updates, "
                       f"{d['words']} words, {d['reps']} interleaved repetitions, {d.get('clock', 'wall')} time, "
                       "exploration on)",
                       [("system", "---"), ("oracle", "---"), ("s / update (median, min–max)", "--:"),
                        ("÷ static", "--:"), ("÷ spaCy's parser", "--:")])
        for r in d["results"]:
            s = r["seconds_per_update"]
            st = "–" if r["ratio_to_static"] is None else f"{r['ratio_to_static']:.2f}"
            out.append(row([r["system"], r["oracle"], f"{s['median']:.3f} ({s['min']:.3f}–{s['max']:.3f})",
                            st, f"{r['ratio_to_spacy']:.2f}"]))
        out.append("")
    d = load(folder, "oracle_time")
    if d:
        out += section(f"Oracle time per state (training Docs of {d['n_sents']} sentences, {d['split']} split, "
                       f"p_random={d['p_random']}, best of {d['reps']}; moves.step_batch), microseconds",
                       [(name, "---") for name in ("treebank", "system", "oracle")]
                       + [(name, "--:") for name in ("states", "states/s", "p50", "p99", "max (ms)",
                                                     "> 50 ms", "p99 in NP Docs")])
        for r in d["results"]:
            if "error" in r:
                out.append(f"| {r['treebank']} | {r['system']} | {r['oracle']} | error: {r['error'][:80]} |||||||")
                continue
            if not r.get("states"):
                continue
            npd = r.get("np_docs", {}).get("p99_us")
            out.append(row([r["treebank"], r["system"], r["oracle"], str(r["states"]),
                            f"{r['states_per_s']:,.0f}", f"{r['p50_us']:.1f}", f"{r['p99_us']:.1f}",
                            f"{r['max_ms']:.2f}", str(r["over_50ms"]), "–" if npd is None else f"{npd:.1f}"]))
        out.append("")
    d = load(folder, "memory")
    if d:
        out += section(f"Peak memory, MiB RSS ({d['treebank']}, {d['updates']} updates, then the dev set parsed)",
                       [("system", "---")] + [(name, "--:") for name in (
                           "initialized", "after updates", "after parse", "oracle walk (tracemalloc peak)")])
        for r in d["results"]:
            p = r["peak_rss_mb"]
            ow = "–" if r["oracle_walk_peak_mb"] is None else f"{r['oracle_walk_peak_mb']:.2f}"
            out.append(row([r["system"], f"{p['initialized']:.0f}", f"{p['after_updates']:.0f}",
                            f"{p['after_parse']:.0f}", ow]))
        out.append("")
    text = "# Benchmarks\n\n" + "\n".join(out)
    if target:
        target.write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
