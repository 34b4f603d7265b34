"""Slow: evaluation on real treebanks (gold vs gold, and a pipeline run end to end)."""
import pytest
import spacy
from conllu_samples import tiny_parser
from ud_paths import require_ud_root

from spacy_dynoracle.conllu_io import read_conllu, sentences_to_docs
from spacy_dynoracle.evaluate import evaluate_docs, evaluate_pipeline

pytestmark = pytest.mark.slow
FILES = ["UD_Latin-Perseus/la_perseus-ud-test.conllu", "UD_Portuguese-Bosque/pt_bosque-ud-dev.conllu",
         "UD_Ancient_Greek-Perseus/grc_perseus-ud-dev.conllu"]


@pytest.mark.parametrize("name", FILES)
def test_gold_against_gold_is_100(name):
    path = require_ud_root() / name
    vocab = spacy.blank("xx").vocab
    result = evaluate_docs(sentences_to_docs(vocab, read_conllu(path)), sentences_to_docs(vocab, read_conllu(path)))
    for metric in ("UAS", "LAS", "CLAS", "Sentences", "NonProjArcs", "NonProjArcsLabelled"):
        assert result[metric]["f1"] == 100.0, metric
    assert result["NonProjSentences"]["LAS"]["f1"] == 100.0
    assert all(score["f1"] == 100.0 for score in result["PerLabel"].values())
    assert result["NonProjArcs"]["gold"] > 0


def test_stock_parser_pipeline_on_carved_dev(tmp_path):
    # Latin-Perseus has no dev split: train on the head, evaluate on the last 10% of train.
    root = require_ud_root()
    train = root / "UD_Latin-Perseus" / "la_perseus-ud-train.conllu"
    head = tmp_path / "head.conllu"
    from spacy_dynoracle.conllu_io import write_sentences
    from spacy_dynoracle.corpus import read_sentences

    write_sentences(list(read_sentences(train, select="head:0.9"))[:200], head)
    nlp = tiny_parser(head, iterations=3)
    result = evaluate_pipeline(nlp, train, select="tail:0.1", gold_sents=True)
    assert result["sentences"] == 133 and result["Sentences"]["f1"] == 100.0
    assert 0 < result["UAS"]["f1"] < 100 and result["NonProjArcs"]["gold"] > 0
