"""CoNLL-U <-> spaCy Docs: what the Docs carry, and writing parsed Docs back."""
import pytest
import spacy
from conllu_samples import MWT_AND_EMPTY, NONPROJ, write
from spacy.tokens import Doc

from spacy_dynoracle.conllu_io import (
    USER_DATA_KEY,
    doc_to_conllu,
    read_conllu,
    sentences_to_docs,
    words_only_copy,
    write_conllu,
)


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("xx")


def docs_from(tmp_path, nlp, text, n_sents=10, **read_options):
    path = write(tmp_path, text)
    return path, list(sentences_to_docs(nlp.vocab, read_conllu(path, **read_options), n_sents))


def parsed_copy(doc, heads, deps):
    """The Doc's words with another parse, carrying the same CoNLL-U source."""
    copy = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               heads=heads, deps=deps)
    copy.user_data[USER_DATA_KEY] = doc.user_data[USER_DATA_KEY]
    return copy


def test_doc_annotations(tmp_path, nlp):
    _, (doc,) = docs_from(tmp_path, nlp, MWT_AND_EMPTY)
    assert [t.text for t in doc] == ["Vamos", "nos", "a", "el", "mar", ".", "Ἐν", "ἀρχῇ", "ἦν", "😀", "東京"]
    # MWT-aware spaces: glued inside "Vámonos"/"al", "al" itself says SpaceAfter=No.
    assert doc.text == "Vamosnos aelmar. Ἐν ἀρχῇ ἦν 😀 東京"
    assert [t.head.i for t in doc] == [0, 0, 4, 4, 0, 0, 7, 8, 8, 8, 8]  # roots point to themselves
    assert [t.dep_ for t in doc] == ["root", "obj", "case", "det", "obl:arg", "punct",
                                     "case", "obl", "root", "discourse", "nsubj"]
    assert [t.pos_ for t in doc][:6] == ["VERB", "PRON", "ADP", "DET", "NOUN", "PUNCT"]
    assert str(doc[0].morph) == "Mood=Imp|Number=Plur|Person=1"
    assert [t.lemma_ for t in doc][:3] == ["ir", "nosotros", "a"]
    assert [t.tag_ for t in doc] == [""] * 11  # XPOS "_" is unset, not the tag "_"
    assert [(s.start, s.end) for s in doc.sents] == [(0, 6), (6, 11)]
    source = doc.user_data[USER_DATA_KEY]
    assert [s["start"] for s in source["sentences"]] == [0, 6]
    assert source["sentences"][1]["empty"][0][0] == "2.1"


def test_n_sents_groups_sentences(tmp_path, nlp):
    _, docs = docs_from(tmp_path, nlp, NONPROJ, n_sents=2)
    assert [len(list(d.sents)) for d in docs] == [2, 1]
    with pytest.raises(ValueError, match="n_sents"):
        list(sentences_to_docs(nlp.vocab, [], n_sents=0))


def test_unparsed_sentences_get_sentence_starts(tmp_path, nlp):
    text = "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\t_\n\n1\tc\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
    path, (doc,) = docs_from(tmp_path, nlp, text, require_heads=False)
    assert not doc.has_annotation("DEP")
    assert [(s.start, s.end) for s in doc.sents] == [(0, 2), (2, 3)]
    out = tmp_path / "out.conllu"
    write_conllu([doc], out)
    assert out.read_bytes() == path.read_bytes()


def test_mixed_parsed_and_unparsed_sentences_round_trip(tmp_path, nlp):
    unparsed = "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
    path, docs = docs_from(tmp_path, nlp, NONPROJ + unparsed + NONPROJ, n_sents=10, require_heads=False)
    assert [d.has_annotation("DEP") for d in docs] == [True, False, True]  # never mixed in one Doc
    out = tmp_path / "out.conllu"
    write_conllu(docs, out)
    assert out.read_bytes() == path.read_bytes()


