"""Where do parsers lose LAS? Paired error tables of several runs on the same gold words
(issue 19).

    python scripts/error_analysis.py --treebank UD_Latin-Perseus --pipeline tagger \
        --output training/converged --splits dev,test \
        --runs arc_eager-dynamic-k0-p1.0-s0,spacy_parser-s0,swap-dynamic-s0 [--cache DIR]

Each run's model-best parses the split's gold words with the gold sentence boundaries
preset, as run_matrix scores test_gold_sents (evaluate_run.parse_gold_words; dev is the
run's own dev data: the dev file, or the last 10% of train). The parse is written as
CoNLL-U to --cache/<treebank>/<pipeline>/<split>/<run>.conllu and read from there the next
time (--force parses again). Predictions made elsewhere can be given as CoNLL-U instead:

    python scripts/error_analysis.py --gold gold.conllu --pred a=a.conllu --pred b=b.conllu

Printed (markdown), per split, the first run being the baseline of the difference tables:

* LAS and UAS of each run (spacy_dynoracle.evaluate, the CoNLL-18 definitions), the words
  with the right head and a wrong label, and those with a wrong head;
* the words each run gets right (head and label) where the first is wrong, and the reverse
  (with those whose gold arc, resp. the run's predicted arc, crosses another);
* non-projective arcs as evaluate.py scores them (recall of gold NP arcs, precision of
  predicted ones) and crossing arcs: arcs that interleave with another arc of the same
  tree (the root arc from 0, left of word 1, included), gold ones recalled and predicted
  ones correct (head; head and label), with the counts of each and the predicted crossing
  arcs of words whose gold arc crosses nothing; and on the words whose
  predicted arc crosses, each run's LAS against the first's on the same words;
* root attachment: gold root words attached to the root, predicted root words that are;
* where the predicted head is against the gold head, for the words whose gold head is on
  their left and those whose gold head is on their right: the gold head, on the same side
  nearer or further, on the other side, the root;
* LAS / UAS per bucket of the gold tree: arc length (root, 1, 2, 3-6, 7+), the dependent's
  gold label (the 15 most frequent, the rest "other"), the head's side, the sentence's
  length, whether the sentence's gold tree is non-projective, whether the word's gold arc
  crosses another;
* for each run against the first, per bucket: the LAS points the bucket adds to the
  difference (change in correct words in it / all words) and its share of the difference.
  The buckets of a grouping partition the words, so their points sum to the LAS difference.
"""
import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from udproj import PROJECT, split_sources, treebank_files
from spacy_dynoracle.evaluate import base_label
from spacy_dynoracle.trees import nonprojective_dependents

SPLITS = ("dev", "test")
TOP_LABELS = 15
#: bucket names of the gold-side groupings, in print order ("other" labels last)
ARC_LENGTHS = ("root", "1", "2", "3-6", "7+")
DIRECTIONS = ("root", "head left", "head right")
SENTENCE_LENGTHS = ("1-10", "11-20", "21-30", "31-40", "41+")
GOLD_TREES = ("projective", "non-projective")
GOLD_ARCS = ("crosses none", "crosses another")
#: where a word's predicted head is against its gold head (words with a gold head that is a word)
HEAD_PLACES = ("right", "same side, nearer", "same side, further", "other side", "root")


def head_place(gold_head: int, pred_head: int, dependent: int) -> str:
    """HEAD_PLACES[...] of a word whose gold head is not the root."""
    if pred_head == gold_head:
        return "right"
    if pred_head == 0:
        return "root"
    if (pred_head < dependent) != (gold_head < dependent):
        return "other side"
    return "same side, nearer" if abs(pred_head - dependent) < abs(gold_head - dependent) else "same side, further"


def arc_length_bucket(head: int, dependent: int) -> str:
    if head == 0:
        return "root"
    d = abs(head - dependent)
    return "1" if d == 1 else "2" if d == 2 else "3-6" if d <= 6 else "7+"


def direction_bucket(head: int, dependent: int) -> str:
    return "root" if head == 0 else "head left" if head < dependent else "head right"


