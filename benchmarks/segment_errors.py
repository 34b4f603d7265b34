"""Where a trained parser's own sentence segmentation goes wrong, and why (issue 18, step 0;
docs/systems/arc_eager.md "Sentence segmentation against spaCy's parser").

Three reports on a saved pipeline (model-best of a run) and a CoNLL-U file, in Docs of 10
sentences as projects/ud/scripts/evaluate_run.py scores them:

    python benchmarks/segment_errors.py errors RUN/model-best la_perseus-ud-test.conllu
        boundaries inside the Docs: missed (a predicted arc crosses a gold boundary) and
        spurious (a predicted sentence starts inside a gold one), by the word before the
        boundary and the length of the sentence before it. Any parser, spaCy's included.
    python benchmarks/segment_errors.py replay RUN/model-best FILE [--limit N]
        the model's greedy parse replayed with the oracle's costs (package systems only): at
        each gold boundary b, the model's moves while b0 is b ("RE2 SH1": REDUCE with 2
        stack words, then SHIFT with 1; "!" marks a move that costs > 0), whether SHIFT was
        a zero-cost move there, whether the final tree has the boundary; and the false roots
        the model makes (ROOT of a word that is not a gold root), whether they were optimal.
    python benchmarks/segment_errors.py walk RUN/model-best FILE [--follow model]
        states of zero-cost walks (random zero-cost classes), or of the model's own parse,
        where the training target (the run's system_options applied) holds SHIFT at a gold
        boundary or ROOT of a word that is not a gold root.
"""
import argparse
import collections
import random


def gold_docs(nlp, path, limit=None):
    from spacy_dynoracle.conllu_io import sentences_to_docs
    from spacy_dynoracle.corpus import read_sentences

    docs = list(sentences_to_docs(nlp.vocab, list(read_sentences(path)), 10, keep_source=False))
    return docs[:limit] if limit else docs


def inner_starts(doc):
    return {s.start for s in doc.sents} - {0}


