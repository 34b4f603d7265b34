"""Where does a swap model SWAP, and does it need to? (issue 19: the length-1 deficit)

    python scripts/swap_trace.py --output training/converged_affix --treebank UD_Hungarian-Szeged \
        --runs swap-dynamic-s0,swap-static-lazy-s0 [--split dev] [--train-docs 30]

Each run's model-best parses the split's gold words in Docs of 10 gold sentences, the gold
sentence boundaries preset (as error_analysis.py), by the reference greedy loop of
spacy_dynoracle.testing.python_step_loop (the model's step scores, the best valid class)
stepped here so that every move is seen. At every state the swap system's own dynamic cost
(oracle "dynamic", the costs training reads) and static oracles are asked about the same
state and gold, through the compiled code training uses. Printed (markdown):

* SWAPs per sentence: the model's, the gold trees' under the static oracles (EAGER, LAZY,
  MINIMAL: the moves of their derivations), and LAZY's on the model's own output trees (how
  many swaps the trees it built need at least in the LAZY order);
* the model's SWAPs by the dynamic cost at the state where it took them (zero-cost or
  costly), and whether the LAZY static oracle would have swapped there;
* gold arcs of length 1 (non-root): the share the model gets wrong (head or label), and of
  the wrong and the right ones, how many had the dependent or its gold head moved by a SWAP
  (as s1, sent back, or as s0, moved past s1) before the dependent was attached;
* with --train-docs N, the training side: on the first N training Docs, states reached by
  following the oracle (the best-scoring zero-cost class, as training with follow_oracle)
  and by following the model (exploration), the zero-cost set greedy training uses and the
  share of spaCy's gold distribution (the model's softmax restricted to the zero-cost set,
  cpu_log_loss) and of a uniform one on SWAP, split by whether the LAZY oracle swaps there,
  and how often the static move that target="static" narrows to (static_move under the
  dynamic oracle: the system option static_swaps, EAGER by default) is a SWAP.
"""
import argparse
import json
from pathlib import Path

import numpy

from udproj import PROJECT, split_sources, train_source, treebank_files

from spacy_dynoracle.evaluate import base_label
from spacy_dynoracle.system_base import MOVE_CODES, MOVE_NAMES

SWAP = MOVE_NAMES.index("SWAP")


def load(folder: Path):
    import spacy

    nlp = spacy.load(folder / "model-best")
    parser = nlp.get_pipe("parser")
    if parser.moves.name != "swap":
        raise SystemExit(f"{folder}: not a swap model ({parser.moves.name})")
    if getattr(parser, "nonprojective_penalty", 0.0):
        raise SystemExit(f"{folder}: nonprojective_penalty is set; this loop ignores it")
    if parser.model.attrs.get("feature_template") is not None:
        raise SystemExit(f"{folder}: feature templates are not stepped here")
    return nlp, parser


def gold_docs(nlp, path, select, n_sents=10, n_docs=None):
    """(gold Docs, inputs annotated by the pipeline's components before the parser)."""
    from spacy_dynoracle.conllu_io import sentences_to_docs, words_only_copy
    from spacy_dynoracle.corpus import read_sentences

    sentences = list(read_sentences(path, select=select))
    if n_docs:
        sentences = sentences[:n_docs * n_sents]
    gold = list(sentences_to_docs(nlp.vocab, sentences, n_sents))
    inputs = [words_only_copy(doc, sent_starts=True) for doc in gold]
    return gold, list(nlp.pipe(inputs, disable=["parser"]))


