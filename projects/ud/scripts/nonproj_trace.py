"""Where does a model make its non-projective moves, and does it need to? (issue 19)

    python scripts/nonproj_trace.py --output training/converged_affix --treebank UD_Latin-Perseus \
        --runs attardi-dynamic-s0,attardi-static-s0 [--system attardi] [--split dev] [--train-docs 20]

For every system that declares non-projective moves (`MoveDef.nonprojective` in
system_base.pxd, `moves.nonprojective_move_types`: swap's SWAP, attardi's LEFT_k / RIGHT_k
for k >= 2). Each run's model-best parses the split's gold words in Docs of 10 gold
sentences, the gold sentence boundaries preset (as error_analysis.py), by the reference
greedy loop of spacy_dynoracle.testing.python_step_loop (the model's step scores, the best
valid class) stepped here so that every move is seen; the stepped parse is checked against
the pipeline's own (parser.predict, its C loop). At every state the system's own dynamic cost
(oracle "dynamic", the costs training reads) and static oracles are asked about the same
state and gold, through the compiled code training uses. Printed (one JSON line per run):

* non-projective moves per sentence: the model's ("model_np"), the gold trees' under the
  system's static oracles ("gold_np": the moves of their derivations) and the reference
  static oracle's on the model's own output trees ("own_tree_np": how many the trees it
  built need at least in that oracle's order);
* the model's non-projective moves by the dynamic cost at the state where it took them
  (zero-cost or costly), split by whether the reference static oracle takes a
  non-projective move there ("np_moves": zero_ref_np, zero_ref_not, costly_...);
* for the moves that build an arc (attardi's LEFT_k / RIGHT_k): the arcs they built, right
  (head; head and label, base labels as LAS) or wrong, whether the arc crosses another in
  the final tree, and of the wrong-head ones, whether the word's gold arc crosses none in
  the gold tree and whether the best-scoring zero-cost class of that state (the move
  training's target prefers), followed by zero-cost moves, gives the word its gold head:
  "displaced" counts the wrong crossing arcs that took the place of a right projective
  head the zero-cost alternative would have kept ("np_arcs");
* with --train-docs N, the training side: on the first N training Docs, states reached by
  following the oracle (the best-scoring zero-cost class, as training with follow_oracle)
  and by following the model with probability 0.5 (exploration), the zero-cost set greedy
  training uses (with the run's system options) and the share of spaCy's gold distribution
  (the model's softmax restricted to that set, cpu_log_loss) and of a uniform one on the
  non-projective classes, split by whether the reference static oracle takes a
  non-projective move there, and how often the static move that target="static" narrows
  to (static_move under the dynamic oracle) is non-projective.

swap_trace.py is this script for swap, with swap's names and its length-1 analysis.
"""
import argparse
import json
from pathlib import Path

import numpy

from udproj import PROJECT, split_sources, train_source, treebank_files
from error_analysis import crossing_dependents

from spacy_dynoracle.evaluate import base_label
from spacy_dynoracle.system_base import MOVE_CODES, MOVE_NAMES

# Per system: the oracle the gold is built under (swap: its MINIMAL sequence attached), the
# static oracles whose derivations of the gold are counted, and the reference static oracle
# the model's moves are compared with (swap: LAZY, the fewest SWAPs of its static oracles
# that build every gold arc; attardi: Cohen et al.'s canonical policy, docs/systems/attardi.md
# "Static oracle").
SYSTEMS = {
    "swap": {"gold_oracle": "static-minimal",
             "static_oracles": ("static-eager", "static-lazy", "static-minimal"),
             "reference": "static-lazy"},
    "attardi": {"gold_oracle": "dynamic", "static_oracles": ("static",), "reference": "static"},
}


