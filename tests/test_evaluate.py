"""Evaluation: gold vs gold is 100, and a perturbed copy matches an independent computation.

The independent side parses the files with the `conllu` package (not this package's
reader) and computes every score with plain loops from the definitions.
"""
import math

import conllu
import pytest
import spacy
from conllu_samples import NONPROJ, perturb_treebank, random_treebank, tiny_parser, write
from spacy.language import Language
from spacy.tokens import Doc

from spacy_dynoracle.conllu_io import read_conllu, sentences_to_docs
from spacy_dynoracle.evaluate import evaluate_docs, evaluate_pipeline

# Typed again from conll18_ud_eval.py (not imported from the package under test).
OFFICIAL_CONTENT = {
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated", "advcl",
    "advmod", "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed", "flat", "compound",
    "list", "parataxis", "orphan", "goeswith", "reparandum", "root", "dep",
}


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("xx").vocab


def docs(vocab, path, n_sents=10):
    return list(sentences_to_docs(vocab, read_conllu(path), n_sents))


def independent_trees(path):
    """[(heads, labels)] per sentence via the `conllu` package, words only."""
    with open(path, encoding="utf-8") as f:
        sentences = conllu.parse(f.read())
    out = []
    for sentence in sentences:
        words = [t for t in sentence if isinstance(t["id"], int)]
        out.append(([t["head"] for t in words], [t["deprel"] for t in words]))
    return out


def las_label(label):
    base = label.split(":")[0]
    return "root" if base.lower() == "root" else base


def np_words(heads):
    """1-based dependents of non-projective arcs, straight from the definition."""
    def descends(k, h):
        while k != 0:
            if k == h:
                return True
            k = heads[k - 1]
        return h == 0

    return {d for d, h in enumerate(heads, 1)
            if any(not descends(k, h) for k in range(min(h, d) + 1, max(h, d)))}


def every_score(result):
    """Yield (name, score dict) for every precision/recall/F1 triple in a result."""
    for key, value in result.items():
        if isinstance(value, dict) and "f1" in value:
            yield key, value
        elif isinstance(value, dict):
            yield from ((f"{key}.{k}", v) for k, v in every_score(value))


def test_gold_against_gold_is_100_everywhere(tmp_path, vocab):
    path = write(tmp_path, NONPROJ + random_treebank(1, 20))
    result = evaluate_docs(docs(vocab, path, 3), docs(vocab, path, 3))
    scores = dict(every_score(result))
    assert {"UAS", "LAS", "CLAS", "Sentences", "NonProjArcs", "NonProjArcsLabelled",
            "NonProjSentences.UAS", "NonProjSentences.LAS", "PerLabel.root", "PerLabel.nsubj"} <= set(scores)
    for name, score in scores.items():
        assert (name, score["precision"], score["recall"], score["f1"]) == (name, 100.0, 100.0, 100.0)
    assert result["NonProjArcs"]["gold"] > 0 and result["sentences"] == 23


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_perturbed_copy_matches_independent_computation(tmp_path, vocab, seed):
    gold_text = NONPROJ + random_treebank(seed, 40)
    gold_path = write(tmp_path, gold_text, "gold.conllu")
    pred_path = write(tmp_path, perturb_treebank(gold_text, seed + 100), "pred.conllu")
    result = evaluate_docs(docs(vocab, gold_path, 4), docs(vocab, pred_path, 4))

    words = uas = las = clas_gold = clas_pred = clas_ok = 0
    np_gold = np_pred = np_recovered = np_right = np_sent_words = np_sent_las = 0
    label_gold = label_ok = 0
    for (gh, gl), (ph, pl) in zip(independent_trees(gold_path), independent_trees(pred_path)):
        gold_np, pred_np = np_words(gh), np_words(ph)
        sentence_las = 0
        for i, (g_head, g_label, p_head, p_label) in enumerate(zip(gh, gl, ph, pl), 1):
            words += 1
            head_ok = g_head == p_head
            label_right = head_ok and las_label(g_label) == las_label(p_label)
            uas += head_ok
            las += label_right
            sentence_las += label_right
            clas_gold += las_label(g_label) in OFFICIAL_CONTENT
            clas_pred += las_label(p_label) in OFFICIAL_CONTENT
            clas_ok += las_label(g_label) in OFFICIAL_CONTENT and label_right
            np_recovered += i in gold_np and head_ok
            np_right += i in pred_np and head_ok
            if las_label(g_label) == "nsubj":
                label_gold += 1
                label_ok += label_right
        np_gold += len(gold_np)
        np_pred += len(pred_np)
        if gold_np:
            np_sent_words += len(gh)
            np_sent_las += sentence_las

    assert result["words"] == words
    assert result["UAS"]["correct"] == uas and result["LAS"]["correct"] == las
    assert math.isclose(result["UAS"]["f1"], 100 * uas / words)
    assert math.isclose(result["LAS"]["f1"], 100 * las / words)
    assert uas < words and las < uas  # the perturbation really changed heads and labels
    clas = result["CLAS"]
    assert (clas["gold"], clas["system"], clas["correct"]) == (clas_gold, clas_pred, clas_ok)
    assert math.isclose(clas["f1"], 100 * 2 * clas_ok / (clas_gold + clas_pred))  # official F1
    nonproj = result["NonProjArcs"]
    assert (nonproj["gold"], nonproj["system"], nonproj["correct"], nonproj["correct_system"]) == (
        np_gold, np_pred, np_recovered, np_right)
    assert math.isclose(nonproj["recall"], 100 * np_recovered / np_gold)
    assert math.isclose(nonproj["precision"], 100 * np_right / np_pred)
    assert result["NonProjSentences"]["words"] == np_sent_words
    assert result["NonProjSentences"]["LAS"]["correct"] == np_sent_las
    assert result["PerLabel"]["nsubj"]["gold"] == label_gold
    assert result["PerLabel"]["nsubj"]["correct"] == label_ok