def sentence_length_bucket(n: int) -> str:
    return next((name for name, top in zip(SENTENCE_LENGTHS, (10, 20, 30, 40)) if n <= top), "41+")


def crossing_dependents(heads: Sequence[int]) -> List[bool]:
    """Per word (index i = word i+1): does its arc interleave with another arc of the tree?
    Arcs are spans (min(h, d), max(h, d)), the root arc (0, d) included; two arcs cross iff
    a < c < b < e. A tree is projective iff no arc crosses; a crossed arc need not be
    non-projective itself (the arc it crosses is)."""
    spans = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
    crossed = [False] * len(spans)
    for i, (a, b) in enumerate(spans):
        for j in range(i + 1, len(spans)):
            c, e = spans[j]
            if a < c < b < e or c < a < e < b:
                crossed[i] = crossed[j] = True
    return crossed


@dataclass
class Tree:
    """One sentence's tree: heads (1-based, 0 = root) and labels as LAS compares them."""

    heads: List[int]
    labels: List[str]

    @classmethod
    def of(cls, sentence) -> "Tree":
        return cls(sentence.heads, [base_label(w.deprel) for w in sentence.words])


@dataclass
class Words:
    """The words of a split, flattened over sentences: the gold buckets of each word and, per
    run, which words got the gold head and which the gold head and label."""

    groups: Dict[str, List[str]] = field(default_factory=dict)
    gold_root: List[bool] = field(default_factory=list)
    gold_crossing: List[bool] = field(default_factory=list)
    head_ok: Dict[str, List[bool]] = field(default_factory=dict)
    las_ok: Dict[str, List[bool]] = field(default_factory=dict)
    pred_root: Dict[str, List[bool]] = field(default_factory=dict)
    pred_crossing: Dict[str, List[bool]] = field(default_factory=dict)
    head_places: Dict[str, List[Optional[str]]] = field(default_factory=dict)   # None: gold root
    np_arcs: Dict[str, dict] = field(default_factory=dict)   # evaluate.py's NonProjArcs

    @property
    def n(self) -> int:
        return len(self.gold_root)


def check_aligned(name: str, gold: Sequence, pred: Sequence) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{name}: {len(pred)} predicted sentences against {len(gold)} gold ones; "
                         f"predictions must keep the gold sentences (parse with gold boundaries)")
    for k, (g, p) in enumerate(zip(gold, pred)):
        if [w.form for w in g.words] != [w.form for w in p.words]:
            raise ValueError(f"{name}: sentence {k + 1} ({g.sent_id or 'no sent_id'}) has other words "
                             f"in the prediction than in the gold file")


def collect(gold_sentences: Sequence, runs: Dict[str, Sequence], top_labels: int = TOP_LABELS) -> Words:
    """Words of the gold sentences with each run's predicted sentences (same words, same order);
    the top_labels most frequent gold labels are buckets of their own, the rest "other"."""
    words = Words()
    gold = [Tree.of(s) for s in gold_sentences]
    label_counts = Counter(label for t in gold for label in t.labels)
    top = {label for label, _ in label_counts.most_common(top_labels)}
    keys = {"arc length": [], "dependent label": [], "head direction": [],
            "sentence length": [], "gold tree": [], "gold arc": []}
    for t in gold:
        n = len(t.heads)
        tree_kind = GOLD_TREES[bool(nonprojective_dependents(t.heads))]
        for d, (h, label) in enumerate(zip(t.heads, t.labels), 1):
            keys["arc length"].append(arc_length_bucket(h, d))
            keys["dependent label"].append(label if label in top else "other")
            keys["head direction"].append(direction_bucket(h, d))
            keys["sentence length"].append(sentence_length_bucket(n))
            keys["gold tree"].append(tree_kind)
        crossed = crossing_dependents(t.heads)
        keys["gold arc"] += [GOLD_ARCS[x] for x in crossed]
        words.gold_root += [h == 0 for h in t.heads]
        words.gold_crossing += crossed
    words.groups = keys
    for name, sentences in runs.items():
        check_aligned(name, gold_sentences, sentences)
        pred = [Tree.of(s) for s in sentences]
        head_ok, las_ok, roots, crossing, places = [], [], [], [], []
        for g, p in zip(gold, pred):
            for d, (gh, gl, ph, pl) in enumerate(zip(g.heads, g.labels, p.heads, p.labels), 1):
                head_ok.append(gh == ph)
                las_ok.append(gh == ph and gl == pl)
                roots.append(ph == 0)
                places.append(None if gh == 0 else head_place(gh, ph, d))
            crossing += crossing_dependents(p.heads)
        words.head_ok[name], words.las_ok[name] = head_ok, las_ok
        words.pred_root[name], words.pred_crossing[name] = roots, crossing
        words.head_places[name] = places
        words.np_arcs[name] = np_arcs_score(gold_sentences, sentences)
    return words


