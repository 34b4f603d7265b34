"""Where does a run lose LAS against another? Cells of the gold tree, each run the mean of
its seeds (issue 19; docs/systems/nonprojective_errors.md).

    python scripts/error_breakdown.py --treebank UD_Latin-Perseus --output training/converged_affix \\
        --runs arc_eager-dynamic-k0-p1.0,swap-dynamic,attardi-dynamic,spacy_parser \\
        --best-of arc_eager-dynamic-k0-p1.0 --baselines spacy_parser [--split dev] [--cache DIR]

--runs are run ids without the seed: every <output>/<treebank>/<pipeline>/<id>-s<N> with a
run.json is a seed of the id, and a run's number is the mean of its seeds. Each seed's
model-best parses the split's gold words with the gold sentence boundaries preset
(error_analysis.predict: evaluate_run.parse_gold_words, as test_gold_sents is scored; dev is
the run's own dev data), cached as CoNLL-U with the predicted tags under --cache and parsed
again only when the model changes (--force: always). The difference tables compare every
run with the best of --best-of (the highest mean LAS among those ids on this split) and with
each of --baselines.

Printed (markdown):

* per run: seeds, LAS (and each seed's), UAS, the words with the right head and a wrong
  label (the LAS-UAS gap) and with a wrong head, UPOS accuracy and the share of the LAS
  errors on words whose predicted UPOS is wrong, root recall and precision, evaluate.py's
  non-projective arcs (recall, precision) and the words whose predicted arc crosses another;
* against a baseline, the LAS errors by kind (right head and wrong label, wrong head; each
  with the predicted UPOS right or wrong): the points of each kind add up to the LAS
  difference;
* against a baseline, the words whose predicted arc crosses another arc: the run's LAS on
  them and the baseline's on the same words, and the points they add to the difference;
* against a baseline, per cell of a grouping of the gold words (gold arc non-projective or
  not; inside the span of a gold non-projective arc or not; the sentence's gold tree; the gold
  arc crossing another; arc length; side of the head; the dependent's UPOS, the 8 most
  frequent; its label, the 10 most frequent; sentence length): the gold words in the cell,
  the baseline's LAS / UAS there (and the range of its seeds' LAS), and per run the LAS and
  UAS difference in the cell and its contribution: the LAS points the cell adds to the
  whole difference (the cell's difference times its share of the words). The cells of a
  grouping partition the words, so the contributions sum to the LAS difference ("all").
"""
import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Dict, List, Optional, Sequence

from udproj import PROJECT
from error_analysis import (HEAD_PLACES, SPLITS, Words, arc_length_bucket, bucket_order, collect,
                            direction_bucket, markdown, name_value_pairs, num, pct, predict, read,
                            read_predictions, split_source)
from spacy_dynoracle.trees import nonprojective_dependents

TOP_UPOS = 8
TOP_DEPRELS = 10
#: the groupings this script adds to error_analysis.collect's, and their cells in print order
GOLD_NP_ARC = "gold arc (evaluate.py)"
NP_ARC_KINDS = ("projective", "non-projective")
IN_NP_SPAN = "inside a gold non-projective arc's span"
SPAN_KINDS = ("no", "yes")
UPOS_GROUP = "dependent's UPOS"
LENGTH_SIDE = "arc length and side of the head"
#: groupings in print order: error_analysis.collect's names (its "dependent label" has the
#: TOP_DEPRELS most frequent labels here) and this script's
GROUPS = (GOLD_NP_ARC, IN_NP_SPAN, "gold tree", "gold arc", "arc length", "head direction",
          LENGTH_SIDE, UPOS_GROUP, "dependent label", "sentence length")
#: the kinds of a LAS error, in print order: (head right, predicted UPOS right)
ERROR_KINDS = {"right head, wrong label; UPOS right": (True, True),
               "right head, wrong label; UPOS wrong": (True, False),
               "wrong head; UPOS right": (False, True),
               "wrong head; UPOS wrong": (False, False)}
SEED = re.compile(r"-s\d+$")