def make_doc(vocab, words, heads, deps, sent_starts=None):
    return Doc(vocab, words=words, heads=heads, deps=deps, sent_starts=sent_starts)


def test_root_label_case_and_subtypes(vocab):
    gold = make_doc(vocab, ["a", "b", "c"], [1, 1, 1], ["nsubj:pass", "root", "obj"])
    pred = make_doc(vocab, ["a", "b", "c"], [1, 1, 1], ["nsubj", "ROOT", "obj:x"])
    result = evaluate_docs([gold], [pred])
    assert result["LAS"]["f1"] == 100.0 and result["PerLabel"]["root"]["f1"] == 100.0
    pred = make_doc(vocab, ["a", "b", "c"], [1, 1, 1], ["obj", "ROOT", "punct"])
    result = evaluate_docs([gold], [pred])
    assert result["LAS"]["correct"] == 1 and result["UAS"]["correct"] == 3
    # CLAS: gold has 3 content words, the prediction 2 (punct is not content), 1 right.
    assert (result["CLAS"]["gold"], result["CLAS"]["system"], result["CLAS"]["correct"]) == (3, 2, 1)
    assert math.isclose(result["CLAS"]["precision"], 50.0) and math.isclose(result["CLAS"]["recall"], 100 / 3)


def test_functional_relations_are_not_content(vocab):
    labels = ["aux", "cop", "mark", "det", "clf", "case", "cc", "punct", "root"]
    words = [str(i) for i in range(len(labels))]
    heads = [8] * len(labels)
    doc = make_doc(vocab, words, heads, labels)
    result = evaluate_docs([doc], [make_doc(vocab, words, heads, labels)])
    assert result["CLAS"]["gold"] == 1  # only root


def test_nonprojective_precision_and_recall(vocab):
    words = ["A", "hearing", "is", "scheduled", "on", "the", "issue", "today", "."]
    gold = make_doc(vocab, words, [1, 3, 3, 3, 6, 6, 1, 3, 3], ["det", "nsubj", "aux", "root", "case", "det", "nmod", "obl", "punct"])
    projective = make_doc(vocab, words, [1, 3, 3, 3, 6, 6, 3, 3, 3], ["det", "nsubj", "aux", "ROOT", "case", "det", "obl", "obl", "punct"])
    result = evaluate_docs([gold], [projective])
    assert result["NonProjArcs"]["gold"] == 1 and result["NonProjArcs"]["system"] == 0
    assert result["NonProjArcs"]["recall"] == 0.0 and result["NonProjArcs"]["precision"] is None
    assert result["NonProjSentences"]["sentences"] == 1
    assert math.isclose(result["NonProjSentences"]["UAS"]["f1"], 100 * 8 / 9)
    # A spurious non-projective arc: "today" attached to "hearing" across "is scheduled".
    spurious = make_doc(vocab, words, [1, 3, 3, 3, 6, 6, 3, 1, 3], ["det", "nsubj", "aux", "ROOT", "case", "det", "obl", "nmod", "punct"])
    result = evaluate_docs([gold], [spurious])
    assert (result["NonProjArcs"]["system"], result["NonProjArcs"]["correct_system"]) == (1, 0)
    assert result["NonProjArcs"]["precision"] == 0.0 and result["NonProjArcs"]["f1"] == 0.0


