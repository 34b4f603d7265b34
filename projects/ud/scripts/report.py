"""Collect every evaluated run under training/ into results.md and PNG plots.

    python scripts/report.py [--output training] [--md results.md] [--plots plots]

results.md: per treebank and pipeline, one row per (system, oracle): test LAS / UAS /
CLAS, non-projective arc precision / recall / F1 (CoNLL-18 definitions, gold words, the
parser segments), dev LAS, parse speed (words/s of the whole pipeline on test) and
training time, as mean ± std over seeds (std over >= 2 seeds); the best mean of each
column per treebank in bold. Plots: las_by_system.png (LAS per system x oracle, one panel
per treebank), learning_curves.png (dev LAS during training, static dashed / dynamic
solid), speed_vs_las.png.
"""
import argparse
import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

from udproj import PROJECT, versions

COLUMNS = [  # (header, eval split, path in the eval JSON, decimals)
    ("LAS", "test", ("LAS", "f1"), 2),
    ("UAS", "test", ("UAS", "f1"), 2),
    ("CLAS", "test", ("CLAS", "f1"), 2),
    ("NP P", "test", ("NonProjArcs", "precision"), 1),
    ("NP R", "test", ("NonProjArcs", "recall"), 1),
    ("NP F1", "test", ("NonProjArcs", "f1"), 1),
    ("dev LAS", "dev", ("LAS", "f1"), 2),
    ("words/s", "test", ("speed", "words_per_cpu_s"), 0),
    ("train CPU s", "run", ("train_cpu_seconds",), 0),
    ("train s", "run", ("train_seconds",), 0),
]
LOWER_IS_BETTER = {"train s", "train CPU s"}
EXTERNAL = {"udpipe1"}   # peers trained outside spaCy (scripts/udpipe_peer.py)


def dig(data, path):
    for key in path:
        if data is None:
            return None
        data = data.get(key)
    return data


def load_runs(output: Path):
    runs = []
    for info_path in sorted(Path(output).glob("*/*/*/run.json")):
        folder = info_path.parent
        run = {"info": json.loads(info_path.read_text()), "folder": folder}
        for split in ("dev", "test"):
            path = folder / f"eval_{split}.json"
            run[split] = json.loads(path.read_text()) if path.exists() else None
        log = folder / "train_log.jsonl"
        run["log"] = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] \
            if log.exists() else []
        runs.append(run)
    return runs


def value(run, split, path):
    source = run["info"] if split == "run" else run[split]
    return dig(source, path)


def fmt(values, decimals):
    values = [v for v in values if v is not None]
    if not values:
        return "–", None
    mean = statistics.fmean(values)
    text = f"{mean:,.{decimals}f}"
    if len(values) > 1:
        text += f" ± {statistics.stdev(values):,.{decimals}f}"
    return text, mean


def group(runs):
    groups = defaultdict(list)   # (treebank, pipeline) -> run id -> [runs]
    for run in runs:
        i = run["info"]
        groups[(i["treebank"], i["pipeline"])].append(run)
    out = {}
    for key, rs in sorted(groups.items()):
        by_id = defaultdict(list)
        for r in rs:
            by_id[r["info"]["run"]].append(r)
        out[key] = dict(sorted(by_id.items(), key=lambda kv: (kv[0] == "spacy_parser", kv[0])))
    return out


