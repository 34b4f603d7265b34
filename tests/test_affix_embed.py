"""spacy_dynoracle.AffixMultiHashEmbed.v1 (affix_embed.py, affix_hashes.pyx; issue 18 item 3):
its features are the hashes of the lower-cased prefixes and suffixes, computed once per
lexeme; without affixes it is spaCy's MultiHashEmbed; a config switches to it by its
`@architectures` alone, for spaCy's parser and ours; its extra suffixes let a model learn
what a 3-character SUFFIX cannot show; a pipeline with it saves, loads and packages."""
import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.lang.xx import MultiLanguage
from spacy.ml.models.tok2vec import MultiHashEmbed
from spacy.strings import hash_string
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import fix_random_seed, load_config, load_model_from_config
from thinc.api import Config

from package_under_test import env_with_repo
from spacy_dynoracle import load_compiled
from spacy_dynoracle.affix_embed import (ARCHITECTURE, PREFIX_LENGTHS, SUFFIX_LENGTHS, as_multi_hash_embed,
                                         build_affix_multi_hash_embed)

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
AFFIX = ARCHITECTURE
ATTRS = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
ROWS = [5000, 1000, 2500, 2500]
WORDS = ["Házban", "HÁZBAN", "ház", "a", "ÉS", "kertekben", "Rómában", "ab", "házban"]


def embed(**affixes):
    return build_affix_multi_hash_embed(32, ATTRS, ROWS, False, **affixes)


def hash_embeds(model):
    return [node for node in model.walk() if node.name == "hashembed"]


def test_features_are_the_attrs_then_the_hashes_of_the_lower_cased_affixes():
    doc = Doc(MultiLanguage().vocab, words=WORDS)
    model = embed(prefix_lengths=[1, 3], prefix_rows=[10, 10], suffix_lengths=[2, 5], suffix_rows=[10, 10])
    features, = model.layers[0].predict([doc])
    assert features.dtype == numpy.uint64 and features.shape == (len(WORDS), len(ATTRS) + 4)
    numpy.testing.assert_array_equal(features[:, :4], doc.to_array(ATTRS))
    # typed again: a word shorter than the length gives the whole word, as spaCy's SUFFIX does
    for token, row in zip(doc, features):
        text = token.text.lower()
        expected = [text[:1], text[:3], text[-2:], text[-5:]]
        assert row[4:].tolist() == [hash_string(a) for a in expected], token.text
    assert features[0, 4:].tolist() == features[1, 4:].tolist() == features[8, 4:].tolist()
    assert features[2, 7] == hash_string("ház")


def test_a_lexeme_is_computed_once_and_spans_read_their_tokens_rows():
    nlp = MultiLanguage()
    table = load_compiled("affix_hashes").AffixHashes([1, 2], [3])
    words = WORDS + [f"szó{i}" for i in range(100)]       # past the first 64 rows: the table grows
    doc = Doc(nlp.vocab, words=words)
    out = numpy.zeros((len(doc), 5), dtype=numpy.uint64)
    table.fill(doc, 0, len(doc), out, 2)
    assert table.n_rows == len({t.lower for t in doc}) == len(words) - 2   # Házban = HÁZBAN = házban
    assert not out[:, :2].any()                            # the columns before `column` untouched
    again = numpy.zeros_like(out)
    table.fill(doc, 0, len(doc), again, 2)
    assert table.n_rows == len(words) - 2
    numpy.testing.assert_array_equal(again, out)
    span = numpy.zeros((3, 3), dtype=numpy.uint64)
    table.fill(doc, 5, 8, span, 0)
    numpy.testing.assert_array_equal(span, out[5:8, 2:])
    model = embed()
    whole, part = model.layers[0].predict([doc, doc[5:8]])
    numpy.testing.assert_array_equal(part, whole[5:8])
    with pytest.raises(ValueError, match="needs 3 rows"):
        table.fill(doc, 0, 3, numpy.zeros((2, 3), dtype=numpy.uint64), 0)
    with pytest.raises(IndexError):
        table.fill(doc, 0, len(doc) + 1, numpy.zeros((len(doc) + 1, 3), dtype=numpy.uint64), 0)
    # a copy of the model (deepcopy, pickling) starts with an empty table and fills it the same
    copied = copy.deepcopy(model)
    numpy.testing.assert_array_equal(copied.layers[0].predict([doc])[0], whole)