def test_sentence_boundaries(vocab):
    words = ["a", "b", "c", "d"]
    gold = make_doc(vocab, words, [1, 1, 3, 3], ["nsubj", "root", "nsubj", "root"])
    one_sentence = make_doc(vocab, words, [1, 1, 3, 1], ["nsubj", "ROOT", "nsubj", "conj"])
    result = evaluate_docs([gold], [one_sentence])
    assert (result["Sentences"]["gold"], result["Sentences"]["system"], result["Sentences"]["correct"]) == (2, 1, 0)
    three = make_doc(vocab, words, [0, 1, 2, 2], ["ROOT", "ROOT", "nsubj", "ROOT"])
    result = evaluate_docs([gold], [three])
    assert (result["Sentences"]["system"], result["Sentences"]["correct"]) == (3, 1)
    assert result["Sentences"]["f1"] == pytest.approx(100 * 2 * 1 / 5)
    unannotated = Doc(vocab, words=words)
    assert evaluate_docs([gold], [unannotated])["Sentences"] is None


def test_mismatches_are_errors(vocab):
    gold = make_doc(vocab, ["a", "b"], [1, 1], ["nsubj", "root"])
    with pytest.raises(ValueError, match="differ from the gold words at token 1"):
        evaluate_docs([gold], [Doc(vocab, words=["a", "c"])])
    with pytest.raises(ValueError, match="differ from the gold words at token 2"):
        evaluate_docs([gold], [Doc(vocab, words=["a", "b", "c"])])
    with pytest.raises(ValueError, match="different numbers"):
        evaluate_docs([gold, gold], [gold])


SEEN_INPUTS = []


@Language.component("spacy_dynoracle_test_right_branching")
def right_branching(doc):
    """Each word's head is the next word of its sentence (the whole Doc without boundaries)."""
    SEEN_INPUTS.append({attr: doc.has_annotation(attr) for attr in ("DEP", "POS", "TAG", "LEMMA", "MORPH", "SENT_START")}
                       | {"user_data": bool(doc.user_data)})
    spans = [(s.start, s.end) for s in doc.sents] if doc.has_annotation("SENT_START") else [(0, len(doc))]
    heads, deps = list(range(len(doc))), ["dep"] * len(doc)
    for start, end in spans:
        heads[start:end - 1] = range(start + 1, end)
        deps[end - 1] = "ROOT"
    return Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               heads=heads, deps=deps)


@pytest.mark.parametrize("gold_sents", [True, False])
def test_evaluate_pipeline_feeds_words_only_and_scores_heads_set_by_hand(tmp_path, gold_sents):
    text = NONPROJ + random_treebank(5, 25, labels=("dep", "nsubj", "obj"))
    path = write(tmp_path, text)
    nlp = spacy.blank("xx")
    nlp.add_pipe("spacy_dynoracle_test_right_branching")
    SEEN_INPUTS.clear()
    result = evaluate_pipeline(nlp, path, gold_sents=gold_sents, n_sents=4)
    assert SEEN_INPUTS and all(not any(v for k, v in seen.items() if k != "SENT_START") for seen in SEEN_INPUTS)
    assert all(seen["SENT_START"] == gold_sents for seen in SEEN_INPUTS)

    trees = independent_trees(path)
    uas = las = 0
    for start in range(0, len(trees), 4):  # the Docs: 4 sentences each
        chunk = trees[start:start + 4]
        flat = []  # (gold head over the Doc, label, predicted head over the Doc)
        offset = 0
        for heads, labels in chunk:
            for i, (h, label) in enumerate(zip(heads, labels), 1):
                gold_head = 0 if h == 0 else offset + h
                if gold_sents:
                    pred_head = 0 if i == len(heads) else offset + i + 1
                else:
                    pred_head = offset + i + 1
                flat.append((gold_head, label, pred_head))
            offset += len(heads)
        if not gold_sents:
            flat[-1] = (flat[-1][0], flat[-1][1], 0)
        for gold_head, label, pred_head in flat:
            uas += gold_head == pred_head
            las += gold_head == pred_head and las_label(label) in ("dep", "root")
    assert result["UAS"]["correct"] == uas and result["LAS"]["correct"] == las
    n_docs = math.ceil(len(trees) / 4)
    expected_sentences = (len(trees), len(trees)) if gold_sents else (len(trees), n_docs)
    assert (result["Sentences"]["gold"], result["Sentences"]["system"]) == expected_sentences
    assert result["settings"] == {"data": str(path), "gold_sents": gold_sents, "n_sents": 4, "select": "all"}


def test_evaluate_pipeline_with_spacy_stock_parser(tmp_path):
    train = write(tmp_path, NONPROJ * 3 + random_treebank(9, 12), "train.conllu")
    nlp = tiny_parser(train)
    result = evaluate_pipeline(nlp, train, gold_sents=True, n_sents=3)
    # Preset boundaries are kept, and every predicted root (labelled ROOT) counts as "root".
    assert result["Sentences"]["f1"] == 100.0
    assert result["PerLabel"]["root"]["system"] == result["sentences"]
    assert 0 < result["UAS"]["f1"] <= 100
    free = evaluate_pipeline(nlp, train, gold_sents=False, n_sents=3)
    assert free["Sentences"]["system"] >= 1 and free["words"] == result["words"]
