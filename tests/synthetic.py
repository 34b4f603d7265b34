"""Small synthetic training data the tests make themselves (no treebank files)."""
import random
from typing import List

from spacy.tokens import Doc
from spacy.training import Example

from bruteforce import random_forest

LABELS = ("nsubj", "obj", "det", "amod", "obl")


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
