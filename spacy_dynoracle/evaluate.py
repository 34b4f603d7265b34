"""CoNLL 2018 shared-task style dependency evaluation on gold tokenization.

Definitions (as in the official ``conll18_ud_eval.py``, on gold words, so every word is
aligned and precision = recall = F1 for UAS and LAS):

* UAS: correct head. LAS: correct head and label, labels compared without subtypes
  (``nsubj:pass`` counts as ``nsubj``). spaCy's root label ``ROOT`` equals UD ``root``
  (the root label is compared case-insensitively), so any pipeline is scored alike.
* CLAS: LAS over words whose (subtype-less) label is a content relation, the official
  ``CONTENT_DEPRELS`` below; recall counts gold content words, precision predicted ones.
  The functional relations aux, cop, mark, det, clf, case, cc and also punct (and any
  label outside UD) are not content relations.
* Non-projective arcs: arc h -> d is non-projective iff a word strictly between h and d
  does not descend from h (root 0 left of word 1). Recall = gold non-projective arcs
  whose dependent got the gold head; precision = predicted non-projective arcs that are
  gold arcs (same dependent and head). "Labelled" also requires the label.
* LAS/UAS on non-projective sentences: gold sentences with >= 1 non-projective arc.
* Per-label: for each label L, recall = correct (head+label) / gold words labelled L,
  precision = correct / predicted words labelled L.
* Sentences: F1 of sentence spans (start and end must both match), when the prediction
  has sentence boundaries.

All scores are percentages; a ratio with a zero denominator is None (the official script
prints 0.00 there).
"""
from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple, Union

from .trees import nonprojective_dependents

# conll18_ud_eval.py, CONTENT_DEPRELS (FUNCTIONAL_DEPRELS = aux cop mark det clf case cc).
CONTENT_DEPRELS = frozenset({
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative",
    "expl", "dislocated", "advcl", "advmod", "discourse", "nmod", "appos",
    "nummod", "acl", "amod", "conj", "fixed", "flat", "compound", "list",
    "parataxis", "orphan", "goeswith", "reparandum", "root", "dep",
})


def base_label(label: str) -> str:
    """The label as LAS compares it: subtype dropped, any-case ``root`` -> ``root``."""
    base = label.split(":", 1)[0]
    return "root" if base.lower() == "root" else base


def _ratio(part: int, whole: int) -> Optional[float]:
    return 100.0 * part / whole if whole else None


@dataclass
class Score:
    """Counts behind a precision/recall/F1 triple.

    correct: gold items found (recall side); correct_system: predicted items that are
    right (precision side), the same number unless the two sides select different items
    (non-projective arcs).
    """

    gold: int = 0
    system: int = 0
    correct: int = 0
    correct_system: Optional[int] = None

    def to_dict(self) -> dict:
        correct_system = self.correct if self.correct_system is None else self.correct_system
        precision = _ratio(correct_system, self.system)
        recall = _ratio(self.correct, self.gold)
        if precision is None or recall is None:
            f1 = None
        elif precision + recall == 0:
            f1 = 0.0
        else:
            f1 = 2 * precision * recall / (precision + recall)
        out = {"precision": precision, "recall": recall, "f1": f1,
               "gold": self.gold, "system": self.system, "correct": self.correct}
        if self.correct_system is not None:
            out["correct_system"] = self.correct_system
        return out


def _tree(doc) -> Tuple[List[int], List[str]]:
    """Heads (CoNLL-U numbering over the whole Doc, 0 = root) and compared labels."""
    heads = [0 if t.head.i == t.i else t.head.i + 1 for t in doc]
    labels = [base_label(t.dep_) for t in doc]
    return heads, labels


def _sentence_spans(doc) -> Optional[List[Tuple[int, int]]]:
    if not (doc.has_annotation("SENT_START") or doc.has_annotation("DEP")):
        return None
    return [(s.start, s.end) for s in doc.sents]