def run_id(folder_name: str) -> str:
    """The run id of a run folder: its name without the seed suffix -s<N>."""
    return SEED.sub("", folder_name)


def seed_folders(output: Path, treebank: str, pipeline: str, rid: str) -> List[Path]:
    """The trained seeds (folders with a run.json) of a run id."""
    folders = sorted((Path(output) / treebank / pipeline).glob(f"{rid}-s*"))
    return [f for f in folders if run_id(f.name) == rid and (f / "run.json").exists()]


def gold_groups(gold_sentences: Sequence) -> Dict[str, List[str]]:
    """The groupings error_analysis.collect does not make, per word of the gold sentences
    (flattened in order): the gold arc non-projective (spacy_dynoracle.trees, as evaluate.py's
    NonProjArcs counts them), the word strictly inside the span of a gold non-projective arc
    of its sentence, the dependent's gold UPOS (the TOP_UPOS most frequent, the rest "other"),
    the arc's length bucket with the side of the head ("1, head left", ...; "root")."""
    upos_counts = Counter(w.upos for s in gold_sentences for w in s.words)
    top = {u for u, _ in upos_counts.most_common(TOP_UPOS)}
    groups = {GOLD_NP_ARC: [], IN_NP_SPAN: [], UPOS_GROUP: [], LENGTH_SIDE: []}
    for s in gold_sentences:
        heads = s.heads
        nonprojective = set(nonprojective_dependents(heads))
        inside = {k for d in nonprojective for k in range(min(d, heads[d - 1]) + 1, max(d, heads[d - 1]))}
        for d, w in enumerate(s.words, 1):
            groups[GOLD_NP_ARC].append(NP_ARC_KINDS[d in nonprojective])
            groups[IN_NP_SPAN].append(SPAN_KINDS[d in inside])
            groups[UPOS_GROUP].append(w.upos if w.upos in top else "other")
            head = heads[d - 1]
            groups[LENGTH_SIDE].append("root" if head == 0 else
                                       f"{arc_length_bucket(head, d)}, {direction_bucket(head, d)}")
    return groups


def upos_right(gold_sentences: Sequence, pred_sentences: Sequence) -> List[bool]:
    """Per word: is the predicted UPOS the gold one (a parse without UPOS ("_") never is)."""
    return [g.upos == p.upos for gs, ps in zip(gold_sentences, pred_sentences)
            for g, p in zip(gs.words, ps.words)]


@dataclass
class Breakdown:
    """The words of a split (error_analysis.Words, one entry per seed) with the predicted
    UPOS of each seed and the seeds of each run id."""

    words: Words
    upos_ok: Dict[str, List[bool]]
    seeds: Dict[str, List[str]]          # run id -> its seeds' names in words
    sentence_of: List[int]               # per word: its sentence's index
    recorded: Dict[str, float] = field(default_factory=dict)   # run id -> mean LAS of its eval_<split>.json

    def las(self, rid: str) -> float:
        return mean(pct(sum(self.words.las_ok[s]), self.words.n) for s in self.seeds[rid])


def breakdown(gold_sentences: Sequence, runs: Dict[str, Dict[str, Sequence]]) -> Breakdown:
    """runs: {run id: {seed name: predicted sentences}} on the gold sentences."""
    flat = {name: sentences for seeds in runs.values() for name, sentences in seeds.items()}
    words = collect(gold_sentences, flat, top_labels=TOP_DEPRELS)
    words.groups.update(gold_groups(gold_sentences))
    upos_ok = {name: upos_right(gold_sentences, sentences) for name, sentences in flat.items()}
    sentence_of = [k for k, sentence in enumerate(gold_sentences) for _ in sentence.words]
    return Breakdown(words, upos_ok, {rid: list(seeds) for rid, seeds in runs.items()}, sentence_of)


def best_of(b: Breakdown, candidates: Sequence[str]) -> str:
    """The candidate run id with the highest mean LAS."""
    return max(candidates, key=b.las)


# ---------------------------------------------------------------- tables

