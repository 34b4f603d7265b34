"""Score a trained run on dev and test with the package's CoNLL-18 evaluation
(spacy_dynoracle.evaluate: gold words, the parser segments) and time the parse.

    python scripts/evaluate_run.py training/UD_Hungarian-Szeged/parser/arc_hybrid-dynamic-s0

Writes eval_dev.json and eval_test.json in the run folder: the scores of
spacy_dynoracle.evaluate.evaluate_docs (without the per-label table) plus
"speed": {"words", "seconds", "words_per_s"} of nlp.pipe over the same Docs and
"cpu_seconds", "words_per_cpu_s" (process CPU time, robust on a shared machine) of a second,
timed pass after the scored one, the model used and the data.

--model model-last scores the model of the last update instead of model-best and writes
eval_<split>[_gold_sents]_last.json beside model-best's files.

--beam-width K parses with a beam of K instead of the width the parser was trained with
(beam search at parse time only: the trained weights are unchanged) and writes
eval_<split>[_gold_sents][_last]_beamK.json, so a greedy-trained model can be compared with
its own beam decoding (UDPipe 1 parses with a beam of 5 by default).

--nonprojective-penalty X[,Y,...] parses with the dynoracle_parser's nonprojective_penalty
set to each value in turn (a parse-time setting: the trained weights are unchanged; issue 19,
docs/systems/swap.md "A parse-time penalty on crossing arcs") and writes
eval_<split>[_gold_sents][_last][_beamK]_npp<X>.json for each, with "CrossingArcs": the
words whose arc crosses another arc of its sentence, gold and predicted. The components
before the parser run once for all the values (the parser reads their output), and there is
no timed pass.

    python scripts/evaluate_run.py --gold-sents --splits dev --nonprojective-penalty 0,0.5,1,2,4 RUN

With --gold-sents the gold sentence boundaries are preset on the input Docs (the parser
must respect them, as UDPipe 1 parses one gold sentence at a time) and the scores go to
eval_<split>_gold_sents.json, without the timed pass; --splits test scores only test.

    python scripts/evaluate_run.py --gold-sents --splits test training/*/*/parser/*-s[0-9]

A biaffine run (scripts/biaffine.py) is scored the same way; only its pipeline runs in its
venv, on the same input Docs. "multi_root_sentences" counts the predicted sentences with more
than one root word (only the biaffine parser makes them).
"""
import argparse
import json
import time
from pathlib import Path

from udproj import PROJECT, run_dir, split_sources, treebank_files, write_json
from error_analysis import crossing_dependents
from matrix import BIAFFINE


def tagging_accuracy(gold, pred) -> dict:
    """UPOS / UFeats / XPOS accuracy (percent of words) of predicted Docs, for the columns
    the prediction fills (none for a parser-only pipeline)."""
    out = {}
    for key, attr in (("UPOS", "pos_"), ("UFeats", "morph"), ("XPOS", "tag_")):
        pairs = [(str(getattr(g, attr)), str(getattr(p, attr)))
                 for gd, pd in zip(gold, pred) for g, p in zip(gd, pd)]
        if any(p for _, p in pairs):
            out[key] = 100.0 * sum(g == p for g, p in pairs) / len(pairs)
    return out


def multi_root_sentences(docs) -> int:
    """Predicted sentences with more than one root word: none where the sentences are read
    off the tree (spaCy's parsers), possible for a pipeline whose parser decodes within the
    sentences a senter set (the biaffine parser's spanning trees)."""
    return sum(sum(t.head.i == t.i for t in sent) > 1 for doc in docs for sent in doc.sents)


def timed_pipe(nlp, docs, batch_size) -> tuple:
    """(wall, process CPU) seconds of nlp.pipe over the Docs; a pipeline that runs in another
    process (biaffine.VenvPipeline) times itself there."""
    if hasattr(nlp, "timed_pipe"):
        return nlp.timed_pipe(docs, batch_size=batch_size)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in nlp.pipe(docs, batch_size=batch_size):
        pass
    return time.perf_counter() - start, time.process_time() - cpu


def load_pipeline(folder: Path, model: str, info: dict, venv=None):
    """The trained pipeline of a run: spacy.load here, or the biaffine parser's in its venv
    (the venv given, else the python it trained with)."""
    if info.get("system") == BIAFFINE:
        from biaffine import VenvPipeline, venv_python

        return VenvPipeline(folder / model, venv_python(venv) if venv else Path(info["python"]))
    import spacy

    return spacy.load(folder / model)


