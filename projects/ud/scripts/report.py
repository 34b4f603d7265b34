"""Collect every evaluated run under training/ into results.md and PNG plots.

    python scripts/report.py [--output training] [--md results.md] [--plots plots]

results.md: per treebank and pipeline, one row per (system, oracle): test LAS / UAS /
CLAS, non-projective arc precision / recall / F1 (CoNLL-18 definitions, gold words, the
parser segments), dev LAS, test LAS with the gold sentence boundaries preset
(scripts/evaluate_run.py --gold-sents; the condition UDPipe 1 parses in) and the F1 of the
sentences the parser makes when it segments, parse speed (words/s of the whole pipeline on test) and
training time, as mean ± std over seeds (std over >= 2 seeds); the best mean of each
column per treebank in bold. Across treebanks, a summary: every run id trained on two or
more of them, each exploring oracle minus the static ones of its system (with the seeds in
which it is higher), and the best of ours against spaCy's parser and UDPipe 1.
Plots: final_table.png (the final table's rows), las_by_system.png (test LAS of every run
id, one panel per treebank), learning_curves.png (dev LAS during training of the final rows,
or of every run where a treebank has none; static dashed / dynamic solid), speed_vs_las.png
(test LAS against words/s, one panel per treebank).
"""
import argparse
import json
import math
import re
import statistics
from collections import defaultdict
from pathlib import Path

from matrix import make_run, run_base
from udproj import PROJECT, versions

COLUMNS = [  # (header, eval split, path in the eval JSON, decimals)
    ("LAS", "test", ("LAS", "f1"), 2),
    ("UAS", "test", ("UAS", "f1"), 2),
    ("CLAS", "test", ("CLAS", "f1"), 2),
    ("NP P", "test", ("NonProjArcs", "precision"), 1),
    ("NP R", "test", ("NonProjArcs", "recall"), 1),
    ("NP F1", "test", ("NonProjArcs", "f1"), 1),
    ("dev LAS", "dev", ("LAS", "f1"), 2),
    ("LAS gold sents", "test_gold_sents", ("LAS", "f1"), 2),
    ("LAS gold sents, model-last", "test_gold_sents_last", ("LAS", "f1"), 2),
    ("sent F1", "test", ("Sentences", "f1"), 1),
    ("UPOS", "test", ("UPOS",), 2),
    ("UFeats", "test", ("UFeats",), 2),
    ("best epoch", "log", ("best_epoch",), 0),
    ("epochs", "log", ("epochs",), 0),
    ("words/s", "test", ("speed", "words_per_cpu_s"), 0),
    ("train CPU s", "run", ("train_cpu_seconds",), 0),
    ("updates", "cost", ("updates",), 0),
    ("train CPU s / 100 updates", "cost", ("cpu_s_per_100_updates",), 1),
    ("train s", "run", ("train_seconds",), 0),
]
LOWER_IS_BETTER = {"train s", "train CPU s", "train CPU s / 100 updates"}
UNRANKED = {"best epoch", "epochs", "updates"}
#: peers, neither ours nor spaCy's parser: UDPipe 1 (scripts/udpipe_peer.py) and spaCy's
#: biaffine parser (scripts/biaffine.py); system -> its column in the comparison with ours
EXTERNAL = {"udpipe1": "UDPipe 1 best", "biaffine": "biaffine parser"}
GOLD_SENTENCES_ONLY = {"udpipe1"}   # parses gold sentences only: its test scores are those
#: what the report says about each peer's rows when it has some
PEER_NOTES = {
    "udpipe1": "udpipe1-* rows: UDPipe 1 (scripts/udpipe_peer.py) with its own tagger and the "
               "named Parsito parser, trained on the same train/dev split, parsing the same gold "
               "words with predicted UPOS/FEATS; unlike the spaCy runs it parses one gold "
               "sentence at a time (gold sentence boundaries) with its default beam search "
               "(beam_search=5; the spaCy parsers are greedy: the greedy scores of the same "
               "model are in its eval_*.json and in the comparison with spaCy's parser), its "
               "words/s include its tagger, its train time includes training the tagger, and its "
               "training is deterministic (one run). See run.json of each for the exact UDPipe options.",
    "biaffine": "biaffine rows: spaCy's biaffine parser (spacy-experimental 0.6.4, "
                "configs/biaffine_tagger.cfg, scripts/biaffine.py): the same tok2vec, tagger, "
                "morphologizer, Docs, batcher, optimizer and stopping rule as the spaCy runs, with a "
                "senter and an arc predicter (pairwise bilinear arc scores, a maximum spanning tree "
                "per sentence: natively non-projective) and an arc labeler in place of the parser; "
                "spaCy 3.7 and torch (one thread) in their own venv. Greedy (no beam); it "
                "segments with its senter. Its arc scores have no distance or direction term and "
                "the shared CNN tok2vec's vectors carry no position, so its spanning trees cross "
                "much more than gold ones (Hungarian dev: 38% of the words get a crossing arc, "
                "against 1.9% non-projective gold arcs); README, \"The converged Hungarian run\".",
}


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
        for split in ("dev", "test", "test_gold_sents", "test_gold_sents_last"):
            run[split] = None
        # every eval_<split>.json of evaluate_run.py / udpipe_peer.py, including the
        # _last and _beamK variants (run["dev_beam4"] is eval_dev_beam4.json)
        for path in folder.glob("eval_*.json"):
            run[path.stem[len("eval_"):]] = json.loads(path.read_text())
        if run["info"].get("system") in GOLD_SENTENCES_ONLY:   # UDPipe 1 parses gold sentences
            run["test_gold_sents"] = run["test"]
        log = folder / "train_log.jsonl"
        run["log"] = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] \
            if log.exists() else []
        run["log_summary"] = log_summary(run["log"])
        run["cost"] = training_cost(run["info"], run["log_summary"])
        runs.append(run)
    return runs


