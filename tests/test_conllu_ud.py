"""Slow: every treebank file under UD_ROOT reads, round-trips byte for byte, and agrees
with the independent `conllu` package."""
import io

import conllu
import pytest
import spacy
from ud_paths import require_ud_root, ud_files

from spacy_dynoracle.conllu_io import read_conllu, sentences_to_docs, write_conllu, write_sentences

pytestmark = pytest.mark.slow
FILES = ud_files() or [None]  # None: UD absent, the test skips with the reason


def file_id(path):
    return "absent" if path is None else path.name


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_round_trip_is_byte_identical(path):
    require_ud_root()
    original = path.read_bytes()
    sentences = list(read_conllu(path))
    direct = io.StringIO()
    write_sentences(sentences, direct)
    assert direct.getvalue().encode("utf-8") == original
    through_docs = io.StringIO()
    vocab = spacy.blank("xx").vocab
    assert write_conllu(sentences_to_docs(vocab, sentences, n_sents=10), through_docs) == len(sentences)
    assert through_docs.getvalue().encode("utf-8") == original


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_reader_agrees_with_the_conllu_package(path):
    require_ud_root()
    ours = list(read_conllu(path))
    with open(path, encoding="utf-8") as f:
        theirs = list(conllu.parse_incr(f))
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs):
        words = [t for t in other if isinstance(t["id"], int)]
        assert [w.form for w in mine.words] == [t["form"] for t in words]
        assert mine.heads == [t["head"] for t in words]
        assert [w.deprel for w in mine.words] == [t["deprel"] for t in words]
        assert [w.upos for w in mine.words] == [t["upos"] or "_" for t in words]
        mwts = [t for t in other if isinstance(t["id"], tuple) and t["id"][1] == "-"]
        assert [(m.first, m.last, m.form) for m in mine.multiword_tokens] == [(t["id"][0], t["id"][2], t["form"]) for t in mwts]
        empties = [t for t in other if isinstance(t["id"], tuple) and t["id"][1] == "."]
        assert [(e.after, e.index) for e in mine.empty_nodes] == [(t["id"][0], t["id"][2]) for t in empties]