def load(folder: Path, system=None):
    import spacy

    nlp = spacy.load(folder / "model-best")
    parser = nlp.get_pipe("parser")
    name = parser.moves.name
    if system is not None and name != system:
        raise SystemExit(f"{folder}: not a {system} model ({name})")
    if name not in SYSTEMS or not parser.moves.nonprojective_move_types:
        raise SystemExit(f"{folder}: {name} has no non-projective moves traced here "
                         f"(systems: {sorted(SYSTEMS)})")
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
    """A system's oracles on one parser's class table: `moves` switched between oracle
    modes (set_oracle changes only which costs it returns) and golds built once per Doc
    under SYSTEMS' gold_oracle (init_gold attaches the oracle data)."""

    def __init__(self, parser):
        self.moves = parser.moves
        self.spec = SYSTEMS[self.moves.name]
        self.trained_oracle = self.moves.oracle
        self.class_move = [MOVE_CODES.index(self.moves.get_class_name(i).split("-")[0])
                           for i in range(self.moves.n_moves)]
        self.np_moves = set(self.moves.nonprojective_move_types)
        self.np_classes = [i for i, m in enumerate(self.class_move) if m in self.np_moves]
        assert self.np_classes == list(numpy.flatnonzero(self.moves.nonprojective_class_mask()))

    def gold(self, state, example):
        self.moves.set_oracle(self.spec["gold_oracle"])
        gold = self.moves.init_gold(state, example)
        self.moves.set_oracle("dynamic")
        return gold

    def gold_of_heads(self, heads):
        """An unlabelled gold of these heads (a parse's), with the oracle data the static
        oracles read."""
        from spacy_dynoracle.system_base import DynGold

        gold = DynGold(list(heads), [0] * len(heads))
        self.moves.attach_oracle(gold)
        return gold

    def costs(self, state, gold, training=False, target=None):
        """(is_valid, cost) per class under the dynamic cost (training: narrowed as
        step_batch narrows them, with the system option `target` set to `target` if given:
        what another training target would leave in the same state)."""
        self.moves.set_oracle("dynamic")
        saved = self.moves.cfg.get("target", "all")
        if target is not None:
            self.moves.cfg["target"] = target
        try:
            valid, costs = self.moves._sim_class_costs(state, gold, training)
        finally:
            self.moves.cfg["target"] = saved
        return numpy.array(valid, dtype=bool), numpy.array(costs)

    def static(self, state, gold, oracle):
        self.moves.set_oracle(oracle)
        move = self.moves._sim_static_move(state, gold)
        self.moves.set_oracle("dynamic")
        return move

    def static_np(self, state, gold, oracle=None):
        """Whether the static oracle (default: the reference) takes a non-projective move."""
        return self.static(state, gold, oracle or self.spec["reference"]) in self.np_moves

    def static_np_count(self, doc_state_factory, gold, oracle):
        """Non-projective moves of the static oracle's derivation from the initial state."""
        state = doc_state_factory()
        n = 0
        while not state.is_final():
            m = self.static(state, gold, oracle)
            n += m in self.np_moves
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


def new_heads(moves, state, clas):
    """The state after `clas` and the arcs it added: [(dependent, head)]."""
    before = moves._sim_heads(state)
    after = state.copy()
    moves._sim_apply(after, clas)
    return after, [(i, h) for i, h in enumerate(moves._sim_heads(after))
                   if h >= 0 and before[i] < 0]


def zero_cost_completion_keeps(oracles, state, gold, clas, child, gold_head, max_steps=10000):
    """Take `clas`, then zero-cost moves (the first in class order) until `child` has a head:
    is it `gold_head`? From a zero-cost `clas`, every arc still reachable is built this way."""
    moves = oracles.moves
    state = state.copy()
    moves._sim_apply(state, clas)
    for _ in range(max_steps):
        head = moves._sim_heads(state)[child]
        if head >= 0 or state.is_final():
            return head == gold_head
        valid, costs = oracles.costs(state, gold)
        moves._sim_apply(state, int(numpy.flatnonzero(valid & (costs <= 0))[0]))
    raise RuntimeError("zero-cost completion did not end")


def sentence_heads(doc, heads, sent):
    """1-based heads of one sentence's words (0: root; a head outside it counts as root)."""
    out = []
    for i in range(sent.start, sent.end):
        h = heads[i]
        out.append(0 if h == i or h < 0 or not sent.start <= h < sent.end else h - sent.start + 1)
    return out


