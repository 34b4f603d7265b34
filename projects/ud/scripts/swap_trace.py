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

The machinery (the stepped parse, the oracles, the training walks) is nonproj_trace.py's,
which traces every system with non-projective moves; this script gives its numbers swap's
names (LAZY is swap's reference static oracle there) and adds the length-1 analysis.
"""
from pathlib import Path

import nonproj_trace as npt

from spacy_dynoracle.evaluate import base_label

# nonproj_trace's names -> this script's (its JSON and docs/systems/swap.md keep them)
SWAP_NAMES = (("gold_np", "gold_swaps"), ("model_np", "model_swaps"),
              ("own_tree_np", "own_tree_lazy_swaps"), ("ref_np", "lazy_swaps"),
              ("ref_not", "lazy_not"), ("static_move_np", "static_move_swaps"),
              ("np", "swap"))


def swap_names(d):
    out = {}
    for k, v in d.items():
        for old, new in SWAP_NAMES:
            k = k.replace(old, new)
        out[k] = v
    return out


def analyse_run(folder: Path, split: str, gold_cache: dict, system="swap"):
    ctx = {}
    res = npt.analyse_run(folder, split, gold_cache, system="swap", context=ctx)
    nlp, parser, oracles = ctx["nlp"], ctx["parser"], ctx["oracles"]
    gold, preds, batch, records = ctx["gold"], ctx["preds"], ctx["batch"], ctx["records"]
    out = {k: res[k] for k in ("run", "oracle", "sentences", "words", "gold_np",
                               "matches_pipeline")}
    swaps = {"zero": 0, "costly": 0}
    for k, v in res["np_moves"].items():
        swaps[k.split("_")[0]] += v
    swaps.update(swap_names(res["np_moves"]))
    out["swaps"] = swaps
    out["model_np"] = res["model_np"]
    out["own_tree_np"] = res["own_tree_np"]
    # per Doc: the step each word got its head, the SWAPs each word took part in
    attached = [dict() for _ in preds]
    swapped_at = [dict() for _ in preds]
    doc_swaps = [[] for _ in preds]     # (step, s0) of each SWAP
    for d, state, s, choice, valid, costs, top, step in records:
        if oracles.class_move[choice] in oracles.np_moves:
            for w in top:
                swapped_at[d].setdefault(w, []).append(step)
            doc_swaps[d].append((step, top[-1]))
        for i, _ in npt.new_heads(parser.moves, state, choice)[1]:
            attached[d][i] = step
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
    return swap_names(out)


def train_side(folder: Path, n_docs: int, seed=0, system="swap"):
    """Zero-cost sets along oracle-following and model-following walks on training Docs."""
    side = npt.train_side(folder, n_docs, seed=seed, system="swap")
    return {walk: swap_names(acc) for walk, acc in side.items()}


def main(argv=None):
    npt.main(argv, analyse=analyse_run, train=train_side, doc=__doc__)


if __name__ == "__main__":
    main()