def log_summary(log):
    """The epoch of the best dev score (model-best) and the epochs trained, from the log,
    counted from 1 (spaCy's log counts epochs from 0)."""
    scored = [rec for rec in log if rec.get("score") is not None]
    if not scored:
        return {}
    best = max(scored, key=lambda rec: rec["score"])   # the first of equal scores, as spaCy
    return {"best_epoch": best.get("epoch", -1) + 1, "best_step": best.get("step"),
            "epochs": scored[-1].get("epoch", -1) + 1, "steps": scored[-1].get("step")}


def training_cost(info, summary):
    """The updates trained (the last evaluated step) and the train CPU per 100 of them: runs
    that stop at different updates compare by the second (issue 23's converged ratios)."""
    cpu, updates = info.get("train_cpu_seconds"), (summary or {}).get("steps")
    if not cpu or not updates:
        return {}
    return {"updates": updates, "cpu_s_per_100_updates": 100 * cpu / updates}


def value(run, split, path):
    source = {"run": run["info"], "log": run.get("log_summary"),
              "cost": run.get("cost")}.get(split, run.get(split))
    return dig(source, path)


def seed_values(rs, split, path):
    """The runs' values at path in split, one per seed that has it (None left out)."""
    return [v for v in (value(r, split, path) for r in rs) if v is not None]


def fmt(values, decimals):
    values = [v for v in values if v is not None]
    if not values:
        return "–", None
    mean = statistics.fmean(values)
    text = f"{mean:,.{decimals}f}"
    if len(values) > 1:
        text += f" ± {statistics.stdev(values):,.{decimals}f}"
    return text, mean


def difference(mine, other) -> str:
    """mean(mine) - mean(other) of two rows' per-seed values, marked † where their seeds
    overlap (some seed of the lower row is at or above some seed of the higher one): the
    difference is then inside the seed spread."""
    d = statistics.fmean(mine) - statistics.fmean(other)
    low, high = (mine, other) if d < 0 else (other, mine)
    return f"{d:+.2f}" + ("†" if max(low) >= min(high) else "")


def default_run(system, oracle="dynamic", options=None) -> str:
    """The run id of a system with its defaults (matrix.make_run names the options a system
    sets by default, e.g. attardi's static target): when a default changes, the tables follow
    it to the runs trained under it."""
    return make_run(system, oracle, options).id


#: issue 18's final table: (row, run id), each system with its defaults (the factory's
#: choice when the config leaves oracle and schedule null: README, "Transition systems"),
#: the package default first after spaCy's parser, then the peers. arc_eager's runs name the
#: schedule they were given explicitly (k0-p1.0, its default since), so its id is written out
FINAL_ROWS = [
    ("spaCy's parser", "spacy_parser"),
    ("arc_eager_nm, spacy costs (package default)", default_run("arc_eager_nm", "spacy")),
    ("arc_eager dynamic", "arc_eager-system_options.close_sentencestrue-system_options.keep_sentencestrue-dynamic-k0-p1.0"),
    ("arc_hybrid dynamic", default_run("arc_hybrid")),
    ("arc_standard dynamic", default_run("arc_standard")),
    ("lr_spine dynamic", default_run("lr_spine")),
    ("swap dynamic, target temperature 2", default_run("swap")),
    ("attardi dynamic, static target", default_run("attardi")),
    ("UDPipe 1, projective dynamic (beam 5)", "udpipe1-projective-dynamic"),
    ("UDPipe 1, projective dynamic, parser trained on gold tags (beam 5)",
     "udpipe1-projective-dynamic+gold-tags"),
    ("UDPipe 1, swap static-lazy (beam 5)", "udpipe1-swap"),
    ("UDPipe 1, link2 static (beam 5)", "udpipe1-link2"),
    ("spaCy's biaffine parser", "biaffine"),
    # English-EWT: a run to the stopping rule takes 2-8 CPU hours there, more than a session,
    # so its row is the model-best of as many updates as spaCy's parser's seed 0 took
    ("spaCy's biaffine parser, first 4,200 updates (not converged: a lower bound)",
     "biaffine+first4200"),
]
#: its columns: (header, eval split, path in the eval JSON, decimals); gold sentences first
#: (the headline, as UDPipe 1 parses), then the parser's own segmentation
FINAL_COLUMNS = [
    ("LAS", "test_gold_sents", ("LAS", "f1"), 2),
    ("UAS", "test_gold_sents", ("UAS", "f1"), 2),
    ("CLAS", "test_gold_sents", ("CLAS", "f1"), 2),
    ("NP R", "test_gold_sents", ("NonProjArcs", "recall"), 1),
    ("NP P", "test_gold_sents", ("NonProjArcs", "precision"), 1),
    ("UPOS", "test_gold_sents", ("UPOS",), 2),
    ("UFeats", "test_gold_sents", ("UFeats",), 2),
    ("LAS, own sentences", "test", ("LAS", "f1"), 2),
    ("sent F1", "test", ("Sentences", "f1"), 1),
    ("train CPU s", "run", ("train_cpu_seconds",), 0),
]


