"""The command line: evaluate, parse, stats (render: test_cli_render.py)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from conllu_samples import MWT_AND_EMPTY, NONPROJ, attardi_exhaustive, random_treebank, tiny_parser, unparsed, write
from typer.testing import CliRunner

from spacy_dynoracle.cli import app, parse_sentence_numbers
from spacy_dynoracle.conllu_io import read_conllu
from spacy_dynoracle.coverage import treebank_stats
from spacy_dynoracle.evaluate import evaluate_pipeline

REPO = Path(__file__).parents[1]
runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def model_dir(data_dir):
    train = write(data_dir, NONPROJ * 3 + random_treebank(11, 12), "train.conllu")
    nlp = tiny_parser(train)
    nlp.to_disk(data_dir / "model")
    return data_dir / "model"


def test_module_entry_point_help():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "spacy_dynoracle", "--help"], capture_output=True, text=True,
                         cwd=REPO, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    for command in ("evaluate", "parse", "stats", "render"):
        assert command in out.stdout


def test_command_help_pages():
    for command in ("evaluate", "parse", "stats", "render"):
        result = run(command, "--help")
        assert result.exit_code == 0 and "Usage" in result.stdout


def test_stats_table_and_json(tmp_path):
    path = write(tmp_path, NONPROJ)
    result = run("stats", path, "--json", tmp_path / "stats.json")
    assert result.exit_code == 0, result.output
    # 3 sentences, 22 words, 2/3 non-projective sentences, 3/22 non-projective arcs.
    row = next(line for line in result.stdout.splitlines() if str(path) in line).split()
    assert row[1:6] == ["3", "22", "22", "66.67", "13.636"]
    # projective, attardi d2, d3 (by exhaustive search), swap
    trees = [s.heads for s in read_conllu(path)]
    covered = [sum(attardi_exhaustive(tuple(h), d) for h in trees) for d in (1, 2, 3)]
    assert row[6:] == [f"{100 * c / 3:.2f}" for c in covered] + ["100.00"]
    header = next(line for line in result.stdout.splitlines() if "file" in line)
    assert "arc_standard/arc_hybrid/arc_eager" in header and "attardi_d2" in header
    saved = json.loads((tmp_path / "stats.json").read_text())
    assert saved == {str(path): json.loads(json.dumps(treebank_stats(read_conllu(path))))}


def test_stats_on_directory_with_several_files(tmp_path):
    write(tmp_path, NONPROJ, "a.conllu")
    write(tmp_path, MWT_AND_EMPTY, "b.conllu")
    result = run("stats", tmp_path, "--systems", "attardi_d2")
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines() if ".conllu" in line]
    assert [r[0].split("/")[-1] for r in rows] == ["a.conllu", "b.conllu"]
    assert rows[1][1:4] == ["2", "9", "11"]  # sentences, surface tokens, words (2 MWTs of 2 words)


def test_stats_select_tail(tmp_path):
    path = write(tmp_path, NONPROJ)
    result = run("stats", path, "--select", "tail:0.34")
    row = next(line for line in result.stdout.splitlines() if str(path) in line).split()
    assert row[1:3] == ["1", "9"]  # the last sentence only


def test_errors_name_file_and_line(tmp_path):
    bad = write(tmp_path, NONPROJ.replace("\t2\tnsubj\t", "\tx\tnsubj\t"), "bad.conllu")
    result = run("stats", bad)
    assert result.exit_code == 1
    assert f"{bad}:15: HEAD 'x' of word 1 is not a non-negative integer" in result.output
    result = run("stats", tmp_path / "missing.conllu")
    assert result.exit_code == 1 and "does not exist" in result.output


def test_evaluate_prints_scores_and_writes_json(tmp_path, model_dir):
    gold = write(tmp_path, NONPROJ + random_treebank(12, 6))
    out = tmp_path / "scores.json"
    result = run("evaluate", model_dir, gold, "--json", out, "--gold-sents", "--n-sents", "3")
    assert result.exit_code == 0, result.output
    for metric in ("UAS", "LAS", "CLAS", "NonProj arcs (unlabelled)", "LAS on NonProj sentences", "root"):
        assert metric in result.stdout
    saved = json.loads(out.read_text())
    expected = evaluate_pipeline(spacy.load(model_dir), gold, gold_sents=True, n_sents=3)
    for metric in ("UAS", "LAS", "CLAS", "Sentences", "NonProjArcs"):
        assert saved[metric] == expected[metric]
    assert saved["settings"]["model"] == str(model_dir) and saved["settings"]["gold_sents"] is True
    uas_row = next(line for line in result.stdout.splitlines() if line.startswith("UAS"))
    assert f"{expected['UAS']['f1']:.2f}" in uas_row


def test_evaluate_unknown_model(tmp_path):
    result = run("evaluate", tmp_path / "no-model", write(tmp_path, NONPROJ))
    assert result.exit_code == 1


def test_parse_keeps_the_input_and_replaces_the_tree(tmp_path, model_dir):
    text = unparsed(MWT_AND_EMPTY + NONPROJ)
    source = write(tmp_path, text, "in.conllu")
    out = tmp_path / "out.conllu"
    result = run("parse", model_dir, source, out, "--gold-sents")
    assert result.exit_code == 0, result.output
    written = out.read_text(encoding="utf-8").split("\n")
    original = text.split("\n")
    assert len(written) == len(original)
    for new, old in zip(written, original):
        new_cols, old_cols = new.split("\t"), old.split("\t")
        if len(old_cols) == 10 and old_cols[0].isdigit():
            assert new_cols[:6] + new_cols[8:] == old_cols[:6] + old_cols[8:]
            assert new_cols[6] != "_" and new_cols[7] != "_"
        else:
            assert new == old  # comments, MWT lines, empty nodes, separators
    parsed = list(read_conllu(out))  # one root per sentence, a valid tree each
    assert len(parsed) == 5
    assert all(sum(w.deprel == "root" for w in s.words) == 1 for s in parsed)


def test_parse_without_gold_sentences_writes_valid_conllu(tmp_path, model_dir):
    source = write(tmp_path, NONPROJ, "in.conllu")
    out = tmp_path / "out.conllu"
    result = run("parse", model_dir, source, out)
    assert result.exit_code == 0, result.output
    parsed = list(read_conllu(out))
    words = [w.form for s in parsed for w in s.words]
    assert words == [w.form for s in read_conllu(source) for w in s.words]


def test_parse_refuses_bad_replace_columns(tmp_path, model_dir):
    source = write(tmp_path, NONPROJ, "in.conllu")
    result = run("parse", model_dir, source, tmp_path / "out.conllu", "--replace", "FORM")
    assert result.exit_code == 1 and "cannot replace" in result.output


def test_sentence_number_specs():
    assert parse_sentence_numbers("1,4-6, 9") == {1, 4, 5, 6, 9}
    for bad in ("0", "3-1", "x", "1-y"):
        with pytest.raises(ValueError):
            parse_sentence_numbers(bad)


@pytest.mark.parametrize("alias", ["same", "dot", "symlink", "hardlink"])
def test_parse_refuses_to_overwrite_its_input(tmp_path, model_dir, alias):
    text = unparsed(NONPROJ)
    source = write(tmp_path, text, "in.conllu")
    if alias == "same":
        out = source
    elif alias == "dot":
        out = tmp_path / "." / ".." / tmp_path.name / "in.conllu"
    elif alias == "symlink":
        out = tmp_path / "link.conllu"
        out.symlink_to(source)
    else:
        out = tmp_path / "hard.conllu"
        os.link(source, out)
    result = run("parse", model_dir, source, out)
    assert result.exit_code == 1
    assert "the output is the input file" in result.output
    assert Path(source).read_text(encoding="utf-8") == text  # not a byte lost


def test_parse_failing_half_way_leaves_an_existing_output_untouched(tmp_path, model_dir):
    # the second sentence is malformed: the error comes after the first was written
    source = write(tmp_path, unparsed(NONPROJ) + "1\tbroken\n\n", "in.conllu")
    out = tmp_path / "out.conllu"
    out.write_text("precious\n", encoding="utf-8")
    result = run("parse", model_dir, source, out)
    assert result.exit_code == 1
    assert out.read_text(encoding="utf-8") == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.conllu", "out.conllu"]  # no temp left


def test_parse_output_gets_the_mode_of_a_plain_write(tmp_path, model_dir):
    source = write(tmp_path, unparsed(NONPROJ), "in.conllu")
    fresh = tmp_path / "fresh.conllu"
    assert run("parse", model_dir, source, fresh).exit_code == 0
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask
    existing = tmp_path / "existing.conllu"
    existing.write_text("", encoding="utf-8")
    existing.chmod(0o640)
    assert run("parse", model_dir, source, existing).exit_code == 0
    assert existing.stat().st_mode & 0o777 == 0o640


def test_parse_and_evaluate_lenient(tmp_path, model_dir):
    crlf = write(tmp_path, unparsed(NONPROJ).replace("\n", "\r\n"), "crlf.conllu")  # 31 lines
    out = tmp_path / "out.conllu"
    result = run("parse", model_dir, crlf, out)
    assert result.exit_code == 1 and f"{crlf}:1: " in result.output and "--lenient" in result.output
    with pytest.warns(UserWarning, match="repaired 31 CR LF line ends"):
        result = run("parse", model_dir, crlf, out, "--lenient")
    assert result.exit_code == 0, result.output
    assert sum(len(s.words) for s in read_conllu(out)) == 22  # every word, written with LF
    gold = write(tmp_path, "\ufeff" + NONPROJ[:-1], "bom.conllu")
    assert run("evaluate", model_dir, gold).exit_code == 1
    with pytest.warns(UserWarning, match="repaired 1 byte-order mark, 1 missing final empty line"):
        result = run("evaluate", model_dir, gold, "--lenient", "--no-per-label")
    assert result.exit_code == 0 and "22 words, 3 sentences" in result.stdout


def test_parse_keeps_the_input_sentences_by_default(tmp_path, model_dir):
    text = unparsed(MWT_AND_EMPTY + NONPROJ + random_treebank(13, 12))
    source = write(tmp_path, text, "in.conllu")
    before = list(read_conllu(source, require_heads=False))
    assert all(s.sent_id for s in before) and sum(s.text is not None for s in before) == 5
    out = tmp_path / "out.conllu"
    for extra in ((), ("--gold-sents",)):  # the old option is a no-op alias
        result = run("parse", model_dir, source, out, *extra)
        assert result.exit_code == 0, result.output
        after = list(read_conllu(out))
        assert [(s.comments, [w.form for w in s.words]) for s in after] == \
            [(s.comments, [w.form for w in s.words]) for s in before]
        assert f"Wrote {len(before)} sentences" in result.output
    result = run("parse", model_dir, source, out, "--resegment")
    assert result.exit_code == 0, result.output
    assert [w.form for s in read_conllu(out) for w in s.words] == [w.form for s in before for w in s.words]
    result = run("parse", model_dir, source, out, "--resegment", "--gold-sents")
    assert result.exit_code == 1 and "contradicts --resegment" in result.output


def test_parse_refuses_columns_the_pipeline_does_not_predict(tmp_path, model_dir):
    source = write(tmp_path, unparsed(NONPROJ), "in.conllu")
    out = tmp_path / "out.conllu"
    components = ", ".join(spacy.load(model_dir).pipe_names)
    for column, attr in (("UPOS", "token.pos"), ("LEMMA", "token.lemma"), ("FEATS", "token.morph")):
        result = run("parse", model_dir, source, out, "--replace", f"HEAD,DEPREL,{column}")
        assert result.exit_code == 1
        assert (f"--replace {column}: no component of the pipeline predicts {attr} "
                f"(its components: {components}); it can replace HEAD, DEPREL") in result.output
        assert not out.exists()
    # an attribute_ruler that sets POS makes UPOS replaceable
    nlp = spacy.load(model_dir)
    nlp.add_pipe("attribute_ruler").add([[{"ORTH": "issue"}]], {"POS": "NOUN"})
    nlp.to_disk(tmp_path / "ruled")
    result = run("parse", tmp_path / "ruled", source, out, "--replace", "HEAD,DEPREL,UPOS")
    assert result.exit_code == 0, result.output


def test_version_option():
    import spacy_dynoracle

    result = run("--version")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"spacy-dynoracle {spacy_dynoracle.__version__} ")
    assert lines[1] == f"spaCy {spacy.__version__}"


def test_one_wording_for_a_missing_file_in_every_command(tmp_path, model_dir):
    gone = tmp_path / "gone.conllu"
    out = tmp_path / "out"
    for args in (("evaluate", model_dir, gone), ("calibration", model_dir, gone),
                 ("parse", model_dir, gone, out), ("stats", gone), ("render", gone, "--out", out.with_suffix(".html")),
                 ("render", model_dir, gone, "--out", out.with_suffix(".html"))):
        result = run(*args)
        assert result.exit_code == 1
        assert result.output == f"\u2718 {gone} does not exist\n", args


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path, model_dir):
    source = write(tmp_path, unparsed(NONPROJ) + "1\tbroken\n\n", "in.conllu")
    result = run("parse", model_dir, source, tmp_path / "out.conllu")
    assert result.exit_code == 1
    assert result.output == f"\u2718 {source}:32: expected 10 tab-separated columns, found 2\n"
    result = run("evaluate", model_dir, write(tmp_path, NONPROJ), "--no-per-label")
    assert result.exit_code == 0 and "\r" not in result.output and "parsing" not in result.output
