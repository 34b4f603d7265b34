"""How much spaCy's own parser uses its non-monotonic arc-eager moves, and what they are worth
at parse time (issue 18, step 0; docs/systems/arc_eager.md "Against spaCy's own arc-eager
parser: what differs").

spaCy's `parser` differs from this package's `arc_eager` in its moves (Honnibal, Goldberg &
Johnson 2013; Honnibal & Johnson 2015):

* `LEFT` on a stack top that already has a head replaces that head (a *repair*);
* `REDUCE` of a headless stack top, with more words below it, puts it back at the front of
  the buffer (an *unshift*), instead of leaving it headless.

This script replays a trained spaCy parser's greedy decoding in Python, with the pipeline's
own scores, on the gold words of a CoNLL-U file in Docs of 10 sentences (gold sentence
boundaries preset unless `--own-sentences`), and reports

* how often each move kind is taken, and how many repairs and unshifts the parse makes;
* the LAS of that parse (it must equal the pipeline's own parse: checked, the script stops
  otherwise), and the LAS when, at each state, the best-scoring *monotonic* valid move is
  taken instead: the parse-time worth of the non-monotonic moves to the model that was
  trained with them. (What they are worth in training is not measured here: that needs a
  monotonic spaCy parser trained alike.)

    python benchmarks/spacy_nonmonotonic.py RUN/model-best hu_szeged-ud-dev.conllu
    python benchmarks/spacy_nonmonotonic.py RUN/model-best la_perseus-ud-train.conllu --select tail:0.1
"""
import argparse
import collections

import numpy


def parse_with(parser, docs, allow_nonmonotonic, counts):
    """Greedy parse of docs (tok2vec output already in doc.tensor) with the parser's model:
    at each state the best-scoring valid class, kept monotonic unless allow_nonmonotonic
    (see the module docstring). Counts the moves into `counts`; returns the final states."""
    moves = parser.moves
    names = [moves.get_class_name(i) for i in range(moves.n_moves)]
    step_model = parser.model.predict(docs)
    states = moves.init_batch(docs)
    active = [s for s in states if not s.is_final()]
    while active:
        scores = step_model.predict(active)
        for state, row in zip(active, scores):
            s0 = state.S(0) if state.stack_depth() > 0 else -1
            forced_pop = False
            for clas in numpy.argsort(-row, kind="stable"):
                name = names[clas]
                if not moves.is_valid(state, name):
                    continue
                kind = name.split("-", 1)[0]
                repair = kind == "L" and s0 >= 0 and state.has_head(s0)
                unshift = kind == "D" and s0 >= 0 and not state.has_head(s0) and state.stack_depth() > 1
                if not allow_nonmonotonic and (repair or unshift):
                    forced_pop = forced_pop or unshift
                    continue
                counts[kind] += 1
                counts["repair"] += repair
                counts["unshift"] += unshift
                moves.apply_transition(state, name)
                break
            else:
                if not forced_pop:
                    raise RuntimeError("no valid move")
                # only a REDUCE of a headless word is left (the buffer is empty): pop it, and
                # the parser's finalization makes it a root, as a monotonic arc-eager would
                counts["D"] += 1
                counts["headless pop"] += 1
                state.pop()
        active = [s for s in active if not s.is_final()]
    step_model.clear_memory()
    return states


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a trained pipeline whose `parser` is spaCy's parser")
    ap.add_argument("conllu")
    ap.add_argument("--select", default="all",
                    help="the sentences of the file to read, as the corpus reader takes them "
                         "(Latin-Perseus's dev: tail:0.1 of train)")
    ap.add_argument("--own-sentences", action="store_true",
                    help="let the parser segment (default: gold sentence boundaries preset)")
    ap.add_argument("--batch-docs", type=int, default=32)
    args = ap.parse_args(argv)

    import spacy
    from spacy_dynoracle.conllu_io import sentences_to_docs, words_only_copy
    from spacy_dynoracle.corpus import read_sentences
    from spacy_dynoracle.evaluate import evaluate_docs

    nlp = spacy.load(args.model)
    parser = nlp.get_pipe("parser")
    if type(parser.moves).__name__ != "ArcEager":
        raise SystemExit(f"{args.model}: its parser's moves are {type(parser.moves).__name__}, "
                         "not spaCy's ArcEager")
    gold = list(sentences_to_docs(nlp.vocab, list(read_sentences(args.conllu, select=args.select)), 10))

    def inputs():
        return [words_only_copy(d, sent_starts=not args.own_sentences) for d in gold]

    own = list(nlp.pipe(inputs()))
    from_parser = nlp.pipe_names[nlp.pipe_names.index("parser"):]
    results = {}
    for allow in (True, False):
        counts = collections.Counter()
        pred = []
        # fresh Docs through the components before the parser in each pass: a parse's
        # sentence starts (--own-sentences) would be presets to the next one
        with nlp.select_pipes(disable=from_parser):
            before = list(nlp.pipe(inputs()))
        for i in range(0, len(before), args.batch_docs):
            docs = before[i:i + args.batch_docs]
            states = parse_with(parser, docs, allow, counts)
            parser.set_annotations(docs, states)
            pred.extend(docs)
        if allow:
            same = all([t.head.i for t in a] == [t.head.i for t in b] and [t.dep_ for t in a] == [t.dep_ for t in b]
                       for a, b in zip(own, pred))
            if not same:
                raise SystemExit("the replayed parse differs from the pipeline's own: the replay is wrong")
        scores = evaluate_docs(gold, pred)
        results["free" if allow else "monotonic"] = (scores, counts)

    words = sum(len(d) for d in gold)
    print(f"{args.model} on {args.conllu} ({args.select}): {len(gold)} Docs, {words} words, "
          f"{'own' if args.own_sentences else 'gold'} sentences")
    print("| decoding | LAS | UAS | moves | LEFT | REDUCE | SHIFT | RIGHT | BREAK | repairs | unshifts | headless pops |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for key, (scores, c) in results.items():
        total = sum(c[k] for k in ("L", "D", "S", "R", "B"))
        las, uas = scores["LAS"]["f1"], scores["UAS"]["f1"]
        print(f"| {key} | {las:.2f} | {uas:.2f} | {total} | {c['L']} | {c['D']} | {c['S']} "
              f"| {c['R']} | {c['B']} | {c['repair']} | {c['unshift']} | {c['headless pop']} |")


if __name__ == "__main__":
    main()