class Oracles:
    """The swap system's oracles on one parser's class table: `moves` switched between
    oracle modes (set_oracle changes only which costs it returns) and golds built once
    per Doc with the MINIMAL sequence attached (attach_oracle)."""

    def __init__(self, parser):
        self.moves = parser.moves
        self.trained_oracle = self.moves.oracle
        self.class_move = [MOVE_CODES.index(self.moves.get_class_name(i).split("-")[0])
                           for i in range(self.moves.n_moves)]
        self.swap_classes = [i for i, m in enumerate(self.class_move) if m == SWAP]

    def gold(self, state, example):
        self.moves.set_oracle("static-minimal")
        gold = self.moves.init_gold(state, example)
        self.moves.set_oracle("dynamic")
        return gold

    def gold_of_heads(self, heads):
        """An unlabelled gold of these heads (a parse's), with the oracle data EAGER and
        LAZY read."""
        from spacy_dynoracle.system_base import DynGold

        gold = DynGold(list(heads), [0] * len(heads))
        self.moves.attach_oracle(gold)
        return gold

    def costs(self, state, gold, training=False):
        """(is_valid, cost) per class under the dynamic cost (training: narrowed as
        step_batch narrows them)."""
        self.moves.set_oracle("dynamic")
        valid, costs = self.moves._sim_class_costs(state, gold, training)
        return numpy.array(valid, dtype=bool), numpy.array(costs)

    def static(self, state, gold, oracle):
        self.moves.set_oracle(oracle)
        move = self.moves._sim_static_move(state, gold)
        self.moves.set_oracle("dynamic")
        return move

    def static_swaps(self, doc_state_factory, gold, oracle):
        """SWAPs of the static oracle's derivation from the initial state."""
        state = doc_state_factory()
        n = 0
        while not state.is_final():
            m = self.static(state, gold, oracle)
            n += m == SWAP
            self.moves._sim_apply(state, self.moves.class_index(m))
        return n

    def restore(self):
        self.moves.set_oracle(self.trained_oracle)


def parse_traced(parser, oracles, preds, golds_by_doc, follow="model", rng=None, p_model=1.0):
    """Greedy parse of `preds` stepped here (testing.python_step_loop's loop, with the
    choice made here). follow="model": the best valid class; "oracle": the best-scoring
    zero-cost class (the training step with follow_oracle), or the model's with probability
    p_model. Returns (the final states, one record per move: (doc index, the state before
    it, its scores, the class taken, validity and dynamic cost per class, the stack's top
    two words, the round of the batch loop: a Doc's moves in order))."""
    moves = parser.moves
    batch = moves.init_batch(preds)
    step_model = parser.model.predict(preds)
    index = {id(s): i for i, s in enumerate(batch)}
    states = [s for s in batch if not s.is_final()]
    step = 0
    records = []
    while states:
        scores = step_model.predict(states)
        for row, state in enumerate(states):
            d = index[id(state)]
            valid, costs = oracles.costs(state, golds_by_doc[d])
            s = scores[row]
            best = int(numpy.argmax(numpy.where(valid, s, -numpy.inf)))
            choice = best
            if follow == "oracle" and (rng is None or rng.random() >= p_model):
                zero = valid & (costs <= 0)
                choice = int(numpy.argmax(numpy.where(zero, s, -numpy.inf)))
            stack = moves._sim_stack(state)
            records.append((d, state.copy(), numpy.array(s), choice, valid, costs,
                            stack[-2:], step))
            moves._sim_apply(state, choice)
        states = [s for s in states if not s.is_final()]
        step += 1
    step_model.clear_memory()
    return batch, records


