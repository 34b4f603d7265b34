"""Helpers shared by the conllu/eval/cli tests: small CoNLL-U texts (written to tmp_path by
the tests), random treebanks and perturbed copies, a tiny trained stock parser, and an
exhaustive search for Attardi coverage."""
import random
from functools import lru_cache

# Multiword tokens (with SpaceAfter=No on an MWT line), an empty node with enhanced DEPS,
# comments, non-ASCII text in several scripts, a label with a subtype.
MWT_AND_EMPTY = """\
# newdoc id = d1
# sent_id = s1
# text = Vámonos al mar.
1-2	Vámonos	_	_	_	_	_	_	_	_
1	Vamos	ir	VERB	_	Mood=Imp|Number=Plur|Person=1	0	root	0:root	_
2	nos	nosotros	PRON	_	Case=Acc|Number=Plur|Person=1	1	obj	1:obj	_
3-4	al	_	_	_	_	_	_	_	SpaceAfter=No
3	a	a	ADP	_	_	5	case	5:case	_
4	el	el	DET	_	Definite=Def	5	det	5:det	_
5	mar	mar	NOUN	_	Gender=Masc	1	obl:arg	1:obl	SpaceAfter=No
6	.	.	PUNCT	_	_	1	punct	1:punct	_

# sent_id = s2
# text = Ἐν ἀρχῇ ἦν 😀 東京
1	Ἐν	ἐν	ADP	_	_	2	case	2:case	_
2	ἀρχῇ	ἀρχή	NOUN	_	Case=Dat	3	obl	3:obl	_
2.1	ἦν	εἰμί	VERB	_	_	_	_	3:conj	_
3	ἦν	εἰμί	AUX	_	_	0	root	0:root	_
4	😀	😀	SYM	_	_	3	discourse	3:discourse	_
5	東京	東京	PROPN	_	_	3	nsubj	3:nsubj	SpaceAfter=No

"""

# "A hearing is scheduled on the issue today ." — the arc hearing -> issue is
# non-projective (it spans "is scheduled", which do not descend from "hearing").
NONPROJ = """\
# sent_id = np1
# text = A hearing is scheduled on the issue today.
1	A	a	DET	DT	_	2	det	_	_
2	hearing	hearing	NOUN	NN	_	4	nsubj:pass	_	_
3	is	be	AUX	VBZ	_	4	aux:pass	_	_
4	scheduled	schedule	VERB	VBN	_	0	root	_	_
5	on	on	ADP	IN	_	7	case	_	_
6	the	the	DET	DT	_	7	det	_	_
7	issue	issue	NOUN	NN	_	2	nmod	_	_
8	today	today	NOUN	NN	_	4	obl:tmod	_	SpaceAfter=No
9	.	.	PUNCT	.	_	4	punct	_	_

# sent_id = p1
# text = Dogs bark loudly.
1	Dogs	dog	NOUN	NNS	_	2	nsubj	_	_
2	bark	bark	VERB	VBP	_	0	root	_	_
3	loudly	loudly	ADV	RB	_	2	advmod	_	SpaceAfter=No
4	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = np2
# text = Who did you say it was written by?
1	Who	who	PRON	WP	_	7	obl	_	_
2	did	do	AUX	VBD	_	4	aux	_	_
3	you	you	PRON	PRP	_	4	nsubj	_	_
4	say	say	VERB	VB	_	0	root	_	_
5	it	it	PRON	PRP	_	7	nsubj:pass	_	_
6	was	be	AUX	VBD	_	7	aux:pass	_	_
7	written	write	VERB	VBN	_	4	ccomp	_	_
8	by	by	ADP	IN	_	1	case	_	SpaceAfter=No
9	?	?	PUNCT	.	_	4	punct	_	_

"""


def unparsed(text):
    """The text with HEAD and DEPREL of every word line blanked (parser input)."""
    lines = []
    for line in text.split("\n"):
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            cols[6] = cols[7] = "_"
        lines.append("\t".join(cols))
    return "\n".join(lines)


def write(tmp_path, text, name="sample.conllu"):
    """Write `text` (str: UTF-8, no newline translation; bytes: as is) and return the path."""
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def random_tree_heads(r, n):
    """Heads of a random tree over words 1..n (heads[0] unused, 0 = the root): words in a
    random order, each attached to one placed before it (often non-projective)."""
    order = list(range(1, n + 1))
    r.shuffle(order)
    heads = [0] * (n + 1)
    for i, word in enumerate(order[1:], 1):
        heads[word] = r.choice(order[:i])
    return heads


def random_treebank(seed, n_sents=30, labels=("nsubj", "nsubj:pass", "obj", "obl", "obl:tmod", "det", "case",
                                                "punct", "advmod", "aux", "cc", "conj", "nmod")):
    """CoNLL-U text of random (often non-projective) trees with UD-like labels."""
    r = random.Random(seed)
    blocks = []
    for k in range(n_sents):
        n = r.randint(1, 12)
        heads = random_tree_heads(r, n)
        lines = [f"# sent_id = r{k}"]
        for i in range(1, n + 1):
            label = "root" if heads[i] == 0 else r.choice(labels)
            misc = "SpaceAfter=No" if r.random() < 0.2 else "_"
            lines.append(f"{i}\tw{k}x{i}\t_\tX\t_\t_\t{heads[i]}\t{label}\t_\t{misc}")
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)


