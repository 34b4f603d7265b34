"""Small synthetic training data the tests make themselves (no treebank files)."""
import random
from typing import List

import spacy
from spacy.tokens import Doc
from spacy.training import Example

from bruteforce import random_forest

LABELS = ("nsubj", "obj", "det", "amod", "obl")

#: the model of transition_system = "easy_first" (spaCy's default parser tok2vec)
EASY_FIRST_MODEL = {"@architectures": "spacy_dynoracle.EasyFirstModel.v1",
                    "tok2vec": {"@architectures": "spacy.HashEmbedCNN.v2",
                                "pretrained_vectors": None, "width": 96, "depth": 4,
                                "embed_size": 2000, "window_size": 1, "maxout_pieces": 3,
                                "subword_features": True}}


def component_config(**config):
    """A dynoracle_parser config for tests: min_action_freq 1, and easy-first's model when
    the system is easy_first."""
    config.setdefault("min_action_freq", 1)
    if config.get("transition_system") == "easy_first":
        config.setdefault("model", EASY_FIRST_MODEL)
    return config


def tree_words(heads: List[int]) -> List[str]:
    """Words that encode the tree (head offset and depth), so that a parser can learn it."""
    words = []
    for i, h in enumerate(heads):
        words.append("root" if h == i else f"w{max(-3, min(3, h - i))}")
    return words


def make_examples(vocab, n_docs: int, seed: int = 0, kind: str = "projective",
                  sents_per_doc: int = 1, min_len: int = 3, max_len: int = 9) -> List[Example]:
    rng = random.Random(seed)
    examples = []
    for _ in range(n_docs):
        heads, deps, words, starts = [], [], [], []
        for _ in range(sents_per_doc):
            n = rng.randint(min_len, max_len)
            sent = random_forest(n, rng, kind)
            offset = len(heads)
            heads += [h + offset for h in sent]
            deps += ["ROOT" if h == i else LABELS[(h - i) % len(LABELS)] for i, h in enumerate(sent)]
            words += tree_words(sent)
            starts += [True] + [False] * (n - 1)
        gold = Doc(vocab, words=words, heads=heads, deps=deps, sent_starts=starts)
        examples.append(Example(Doc(vocab, words=words), gold))
    return examples


def long_nonprojective_heads(n: int = 300, seed: int = 0, crossings: int = 6) -> List[int]:
    """One sentence of n words shaped like a long treebank sentence: a random projective
    tree with `crossings` words re-attached to a head across another arc (no cycle), so
    that the tree is non-projective in a few places, as real long sentences are."""
    from bruteforce import is_projective, random_projective_tree

    rng = random.Random(seed)
    heads = random_projective_tree(n, rng)
    done = 0
    while done < crossings:
        d = rng.randrange(n)
        h = rng.randrange(n)
        if heads[d] == d or h == d or heads[d] == h:
            continue
        x = h                           # h must not lie in d's subtree
        while heads[x] != x and x != d:
            x = heads[x]
        if x == d:
            continue
        lo, hi = min(h, d), max(h, d)
        if not any(lo < i < hi and not lo <= heads[i] <= hi for i in range(lo + 1, hi)):
            continue                    # the new arc would cross nothing
        heads[d] = h
        done += 1
    assert not is_projective(heads)
    return heads


def train(nlp, examples, epochs=6, seed=0, batch=8, drop=0.0, shuffle=True):
    """Train the pipeline's dynoracle_parser with nlp.update, seeded; returns its loss per
    epoch. shuffle: reshuffle the examples every epoch."""
    random.seed(seed)
    spacy.util.fix_random_seed(seed)
    nlp.initialize(lambda: examples)
    parser = nlp.get_pipe("dynoracle_parser")
    history = []
    for epoch in range(epochs):
        parser.epoch = epoch
        losses = {}
        if shuffle:
            random.shuffle(examples)
        for i in range(0, len(examples), batch):
            nlp.update(examples[i:i + batch], losses=losses, drop=drop)
        history.append(losses["dynoracle_parser"])
    return history


def train_parser(nlp, examples, epochs: int, *, shuffle: bool = False, batch: int = 8):
    """`train` from seed 0 without reshuffling by default; returns nlp."""
    train(nlp, examples, epochs=epochs, seed=0, batch=batch, shuffle=shuffle)
    return nlp