def analyse_run(folder: Path, split: str, gold_cache: dict):
    from spacy.pipeline._parser_internals.stateclass import StateClass
    from spacy.training import Example

    info = json.loads((folder / "run.json").read_text())
    nlp, parser = load(folder)
    oracles = Oracles(parser)
    path, select = split_sources(treebank_files(info["treebank"]))[split]
    gold, preds = gold_docs(nlp, path, select)
    examples = [Example(p, g) for p, g in zip(preds, gold)]
    golds = [oracles.gold(st, eg) for st, eg in zip(parser.moves.init_batch(preds), examples)]
    n_sents = sum(len(list(g.sents)) for g in gold)
    out = {"run": folder.name, "oracle": info["oracle"], "sentences": n_sents,
           "words": sum(len(g) for g in gold)}
    key = (info["treebank"], split)
    if key not in gold_cache:
        counts = {}
        for oracle in ("static-eager", "static-lazy", "static-minimal"):
            counts[oracle] = sum(
                oracles.static_swaps(lambda p=p: parser.moves.init_batch([p])[0], g, oracle)
                for p, g in zip(preds, golds))
        gold_cache[key] = counts
    out["gold_swaps"] = gold_cache[key]

    batch, records = parse_traced(parser, oracles, preds, golds)
    # the stepped loop must make the parse the pipeline makes (its C loop, parser.predict)
    out["matches_pipeline"] = all(
        parser.moves._sim_heads(a) == parser.moves._sim_heads(b)
        and sorted((x["child"], x["label"]) for x in a.arcs) == sorted((x["child"], x["label"]) for x in b.arcs)
        for a, b in zip(batch, parser.predict(preds)))
    if not out["matches_pipeline"]:
        raise SystemExit(f"{folder}: the stepped parse differs from the pipeline's")
    # per Doc: the step each word got its head, the SWAPs each word took part in
    attached = [dict() for _ in preds]
    swapped_at = [dict() for _ in preds]
    doc_swaps = [[] for _ in preds]     # (step, s0) of each SWAP
    swaps = {"zero": 0, "costly": 0, "zero_lazy_swaps": 0, "zero_lazy_not": 0,
             "costly_lazy_swaps": 0, "costly_lazy_not": 0}
    for d, state, s, choice, valid, costs, top, step in records:
        move = oracles.class_move[choice]
        if move == SWAP:
            lazy = oracles.static(state, golds[d], "static-lazy") == SWAP
            kind = "zero" if costs[choice] <= 0 else "costly"
            swaps[kind] += 1
            swaps[f"{kind}_lazy_{'swaps' if lazy else 'not'}"] += 1
            for w in top:
                swapped_at[d].setdefault(w, []).append(step)
            doc_swaps[d].append((step, top[-1]))
        before = set(i for i, h in enumerate(parser.moves._sim_heads(state)) if h >= 0)
        after_state = state.copy()
        parser.moves._sim_apply(after_state, choice)
        for i, h in enumerate(parser.moves._sim_heads(after_state)):
            if h >= 0 and i not in before:
                attached[d][i] = step
    out["swaps"] = swaps
    out["model_swaps"] = swaps["zero"] + swaps["costly"]
    # LAZY's swaps on the model's own output trees
    own = 0
    for d, state in enumerate(batch):
        heads = parser.moves._sim_heads(state)
        g = oracles.gold_of_heads(heads)
        own += oracles.static_swaps(lambda p=preds[d]: parser.moves.init_batch([p])[0], g,
                                    "static-lazy")
    out["own_tree_lazy_swaps"] = own
    # gold arcs of length 1
    parser.moves.set_oracle("dynamic")
    # [n, dependent or gold head in a SWAP before the attachment, a SWAP in the sentence
    # before it]
    l1 = {"right": [0, 0, 0], "wrong": [0, 0, 0], "wrong_head": [0, 0, 0]}
    for d, (g, state) in enumerate(zip(gold, batch)):
        heads = parser.moves._sim_heads(state)
        labels = {a["child"]: a["label"] for a in state.arcs}
        for tok in g:
            h = tok.head.i
            if h == tok.i or abs(h - tok.i) != 1:
                continue
            label_ok = tok.i in labels and \
                base_label(nlp.vocab.strings[labels[tok.i]]) == base_label(tok.dep_)
            right = heads[tok.i] == h and label_ok
            at = attached[d].get(tok.i, 10 ** 9)
            touched = any(step < at for w in (tok.i, h) for step in swapped_at[d].get(w, ()))
            sent = tok.sent
            in_sentence = any(step < at and sent.start <= w < sent.end for step, w in doc_swaps[d])
            wrong_head = heads[tok.i] != h
            for bucket in (["right"] if right else ["wrong"] + (["wrong_head"] if wrong_head else [])):
                l1[bucket][0] += 1
                l1[bucket][1] += touched
                l1[bucket][2] += in_sentence
    out["length1"] = l1
    oracles.restore()
    return out