def errors(nlp, gold):
    from spacy_dynoracle.conllu_io import words_only_copy

    pred = list(nlp.pipe([words_only_copy(d) for d in gold], batch_size=64))
    c = collections.Counter()
    missed_after, spurious_after = collections.Counter(), collections.Counter()
    by_len, missed_by_len = collections.Counter(), collections.Counter()
    for g, p in zip(gold, pred):
        gs, ps = inner_starts(g), inner_starts(p)
        c["gold"] += len(gs)
        c["predicted"] += len(ps)
        c["correct"] += len(gs & ps)
        bounds = sorted(gs | {0}) + [len(g)]
        for k in range(1, len(bounds) - 1):
            b = bounds[k]
            bucket = 10 * min((b - bounds[k - 1]) // 10, 5)
            by_len[bucket] += 1
            c["gold after PUNCT"] += g[b - 1].pos_ == "PUNCT"
            if b not in ps:
                c["missed"] += 1
                missed_after[g[b - 1].text] += 1
                missed_by_len[bucket] += 1
        for b in ps - gs:
            c["spurious"] += 1
            spurious_after[g[b - 1].text] += 1
    print(dict(c))
    print(f"boundary P {100 * c['correct'] / max(c['predicted'], 1):.1f} "
          f"R {100 * c['correct'] / max(c['gold'], 1):.1f}")
    print("missed, by the word before:", missed_after.most_common(8))
    print("spurious, by the word before:", spurious_after.most_common(8))
    print("missed / gold, by the length of the sentence before (10-word buckets):",
          {k: f"{missed_by_len[k]}/{by_len[k]}" for k in sorted(by_len)})


class Walker:
    """A package parser's moves with the oracle's costs on one gold Doc."""
    CODES = {"S": "SHIFT", "L": "LEFT", "R": "RIGHT", "T": "ROOT", "D": "REDUCE", "W": "SWAP"}

    def __init__(self, nlp):
        self.nlp = nlp
        self.parser = nlp.get_pipe("parser")
        self.moves = self.parser.moves
        names = [self.moves.get_class_name(i) for i in range(self.moves.n_moves)]
        self.move = [self.CODES.get(n.split("-")[0], n) for n in names]

    def start(self, gdoc, with_model):
        from spacy.training import Example
        from spacy_dynoracle.conllu_io import words_only_copy

        doc = words_only_copy(gdoc)
        step = None
        if with_model:
            for name, proc in self.nlp.pipeline:     # the parser reads the tok2vec's doc.tensor
                if name == "parser":
                    break
                doc = proc(doc)
            step = self.parser.model.predict([doc])
        state = self.moves.init_batch([doc])[0]
        return state, self.moves.init_gold(state, Example(doc, gdoc)), step

    def model_class(self, step, state, valid):
        scores = step.predict([state])[0]
        return max((i for i in range(self.moves.n_moves) if valid[i]), key=lambda i: scores[i])


def false_root(gheads, stack, buf, gstarts):
    """ROOT here would make a word that is not a gold root a root, inside a gold sentence."""
    w = stack[-1]
    return bool(buf) and gheads[w] is not None and 0 <= gheads[w] != w and buf[0] not in gstarts


def replay(nlp, gold):
    w = Walker(nlp)
    moves = w.moves
    tab = collections.Counter()
    for gdoc in gold:
        state, g, step = w.start(gdoc, with_model=True)
        gstarts = inner_starts(gdoc)
        first, seq = {}, collections.defaultdict(list)
        while not state.is_final():
            valid, costs = moves._sim_class_costs(state, g)
            best = w.model_class(step, state, valid)
            stack, buf = moves._sim_stack(state), moves._sim_buffer(state)
            b0 = buf[0] if buf else -1
            zero = {w.move[i] for i in range(moves.n_moves) if valid[i] and costs[i] <= 0}
            if b0 in gstarts and stack:
                seq[b0].append(f"{w.move[best][:2]}{len(stack)}{'' if costs[best] <= 0 else '!'}")
                first.setdefault(b0, (w.move[best], "SHIFT" in zero))
            if w.move[best] == "ROOT" and false_root(g.heads, stack, buf, gstarts):
                tab[("false ROOT inside a gold sentence",
                     "optimal" if costs[best] <= 0 else "costly")] += 1
            moves._sim_apply(state, best)
        heads = moves._sim_heads(state)
        for b in gstarts:
            joined = any((i < b) != (h < b) for i, h in enumerate(heads) if h >= 0)
            outcome = "missed" if joined else "found"
            move, shift_free = first[b]
            act = "close" if move in ("REDUCE", "ROOT") else "wait: " + move
            tab[("first move at b", act, "SHIFT zero-cost" if shift_free else "SHIFT costly",
                 outcome)] += 1
            tab[("moves while b0 = b", outcome, " ".join(seq[b]))] += 1
    for key in sorted(tab, key=lambda k: (k[0], -tab[k])):
        print(f"{tab[key]:6d}  {key}")


def walk(nlp, gold, follow, seed=0):
    rng = random.Random(seed)
    w = Walker(nlp)
    moves = w.moves
    c = collections.Counter()
    for gdoc in gold:
        state, g, step = w.start(gdoc, with_model=follow == "model")
        gstarts = inner_starts(gdoc)
        while not state.is_final():
            valid, costs = moves._sim_class_costs(state, g, training=True)
            zero = [i for i in range(moves.n_moves) if valid[i] and costs[i] <= 0]
            targets = {w.move[i] for i in zero}
            stack, buf = moves._sim_stack(state), moves._sim_buffer(state)
            c["states"] += 1
            if buf and buf[0] in gstarts and stack:
                c["gold boundary states (stack not empty)"] += 1
                c["... SHIFT a target"] += "SHIFT" in targets
            if "ROOT" in targets and stack and false_root(g.heads, stack, buf, gstarts):
                c["ROOT a target, a false root inside a gold sentence"] += 1
            if follow == "model":
                clas = w.model_class(step, state, valid)
            else:
                clas = rng.choice(zero)
            moves._sim_apply(state, clas)
    print(dict(c))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", choices=("errors", "replay", "walk"))
    ap.add_argument("model", help="a saved pipeline, e.g. RUN/model-best")
    ap.add_argument("conllu")
    ap.add_argument("--limit", type=int, default=None, help="first N Docs only")
    ap.add_argument("--follow", choices=("oracle", "model"), default="oracle",
                    help="walk: random zero-cost classes, or the model's own parse")
    args = ap.parse_args(argv)
    import spacy

    nlp = spacy.load(args.model)
    gold = gold_docs(nlp, args.conllu, args.limit)
    if args.report == "errors":
        errors(nlp, gold)
    elif args.report == "replay":
        replay(nlp, gold)
    else:
        walk(nlp, gold, args.follow)


if __name__ == "__main__":
    main()
