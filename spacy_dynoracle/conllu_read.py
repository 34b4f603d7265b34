"""Reading CoNLL-U (Universal Dependencies) files: the data model (`Sentence`, `Word`,
`MultiwordToken`, `EmptyNode`, `ReadStats`, `ConlluError`) and the strict reader `read_conllu`.

The reader is strict on purpose: every malformed input raises a `ConlluError` that names
the file, the 1-based line and the problem, and nothing is silently dropped or
normalised. With ``on_error="skip"`` malformed sentences are skipped instead, counted in a
`ReadStats` and reported in a warning; with ``lenient=True`` CR LF line ends, a byte-order
mark and a missing final empty line are repaired, counted and reported the same way. See
``docs/ud_io.md`` for the rules.

Only basic trees are parsed (HEAD/DEPREL over syntactic words). Multiword-token lines
(``n-m``) and empty nodes (``n.m``) are validated and kept verbatim so that a file can be
written back byte for byte; they never become tokens. The line parser is hand-written
(not the ``conllu`` package) so that every error carries the exact line number.

Pure Python; imports nothing compiled from this package. Docs from sentences:
`conllu_docs`; writing: `conllu_write`; `conllu_io` re-exports all three.
"""
from __future__ import annotations

import os
import re
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)

# The 17 UD universal POS tags (spaCy's Doc rejects anything else in `pos`).
UPOS_TAGS = frozenset(
    "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()
)

MAX_REPORTED_ERRORS = 10

# re.ASCII: int() and \d would accept other Unicode digits ("١"), which CoNLL-U does not.
_WORD_ID = re.compile(r"[1-9][0-9]*", re.ASCII)
_MWT_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)", re.ASCII)
_EMPTY_ID = re.compile(r"(0|[1-9][0-9]*)\.([1-9][0-9]*)", re.ASCII)
_HEAD = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_WHITESPACE = re.compile(r"\s")
# What spaCy's Morphology can parse: Name=Value pairs separated by "|", one "=" each.
_FEATS = re.compile(r"[^=|]+=[^=|]+(\|[^=|]+=[^=|]+)*")
# Columns that may contain inner spaces in UD v2 (but no leading/trailing whitespace).
_SPACED_COLUMNS = (FORM, LEMMA, MISC)
_UNSPACED_COLUMNS = (ID, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS)