def perturb_treebank(text, seed, p_head=0.3, p_label=0.3):
    """A copy with random re-attachments (still trees), relabellings and "ROOT" roots."""
    r = random.Random(seed)
    out = []
    for block in text.split("\n\n")[:-1]:
        lines = block.split("\n")
        comments = [line for line in lines if line.startswith("#")]
        rows = [line.split("\t") for line in lines if not line.startswith("#")]
        heads = [0] + [int(row[6]) for row in rows]

        def descends(k, h):
            while k != 0:
                if k == h:
                    return True
                k = heads[k]
            return False

        for i, row in enumerate(rows, 1):
            if heads[i] != 0 and r.random() < p_head:
                options = [h for h in range(1, len(rows) + 1) if h != i and not descends(h, i)]
                heads[i] = r.choice(options)
                row[6] = str(heads[i])
            if r.random() < p_label:
                if heads[i] == 0:
                    row[7] = r.choice(["root", "ROOT", "Root"])
                else:
                    row[7] = r.choice(["nsubj", "nsubj:pass", "obj", "punct", "det", "advmod", "obl:npmod", "xcomp"])
        out.append("\n".join(comments + ["\t".join(row) for row in rows]) + "\n\n")
    return "".join(out)


# Tiny widths: the pipelines below train in seconds.
TINY_TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 16,
                "depth": 1, "embed_size": 500, "window_size": 1, "maxout_pieces": 2, "subword_features": True}
TINY_PARSER_MODEL = {"@architectures": "spacy.TransitionBasedParser.v2", "state_type": "parser",
                     "extra_state_tokens": False, "hidden_width": 16, "maxout_pieces": 2, "use_upper": True,
                     "nO": None, "tok2vec": TINY_TOK2VEC}


def _trained(nlp, train_path, iterations):
    """`nlp` initialized and updated `iterations` times on the gold trees of train_path
    (two sentences per Doc)."""
    from spacy.training import Example

    from spacy_dynoracle.conllu_io import read_conllu, sentences_to_docs, words_only_copy

    docs = list(sentences_to_docs(nlp.vocab, read_conllu(train_path), n_sents=2, keep_source=False))
    examples = [Example(words_only_copy(doc), doc) for doc in docs]
    nlp.initialize(lambda: examples)
    r = random.Random(0)
    for _ in range(iterations):
        r.shuffle(examples)
        nlp.update(examples)
    return nlp


def tiny_parser(train_path, iterations=10):
    """spaCy's stock `parser` trained for a few updates: a real pipeline that outputs `ROOT`."""
    import spacy

    nlp = spacy.blank("xx")
    # min_action_freq=1: with spaCy's default (30) a corpus this small loses every label
    # and spaCy's parser fails with E1031 (no gold transition), whatever the reader does.
    nlp.add_pipe("parser", config={"model": TINY_PARSER_MODEL, "min_action_freq": 1})
    return _trained(nlp, train_path, iterations)


def tiny_dynoracle_parser(train_path, iterations=10, system="arc_hybrid", **cfg):
    """A dynoracle_parser (spaCy's parser model, tiny widths) trained for a few updates."""
    import spacy

    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", name="parser", config={
        "model": TINY_PARSER_MODEL, "transition_system": system, "min_action_freq": 1, **cfg})
    return _trained(nlp, train_path, iterations)


def tiny_window_parser(train_path, iterations=10, system="arc_hybrid", **cfg):
    """A dynoracle_parser with the window model (spacy_dynoracle.WindowParserModel.v1),
    trained for a few updates: a pipeline that can give arc marginals (docs/tabulation.md)."""
    import spacy

    nlp = spacy.blank("xx")
    model = {"@architectures": "spacy_dynoracle.WindowParserModel.v1", "hidden_width": 16,
             "maxout_pieces": 2, "tok2vec": TINY_TOK2VEC}
    nlp.add_pipe("dynoracle_parser", name="parser", config={
        "model": model, "transition_system": system, "min_action_freq": 1, "explore_after_epochs": 0,
        **cfg})
    return _trained(nlp, train_path, iterations)


def attardi_exhaustive(heads, degree):
    """Search every gold-arc-only transition sequence of Attardi's system."""
    n = len(heads)

    @lru_cache(maxsize=None)
    def reachable(stack, nxt):
        if nxt > n and stack == (0,):
            return True
        if nxt <= n and reachable(stack + (nxt,), nxt + 1):
            return True
        top = stack[-1]
        for k in range(1, min(degree, len(stack) - 1) + 1):
            below = stack[-1 - k]
            if heads[top - 1] == below and reachable(stack[:-1], nxt):  # RA_k
                return True
            if below != 0 and heads[below - 1] == top and reachable(stack[:-1 - k] + stack[-k:], nxt):  # LA_k
                return True
        return False

    return reachable((0,), 1)
