"""Issue 8's table: the window model (spacy_dynoracle.WindowParserModel.v1, arc_hybrid,
dynamic oracle) decoded greedily and exactly, next to the default greedy model
(configs/dynoracle.cfg, arc_hybrid dynamic) and spaCy's stock parser
(configs/spacy_parser.cfg): same tok2vec, epochs and seed; plus the expected calibration
error of the window model's arc marginals (spacy_dynoracle.calibration). Docs:
docs/tabulation.md.

    flock /tmp/dynoracle-cpu.lock python projects/ud/scripts/exact_table.py train \\
        --treebank UD_Hungarian-Szeged --output /tmp/issue8
    flock /tmp/dynoracle-cpu.lock python projects/ud/scripts/exact_table.py evaluate \\
        --treebank UD_Hungarian-Szeged --output /tmp/issue8
    python projects/ud/scripts/exact_table.py report --output /tmp/issue8 \\
        --treebank UD_Hungarian-Szeged --treebank UD_Greek-GDT

`train` runs train_one.py's `spacy train` command (overrides on the command line, run.json
with the command and versions) for the three models; the window model's config is
configs/dynoracle.cfg with only [components.parser.model] replaced (written to
<output>/configs/ and recorded). `evaluate` scores each model on the dev file with the
package's CoNLL-18 evaluation (gold words, the parser segments, Docs of 10 sentences, as
evaluate_run.py) and writes <run>/table_dev.json; the window model is scored twice from the
same weights (decode = "greedy" and "exact"), with the arc marginals on, so each decoding
also gets the calibration of its heads. Models: model-last (10 epochs, no early stopping,
so no model is selected on the data it is scored on).
"""
import argparse
import copy
import json
import time
from pathlib import Path

from udproj import CONFIGS, dev_source, run_dir, treebank_files, write_json
from matrix import Run, make_run
from train_one import train

WINDOW_MODEL = {
    "@architectures": "spacy_dynoracle.WindowParserModel.v1",
    # the default model's sizes (configs/dynoracle.cfg): only the state features differ
    "hidden_width": 128,
    "maxout_pieces": 3,
    "use_upper": True,
    "nO": None,
}


class WindowRun(Run):
    """arc_hybrid + dynamic oracle with the window model; config() is an absolute path
    (CONFIGS / absolute path == the absolute path)."""

    config_path: str = ""

    def config(self, pipeline="parser"):
        return self.config_path


def window_config(output: Path) -> Path:
    """configs/dynoracle.cfg with the parser model replaced by the window model."""
    from spacy.util import load_config

    cfg = load_config(CONFIGS / "dynoracle.cfg", interpolate=False)
    model = cfg["components"]["parser"]["model"]
    cfg["components"]["parser"]["model"] = dict(WINDOW_MODEL, tok2vec=copy.deepcopy(model["tok2vec"]))
    path = Path(output) / "configs" / "dynoracle_window.cfg"
    path.parent.mkdir(parents=True, exist_ok=True)
    cfg.to_disk(path)
    return path


def runs(output: Path):
    """(name, Run) of the table's three models."""
    base = make_run("arc_hybrid", "dynamic")
    window = WindowRun("arc_hybrid-window-dynamic", base.system, base.oracle, base.dynamic,
                       dict(base.options))
    window.config_path = str(window_config(output))
    return [("window", window), ("default", base), ("spacy", make_run("spacy"))]


def train_all(treebank, output, epochs, seed, ud_root=None, only=None):
    for name, run in runs(output):
        if only and name not in only:
            continue
        print(f"== {treebank} {name} ({run.id})", flush=True)
        train(run, treebank, output=output, seed=seed, ud_root=ud_root, epochs=epochs)


def _scores(result):
    return {k: result[k]["f1"] for k in ("UAS", "LAS", "CLAS")} | {
        "Sentences": (result.get("Sentences") or {}).get("f1")}