def seed_mean(b: Breakdown, rid: str, value) -> Optional[float]:
    """The mean over a run's seeds of value(seed name), of the seeds where it is defined
    (a share of no words is None); None if it is defined for none."""
    values = [v for v in (value(s) for s in b.seeds[rid]) if v is not None]
    return mean(values) if values else None


def points(b: Breakdown, rid: str, idx: Sequence[int], ok: str = "las_ok") -> float:
    """Mean over the seeds of the words of idx a run gets right, in percent of all words."""
    table = getattr(b.words, ok)
    return seed_mean(b, rid, lambda s: pct(sum(table[s][i] for i in idx), b.words.n))


def cell_accuracy(b: Breakdown, rid: str, idx: Sequence[int], ok: str = "las_ok") -> Optional[float]:
    table = getattr(b.words, ok)
    return seed_mean(b, rid, lambda s: pct(sum(table[s][i] for i in idx), len(idx))) if idx else None


def runs_table(b: Breakdown) -> str:
    w = b.words
    rows = []
    for rid, seeds in b.seeds.items():
        def share(s, pick):
            return pct(sum(pick(i, s) for i in range(w.n)), w.n)

        label_only = seed_mean(b, rid, lambda s: share(s, lambda i, s: w.head_ok[s][i] and not w.las_ok[s][i]))
        wrong_head = seed_mean(b, rid, lambda s: share(s, lambda i, s: not w.head_ok[s][i]))
        upos = seed_mean(b, rid, lambda s: share(s, lambda i, s: b.upos_ok[s][i]))
        errors_upos_wrong = seed_mean(b, rid, lambda s: pct(
            sum(not w.las_ok[s][i] and not b.upos_ok[s][i] for i in range(w.n)),
            w.n - sum(w.las_ok[s])))
        gold_roots = sum(w.gold_root)
        root_recall = seed_mean(b, rid, lambda s: pct(
            sum(g and p for g, p in zip(w.gold_root, w.pred_root[s])), gold_roots))
        root_precision = seed_mean(b, rid, lambda s: pct(
            sum(g and p for g, p in zip(w.gold_root, w.pred_root[s])), sum(w.pred_root[s])))
        np_recall = [w.np_arcs[s]["recall"] for s in seeds if w.np_arcs[s]["recall"] is not None]
        np_precision = [w.np_arcs[s]["precision"] for s in seeds if w.np_arcs[s]["precision"] is not None]
        rows.append([
            rid, str(len(seeds)), num(b.las(rid)), num(b.recorded.get(rid)),
            ", ".join(num(pct(sum(w.las_ok[s]), w.n)) for s in seeds),
            num(points(b, rid, range(w.n), "head_ok")), num(label_only, 1), num(wrong_head, 1),
            num(upos, 1), num(errors_upos_wrong, 1), f"{num(root_recall, 1)} / {num(root_precision, 1)}",
            f"{num(mean(np_recall), 1) if np_recall else '–'} / {num(mean(np_precision), 1) if np_precision else '–'}",
            num(seed_mean(b, rid, lambda s: sum(w.pred_crossing[s])), 0),
        ])
    return markdown(["run", "seeds", "LAS", "LAS recorded (parser segments)", "LAS of each seed", "UAS", "right head, wrong label (% of words)",
                     "wrong head (%)", "UPOS", "LAS errors with a wrong predicted UPOS (%)",
                     "root recall / precision", "NP arcs recall / precision", "predicted crossing arcs"],
                    rows)


def error_kind_table(b: Breakdown, base: str) -> str:
    """Per run, the difference to base in each kind of LAS error (percent of all words):
    the kinds partition the LAS errors, so their differences sum to minus the LAS difference."""
    w = b.words

    def kind_share(rid, head_right, upos_ok):
        return seed_mean(b, rid, lambda s: pct(sum(
            not w.las_ok[s][i] and w.head_ok[s][i] == head_right and b.upos_ok[s][i] == upos_ok
            for i in range(w.n)), w.n))

    rows = [[base, num(b.las(base))] + [num(kind_share(base, *k)) for k in ERROR_KINDS.values()]]
    for rid in b.seeds:
        if rid != base:
            rows.append([rid, num(b.las(rid) - b.las(base), sign=True)]
                        + [num(kind_share(rid, *k) - kind_share(base, *k), sign=True) for k in ERROR_KINDS.values()])
    return markdown(["run", "LAS (first row) / Δ LAS"] + [f"{k} (% of words; Δ)" for k in ERROR_KINDS], rows)


