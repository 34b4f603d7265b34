"""Writing CoNLL-U: `Sentence` objects (`write_sentences`, `format_sentence`) and spaCy Docs
(`write_conllu`, `doc_to_conllu`), with their original lines where the Doc keeps its source
(docs/ud_io.md); files are replaced only once completely written.

Pure Python; imports nothing compiled from this package.
"""
from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import IO, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from .conllu_docs import USER_DATA_KEY
from .conllu_read import (DEPREL, DEPS, FEATS, FORM, HEAD, ID, LEMMA, UPOS, XPOS, _WHITESPACE,
                          Sentence, format_sentence)

def write_sentences(sentences: Iterable[Sentence], path_or_file: Union[str, Path, IO[str]]) -> int:
    """Write `Sentence` objects as CoNLL-U; returns the number written."""
    with _open_for_writing(path_or_file) as out:
        n = 0
        for sentence in sentences:
            out.write(sentence.to_conllu())
            n += 1
    return n


class _open_for_writing:
    """Open a path for writing through a temporary file beside it, renamed over the path only
    when everything was written: a failure half-way (bad input, a crash, Ctrl-C) leaves an
    existing file as it was and never a truncated one. An open file is written as it is."""

    def __init__(self, path_or_file: Union[str, Path, IO[str]]) -> None:
        self.target = path_or_file
        self.file: Optional[IO[str]] = None

    def __enter__(self) -> IO[str]:
        if isinstance(self.target, (str, Path)):
            target = Path(self.target)
            # newline="\n": never write CRLF, even on Windows.
            self.file = tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", newline="\n", dir=target.parent or ".",
                prefix=f".{target.name}.", suffix=".tmp", delete=False)
            return self.file
        return self.target

    def __exit__(self, exc_type, *exc) -> None:
        if self.file is None:
            return
        self.file.close()
        if exc_type is None:
            # the temporary file is private (0600): give the result the mode a plain open()
            # would, the existing file's or the umask's
            try:
                mode = os.stat(self.target).st_mode & 0o777
            except OSError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(self.file.name, mode)
            os.replace(self.file.name, self.target)
        else:
            os.unlink(self.file.name)


# Columns `write_conllu` can take from the Doc instead of the source.
REPLACEABLE = ("LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL")


def write_conllu(
    docs: Iterable,
    path_or_file: Union[str, Path, IO[str]],
    *,
    replace: Sequence[str] = ("HEAD", "DEPREL"),
) -> int:
    """Write Docs as CoNLL-U; returns the number of sentences written.

    Docs that came from `sentences_to_docs` (or `words_only_copy(..., keep_source=True)`)
    are written with their original comments, MWT lines, empty nodes and columns; only the
    `replace` columns are taken from the Doc. A source sentence is kept whole when the
    Doc's parse respects it (no arc crosses its boundary and it has as many roots as in
    the source); a region the parser segmented differently is written as the Doc's own
    sentences, renumbered, with the source columns of each word, the MWTs that fit in a
    sentence, DEPS '_', and no comments or empty nodes. Docs without a source are
    written from their annotations (see `docs/ud_io.md`). spaCy's root label ``ROOT`` is
    written as ``root``; a root has HEAD 0.
    """
    unknown = set(replace) - set(REPLACEABLE)
    if unknown:
        raise ValueError(f"cannot replace {sorted(unknown)}; choose from {REPLACEABLE}")
    n = 0
    with _open_for_writing(path_or_file) as out:
        for doc in docs:
            for text in _doc_sentences_text(doc, tuple(replace)):
                out.write(text)
                n += 1
    return n


def doc_to_conllu(doc, *, replace: Sequence[str] = ("HEAD", "DEPREL")) -> str:
    """CoNLL-U text of one Doc (see `write_conllu`)."""
    buffer = io.StringIO()
    write_conllu([doc], buffer, replace=replace)
    return buffer.getvalue()


def _deprel(token) -> str:
    label = token.dep_
    if not label:
        return "_"
    return "root" if label == "ROOT" else label


def _head(token, start: int) -> str:
    return "0" if token.head.i == token.i else str(token.head.i - start + 1)


def _doc_sentences_text(doc, replace: Tuple[str, ...]) -> Iterator[str]:
    if len(doc) == 0:
        return
    source = doc.user_data.get(USER_DATA_KEY)
    records = source["sentences"] if source is not None else []
    if records:
        _check_source(doc, records)
    parsed = doc.has_annotation("DEP")
    intact = _intact_sentences(doc, records, parsed)
    covered = [False] * len(doc)
    for record, ok in zip(records, intact):
        if ok:
            start = record["start"]
            covered[start:start + len(record["words"])] = [True] * len(record["words"])
    if parsed or doc.has_annotation("SENT_START"):
        own = [(s.start, s.end) for s in doc.sents]
    else:  # no sentence information: the source's sentences (all intact), or the whole Doc
        own = [] if records else [(0, len(doc))]
    fresh = [span for start, end in own for span in _uncovered_runs(covered, start, end)]
    source_rows: Dict[int, Sequence[str]] = {}
    if fresh:
        for r in records:
            for i, row in enumerate(r["words"]):
                source_rows[r["start"] + i] = row
    mwts = _doc_level_mwts(records) if fresh else []
    # Document order: intact source sentences and the Doc's own sentences elsewhere.
    items: List[Tuple[int, object]] = [(r["start"], r) for r, ok in zip(records, intact) if ok]
    items += [(start, (start, end)) for start, end in fresh]
    items.sort(key=lambda item: item[0])
    for _, payload in items:
        if isinstance(payload, dict):
            yield _source_sentence_text(doc, payload, parsed, replace)
        else:
            start, end = payload  # type: ignore[misc]
            yield _fresh_sentence_text(doc, start, end, parsed, replace, mwts, source_rows, bool(records))