def analyse_run(folder: Path, split: str, gold_cache: dict, system=None, context=None):
    """The dev-side numbers of one run (see the module docstring). `context`, a dict, gets
    what swap_trace.py reads further: nlp, parser, oracles, gold, preds, golds, batch,
    records."""
    from spacy.training import Example

    info = json.loads((folder / "run.json").read_text())
    nlp, parser = load(folder, system)
    moves = parser.moves
    oracles = Oracles(parser)
    spec = oracles.spec
    path, select = split_sources(treebank_files(info["treebank"]))[split]
    gold, preds = gold_docs(nlp, path, select)
    examples = [Example(p, g) for p, g in zip(preds, gold)]
    golds = [oracles.gold(st, eg) for st, eg in zip(moves.init_batch(preds), examples)]
    n_sents = sum(len(list(g.sents)) for g in gold)
    out = {"run": folder.name, "treebank": info["treebank"], "system": moves.name, "oracle": info["oracle"],
           "sentences": n_sents, "words": sum(len(g) for g in gold)}
    key = (info["treebank"], split, moves.name)
    if key not in gold_cache:
        gold_cache[key] = {oracle: sum(
            oracles.static_np_count(lambda p=p: moves.init_batch([p])[0], g, oracle)
            for p, g in zip(preds, golds)) for oracle in spec["static_oracles"]}
    out["gold_np"] = gold_cache[key]

    batch, records = parse_traced(parser, oracles, preds, golds)
    # the stepped loop must make the parse the pipeline makes (its C loop, parser.predict)
    out["matches_pipeline"] = all(
        moves._sim_heads(a) == moves._sim_heads(b)
        and sorted((x["child"], x["label"]) for x in a.arcs) == sorted((x["child"], x["label"]) for x in b.arcs)
        for a, b in zip(batch, parser.predict(preds)))
    if not out["matches_pipeline"]:
        raise SystemExit(f"{folder}: the stepped parse differs from the pipeline's")
    final_heads = [moves._sim_heads(s) for s in batch]
    final_labels = [{a["child"]: a["label"] for a in s.arcs} for s in batch]
    crossed = []    # per Doc: word -> its predicted arc crosses another of its sentence
    for g, heads in zip(gold, final_heads):
        c = {}
        for sent in g.sents:
            for i, x in enumerate(crossing_dependents(sentence_heads(g, heads, sent))):
                c[sent.start + i] = x
        crossed.append(c)
    gold_crossed = []
    for g in gold:
        heads = [t.head.i for t in g]
        c = {}
        for sent in g.sents:
            for i, x in enumerate(crossing_dependents(sentence_heads(g, heads, sent))):
                c[sent.start + i] = x
        gold_crossed.append(c)

    np_moves = {k: 0 for k in ("zero_ref_np", "zero_ref_not", "costly_ref_np", "costly_ref_not")}
    arcs = {k: 0 for k in ("built", "right_head", "right_labelled", "wrong_head",
                           "crossing_final", "crossing_final_right_head",
                           "wrong_zero_cost", "wrong_gold_crosses_none",
                           "wrong_alternative_keeps", "displaced",
                           "displaced_alternative_np")}
    by_move = {}
    for d, state, s, choice, valid, costs, top, step in records:
        if oracles.class_move[choice] not in oracles.np_moves:
            continue
        ref_np = oracles.static_np(state, golds[d])
        kind = "zero" if costs[choice] <= 0 else "costly"
        np_moves[f"{kind}_ref_{'np' if ref_np else 'not'}"] += 1
        name = MOVE_NAMES[oracles.class_move[choice]]
        by_move[name] = by_move.get(name, 0) + 1
        _, built = new_heads(moves, state, choice)
        for child, head in built:
            g = gold[d]
            gold_head = g[child].head.i
            arcs["built"] += 1
            arcs["crossing_final"] += crossed[d][child]
            if head == gold_head:
                arcs["right_head"] += 1
                arcs["crossing_final_right_head"] += crossed[d][child]
                label = final_labels[d].get(child)
                arcs["right_labelled"] += label is not None and \
                    base_label(nlp.vocab.strings[label]) == base_label(g[child].dep_)
                continue
            arcs["wrong_head"] += 1
            arcs["wrong_zero_cost"] += costs[choice] <= 0
            projective_gold = not gold_crossed[d][child]
            arcs["wrong_gold_crosses_none"] += projective_gold
            zero = valid & (costs <= 0)
            alternative = int(numpy.argmax(numpy.where(zero, s, -numpy.inf)))
            keeps = zero_cost_completion_keeps(oracles, state, golds[d], alternative, child,
                                               gold_head)
            arcs["wrong_alternative_keeps"] += keeps
            if keeps and projective_gold:
                arcs["displaced"] += 1
                arcs["displaced_alternative_np"] += alternative in oracles.np_classes
    out["np_moves"] = np_moves
    out["np_by_move"] = by_move
    out["model_np"] = sum(np_moves.values())
    out["np_arcs"] = arcs
    # the reference static oracle's non-projective moves on the model's own output trees
    own = 0
    for d, state in enumerate(batch):
        g = oracles.gold_of_heads(final_heads[d])
        own += oracles.static_np_count(lambda p=preds[d]: moves.init_batch([p])[0], g,
                                       spec["reference"])
    out["own_tree_np"] = own
    oracles.restore()
    if context is not None:
        context.update(nlp=nlp, parser=parser, oracles=oracles, gold=gold, preds=preds,
                       golds=golds, batch=batch, records=records)
    return out