def final_table(groups, rows=FINAL_ROWS, columns=FINAL_COLUMNS):
    """Issue 18's final table, one per treebank: the given rows in their order (a row with no
    run is left out), each cell mean ± std over seeds; Δ = LAS with gold sentences minus
    spaCy's parser's, marked † where the two rows' seeds overlap (some seed of the lower
    row scores at least some seed of the higher one: the difference is inside the seed
    spread)."""
    lines = ["## The final table", "",
             "Test set, each system with its defaults, mean ± std over seeds (the seeds column). "
             "LAS to UFeats with the gold sentence boundaries preset (the parser only attaches; "
             "UDPipe 1 always parses so); \"own sentences\" and sent F1 when the pipeline "
             "segments the Docs of 10 sentences itself. NP R / NP P: recall of the gold "
             "non-projective arcs / precision of the predicted ones. Δ: LAS minus spaCy's "
             "parser's; † the seeds of the two rows overlap (inside the seed spread).", ""]
    las_path = ("LAS", "f1")
    for (tb, pipe), by_id in groups.items():
        present = [(label, rid) for label, rid in rows if rid in by_id]
        if not present:
            continue
        stock = seed_values(by_id.get("spacy_parser", []), "test_gold_sents", las_path)
        lines += [f"### {tb} ({pipe} pipeline)", "",
                  "| row | seeds | " + " | ".join(h for h, *_ in columns) + " | Δ |",
                  "|---|--:|" + "--:|" * (len(columns) + 1)]
        for label, rid in present:
            rs = by_id[rid]
            cells = [fmt([value(r, split, path) for r in rs], dec)[0] for _, split, path, dec in columns]
            mine = seed_values(rs, "test_gold_sents", las_path)
            delta = ""
            if rid != "spacy_parser" and mine and stock:
                delta = difference(mine, stock)
            lines.append(f"| {label} | {len(rs)} | " + " | ".join(cells) + f" | {delta} |")
        lines.append("")
    return lines


#: issue 19's done-when, item 1: each non-projective system's default dynamic row against its
#: static oracle's row (swap: static-lazy, the static oracle of Nivre, Kuhlmann and Hall 2009
#: the package's swap page compares against)
ISSUE19_ORACLE_PAIRS = [
    ("attardi, degree 2", default_run("attardi"), default_run("attardi", "static")),
    ("attardi, degree 3", default_run("attardi", options={"degree": 3}),
     default_run("attardi", "static", {"degree": 3})),
    ("swap", default_run("swap"), default_run("swap", "static-lazy")),
    ("lr_spine", default_run("lr_spine"), default_run("lr_spine", "static")),
]
#: items 2 and 3: per treebank, the least Δ LAS (best native non-projective configuration minus
#: the best projective one; above = > 0) and the least recall of the gold non-projective arcs
ISSUE19_TARGETS = {
    "UD_Latin-Perseus": ("above", 30.0),
    "UD_Ancient_Greek-PTNK": ("above", 40.0),
    "UD_Hungarian-Szeged": ("within 0.5", 40.0),
    "UD_Greek-GDT": ("within 0.5", None),
}
NONPROJECTIVE_SYSTEMS = ("swap", "attardi")
PROJECTIVE_SYSTEMS = ("arc_eager", "arc_eager_nm", "arc_hybrid", "arc_standard", "lr_spine", "easy_first")
#: the projective systems whose moves never undo an arc (all but arc_eager_nm, spaCy's
#: non-monotonic arc-eager): the diagnostic column of items 2-3, since swap and attardi are
#: monotonic too
MONOTONIC_PROJECTIVE_SYSTEMS = tuple(s for s in PROJECTIVE_SYSTEMS if s != "arc_eager_nm")
FINAL_SEEDS = 3