def _uncovered_runs(covered: List[bool], start: int, end: int) -> Iterator[Tuple[int, int]]:
    i = start
    while i < end:
        if covered[i]:
            i += 1
            continue
        j = i
        while j < end and not covered[j]:
            j += 1
        yield i, j
        i = j


def _check_source(doc, records) -> None:
    n_words = sum(len(r["words"]) for r in records)
    if n_words != len(doc) or any(
        doc[r["start"] + i].text != row[FORM] for r in records for i, row in enumerate(r["words"])
    ):
        raise ValueError(
            "the Doc's tokens no longer match its CoNLL-U source (was it retokenized?); "
            f"delete doc.user_data[{USER_DATA_KEY!r}] to write it from its own annotations"
        )


def _intact_sentences(doc, records, parsed: bool) -> List[bool]:
    """Which source sentences the Doc's analysis respects, so they can be written whole."""
    if not records:
        return []
    if parsed:
        sentence_of = [0] * len(doc)
        for k, r in enumerate(records):
            sentence_of[r["start"]:r["start"] + len(r["words"])] = [k] * len(r["words"])
        ok = [True] * len(records)
        roots = [0] * len(records)
        for token in doc:
            k, head = sentence_of[token.i], token.head.i
            if head == token.i:
                roots[k] += 1
            elif sentence_of[head] != k:  # an arc crosses the boundary: both are broken
                ok[k] = ok[sentence_of[head]] = False
        for k, r in enumerate(records):
            source_roots = sum(1 for row in r["words"] if row[HEAD] == "0") or 1
            ok[k] = ok[k] and roots[k] == source_roots
        return ok
    if doc.has_annotation("SENT_START"):
        starts = [bool(t.is_sent_start) for t in doc] + [True]
        return [
            starts[r["start"]] and starts[r["start"] + len(r["words"])]
            and not any(starts[r["start"] + 1:r["start"] + len(r["words"])])
            for r in records
        ]
    return [True] * len(records)


def _doc_level_mwts(records) -> List[Tuple[int, int, List[str]]]:
    """Every source MWT as (first token index, last token index, columns)."""
    out = []
    for r in records:
        for row in r["mwt"]:
            first, last = (int(x) for x in row[ID].split("-"))
            out.append((r["start"] + first - 1, r["start"] + last - 1, row))
    return out


def _replaced(row: Sequence[str], token, start: int, parsed: bool, replace: Tuple[str, ...]) -> List[str]:
    row = list(row)
    for name in replace:
        if name == "HEAD":
            row[HEAD] = _head(token, start) if parsed else "_"
        elif name == "DEPREL":
            row[DEPREL] = _deprel(token) if parsed else "_"
        elif name == "LEMMA":
            row[LEMMA] = token.lemma_ or "_"
        elif name == "UPOS":
            row[UPOS] = token.pos_ or "_"
        elif name == "XPOS":
            row[XPOS] = token.tag_ or "_"
        elif name == "FEATS":
            row[FEATS] = str(token.morph) or "_"
    return row


def _source_sentence_text(doc, record, parsed: bool, replace: Tuple[str, ...]) -> str:
    start = record["start"]
    rows = [_replaced(row, doc[start + i], start, parsed, replace) for i, row in enumerate(record["words"])]
    return format_sentence(record["comments"], rows, record["mwt"], record["empty"])


_FORM_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _safe_form(text: str) -> str:
    """A FORM the reader accepts: whitespace tokens are escaped as UDPipe's SpacesAfter does."""
    if text and "\t" not in text and "\n" not in text and "\r" not in text and text == text.strip():
        return text
    return "".join(_FORM_ESCAPES.get(ch, ch) for ch in text) or "_"


def _fresh_sentence_text(doc, start, end, parsed, replace, mwts, source_rows, from_source) -> str:
    rows = []
    for token in doc[start:end]:
        if parsed and not start <= token.head.i < end:
            raise ValueError(
                f"token {token.i} ({token.text!r}) has its head outside its sentence "
                f"[{start}, {end}): the parse is not a forest of contiguous sentences"
            )
        source_row = source_rows.get(token.i)
        if source_row is None:
            row = _default_row(token, start, parsed)
        else:
            # HEAD/DEPREL always come from the Doc here: the source numbering is gone.
            row = _replaced(source_row, token, start, parsed, tuple(replace) + ("HEAD", "DEPREL"))
            row[DEPS] = "_"  # enhanced graphs refer to the source numbering
        row[ID] = str(token.i - start + 1)
        rows.append(row)
    mwt_rows = []
    for first, last, row in mwts:
        if start <= first and last < end:
            row = list(row)
            row[ID] = f"{first - start + 1}-{last - start + 1}"
            mwt_rows.append(row)
    comments = [] if from_source else ["# text = " + " ".join(doc[start:end].text.split())]
    return format_sentence(comments, rows, mwt_rows)


def _default_row(token, start: int, parsed: bool) -> List[str]:
    """Columns of a token of a Doc that did not come from CoNLL-U."""
    misc = "_" if token.whitespace_ else "SpaceAfter=No"
    return [
        "0", _safe_form(token.text), _safe_form(token.lemma_) if token.lemma_ else "_",
        token.pos_ or "_", _safe_column(token.tag_), _safe_column(str(token.morph)),
        _head(token, start) if parsed else "_", _deprel(token) if parsed else "_", "_", misc,
    ]


def _safe_column(value: str) -> str:
    if not value:
        return "_"
    return _WHITESPACE.sub("_", value)