def evaluate_all(treebank, output, seed, ud_root=None, model="model-last", n_sents=10,
                 force=False):
    import spacy
    from spacy_dynoracle.calibration import evaluate_with_calibration
    from spacy_dynoracle.evaluate import evaluate_pipeline

    files = treebank_files(treebank, ud_root)
    path, select = dev_source(files)
    for name, run in runs(output):
        folder = run_dir(output, treebank, "parser", run.id, seed)
        out = folder / "table_dev.json"
        if out.exists() and not force:
            print(f"done already: {out}", flush=True)
            continue
        if not (folder / "run.json").exists():
            print(f"not trained yet: {folder}", flush=True)
            continue
        nlp = spacy.load(folder / model)
        record = {"treebank": treebank, "model": str(folder / model), "data": str(path),
                  "select": select, "n_sents": n_sents, "run": run.id}
        decodings = ("greedy", "exact") if name == "window" else (None,)
        # the parser segments (as evaluate_run.py), then gold sentence boundaries preset
        # (attachment alone: the window model sees too little to segment well)
        for gold_sents in (False, True):
            target = record.setdefault("gold_sents", {}) if gold_sents else record
            for decode in decodings:
                start, cpu = time.perf_counter(), time.process_time()
                if decode is None:
                    result = evaluate_pipeline(nlp, path, select=select, n_sents=n_sents,
                                               gold_sents=gold_sents)
                    calibration = None
                else:
                    result, calibration = evaluate_with_calibration(
                        nlp, path, select=select, n_sents=n_sents, decode=decode,
                        gold_sents=gold_sents)
                seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
                key = decode or "greedy"
                target[key] = {"scores": _scores(result), "words": result["words"],
                               "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1)}
                if calibration is not None:
                    target[key]["calibration"] = calibration
                line = (f"{treebank} {name} {key}{' gold-sents' if gold_sents else ''}: "
                        f"UAS {result['UAS']['f1']:.2f} LAS {result['LAS']['f1']:.2f}")
                if calibration is not None:
                    line += (f" ECE {100 * calibration['decoded']['ece']:.2f}"
                             f" (argmax {100 * calibration['argmax']['ece']:.2f})")
                print(line + f" [{seconds:.0f}s]", flush=True)
        record["speed"], hits, sizes = speed(nlp, path, select, n_sents, decodings)
        if name == "window":
            record["exact_minus_greedy"] = paired_bootstrap(hits["greedy"], hits["exact"], sizes)
            print(f"{treebank} window exact - greedy LAS: {record['exact_minus_greedy']}", flush=True)
        write_json(out, record)


def speed(nlp, path, select, n_sents, decodings):
    """Words per second (wall and process CPU) of nlp.pipe on the dev words, per decoding,
    marginals off: the parse alone (the tok2vec included). Also the correct (head + label,
    as LAS) words of each Doc, per decoding, for the paired comparison."""
    from spacy_dynoracle.conllu_io import sentences_to_docs, words_only_copy
    from spacy_dynoracle.corpus import read_sentences
    from spacy_dynoracle.evaluate import base_label

    gold = list(sentences_to_docs(nlp.vocab, read_sentences(path, select=select), n_sents,
                                  keep_source=False))
    words = sum(len(d) for d in gold)
    parser = nlp.get_pipe("parser")
    out, hits = {}, {}
    for decode in decodings:
        saved = dict(parser.cfg)
        if decode is not None:
            parser.cfg.update(decode=decode, arc_marginals=False)
        docs = [words_only_copy(doc) for doc in gold]
        start, cpu = time.perf_counter(), time.process_time()
        pred = list(nlp.pipe(docs, batch_size=64))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        parser.cfg.clear()
        parser.cfg.update(saved)
        key = decode or "greedy"
        out[key] = {"words": words, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                    "words_per_s": round(words / seconds), "words_per_cpu_s": round(words / cpu)}
        hits[key] = [sum(g.head.i == p.head.i and base_label(g.dep_) == base_label(p.dep_)
                         for g, p in zip(gd, pd)) for gd, pd in zip(gold, pred)]
    return out, hits, [len(d) for d in gold]


def paired_bootstrap(a, b, sizes, n_boot=2000, seed=0):
    """LAS(b) - LAS(a) in points over Docs, with a 95% percentile interval from resampling
    Docs (paired: both decodings of the same Docs)."""
    import numpy as np

    a, b, sizes = (np.asarray(x, dtype=float) for x in (a, b, sizes))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(sizes), size=(n_boot, len(sizes)))
    diffs = 100 * (b[idx].sum(1) - a[idx].sum(1)) / sizes[idx].sum(1)
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return {"diff": float(100 * (b.sum() - a.sum()) / sizes.sum()), "ci95": [float(lo), float(hi)],
            "docs": int(len(sizes)), "resamples": n_boot,
            "p_le_0": float((diffs <= 0).mean())}


def load_table(output, treebanks, seed):
    rows = {}
    for treebank in treebanks:
        row = {}
        for name, run in runs(output):
            out = run_dir(output, treebank, "parser", run.id, seed) / "table_dev.json"
            if out.exists():
                row[name] = json.loads(out.read_text())
        rows[treebank] = row
    return rows