#: the words of a seed's prediction by where its predicted arcs cross (they partition the words)
CROSSING_KINDS = ("the word's predicted arc crosses another",
                  "another predicted arc of its sentence crosses",
                  "no predicted arc of its sentence crosses")


def crossing_kinds(b: Breakdown, seed: str) -> List[str]:
    """CROSSING_KINDS[...] per word of a seed's prediction."""
    crossing = b.words.pred_crossing[seed]
    sentences_crossing = {b.sentence_of[i] for i, x in enumerate(crossing) if x}
    return [CROSSING_KINDS[0] if x else CROSSING_KINDS[1] if b.sentence_of[i] in sentences_crossing
            else CROSSING_KINDS[2] for i, x in enumerate(crossing)]


def crossing_cost_table(b: Breakdown, base: str) -> str:
    """Per run and CROSSING_KINDS of its own prediction: the words (mean over seeds), the run's
    LAS on them, the baseline's LAS on the same words (mean over its seeds), and the LAS points
    they add to the difference (they sum to it). Where the run is swap, a sentence with a
    crossing predicted arc is one it parsed with SWAP."""
    w = b.words
    rows = []
    for rid in b.seeds:
        if rid == base:
            continue
        row = [rid, num(b.las(rid) - b.las(base), sign=True)]
        for kind in CROSSING_KINDS:
            count, own, theirs, on = [], [], [], []
            for s in b.seeds[rid]:
                idx = [i for i, k in enumerate(crossing_kinds(b, s)) if k == kind]
                count.append(len(idx))
                if idx:
                    own.append(pct(sum(w.las_ok[s][i] for i in idx), len(idx)))
                    theirs.append(cell_accuracy(b, base, idx))
                on.append(pct(sum(w.las_ok[s][i] for i in idx), w.n) - points(b, base, idx))
            row += [num(mean(count), 0),
                    f"{num(mean(own), 1) if own else '–'} / {num(mean(theirs), 1) if theirs else '–'}",
                    num(mean(on), sign=True)]
        rows.append(row)
    headers = ["run", "Δ LAS"]
    for kind in CROSSING_KINDS:
        headers += [f"{kind}: words", f"LAS / {base} LAS on them", "points"]
    return markdown(headers, rows)


#: the cells of LENGTH_SIDE whose wrong heads head_place_table places
ADJACENT_CELLS = ("1, head left", "1, head right")


def head_place_table(b: Breakdown) -> str:
    """Per run and cell of ADJACENT_CELLS: where the predicted head is against the gold one
    (error_analysis.HEAD_PLACES but "same side, nearer", which an adjacent head leaves no room
    for; percent of the cell's words, mean over the seeds)."""
    w = b.words
    places = [place for place in HEAD_PLACES if place != "same side, nearer"]
    cells = [(cell, [i for i, k in enumerate(w.groups[LENGTH_SIDE]) if k == cell]) for cell in ADJACENT_CELLS]
    cells = [(cell, idx) for cell, idx in cells if idx]
    rows = []
    for rid in b.seeds:
        row = [rid]
        for _, idx in cells:
            row += [num(seed_mean(b, rid, lambda s: pct(sum(w.head_places[s][i] == place for i in idx), len(idx))), 1)
                    for place in places]
        rows.append(row)
    return markdown(["run"] + [f"{cell} ({len(idx)} words): {place}" for cell, idx in cells for place in places], rows)