def train_side(folder: Path, n_docs: int, seed=0, system=None):
    """Zero-cost sets along oracle-following and model-following walks on training Docs."""
    from spacy.training import Example

    info = json.loads((folder / "run.json").read_text())
    nlp, parser = load(folder, system)
    oracles = Oracles(parser)
    path, select = train_source(treebank_files(info["treebank"]))
    gold, preds = gold_docs(nlp, path, select, n_docs=n_docs)
    examples = [Example(p, g) for p, g in zip(preds, gold)]
    golds = [oracles.gold(st, eg) for st, eg in zip(parser.moves.init_batch(preds), examples)]
    rng = numpy.random.default_rng(seed)
    np_classes = oracles.np_classes
    out = {}
    for follow, p_model in (("oracle", 0.0), ("explore", 0.5)):
        _, records = parse_traced(parser, oracles, preds, golds, follow="oracle", rng=rng,
                                  p_model=p_model)
        acc = {k: 0.0 for k in ("states", "np_zero", "np_zero_ref_not", "ref_not_states",
                                "mass_ref_not", "uniform_ref_not", "mass_ref_np",
                                "ref_np_states", "other_zero_with_np",
                                "np_only_zero", "static_move_np",
                                "static_move_np_ref_not", "static_move_np_zero",
                                "mass_all", "np_static_target", "np_static_target_ref_not",
                                "mass_static_target")}
        for d, state, s, choice, valid, _, top, step in records:
            valid, costs = oracles.costs(state, golds[d], training=True)
            zero = valid & (costs <= 0)
            ref_np = oracles.static_np(state, golds[d])
            np_zero = bool(zero[np_classes].any())
            # the static move target="static" narrows to under the dynamic oracle (swap:
            # the system option static_swaps, EAGER's rule by default)
            target_np = oracles.static_np(state, golds[d], "dynamic")
            acc["static_move_np"] += target_np
            acc["static_move_np_ref_not"] += target_np and not ref_np
            acc["static_move_np_zero"] += target_np and np_zero
            p = numpy.exp(s - s[valid].max()) * zero
            mass = p[np_classes].sum() / p.sum()
            uniform = zero[np_classes].sum() / zero.sum()
            acc["states"] += 1
            acc["mass_all"] += mass
            # what the existing option target="static" would leave in this state (it narrows
            # to the static move only where that move is optimal)
            valid_s, costs_s = oracles.costs(state, golds[d], training=True, target="static")
            zero_s = valid_s & (costs_s <= 0)
            np_static = bool(zero_s[np_classes].any())
            acc["np_static_target"] += np_static
            acc["np_static_target_ref_not"] += np_static and not ref_np
            p_s = numpy.exp(s - s[valid].max()) * zero_s
            acc["mass_static_target"] += p_s[np_classes].sum() / p_s.sum()
            acc["np_zero"] += np_zero
            if np_zero:
                acc["other_zero_with_np"] += zero.sum() > zero[np_classes].sum()
                acc["np_only_zero"] += zero.sum() == zero[np_classes].sum()
            if ref_np:
                acc["ref_np_states"] += 1
                acc["mass_ref_np"] += mass
            else:
                acc["ref_not_states"] += 1
                acc["np_zero_ref_not"] += np_zero
                acc["mass_ref_not"] += mass
                acc["uniform_ref_not"] += uniform
        out[follow] = acc
    oracles.restore()
    return out


def pct(a, b):
    return f"{100 * a / b:.0f}%" if b else "–"


