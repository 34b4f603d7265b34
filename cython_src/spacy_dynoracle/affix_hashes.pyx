# cython: language_level=3, boundscheck=False, wraparound=False
"""AffixHashes: the hashed prefixes and suffixes of several lengths that
spacy_dynoracle.AffixMultiHashEmbed.v1 (affix_embed.py) embeds, one row per lexeme.

A token's affixes depend on its lexeme only, so they are computed once per lexeme, from
its lower-cased text, and kept in a row keyed by the lexeme's LOWER id; the training and
parsing steps then read a token's row with one map lookup and a copy, without the GIL.
A LOWER id is the StringStore hash of the lower-cased text, so a row is the same in every
vocab that holds the lexeme: the table of one model serves its pipeline's vocab and is never
saved (a loaded model fills it again as it meets the lexemes).
"""
from libc.stdint cimport uint64_t
from preshed.maps cimport PreshMap
from spacy.strings cimport hash_string
from spacy.tokens.doc cimport Doc
from spacy.typedefs cimport attr_t

import numpy


cdef class AffixHashes:
    """Rows of affix hashes, one column per prefix length then one per suffix length: the
    StringStore hash of the first (last) n characters of the lower-cased text, or of the
    whole text where it is shorter than n (spaCy's PREFIX and SUFFIX clip the same way)."""
    cdef PreshMap rows            # LOWER id -> 1 + the lexeme's row of `table`
    cdef uint64_t[:, ::1] table
    cdef readonly int n_rows
    cdef readonly tuple prefix_lengths
    cdef readonly tuple suffix_lengths

    def __init__(self, prefix_lengths, suffix_lengths):
        self.prefix_lengths = tuple(int(n) for n in prefix_lengths)
        self.suffix_lengths = tuple(int(n) for n in suffix_lengths)
        bad = [n for n in self.prefix_lengths + self.suffix_lengths if n < 1]
        if bad:
            raise ValueError(f"affix lengths must be >= 1, not {bad}")
        self.rows = PreshMap()
        self.table = numpy.zeros((64, self.width), dtype=numpy.uint64)
        self.n_rows = 0

    def __reduce__(self):
        # a copy (copy.deepcopy of a model, pickling) starts empty: rows are recomputed
        return (AffixHashes, (self.prefix_lengths, self.suffix_lengths))

    @property
    def width(self):
        """Columns of a row: one per prefix length, then one per suffix length."""
        return len(self.prefix_lengths) + len(self.suffix_lengths)

    def affixes(self, str text):
        """The affix strings of `text` (lower-cased here), in column order."""
        lower = text.lower()
        return ([lower[:n] for n in self.prefix_lengths]
                + [lower[len(lower) - n:] if n < len(lower) else lower for n in self.suffix_lengths])

    cdef int _add(self, attr_t lower, str text) except -1:
        """Append the row of the lexeme whose LOWER id is `lower` and text `text`."""
        cdef int j
        if self.n_rows == self.table.shape[0]:
            grown = numpy.zeros((2 * self.table.shape[0], self.width), dtype=numpy.uint64)
            grown[:self.n_rows] = self.table
            self.table = grown
        for j, affix in enumerate(self.affixes(text)):
            self.table[self.n_rows, j] = hash_string(affix) if affix else 0
        self.n_rows += 1
        self.rows.set(lower, <void*><size_t>self.n_rows)
        return self.n_rows

    def fill(self, Doc doc, int start, int end, uint64_t[:, ::1] out, int column):
        """Write the rows of tokens start..end-1 of `doc` into out[:, column:column + width]:
        the first time a lexeme is met its row is computed (Python, once), then rows are
        copied without the GIL."""
        cdef int i, j, width = self.width
        cdef attr_t lower
        if not 0 <= start <= end <= doc.length:
            raise IndexError(f"tokens {start}..{end} of a Doc of {doc.length}")
        if out.shape[0] != end - start or out.shape[1] < column + width or column < 0:
            raise ValueError(f"out has shape {(out.shape[0], out.shape[1])}: needs "
                             f"{end - start} rows and columns {column}..{column + width - 1}")
        for i in range(start, end):
            lower = doc.c[i].lex.lower
            if self.rows.get(lower) == NULL:
                self._add(lower, doc.vocab.strings[lower])
        cdef uint64_t[:, ::1] table = self.table
        cdef PreshMap rows = self.rows
        cdef size_t row
        with nogil:
            for i in range(start, end):
                row = <size_t>rows.get(doc.c[i].lex.lower) - 1
                for j in range(width):
                    out[i - start, column + j] = table[row, j]
