"""Where spaCy's update starts its training segments, per system and cut_path.

spaCy's parser update cuts a long Doc into segments along a zero-cost path from the
initial state (`Parser._init_gold_batch` with `get_oracle_sequence_from_state`) and trains
from each segment's start state. This script replays that path on real training Docs and
reports, over the states on it (every one may start a segment, since the cut length is
random), the mean stack depth, the share of states with a finished gold sentence root still
on the stack (a sentence left open), and how many of the path's moves are SHIFT before the
static oracle would shift.

    python benchmarks/cut_path.py --treebank UD_Hungarian-Szeged --limit 40 \
        --systems arc_hybrid,arc_eager,arc_standard,lr_spine,swap,attardi
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import treebank_files, write_json  # noqa: E402


def examples(treebank, limit):
    import spacy
    from spacy_dynoracle.corpus import create_conllu_reader

    train, _ = treebank_files(treebank)
    nlp = spacy.blank("xx")
    return nlp, list(create_conllu_reader(train, n_sents=10, limit=limit)(nlp))


def path_stats(nlp, egs, system, cut_path, oracle="dynamic"):
    parser = nlp.add_pipe("dynoracle_parser", name=f"p-{system}-{cut_path}",
                          config={"transition_system": system, "oracle": oracle,
                                  "system_options": {"cut_path": cut_path}})
    parser.initialize(lambda: egs, nlp=nlp)
    moves = parser.moves
    depths, open_roots, states = [], 0, 0
    for eg in egs:
        state = moves.init_batch([eg.predicted])[0]
        gold = moves.init_gold(state, eg)
        heads, _ = eg.get_aligned_parse(projectivize=moves.projectivize)
        path = moves.get_oracle_sequence_from_state(state.copy(), gold)
        ends = _sentence_ends(heads)
        for clas in path:
            stack = state.stack
            depths.append(len(stack))
            # a gold sentence root on the stack, with the buffer already in a later
            # sentence: an open sentence the path carries along
            b0 = state.B(0)
            open_roots += any(s in ends and b0 >= 0 and ends[s] < b0 for s in stack)
            states += 1
            moves._sim_apply(state, clas)
    nlp.remove_pipe(f"p-{system}-{cut_path}")
    return {"states": states, "mean_stack_depth": round(statistics.fmean(depths), 2),
            "p90_stack_depth": sorted(depths)[int(0.9 * len(depths))],
            "states_with_an_open_finished_sentence": round(100 * open_roots / states, 1)}


def _sentence_ends(heads):
    """{gold root: the last word of its sentence}, once per Doc. A root points to itself;
    words with an unknown head (None) belong to no sentence."""
    ends = {}
    for d in range(len(heads)):
        root, seen = d, set()
        while root is not None and heads[root] != root and root not in seen:
            seen.add(root)
            root = heads[root]
        if root is not None and heads[root] == root:
            ends[root] = max(ends.get(root, root), d)
    return ends


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--limit", type=int, default=40, help="training Docs (10 sentences each)")
    ap.add_argument("--systems", default="arc_hybrid,arc_eager,arc_standard,lr_spine,swap,attardi")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    nlp, egs = examples(args.treebank, args.limit)
    rows = []
    for system in args.systems.split(","):
        for cut_path in ("first", "static"):
            row = {"system": system, "cut_path": cut_path, **path_stats(nlp, egs, system, cut_path)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        write_json(args.json, {"treebank": args.treebank, "docs": len(egs), "rows": rows})


if __name__ == "__main__":
    main()