def test_without_affixes_it_is_spacys_multihashembed():
    docs = [Doc(MultiLanguage().vocab, words=WORDS)]
    models = []
    for build in (lambda: MultiHashEmbed(32, ATTRS, ROWS, False),
                  lambda: embed(prefix_lengths=[], prefix_rows=[], suffix_lengths=[], suffix_rows=[])):
        fix_random_seed(0)
        model = build()
        model.initialize(X=docs)
        models.append(model)
    spacy_model, ours = models
    assert [n.attrs["seed"] for n in hash_embeds(ours)] == [n.attrs["seed"] for n in hash_embeds(spacy_model)]
    numpy.testing.assert_array_equal(ours.predict(docs)[0], spacy_model.predict(docs)[0])


def test_each_affix_length_has_its_own_table_and_seed():
    model = embed()
    tables = hash_embeds(model)
    n_affixes = len(PREFIX_LENGTHS) + len(SUFFIX_LENGTHS)
    assert len(tables) == len(ATTRS) + n_affixes
    assert len({t.attrs["seed"] for t in tables}) == len(tables)
    assert [t.attrs["column"] for t in tables] == list(range(len(tables)))
    model.initialize(X=[Doc(MultiLanguage().vocab, words=WORDS)])
    assert [t.get_dim("nV") for t in tables] == ROWS + [1000, 2000, 2500] + [1000, 2000, 2500, 2500, 2500]
    maxout = next(node for node in model.walk() if node.name == "maxout")
    assert maxout.get_dim("nI") == 32 * len(tables) and maxout.get_dim("nO") == 32


@pytest.mark.parametrize("config", ["dynoracle_tagger.cfg", "spacy_parser_tagger.cfg", "dynoracle.cfg",
                                    "spacy_parser.cfg"])
def test_a_config_switches_to_it_by_its_architecture_alone(config):
    """The same --set for spaCy's parser and ours (run_matrix.py): the new keys have defaults."""
    cfg = load_config(CONFIGS / config, overrides={"components.tok2vec.model.embed.@architectures": AFFIX})
    nlp = load_model_from_config(cfg, auto_fill=True, validate=True)
    embed_model = nlp.get_pipe("tok2vec").model.get_ref("embed")
    assert embed_model.layers[0].name == "extract_affix_features"
    assert len(hash_embeds(embed_model)) == len(ATTRS) + len(PREFIX_LENGTHS) + len(SUFFIX_LENGTHS)
    filled = nlp.config["components"]["tok2vec"]["model"]["embed"]
    assert list(filled["suffix_lengths"]) == list(SUFFIX_LENGTHS)
    # the saved config names the defaults it was built with, as lists
    # (read back, not matched as text: confection's list spelling differs between 3.8.x)
    saved = Config().from_str(nlp.config.to_str())["components"]["tok2vec"]["model"]["embed"]
    assert saved["suffix_lengths"] == list(SUFFIX_LENGTHS)


@pytest.mark.parametrize("affixes,message", [
    ({"suffix_lengths": [1, 2], "suffix_rows": [100]}, r"suffix_lengths \[1, 2\] and suffix_rows \[100\]"),
    ({"prefix_lengths": [0], "prefix_rows": [100]}, r"affix lengths must be >= 1, not \[0\]"),
])
def test_bad_affix_settings_name_the_values(affixes, message):
    with pytest.raises(ValueError, match=message):
        embed(**affixes)


# A tagging task only a suffix longer than 3 characters shows: tag A for stems + "abxyz",
# tag B for stems + "cdxyz" (SUFFIX "xyz", PREFIX and SHAPE alike); test words have new stems.
def suffix_examples(vocab, stems, seed):
    rng = numpy.random.default_rng(seed)
    examples = []
    for start in range(0, len(stems), 6):
        words, tags = [], []
        for stem in stems[start:start + 6]:
            tag = rng.integers(2)
            words.append(stem + ("abxyz", "cdxyz")[tag])
            tags.append("AB"[tag])
        examples.append(Example.from_dict(Doc(vocab, words=words), {"tags": tags}))
    return examples