#: the cells of the summary table: (grouping, cell, column title)
SUMMARY_CELLS = ((GOLD_NP_ARC, "non-projective", "gold NP arcs"),
                 (IN_NP_SPAN, "yes", "inside an NP arc's span"),
                 ("gold tree", "projective", "sentences without NP arcs"),
                 ("arc length", "root", "root"), (LENGTH_SIDE, "1, head left", "length 1, head left"),
                 (LENGTH_SIDE, "1, head right", "length 1, head right"),
                 ("arc length", "2", "length 2"), ("arc length", "3-6", "length 3-6"),
                 ("arc length", "7+", "length 7+"),
                 ("head direction", "head left", "head left"), ("head direction", "head right", "head right"))


def summary_table(b: Breakdown, base: str) -> str:
    """One row per run: the LAS difference to base and the contributions (LAS points of all
    words) of the cells of SUMMARY_CELLS, of the words with the right head and a wrong label,
    of those whose predicted UPOS is wrong, and of those whose predicted arc crosses another
    (the last three are the run's words, not gold cells; the base's LAS on the same words).
    A last row gives, where base has several seeds, the range of its seeds' values in each
    column: a contribution inside it is within seed noise."""
    w = b.words
    cells = [(title, [i for i, k in enumerate(w.groups[group]) if k == cell]) for group, cell, title in SUMMARY_CELLS]
    cells = [(title, idx) for title, idx in cells if idx]

    def own_words(rid, pick):
        """Mean over the run's seeds of its correct words among pick(seed) minus base's there."""
        return seed_mean(b, rid, lambda s: pct(sum(w.las_ok[s][i] for i in pick(s)), w.n)
                         - points(b, base, pick(s)))

    rows = []
    for rid in b.seeds:
        if rid == base:
            continue
        label_only = seed_mean(b, rid, lambda s: pct(sum(h and not l for h, l in zip(w.head_ok[s], w.las_ok[s])), w.n)) \
            - seed_mean(b, base, lambda s: pct(sum(h and not l for h, l in zip(w.head_ok[s], w.las_ok[s])), w.n))
        rows.append([rid, num(b.las(rid) - b.las(base), sign=True)]
                    + [num(points(b, rid, idx) - points(b, base, idx), sign=True) for _, idx in cells]
                    + [num(-label_only, sign=True),
                       num(own_words(rid, lambda s: [i for i in range(w.n) if not b.upos_ok[s][i]]), sign=True),
                       num(own_words(rid, lambda s: [i for i in range(w.n) if w.pred_crossing[s][i]]), sign=True)])
    if len(b.seeds[base]) > 1:      # the yardstick: how far the baseline's own seeds are apart
        def spread(values):
            return num(max(values) - min(values))

        label_only = [pct(sum(h and not l for h, l in zip(w.head_ok[s], w.las_ok[s])), w.n) for s in b.seeds[base]]
        rows.append([f"seed range of {base} ({len(b.seeds[base])} seeds)",
                     spread([pct(sum(w.las_ok[s]), w.n) for s in b.seeds[base]])]
                    + [spread([pct(sum(w.las_ok[s][i] for i in idx), w.n) for s in b.seeds[base]]) for _, idx in cells]
                    + [spread(label_only), "–", "–"])
    return markdown(["run", "Δ LAS"] + [f"{title} ({num(pct(len(idx), w.n), 1)}%)" for title, idx in cells]
                    + ["right head, wrong label (− Δ of their share)", "words with a wrong predicted UPOS",
                       "words with a crossing predicted arc"], rows)


