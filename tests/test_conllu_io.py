"""CoNLL-U reader: every malformed class names file and line; valid input is kept exactly."""
import pickle
import warnings

import pytest
import spacy
from conllu_samples import MWT_AND_EMPTY, NONPROJ, write

from spacy_dynoracle.conllu_io import (
    ConlluError,
    ReadStats,
    read_conllu,
    write_sentences,
)

BASE_LINES = [
    "# sent_id = a",
    "1\tThe\tthe\tDET\tDT\tDefinite=Def\t2\tdet\t_\t_",
    "2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\t_",
    "3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t_\tSpaceAfter=No",
    "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_",
]
BASE = "\n".join(BASE_LINES) + "\n\n"


def with_line(line_no, new):
    """BASE with line `line_no` (1-based) replaced by `new` (None deletes it)."""
    lines = list(BASE_LINES)
    if new is None:
        del lines[line_no - 1]
    else:
        lines[line_no - 1] = new
    return "\n".join(lines) + "\n\n"


def with_column(line_no, column, value):
    cols = BASE_LINES[line_no - 1].split("\t")
    cols[column] = value
    return with_line(line_no, "\t".join(cols))


def with_heads(heads):
    lines = [BASE_LINES[0]]
    for line, head in zip(BASE_LINES[1:], heads):
        cols = line.split("\t")
        cols[6] = str(head)
        lines.append("\t".join(cols))
    return "\n".join(lines) + "\n\n"


def inserted(after_line, new):
    lines = list(BASE_LINES)
    lines.insert(after_line, new)
    return "\n".join(lines) + "\n\n"