def stems(n, seed):
    rng = numpy.random.default_rng(seed)
    return ["".join(rng.choice(list("efghijklmnopqrstuvw"), size=4)) for _ in range(n)]


def tagger_nlp(architecture, width=32):
    """A tok2vec + tagger pipeline from the tagger config (whose embed is AFFIX), with
    `architecture`'s embed: AFFIX, or the MultiHashEmbed.v2 it extends."""
    cfg = load_config(CONFIGS / "spacy_parser_tagger.cfg", overrides={
        "components.tok2vec.model.encode.width": width, "components.tok2vec.model.encode.depth": 1,
        "nlp.pipeline": ["tok2vec", "tagger"]})
    for name in ("morphologizer", "parser"):
        del cfg["components"][name]
    model = cfg["components"]["tok2vec"]["model"]
    if architecture != AFFIX:
        model["embed"] = as_multi_hash_embed(model["embed"])
    assert model["embed"]["@architectures"] == architecture
    return load_model_from_config(cfg, auto_fill=True, validate=True)


def train_tagger(nlp, examples, epochs):
    fix_random_seed(0)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(epochs):
        for start in range(0, len(examples), 8):
            nlp.update(examples[start:start + 8], sgd=optimizer, drop=0.0)
    return nlp


def tag_accuracy(nlp, examples):
    right = total = 0
    for doc, eg in zip(nlp.pipe(Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples),
                       examples):
        right += sum(t.tag_ == g.tag_ for t, g in zip(doc, eg.reference))
        total += len(doc)
    return right / total


def test_longer_suffixes_tag_words_a_3_character_suffix_cannot():
    accuracy = {}
    for architecture in ("spacy.MultiHashEmbed.v2", AFFIX):
        nlp = tagger_nlp(architecture)
        train_tagger(nlp, suffix_examples(nlp.vocab, stems(240, 1), seed=1), epochs=6)
        accuracy[architecture] = tag_accuracy(nlp, suffix_examples(nlp.vocab, stems(120, 2), seed=2))
    assert accuracy[AFFIX] > 0.95
    assert accuracy["spacy.MultiHashEmbed.v2"] < 0.75, accuracy


BUILD_BACKEND = all(importlib.util.find_spec(m) is not None for m in ("setuptools", "wheel"))


@pytest.mark.skipif(not BUILD_BACKEND, reason="installing the packaged sdist needs setuptools "
                    "and wheel in this environment (pip install wheel)")
def test_a_pipeline_with_it_saves_loads_and_packages(tmp_path):
    nlp = tagger_nlp(AFFIX)
    train_tagger(nlp, suffix_examples(nlp.vocab, stems(60, 3), seed=3), epochs=2)
    nlp.to_disk(tmp_path / "model")
    texts = [" ".join(s + "abxyz" for s in stems(5, 4)), "Házban ház HÁZBAN kertekben"]
    expected = [[t.tag_ for t in doc] for doc in nlp.pipe(texts)]
    assert [[t.tag_ for t in doc] for doc in spacy.load(tmp_path / "model").pipe(texts)] == expected
    show = f"print(json.dumps([[t.tag_ for t in d] for d in nlp.pipe({texts!r})]))\n"
    # a fresh process: the architecture resolves from the saved config's name alone
    out = subprocess.run([sys.executable, "-c", "import json, spacy\n"
                          f"nlp = spacy.load({str(tmp_path / 'model')!r})\n" + show],
                         check=True, capture_output=True, text=True, env=env_with_repo())
    assert json.loads(out.stdout) == expected
    (tmp_path / "out").mkdir()
    subprocess.run([sys.executable, "-m", "spacy", "package", str(tmp_path / "model"), str(tmp_path / "out"),
                    "--name", "affix", "--version", "0.0.1", "--build", "sdist"],
                   check=True, capture_output=True, env=env_with_repo())
    sdist, = (tmp_path / "out").glob("*/dist/*.tar.gz")
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                          "--target", str(tmp_path / "site"), str(sdist)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    out = subprocess.run([sys.executable, "-c", f"import json, sys; sys.path.insert(0, {str(tmp_path / 'site')!r})\n"
                          "import spacy\nnlp = spacy.load('xx_affix')\n" + show],
                         check=True, capture_output=True, text=True, env=env_with_repo())
    assert json.loads(out.stdout) == expected
