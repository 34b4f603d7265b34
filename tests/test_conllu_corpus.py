"""The registered corpus reader spacy_dynoracle.ConlluCorpus.v1."""
from fractions import Fraction

import pytest
import spacy
from conllu_samples import MWT_AND_EMPTY, NONPROJ, random_treebank, write
from spacy.util import load_config_from_str, registry

from spacy_dynoracle.corpus import create_conllu_reader, read_sentences, selected_range

CONFIG = """
[paths]
train = null
dev = null

[corpora]

[corpora.train]
@readers = "spacy_dynoracle.ConlluCorpus.v1"
path = ${paths.train}
n_sents = 2

[corpora.dev]
@readers = "spacy_dynoracle.ConlluCorpus.v1"
path = ${paths.dev}
n_sents = 10
"""


def test_registered_under_its_name():
    assert registry.readers.get("spacy_dynoracle.ConlluCorpus.v1") is create_conllu_reader


def test_config_resolves_to_examples(tmp_path):
    path = write(tmp_path, MWT_AND_EMPTY + NONPROJ)
    config = load_config_from_str(CONFIG, overrides={"paths.train": str(path), "paths.dev": str(path)},
                                  interpolate=True)
    corpora = registry.resolve(config["corpora"])
    nlp = spacy.blank("xx")
    train = list(corpora["train"](nlp))
    assert [len(list(eg.reference.sents)) for eg in train] == [2, 2, 1]
    eg = train[0]
    assert [t.text_with_ws for t in eg.predicted] == [t.text_with_ws for t in eg.reference]
    for attr in ("DEP", "POS", "TAG", "MORPH", "LEMMA", "SENT_START"):
        assert not eg.predicted.has_annotation(attr), attr
    assert eg.reference.has_annotation("DEP") and eg.reference.has_annotation("MORPH")
    assert [t.dep_ for t in eg.reference][:5] == ["root", "obj", "case", "det", "obl:arg"]
    assert eg.reference.vocab is nlp.vocab and not eg.reference.user_data
    assert len(list(corpora["dev"](nlp))) == 1


def test_limit_and_directory(tmp_path):
    write(tmp_path, NONPROJ, "b.conllu")
    write(tmp_path, MWT_AND_EMPTY, "a.conllu")
    write(tmp_path, "not conllu", "notes.txt")
    reader = create_conllu_reader(tmp_path, n_sents=1)
    nlp = spacy.blank("xx")
    firsts = [eg.reference[0].text for eg in reader(nlp)]
    assert firsts == ["Vamos", "Ἐν", "A", "Dogs", "Who"]  # a.conllu before b.conllu
    assert len(list(create_conllu_reader(tmp_path, n_sents=1, limit=2)(nlp))) == 2
    # Every epoch reads again from the start.
    assert [eg.reference[0].text for eg in reader(nlp)] == firsts


def test_clear_errors_for_bad_paths_and_options(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        create_conllu_reader(tmp_path / "missing.conllu")
    with pytest.raises(FileNotFoundError, match="no \\*.conllu files"):
        create_conllu_reader(tmp_path)
    with pytest.raises(ValueError, match="paths.train"):
        create_conllu_reader(None)
    path = write(tmp_path, NONPROJ)
    with pytest.raises(ValueError, match="invalid select"):
        create_conllu_reader(path, select="middle:0.5")
    with pytest.raises(ValueError, match="invalid select"):
        create_conllu_reader(path, select="tail:1.5")
    with pytest.raises(ValueError, match="on_error"):
        create_conllu_reader(path, on_error="ignore")
    with pytest.raises(ValueError, match="n_sents"):
        create_conllu_reader(path, n_sents=0)


def test_skip_mode_in_the_reader(tmp_path):
    bad = NONPROJ.replace("\t2\tnsubj\t", "\tx\tnsubj\t")
    path = write(tmp_path, bad)
    nlp = spacy.blank("xx")
    with pytest.raises(ValueError, match=":15: HEAD 'x'"):
        list(create_conllu_reader(path)(nlp))
    with pytest.warns(UserWarning, match="skipped 1 malformed"):
        examples = list(create_conllu_reader(path, n_sents=1, on_error="skip")(nlp))
    assert len(examples) == 2


@pytest.mark.parametrize("head,tail", [("0.9", "0.1"), ("0.5", "0.5"), ("0.75", "0.25"), ("0.999", "0.001")])
def test_head_and_tail_partition_exactly(head, tail):
    for n in range(0, 60):
        first, last = selected_range(n, f"head:{head}"), selected_range(n, f"tail:{tail}")
        assert list(first) + list(last) == list(range(n)), n
        assert len(last) == int(n * Fraction(tail) + Fraction(1, 2))  # round half up
    # Latin-Perseus train has 1,334 sentences: the last 10% is 133 of them.
    assert len(selected_range(1334, "tail:0.1")) == 133
    assert selected_range(7, "all") == range(7)


def test_select_reads_the_right_sentences(tmp_path):
    path = write(tmp_path, random_treebank(1, 20))
    ids = [s.sent_id for s in read_sentences(path)]
    head = [s.sent_id for s in read_sentences(path, select="head:0.9")]
    tail = [s.sent_id for s in read_sentences(path, select="tail:0.1")]
    assert head == ids[:18] and tail == ids[18:]
    nlp = spacy.blank("xx")
    dev = list(create_conllu_reader(path, select="tail:0.1", n_sents=1)(nlp))
    assert [eg.reference[0].text for eg in dev] == ["w18x1", "w19x1"]


def test_spacy_training_loop_runs_on_the_reader(tmp_path):
    from spacy.training.initialize import init_nlp
    from spacy.training.loop import train

    path = write(tmp_path, NONPROJ * 2 + random_treebank(4, 10))
    config_text = CONFIG + """
[nlp]
lang = "xx"
pipeline = ["parser"]
batch_size = 4

[components]

[components.parser]
factory = "parser"
min_action_freq = 1

[training]
max_steps = 3
eval_frequency = 2
max_epochs = 0
dev_corpus = "corpora.dev"
train_corpus = "corpora.train"

[initialize]
"""
    config = load_config_from_str(config_text, overrides={"paths.train": str(path), "paths.dev": str(path)})
    filled = spacy.util.load_model_from_config(config, auto_fill=True).config  # spaCy's defaults
    nlp = init_nlp(filled)
    train(nlp, output_path=None, stdout=open(tmp_path / "log.txt", "w"))
    assert "dep_las" in nlp.evaluate(list(create_conllu_reader(path)(nlp)))