def parse_gold_words(nlp, path, select="all", n_sents=10, batch_size=64, gold_sents=False,
                     keep_source=False):
    """(gold Docs, predicted Docs): the pipeline run on the gold words of a CoNLL-U file, in
    Docs of n_sents gold sentences; gold_sents presets the gold sentence boundaries and
    keep_source lets write_conllu write the predictions with the source's other columns."""
    from spacy_dynoracle.conllu_io import sentences_to_docs, words_only_copy
    from spacy_dynoracle.corpus import read_sentences

    sentences = list(read_sentences(path, select=select))
    gold = list(sentences_to_docs(nlp.vocab, sentences, n_sents, keep_source=keep_source))
    inputs = [words_only_copy(doc, sent_starts=gold_sents, keep_source=keep_source) for doc in gold]
    return gold, list(nlp.pipe(inputs, batch_size=batch_size))


def crossing_flags(doc, sents) -> list:
    """Per word of the Doc: does its arc cross another arc of its sentence (sents: the
    sentences to read the arcs in, the root arc included; error_analysis.crossing_dependents)."""
    flags = [False] * len(doc)
    for sent in sents:
        heads = [0 if t.head.i == t.i else t.head.i - sent.start + 1 for t in sent]
        for i, crossed in enumerate(crossing_dependents(heads)):
            flags[sent.start + i] = crossed
    return flags


def crossing_arcs(gold_docs, pred_docs) -> dict:
    """The words whose arc crosses another in the gold trees ("gold") and in the prediction
    ("system", read in the predicted sentences), those of the gold ones that got the gold
    head ("correct"), the predicted ones that have it ("correct_system"), and the predicted
    ones whose gold arc crosses nothing ("system_gold_crosses_none"), as error_analysis.py's
    crossing table counts them."""
    out = dict.fromkeys(("gold", "system", "correct", "correct_system",
                         "system_gold_crosses_none"), 0)
    for gold, pred in zip(gold_docs, pred_docs):
        gx, px = crossing_flags(gold, gold.sents), crossing_flags(pred, pred.sents)
        for g, p, in_gold, in_pred in zip(gold, pred, gx, px):
            right = g.head.i == p.head.i
            out["gold"] += in_gold
            out["system"] += in_pred
            out["correct"] += in_gold and right
            out["correct_system"] += in_pred and right
            out["system_gold_crosses_none"] += in_pred and not in_gold
    return out


def parser_names(nlp, has, option: str) -> list:
    """The names of the pipeline's components for which has(component) is true: the
    parsers a parse-time option sets; ValueError naming the option if there is none."""
    components = getattr(nlp, "pipeline", [])     # none in a pipeline run in another venv
    names = [name for name, pipe in components if has(pipe)]
    if not names:
        raise ValueError(f"{option}: the pipeline "
                         f"({', '.join(name for name, _ in components) or type(nlp).__name__}) "
                         "has no transition-based parser to set it on")
    return names


def has_penalty(pipe) -> bool:
    """A dynoracle_parser (DynOracleParser.nonprojective_penalty; spaCy's parser has none)."""
    return hasattr(type(pipe), "nonprojective_penalty")


def penalty_sweep(nlp, path, penalties, select="all", n_sents=10, batch_size=64, gold_sents=False):
    """{penalty: scores} of the pipeline with the parsers' nonprojective_penalty at each
    value (set back to what it was afterwards). The components before the first parser run once; the parser and those after it
    run on copies of their output for every value (the parser reads the shared tok2vec's
    doc.tensor, which Doc.copy keeps)."""
    parsers = parser_names(nlp, has_penalty, f"--nonprojective-penalty {penalties}")
    names = [name for name, _ in nlp.pipeline]
    first = names.index(parsers[0])
    with nlp.select_pipes(disable=names[first:]):
        gold, before = parse_gold_words(nlp, path, select, n_sents, batch_size, gold_sents)
    results = {}
    saved = {name: nlp.get_pipe(name).nonprojective_penalty for name in parsers}
    try:
        for penalty in penalties:
            for name in parsers:
                nlp.get_pipe(name).nonprojective_penalty = penalty
            pred = [doc.copy() for doc in before]
            for name in names[first:]:
                pred = list(nlp.get_pipe(name).pipe(pred, batch_size=batch_size))
            result = scores(gold, pred, path, select, n_sents, gold_sents)
            result["CrossingArcs"] = crossing_arcs(gold, pred)
            result["settings"]["nonprojective_penalty"] = penalty
            results[penalty] = result
    finally:       # the pipeline parses as before the sweep
        for name, penalty in saved.items():
            nlp.get_pipe(name).nonprojective_penalty = penalty
    return results