def markdown(results):
    """The tables of docs/systems/attardi.md, "Where attardi's crossing arcs come from", from
    the results of analyse_run (+ train_side): one row per run, one table per question."""
    lines = ["| run | sentences | model NP moves / sentence | own tree, reference static | "
             "gold, static | zero-cost, static takes one too | zero-cost, static does not | costly |",
             "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for r in results:
        n, m, x = r["sentences"], r["model_np"], r["np_moves"]
        gold = " / ".join(f"{v / n:.2f}" for v in r["gold_np"].values())
        lines.append(f"| {r['treebank']} {r['run']} | {n} | {m / n:.2f} ({m}) | "
                     f"{r['own_tree_np'] / n:.2f} | {gold} | {x['zero_ref_np']} | "
                     f"{x['zero_ref_not']} ({pct(x['zero_ref_not'], m)}) | "
                     f"{x['costly_ref_np'] + x['costly_ref_not']} "
                     f"({pct(x['costly_ref_np'] + x['costly_ref_not'], m)}) |")
    lines += ["", "| run | arcs built | right head | right head and label | cross in the final tree "
              "(right head) | wrong head | of which zero-cost | gold arc crosses none | zero-cost "
              "alternative keeps the gold head | displaced a right projective head | "
              "(alternative itself NP) | words |",
              "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in results:
        a = r["np_arcs"]
        lines.append(f"| {r['treebank']} {r['run']} | {a['built']} | {a['right_head']} "
                     f"({pct(a['right_head'], a['built'])}) | {a['right_labelled']} | "
                     f"{a['crossing_final']} ({a['crossing_final_right_head']}) | "
                     f"{a['wrong_head']} | {int(a['wrong_zero_cost'])} | "
                     f"{a['wrong_gold_crosses_none']} | {a['wrong_alternative_keeps']} | "
                     f"**{a['displaced']}** | {a['displaced_alternative_np']} | {r['words']} |")
    if any("train" in r for r in results):
        lines += ["", "| run | walk | states | NP in target | of which static takes none "
                  "(% of such states) | NP and another move in target | gold mass on NP where "
                  "static takes none | uniform | static takes one: gold mass on NP | "
                  "gold mass on NP, all states | with target=\"static\": states with NP in "
                  "target (static takes none) | gold mass on NP, all states |",
                  "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
        for r in results:
            for walk, a in r.get("train", {}).items():
                lines.append(
                    f"| {r['treebank']} {r['run']} | {walk} | {int(a['states'])} | "
                    f"{int(a['np_zero'])} | {int(a['np_zero_ref_not'])} "
                    f"({100 * a['np_zero_ref_not'] / a['ref_not_states']:.1f}%) | "
                    f"{int(a['other_zero_with_np'])} | "
                    f"{100 * a['mass_ref_not'] / a['ref_not_states']:.2f}% | "
                    f"{100 * a['uniform_ref_not'] / a['ref_not_states']:.2f}% | "
                    f"{100 * a['mass_ref_np'] / max(a['ref_np_states'], 1):.1f}% | "
                    f"{100 * a['mass_all'] / a['states']:.2f}% | "
                    f"{int(a['np_static_target'])} ({int(a['np_static_target_ref_not'])}) | "
                    f"{100 * a['mass_static_target'] / a['states']:.2f}% |")
    return "\n".join(lines)


def main(argv=None, analyse=analyse_run, train=train_side, doc=__doc__):
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--output", type=Path, default=PROJECT / "training" / "converged_affix")
    ap.add_argument("--treebank")
    ap.add_argument("--pipeline", default="tagger")
    ap.add_argument("--runs", help="comma-separated run folders")
    ap.add_argument("--tables", type=Path, nargs="+",
                    help="print the markdown tables of these --json files instead")
    ap.add_argument("--system", choices=sorted(SYSTEMS),
                    help="refuse models of another system (default: any traced here)")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--train-docs", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args(argv)
    if args.tables:
        print(markdown([r for path in args.tables for r in json.loads(path.read_text())]))
        return
    if not (args.treebank and args.runs):
        ap.error("--treebank and --runs are required (or --tables)")
    cache, results = {}, []
    for run in args.runs.split(","):
        folder = args.output / args.treebank / args.pipeline / run
        res = analyse(folder, args.split, cache, system=args.system)
        if args.train_docs:
            res["train"] = train(folder, args.train_docs, system=args.system)
        results.append(res)
        print(json.dumps(res, default=float), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
