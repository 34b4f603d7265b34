"""A spaCy corpus reader for CoNLL-U files: ``spacy_dynoracle.ConlluCorpus.v1``.

    [corpora.train]
    @readers = "spacy_dynoracle.ConlluCorpus.v1"
    path = ${paths.train}
    n_sents = 10

Importing this module is cheap: it needs only spaCy's registry and the pure-Python
`conllu_io` module, never compiled code of this package.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple, Union

from spacy.language import Language
from spacy.training import Example
from spacy.util import registry

from .conllu_io import ReadStats, Sentence, missing_path, read_conllu, sentences_to_docs, words_only_copy

SELECT_HELP = "'all', 'head:F' (first fraction F of the sentences) or 'tail:F' (last fraction F)"


def conllu_paths(path: Union[str, Path, None]) -> List[Path]:
    """The CoNLL-U files a path names: the file itself, or a directory's ``*.conllu`` sorted."""
    if path is None or str(path) == "":
        raise ValueError("no CoNLL-U path given (is paths.train / paths.dev set in the config?)")
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.conllu") if p.is_file())
        if not files:
            raise FileNotFoundError(f"no *.conllu files in directory {path}")
        return files
    if not path.exists():
        raise missing_path(path)
    return [path]


def parse_select(select: str) -> Tuple[str, Fraction]:
    """``"all"`` / ``"head:0.9"`` / ``"tail:0.1"`` -> (part, fraction).

    The fraction is kept exact (``Fraction("0.9")`` is 9/10) so that ``head:F`` and
    ``tail:1-F`` split a corpus into two complementary parts with no overlap or gap.
    """
    if select == "all":
        return "all", Fraction(1)
    part, _, value = select.partition(":")
    try:
        fraction = Fraction(value)
    except (ValueError, ZeroDivisionError):
        fraction = Fraction(-1)
    if part not in ("head", "tail") or not 0 < fraction <= 1:
        raise ValueError(f"invalid select {select!r}: use {SELECT_HELP}, with 0 < F <= 1")
    return part, fraction


def selected_range(n: int, select: str) -> range:
    """Indices of the selected sentences among n.

    tail:F is the last round(n*F) sentences (halves round up); head:F is everything
    before the tail:(1-F) part, so head:0.9 and tail:0.1 partition the corpus exactly.
    """
    part, fraction = parse_select(select)
    if part == "all":
        return range(n)
    tail = Fraction(1) - fraction if part == "head" else fraction
    cut = n - int(n * tail + Fraction(1, 2))  # round half up, exactly
    return range(cut) if part == "head" else range(cut, n)


def read_sentences(
    path: Union[str, Path],
    *,
    select: str = "all",
    on_error: str = "raise",
    stats: Optional[ReadStats] = None,
    require_heads: bool = True,
    lenient: bool = False,
) -> Iterator[Sentence]:
    """Sentences of a CoNLL-U file or directory (files in sorted order), optionally a part.

    With a head/tail selection the files are read twice (count, then yield) instead of
    being held in memory. on_error, stats, require_heads, lenient: as in `read_conllu`.
    """
    files = conllu_paths(path)
    parse_select(select)

    def all_sentences(count_into: Optional[ReadStats]) -> Iterator[Sentence]:
        for file in files:
            yield from read_conllu(file, on_error=on_error, stats=count_into, require_heads=require_heads,
                                   lenient=lenient)

    if select == "all":
        yield from all_sentences(stats)
        return
    total = sum(1 for _ in all_sentences(ReadStats()))
    wanted = selected_range(total, select)
    for i, sentence in enumerate(all_sentences(stats)):
        if i in wanted:
            yield sentence
        elif i >= wanted.stop:
            break


@registry.readers("spacy_dynoracle.ConlluCorpus.v1")
def create_conllu_reader(
    path: Optional[Union[str, Path]],
    n_sents: int = 10,
    limit: int = 0,
    on_error: str = "raise",
    select: str = "all",
    lenient: bool = False,
) -> Callable[[Language], Iterator[Example]]:
    """Training/evaluation examples from CoNLL-U, for ``[corpora]`` in a spaCy config.

    path: a ``.conllu`` file, or a directory (all ``*.conllu`` in it, sorted by name).
    n_sents: sentences per Doc (one Example per Doc).
    limit: stop after this many Examples (0 = all).
    on_error: "raise" stops at the first malformed sentence with file:line: problem;
        "skip" skips malformed sentences and warns with their count and first errors.
    select: "all", "head:F" or "tail:F", e.g. "head:0.9" for training and "tail:0.1" as
        dev on a treebank without a dev split (Latin-Perseus); the two never overlap.
    lenient: repair CR LF line ends, a byte-order mark and a missing final empty line
        (counted and warned about once per file) instead of raising.
    Each Example's predicted Doc has the gold words and spaces and nothing else; the
    reference Doc carries the gold tree, UD labels, POS, morphology and lemmas. The files
    are read again on every call (each epoch), so nothing is held in memory.
    """
    conllu_paths(path)  # fail when the config is resolved, not mid-training
    parse_select(select)
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    if n_sents < 1 or limit < 0:
        raise ValueError(f"need n_sents >= 1 and limit >= 0 (got n_sents={n_sents}, limit={limit})")

    def read_examples(nlp: Language) -> Iterator[Example]:
        sentences = read_sentences(path, select=select, on_error=on_error,  # type: ignore[arg-type]
                                   lenient=lenient)
        for i, doc in enumerate(sentences_to_docs(nlp.vocab, sentences, n_sents, keep_source=False)):
            if limit and i >= limit:
                break
            yield Example(words_only_copy(doc), doc)

    return read_examples