def test_several_roots_round_trip_when_allowed(tmp_path, nlp):
    text = NONPROJ.replace("\t2\tnsubj\t_\t_\n", "\t0\troot\t_\t_\n", 1)  # "Dogs" becomes a second root
    path, docs = docs_from(tmp_path, nlp, text, allow_multiple_roots=True)
    assert len(list(docs[0].sents)) == 4  # spaCy splits the two-rooted sentence ...
    out = tmp_path / "out.conllu"
    write_conllu(docs, out)
    assert out.read_bytes() == path.read_bytes()  # ... but it is written back as one


@pytest.mark.parametrize("text", [MWT_AND_EMPTY, NONPROJ], ids=["mwt-empty-unicode", "nonproj"])
@pytest.mark.parametrize("n_sents", [1, 2, 10])
def test_docs_write_back_byte_for_byte(tmp_path, nlp, text, n_sents):
    path, docs = docs_from(tmp_path, nlp, text, n_sents=n_sents)
    out = tmp_path / "out.conllu"
    assert write_conllu(docs, out) == text.count("\n\n")
    assert out.read_bytes() == path.read_bytes()


def test_user_data_survives_serialisation(tmp_path, nlp):
    path, (doc,) = docs_from(tmp_path, nlp, MWT_AND_EMPTY)
    restored = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert doc_to_conllu(restored) == path.read_text(encoding="utf-8")


def test_new_parse_replaces_head_and_deprel_only(tmp_path, nlp):
    path, docs = docs_from(tmp_path, nlp, NONPROJ, n_sents=1)
    doc = docs[0]
    # Projective alternative: "issue" attached to "scheduled"; root labelled like spaCy.
    heads = [1, 3, 3, 3, 6, 6, 3, 3, 3]
    deps = ["det", "nsubj", "aux", "ROOT", "case", "det", "obl", "obl", "punct"]
    text = doc_to_conllu(parsed_copy(doc, heads, deps))
    lines = text.split("\n")
    original = path.read_text(encoding="utf-8").split("\n")
    assert lines[:2] == original[:2]  # comments kept
    assert lines[5].split("\t") == ["4", "scheduled", "schedule", "VERB", "VBN", "_", "0", "root", "_", "_"]
    assert lines[8].split("\t")[6:8] == ["4", "obl"]
    for new, old in zip(lines[2:11], original[2:11]):
        new_cols, old_cols = new.split("\t"), old.split("\t")
        assert new_cols[:6] + new_cols[8:] == old_cols[:6] + old_cols[8:]


def test_replace_other_columns_from_the_doc(tmp_path, nlp):
    doc = docs_from(tmp_path, nlp, NONPROJ, n_sents=1)[1][0]
    doc[0].tag_ = "XX"
    doc[0].lemma_ = "ein"
    text = doc_to_conllu(doc, replace=("XPOS", "LEMMA"))
    assert text.split("\n")[2].split("\t")[:5] == ["1", "A", "ein", "DET", "XX"]
    with pytest.raises(ValueError, match="cannot replace"):
        doc_to_conllu(doc, replace=("FORM",))


def test_parse_that_merges_two_sentences_is_written_as_one(tmp_path, nlp):
    path, (doc,) = docs_from(tmp_path, nlp, MWT_AND_EMPTY)
    heads = [0, 0, 4, 4, 0, 0, 7, 8, 0, 8, 8]  # "ἦν" now hangs from "Vamos": one tree
    deps = ["ROOT", "obj", "case", "det", "obl", "punct", "case", "obl", "conj", "discourse", "nsubj"]
    text = doc_to_conllu(parsed_copy(doc, heads, deps))
    sentences = text.split("\n\n")[:-1]
    assert len(sentences) == 1
    lines = sentences[0].split("\n")
    # MWT lines survive (renumbered within the new sentence), comments and empty nodes do not,
    # DEPS is cleared because it refers to the old numbering.
    assert lines[0].startswith("1-2\tVámonos") and lines[3].startswith("3-4\tal")
    assert lines[10].split("\t") == ["9", "ἦν", "εἰμί", "AUX", "_", "_", "1", "conj", "_", "_"]
    assert not any(line.startswith("#") or "\t" in line and "." in line.split("\t")[0] for line in lines)
    (back,) = read_conllu(write(tmp_path, text, "merged.conllu"))
    assert back.heads == [0, 1, 5, 5, 1, 1, 8, 9, 1, 9, 9]


