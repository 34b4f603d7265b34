"""CoNLL-U sentences as spaCy Docs: `sentences_to_docs` (with the source record that
`conllu_write.write_conllu` writes back, docs/ud_io.md), `sentence_groups` and
`words_only_copy` (the input a parser sees).

Pure Python; imports spaCy only inside the functions and nothing compiled from this package.
"""
from __future__ import annotations

from typing import Iterable, Iterator, List

from .conllu_read import Sentence

# Key of the dict that `sentences_to_docs` stores in `Doc.user_data` and `write_conllu`
# reads back: the original columns, comments, MWT lines and empty nodes per sentence.
USER_DATA_KEY = "spacy_dynoracle.conllu"

def _none_if_underscore(value: str) -> str:
    return "" if value == "_" else value


def sentences_to_docs(vocab, sentences: Iterable[Sentence], n_sents: int = 10, *, keep_source: bool = True):
    """Group sentences into spaCy Docs of `n_sents` sentences each (the last may be shorter).

    Tokens are the syntactic words; `whitespace_` comes from ``SpaceAfter=No`` (on the MWT
    line for multiword tokens, so the words of an MWT are glued and ``doc.text`` is the
    concatenation of word forms, not the surface text). Heads are absolute with a root
    pointing to itself; `dep_` keeps the UD label unchanged (``root``, ``nsubj:pass``);
    `pos_` = UPOS, `tag_` = XPOS, `morph` = FEATS, `lemma_` = LEMMA ('_' = unset).
    Sentence starts follow the trees (or are set directly for unparsed sentences, which
    never share a Doc with parsed ones, so a Doc is either fully parsed or not at all).
    With keep_source, ``doc.user_data[USER_DATA_KEY]`` holds what `write_conllu` needs to
    write the original lines back (see `docs/ud_io.md`).
    """
    from spacy.tokens import Doc

    for group in sentence_groups(sentences, n_sents):
        yield _make_doc(Doc, vocab, group, keep_source)


def sentence_groups(sentences: Iterable[Sentence], n_sents: int = 10) -> Iterator[List[Sentence]]:
    """The sentences of each Doc `sentences_to_docs` makes: `n_sents` at a time, and a new
    group wherever parsed and unparsed sentences meet (so shards cut between groups give
    the same Docs as the whole file)."""
    if n_sents < 1:
        raise ValueError(f"n_sents must be >= 1, not {n_sents}")
    chunk: List[Sentence] = []
    for sentence in sentences:
        # A Doc is parsed or not as a whole: an unparsed sentence starts a new Doc.
        if chunk and sentence.is_parsed != chunk[0].is_parsed:
            yield chunk
            chunk = []
        chunk.append(sentence)
        if len(chunk) == n_sents:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _make_doc(Doc, vocab, sentences: List[Sentence], keep_source: bool):
    words: List[str] = []
    spaces: List[bool] = []
    heads: List[int] = []
    deps: List[str] = []
    pos: List[str] = []
    tags: List[str] = []
    morphs: List[str] = []
    lemmas: List[str] = []
    sent_starts: List[bool] = []
    parsed = sentences[0].is_parsed  # the same for all (see sentences_to_docs)
    records = []
    for sentence in sentences:
        offset = len(words)
        spaces.extend(sentence.spaces())
        for w in sentence.words:
            words.append(w.form)
            if parsed:
                heads.append(offset + w.id - 1 if w.head == 0 else offset + w.head - 1)  # type: ignore[operator]
                deps.append(w.deprel)
            pos.append(_none_if_underscore(w.upos))
            tags.append(_none_if_underscore(w.xpos))
            morphs.append(_none_if_underscore(w.feats))
            # LEMMA "_" of the word "_" is the lemma "_", not a missing value.
            lemmas.append(w.lemma if w.lemma != "_" or w.form == "_" else "")
            sent_starts.append(w.id == 1)
        if keep_source:
            records.append({
                "start": offset,
                "line": sentence.line,
                "comments": list(sentence.comments),
                "words": [w.columns() for w in sentence.words],
                "mwt": [list(m.columns) for m in sentence.multiword_tokens],
                "empty": [list(e.columns) for e in sentence.empty_nodes],
            })
    doc = Doc(
        vocab,
        words=words,
        spaces=spaces,
        heads=heads if parsed else None,
        deps=deps if parsed else None,
        pos=pos,
        tags=tags,
        morphs=morphs,
        lemmas=lemmas,
        # Heads define the sentences of parsed Docs; setting both is redundant.
        sent_starts=None if parsed else sent_starts,
    )
    if keep_source:
        doc.user_data[USER_DATA_KEY] = {"path": sentences[0].path, "sentences": records}
    return doc


def words_only_copy(doc, *, sent_starts: bool = False, keep_source: bool = False):
    """A Doc with the same words and spaces and nothing else: the input a parser sees.

    sent_starts: also copy the sentence boundaries (fixing them: every token is marked as
        a sentence start or not). keep_source: copy the CoNLL-U source record so that
        `write_conllu` can write the original columns of the parsed copy.
    """
    from spacy.tokens import Doc

    starts = None
    if sent_starts:
        starts = [False] * len(doc)
        for sent in doc.sents:
            starts[sent.start] = True
    copy = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               sent_starts=starts)
    if keep_source and USER_DATA_KEY in doc.user_data:
        copy.user_data[USER_DATA_KEY] = doc.user_data[USER_DATA_KEY]
    return copy