class ConlluError(ValueError):
    """A malformed CoNLL-U input: ``str(error) == f"{path}:{line}: {message}"``."""

    def __init__(self, path: Union[str, Path], line: int, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(f"{self.path}:{line}: {message}")

    def __reduce__(self):  # keep the three attributes through pickling
        return (type(self), (self.path, self.line, self.message))


@dataclass
class Word:
    """A syntactic word (a line with an integer ID)."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: Optional[int]  # None when HEAD is "_" (unparsed input, require_heads=False)
    deprel: str
    deps: str
    misc: str
    line: int = 0  # 1-based line in the source file

    def columns(self) -> List[str]:
        head = "_" if self.head is None else str(self.head)
        return [str(self.id), self.form, self.lemma, self.upos, self.xpos, self.feats,
                head, self.deprel, self.deps, self.misc]

    @property
    def space_after(self) -> bool:
        return not _no_space_after(self.misc)


@dataclass
class MultiwordToken:
    """A multiword-token line ``first-last``, kept verbatim (all ten columns)."""

    first: int
    last: int
    columns: List[str]
    line: int = 0

    @property
    def form(self) -> str:
        return self.columns[FORM]

    @property
    def space_after(self) -> bool:
        return not _no_space_after(self.columns[MISC])


@dataclass
class EmptyNode:
    """An empty node ``after.index`` (enhanced UD), kept verbatim (all ten columns)."""

    after: int  # the word it follows (0 = before the first word)
    index: int
    columns: List[str]
    line: int = 0


@dataclass
class Sentence:
    """One CoNLL-U sentence: comments, syntactic words, MWT lines and empty nodes."""

    words: List[Word]
    comments: List[str] = field(default_factory=list)  # whole lines, "#" included
    multiword_tokens: List[MultiwordToken] = field(default_factory=list)
    empty_nodes: List[EmptyNode] = field(default_factory=list)
    path: str = ""
    line: int = 0  # line of the sentence's first line

    @property
    def is_parsed(self) -> bool:
        return all(w.head is not None for w in self.words)

    @property
    def heads(self) -> List[int]:
        """HEAD per word (index i = word i+1), 0 = root. Only for parsed sentences."""
        return [w.head for w in self.words]  # type: ignore[misc]

    @property
    def sent_id(self) -> Optional[str]:
        return self.comment_value("sent_id")

    @property
    def text(self) -> Optional[str]:
        return self.comment_value("text")

    def comment_value(self, key: str) -> Optional[str]:
        """Value of a ``# key = value`` comment, or None."""
        for comment in self.comments:
            name, sep, value = comment[1:].partition("=")
            if sep and name.strip() == key:
                return value.strip()
        return None

    def spaces(self) -> List[bool]:
        """Whether a space follows each word in the original text (MWT-aware).

        Words inside a multiword token are glued together; the space after the last one
        comes from the MWT line's MISC (``SpaceAfter=No``), as UD puts it there.
        """
        spaces = [w.space_after for w in self.words]
        for mwt in self.multiword_tokens:
            for i in range(mwt.first, mwt.last):
                spaces[i - 1] = False
            spaces[mwt.last - 1] = mwt.space_after
        return spaces

    def n_tokens(self) -> int:
        """Surface tokens: an MWT counts once, its words not at all."""
        covered = sum(m.last - m.first + 1 for m in self.multiword_tokens)
        return len(self.words) - covered + len(self.multiword_tokens)

    def to_conllu(self) -> str:
        """The sentence as CoNLL-U text, ending with the empty separator line."""
        return format_sentence(
            self.comments,
            [w.columns() for w in self.words],
            [m.columns for m in self.multiword_tokens],
            [e.columns for e in self.empty_nodes],
        )


@dataclass
class ReadStats:
    """Counts of a read; with on_error="skip", also the malformed blocks skipped; with
    lenient=True, also the file-shape problems repaired (by kind, see `REPAIRS`)."""

    sentences: int = 0
    words: int = 0
    skipped: int = 0
    errors: List[ConlluError] = field(default_factory=list)  # the first few only
    repaired: int = 0
    repairs: Dict[str, int] = field(default_factory=dict)  # kind -> count

    def record(self, error: ConlluError) -> None:
        self.skipped += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(error)

    def repair(self, kind: str) -> None:
        self.repaired += 1
        self.repairs[kind] = self.repairs.get(kind, 0) + 1

    def summary(self) -> str:
        text = f"read {self.sentences} sentences ({self.words} words), skipped {self.skipped} malformed"
        if self.repaired:
            text += f", repaired {_repairs_text(self.repairs)}"
        if self.errors:
            shown = "\n  ".join(str(e) for e in self.errors)
            more = self.skipped - len(self.errors)
            text += f"; first errors:\n  {shown}" + (f"\n  ... and {more} more" if more else "")
        return text


def _no_space_after(misc: str) -> bool:
    return misc != "_" and "SpaceAfter=No" in misc.split("|")


# --------------------------------------------------------------------------- reading


@dataclass
class _Block:
    """Consecutive non-empty lines, up to the line that ends them."""

    lines: List[Tuple[int, str, Optional[str]]]  # (line number, text, line-level error)
    end_line: int
    end_error: Optional[str]  # None if ended by a proper empty line


# File-shape problems that lenient reading repairs, named as ReadStats.repairs counts them.
# Strict reading raises them in both on_error modes: they are not malformed sentences, and
# skipping would drop valid ones (every sentence of a CR LF file, a BOM file's first, an
# unterminated file's last).
BOM = "byte-order mark"
CRLF = "CR LF line end"
NO_FINAL_EMPTY_LINE = "missing final empty line"
REPAIRS = (BOM, CRLF, NO_FINAL_EMPTY_LINE)
_LENIENT_HINT = "; read with lenient=True / --lenient to repair"
# A sentence that starts right after the previous one's last line (no empty line between
# them) is split off in skip mode and in lenient reading, and counted under this name in
# ReadStats.repairs: skipping the block would drop two valid sentences. Strict reading
# raises it (it is not among REPAIRS: skip mode repairs it instead of raising).
MISSING_SEPARATOR = "missing empty line between sentences"


class _Repairable(str):
    """An error message about a problem lenient reading repairs (see REPAIRS)."""


class _RepairableError(ConlluError):
    """Raised in skip mode too: see REPAIRS."""


def _error(path: str, line: int, message: str) -> ConlluError:
    cls = _RepairableError if isinstance(message, _Repairable) else ConlluError
    return cls(path, line, message)


_PLURALS = {MISSING_SEPARATOR: "missing empty lines between sentences"}


def _repairs_text(repairs: Dict[str, int]) -> str:
    return ", ".join(f"{n} {_PLURALS.get(kind, kind + 's') if n > 1 else kind}" for kind, n in repairs.items())


def _line_error(text: str, lineno: int) -> Optional[str]:
    if lineno == 1 and text.startswith("\ufeff"):
        return _Repairable("file starts with a UTF-8 byte-order mark (BOM); CoNLL-U files must "
                           "not have one" + _LENIENT_HINT)
    if "\r" in text:
        if text.endswith("\r") and "\r" not in text[:-1]:
            return _Repairable("line ends with CR LF (Windows line ending); CoNLL-U uses LF (\\n) "
                               "only" + _LENIENT_HINT)
        return "carriage return (\\r) inside the line"
    return None


def _repaired(text: str, lineno: int, stats: ReadStats) -> str:
    """Lenient reading: the line without a leading BOM and a CR before its LF."""
    if lineno == 1 and text.startswith("\ufeff"):
        text = text[1:]
        stats.repair(BOM)
    if text.endswith("\r") and "\r" not in text[:-1]:
        text = text[:-1]
        stats.repair(CRLF)
    return text


def _blocks(lines: Iterable[bytes], path: str, lenient: bool = False,
            stats: Optional[ReadStats] = None) -> Iterator[Union[_Block, ConlluError]]:
    """Split a file into blocks; stray separator lines come out as errors of their own.

    lenient: repair the REPAIRS (counted in `stats`) instead of reporting them.
    """
    block: List[Tuple[int, str, Optional[str]]] = []
    lineno = 0
    last_had_newline = True
    for raw in lines:
        lineno += 1
        last_had_newline = raw.endswith(b"\n")
        body = raw[:-1] if last_had_newline else raw
        try:
            text = body.decode("utf-8")
            if lenient:
                text = _repaired(text, lineno, stats)  # type: ignore[arg-type]
            error = _line_error(text, lineno)
        except UnicodeDecodeError as e:
            text = body.decode("utf-8", errors="replace")
            error = f"invalid UTF-8: byte 0x{body[e.start]:02x} at byte offset {e.start} of the line"
        if text == "":
            if block:
                yield _Block(block, lineno, None)
                block = []
            else:
                yield ConlluError(path, lineno, "unexpected empty line: sentences are separated "
                                  "by exactly one empty line and the file starts with a sentence")
        elif text.isspace():
            # The line is an error of its own: the sentence it ends is judged on its lines,
            # so skip mode keeps it when they are valid.
            if block:
                yield _Block(block, lineno, None)
                block = []
            yield _error(path, lineno, error or "line contains only whitespace; a sentence must "
                         "end with an empty line")
        else:
            block.append((lineno, text, error))
    if lineno == 0:
        return
    if block:
        if lenient:
            stats.repair(NO_FINAL_EMPTY_LINE)  # type: ignore[union-attr]
            yield _Block(block, lineno, None)
        else:
            yield _Block(block, lineno, _Repairable(
                "file ends without an empty line after the last sentence"
                + ("" if last_had_newline else " (and without a final newline)") + _LENIENT_HINT))


def _starts_sentence(id_: str) -> bool:
    """Whether a line with this ID can be a sentence's first token line: word 1, a
    multiword token 1-m, or the empty node 0.1."""
    if id_ == "1" or id_ == "0.1":
        return True
    match = _MWT_ID.fullmatch(id_)
    return match is not None and match.group(1) == "1"


def _split_run_on(block: _Block) -> List[_Block]:
    """The sentences of a block that lacks the empty line between them.

    A new sentence starts at a token line that can start one (`_starts_sentence`) when the
    block has had a word line since the last start and the next word line is word 1; the
    comment lines right before it belong to the new sentence. Anything else (a stray
    ``0.1``, a duplicated word ID 2 written as 1 before word 3...) stays in its block and is
    reported as before.
    """
    lines = block.lines
    cuts: List[int] = []
    seen_word = False
    candidate: Optional[int] = None  # index of a start line waiting for its word 1
    for k, (_, text, _) in enumerate(lines):
        if text.startswith("#"):
            continue
        id_ = text.split("\t", 1)[0]
        is_word = _WORD_ID.fullmatch(id_) is not None
        if candidate is None and seen_word and _starts_sentence(id_):
            candidate = k
        if is_word:
            if candidate is not None:
                if id_ == "1":
                    start = candidate
                    while start > 0 and lines[start - 1][1].startswith("#"):
                        start -= 1
                    cuts.append(start)
                candidate = None
            seen_word = True
    if not cuts:
        return [block]
    bounds = [0] + cuts + [len(lines)]
    parts = [_Block(lines[a:b], lines[b][0], None) for a, b in zip(bounds, bounds[1:-1])]
    parts.append(_Block(lines[bounds[-2]:], block.end_line, block.end_error))
    return parts


def _column_error(cols: List[str], text: str) -> Optional[str]:
    if len(cols) != 10:
        hint = ""
        if len(cols) < 10 and len(text.split()) >= 10:
            hint = " (columns seem to be separated by spaces; CoNLL-U needs tabs)"
        elif len(cols) == 11 and cols[-1] == "":
            hint = " (trailing tab at the end of the line)"
        return f"expected 10 tab-separated columns, found {len(cols)}{hint}"
    for i, value in enumerate(cols):
        if value == "":
            return f"empty column {i + 1} ({COLUMNS[i]}); write '_' for a missing value"
    for i in _SPACED_COLUMNS:
        value = cols[i]
        if value != value.strip():
            return f"column {i + 1} ({COLUMNS[i]}) has leading or trailing whitespace: {value!r}"
    for i in _UNSPACED_COLUMNS:
        if _WHITESPACE.search(cols[i]):
            return f"column {i + 1} ({COLUMNS[i]}) contains whitespace: {cols[i]!r} (tabs/spaces mixed up?)"
    return None


class _SentenceParser:
    def __init__(self, path: str, require_heads: bool, allow_multiple_roots: bool) -> None:
        self.path = path
        self.require_heads = require_heads
        self.allow_multiple_roots = allow_multiple_roots

    def error(self, line: int, message: str) -> ConlluError:
        return _error(self.path, line, message)

    def parse(self, block: _Block) -> Sentence:
        comments: List[str] = []
        words: List[Word] = []
        mwts: List[MultiwordToken] = []
        empties: List[EmptyNode] = []
        pending_mwt: Optional[MultiwordToken] = None  # MWT line whose first word is next
        for lineno, text, line_error in block.lines:
            if line_error:
                raise self.error(lineno, line_error)
            if text.startswith("#"):
                if words or mwts or empties:
                    raise self.error(lineno, "comment line after the sentence's first word line "
                                     "(comments must come before the words)")
                comments.append(text)
                continue
            cols = text.split("\t")
            problem = _column_error(cols, text)
            if problem:
                raise self.error(lineno, problem)
            id_ = cols[ID]
            if _WORD_ID.fullmatch(id_):
                words.append(self.word(cols, lineno, words))
                pending_mwt = None
            elif _MWT_ID.fullmatch(id_):
                pending_mwt = self.multiword_token(cols, lineno, words, mwts)
                mwts.append(pending_mwt)
            elif _EMPTY_ID.fullmatch(id_):
                empties.append(self.empty_node(cols, lineno, words, empties, pending_mwt))
            else:
                raise self.error(lineno, f"invalid ID {id_!r}: expected a word ID (1, 2, ...), "
                                 "a multiword-token range (1-2) or an empty node (1.1)")
        if block.end_error:
            raise self.error(block.end_line, block.end_error)
        first_line = block.lines[0][0]
        if not words:
            if not (mwts or empties):
                raise self.error(first_line, "comment lines not followed by any word line "
                                 "(comment-only block or file)")
            raise self.error(first_line, "sentence has no word lines (only multiword tokens or empty nodes)")
        if mwts and mwts[-1].last > len(words):
            m = mwts[-1]
            raise self.error(m.line, f"multiword token {m.first}-{m.last} goes beyond the last "
                             f"word of the sentence ({len(words)})")
        self.check_tree(words)
        return Sentence(words, comments, mwts, empties, self.path, first_line)

    def word(self, cols: List[str], lineno: int, words: List[Word]) -> Word:
        wid = int(cols[ID])
        expected = len(words) + 1
        if wid != expected:
            if wid < expected:
                first = words[wid - 1].line
                raise self.error(lineno, f"duplicate word ID {wid} (already on line {first})")
            raise self.error(lineno, f"word ID {wid} out of sequence: expected {expected}")
        upos = cols[UPOS]
        if upos != "_" and upos not in UPOS_TAGS:
            raise self.error(lineno, f"unknown UPOS {upos!r} (one of the 17 UD tags or '_')")
        feats = cols[FEATS]
        if feats != "_" and not _FEATS.fullmatch(feats):
            raise self.error(lineno, f"malformed FEATS {feats!r}: expected '_' or Name=Value pairs joined by '|'")
        head_text, deprel = cols[HEAD], cols[DEPREL]
        head: Optional[int]
        if _HEAD.fullmatch(head_text):
            head = int(head_text)
            if deprel == "_":
                raise self.error(lineno, f"word {wid} has HEAD {head} but no DEPREL ('_')")
        elif head_text == "_" and not self.require_heads:
            head = None
            if deprel != "_":
                raise self.error(lineno, f"word {wid} has DEPREL {deprel!r} but no HEAD ('_')")
        elif head_text == "_":
            raise self.error(lineno, f"HEAD of word {wid} is '_' (no parse); read with "
                             "require_heads=False to accept unparsed sentences")
        else:
            raise self.error(lineno, f"HEAD {head_text!r} of word {wid} is not a non-negative integer")
        return Word(wid, cols[FORM], cols[LEMMA], upos, cols[XPOS], feats, head, deprel,
                    cols[DEPS], cols[MISC], lineno)

    def multiword_token(self, cols, lineno, words, mwts) -> MultiwordToken:
        first, last = (int(x) for x in cols[ID].split("-"))
        if last <= first:
            raise self.error(lineno, f"multiword token {cols[ID]}: the range must cover at least two words")
        if mwts and mwts[-1].last >= first:
            prev = mwts[-1]
            raise self.error(lineno, f"multiword token {cols[ID]} overlaps {prev.first}-{prev.last} (line {prev.line})")
        if first != len(words) + 1:
            raise self.error(lineno, f"multiword token {cols[ID]} must come right before word {first}; "
                             f"the next word is {len(words) + 1}")
        return MultiwordToken(first, last, cols, lineno)

    def empty_node(self, cols, lineno, words, empties, pending_mwt) -> EmptyNode:
        after, index = (int(x) for x in cols[ID].split("."))
        if after != len(words):
            raise self.error(lineno, f"empty node {cols[ID]} must follow word {after}, "
                             f"but it comes after word {len(words)}")
        if pending_mwt is not None:
            raise self.error(lineno, f"empty node {cols[ID]} between multiword token "
                             f"{pending_mwt.first}-{pending_mwt.last} and its first word")
        expected = empties[-1].index + 1 if empties and empties[-1].after == after else 1
        if index != expected:
            raise self.error(lineno, f"empty node ID {cols[ID]} out of sequence: expected {after}.{expected}")
        return EmptyNode(after, index, cols, lineno)

    def check_tree(self, words: List[Word]) -> None:
        n = len(words)
        missing = [w for w in words if w.head is None]
        if missing:
            if len(missing) < n:
                w = missing[0]
                raise self.error(w.line, f"HEAD of word {w.id} is '_' but other words of the "
                                 "sentence have heads (parse all words or none)")
            return
        for w in words:
            if w.head > n:  # type: ignore[operator]
                raise self.error(w.line, f"HEAD {w.head} of word {w.id} is out of range: the sentence has {n} words")
            if w.head == w.id:
                raise self.error(w.line, f"word {w.id} has itself as HEAD (cycle)")
        roots = [w for w in words if w.head == 0]
        if not roots:
            raise self.error(words[0].line, "no root: no word has HEAD 0")
        if len(roots) > 1 and not self.allow_multiple_roots:
            ids = ", ".join(str(w.id) for w in roots)
            raise self.error(roots[1].line, f"several roots: words {ids} have HEAD 0 "
                             "(a UD sentence has exactly one)")
        heads = [0] + [w.head for w in words]
        state = [0] * (n + 1)  # 0 = unseen, 1 = on the current path, 2 = reaches the root
        for start in range(1, n + 1):
            path = []
            v = start
            while v != 0 and state[v] == 0:
                state[v] = 1
                path.append(v)
                v = heads[v]  # type: ignore[assignment]
            if v != 0 and state[v] == 1:
                cycle = path[path.index(v):]
                chain = " -> ".join(str(x) for x in cycle + [cycle[0]])
                first = min(cycle)
                raise self.error(words[first - 1].line, f"cycle in HEAD: {chain} (word -> its head)")
            for u in path:
                state[u] = 2


def _strict_run_on(parser: "_SentenceParser", block: _Block, parts: list) -> list:
    """Strict reading of a block `_split_run_on` cut: when its first sentence is valid, that
    sentence and then the error at the next one's first line (the empty line is missing);
    otherwise the whole block, whose first error is reported as before (a block whose
    first part is itself broken is more likely one malformed sentence than two)."""
    try:
        parser.parse(parts[0])
    except ConlluError:
        return [block]
    line = parts[1].lines[0][0]
    return [parts[0], ConlluError(parser.path, line, (
        f"a new sentence starts here without the empty line that must end the previous one "
        f"(line {line - 1}); read with on_error='skip' or lenient=True / --lenient to split them"))]


def read_conllu(
    path: Union[str, Path],
    *,
    on_error: str = "raise",
    stats: Optional[ReadStats] = None,
    require_heads: bool = True,
    allow_multiple_roots: bool = False,
    lenient: bool = False,
) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U file, validating everything on the way.

    on_error: "raise" (default) raises a `ConlluError` (file, line, problem) at the first
        malformed sentence; "skip" skips malformed sentences (each block of lines up to an
        empty line counts once), records them in `stats` and warns once per file. A file
        with no valid sentence at all (empty, comment-only, everything malformed) raises
        in both modes.
    stats: a `ReadStats` to fill (sentences, words, skipped, first errors, repairs).
    require_heads: if False, sentences whose HEAD and DEPREL are '_' on every word are
        accepted as unparsed (`Word.head is None`), e.g. input for `parse`.
    allow_multiple_roots: accept several words with HEAD 0 in a sentence (not UD).
    lenient: repair CR LF line ends, a leading byte-order mark and a missing final empty
        line (`REPAIRS`), count them in `stats` and warn once per file. Without it each
        of them raises a `ConlluError` naming file and line, in both on_error modes: they
        are never a reason to skip a sentence.
    A sentence that starts without the empty line that must end the previous one (a line
    with ID 1 after the previous sentence's words) is split off, counted in
    ``stats.repairs[MISSING_SEPARATOR]`` and warned about in skip mode and with lenient;
    strict reading raises a `ConlluError` at its first line.
    A missing file raises FileNotFoundError ("PATH does not exist").
    """
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    stats = stats if stats is not None else ReadStats()
    path_str = str(path)
    parser = _SentenceParser(path_str, require_heads, allow_multiple_roots)
    yielded = 0
    skipped_before = stats.skipped
    repairs_before = dict(stats.repairs)
    first_error: Optional[ConlluError] = None
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        raise missing_path(path) from None
    split = lenient or on_error == "skip"
    with f:
        for item in _blocks(f, path_str, lenient, stats):
            parts: List[Union[_Block, ConlluError]] = [item]
            if isinstance(item, _Block):
                parts = list(_split_run_on(item))
                if split:
                    for _ in parts[1:]:
                        stats.repair(MISSING_SEPARATOR)
                elif len(parts) > 1:
                    parts = _strict_run_on(parser, item, parts)
            for part in parts:
                if isinstance(part, ConlluError):
                    error = part
                else:
                    try:
                        sentence = parser.parse(part)
                    except ConlluError as e:
                        error = e
                    else:
                        stats.sentences += 1
                        stats.words += len(sentence.words)
                        yielded += 1
                        yield sentence
                        continue
                if on_error == "raise" or isinstance(error, _RepairableError):
                    raise error
                first_error = first_error or error
                stats.record(error)
    skipped = stats.skipped - skipped_before
    repairs = {kind: n - repairs_before.get(kind, 0) for kind, n in stats.repairs.items()
               if n > repairs_before.get(kind, 0)}
    if repairs:
        how = "lenient reading" if lenient else "skip mode"
        warnings.warn(f"{path_str}: repaired {_repairs_text(repairs)} ({how})", stacklevel=2)
    if yielded == 0:
        if first_error is None:
            raise ConlluError(path_str, 1, "empty file: no sentences")
        raise ConlluError(path_str, first_error.line, f"no valid sentence in the file ({skipped} "
                          f"malformed block(s) skipped; first: {first_error.message})")
    if skipped:
        warnings.warn(f"{path_str}: skipped {skipped} malformed sentence(s); " + stats.summary(),
                      stacklevel=2)


# --------------------------------------------------------------------------- lines and paths
# The canonical line order (Sentence.to_conllu, the writers) and the path errors the
# reader and the writers share.

def format_sentence(
    comments: Sequence[str],
    word_rows: Sequence[Sequence[str]],
    mwt_rows: Sequence[Sequence[str]] = (),
    empty_rows: Sequence[Sequence[str]] = (),
) -> str:
    """CoNLL-U text of one sentence, in the canonical order the reader enforces.

    An MWT line comes right before its first word, empty nodes ``n.m`` right after word n
    (``0.m`` before everything); the text ends with the empty separator line.
    """
    mwt_by_first = {int(row[ID].split("-")[0]): row for row in mwt_rows}
    empty_by_after: Dict[int, List[Sequence[str]]] = defaultdict(list)
    for row in empty_rows:
        empty_by_after[int(row[ID].split(".")[0])].append(row)
    lines = list(comments)
    lines.extend("\t".join(row) for row in empty_by_after.get(0, ()))
    for i, row in enumerate(word_rows, 1):
        mwt = mwt_by_first.get(i)
        if mwt is not None:
            lines.append("\t".join(mwt))
        lines.append("\t".join(row))
        lines.extend("\t".join(r) for r in empty_by_after.get(i, ()))
    return "\n".join(lines) + "\n\n"


def missing_path(path: Union[str, Path]) -> FileNotFoundError:
    """The error for a file or directory that does not exist (one wording everywhere)."""
    return FileNotFoundError(f"{path} does not exist")


def same_file(a: Union[str, Path], b: Union[str, Path]) -> bool:
    """Whether two paths name one existing file, through any alias (symlink, hard link,
    `./`, `..`)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False
