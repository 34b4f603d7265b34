"""Corpus-scale parsing (issue 20): every way of spreading the work gives the parses of one
process. nlp.pipe(n_process=2) (fork, and spawn, which pickles the pipeline), spaCy's
`spacy apply`, `parse --n-process`, streaming `parse` in bounded memory (CoNLL-U and plain
text), and the Dask recipe of docs/corpus_parsing.md on a two-process LocalCluster."""
import json
import os
import pickle
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
import spacy
from package_under_test import env_with_repo
from conllu_samples import (NONPROJ, TINY_PARSER_MODEL, _trained, random_treebank, tiny_dynoracle_parser,
                            unparsed, write)
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_dynoracle.cli import app
from spacy_dynoracle.conllu_io import read_conllu, write_conllu
from spacy_dynoracle.parsing import input_docs, parse_file, parse_with_dask, split_conllu

REPO = Path(__file__).parents[1]
runner = CliRunner()

TEXTS = ["A hearing is scheduled on the issue today .", "Dogs bark loudly .",
         "Who did you say it was written by ?", "The issue is on the hearing ."] * 10


def trees(docs):
    return [[(t.head.i, t.dep_) for t in doc] for doc in docs]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A tiny trained pipeline on disk (attardi, degree 3: a non-default setting to carry)."""
    where = tmp_path_factory.mktemp("corpus_model")
    train = write(where, NONPROJ * 3 + random_treebank(11, 12), "train.conllu")
    tiny_dynoracle_parser(train, iterations=6, system="attardi", degree=3).to_disk(where / "model")
    return where / "model"


@pytest.fixture(scope="module")
def nlp(model_dir):
    return spacy.load(model_dir)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """An unparsed CoNLL-U corpus of 63 sentences (MWT-free; random trees)."""
    return write(tmp_path_factory.mktemp("corpus"), unparsed(NONPROJ + random_treebank(21, 60)), "corpus.conllu")


# --------------------------------------------------------------------------- nlp.pipe, spacy apply

def test_pipe_in_two_forked_processes_gives_the_parses_of_one(nlp):
    assert trees(nlp.pipe(TEXTS, n_process=2, batch_size=4)) == trees(nlp.pipe(TEXTS))


@pytest.mark.parametrize("system, config", [
    ("arc_hybrid", {}), ("arc_eager", {"system_options": {"eager_root": True}}), ("arc_standard", {}),
    ("lr_spine", {"max_k": 3}), ("swap", {"oracle": "static-lazy"}), ("attardi", {"degree": 3}),
    ("arc_hybrid", {"beam_width": 3}),
])
def test_every_system_pickles_with_its_settings(tmp_path, system, config):
    """Spawned processes (macOS, Windows, Dask) get the pipeline pickled."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", name="parser", config={
        "model": TINY_PARSER_MODEL, "transition_system": system, "min_action_freq": 1, **config})
    _trained(nlp, write(tmp_path, NONPROJ * 2), 1)
    copy = pickle.loads(pickle.dumps(nlp))
    before, after = nlp.get_pipe("parser"), copy.get_pipe("parser")
    assert type(after.moves) is type(before.moves) and after.moves.cfg == before.moves.cfg
    assert after.cfg == before.cfg and after.moves.n_moves == before.moves.n_moves
    assert trees(copy.pipe(TEXTS[:8])) == trees(nlp.pipe(TEXTS[:8]))


def test_pipe_in_two_spawned_processes_gives_the_parses_of_one(model_dir, nlp, tmp_path):
    script = (
        "import json, multiprocessing, sys, spacy\n"
        "multiprocessing.set_start_method('spawn', force=True)\n"
        "if __name__ == '__main__':\n"
        "    nlp = spacy.load(sys.argv[1])\n"
        "    texts = json.loads(sys.argv[2])\n"
        "    docs = nlp.pipe(texts, n_process=2, batch_size=4)\n"
        "    print(json.dumps([[[t.head.i, t.dep_] for t in d] for d in docs]))\n")
    (tmp_path / "spawned.py").write_text(script, encoding="utf-8")
    out = subprocess.run([sys.executable, "spawned.py", str(model_dir), json.dumps(TEXTS)], cwd=tmp_path,
                         env=env_with_repo(), capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [[list(arc) for arc in tree] for tree in trees(nlp.pipe(TEXTS))]


def test_spacy_apply_cli(model_dir, nlp, tmp_path):
    data = tmp_path / "texts.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "spacy", "apply", str(model_dir), str(data),
                          str(tmp_path / "parsed.spacy"), "--n-process", "2", "--batch-size", "4"],
                         env=env_with_repo(), capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    docs = list(DocBin().from_disk(tmp_path / "parsed.spacy").get_docs(nlp.vocab))
    assert [d.text for d in docs] == [d.text for d in nlp.pipe(TEXTS)]
    assert trees(docs) == trees(nlp.pipe(TEXTS))


# --------------------------------------------------------------------------- parse: streaming

def test_parse_n_process_and_batch_size_write_what_one_process_writes(model_dir, corpus, tmp_path):
    outputs = []
    for args in ((), ("--n-process", "2", "--batch-size", "2")):
        out = tmp_path / f"out{len(outputs)}.conllu"
        result = runner.invoke(app, ["parse", str(model_dir), str(corpus), str(out), *args])
        assert result.exit_code == 0, result.output
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(list(read_conllu(tmp_path / "out0.conllu"))) == 63  # every input sentence, kept
    result = runner.invoke(app, ["parse", str(model_dir), str(corpus), str(tmp_path / "x.conllu"),
                                 "--n-process", "0"])
    assert result.exit_code == 1 and "n_process must be >= 1, not 0" in result.output