def issue19_scoreboard(groups):
    """Issue 19's done-when items 1-3, read off the records: test LAS mean over seeds, with
    gold sentences (the final tables' headline) and with the parser's own segmentation, as
    the issue measures them; an item is met when it holds with both (item 1: a table for
    each), and only when both of its rows have FINAL_SEEDS seeds, otherwise it is open with
    the seeds so far. The configurations of items 2 and 3 are chosen on dev LAS among each
    treebank's rows with FINAL_SEEDS seeds, as the results' comparisons choose them. A test
    difference is marked † where the two rows' seeds overlap (`difference`)."""
    las, gold = ("LAS", "f1"), "test_gold_sents"
    by_tb = {tb: by_id for (tb, pipe), by_id in groups.items() if tb in ISSUE19_TARGETS}
    if not by_tb:
        return []
    tbs = [tb for tb in ISSUE19_TARGETS if tb in by_tb]
    per_seed = lambda rs, split: seed_values(rs, split, las)
    seeds = lambda rs: len(per_seed(rs, gold))
    lines = ["## Issue 19's done-when, from the records", "",
             f"Test LAS, mean over seeds (seeds); met / missed once both rows have {FINAL_SEEDS} "
             f"seeds, open before. Item 1: each system's default dynamic oracle minus its static "
             f"oracle (≥ 0 meets it), measured as the issue asks, with the gold sentence "
             f"boundaries preset (the headline) and with the parser's own segmentation; † the "
             f"seeds of the two rows overlap (the difference is inside the seed spread)."]
    for split, measured in ((gold, "gold sentences"), ("test", "the parser's own segmentation")):
        lines += ["", f"| item 1, {measured}: dynamic − static | "
                  + " | ".join(tb.replace("UD_", "") for tb in tbs) + " |",
                  "|---|" + "---|" * len(tbs)]
        for label, dyn, static in ISSUE19_ORACLE_PAIRS:
            cells = []
            for tb in tbs:
                d, s = per_seed(by_tb[tb].get(dyn, []), split), per_seed(by_tb[tb].get(static, []), split)
                verdict = f"open ({len(d)} / {len(s)} seeds)"
                if min(len(d), len(s)) >= FINAL_SEEDS:
                    verdict = "met" if statistics.fmean(d) >= statistics.fmean(s) else "missed"
                cells.append(f"{difference(d, s)}: {verdict}" if d and s else verdict)
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "Items 2 and 3: the best native non-projective configuration (swap or attardi) "
              "and the best projective one of the package, each chosen on dev LAS among the rows "
              f"with {FINAL_SEEDS} seeds; Δ = test LAS of the first minus the second (dev in "
              "brackets); NP R = the first's recall of the gold non-projective arcs on test; "
              "own seg. = the same on test with the parser's own segmentation; † as above. An "
              "item is met when it holds with both segmentations. "
              "The last two columns, a diagnostic: the best projective configuration whose moves "
              "never undo an arc (every one but arc_eager_nm; swap and attardi are monotonic too) "
              "and the non-projective one's Δ against it.", "",
              "| treebank | non-projective (dev) | projective (dev) | Δ test (dev) | Δ own seg. | item 2 "
              "| NP R | NP R own seg. | item 3 | monotonic projective (dev) | Δ test (dev) |",
              "|---|---|---|--:|--:|---|--:|--:|---|---|--:|"]
    for tb in tbs:
        full = {rid: rs for rid, rs in by_tb[tb].items() if seeds(rs) >= FINAL_SEEDS}

        def best(systems):
            rows = [rid for rid, rs in full.items() if rs[0]["info"]["system"] in systems]
            return max(rows, key=lambda rid: mean_of(full[rid], las, "dev") or 0.0, default=None)

        n, p, m = best(NONPROJECTIVE_SYSTEMS), best(PROJECTIVE_SYSTEMS), best(MONOTONIC_PROJECTIVE_SYSTEMS)
        if n is None or p is None:
            lines.append(f"| {tb.replace('UD_', '')} | {n or '–'} | {p or '–'} | | | open | | | open | | |")
            continue

        def gap(other, split=gold):
            return mean_of(full[n], las, split) - mean_of(full[other], las, split)

        def versus(other, split=gold):
            test = difference(per_seed(full[n], split), per_seed(full[other], split))
            return test if split != gold else f"{test} ({gap(other, 'dev'):+.2f})"

        rule, least_recall = ISSUE19_TARGETS[tb]
        segmentations = (gold, "test")
        met2 = all(gap(p, split) > 0 if rule == "above" else gap(p, split) >= -0.5
                   for split in segmentations)
        recall, own_recall = (mean_of(full[n], ("NonProjArcs", "recall"), split)
                              for split in segmentations)
        item3 = "–" if least_recall is None else \
            ("met" if min(recall, own_recall) >= least_recall else "missed") + f" (≥ {least_recall:.0f})"
        lines.append(f"| {tb.replace('UD_', '')} | {n} ({mean_of(full[n], las, 'dev'):.2f}) | "
                     f"{p} ({mean_of(full[p], las, 'dev'):.2f}) | {versus(p)} | {versus(p, 'test')} | "
                     f"{'met' if met2 else 'missed'} ({rule}) | {recall:.1f} | {own_recall:.1f} | {item3} | "
                     + (f"{m} ({mean_of(full[m], las, 'dev'):.2f}) | {versus(m)} |" if m else "– | |"))
    return lines + [""]


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
    # a column no run fills (UPOS without a tagger, model-last before it was scored) is left out
    columns = [c for c in COLUMNS if any(value(r, c[1], c[2]) is not None
                                         for rs in by_id.values() for r in rs)]
    rows, means = [], defaultdict(dict)
    for rid, rs in by_id.items():
        cells = [rid, str(len(rs))]
        for header, split, path, dec in columns:
            text, mean = fmt([value(r, split, path) for r in rs], dec)
            cells.append(text)
            means[header][rid] = mean
        rows.append(cells)
    # bold the best mean per column
    for c, (header, *_rest) in enumerate(columns):
        vals = {rid: m for rid, m in means[header].items() if m is not None}
        if len(vals) < 2 or header in UNRANKED:
            continue
        best = (min if header in LOWER_IS_BETTER else max)(vals.values())
        for row in rows:
            if vals.get(row[0]) == best:
                row[c + 2] = f"**{row[c + 2]}**"
    head = ["system-oracle", "seeds"] + [h for h, *_ in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "--:|" * len(columns)]
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


def plot_label(rid: str) -> str:
    """A run id as a tick label: system options without their config path and "true"
    (arc_hybrid-system_options.close_sentencestrue-dynamic -> arc_hybrid-close_sentences-dynamic)."""
    return re.sub(r"true(?=-|$)", "", rid.replace("system_options.", ""))


def panel_title(key) -> str:
    """A plot panel's title: the treebank without "UD_" and the pipeline."""
    return f"{key[0].replace('UD_', '')} ({key[1]})"


def panel_grid(plt, n: int, per_row: int = 3, panel_size=(6, 5)):
    """A figure with n panels in rows of `per_row` (six treebank panels in one row are
    unreadable), each `panel_size` inches; the unused cells of the last row are hidden.
    Returns (figure, the n axes)."""
    ncols = min(per_row, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size[0] * ncols, panel_size[1] * nrows),
                             squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def bar_color(system: str, dynamic: bool = True) -> str:
    """A row's colour in the plots: spaCy's parser grey, the biaffine parser purple, UDPipe 1
    green; the package's rows blue (an exploring oracle) or orange (a static one)."""
    return ("tab:gray" if system == "spacy" else "tab:purple" if system == "biaffine" else
            "tab:green" if system in EXTERNAL else "tab:blue" if dynamic else "tab:orange")


def final_plot_rows(by_id, rows=FINAL_ROWS):
    """The final table's rows of one treebank as the headline plot draws them: (label, system,
    the seeds' test LAS with gold sentences, mean recall of the gold non-projective arcs or
    None), in the table's order, leaving out a row without runs or scores."""
    las_path, recall_path = ("LAS", "f1"), ("NonProjArcs", "recall")
    drawn = []
    for label, rid in rows:
        rs = by_id.get(rid, [])
        las = seed_values(rs, "test_gold_sents", las_path)
        if not las:
            continue
        recall = seed_values(rs, "test_gold_sents", recall_path)
        drawn.append((label, rs[0]["info"]["system"], las, statistics.fmean(recall) if recall else None))
    return drawn


