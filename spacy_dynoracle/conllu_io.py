"""CoNLL-U (Universal Dependencies) in and out: the one import place for callers.

The work is done in three modules, re-exported here so that
`from spacy_dynoracle.conllu_io import ...` keeps working:

* `conllu_read`: the data model (`Sentence`, `Word`, `MultiwordToken`, `EmptyNode`,
  `ReadStats`, `ConlluError`, the column indices) and the strict reader `read_conllu`;
* `conllu_docs`: sentences as spaCy Docs (`sentences_to_docs`, `sentence_groups`,
  `words_only_copy`, `USER_DATA_KEY`);
* `conllu_write`: writing sentences (`write_sentences`) and Docs (`write_conllu`,
  `doc_to_conllu`) back, with the source lines a Doc keeps.

The rules are in ``docs/ud_io.md``. Pure Python; imports nothing compiled from this package.
"""
from .conllu_docs import USER_DATA_KEY, sentence_groups, sentences_to_docs, words_only_copy
from .conllu_read import (BOM, COLUMNS, CRLF, DEPREL, DEPS, FEATS, FORM, HEAD, ID, LEMMA,
                          MAX_REPORTED_ERRORS, MISC, MISSING_SEPARATOR, NO_FINAL_EMPTY_LINE,
                          REPAIRS, UPOS, UPOS_TAGS, XPOS, ConlluError, EmptyNode, MultiwordToken,
                          ReadStats, Sentence, Word, format_sentence, missing_path, read_conllu,
                          same_file)
from .conllu_write import REPLACEABLE, _open_for_writing, doc_to_conllu, write_conllu, write_sentences

__all__ = [
    "BOM", "COLUMNS", "CRLF", "DEPREL", "DEPS", "FEATS", "FORM", "HEAD", "ID", "LEMMA",
    "MAX_REPORTED_ERRORS", "MISC", "MISSING_SEPARATOR", "NO_FINAL_EMPTY_LINE", "REPAIRS",
    "REPLACEABLE", "UPOS", "UPOS_TAGS", "USER_DATA_KEY", "XPOS", "ConlluError", "EmptyNode",
    "MultiwordToken", "ReadStats", "Sentence", "Word", "doc_to_conllu", "format_sentence",
    "missing_path", "read_conllu", "same_file", "sentence_groups", "sentences_to_docs",
    "words_only_copy", "write_conllu", "write_sentences",
]
