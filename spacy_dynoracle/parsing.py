"""Parsing files of any size: the `parse` command's reading, parsing and writing, as a
stream (bounded memory: sentences are read lazily, parsed by `nlp.pipe` in batches, and
written as they come through `write_conllu`'s temporary file), and its distribution over
Dask workers (`parse_with_dask`; docs/corpus_parsing.md).

Pure Python; imports nothing compiled from this package (the pipeline does, when loaded).
"""
from __future__ import annotations

import shutil
from functools import lru_cache
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Union

from .conllu_io import (
    _open_for_writing,
    read_conllu,
    sentence_groups,
    sentences_to_docs,
    words_only_copy,
    write_conllu,
    write_sentences,
)

INPUT_FORMATS = ("conllu", "text")


def input_format_of(path: Union[str, Path], input_format: str = "auto") -> str:
    """'conllu' or 'text': as given, or for "auto" by the name (``.txt`` is text,
    anything else CoNLL-U)."""
    if input_format == "auto":
        return "text" if Path(path).suffix.lower() == ".txt" else "conllu"
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"unknown input format {input_format!r}: choose from auto, {', '.join(INPUT_FORMATS)}")
    return input_format


def text_documents(path: Union[str, Path]) -> Iterator[str]:
    """The non-empty lines of a UTF-8 text file (a byte-order mark and CR LF line ends are
    accepted), one document each, read lazily."""
    with open(path, encoding="utf-8-sig") as f:
        for line in f:
            line = line.strip()
            if line:
                yield line


def input_docs(nlp, path: Union[str, Path], *, input_format: str = "auto", n_sents: int = 10,
               resegment: bool = False, lenient: bool = False) -> Iterator:
    """The Docs `parse` feeds the pipeline, made lazily from the file.

    CoNLL-U: `n_sents` sentences per Doc, words only, the input's sentence boundaries
    preset unless `resegment`, the source kept for `write_conllu`. Text: each non-empty
    line is a Doc, tokenized by the pipeline's tokenizer."""
    if input_format_of(path, input_format) == "text":
        return (nlp.make_doc(text) for text in text_documents(path))
    sentences = read_conllu(path, require_heads=False, lenient=lenient)
    return (words_only_copy(doc, sent_starts=not resegment, keep_source=True)
            for doc in sentences_to_docs(nlp.vocab, sentences, n_sents))


def parse_file(nlp, input_path: Union[str, Path], output_path: Union[str, Path], *,
               replace: Sequence[str] = ("HEAD", "DEPREL"), input_format: str = "auto", n_sents: int = 10,
               resegment: bool = False, batch_size: int = 64, n_process: int = 1, lenient: bool = False,
               progress=None) -> int:
    """Parse a CoNLL-U or text file into CoNLL-U as a stream; returns the sentences written.

    Memory does not grow with the file: Docs are made as `nlp.pipe` asks for them and each
    parsed Doc is written at once (to a temporary file renamed over `output_path` at the
    end, so a failure leaves no partial output). `n_process` > 1 parses in that many
    processes (spaCy's multiprocessing, same parses). `progress(iterable)` may wrap the
    parsed Docs (a progress bar)."""
    if n_process < 1:
        raise ValueError(f"n_process must be >= 1, not {n_process}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, not {batch_size}")
    docs = input_docs(nlp, input_path, input_format=input_format, n_sents=n_sents, resegment=resegment,
                      lenient=lenient)
    parsed = nlp.pipe(docs, batch_size=batch_size, n_process=n_process)
    if progress is not None:
        parsed = progress(parsed)
    return write_conllu(parsed, output_path, replace=replace)


# --------------------------------------------------------------------------- Dask


def split_conllu(input_path: Union[str, Path], shard_dir: Union[str, Path], *, sentences_per_shard: int = 10000,
                 n_sents: int = 10, lenient: bool = False) -> List[Path]:
    """Write the sentences of a CoNLL-U file into shards ``shard_dir/00000.conllu``, ...
    of about `sentences_per_shard` sentences each, read and written as a stream.

    Shards end where a Doc of `parse` ends (`n_sents` sentences, or where parsed and
    unparsed sentences meet), so parsing the shards makes the very Docs parsing the
    whole file makes."""
    if sentences_per_shard < 1:
        raise ValueError(f"sentences_per_shard must be >= 1, not {sentences_per_shard}")
    shard_dir = Path(shard_dir)
    shard_dir.mkdir(parents=True, exist_ok=True)
    groups = sentence_groups(read_conllu(input_path, require_heads=False, lenient=lenient), n_sents)
    shards: List[Path] = []
    group = next(groups, None)
    while group is not None:
        path = shard_dir / f"{len(shards):05d}.conllu"

        def shard_sentences():
            nonlocal group
            count = 0
            while group is not None and (count == 0 or count + len(group) <= sentences_per_shard):
                yield from group
                count += len(group)
                group = next(groups, None)

        write_sentences(shard_sentences(), path)
        shards.append(path)
    return shards


@lru_cache(maxsize=4)
def _cached_pipeline(model: str):
    import spacy

    return spacy.load(model)


def parse_shard(model: str, input_path: str, output_path: str, **options) -> str:
    """Parse one shard (`parse_file` options) with the pipeline `model`, loaded once per
    worker process and reused by its later tasks; returns output_path."""
    parse_file(_cached_pipeline(str(model)), input_path, output_path, **options)
    return str(output_path)


def parse_with_dask(client, model: Union[str, Path], input_path: Union[str, Path],
                    output_path: Union[str, Path], *, work_dir: Union[str, Path],
                    sentences_per_shard: int = 10000, n_sents: int = 10, lenient: bool = False,
                    keep_shards: bool = False, **options) -> int:
    """Parse a CoNLL-U file on a Dask cluster: split it into shards (`split_conllu`, in
    `work_dir`, which the workers must see), parse each shard on a worker (`parse_shard`:
    every worker loads the pipeline once) and concatenate the parsed shards in order into
    `output_path`, which is then byte for byte what one process writes. Returns the
    number of shards. `options` are `parse_file`'s (replace, resegment, batch_size...)."""
    work_dir = Path(work_dir)
    inputs = split_conllu(input_path, work_dir / "in", sentences_per_shard=sentences_per_shard,
                          n_sents=n_sents, lenient=lenient)
    (work_dir / "out").mkdir(parents=True, exist_ok=True)
    futures = client.map(parse_shard, [str(model)] * len(inputs), [str(p) for p in inputs],
                         [str(work_dir / "out" / p.name) for p in inputs],
                         n_sents=n_sents, lenient=lenient, input_format="conllu", pure=False, **options)
    outputs = client.gather(futures)
    with _open_for_writing(output_path) as out:
        for shard in outputs:
            with open(shard, encoding="utf-8") as f:
                shutil.copyfileobj(f, out)
    if not keep_shards:
        for sub in ("in", "out"):
            shutil.rmtree(work_dir / sub, ignore_errors=True)
    return len(inputs)