def cell_table(b: Breakdown, group: str, base: str, within: Optional[Sequence[int]] = None) -> str:
    """Per cell of a grouping of the gold words: the count, the baseline's LAS / UAS (and the
    range of its seeds' LAS), and per run ΔLAS / ΔUAS in the cell and the cell's contribution
    to the LAS difference (points of all words). within (word indices) restricts the cells to
    those words, the contributions staying in points of all words: they then sum to what
    the words of within add to the difference ("all")."""
    w = b.words
    keys = w.groups[group]
    scope = range(w.n) if within is None else sorted(set(within))
    others = [rid for rid in b.seeds if rid != base]

    def row_of(cell, idx):
        seeds_las = [pct(sum(w.las_ok[s][i] for i in idx), len(idx)) for s in b.seeds[base]]
        spread = f" ({num(max(seeds_las) - min(seeds_las), 1)})" if len(seeds_las) > 1 else ""
        row = [cell, str(len(idx)), num(pct(len(idx), w.n), 1),
               f"{num(cell_accuracy(b, base, idx), 1)} / {num(cell_accuracy(b, base, idx, 'head_ok'), 1)}{spread}"]
        for rid in others:
            d_las = cell_accuracy(b, rid, idx) - cell_accuracy(b, base, idx)
            d_uas = cell_accuracy(b, rid, idx, "head_ok") - cell_accuracy(b, base, idx, "head_ok")
            contribution = points(b, rid, idx) - points(b, base, idx)
            row.append(f"{num(d_las, 1, sign=True)} / {num(d_uas, 1, sign=True)} → **{num(contribution, sign=True)}**")
        return row

    rows = [row_of(cell, [i for i in scope if keys[i] == cell])
            for cell in bucket_order(group, [keys[i] for i in scope])]
    if scope:
        rows.append(row_of("all", list(scope)))
    return markdown([group, "gold words", "% of all words", f"{base} LAS / UAS (seed range of LAS)"]
                    + [f"{rid}: ΔLAS / ΔUAS → contribution" for rid in others], rows)


def report(b: Breakdown, title: str, baselines: Sequence[str], groups: Sequence[str] = GROUPS,
           within: Optional[Sequence[str]] = None) -> str:
    """The tables for each baseline; within = (grouping, cell) adds the cell tables of every
    grouping restricted to the words of that cell."""
    w = b.words
    n_np = sum(k == NP_ARC_KINDS[1] for k in w.groups[GOLD_NP_ARC])
    n_trees = sum(w.gold_root)
    parts = [f"## {title}",
             f"{w.n} words in {n_trees} sentences; {n_np} gold non-projective arcs "
             f"({num(pct(n_np, w.n), 1)}% of the words). A run's number is the mean of its seeds.",
             "### Runs", runs_table(b),
             "### Where the predicted head of a word with an adjacent gold head is (% of the cell's words)",
             head_place_table(b)]
    for base in baselines:
        parts += [f"### Where the LAS difference to {base} goes: contributions (LAS points of all words; "
                  f"a cell's ΔLAS times its share of the words; the gold cells' percentages are their "
                  f"shares)", summary_table(b, base),
                  f"### LAS errors by kind against {base} (Δ: percentage points of all words; "
                  f"they sum to −Δ LAS)", error_kind_table(b, base),
                  f"### Words by where the run's predicted arcs cross, against {base} (the words are the "
                  f"run's; its LAS and {base}'s on them; LAS points they add to the difference)",
                  crossing_cost_table(b, base)]
        for group in groups:
            parts += [f"### By {group}, against {base} (ΔLAS / ΔUAS in the cell → its contribution "
                      f"to the LAS difference, in points of all words)", cell_table(b, group, base)]
        if within:
            where, cell = within
            idx = [i for i, k in enumerate(w.groups[where]) if k == cell]
            for group in groups:
                if group != where:
                    parts += [f"### Within {where} = {cell}: by {group}, against {base} (contributions "
                              f"in points of all words)", cell_table(b, group, base, idx)]
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- command line

