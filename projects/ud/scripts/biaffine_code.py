"""`spacy train --code` file of the biaffine peer, imported inside its virtual environment
(spaCy 3.7, spacy-experimental 0.6.4, torch; scripts/biaffine.py makes it).

It registers the package's CoNLL-U reader, `spacy_dynoracle.ConlluCorpus.v1`, from this
repo's source tree: that reader and the modules it imports are pure Python and never load
the package's compiled extensions (built against spaCy 3.8), so the biaffine parser trains
on the same sentences, in the same Docs of `n_sents` sentences, as every other run. And it
gives torch one thread, as the other runs' numpy/blis use one, so that train CPU seconds
compare.

It also registers the affix embed, `spacy_dynoracle.AffixMultiHashEmbed.v1` (affix_embed.py,
the tagger configs' embed), with the venv's own build of its compiled module: biaffine.py
builds affix_hashes.pyx against the venv's spaCy into the venv (`--make-venv`), and that
directory goes first on `spacy_dynoracle.__path__`, so `load_compiled("affix_hashes")` finds
that build and its _build_info.py. Only that module is built there: the package's parser
modules (built against spaCy 3.8) must not be loaded in the venv.
"""
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parents[2]
for path in (REPO, SCRIPTS):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import spacy.util  # noqa: E402
import spacy_dynoracle  # noqa: E402
from biaffine import affix_build_dir  # noqa: E402

# absent outside the venv (the tests run the --parse child with this python): there the
# package's own build serves
AFFIX_BUILD = affix_build_dir(sys.prefix)
if AFFIX_BUILD.is_dir():
    spacy_dynoracle.__path__.insert(0, str(AFFIX_BUILD))

import spacy_dynoracle.affix_embed  # noqa: E402,F401  (registers spacy_dynoracle.AffixMultiHashEmbed.v1)
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
