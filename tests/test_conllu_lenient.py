"""Real-world CoNLL-U never loses sentences: CR LF line ends, a byte-order mark and a
missing final empty line are repaired and counted with lenient=True (--lenient), and are a
clear error naming file and line otherwise, in skip mode too (issue 20)."""
import warnings

import pytest
import spacy
from conllu_samples import MWT_AND_EMPTY, NONPROJ, write
from typer.testing import CliRunner

from spacy_dynoracle.cli import app
from spacy_dynoracle.conllu_io import MISSING_SEPARATOR, ConlluError, ReadStats, read_conllu
from spacy_dynoracle.corpus import create_conllu_reader

CLEAN = NONPROJ  # 3 sentences, 31 lines, ends with the empty line
N_LINES = CLEAN.count("\n")

# name -> (file content, repairs by kind, line of the strict error, fragment of that error)
DAMAGED = {
    "crlf": (CLEAN.replace("\n", "\r\n"), {"CR LF line end": N_LINES}, 1, "CR LF"),
    "bom": ("\ufeff" + CLEAN, {"byte-order mark": 1}, 1, "byte-order mark"),
    "no-final-empty-line": (CLEAN[:-1], {"missing final empty line": 1}, N_LINES - 1,
                            "file ends without an empty line"),
    "no-final-newline": (CLEAN[:-2], {"missing final empty line": 1}, N_LINES - 1,
                         "and without a final newline"),
    "all-three": ("\ufeff" + CLEAN[:-1].replace("\n", "\r\n"),
                  {"byte-order mark": 1, "CR LF line end": N_LINES - 1, "missing final empty line": 1},
                  1, "byte-order mark"),
}


def sentence_data(sentences):
    return [(s.comments, [w.columns() for w in s.words]) for s in sentences]


@pytest.fixture(params=sorted(DAMAGED))
def damaged(request, tmp_path):
    content, repairs, line, fragment = DAMAGED[request.param]
    return write(tmp_path, content, "damaged.conllu"), repairs, line, fragment


def test_lenient_reading_keeps_every_sentence_and_counts_the_repairs(tmp_path, damaged):
    path, repairs, _, _ = damaged
    expected = sentence_data(read_conllu(write(tmp_path, CLEAN, "clean.conllu")))
    for on_error in ("raise", "skip"):
        stats = ReadStats()
        with pytest.warns(UserWarning) as record:
            got = sentence_data(read_conllu(path, lenient=True, on_error=on_error, stats=stats))
        assert got == expected
        assert (stats.sentences, stats.skipped) == (3, 0)
        assert stats.repairs == repairs and stats.repaired == sum(repairs.values())
        messages = [str(w.message) for w in record]
        assert len(messages) == 1 and messages[0].startswith(f"{path}: repaired ")
        for kind, n in repairs.items():
            assert f"{n} {kind}" in messages[0]


def test_strict_reading_names_file_line_and_the_fix_in_both_modes(damaged):
    path, _, line, fragment = damaged
    for on_error in ("raise", "skip"):
        with pytest.raises(ConlluError) as info:
            list(read_conllu(path, on_error=on_error))
        error = info.value
        assert (error.path, error.line) == (str(path), line), str(error)
        assert fragment in error.message
        assert str(error).endswith("read with lenient=True / --lenient to repair")