def scores(gold, pred, path, select, n_sents, gold_sents) -> dict:
    """The scores of record of predicted Docs against the gold ones (no per-label table),
    with the tagging accuracies, the data settings and the multi-root count."""
    from spacy_dynoracle.evaluate import evaluate_docs

    result = evaluate_docs(gold, pred)
    result.pop("PerLabel", None)
    result.update(tagging_accuracy(gold, pred))
    result["settings"] = {"data": str(path), "select": select, "n_sents": n_sents,
                          "gold_sents": gold_sents}
    result["multi_root_sentences"] = multi_root_sentences(pred)
    return result


def evaluate(nlp, path, select="all", n_sents=10, batch_size=64, gold_sents=False):
    from spacy_dynoracle.conllu_io import words_only_copy

    gold, pred = parse_gold_words(nlp, path, select, n_sents, batch_size, gold_sents)
    result = scores(gold, pred, path, select, n_sents, gold_sents)
    if gold_sents:      # scores only: the speed of record is that of the parser segmenting
        return result
    inputs = [words_only_copy(doc) for doc in gold]
    seconds, cpu = timed_pipe(nlp, inputs, batch_size)
    n_words = sum(len(d) for d in gold)
    result["speed"] = {"words": n_words, "seconds": round(seconds, 3),
                       "words_per_s": round(n_words / seconds, 1),
                       "cpu_seconds": round(cpu, 3), "words_per_cpu_s": round(n_words / cpu, 1)}
    return result


def penalty_name(penalty: float) -> str:
    """The file-name form of a nonprojective_penalty: 0.5, 1, 2, -1 (shortest decimal)."""
    return f"{penalty:g}"


def eval_path(folder: Path, split: str, gold_sents=False, model="model-best", beam_width=None,
              penalty=None) -> Path:
    """eval_<split>[_gold_sents][_last][_beamK][_nppX].json: model-last's scores and those of
    a beam or a nonprojective_penalty at parse time sit beside model-best's."""
    last = "_last" if model == "model-last" else ""
    beam = f"_beam{beam_width}" if beam_width else ""
    npp = f"_npp{penalty_name(penalty)}" if penalty is not None else ""
    return Path(folder) / f"eval_{split}{'_gold_sents' if gold_sents else ''}{last}{beam}{npp}.json"


def set_beam_width(nlp, beam_width: int):
    """Parse with a beam of beam_width (>= 1; 1 = greedy) in every parser of the pipeline
    (spaCy's and ours read cfg["beam_width"] when they predict)."""
    if beam_width < 1:
        raise ValueError(f"--beam-width must be >= 1 (1 = greedy), not {beam_width}")
    for name in parser_names(nlp, lambda pipe: "beam_width" in getattr(pipe, "cfg", {}),
                             f"--beam-width {beam_width}"):
        nlp.get_pipe(name).cfg["beam_width"] = beam_width


def one_decimal(value) -> str:
    """A percentage for the log line; "–" where it is undefined (None: nothing predicted)."""
    return "–" if value is None else f"{value:.1f}"