def test_parse_plain_text(model_dir, nlp, tmp_path):
    lines = TEXTS[:6]
    source = tmp_path / "in.txt"
    source.write_text("\ufeff" + "\n\n".join(lines) + "\r\n", encoding="utf-8")  # blank lines, BOM, CRLF
    out = tmp_path / "out.conllu"
    result = runner.invoke(app, ["parse", str(model_dir), str(source), str(out)])
    assert result.exit_code == 0, result.output
    expected = tmp_path / "expected.conllu"
    write_conllu(nlp.pipe(lines), expected)
    assert out.read_bytes() == expected.read_bytes()
    sentences = list(read_conllu(out))
    assert [w.form for s in sentences for w in s.words] == " ".join(lines).split()
    assert all(s.text for s in sentences)  # "# text =" of each sentence the parser found
    # --input-format overrides the name; an unknown one is an error naming the choices
    named = tmp_path / "in.data"
    named.write_bytes(source.read_bytes())
    assert runner.invoke(app, ["parse", str(model_dir), str(named), str(out), "--input-format", "text"]).exit_code == 0
    assert out.read_bytes() == expected.read_bytes()
    result = runner.invoke(app, ["parse", str(model_dir), str(named), str(out), "--input-format", "xml"])
    assert result.exit_code == 1 and "unknown input format 'xml': choose from auto, conllu, text" in result.output


def test_input_is_read_lazily(nlp, tmp_path):
    """The first Docs come out before the reader has reached the end of the file (a
    malformed last sentence): nothing reads the whole file ahead."""
    source = write(tmp_path, unparsed(NONPROJ) * 5 + "1\tbroken\n\n", "in.conllu")
    docs = input_docs(nlp, source, n_sents=2)
    assert [t.text for t in next(docs)][:2] == ["A", "hearing"]
    with pytest.raises(ValueError, match="expected 10 tab-separated columns"):
        list(docs)


def peak_memory_of_parse(model_dir, path, out, input_format):
    nlp = spacy.load(model_dir)
    list(nlp.pipe(TEXTS[:4]))  # warm caches outside the measurement
    tracemalloc.start()
    try:
        # 4 Docs per batch: the smaller file already fills several batches (the peak is
        # one batch's worth when reading, parsing and writing stream)
        n = parse_file(nlp, path, out, input_format=input_format, batch_size=4)
        return n, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("input_format", ["conllu", "text"])
def test_parse_memory_does_not_grow_with_the_file(model_dir, tmp_path, input_format):
    """Peak traced memory parsing 10x the sentences stays about flat (with the reader made
    eager, `list(...)` in parsing.input_docs, the 10x file peaks 4-8x higher)."""
    peaks = []
    for copies in (1, 10):
        if input_format == "conllu":
            path = write(tmp_path, unparsed(random_treebank(5, 120)) * copies, f"in{copies}.conllu")
        else:
            path = tmp_path / f"in{copies}.txt"
            path.write_text("\n".join(TEXTS * 3 * copies) + "\n", encoding="utf-8")
        n, peak = peak_memory_of_parse(model_dir, path, tmp_path / f"out{copies}.conllu", input_format)
        assert n >= 120 * copies
        peaks.append(peak)
    assert peaks[1] < 1.5 * peaks[0], peaks


# --------------------------------------------------------------------------- Dask

def require_distributed():
    if os.environ.get("CI"):  # CI installs the test extra: never skip there
        import distributed  # noqa: F401
    else:
        pytest.importorskip("distributed", reason="pip install -e .[test] (dask[distributed])")


def test_split_conllu_cuts_between_docs_and_concatenates_back(corpus, tmp_path):
    shards = split_conllu(corpus, tmp_path / "shards", sentences_per_shard=25, n_sents=10)
    assert [len(list(read_conllu(s, require_heads=False))) for s in shards] == [20, 20, 23]
    assert b"".join(s.read_bytes() for s in shards) == corpus.read_bytes()


def test_dask_recipe_on_a_two_process_local_cluster_matches_one_process(model_dir, nlp, corpus, tmp_path):
    require_distributed()
    from dask.distributed import Client, LocalCluster

    from spacy_dynoracle import parsing

    single = tmp_path / "single.conllu"
    parse_file(nlp, corpus, single, n_sents=4)
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                      worker_dashboard_address=None) as cluster, Client(cluster) as client:
        out = tmp_path / "dask.conllu"
        n_shards = parse_with_dask(client, model_dir, corpus, out, work_dir=tmp_path / "work",
                                   sentences_per_shard=8, n_sents=4)
        loads = client.run(lambda: parsing._cached_pipeline.cache_info()._asdict())
    assert n_shards == 8
    assert out.read_bytes() == single.read_bytes()
    # each worker process loaded the pipeline once, whatever number of shards it parsed
    assert sum(info["misses"] for info in loads.values()) <= 2
    assert sum(info["hits"] + info["misses"] for info in loads.values()) == n_shards
    assert not (tmp_path / "work" / "in").exists()  # shards cleaned up