def table(by_id):
    rows, means = [], defaultdict(dict)
    for rid, rs in by_id.items():
        cells = [rid, str(len(rs))]
        for header, split, path, dec in COLUMNS:
            text, mean = fmt([value(r, split, path) for r in rs], dec)
            cells.append(text)
            means[header][rid] = mean
        rows.append(cells)
    # bold the best mean per column
    for c, (header, *_rest) in enumerate(COLUMNS):
        vals = {rid: m for rid, m in means[header].items() if m is not None}
        if len(vals) < 2:
            continue
        best = (min if header in LOWER_IS_BETTER else max)(vals.values())
        for row in rows:
            if vals.get(row[0]) == best:
                row[c + 2] = f"**{row[c + 2]}**"
    head = ["system-oracle", "seeds"] + [h for h, *_ in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "--:|" * len(COLUMNS)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines, means


def curve(run):
    """[(step, epoch, dev LAS)] from spaCy's ConsoleLogger.v3 JSONL."""
    out = []
    for rec in run["log"]:
        las = dig(rec, ("scores", "dep_las"))     # ConsoleLogger.v3 writes percentages
        if las is None:
            continue
        out.append((rec.get("step"), rec.get("epoch"), float(las)))
    return out


def plots(groups, plot_dir: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plot_dir.mkdir(parents=True, exist_ok=True)
    keys = list(groups)
    written = []
    if not keys:
        return written
    # 1. LAS by system x oracle, one panel per treebank (and pipeline)
    fig, axes = plt.subplots(1, len(keys), figsize=(4.5 * len(keys), 4.2), squeeze=False)
    for ax, key in zip(axes[0], keys):
        ids = list(groups[key])
        vals = [[value(r, "test", ("LAS", "f1")) for r in groups[key][i]] for i in ids]
        means = [statistics.fmean([v for v in vs if v is not None] or [0]) for vs in vals]
        errs = [statistics.stdev(vs) if len(vs) > 1 else 0 for vs in vals]
        colors = ["tab:gray" if i == "spacy_parser" else
                  "tab:green" if groups[key][i][0]["info"]["system"] in EXTERNAL else
                  ("tab:blue" if groups[key][i][0]["info"].get("dynamic") else "tab:orange") for i in ids]
        ax.bar(range(len(ids)), means, yerr=errs, color=colors, capsize=3)
        ax.set_xticks(range(len(ids)), ids, rotation=45, ha="right", fontsize=8)
        lo = min(means) if means else 0
        ax.set_ylim(max(0, lo - 10), min(100, max(means) + 3))
        ax.set_title(f"{key[0].replace('UD_', '')} ({key[1]})", fontsize=9)
        ax.set_ylabel("test LAS")
        for x, m in enumerate(means):
            ax.text(x, m, f"{m:.1f}", ha="center", va="bottom", fontsize=7)
    fig.suptitle("Test LAS by system x oracle (blue: exploring oracle, orange: static, grey: spaCy parser, "
                 "green: UDPipe 1)", fontsize=9)
    fig.tight_layout()
    fig.savefig(plot_dir / "las_by_system.png", dpi=110)
    plt.close(fig)
    written.append(plot_dir / "las_by_system.png")
    # 2. learning curves
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 4), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for ax, key in zip(axes[0], keys):
        systems = sorted({r["info"]["system"] for rs in groups[key].values() for r in rs})
        for rid, rs in groups[key].items():
            for r in rs:
                pts = curve(r)
                if not pts:
                    continue
                style = "-" if r["info"].get("dynamic") else ("--" if r["info"]["system"] != "spacy" else ":")
                color = cmap(systems.index(r["info"]["system"]) % 10)
                label = rid if r["info"]["seed"] == rs[0]["info"]["seed"] else None
                ax.plot([p[0] for p in pts], [p[2] for p in pts], style, color=color, label=label, lw=1.2)
        # mark where each epoch starts (first evaluation logged in it)
        marked = set()
        for rs in groups[key].values():
            for r in rs:
                for step, epoch, _ in curve(r):
                    if epoch and epoch not in marked:
                        marked.add(epoch)
                        ax.axvline(step, color="grey", lw=0.6, ls=":")
                        ax.text(step, ax.get_ylim()[0], f" epoch {epoch}", fontsize=6, color="grey",
                                rotation=90, va="bottom")
                break
            break
        ax.set_title(f"{key[0].replace('UD_', '')} ({key[1]})", fontsize=9)
        ax.set_xlabel("training step (dev evaluated every eval_frequency steps)")
        ax.set_ylabel("dev LAS (spaCy scorer)")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.suptitle("Dev LAS during training (solid: exploring oracle, dashed: static, dotted: spaCy's parser)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(plot_dir / "learning_curves.png", dpi=110)
    plt.close(fig)
    written.append(plot_dir / "learning_curves.png")
    # 3. parse speed vs LAS
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    markers = "osD^v<>ph*"
    for k, key in enumerate(keys):
        for j, (rid, rs) in enumerate(groups[key].items()):
            speed = [value(r, "test", ("speed", "words_per_s")) for r in rs]
            las = [value(r, "test", ("LAS", "f1")) for r in rs]
            pts = [(s, l) for s, l in zip(speed, las) if s is not None and l is not None]
            if not pts:
                continue
            ax.scatter([statistics.fmean(p[0] for p in pts)], [statistics.fmean(p[1] for p in pts)],
                       marker=markers[k % len(markers)], color=cmap(j % 10),
                       label=f"{key[0].replace('UD_', '')} {rid}")
    ax.set_xlabel("parse speed, words/s (whole pipeline, test set)")
    ax.set_ylabel("test LAS")
    ax.legend(fontsize=6, ncol=1, loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(plot_dir / "speed_vs_las.png", dpi=110)
    plt.close(fig)
    written.append(plot_dir / "speed_vs_las.png")
    return written


def dynamic_vs_static(by_id):
    """Sentences: where the exploring oracle beats the static one of the same system."""
    out = []
    systems = defaultdict(dict)
    for rid, rs in by_id.items():
        info = rs[0]["info"]
        if info["system"] == "spacy" or not rid.endswith("-" + info["oracle"]):
            continue   # e.g. udpipe1-swap: no static/dynamic pair in its id
        base = rid[: -len(info["oracle"]) - 1]
        las = [value(r, "test", ("LAS", "f1")) for r in rs]
        las = [v for v in las if v is not None]
        if las:
            systems[base][(info["oracle"], info.get("dynamic"))] = (statistics.fmean(las), len(las))
    for base, oracles in systems.items():
        static = [v for (o, d), v in oracles.items() if o == "static"]
        if not static:
            continue
        for (o, d), (m, n) in oracles.items():
            if o == "static":
                continue
            diff = m - static[0][0]
            verdict = "beats" if diff > 0 else ("ties" if diff == 0 else "does not beat")
            out.append(f"{base}: {o} {verdict} static ({m:.2f} vs {static[0][0]:.2f} test LAS, "
                       f"{diff:+.2f}; {n} seed(s))")
    return out


def versus_spacy(by_id):
    """Sentences: LAS and non-projective arc recall of each run vs spaCy's parser."""
    stock = by_id.get("spacy_parser")
    if not stock:
        return []

    def mean(rs, path):
        vals = [value(r, "test", path) for r in rs]
        vals = [v for v in vals if v is not None]
        return statistics.fmean(vals) if vals else None

    s_las, s_np = mean(stock, ("LAS", "f1")), mean(stock, ("NonProjArcs", "recall"))
    out = []
    for rid, rs in by_id.items():
        if rid == "spacy_parser":
            continue
        las, np_r = mean(rs, ("LAS", "f1")), mean(rs, ("NonProjArcs", "recall"))
        if las is None or s_las is None:
            continue
        text = f"{rid}: LAS {las - s_las:+.2f}"
        if np_r is not None and s_np is not None:
            text += f", non-projective arc recall {np_r - s_np:+.1f} ({np_r:.1f} vs {s_np:.1f})"
        g_las, g_np = mean(rs, ("greedy", "LAS", "f1")), mean(rs, ("greedy", "NonProjArcs", "recall"))
        if g_las is not None:      # UDPipe 1: the same model decoded greedily, like the spaCy parsers
            text += f"; greedy (beam_search=1): LAS {g_las:.2f} ({g_las - s_las:+.2f})"
            if g_np is not None and s_np is not None:
                text += f", non-projective arc recall {g_np:.1f} ({g_np - s_np:+.1f})"
        out.append(text + " vs spaCy's parser")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--output", type=Path, default=PROJECT / "training")
    ap.add_argument("--md", type=Path, default=PROJECT / "results.md")
    ap.add_argument("--plots", type=Path, default=PROJECT / "plots")
    ap.add_argument("--title", default="UD results")
    ap.add_argument("--commands", default="", help="text for the 'How produced' section")
    args = ap.parse_args(argv)
    runs = [r for r in load_runs(args.output) if r["test"] is not None or r["dev"] is not None]
    groups = group(runs)
    v = versions()
    lines = [f"# {args.title}", "",
             f"spacy-dynoracle {v['spacy_dynoracle']} (git {v['git']}), spaCy {v['spacy']}, "
             f"Python {v['python']}, {v['machine']}. {len(runs)} evaluated runs.", ""]
    if args.commands:
        lines += ["## How produced", "", "```sh", args.commands.strip(), "```", ""]
    lines += ["Scores: CoNLL-18 definitions (spacy_dynoracle.evaluate), gold words, the parser "
              "segments (Docs of 10 gold sentences), model-best (best dev score during training). "
              "LAS/UAS/CLAS/NP on test; dev LAS on dev (last 10% of train where UD has no dev). "
              "NP = non-projective arcs: recall over the gold ones, precision over the predicted ones "
              "(– = undefined: the parser predicted no non-projective arc). words/s = whole "
              "pipeline (tok2vec + parser) on test per second of process CPU time; train CPU s = "
              "CPU seconds of `spacy train` (both robust to other jobs on a shared machine); "
              "train s = its wall-clock time. Mean ± std over seeds; best mean per column in "
              "**bold**.", ""]
    if any(r["info"]["system"] in EXTERNAL for r in runs):
        lines += ["udpipe1-* rows: UDPipe 1 (scripts/udpipe_peer.py) with its own tagger and the "
                  "named Parsito parser, trained on the same train/dev split, parsing the same gold "
                  "words with predicted UPOS/FEATS; unlike the spaCy runs it parses one gold "
                  "sentence at a time (gold sentence boundaries) with its default beam search "
                  "(beam_search=5; the spaCy parsers are greedy: the greedy scores of the same "
                  "model are in its eval_*.json and in the comparison with spaCy's parser), its "
                  "words/s include its tagger, "
                  "its train time includes training the tagger, and its training is deterministic "
                  "(one run). See run.json of each for the exact UDPipe options.", ""]
    for (tb, pipe), by_id in groups.items():
        lines += [f"## {tb} ({pipe} pipeline)", ""]
        tbl, _ = table(by_id)
        lines += tbl + [""]
        dvs = dynamic_vs_static(by_id)
        if dvs:
            lines += ["Dynamic vs static:", ""] + [f"* {s}" for s in dvs] + [""]
        vs = versus_spacy(by_id)
        if vs:
            lines += ["Against spaCy's parser (pseudo-projective lifting), test set:", ""] + \
                [f"* {s}" for s in vs] + [""]
    written = plots(groups, args.plots)
    if written:
        lines += ["## Plots", ""]
        lines += [f"![{p.stem}]({p.relative_to(args.md.parent) if p.is_relative_to(args.md.parent) else p})"
                  for p in written]
        lines.append("")
    args.md.write_text("\n".join(lines))
    print(f"wrote {args.md} and {len(written)} plots in {args.plots}")


if __name__ == "__main__":
    main()