def curve_rows(by_id, rows=FINAL_ROWS):
    """The runs a treebank's learning-curve panel draws, as (label, run id): the final table's
    rows that have runs, in its order, or every run where it has none (a screen)."""
    final = [(label, rid) for label, rid in rows if by_id.get(rid)]
    return final or [(plot_label(rid), rid) for rid in by_id]


def final_plot(groups, plot_dir: Path, plt, rows=FINAL_ROWS):
    """The final table as a figure, one panel per treebank: test LAS with gold sentences, mean
    (bar) and each seed (dots), spaCy's parser's mean as a dashed line, each row's recall of
    the gold non-projective arcs in its label. Returns the file, or None when no treebank has
    a final row."""
    panels = [(key, final_plot_rows(by_id, rows)) for key, by_id in groups.items()]
    panels = [(key, drawn) for key, drawn in panels if drawn]
    if not panels:
        return None
    plot_dir.mkdir(parents=True, exist_ok=True)
    # two panels a row and a constrained layout: the row labels are long
    ncols = min(2, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(8 * ncols, 0.3 * len(rows) * nrows + 1.5),
                             squeeze=False, layout="constrained")
    for ax in grid.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (key, drawn) in zip(grid.flat, panels):
        ys = range(len(drawn))[::-1]      # the table's first row on top
        means = [statistics.fmean(las) for _, _, las, _ in drawn]
        colors = [bar_color(system) for _, system, _, _ in drawn]
        ax.barh(list(ys), means, color=colors, alpha=0.8)
        for y, (_, _, las, _) in zip(ys, drawn):
            ax.plot(las, [y] * len(las), "k.", ms=4)
        stock = [m for m, (_, system, _, _) in zip(means, drawn) if system == "spacy"]
        if stock:
            ax.axvline(stock[0], color="tab:gray", ls="--", lw=1)
        labels = [f"{label} ({len(las)}; NP R {recall:.0f}%)" if recall is not None else
                  f"{label} ({len(las)})" for label, _, las, recall in drawn]
        ax.set_yticks(list(ys), labels, fontsize=7)
        low = min(min(las) for _, _, las, _ in drawn)
        high = max(max(las) for _, _, las, _ in drawn)
        ax.set_xlim(max(0, low - 2), min(100, high + 1.5))
        for y, m, (_, _, las, _) in zip(ys, means, drawn):
            ax.text(max(max(las), m), y, f"  {m:.2f}", va="center", fontsize=7)
        ax.set_title(panel_title(key), fontsize=9)
        ax.set_xlabel("test LAS, gold sentences")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("The final table, each system with its defaults: bar = mean, dots = seeds, dashed = "
                 "spaCy's parser's mean\n(blue: this package, grey: spaCy's parser, green: UDPipe 1, "
                 "purple: spaCy's biaffine parser; in brackets: seeds, recall of the gold "
                 "non-projective arcs)", fontsize=9)
    path = plot_dir / "final_table.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plots(groups, plot_dir: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plot_dir.mkdir(parents=True, exist_ok=True)
    keys = list(groups)
    written = []
    if not keys:
        return written
    # 0. the final table, the headline
    final = final_plot(groups, plot_dir, plt)
    if final is not None:
        written.append(final)
    # 1. LAS by system x oracle, one panel per treebank (and pipeline) in one column, bars
    # lying down: the run ids are long, and Hungarian holds every side experiment
    sizes = [len(groups[key]) for key in keys]
    fig, axes = plt.subplots(len(keys), 1, figsize=(10, 0.17 * sum(sizes) + 1.1 * len(keys) + 0.5),
                             squeeze=False, layout="constrained",
                             gridspec_kw={"height_ratios": [n + 6 for n in sizes]})
    for ax, key in zip(axes[:, 0], keys):
        ids = list(groups[key])
        vals = [[value(r, "test", ("LAS", "f1")) for r in groups[key][i]] for i in ids]
        means = [statistics.fmean([v for v in vs if v is not None] or [0]) for vs in vals]
        errs = [statistics.stdev(vs) if len(vs) > 1 else 0 for vs in vals]
        colors = [bar_color(groups[key][i][0]["info"]["system"], groups[key][i][0]["info"].get("dynamic"))
                  for i in ids]
        ys = range(len(ids))[::-1]        # the first run on top
        ax.barh(list(ys), means, xerr=errs, color=colors, capsize=2, height=0.7)
        ax.set_yticks(list(ys), [plot_label(i) for i in ids], fontsize=6)
        ax.set_ylim(-0.6, len(ids) - 0.4)
        lo = min(means) if means else 0
        ax.set_xlim(max(0, lo - 10), min(100, max(means) + 3))
        ax.set_title(panel_title(key), fontsize=9)
        ax.set_xlabel("test LAS")
        ax.grid(axis="x", alpha=0.3)
        for y, m, e in zip(ys, means, errs):
            ax.text(m + e, y, f" {m:.1f}", va="center", fontsize=6)     # past the error bar
    fig.suptitle("Test LAS by system x oracle (blue: exploring oracle, orange: static, grey: spaCy parser, "
                 "green: UDPipe 1, purple: spaCy's biaffine parser)", fontsize=9)
    fig.savefig(plot_dir / "las_by_system.png", dpi=110)
    plt.close(fig)
    written.append(plot_dir / "las_by_system.png")
    # 2. learning curves: the final table's rows where a treebank has them (every side
    # experiment in one panel was unreadable), else every run; a run's seeds share a colour
    fig, axes = panel_grid(plt, len(keys), per_row=2, panel_size=(8, 5.5))
    palette = plt.get_cmap("tab20")
    for ax, key in zip(axes, keys):
        top = 0.0
        for j, (label, rid) in enumerate(curve_rows(groups[key])):
            rs = groups[key][rid]
            for r in rs:
                pts = curve(r)
                if not pts:
                    continue
                top = max(top, max(p[2] for p in pts))
                style = "-" if r["info"].get("dynamic") else ("--" if r["info"]["system"] != "spacy" else ":")
                ax.plot([p[0] for p in pts], [p[2] for p in pts], style, color=palette(j % 20),
                        label=label if r is rs[0] else None, lw=1.1)
        # where the epochs start (first evaluation logged in each), at most a dozen marks
        steps = {}
        first = next((pts for rs in groups[key].values() for r in rs if (pts := curve(r))), [])
        for step, epoch, _ in first:
            if epoch:
                steps.setdefault(epoch, step)
        stride = max(1, math.ceil(len(steps) / 12))
        ax.set_ylim(max(0.0, top - 30), min(100.0, top + 2))     # the converging part, not the climb
        for epoch, step in sorted(steps.items()):
            if (epoch - 1) % stride == 0:
                ax.axvline(step, color="grey", lw=0.6, ls=":")
                ax.text(step, ax.get_ylim()[0], f" epoch {epoch}", fontsize=6, color="grey",
                        rotation=90, va="bottom")
        ax.set_title(panel_title(key), fontsize=9)
        ax.set_xlabel("training step (dev evaluated every eval_frequency steps)")
        ax.set_ylabel("dev LAS (spaCy scorer)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6, loc="lower right")
        ax.grid(alpha=0.3)
    fig.suptitle("Dev LAS during training (solid: exploring oracle, dashed: static, dotted: spaCy's parser)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(plot_dir / "learning_curves.png", dpi=110)
    plt.close(fig)
    written.append(plot_dir / "learning_curves.png")
    # 3. parse speed vs LAS, one panel per treebank (one legend for all of them overflowed the
    # figure once the runs passed twenty); a run is a colour x marker pair, its seeds' mean
    fig, axes = panel_grid(plt, len(keys), per_row=1, panel_size=(12, 5.5))
    palette, markers = plt.get_cmap("tab20"), "osD^v<>ph*"
    for ax, key in zip(axes, keys):
        for j, (rid, rs) in enumerate(groups[key].items()):
            speed = [value(r, "test", ("speed", "words_per_s")) for r in rs]
            las = [value(r, "test", ("LAS", "f1")) for r in rs]
            pts = [(s, l) for s, l in zip(speed, las) if s is not None and l is not None]
            if not pts:
                continue
            ax.scatter([statistics.fmean(p[0] for p in pts)], [statistics.fmean(p[1] for p in pts)],
                       marker=markers[(j // 20) % len(markers)], color=palette(j % 20), s=36,
                       label=plot_label(rid))
        ax.set_title(panel_title(key), fontsize=9)
        ax.set_xlabel("parse speed, words/s (whole pipeline, test set)")
        ax.set_ylabel("test LAS")
        ax.grid(alpha=0.3)
        handles = ax.get_legend_handles_labels()[0]
        if handles:     # one column (two squeezed the axes); smaller type once it nears the height
            ax.legend(fontsize=6 if len(handles) <= 30 else 5, loc="upper left",
                      bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.suptitle("Parse speed against test LAS (each point a run's mean over its seeds)", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))     # room for the title
    fig.savefig(plot_dir / "speed_vs_las.png", dpi=110)
    plt.close(fig)
    written.append(plot_dir / "speed_vs_las.png")
    return written


def stopped_at(log, patience):
    """Replay spaCy's patience rule on a run trained without one: the run stops at the first
    step where `patience` updates have passed since the best dev score (the earliest of
    equal scores). Returns (best score kept, step of the best, step where it stops)."""
    best, best_step = None, 0
    scored = [rec for rec in log if rec.get("score") is not None]
    for rec in scored:
        # spaCy evaluates before it checks, so an evaluation at best_step + patience counts
        if best is not None and rec["step"] - best_step > patience:
            return best, best_step, best_step + patience
        if best is None or rec["score"] > best:
            best, best_step = rec["score"], rec["step"]
    return best, best_step, scored[-1]["step"] if scored else 0


def stopping_rule(runs, patiences=(200, 400, 600, 800, 1200)):
    """For the runs trained to the epoch cap without patience: what each patience would have
    kept (dev score of model-best) and saved (updates), to choose the converged protocol's
    patience from learning curves instead of guessing it."""
    full = [r for r in runs if r["log"] and not (r["info"].get("settings") or {}).get("patience")]
    if not full:
        return []
    lines = ["## Stopping rule: patience replayed on runs trained to the cap", "",
             f"{len(full)} runs trained to the epoch cap without patience. For each patience (updates "
             "without a better dev score), spaCy's rule replayed on their logs: the runs whose "
             "model-best would be a worse one, the largest loss of dev score (spaCy's weighted "
             "score x 100, here (UAS + LAS) / 2), and the updates saved.", "",
             "| patience | runs with a worse model-best | largest dev loss | updates saved (mean) |",
             "|--:|--:|--:|--:|"]
    for patience in patiences:
        worse, losses, saved = 0, [], []
        for r in full:
            scored = [rec for rec in r["log"] if rec.get("score") is not None]
            best_all = max(rec["score"] for rec in scored)
            kept, _, stop = stopped_at(r["log"], patience)
            worse += kept < best_all
            losses.append(100 * (best_all - kept))
            saved.append(1 - stop / scored[-1]["step"])
        lines.append(f"| {patience} | {worse} of {len(full)} | {max(losses):.2f} | "
                     f"{100 * statistics.fmean(saved):.0f}% |")
    lines.append("")
    lines += ["Best epoch of each of those runs (the epoch of model-best) against the epochs trained: "
              + ", ".join(f"{r['info']['treebank'].replace('UD_', '')} {r['info']['run']} "
                          f"s{r['info']['seed']} {r['log_summary'].get('best_epoch')}/"
                          f"{r['log_summary'].get('epochs')}" for r in full), ""]
    return lines


def mean_of(rs, path, split="test"):
    vals = seed_values(rs, split, path)
    return statistics.fmean(vals) if vals else None


def oracle_pairs(by_id):
    """Every (exploring run, static run) of the same system and options, e.g. swap-dynamic-k2-p0.5
    vs swap-static-lazy: [(base, dynamic label, static label, dynamic mean, static mean, seeds
    where dynamic is higher, seeds both have)] on test LAS."""
    families = defaultdict(dict)
    for rid, rs in by_id.items():
        info = rs[0]["info"]
        if info["system"] == "spacy" or info["system"] in EXTERNAL or not info.get("oracle"):
            continue
        families[run_base(info["system"], info.get("options") or {})][rid] = rs
    out = []
    for base, members in families.items():
        dyn = [rid for rid, rs in members.items() if rs[0]["info"].get("dynamic")]
        static = [rid for rid, rs in members.items() if not rs[0]["info"].get("dynamic")]
        for d in dyn:
            for s in static:
                dm, sm = mean_of(members[d], ("LAS", "f1")), mean_of(members[s], ("LAS", "f1"))
                if dm is None or sm is None:
                    continue
                by_seed = [{r["info"]["seed"]: value(r, "test", ("LAS", "f1")) for r in members[x]}
                           for x in (d, s)]
                both = [k for k in by_seed[0] if k in by_seed[1]
                        and None not in (by_seed[0][k], by_seed[1][k])]
                wins = sum(by_seed[0][k] > by_seed[1][k] for k in both)
                out.append((base, d[len(base) + 1:], s[len(base) + 1:], dm, sm, wins, len(both)))
    return out


def dynamic_vs_static(by_id):
    """Sentences: where each exploring oracle beats a static one of the same system."""
    out = []
    for base, d, s, dm, sm, wins, n in oracle_pairs(by_id):
        diff = dm - sm
        verdict = "beats" if diff > 0 else ("ties" if diff == 0 else "does not beat")
        out.append(f"{base}: {d} {verdict} {s} ({dm:.2f} vs {sm:.2f} test LAS, {diff:+.2f}; "
                   f"higher in {wins} of {n} paired seed(s))")
    return out


def summary(groups):
    """Markdown tables across treebanks: test LAS / NP recall of every run id trained on at
    least two of them, dynamic - static per system, and ours vs spaCy's parser and UDPipe 1."""
    keys = list(groups)
    if len(keys) < 2:
        return []
    heads = [f"{tb.replace('UD_', '')}" + ("" if pipe == "parser" else f" ({pipe})") for tb, pipe in keys]
    lines = ["## Summary across treebanks", "",
             "Test LAS, mean over seeds / recall of the gold non-projective arcs (seeds); best LAS "
             "per treebank in bold. Rows trained on at least two treebanks.", ""]
    lines += across(groups, keys, heads, ("LAS", "f1"), "test", ("NonProjArcs", "recall"), "test", 1)
    lines += ["", "The same runs with the gold sentence boundaries preset (the parser only attaches; "
              "UDPipe 1 is always scored so) / the F1 of the sentences each parser makes when it "
              "segments the Docs of 10 sentences itself, as in the table above (seeds):", ""]
    lines += across(groups, keys, heads, ("LAS", "f1"), "test_gold_sents", ("Sentences", "f1"), "test", 1)
    lines += ["", "Exploring (dynamic) minus static oracle of the same system, test LAS (seeds where the "
              "dynamic run is higher / seeds both have):", "",
              "| system: dynamic vs static | " + " | ".join(heads) + " |", "|---|" + "--:|" * len(keys)]
    pairs = {k: {(b, d, s): (dm - sm, w, n) for b, d, s, dm, sm, w, n in oracle_pairs(groups[k])}
             for k in keys}
    for pair in sorted({p for k in keys for p in pairs[k]}):
        if sum(pair in pairs[k] for k in keys) < 2:
            continue
        cells = [f"{pairs[k][pair][0]:+.2f} ({pairs[k][pair][1]}/{pairs[k][pair][2]})" if pair in pairs[k]
                 else "" for k in keys]
        lines.append(f"| {pair[0]}: {pair[1]} vs {pair[2]} | " + " | ".join(cells) + " |")
    for split, title in (("test", "the parser segments"),
                         ("test_gold_sents", "gold sentence boundaries preset, as UDPipe 1 parses")):
        lines += versus_peers(groups, keys, heads, split, title)
    return lines + [""]


def across(groups, keys, heads, path, split, second, second_split, decimals):
    """Rows: run ids trained on >= 2 treebanks; cells: mean `path` of `split` / mean `second`
    of `second_split` (seeds); the best first value per treebank in bold."""
    lines = ["| system-oracle | " + " | ".join(heads) + " |", "|---|" + "--:|" * len(keys)]
    peers = {rid for k in keys for rid, rs in groups[k].items() if rs[0]["info"]["system"] in EXTERNAL}
    ids = sorted({rid for k in keys for rid in groups[k]},
                 key=lambda rid: (rid != "spacy_parser", rid in peers, rid))
    best = {k: max((mean_of(rs, path, split) or -1) for rs in groups[k].values()) for k in keys}
    for rid in ids:
        if sum(rid in groups[k] for k in keys) < 2:
            continue
        cells = []
        for k in keys:
            rs = groups[k].get(rid)
            first = mean_of(rs, path, split) if rs else None
            if first is None:
                cells.append("")
                continue
            n = sum(value(r, split, path) is not None for r in rs)
            other = mean_of(rs, second, second_split)
            text = f"{first:.2f} / {'–' if other is None else f'{other:.{decimals}f}'} ({n})"
            cells.append(f"**{text}**" if first == best[k] else text)
        lines.append(f"| {rid} | " + " | ".join(cells) + " |")
    return lines


def versus_peers(groups, keys, heads, split, title):
    """Ours (the rows with the most seeds) against spaCy's parser and each peer on `split`."""
    lines = ["", f"Ours against spaCy's parser (pseudo-projective lifting), UDPipe 1 and spaCy's biaffine "
             f"parser, test set, {title} (LAS / NP R; of ours, of the rows with the most seeds the one best on dev; UDPipe 1 "
             f"with its beam, greedy in brackets):", "",
             "| treebank | spaCy parser | ours, best on dev | Δ LAS | best NP R of ours | "
             + " | ".join(EXTERNAL.values()) + " |",
             "|---|--:|---|--:|---|" + "--:|" * len(EXTERNAL)]
    for k, head in zip(keys, heads):
        by_id = groups[k]
        stock = by_id.get("spacy_parser")
        s_las = mean_of(stock, ("LAS", "f1"), split) if stock else None
        s_np = mean_of(stock, ("NonProjArcs", "recall"), split) if stock else None
        ours = {rid: rs for rid, rs in by_id.items()
                if rs[0]["info"]["system"] not in EXTERNAL and rid != "spacy_parser"}
        if not ours or s_las is None:
            continue
        # a one-seed side experiment is no match for a mean over seeds: rows with the most seeds
        most = max(len(rs) for rs in ours.values())
        ours = {rid: rs for rid, rs in ours.items() if len(rs) == most}
        las = {rid: mean_of(rs, ("LAS", "f1"), split) for rid, rs in ours.items()}
        nps = {rid: mean_of(rs, ("NonProjArcs", "recall"), split) for rid, rs in ours.items()}
        if all(v is None for v in las.values()):   # e.g. no gold-sentence scores yet
            continue
        # chosen on dev, never on the split it is shown for (test): the row a user would pick
        dev = {rid: mean_of(rs, ("LAS", "f1"), "dev") for rid, rs in ours.items()}
        b = max((r for r in las if las[r] is not None),
                key=lambda r: (dev[r] is not None, dev[r] or 0.0, las[r]))
        n = max((r for r in nps if nps[r] is not None), key=nps.get, default=None)
        peers = [peer_cell({rid: rs for rid, rs in by_id.items() if rs[0]["info"]["system"] == system}, split)
                 for system in EXTERNAL]
        s_text = f"{s_las:.2f}" + (f" / {s_np:.1f}" if s_np is not None else "")
        n_text = f"{nps[n]:.1f} {n}" if n else "–"
        lines.append(f"| {head} | {s_text} | {las[b]:.2f} {b} ({most}) | {las[b] - s_las:+.2f} | {n_text} | "
                     + " | ".join(peers) + " |")
    return lines


def peer_cell(peers, split) -> str:
    """'LAS (greedy LAS) / NP R run id (seeds)' of the best of a peer's runs on `split`."""
    scored = {rid: rs for rid, rs in peers.items() if mean_of(rs, ("LAS", "f1"), split) is not None}
    if not scored:
        return ""
    # a peer with its default options where it has such rows; a '+' variant (UDPipe's parser on
    # gold tags, udpipe_peer.py) only where it has nothing else (English-EWT)
    scored = {rid: rs for rid, rs in scored.items() if "+" not in rid} or scored
    # chosen on dev like ours (UDPipe 1's dev scores are its runs' eval_dev.json)
    p = max(scored, key=lambda r: (mean_of(scored[r], ("LAS", "f1"), "dev") or 0.0,
                                   mean_of(scored[r], ("LAS", "f1"), split)))
    g = mean_of(scored[p], ("greedy", "LAS", "f1"), split)
    p_np = mean_of(scored[p], ("NonProjArcs", "recall"), split)
    return (f"{mean_of(scored[p], ('LAS', 'f1'), split):.2f}" + (f" ({g:.2f})" if g is not None else "")
            + (f" / {p_np:.1f}" if p_np is not None else "") + f" {p} ({len(scored[p])})")


def versus_spacy(by_id):
    """Sentences: LAS and non-projective arc recall of each run vs spaCy's parser."""
    stock = by_id.get("spacy_parser")
    if not stock:
        return []

    s_las, s_np = mean_of(stock, ("LAS", "f1")), mean_of(stock, ("NonProjArcs", "recall"))
    out = []
    for rid, rs in by_id.items():
        if rid == "spacy_parser":
            continue
        las, np_r = mean_of(rs, ("LAS", "f1")), mean_of(rs, ("NonProjArcs", "recall"))
        if las is None or s_las is None:
            continue
        text = f"{rid}: LAS {las - s_las:+.2f}"
        if np_r is not None and s_np is not None:
            text += f", non-projective arc recall {np_r - s_np:+.1f} ({np_r:.1f} vs {s_np:.1f})"
        g_las, g_np = mean_of(rs, ("greedy", "LAS", "f1")), mean_of(rs, ("greedy", "NonProjArcs", "recall"))
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
    for system, note in PEER_NOTES.items():
        if any(r["info"]["system"] == system for r in runs):
            lines += [note, ""]
    lines += summary(groups)
    lines += final_table(groups)
    lines += issue19_scoreboard(groups)
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
    lines += stopping_rule(runs)
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