def test_lenient_reading_repairs_nothing_else(tmp_path):
    inside = write(tmp_path, CLEAN.replace("\tnsubj\t", "\tnsu\rbj\t", 1))
    with pytest.raises(ConlluError, match="carriage return"):
        list(read_conllu(inside, lenient=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clean file: no repair, no warning
        assert len(list(read_conllu(write(tmp_path, CLEAN, "clean.conllu"), lenient=True))) == 3


def test_skip_mode_keeps_a_valid_sentence_ended_by_a_whitespace_line(tmp_path):
    first, rest = CLEAN.split("\n\n", 1)
    path = write(tmp_path, first + "\n \n" + rest)
    stats = ReadStats()
    with pytest.warns(UserWarning, match="skipped 1 malformed"):
        sentences = list(read_conllu(path, on_error="skip", stats=stats))
    assert len(sentences) == 3 and stats.skipped == 1
    assert stats.errors[0].line == first.count("\n") + 2 and "only whitespace" in stats.errors[0].message


def test_corpus_reader_lenient_setting(damaged):
    path = damaged[0]
    nlp = spacy.blank("xx")
    with pytest.raises(ConlluError, match="--lenient"):
        list(create_conllu_reader(path, n_sents=1)(nlp))
    with pytest.warns(UserWarning, match="repaired"):
        examples = list(create_conllu_reader(path, n_sents=1, lenient=True)(nlp))
    assert len(examples) == 3


runner = CliRunner()


def test_cli_lenient_option_on_stats_and_render(tmp_path, damaged):
    path, _, line, _ = damaged
    result = runner.invoke(app, ["stats", str(path)])
    assert result.exit_code == 1 and f"{path}:{line}: " in result.output and "--lenient" in result.output
    with pytest.warns(UserWarning, match="repaired"):
        result = runner.invoke(app, ["stats", str(path), "--lenient"])
    assert result.exit_code == 0, result.output
    row = next(r for r in result.stdout.splitlines() if str(path) in r).split()
    assert row[1:4] == ["3", "22", "22"]
    out = tmp_path / "trees.html"
    assert runner.invoke(app, ["render", str(path), "--out", str(out)]).exit_code == 1
    with pytest.warns(UserWarning, match="repaired"):
        result = runner.invoke(app, ["render", str(path), "--out", str(out), "--lenient"])
    assert result.exit_code == 0 and "Rendered 3 tree(s)" in result.output


# --------------------------------------------------------------------------- run-on sentences

def run_on(text, *joins):
    """The text with the empty line after each of the sentences numbered `joins` (0-based)
    removed: the next sentence starts right after the last word line."""
    blocks = text.rstrip("\n").split("\n\n")
    out = blocks[0]
    for k, block in enumerate(blocks[1:]):
        out += ("\n" if k in joins else "\n\n") + block
    return out + "\n\n"


# MWT_AND_EMPTY's second sentence has an empty node; its first starts with an MWT line, so
# a run-on before it starts at "1-2" after the previous sentence's words.
RUN_ON_CASES = {
    "comments then word 1": (NONPROJ, (0,)),
    "word 1 right after the words": (NONPROJ.replace("# sent_id = np2\n# text = Who did you say it was written by?\n", ""),
                                     (1,)),
    "both joins": (NONPROJ, (0, 1)),
    "MWT line and empty node": (NONPROJ + MWT_AND_EMPTY.replace("# newdoc id = d1\n# sent_id = s1\n# text = Vámonos al mar.\n", ""),
                                (2, 3)),
}


@pytest.mark.parametrize("case", sorted(RUN_ON_CASES))
def test_skip_mode_keeps_both_sentences_when_the_empty_line_between_them_is_missing(tmp_path, case):
    """Skip mode used to drop both sentences of a run-on block (one block, duplicate word
    ID 1); it now splits the block where the second sentence starts and counts the repair."""
    text, joins = RUN_ON_CASES[case]
    expected = sentence_data(read_conllu(write(tmp_path, text, "clean.conllu")))
    path = write(tmp_path, run_on(text, *joins), "run_on.conllu")
    for options in ({"on_error": "skip"}, {"lenient": True}, {"lenient": True, "on_error": "skip"}):
        stats = ReadStats()
        with pytest.warns(UserWarning) as record:
            got = sentence_data(read_conllu(path, stats=stats, **options))
        assert got == expected, options
        assert stats.skipped == 0 and stats.repairs == {MISSING_SEPARATOR: len(joins)}
        (message,) = [str(w.message) for w in record]
        n = len(joins)
        assert f"repaired {n} missing empty line{'s' if n > 1 else ''} between sentences" in message


def test_strict_reading_names_the_line_where_the_run_on_sentence_starts(tmp_path):
    path = write(tmp_path, run_on(NONPROJ, 1))
    with pytest.raises(ConlluError) as info:
        list(read_conllu(path))
    second_sentence_end = NONPROJ.split("\n\n")[0].count("\n") + 2 + 6  # its 2 comments and 4 words
    assert info.value.line == second_sentence_end + 1  # the comment line "# sent_id = np2"
    assert "without the empty line that must end the previous one" in info.value.message
    assert "on_error='skip'" in info.value.message


def test_skip_mode_after_a_split_still_skips_the_malformed_sentence_only(tmp_path):
    bad = NONPROJ.replace("1\tDogs\tdog\tNOUN\tNNS\t_\t2\t", "1\tDogs\tdog\tNOUN\tNNS\t_\tx\t")
    path = write(tmp_path, run_on(bad, 0, 1))
    stats = ReadStats()
    with pytest.warns(UserWarning):
        sentences = list(read_conllu(path, on_error="skip", stats=stats))
    assert [s.sent_id for s in sentences] == ["np1", "np2"]
    assert stats.skipped == 1 and "HEAD 'x'" in stats.errors[0].message
    assert stats.repairs == {MISSING_SEPARATOR: 2}


@pytest.mark.parametrize("lines", [
    ["1\ta\t_\t_\t_\t_\t0\troot\t_\t_", "0.1\tx\t_\t_\t_\t_\t_\t_\t1:dep\t_", "2\tb\t_\t_\t_\t_\t1\tdep\t_\t_"],
    ["1\ta\t_\t_\t_\t_\t0\troot\t_\t_", "2\tb\t_\t_\t_\t_\t1\tdep\t_\t_", "1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_",
     "3\tc\t_\t_\t_\t_\t1\tdep\t_\t_"],
])
def test_no_split_where_no_sentence_starts(tmp_path, lines):
    """A 0.1 or an MWT 1-2 whose next word is not word 1 starts no sentence: the block is one
    malformed sentence, skipped as before."""
    path = write(tmp_path, "\n".join(lines) + "\n\n" + NONPROJ)
    stats = ReadStats()
    with pytest.warns(UserWarning):
        sentences = list(read_conllu(path, on_error="skip", stats=stats))
    assert len(sentences) == 3 and stats.skipped == 1 and not stats.repairs


def test_strict_reading_of_one_malformed_sentence_reports_its_own_error(tmp_path):
    """Word 2 written as 1 after an MWT 1-2: the part before it is no valid sentence, so
    this is one malformed sentence (duplicate ID), not a missing empty line."""
    path = write(tmp_path, "1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n"
                           "1\tb\t_\tX\t_\t_\t1\tdep\t_\t_\n\n")
    with pytest.raises(ConlluError) as info:
        list(read_conllu(path))
    assert info.value.line == 3 and info.value.message == "duplicate word ID 1 (already on line 2)"