def _cell(record, decode, key="LAS"):
    try:
        return f"{record[decode]['scores'][key]:.2f}"
    except (KeyError, TypeError):
        return "-"


def _table_rows(rows, pick):
    lines = []
    for treebank, row in rows.items():
        w, d, sp = (pick(row.get(k, {})) for k in ("window", "default", "spacy"))
        cells = [f"{_cell(w, 'greedy')} ({_cell(w, 'greedy', 'UAS')})",
                 f"{_cell(w, 'exact')} ({_cell(w, 'exact', 'UAS')})",
                 f"{_cell(d, 'greedy')} ({_cell(d, 'greedy', 'UAS')})",
                 f"{_cell(sp, 'greedy')} ({_cell(sp, 'greedy', 'UAS')})"]
        for decode in ("greedy", "exact"):
            try:
                cells.append(f"{100 * w[decode]['calibration']['decoded']['ece']:.2f}")
            except (KeyError, TypeError):
                cells.append("-")
        lines.append(f"| {treebank} | " + " | ".join(cells) + " |")
    return lines


def report(output, treebanks, seed):
    """Markdown: LAS (UAS) per treebank and model (parser-segmented, then gold sentences),
    the window model's ECE, parse speed, reliability tables."""
    from spacy_dynoracle.calibration import reliability_markdown

    rows = load_table(output, treebanks, seed)
    header = ["| treebank (dev) | window greedy | window exact | default greedy | spaCy parser "
              "| ECE window greedy | ECE window exact |",
              "|---|---|---|---|---|---|---|"]
    lines = ["LAS (UAS), the parser segments (Docs of 10 gold sentences, words only):\n"]
    lines += header + _table_rows(rows, lambda r: r)
    if any("gold_sents" in r for row in rows.values() for r in row.values()):
        lines += ["", "LAS (UAS) with the gold sentence boundaries preset:\n"]
        lines += header + _table_rows(rows, lambda r: r.get("gold_sents", {}))
    lines.append("")
    lines.append("Parse speed on the same dev words (words per CPU second of nlp.pipe, tok2vec "
                 "included, marginals off):\n")
    lines.append("| treebank | window greedy | window exact | default greedy | spaCy parser |")
    lines.append("|---|---|---|---|---|")
    for treebank, row in rows.items():
        cells = []
        for name, decode in (("window", "greedy"), ("window", "exact"), ("default", "greedy"),
                             ("spacy", "greedy")):
            try:
                cells.append(f"{row[name]['speed'][decode]['words_per_cpu_s']:,}")
            except KeyError:
                cells.append("-")
        lines.append(f"| {treebank} | " + " | ".join(cells) + " |")
    lines.append("")
    paired = [(t, row["window"]["exact_minus_greedy"]) for t, row in rows.items()
              if "exact_minus_greedy" in row.get("window", {})]
    if paired:
        lines.append("Window model, exact minus greedy LAS on the same Docs (the parser "
                     "segments), 95% interval of a paired bootstrap over Docs:\n")
        lines.append("| treebank | LAS difference | 95% interval | Docs |")
        lines.append("|---|---|---|---|")
        for treebank, p in paired:
            lines.append(f"| {treebank} | {p['diff']:+.2f} | [{p['ci95'][0]:+.2f}, {p['ci95'][1]:+.2f}] "
                         f"| {p['docs']} |")
        lines.append("")
    for treebank, row in rows.items():
        w = row.get("window", {})
        for record, what in ((w, "the parser segments"), (w.get("gold_sents", {}), "gold sentences")):
            if "exact" not in record:
                continue
            lines.append(f"Reliability of the window model's arc marginals, {treebank} dev, "
                         f"heads of exact decoding, {what}:\n")
            lines.append(reliability_markdown(record["exact"]["calibration"]["decoded"]))
            lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["train", "evaluate", "report"])
    ap.add_argument("--treebank", action="append", required=True)
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", action="append", choices=["window", "default", "spacy"])
    ap.add_argument("--model", default="model-last")
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    for treebank in args.treebank if args.command != "report" else []:
        if args.command == "train":
            train_all(treebank, args.output, args.epochs, args.seed, args.ud_root, args.only)
        else:
            evaluate_all(treebank, args.output, args.seed, args.ud_root, args.model,
                         force=args.force)
    if args.command == "report":
        print(report(args.output, args.treebank, args.seed))


if __name__ == "__main__":
    main()