def evaluate_run(folder: Path, ud_root=None, model="model-best", force=False, gold_sents=False,
                 splits=("dev", "test"), venv=None, beam_width=None, penalties=None):
    folder = Path(folder)
    if not (folder / "run.json").exists():     # still training, or a failed run
        print(f"skipped {folder}: no run.json (not trained yet)", flush=True)
        return
    info = json.loads((folder / "run.json").read_text())
    if info.get("system") == "udpipe1":
        print(f"skipped {folder}: a UDPipe run (scripts/udpipe_peer.py scores it, from gold "
              f"sentences already)", flush=True)
        return
    files = treebank_files(info["treebank"], ud_root)
    todo = split_sources(files)
    nlp = None
    for split in splits:
        path, select = todo[split]
        outs = {penalty: eval_path(folder, split, gold_sents, model, beam_width, penalty)
                for penalty in (penalties or [None])}
        outs = {penalty: out for penalty, out in outs.items() if force or not out.exists()}
        if path is None or not outs:
            continue
        if nlp is None:
            nlp = load_pipeline(folder, model, info, venv)
            if beam_width:
                set_beam_width(nlp, beam_width)
        if penalties:
            results = penalty_sweep(nlp, path, list(outs), select=select, gold_sents=gold_sents)
        else:
            results = {None: evaluate(nlp, path, select=select, gold_sents=gold_sents)}
        for penalty, result in results.items():
            result["model"] = str(folder / model)
            if beam_width:
                result["settings"]["beam_width"] = beam_width
            write_json(outs[penalty], result)
            speed = result.get("speed")
            print(f"{folder.name} {model} {split}{' (gold sentences)' if gold_sents else ''}"
                  f"{f' beam {beam_width}' if beam_width else ''}"
                  f"{f' nonprojective_penalty {penalty_name(penalty)}' if penalty is not None else ''}: "
                  f"UAS {result['UAS']['f1']:.2f} LAS {result['LAS']['f1']:.2f} CLAS {result['CLAS']['f1']:.2f}"
                  + (f" ({speed['words_per_s']:,.0f} words/s, {speed['words_per_cpu_s']:,.0f} per CPU second)"
                     if speed else "")
                  + (f" NP arcs R {one_decimal(result['NonProjArcs']['recall'])}"
                     f" P {one_decimal(result['NonProjArcs']['precision'])}"
                     f" crossing gold/pred {result['CrossingArcs']['gold']}/{result['CrossingArcs']['system']}"
                     if penalty is not None else ""), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="*", type=Path, help="run folders (with run.json)")
    ap.add_argument("--treebank", help="instead of folders: the run of train_one.py with these settings")
    ap.add_argument("--system")
    ap.add_argument("--oracle", default="dynamic")
    ap.add_argument("--option", action="append")
    ap.add_argument("--pipeline", default="parser")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--output", type=Path, default=PROJECT / "training")
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--model", default="model-best")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--gold-sents", action="store_true",
                    help="preset the gold sentence boundaries; writes eval_<split>_gold_sents.json")
    ap.add_argument("--splits", default="dev,test", help="dev,test (default) or one of them")
    ap.add_argument("--beam-width", type=int, default=None,
                    help="parse with this beam width (beam search at parse time only); writes "
                         "eval_<split>[_gold_sents][_last]_beam<K>.json")
    ap.add_argument("--nonprojective-penalty", default=None,
                    help="comma-separated values of the dynoracle_parser's nonprojective_penalty to "
                         "parse with (parse time only); writes eval_<split>[_gold_sents][_last]"
                         "[_beamK]_npp<X>.json for each")
    ap.add_argument("--biaffine-venv", type=Path, default=None,
                    help="the venv that runs a biaffine run (default: the python it trained with)")
    args = ap.parse_args(argv)
    splits = [s for s in args.splits.split(",") if s]
    if not splits or set(splits) - {"dev", "test"}:
        ap.error(f"--splits: dev and/or test, not {args.splits!r}")
    penalties = None
    if args.nonprojective_penalty is not None:
        try:
            penalties = [float(x) for x in args.nonprojective_penalty.split(",") if x]
        except ValueError:
            ap.error(f"--nonprojective-penalty: comma-separated numbers, not {args.nonprojective_penalty!r}")
        if not penalties:
            ap.error("--nonprojective-penalty: give at least one value")
    runs = list(args.runs)
    if args.treebank:
        from matrix import make_run
        from spacy_dynoracle.options import parse_options

        run = make_run(args.system, args.oracle, parse_options(args.option))
        runs.append(run_dir(args.output, args.treebank, args.pipeline, run.id, args.seed))
    if not runs:
        ap.error("give run folders or --treebank/--system/--oracle")
    for folder in runs:
        evaluate_run(folder, args.ud_root, args.model, args.force, gold_sents=args.gold_sents,
                     splits=splits, venv=args.biaffine_venv, beam_width=args.beam_width,
                     penalties=penalties)


if __name__ == "__main__":
    main()