def np_arcs_score(gold_sentences, pred_sentences) -> dict:
    """evaluate.py's NonProjArcs of the prediction (its scorer, on Docs of the sentences)."""
    from spacy.vocab import Vocab
    from spacy_dynoracle.conllu_io import sentences_to_docs
    from spacy_dynoracle.evaluate import evaluate_docs

    vocab = Vocab()
    result = evaluate_docs(sentences_to_docs(vocab, gold_sentences, 10, keep_source=False),
                           sentences_to_docs(vocab, pred_sentences, 10, keep_source=False))
    return {"LAS": result["LAS"]["f1"], "UAS": result["UAS"]["f1"], **result["NonProjArcs"]}


# ---------------------------------------------------------------- tables

def pct(part: int, whole: int) -> Optional[float]:
    return 100.0 * part / whole if whole else None


def num(value: Optional[float], decimals: int = 2, sign: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.{decimals}f}" if sign else f"{value:.{decimals}f}"


def markdown(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(["---"] + ["--:"] * (len(headers) - 1)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def bucket_order(group: str, keys: Sequence[str]) -> List[str]:
    fixed = {"arc length": ARC_LENGTHS, "head direction": DIRECTIONS,
             "sentence length": SENTENCE_LENGTHS, "gold tree": GOLD_TREES,
             "gold arc": GOLD_ARCS}.get(group)
    present = Counter(keys)
    if fixed:
        return [b for b in fixed if b in present]
    ordered = [b for b, _ in present.most_common() if b != "other"]
    return ordered + (["other"] if "other" in present else [])


def overall_table(w: Words) -> str:
    rows = []
    for name in w.head_ok:
        head, las = w.head_ok[name], w.las_ok[name]
        label_only = sum(h and not l for h, l in zip(head, las))
        rows.append([name, num(pct(sum(las), w.n)), num(pct(sum(head), w.n)),
                     f"{label_only} ({num(pct(label_only, w.n), 1)}%)",
                     f"{w.n - sum(head)} ({num(pct(w.n - sum(head), w.n), 1)}%)"])
    return markdown(["run", "LAS", "UAS", "right head, wrong label", "wrong head"], rows)


def flips_table(w: Words, baseline: str) -> str:
    """Words one run gets right (head and label) and the baseline wrong, and the reverse:
    the net LAS difference is the balance of two larger flows. Of the words won, those
    whose gold arc crosses another; of the words lost, those whose predicted arc does."""
    base = w.las_ok[baseline]
    rows = []
    for name in w.las_ok:
        if name == baseline:
            continue
        won = [r and not b for r, b in zip(w.las_ok[name], base)]
        lost = [b and not r for r, b in zip(w.las_ok[name], base)]
        won_crossing = sum(x and g for x, g in zip(won, w.gold_crossing))
        lost_crossing = sum(x and p for x, p in zip(lost, w.pred_crossing[name]))
        rows.append([name, f"{sum(won)} ({num(pct(sum(won), w.n), 1)}%)", str(won_crossing),
                     f"{sum(lost)} ({num(pct(sum(lost), w.n), 1)}%)", str(lost_crossing),
                     num(pct(sum(won) - sum(lost), w.n), 2, sign=True)])
    return markdown(["run", f"right where {baseline} is wrong", "of which gold arc crosses",
                     f"wrong where {baseline} is right", "of which predicted arc crosses",
                     "LAS difference"], rows)


def crossing_table(w: Words) -> str:
    rows = []
    gold_x = sum(w.gold_crossing)
    for name in w.head_ok:
        head, las, px = w.head_ok[name], w.las_ok[name], w.pred_crossing[name]
        np = w.np_arcs[name]
        gold_x_found = sum(h for h, x in zip(head, w.gold_crossing) if x)
        pred_x = sum(px)
        spurious = sum(x and not g for x, g in zip(px, w.gold_crossing))
        rows.append([
            name,
            f"{np['gold']} / {np['system']}", num(np["recall"], 1), num(np["precision"], 1),
            f"{gold_x} / {pred_x}", f"{spurious} ({num(pct(spurious, pred_x), 1)}%)",
            num(pct(gold_x_found, gold_x), 1),
            num(pct(sum(h for h, x in zip(head, px) if x), pred_x), 1),
            num(pct(sum(l for l, x in zip(las, px) if x), pred_x), 1),
        ])
    return markdown(["run", "NP arcs gold / predicted", "NP recall", "NP precision",
                     "crossing arcs gold / predicted", "predicted crossing where the gold arc crosses none",
                     "crossing recall (head)",
                     "crossing precision (head)", "crossing precision (head+label)"], rows)


def crossing_cost_table(w: Words, baseline: str) -> str:
    """What a run's crossing arcs cost against the baseline: on the words whose predicted arc
    crosses another, the run's LAS and the baseline's on the same words, and the LAS points
    those words and all the others add to the difference."""
    base = w.las_ok[baseline]
    rows = []
    for name in w.las_ok:
        if name == baseline:
            continue
        run, crossing = w.las_ok[name], w.pred_crossing[name]
        idx = [i for i, x in enumerate(crossing) if x]
        on = sum(run[i] for i in idx) - sum(base[i] for i in idx)
        total = sum(run) - sum(base)
        rows.append([name, str(len(idx)), num(pct(sum(run[i] for i in idx), len(idx)), 1),
                     num(pct(sum(base[i] for i in idx), len(idx)), 1),
                     num(pct(on, w.n), 2, sign=True), num(pct(total - on, w.n), 2, sign=True)])
    return markdown(["run", "words with a crossing predicted arc", "their LAS", f"{baseline} LAS on them",
                     "LAS points on them", "LAS points on the other words"], rows)


def head_place_table(w: Words) -> str:
    """Per run and side of the gold head: the share of words whose predicted head is the gold
    one, on the same side nearer or further, on the other side, or the root."""
    sides = w.groups["head direction"]
    rows = []
    for name in w.head_places:
        row = [name]
        for side in ("head left", "head right"):
            idx = [i for i, s in enumerate(sides) if s == side]
            counts = Counter(w.head_places[name][i] for i in idx)
            row += [num(pct(counts[place], len(idx)), 1) for place in HEAD_PLACES]
        rows.append(row)
    return markdown(["run"] + [f"{side}: {place}" for side in ("head left", "head right")
                               for place in HEAD_PLACES], rows)


def root_table(w: Words) -> str:
    rows = []
    gold_roots = sum(w.gold_root)
    for name in w.head_ok:
        pred_roots = sum(w.pred_root[name])
        right = sum(g and p for g, p in zip(w.gold_root, w.pred_root[name]))
        rows.append([name, f"{gold_roots} / {pred_roots}", num(pct(right, gold_roots), 1),
                     num(pct(right, pred_roots), 1)])
    return markdown(["run", "root words gold / predicted", "root recall", "root precision"], rows)


def bucket_table(w: Words, group: str) -> str:
    keys = w.groups[group]
    names = list(w.head_ok)
    rows = []
    for b in bucket_order(group, keys):
        idx = [i for i, k in enumerate(keys) if k == b]
        row = [b, f"{len(idx)} ({num(pct(len(idx), w.n), 1)}%)"]
        for name in names:
            las = sum(w.las_ok[name][i] for i in idx)
            head = sum(w.head_ok[name][i] for i in idx)
            row.append(f"{num(pct(las, len(idx)), 1)} / {num(pct(head, len(idx)), 1)}")
        rows.append(row)
    return markdown([group, "words (share)"] + [f"{n} LAS / UAS" for n in names], rows)


def difference_table(w: Words, group: str, baseline: str) -> str:
    """Per bucket and run: LAS points the bucket adds to run − baseline, and its share."""
    keys = w.groups[group]
    others = [n for n in w.las_ok if n != baseline]
    base = w.las_ok[baseline]
    total = {n: pct(sum(w.las_ok[n]) - sum(base), w.n) for n in others}
    rows = []
    for b in bucket_order(group, keys):
        idx = [i for i, k in enumerate(keys) if k == b]
        row = [b, num(pct(len(idx), w.n), 1)]
        for n in others:
            points = pct(sum(w.las_ok[n][i] for i in idx) - sum(base[i] for i in idx), w.n)
            share = f" ({round(100 * points / total[n])}%)" if total[n] else ""
            row.append(num(points, 2, sign=True) + share)
        rows.append(row)
    rows.append(["all", "100.0"] + [num(total[n], 2, sign=True) for n in others])
    return markdown([group, "% of words"] + [f"{n} − {baseline}" for n in others], rows)


def report(w: Words, title: str, baseline: Optional[str] = None) -> str:
    baseline = baseline or next(iter(w.las_ok))
    if baseline not in w.las_ok:
        raise ValueError(f"baseline {baseline!r} is not one of the runs {sorted(w.las_ok)}")
    parts = [f"## {title}", f"{w.n} words.", "### LAS, label-only and head errors", overall_table(w),
             f"### Words on which each run and {baseline} differ", flips_table(w, baseline),
             "### Non-projective and crossing arcs", crossing_table(w),
             f"### What each run's crossing arcs cost against {baseline}", crossing_cost_table(w, baseline),
             "### Root attachment", root_table(w),
             "### Where the predicted head is, by the side of the gold head (% of the words with a "
             "gold head on that side)", head_place_table(w)]
    for group in w.groups:
        parts += [f"### LAS / UAS by {group}", bucket_table(w, group),
                  f"### Where the LAS difference to {baseline} goes, by {group} "
                  f"(LAS points, share of the difference)", difference_table(w, group, baseline)]
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- predictions

def split_source(treebank: str, split: str, ud_root=None) -> Tuple[Path, str]:
    """(path, select) of a split's gold data, as evaluate_run reads it."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: choose from {SPLITS}")
    return split_sources(treebank_files(treebank, ud_root))[split]


#: the columns of a cached parse that come from the pipeline (the others are the gold file's):
#: the tags too, so error_breakdown.py can tell the words whose predicted UPOS is wrong (a
#: pipeline without a tagger writes "_" there)
PREDICTED_COLUMNS = ("UPOS", "XPOS", "FEATS", "HEAD", "DEPREL")


def parse_stamp(folder: Path, split: str) -> dict:
    """What a cached parse was made from: the model (path and the time its meta.json was
    written), the split and the predicted columns. A cache whose stamp differs is parsed
    again: two training folders can hold runs of the same name, and a run can be retrained."""
    model = (Path(folder) / "model-best").resolve()
    meta = model / "meta.json"
    return {"model": str(model), "model_mtime": (meta if meta.exists() else model).stat().st_mtime,
            "split": split, "gold_sents": True, "columns": list(PREDICTED_COLUMNS)}


def predict(folder: Path, split: str, cache: Path, ud_root=None, force=False) -> Path:
    """CoNLL-U of the run's model-best parse of the split's gold words with gold sentence
    boundaries, made once and kept in the cache (<cache>/<treebank>/<pipeline>/<split>/<run>.conllu,
    beside it <run>.json, the parse_stamp it was made with)."""
    from evaluate_run import load_pipeline, parse_gold_words
    from spacy_dynoracle.conllu_write import write_conllu

    info = json.loads((folder / "run.json").read_text())
    out = cache / info["treebank"] / info["pipeline"] / split / f"{folder.name}.conllu"
    stamp_file, stamp = out.with_suffix(".json"), parse_stamp(folder, split)
    if out.exists() and stamp_file.exists() and not force and json.loads(stamp_file.read_text()) == stamp:
        return out
    path, select = split_source(info["treebank"], split, ud_root)
    nlp = load_pipeline(folder, "model-best", info)
    _, pred = parse_gold_words(nlp, path, select, gold_sents=True, keep_source=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_conllu(pred, out, replace=PREDICTED_COLUMNS)
    stamp_file.write_text(json.dumps(stamp, indent=1) + "\n")
    print(f"parsed {split} with {folder / 'model-best'} -> {out}", file=sys.stderr, flush=True)
    return out


def read(path, select="all") -> list:
    from spacy_dynoracle.corpus import read_sentences

    return list(read_sentences(path, select=select))


def read_predictions(path) -> list:
    """A run's predicted CoNLL-U: as `read`, but a sentence may have several words with HEAD
    0. spaCy's biaffine parser makes such sentences (its spanning trees may give the root
    vertex several children: evaluate_run's multi_root_sentences), and they are its parse,
    to be scored, not a broken file; the gold is still read strictly."""
    from spacy_dynoracle.conllu_read import read_conllu

    return list(read_conllu(path, allow_multiple_roots=True))


def name_value_pairs(ap: argparse.ArgumentParser, values: Sequence[str], option: str,
                     form: str = "NAME=FILE") -> List[Tuple[str, str]]:
    """The (name, value) pairs of a repeatable NAME=VALUE option; ap.error names the first
    value that is not of that form."""
    pairs = [v.split("=", 1) for v in values]
    bad = [v for v, pair in zip(values, pairs) if len(pair) != 2 or not all(pair)]
    if bad:
        ap.error(f"{option} {bad[0]!r}: expected {form}")
    return [(name, value) for name, value in pairs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", help="with --runs: the treebank the runs were trained on")
    ap.add_argument("--pipeline", default="tagger")
    ap.add_argument("--output", type=Path, default=PROJECT / "training",
                    help="the training folder holding <treebank>/<pipeline>/<run>")
    ap.add_argument("--runs", default="", help="comma-separated run folder names (with the seed), "
                                               "the first is the baseline of the difference tables")
    ap.add_argument("--splits", default="dev,test")
    ap.add_argument("--cache", type=Path, default=PROJECT / "error_analysis",
                    help="where the parses are kept as CoNLL-U")
    ap.add_argument("--force", action="store_true", help="parse again even if cached")
    ap.add_argument("--gold", type=Path, help="instead of --runs: a gold CoNLL-U file ...")
    ap.add_argument("--pred", action="append", default=[], metavar="NAME=FILE",
                    help="... and the predictions of each run on its sentences (repeatable)")
    ap.add_argument("--baseline", help="the run the difference tables compare with (default: the first)")
    ap.add_argument("--ud-root", default=None)
    args = ap.parse_args(argv)
    if args.gold:
        if args.runs or not args.pred:
            ap.error("--gold goes with --pred NAME=FILE (one per run), not with --runs")
        pairs = name_value_pairs(ap, args.pred, "--pred")
        gold = read(args.gold)
        words = collect(gold, {name: read_predictions(file) for name, file in pairs})
        print(report(words, str(args.gold), args.baseline))
        return
    runs = [r for r in args.runs.split(",") if r]
    if not (args.treebank and runs):
        ap.error("give --treebank and --runs (or --gold and --pred)")
    splits = [s for s in args.splits.split(",") if s]
    if not splits or set(splits) - set(SPLITS):
        ap.error(f"--splits: dev and/or test, not {args.splits!r}")
    folders = [args.output / args.treebank / args.pipeline / r for r in runs]
    missing = [str(f) for f in folders if not (f / "run.json").exists()]
    if missing:
        ap.error(f"no trained run (run.json) in {', '.join(missing)}")
    for split in splits:
        preds = {f.name: read_predictions(predict(f, split, args.cache, args.ud_root, args.force)) for f in folders}
        path, select = split_source(args.treebank, split, args.ud_root)
        words = collect(read(path, select), preds)
        print(report(words, f"{args.treebank} {split} ({path.name} {select}), gold sentences, "
                            f"model-best", args.baseline), flush=True)


if __name__ == "__main__":
    main()
