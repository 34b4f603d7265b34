"""`spacy train --code` file of the biaffine peer, imported inside its virtual environment
(spaCy 3.7, spacy-experimental 0.6.4, torch; scripts/biaffine.py makes it).

It registers the package's CoNLL-U reader, `spacy_dynoracle.ConlluCorpus.v1`, from this
repo's source tree: that reader and the modules it imports are pure Python and never load
the package's compiled extensions (built against spaCy 3.8), so the biaffine parser trains
on the same sentences, in the same Docs of `n_sents` sentences, as every other run. And it
gives torch one thread, as the other runs' numpy/blis use one, so that train CPU seconds
compare.
"""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import spacy.util  # noqa: E402
import spacy_dynoracle.corpus  # noqa: E402,F401  (registers spacy_dynoracle.ConlluCorpus.v1)
import torch  # noqa: E402

torch.set_num_threads(1)


@spacy.util.registry.callbacks("spacy_dynoracle_ud.root_label_string.v1")
def make_root_label_string():
    """[initialize] before_init of configs/biaffine_tagger.cfg: puts "ROOT" in the StringStore.
    The arc predicter and labeler label root words with the hash of "ROOT" without adding the
    string, so spaCy's parser scorer (and Token.dep_) could not read it back: E018 at the first
    dev evaluation."""
    def add_root_label(nlp):
        nlp.vocab.strings.add("ROOT")
        return nlp

    return add_root_label
