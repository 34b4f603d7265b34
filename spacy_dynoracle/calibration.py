"""Calibration of arc marginals (issue 8; docs/tabulation.md): are the probabilities the
window model gives its heads (`doc._.dynoracle_arc_marginals`) right as often as they say?

* `reliability(confidences, correct, n_bins=10)`: the reliability table over equal-width
  bins of the confidence, and the expected calibration error
  ECE = sum over bins of (count / N) * |accuracy - mean confidence| (Guo et al. 2017),
  plus the maximum calibration error (largest gap over non-empty bins) and the Brier score.
  Bin k holds confidences in [k/B, (k+1)/B); the last bin also holds 1.0.
* `arc_confidences(gold_docs, pred_docs)`: one (confidence, correct) pair per word: the
  marginal probability of the head the parser gave the word (a root: of being a root) and
  whether that head is the gold head (unlabelled: marginals are over heads). Also the
  same for the most probable head of each word's marginal row ("argmax").
* `evaluate_with_calibration(nlp, path, ...)`: the CoNLL-18 scores of `evaluate_pipeline`
  and the reliability tables of a pipeline whose `dynoracle_parser` has a window model,
  on the gold words of a CoNLL-U file. CLI: ``spacy-dynoracle calibration MODEL DATA``.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Dict, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from .parser import arc_marginals_parser  # its exact_decoding registers doc._.dynoracle_arc_marginals


def reliability(confidences: Sequence[float], correct: Sequence[bool], n_bins: int = 10) -> dict:
    """Reliability table and calibration errors of `confidences` (probabilities in [0, 1])
    against the 0/1 outcomes `correct`. Errors are fractions (not percent); bins with no
    item have None for their confidence and accuracy and add nothing to the ECE."""
    conf = np.asarray(confidences, dtype=np.float64).ravel()
    hit = np.asarray(correct, dtype=np.float64).ravel()
    if conf.shape != hit.shape:
        raise ValueError(f"{conf.size} confidences but {hit.size} outcomes")
    if n_bins < 1:
        raise ValueError("n_bins must be >= 1")
    if conf.size and (np.isnan(conf).any() or conf.min() < -1e-9 or conf.max() > 1 + 1e-9):
        raise ValueError("confidences must be probabilities in [0, 1]")
    conf = np.clip(conf, 0.0, 1.0)
    # edges k / B exactly as written (0.3 is 3 / 10), so a confidence on an edge goes up
    edges = np.arange(n_bins + 1) / n_bins
    index = np.clip(np.searchsorted(edges, conf, side="right") - 1, 0, n_bins - 1)
    n = conf.size
    bins, ece, mce = [], 0.0, 0.0
    for k in range(n_bins):
        mask = index == k
        count = int(mask.sum())
        mean_conf = float(conf[mask].mean()) if count else None
        acc = float(hit[mask].mean()) if count else None
        if count:
            gap = abs(acc - mean_conf)
            ece += count / n * gap
            mce = max(mce, gap)
        bins.append({"lower": float(edges[k]), "upper": float(edges[k + 1]), "count": count,
                     "confidence": mean_conf, "accuracy": acc})
    return {
        "n": n, "n_bins": n_bins,
        "ece": ece if n else None, "mce": mce if n else None,
        "brier": float(((conf - hit) ** 2).mean()) if n else None,
        "accuracy": float(hit.mean()) if n else None,
        "confidence": float(conf.mean()) if n else None,
        "bins": bins,
    }


def reliability_markdown(result: dict) -> str:
    """The reliability table of `reliability()` as markdown (percentages)."""
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}"
    lines = ["| confidence | words | mean confidence | accuracy | gap |", "|---|---|---|---|---|"]
    for b in result["bins"]:
        gap = None if b["count"] == 0 else b["accuracy"] - b["confidence"]
        lines.append(f"| [{b['lower']:.1f}, {b['upper']:.1f}{']' if b['upper'] == 1 else ')'} "
                     f"| {b['count']} | {pct(b['confidence'])} | {pct(b['accuracy'])} | {pct(gap)} |")
    lines.append(f"| all | {result['n']} | {pct(result['confidence'])} | {pct(result['accuracy'])} "
                 f"| ECE {pct(result['ece'])}, MCE {pct(result['mce'])}, Brier {result['brier']:.4f} |"
                 if result["n"] else "| all | 0 | - | - | - |")
    return "\n".join(lines)


def arc_confidences(gold_docs: Iterable, pred_docs: Iterable) -> Dict[str, Tuple[np.ndarray, np.ndarray]]:
    """{"decoded": (confidence, correct), "argmax": (confidence, correct)} over every word
    of the paired Docs (same words; pred_docs carry doc._.dynoracle_arc_marginals).
    decoded: marginal of the parser's head of the word; argmax: the largest marginal of the
    word's row and whether that head is the gold one. A root is its own head."""
    conf, hit, aconf, ahit = [], [], [], []
    missing = object()
    for k, (gold, pred) in enumerate(itertools.zip_longest(gold_docs, pred_docs, fillvalue=missing)):
        if gold is missing or pred is missing:
            raise ValueError(f"different numbers of gold and predicted Docs (stopped at Doc {k})")
        if len(gold) != len(pred):
            raise ValueError(f"document {k}: {len(gold)} gold words but {len(pred)} predicted tokens")
        if not len(pred):
            continue
        marg = pred._.dynoracle_arc_marginals
        if marg is None:
            raise ValueError(f"document {k} has no arc marginals (doc._.dynoracle_arc_marginals): "
                             "parse with a window model and arc_marginals = true")
        gold_heads = np.array([t.head.i for t in gold])
        pred_heads = np.array([t.head.i for t in pred])
        rows = np.arange(len(pred))
        conf.append(marg[rows, pred_heads])
        hit.append(pred_heads == gold_heads)
        best = marg.argmax(axis=1)
        aconf.append(marg[rows, best])
        ahit.append(best == gold_heads)
    cat = lambda xs, dtype: np.concatenate(xs).astype(dtype) if xs else np.zeros(0, dtype)
    return {"decoded": (cat(conf, np.float64), cat(hit, bool)),
            "argmax": (cat(aconf, np.float64), cat(ahit, bool))}