def train_side(folder: Path, n_docs: int, seed=0):
    """Zero-cost sets along oracle-following and model-following walks on training Docs."""
    from spacy.training import Example

    info = json.loads((folder / "run.json").read_text())
    nlp, parser = load(folder)
    oracles = Oracles(parser)
    path, select = train_source(treebank_files(info["treebank"]))
    gold, preds = gold_docs(nlp, path, select, n_docs=n_docs)
    examples = [Example(p, g) for p, g in zip(preds, gold)]
    golds = [oracles.gold(st, eg) for st, eg in zip(parser.moves.init_batch(preds), examples)]
    rng = numpy.random.default_rng(seed)
    out = {}
    for follow, p_model in (("oracle", 0.0), ("explore", 0.5)):
        _, records = parse_traced(parser, oracles, preds, golds, follow="oracle", rng=rng,
                                  p_model=p_model)
        acc = {k: 0.0 for k in ("states", "swap_zero", "swap_zero_lazy_not", "lazy_not_states",
                                "mass_lazy_not", "uniform_lazy_not", "mass_lazy_swaps",
                                "lazy_swaps_states", "other_zero_with_swap",
                                "swap_only_zero", "static_move_swaps",
                                "static_move_swaps_lazy_not", "static_move_swaps_zero")}
        for d, state, s, choice, valid, _, top, step in records:
            valid, costs = oracles.costs(state, golds[d], training=True)
            zero = valid & (costs <= 0)
            lazy_swaps = oracles.static(state, golds[d], "static-lazy") == SWAP
            swap_zero = bool(zero[oracles.swap_classes].any())
            # the static move target="static" narrows to under the dynamic oracle (the
            # system option static_swaps: EAGER's rule by default)
            target_swaps = oracles.static(state, golds[d], "dynamic") == SWAP
            acc["static_move_swaps"] += target_swaps
            acc["static_move_swaps_lazy_not"] += target_swaps and not lazy_swaps
            acc["static_move_swaps_zero"] += target_swaps and swap_zero
            p = numpy.exp(s - s[valid].max()) * zero
            mass = p[oracles.swap_classes].sum() / p.sum()
            uniform = zero[oracles.swap_classes].sum() / zero.sum()
            acc["states"] += 1
            acc["swap_zero"] += swap_zero
            if swap_zero:
                acc["other_zero_with_swap"] += zero.sum() > zero[oracles.swap_classes].sum()
                acc["swap_only_zero"] += zero.sum() == zero[oracles.swap_classes].sum()
            if lazy_swaps:
                acc["lazy_swaps_states"] += 1
                acc["mass_lazy_swaps"] += mass
            else:
                acc["lazy_not_states"] += 1
                acc["swap_zero_lazy_not"] += swap_zero
                acc["mass_lazy_not"] += mass
                acc["uniform_lazy_not"] += uniform
        out[follow] = acc
    oracles.restore()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--output", type=Path, default=PROJECT / "training" / "converged_affix")
    ap.add_argument("--treebank", required=True)
    ap.add_argument("--pipeline", default="tagger")
    ap.add_argument("--runs", required=True, help="comma-separated run folders")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--train-docs", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args(argv)
    cache, results = {}, []
    for run in args.runs.split(","):
        folder = args.output / args.treebank / args.pipeline / run
        res = analyse_run(folder, args.split, cache)
        if args.train_docs:
            res["train"] = train_side(folder, args.train_docs)
        results.append(res)
        print(json.dumps(res, default=float), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