# (case id, file content, expected line, fragment of the message)
MALFORMED = [
    ("too-few-columns", with_line(3, "2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_"), 3, "expected 10 tab-separated columns, found 9"),
    ("too-many-columns", with_line(3, BASE_LINES[2] + "\textra"), 3, "found 11"),
    ("spaces-not-tabs", with_line(3, BASE_LINES[2].replace("\t", " ")), 3, "separated by spaces"),
    ("trailing-tab", with_line(3, BASE_LINES[2] + "\t"), 3, "trailing tab"),
    ("space-before-tab", with_line(3, BASE_LINES[2].replace("\tdog", " \tdog", 1)), 3, "column 1 (ID) contains whitespace"),
    ("space-after-tab", with_line(3, BASE_LINES[2].replace("\tdog", "\t dog", 1)), 3, "column 2 (FORM) has leading or trailing whitespace"),
    ("empty-column", with_column(3, 2, ""), 3, "empty column 3 (LEMMA)"),
    ("head-not-integer", with_column(3, 6, "x"), 3, "HEAD 'x' of word 2 is not a non-negative integer"),
    ("head-negative", with_column(3, 6, "-1"), 3, "HEAD '-1'"),
    ("head-leading-zero", with_column(3, 6, "03"), 3, "HEAD '03'"),
    ("head-unicode-digit", with_column(3, 6, "\u0663"), 3, "not a non-negative integer"),
    ("head-underscore", with_column(3, 6, "_"), 3, "require_heads=False"),
    ("head-out-of-range", with_column(3, 6, "9"), 3, "HEAD 9 of word 2 is out of range: the sentence has 4 words"),
    ("head-self", with_column(3, 6, "2"), 3, "word 2 has itself as HEAD"),
    ("cycle", with_heads([2, 1, 0, 3]), 2, "cycle in HEAD: 1 -> 2 -> 1"),
    ("long-cycle", with_heads([0, 4, 2, 3]), 3, "cycle in HEAD: 2 -> 4 -> 3 -> 2"),
    ("no-root", with_heads([2, 3, 4, 3]), 2, "no root: no word has HEAD 0"),
    ("several-roots", with_column(3, 6, "0"), 4, "several roots: words 2, 3 have HEAD 0"),
    ("missing-deprel", with_column(3, 7, "_"), 3, "has HEAD 3 but no DEPREL"),
    ("duplicate-id", with_column(4, 0, "2"), 4, "duplicate word ID 2 (already on line 3)"),
    ("id-gap", with_column(3, 0, "3"), 3, "word ID 3 out of sequence: expected 2"),
    ("id-garbage", with_column(3, 0, "2a"), 3, "invalid ID '2a'"),
    ("id-zero", with_column(2, 0, "0"), 2, "invalid ID '0'"),
    ("unknown-upos", with_column(3, 3, "NOUNS"), 3, "unknown UPOS 'NOUNS'"),
    ("bad-feats", with_column(3, 5, "Number"), 3, "malformed FEATS 'Number'"),
    ("bad-feats-two-equals", with_column(3, 5, "A=B=C"), 3, "malformed FEATS"),
    ("space-in-deprel", with_column(3, 7, "nsubj pass"), 3, "column 8 (DEPREL) contains whitespace"),
    ("trailing-space-form", with_column(3, 1, "dog "), 3, "column 2 (FORM) has leading or trailing whitespace"),
    ("mwt-reversed", inserted(2, "2-1\tdogbarks\t_\t_\t_\t_\t_\t_\t_\t_"), 3, "must cover at least two words"),
    ("mwt-misplaced", inserted(1, "2-3\tdogbarks\t_\t_\t_\t_\t_\t_\t_\t_"), 2, "must come right before word 2; the next word is 1"),
    ("mwt-beyond-end", inserted(4, "4-5\tx\t_\t_\t_\t_\t_\t_\t_\t_"), 5, "goes beyond the last word of the sentence (4)"),
    ("mwt-overlap", inserted(1, "1-2\tx\t_\t_\t_\t_\t_\t_\t_\t_").replace("\n2\tdog", "\n1-3\ty\t_\t_\t_\t_\t_\t_\t_\t_\n2\tdog"), 4, "overlaps 1-2"),
    ("empty-node-misplaced", inserted(2, "3.1\tx\t_\t_\t_\t_\t_\t_\t_\t_"), 3, "empty node 3.1 must follow word 3, but it comes after word 1"),
    ("empty-node-gap", inserted(2, "1.2\tx\t_\t_\t_\t_\t_\t_\t_\t_"), 3, "out of sequence: expected 1.1"),
    ("empty-node-inside-mwt-line", inserted(1, "1-2\tx\t_\t_\t_\t_\t_\t_\t_\t_\n0.1\ty\t_\t_\t_\t_\t_\t_\t_\t_"), 3, "between multiword token 1-2 and its first word"),
    ("comment-after-words", inserted(3, "# late comment"), 4, "comment line after the sentence's first word line"),
    ("crlf", BASE.replace("\n", "\r\n"), 1, "CR LF"),
    ("cr-inside", with_column(3, 9, "a\rb"), 3, "carriage return"),
    ("bom", "\ufeff" + BASE, 1, "byte-order mark"),
    ("no-final-empty-line", BASE[:-1], 5, "file ends without an empty line after the last sentence"),
    ("no-final-newline", BASE[:-2], 5, "and without a final newline"),
    ("double-empty-line", BASE + "\n" + BASE, 7, "unexpected empty line"),
    ("leading-empty-line", "\n" + BASE, 1, "unexpected empty line"),
    ("trailing-extra-empty-line", BASE + "\n", 7, "unexpected empty line"),
    ("whitespace-separator", BASE[:-1] + " \n" + BASE, 6, "only whitespace"),
    ("empty-file", "", 1, "empty file"),
    ("comment-only-file", "# just a comment\n# another\n\n", 1, "comment lines not followed by any word line"),
    ("comment-only-no-blank", "# just a comment\n", 1, "file ends without an empty line"),
    ("invalid-utf8", BASE.encode().replace(b"dog", b"d\xffg", 1), 3, "invalid UTF-8: byte 0xff"),
    ("latin1-file", BASE.replace("dog", "dög").encode("latin-1"), 3, "invalid UTF-8"),
]


