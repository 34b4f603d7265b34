"""`spacy_dynoracle.AffixMultiHashEmbed.v1`: spaCy's MultiHashEmbed with hashed prefixes and
suffixes of several lengths (issue 18 item 3: subword features for morphologically rich
languages; UDPipe's MorphoDiTa guesser reads suffixes of several lengths, spaCy's
MultiHashEmbed one 3-character SUFFIX and a 1-character PREFIX).

It takes MultiHashEmbed.v2's arguments and adds the affixes with defaults, so a config
switches to it by changing `@architectures` alone, for spaCy's parser and ours alike:

    [components.tok2vec.model.embed]
    @architectures = "spacy_dynoracle.AffixMultiHashEmbed.v1"
    width = ${components.tok2vec.model.encode.width}
    attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
    rows = [5000, 1000, 2500, 2500]
    include_static_vectors = false
    prefix_lengths = [1, 2, 3]                    # lower-cased, characters
    prefix_rows = [1000, 2000, 2500]
    suffix_lengths = [1, 2, 3, 4, 5]
    suffix_rows = [1000, 2000, 2500, 2500, 2500]

The model is spaCy's own MultiHashEmbed built over attrs + one column per affix length
(each its own HashEmbed with its own seed, all concatenated and mixed by MultiHashEmbed's
Maxout + LayerNorm), whose feature extractor is replaced by one that appends the affix
columns to the attrs' (affix_hashes.pyx: one row per lexeme, computed once). With no affix
lengths it is MultiHashEmbed exactly.
"""
from functools import partial
from typing import List, Sequence, Union

import numpy
from spacy.ml.models.tok2vec import MultiHashEmbed
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model

from . import load_compiled

PREFIX_LENGTHS = [1, 2, 3]           # lists, as a filled config writes them
PREFIX_ROWS = [1000, 2000, 2500]
SUFFIX_LENGTHS = [1, 2, 3, 4, 5]
SUFFIX_ROWS = [1000, 2000, 2500, 2500, 2500]
SPACY_EXTRACTOR = "extract_features"       # spaCy's FeatureExtractor, replaced
AFFIX_EXTRACTOR = "extract_affix_features"  # ours, in its place
ARCHITECTURE, BASE_ARCHITECTURE = "spacy_dynoracle.AffixMultiHashEmbed.v1", "spacy.MultiHashEmbed.v2"
AFFIX_KEYS = ("prefix_lengths", "prefix_rows", "suffix_lengths", "suffix_rows")


def as_multi_hash_embed(block: dict) -> dict:
    """An AffixMultiHashEmbed.v1 config block as the MultiHashEmbed.v2 block it extends: the
    same settings without the affix keys (the baseline the affix embed is measured against,
    now that the tagger configs use it)."""
    if block.get("@architectures") != ARCHITECTURE:
        raise ValueError(f"expected an {ARCHITECTURE} block, not {block.get('@architectures')!r}")
    return {"@architectures": BASE_ARCHITECTURE,
            **{k: v for k, v in block.items() if k != "@architectures" and k not in AFFIX_KEYS}}


@registry.architectures(ARCHITECTURE)
def build_affix_multi_hash_embed(
    width: int,
    attrs: List[Union[str, int]],
    rows: List[int],
    include_static_vectors: bool,
    prefix_lengths: Sequence[int] = PREFIX_LENGTHS,
    prefix_rows: Sequence[int] = PREFIX_ROWS,
    suffix_lengths: Sequence[int] = SUFFIX_LENGTHS,
    suffix_rows: Sequence[int] = SUFFIX_ROWS,
) -> Model:
    """MultiHashEmbed(width, attrs, rows, include_static_vectors) with one more HashEmbed
    per prefix length (prefix_rows[i] rows) and per suffix length (suffix_rows[i] rows)."""
    for kind, lengths, n_rows in (("prefix", prefix_lengths, prefix_rows),
                                  ("suffix", suffix_lengths, suffix_rows)):
        if len(lengths) != len(n_rows):
            raise ValueError(f"AffixMultiHashEmbed.v1: {kind}_lengths {list(lengths)} and "
                             f"{kind}_rows {list(n_rows)} must have the same length")
    affixes = load_compiled("affix_hashes").AffixHashes(prefix_lengths, suffix_lengths)
    columns = list(attrs) + [f"{kind}{n}" for kind, lengths in (("prefix", affixes.prefix_lengths),
                                                                ("suffix", affixes.suffix_lengths))
                             for n in lengths]
    # spaCy builds the tables (seeds 8, 9, ... in column order) and the mixing layer; its
    # extractor, which reads the columns with Doc.to_array, is replaced by ours
    model = MultiHashEmbed(width=width, attrs=columns, rows=list(rows) + list(prefix_rows) + list(suffix_rows),
                           include_static_vectors=include_static_vectors)
    replace_layer(model, SPACY_EXTRACTOR, AffixFeatureExtractor(list(attrs), affixes))
    return model


def AffixFeatureExtractor(attrs: list, affixes) -> Model:
    """Docs (or Spans) -> one uint64 array each: the columns of `attrs` (Doc.to_array, as
    spaCy's FeatureExtractor), then the affix hashes of `affixes` (an AffixHashes)."""
    return Model(AFFIX_EXTRACTOR, partial(affix_features_forward, affixes),
                 attrs={"columns": attrs, "prefix_lengths": list(affixes.prefix_lengths),
                        "suffix_lengths": list(affixes.suffix_lengths)})


def affix_features_forward(affixes, model: Model, docs, is_train: bool):
    columns = model.attrs["columns"]
    features = []
    for doc in docs:
        whole, start, end = (doc, 0, len(doc)) if isinstance(doc, Doc) else (doc.doc, doc.start, doc.end)
        out = numpy.empty((end - start, len(columns) + affixes.width), dtype="uint64")
        if columns:
            out[:, :len(columns)] = whole.to_array(columns).reshape((len(whole), len(columns)))[start:end]
        affixes.fill(whole, start, end, out, len(columns))
        features.append(model.ops.asarray2i(out, dtype="uint64"))
    return features, lambda d_features: []


def replace_layer(model: Model, name: str, layer: Model) -> None:
    """Replace the one node of `model` named `name` with `layer` in its parent's layers."""
    found = [(parent, i) for parent in model.walk() for i, child in enumerate(parent.layers)
             if child.name == name]
    if len(found) != 1:
        raise ValueError(f"expected one {name!r} layer in spaCy's MultiHashEmbed, found {len(found)}: "
                         "this spaCy's MultiHashEmbed is not the one AffixMultiHashEmbed.v1 was written for")
    parent, i = found[0]
    parent.layers[i] = layer