def recorded_las(folders: Sequence[Path], split: str) -> Optional[float]:
    """The mean LAS of the seeds' eval_<split>.json (evaluate_run.py: the parser segments the
    sentences), None unless every seed has one: beside the gold-sentence LAS it shows what the
    segmentation costs."""
    files = [Path(f) / f"eval_{split}.json" for f in folders]
    if not files or not all(f.exists() for f in files):
        return None
    return mean(json.loads(f.read_text())["LAS"]["f1"] for f in files)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", help="the treebank the runs were trained on")
    ap.add_argument("--pipeline", default="tagger")
    ap.add_argument("--output", type=Path, default=PROJECT / "training",
                    help="the training folder holding <treebank>/<pipeline>/<run id>-s<N>")
    ap.add_argument("--runs", default="", help="comma-separated run ids (without the seed)")
    ap.add_argument("--best-of", default="",
                    help="comma-separated run ids (also compared if not in --runs): the one with the best "
                         "mean LAS on the split is the first baseline")
    ap.add_argument("--baselines", default="", help="comma-separated run ids compared with as well")
    ap.add_argument("--split", default="dev", choices=SPLITS)
    ap.add_argument("--cache", type=Path, default=PROJECT / "error_analysis",
                    help="where the parses are kept as CoNLL-U (error_analysis.predict)")
    ap.add_argument("--force", action="store_true", help="parse again even if cached")
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--within", metavar="GROUPING=CELL",
                    help="also the cell tables of every grouping within one cell of another, e.g. "
                         "\"arc length and side of the head=1, head right\"")
    ap.add_argument("--alias", action="append", default=[], metavar="ID=NAME",
                    help="print run ID as NAME (repeatable)")
    ap.add_argument("--gold", type=Path, help="instead of --treebank: a gold CoNLL-U file ...")
    ap.add_argument("--pred", action="append", default=[], metavar="SEED_NAME=FILE",
                    help="... and predictions on its sentences (repeatable); SEED_NAME's run id is "
                         "the name without -s<N>")
    args = ap.parse_args(argv)
    ids = lambda text: [x for x in text.split(",") if x]
    best, baselines = ids(args.best_of), ids(args.baselines)
    runs = list(dict.fromkeys(ids(args.runs) + best + baselines))
    if args.gold:
        if args.treebank or not args.pred:
            ap.error("--gold goes with --pred NAME=FILE (one per seed), not with --treebank")
        pairs = name_value_pairs(ap, args.pred, "--pred", "SEED_NAME=FILE")
        gold = read(args.gold)
        preds: Dict[str, Dict[str, list]] = {}
        for name, file in pairs:
            preds.setdefault(run_id(name), {})[name] = read_predictions(file)
        title = str(args.gold)
        recorded = {}
    else:
        if not (args.treebank and runs):
            ap.error("give --treebank and --runs (or --gold and --pred)")
        folders = {rid: seed_folders(args.output, args.treebank, args.pipeline, rid) for rid in runs}
        missing = [rid for rid, f in folders.items() if not f]
        if missing:
            ap.error(f"no trained seed (<id>-s<N>/run.json) under {args.output / args.treebank / args.pipeline} "
                     f"for {', '.join(missing)}")
        preds = {rid: {f.name: read_predictions(predict(f, args.split, args.cache, args.ud_root, args.force)) for f in fs}
                 for rid, fs in folders.items()}
        path, select = split_source(args.treebank, args.split, args.ud_root)
        gold = read(path, select)
        title = f"{args.treebank} {args.split} ({path.name} {select}), gold sentences, model-best"
        recorded = {rid: recorded_las(fs, args.split) for rid, fs in folders.items()}
    unknown = [rid for rid in best + baselines if rid not in preds]
    if unknown:
        ap.error(f"baselines {unknown} have no predictions")
    aliases = dict(name_value_pairs(ap, args.alias, "--alias", "ID=NAME"))
    b = breakdown(gold, {aliases.get(rid, rid): seeds for rid, seeds in preds.items()})
    b.recorded = {aliases.get(rid, rid): las for rid, las in recorded.items() if las is not None}
    compare = ([best_of(b, [aliases.get(rid, rid) for rid in best])] if best else []) \
        + [aliases.get(rid, rid) for rid in baselines]
    compare = list(dict.fromkeys(compare or [next(iter(b.seeds))]))
    within = None
    if args.within:
        within = name_value_pairs(ap, [args.within], "--within", "GROUPING=CELL")[0]
        if within[0] not in b.words.groups or within[1] not in b.words.groups[within[0]]:
            ap.error(f"--within {args.within!r}: groupings are {', '.join(GROUPS)}; the cell must be one of "
                     f"the grouping's (see its table)")
    print(report(b, title, compare, within=within), flush=True)


if __name__ == "__main__":
    main()