@pytest.mark.parametrize("content,line,fragment", [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_malformed_input_names_file_line_and_problem(tmp_path, content, line, fragment):
    path = write(tmp_path, content)
    with pytest.raises(ConlluError) as info:
        list(read_conllu(path))
    error = info.value
    assert error.path == str(path)
    assert error.line == line, error.message
    assert fragment in error.message
    assert str(error) == f"{path}:{line}: {error.message}"


def test_partial_heads_are_an_error_even_when_heads_are_optional(tmp_path):
    path = write(tmp_path, with_line(3, "2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t_\t_\t_\t_"))
    with pytest.raises(ConlluError) as info:
        list(read_conllu(path, require_heads=False))
    assert info.value.line == 3 and "other words of the sentence have heads" in info.value.message


def test_deprel_without_head_is_an_error(tmp_path):
    path = write(tmp_path, with_column(3, 6, "_"))
    with pytest.raises(ConlluError, match=r":3: word 2 has DEPREL 'nsubj' but no HEAD"):
        list(read_conllu(path, require_heads=False))


def test_error_is_a_value_error_and_pickles():
    error = ConlluError("f.conllu", 3, "bad")
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.path, copy.line, copy.message, str(copy)) == ("f.conllu", 3, "bad", "f.conllu:3: bad")


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        list(read_conllu(tmp_path / "nope.conllu"))


def test_reads_words_comments_mwts_empty_nodes_and_lines(tmp_path):
    path = write(tmp_path, MWT_AND_EMPTY)
    first, second = read_conllu(path)
    assert first.comments == ["# newdoc id = d1", "# sent_id = s1", "# text = Vámonos al mar."]
    assert (first.sent_id, first.text, first.line, first.path) == ("s1", "Vámonos al mar.", 1, str(path))
    assert [w.form for w in first.words] == ["Vamos", "nos", "a", "el", "mar", "."]
    assert [w.line for w in first.words] == [5, 6, 8, 9, 10, 11]
    assert first.heads == [0, 1, 5, 5, 1, 1]
    assert first.words[4].deprel == "obl:arg" and first.words[0].feats == "Mood=Imp|Number=Plur|Person=1"
    assert [(m.first, m.last, m.form, m.line) for m in first.multiword_tokens] == [(1, 2, "Vámonos", 4), (3, 4, "al", 7)]
    # Inside an MWT no space; after it, what the MWT line says; elsewhere the word's MISC.
    assert first.spaces() == [False, True, False, False, False, True]
    assert first.n_tokens() == 4
    assert [w.form for w in second.words] == ["Ἐν", "ἀρχῇ", "ἦν", "😀", "東京"]
    assert [(e.after, e.index, e.columns[8], e.line) for e in second.empty_nodes] == [(2, 1, "3:conj", 17)]
    assert second.spaces() == [True, True, True, True, False]


@pytest.mark.parametrize("text", [MWT_AND_EMPTY, NONPROJ, BASE], ids=["mwt-empty-unicode", "nonproj", "base"])
def test_write_sentences_reproduces_the_file_byte_for_byte(tmp_path, text):
    path = write(tmp_path, text)
    out = tmp_path / "out.conllu"
    assert write_sentences(read_conllu(path), out) == text.count("\n\n")
    assert out.read_bytes() == path.read_bytes()


def test_unicode_everywhere_round_trips(tmp_path):
    forms = ["naïve", "Ωμέγα", "שָׁלוֹם", "مرحبا", "𝔘𝔫𝔦", "e\u0301", "中文", "🇩🇪", "a b", "#hash", "_x", "\u00a0in\u00a0"]
    lines = ["# text = " + " ".join(forms)]
    for i, form in enumerate(forms, 1):
        form = form.strip()
        lines.append(f"{i}\t{form}\t{form}\tX\t_\t_\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t_")
    text = "\n".join(lines) + "\n\n"
    path = write(tmp_path, text)
    (sentence,) = read_conllu(path)
    assert [w.form for w in sentence.words] == [f.strip() for f in forms]
    out = tmp_path / "out.conllu"
    write_sentences([sentence], out)
    assert out.read_bytes() == text.encode("utf-8")


def test_unparsed_sentences_with_require_heads_false(tmp_path):
    text = BASE.replace("\t2\tdet\t", "\t_\t_\t").replace("\t3\tnsubj\t", "\t_\t_\t").replace(
        "\t0\troot\t", "\t_\t_\t").replace("\t3\tpunct\t", "\t_\t_\t")
    path = write(tmp_path, text)
    (sentence,) = read_conllu(path, require_heads=False)
    assert not sentence.is_parsed and [w.head for w in sentence.words] == [None] * 4
    out = tmp_path / "out.conllu"
    write_sentences([sentence], out)
    assert out.read_text(encoding="utf-8") == text


def test_multiple_roots_only_when_allowed(tmp_path):
    path = write(tmp_path, with_column(3, 6, "0"))
    (sentence,) = read_conllu(path, allow_multiple_roots=True)
    assert sentence.heads == [2, 0, 0, 3]


def test_skip_mode_skips_counts_and_reports(tmp_path):
    bad_head = with_column(3, 6, "x")
    cycle = with_column(4, 6, "4")
    content = BASE + bad_head + BASE + cycle + BASE
    path = write(tmp_path, content)
    stats = ReadStats()
    with pytest.warns(UserWarning) as record:
        sentences = list(read_conllu(path, on_error="skip", stats=stats))
    assert len(sentences) == 3
    assert (stats.sentences, stats.words, stats.skipped) == (3, 12, 2)
    assert [(e.line, e.path) for e in stats.errors] == [(9, str(path)), (20, str(path))]
    warning = str(record[0].message)
    assert "skipped 2 malformed" in warning and f"{path}:9:" in warning and f"{path}:20:" in warning
    # The kept sentences are the good ones, with their own line numbers.
    assert [s.line for s in sentences] == [1, 13, 25]


def test_skip_mode_resynchronises_after_stray_separators(tmp_path):
    content = "\n" + BASE + "\n" + BASE + " \n" + BASE
    path = write(tmp_path, content)
    stats = ReadStats()
    with pytest.warns(UserWarning):
        sentences = list(read_conllu(path, on_error="skip", stats=stats))
    assert len(sentences) == 3 and stats.skipped == 3


def test_skip_mode_still_raises_when_nothing_is_valid(tmp_path):
    path = write(tmp_path, with_column(3, 6, "x") + with_column(4, 6, "4"))
    with pytest.raises(ConlluError) as info:
        list(read_conllu(path, on_error="skip"))
    assert info.value.line == 3 and "no valid sentence in the file (2 malformed" in info.value.message
    with pytest.raises(ConlluError, match="empty file"):
        list(read_conllu(write(tmp_path, "", "empty.conllu"), on_error="skip"))


def test_skip_mode_without_errors_is_silent(tmp_path):
    path = write(tmp_path, BASE + BASE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(list(read_conllu(path, on_error="skip"))) == 2


def test_invalid_on_error_value(tmp_path):
    with pytest.raises(ValueError, match="on_error"):
        list(read_conllu(write(tmp_path, BASE), on_error="ignore"))


def test_stats_summary_lists_first_errors():
    stats = ReadStats(sentences=5, words=20)
    for line in range(1, 15):
        stats.record(ConlluError("f", line, "bad"))
    summary = stats.summary()
    assert "skipped 14 malformed" in summary and "f:10: bad" in summary and "f:11:" not in summary
    assert "and 4 more" in summary


def test_every_sample_docs_are_valid_spacy_docs(tmp_path):
    # The samples the other tests rely on must themselves be valid input.
    nlp = spacy.blank("xx")
    from spacy_dynoracle.conllu_io import sentences_to_docs

    for text in (MWT_AND_EMPTY, NONPROJ, BASE):
        docs = list(sentences_to_docs(nlp.vocab, read_conllu(write(tmp_path, text)), n_sents=10))
        assert len(docs) == 1