def evaluate_with_calibration(
    nlp,
    path: Union[str, Path],
    *,
    decode: Optional[str] = None,
    gold_sents: bool = False,
    n_sents: int = 10,
    batch_size: int = 64,
    select: str = "all",
    n_bins: int = 10,
    lenient: bool = False,
) -> Tuple[dict, dict]:
    """(scores, calibration) of a pipeline on the gold words of a CoNLL-U file (or folder).

    scores: `evaluate.evaluate_docs`'s result (as `evaluate_pipeline`, same settings);
    calibration: {"decoded": reliability(...), "argmax": reliability(...)} of the arc
    marginals. The pipeline's dynoracle_parser must have a window model; its arc marginals
    are switched on for the run (and `decode`, "greedy" or "exact", if given), then its
    settings are restored. lenient: as in `read_conllu`."""
    from .conllu_io import sentences_to_docs, words_only_copy
    from .corpus import read_sentences
    from .evaluate import evaluate_docs

    parser = arc_marginals_parser(nlp, enable=False)
    saved = {key: parser.cfg.get(key) for key in ("arc_marginals", "decode")}
    if decode is not None and decode not in ("greedy", "exact"):
        raise ValueError(f"decode must be 'greedy' or 'exact', not {decode!r}")
    try:
        parser.cfg["arc_marginals"] = True
        if decode is not None:
            parser.cfg["decode"] = decode
        sentences = read_sentences(path, select=select, lenient=lenient)
        gold = list(sentences_to_docs(nlp.vocab, sentences, n_sents, keep_source=False))
        pred = list(nlp.pipe((words_only_copy(doc, sent_starts=gold_sents) for doc in gold),
                             batch_size=batch_size))
    finally:
        parser.cfg.update(saved)
    scores = evaluate_docs(gold, pred)
    scores["settings"] = {"data": str(path), "gold_sents": gold_sents, "n_sents": n_sents,
                          "select": select, "decode": decode or saved["decode"] or "greedy"}
    pairs = arc_confidences(gold, pred)
    return scores, {name: reliability(c, h, n_bins) for name, (c, h) in pairs.items()}