def test_parse_that_splits_a_sentence_is_written_as_two(tmp_path, nlp):
    path, docs = docs_from(tmp_path, nlp, NONPROJ, n_sents=1)
    doc = docs[0]
    heads = [1, 1, 3, 3, 6, 6, 3, 3, 3]  # "A hearing" | "is scheduled on the issue today ."
    deps = ["det", "ROOT", "aux", "ROOT", "case", "det", "obl", "obl", "punct"]
    text = doc_to_conllu(parsed_copy(doc, heads, deps))
    first, second = [list(read_conllu(write(tmp_path, part + "\n\n", f"s{i}.conllu")))[0]
                     for i, part in enumerate(text.split("\n\n")[:-1])]
    assert [w.form for w in first.words] == ["A", "hearing"] and first.heads == [2, 0]
    assert second.heads == [2, 0, 5, 5, 2, 2, 2] and second.words[1].deprel == "root"
    assert first.comments == [] and second.comments == []  # source comments fit neither part


def test_retokenized_doc_is_refused(tmp_path, nlp):
    doc = docs_from(tmp_path, nlp, NONPROJ, n_sents=1)[1][0]
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[0:2])
    with pytest.raises(ValueError, match="no longer match its CoNLL-U source"):
        doc_to_conllu(doc)


def test_doc_without_conllu_source_gets_defaults(tmp_path):
    nlp = spacy.blank("en")
    doc = nlp("Hello  world!")
    assert [t.text for t in doc] == ["Hello", " ", "world", "!"]
    doc = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
              heads=[0, 0, 0, 2], deps=["ROOT", "dep", "appos", "punct"], pos=["INTJ", "SPACE", "NOUN", "PUNCT"])
    text = doc_to_conllu(doc)
    assert text == (
        "# text = Hello world!\n"
        "1\tHello\t_\tINTJ\t_\t_\t0\troot\t_\t_\n"
        "2\t\\s\t_\tSPACE\t_\t_\t1\tdep\t_\tSpaceAfter=No\n"
        "3\tworld\t_\tNOUN\t_\t_\t1\tappos\t_\tSpaceAfter=No\n"
        "4\t!\t_\tPUNCT\t_\t_\t3\tpunct\t_\tSpaceAfter=No\n\n"
    )
    # SPACE is not a UD tag: the reader refuses it, naming the line.
    with pytest.raises(Exception, match=":3: unknown UPOS 'SPACE'"):
        list(read_conllu(write(tmp_path, text)))


def test_unparsed_doc_without_source(nlp):
    doc = Doc(nlp.vocab, words=["a", "b"], spaces=[True, False])
    assert doc_to_conllu(doc) == "# text = a b\n1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n\n"
    assert doc_to_conllu(Doc(nlp.vocab, words=[])) == ""


def test_words_only_copy(tmp_path, nlp):
    _, (doc,) = docs_from(tmp_path, nlp, MWT_AND_EMPTY)
    bare = words_only_copy(doc)
    assert [t.text_with_ws for t in bare] == [t.text_with_ws for t in doc]
    for attr in ("DEP", "POS", "MORPH", "LEMMA", "TAG", "SENT_START"):
        assert not bare.has_annotation(attr)
    assert USER_DATA_KEY not in bare.user_data
    with_sents = words_only_copy(doc, sent_starts=True, keep_source=True)
    assert [t.is_sent_start for t in with_sents] == [True] + [False] * 5 + [True] + [False] * 4
    assert not with_sents.has_annotation("DEP")
    # Unparsed copy with the source: written back with HEAD/DEPREL "_".
    lines = doc_to_conllu(with_sents).split("\n")
    assert lines[4].split("\t")[6:8] == ["_", "_"]


def test_write_to_open_file(tmp_path, nlp):
    import io

    path, docs = docs_from(tmp_path, nlp, NONPROJ)
    buffer = io.StringIO()
    assert write_conllu(docs, buffer) == 3
    assert buffer.getvalue() == path.read_text(encoding="utf-8")