class _Tally:
    def __init__(self) -> None:
        self.words = 0
        self.sentences = 0
        self.uas = Score()
        self.las = Score()
        self.clas = Score()
        self.np_arcs = Score(correct_system=0)
        self.np_arcs_labelled = Score(correct_system=0)
        self.np_sentences = 0
        self.np_uas = Score()
        self.np_las = Score()
        self.per_label: Dict[str, Score] = defaultdict(Score)
        self.sentence_spans: Optional[Score] = Score()

    def add(self, k: int, gold, pred) -> None:
        if len(gold) != len(pred) or any(g.text != p.text for g, p in zip(gold, pred)):
            i = next((i for i, (g, p) in enumerate(zip(gold, pred)) if g.text != p.text), min(len(gold), len(pred)))
            raise ValueError(
                f"document {k}: the predicted tokens differ from the gold words at token {i} "
                f"(gold has {len(gold)} tokens, predicted {len(pred)}); evaluation needs gold tokenization"
            )
        gold_heads, gold_labels = _tree(gold)
        pred_heads, pred_labels = _tree(pred)
        n = len(gold_heads)
        head_ok = [g == p for g, p in zip(gold_heads, pred_heads)]
        both_ok = [h and g == p for h, g, p in zip(head_ok, gold_labels, pred_labels)]
        self.words += n
        for score, hits in ((self.uas, head_ok), (self.las, both_ok)):
            score.gold += n
            score.system += n
            score.correct += sum(hits)
        for i in range(n):
            gold_content = gold_labels[i] in CONTENT_DEPRELS
            self.clas.gold += gold_content
            self.clas.system += pred_labels[i] in CONTENT_DEPRELS
            self.clas.correct += gold_content and both_ok[i]
            self.per_label[gold_labels[i]].gold += 1
            self.per_label[pred_labels[i]].system += 1
            self.per_label[gold_labels[i]].correct += both_ok[i]
        gold_np = nonprojective_dependents(gold_heads)
        pred_np = nonprojective_dependents(pred_heads)
        for score, hits in ((self.np_arcs, head_ok), (self.np_arcs_labelled, both_ok)):
            score.gold += len(gold_np)
            score.system += len(pred_np)
            score.correct += sum(hits[d - 1] for d in gold_np)
            score.correct_system += sum(hits[d - 1] for d in pred_np)  # type: ignore[operator]
        gold_spans = _sentence_spans(gold) or [(0, n)]
        self.sentences += len(gold_spans)
        np_words = set(gold_np)
        for start, end in gold_spans:
            if any(start < d <= end for d in np_words):  # d is 1-based
                self.np_sentences += 1
                for score, hits in ((self.np_uas, head_ok), (self.np_las, both_ok)):
                    score.gold += end - start
                    score.system += end - start
                    score.correct += sum(hits[start:end])
        pred_spans = _sentence_spans(pred)
        if pred_spans is None:
            self.sentence_spans = None
        elif self.sentence_spans is not None:
            self.sentence_spans.gold += len(gold_spans)
            self.sentence_spans.system += len(pred_spans)
            self.sentence_spans.correct += len(set(gold_spans) & set(pred_spans))

    def result(self) -> dict:
        per_label = sorted(self.per_label.items(), key=lambda item: (-item[1].gold, item[0]))
        return {
            "words": self.words,
            "sentences": self.sentences,
            "UAS": self.uas.to_dict(),
            "LAS": self.las.to_dict(),
            "CLAS": self.clas.to_dict(),
            "Sentences": None if self.sentence_spans is None else self.sentence_spans.to_dict(),
            "NonProjArcs": self.np_arcs.to_dict(),
            "NonProjArcsLabelled": self.np_arcs_labelled.to_dict(),
            "NonProjSentences": {
                "sentences": self.np_sentences,
                "words": self.np_uas.gold,
                "UAS": self.np_uas.to_dict(),
                "LAS": self.np_las.to_dict(),
            },
            "PerLabel": {label: score.to_dict() for label, score in per_label},
        }


def evaluate_docs(gold_docs: Iterable, pred_docs: Iterable) -> dict:
    """Score predicted Docs against gold Docs with the same words (see module docstring).

    Docs are paired in order; each pair must have identical token texts. Returns a dict
    with "words", "sentences", and per metric a dict of precision/recall/f1 (percent) and
    the counts behind them: UAS, LAS, CLAS, Sentences (None without predicted sentence
    boundaries), NonProjArcs, NonProjArcsLabelled, NonProjSentences {UAS, LAS}, PerLabel.
    """
    tally = _Tally()
    missing = object()
    for k, (gold, pred) in enumerate(itertools.zip_longest(gold_docs, pred_docs, fillvalue=missing)):
        if gold is missing or pred is missing:
            raise ValueError(f"different numbers of gold and predicted Docs (stopped at Doc {k})")
        tally.add(k, gold, pred)
    return tally.result()


def evaluate_pipeline(
    nlp,
    path: Union[str, Path],
    *,
    gold_sents: bool = False,
    n_sents: int = 10,
    batch_size: int = 64,
    select: str = "all",
    on_error: str = "raise",
    progress: bool = False,
    lenient: bool = False,
) -> dict:
    """Run a pipeline on the gold words of a CoNLL-U file (or directory) and score it.

    The pipeline sees Docs of `n_sents` gold sentences with words and spaces only; with
    gold_sents the gold sentence boundaries are preset too (the parser must respect them),
    otherwise the parser segments and the "Sentences" score measures it. Works the same
    for any pipeline with a parser (spaCy's `parser` or `dynoracle_parser`). on_error and
    lenient: as in `read_conllu`.
    """
    from .conllu_io import sentences_to_docs, words_only_copy
    from .corpus import read_sentences
    from .progress import progress_bar

    sentences = read_sentences(path, select=select, on_error=on_error, lenient=lenient)
    gold_docs = sentences_to_docs(nlp.vocab, sentences, n_sents, keep_source=False)
    gold_for_scoring, gold_for_input = itertools.tee(gold_docs)
    inputs = (words_only_copy(doc, sent_starts=gold_sents) for doc in gold_for_input)
    pred_docs = nlp.pipe(inputs, batch_size=batch_size)
    pred_docs = progress_bar(pred_docs, "parsing", "doc", show=progress)
    result = evaluate_docs(gold_for_scoring, pred_docs)
    result["settings"] = {"data": str(path), "gold_sents": gold_sents, "n_sents": n_sents, "select": select}
    return result
