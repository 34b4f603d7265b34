"""Command line: ``spacy-dynoracle`` / ``python -m spacy_dynoracle``.

Commands: evaluate, parse, stats, render (see ``docs/ud_io.md``), calibration (arc
marginals, ``docs/tabulation.md``).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, Iterable, List, NoReturn, Optional, Sequence, Set

import typer
from wasabi import msg

from .conllu_io import REPLACEABLE, Sentence, missing_path, read_conllu, same_file
from .corpus import SELECT_HELP
from .progress import progress_bar

app = typer.Typer(
    name="spacy-dynoracle",
    help="UD tools for spacy-dynoracle: evaluate and run pipelines on CoNLL-U, treebank "
    "statistics and coverage by transition system, displaCy rendering.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

def _print_version(value: bool) -> None:
    if not value:
        return
    import spacy

    from . import __version__

    try:
        from ._build_info import SPACY_VERSION
        built = f" (extensions built against spaCy {SPACY_VERSION})"
    except ImportError:
        built = " (extensions not built)"
    typer.echo(f"spacy-dynoracle {__version__}{built}\nspaCy {spacy.__version__}")
    raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the versions of spacy-dynoracle and spaCy, and exit"),
) -> None:
    pass


# Bad input and bad options: ConlluError is a ValueError, a missing file an OSError.
_DATA_ERRORS = (ValueError, OSError)

# Every command that reads CoNLL-U takes it (conllu_io.read_conllu's `lenient`).
_LENIENT = typer.Option(False, "--lenient", help="Repair CR LF line ends, a byte-order mark and "
                        "a missing final empty line (counted, with a warning) instead of stopping")


def _fail(error: Exception) -> NoReturn:
    # Not msg.fail: wasabi wraps at 80 columns, which would split "file:line: problem"
    # (the format editors and terminals recognise) over several lines.
    typer.secho(f"\u2718 {error}", fg="red", err=True)
    raise typer.Exit(1)


def _require(path: Path) -> None:
    """Fail on a missing input before loading a pipeline (seconds) for nothing."""
    if not path.exists():
        _fail(missing_path(path))


def _load(model: str):
    import spacy

    try:
        return spacy.load(model)
    except (OSError, ValueError) as e:
        _fail(e)


def _write_json(path: Path, data) -> None:
    # The standard json module keeps full float precision (srsly rounds to 10 digits).
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _fmt(value: Optional[float], decimals: int = 2) -> str:
    return "-" if value is None else f"{value:.{decimals}f}"


# --------------------------------------------------------------------------- evaluate

_MAIN_METRICS = (
    ("UAS", ("UAS",)),
    ("LAS", ("LAS",)),
    ("CLAS", ("CLAS",)),
    ("Sentences", ("Sentences",)),
    ("NonProj arcs (unlabelled)", ("NonProjArcs",)),
    ("NonProj arcs (labelled)", ("NonProjArcsLabelled",)),
    ("UAS on NonProj sentences", ("NonProjSentences", "UAS")),
    ("LAS on NonProj sentences", ("NonProjSentences", "LAS")),
)


def print_scores(result: dict, per_label: bool = True) -> None:
    """Print an `evaluate_docs` result as wasabi tables."""
    rows = []
    for name, keys in _MAIN_METRICS:
        score = result
        for key in keys:
            score = score.get(key) if score else None
        if score is None:
            continue
        rows.append((name, _fmt(score["precision"]), _fmt(score["recall"]), _fmt(score["f1"]),
                     score["gold"], score["system"]))
    nps = result["NonProjSentences"]
    msg.text(f"{result['words']} words, {result['sentences']} sentences, "
             f"{nps['sentences']} non-projective sentences ({nps['words']} words)")
    msg.table(rows, header=("metric", "P", "R", "F1", "gold", "system"), divider=True,
              aligns=("l", "r", "r", "r", "r", "r"), max_col=60)
    if per_label:
        label_rows = [(label or "(none)", s["gold"], s["system"], _fmt(s["precision"]), _fmt(s["recall"]),
                       _fmt(s["f1"])) for label, s in result["PerLabel"].items()]
        msg.table(label_rows, header=("label", "gold", "system", "P", "R (LAS)", "F1"), divider=True,
                  aligns=("l", "r", "r", "r", "r", "r"), max_col=60)


@app.command("evaluate")
def evaluate_command(
    model: str = typer.Argument(..., help="Pipeline package name or path"),
    data: Path = typer.Argument(..., help="Gold .conllu file or directory of .conllu files"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Also write the scores as JSON here"),
    gold_sents: bool = typer.Option(False, "--gold-sents", help="Preset gold sentence boundaries"),
    n_sents: int = typer.Option(10, "--n-sents", help="Gold sentences per Doc fed to the pipeline"),
    select: str = typer.Option("all", "--select", help=SELECT_HELP),
    batch_size: int = typer.Option(64, "--batch-size", help="Docs per nlp.pipe batch"),
    per_label: bool = typer.Option(True, "--per-label/--no-per-label", help="Print the per-label table"),
    lenient: bool = _LENIENT,
) -> None:
    """Score MODEL on the gold words of DATA (CoNLL 2018 UAS/LAS/CLAS + non-projective scores)."""
    from .evaluate import evaluate_pipeline

    _require(data)
    nlp = _load(model)
    try:
        result = evaluate_pipeline(nlp, data, gold_sents=gold_sents, n_sents=n_sents,
                                   batch_size=batch_size, select=select, progress=True, lenient=lenient)
    except _DATA_ERRORS as e:
        _fail(e)
    result["settings"]["model"] = model
    msg.divider(f"{model} on {data}")
    print_scores(result, per_label)
    if json_path is not None:
        _write_json(json_path, result)
        msg.good(f"Wrote scores to {json_path}")


@app.command("calibration")
def calibration_command(
    model: str = typer.Argument(..., help="Pipeline with a window-model dynoracle_parser"),
    data: Path = typer.Argument(..., help="Gold .conllu file or directory of .conllu files"),
    decode: Optional[str] = typer.Option(None, "--decode", help="'greedy' or 'exact' (default: the pipeline's)"),
    bins: int = typer.Option(10, "--bins", help="Equal-width confidence bins"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Also write scores and tables as JSON here"),
    gold_sents: bool = typer.Option(False, "--gold-sents", help="Preset gold sentence boundaries"),
    n_sents: int = typer.Option(10, "--n-sents", help="Gold sentences per Doc fed to the pipeline"),
    select: str = typer.Option("all", "--select", help=SELECT_HELP),
    lenient: bool = _LENIENT,
) -> None:
    """Calibration of the arc marginals of MODEL on DATA: expected calibration error and
    reliability table of the probability of each word's predicted head (docs/tabulation.md)."""
    from .calibration import evaluate_with_calibration, reliability_markdown

    _require(data)
    nlp = _load(model)
    try:
        scores, calibration = evaluate_with_calibration(
            nlp, data, decode=decode, gold_sents=gold_sents, n_sents=n_sents, select=select, n_bins=bins,
            lenient=lenient)
    except _DATA_ERRORS as e:
        _fail(e)
    msg.divider(f"{model} on {data} ({scores['settings']['decode']} decoding)")
    msg.text(f"{scores['words']} words: UAS {_fmt(scores['UAS']['f1'])}, LAS {_fmt(scores['LAS']['f1'])}")
    for name, what in (("decoded", "the parser's heads"), ("argmax", "each word's most probable head")):
        r = calibration[name]
        ece = "-" if r["ece"] is None else f"{100 * r['ece']:.2f}"
        print()
        msg.text(f"ECE of {what}: {ece} (percentage points)")
        print(reliability_markdown(r))
    if json_path is not None:
        scores["settings"]["model"] = model
        _write_json(json_path, {"scores": scores, "calibration": calibration})
        msg.good(f"Wrote scores and calibration to {json_path}")


# --------------------------------------------------------------------------- parse

# The Token attribute each replaceable column comes from, as components declare it in their
# factory's `assigns`; attribute_ruler declares nothing, so its patterns' attributes count.
_COLUMN_ATTRS = {"LEMMA": "token.lemma", "UPOS": "token.pos", "XPOS": "token.tag",
                 "FEATS": "token.morph", "HEAD": "token.head", "DEPREL": "token.dep"}
_RULER_ATTRS = {"LEMMA": "token.lemma", "POS": "token.pos", "TAG": "token.tag", "MORPH": "token.morph"}


def check_predicted_columns(nlp, columns: Sequence[str]) -> None:
    """Refuse to replace a column that no component of the pipeline predicts (it would be
    written as '_')."""
    assigned: Set[str] = set()
    for name, pipe in nlp.pipeline:
        meta = nlp.get_pipe_meta(name)
        assigned.update(meta.assigns)
        if meta.factory == "attribute_ruler":
            assigned.update(_RULER_ATTRS.get(key.upper(), "") for p in pipe.patterns for key in p["attrs"])
    for column in columns:
        attr = _COLUMN_ATTRS.get(column)
        if attr is not None and attr not in assigned:
            predicted = [c for c, a in _COLUMN_ATTRS.items() if a in assigned]
            raise ValueError(
                f"--replace {column}: no component of the pipeline predicts {attr} (its components: "
                f"{', '.join(nlp.pipe_names) or 'none'}); it can replace {', '.join(predicted) or 'no column'}")


@app.command("parse")
def parse_command(
    model: str = typer.Argument(..., help="Pipeline package name or path"),
    input_path: Path = typer.Argument(..., help="Input .conllu (HEAD/DEPREL may be '_'), or a .txt file "
                                      "(one document per non-empty line)"),
    output_path: Path = typer.Argument(..., help="Output .conllu"),
    resegment: bool = typer.Option(
        False, "--resegment", help="Let the pipeline split the Docs of --n-sents input sentences into "
        "its own sentences (written renumbered, without comments, where they differ from the input's)"),
    gold_sents: bool = typer.Option(False, "--gold-sents", hidden=True,
                                    help="Accepted for compatibility: the input's sentences are the default"),
    n_sents: int = typer.Option(10, "--n-sents", help="Input sentences per Doc fed to the pipeline"),
    batch_size: int = typer.Option(64, "--batch-size", help="Docs per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", help="Parse in this many processes (nlp.pipe's n_process)"),
    input_format: str = typer.Option("auto", "--input-format",
                                     help="'conllu', 'text', or 'auto' (.txt is text, anything else CoNLL-U)"),
    replace: str = typer.Option("HEAD,DEPREL", "--replace",
                                help=f"Columns taken from the pipeline, from {','.join(REPLACEABLE)}"),
    lenient: bool = _LENIENT,
) -> None:
    """Parse the words of a CoNLL-U file (or the text of a .txt file); write CoNLL-U with the
    original other columns.

    The input's sentences are kept (their boundaries are preset, so every sentence is written
    with its comments) unless --resegment is given. Any file size: sentences are read, parsed
    and written as a stream (docs/corpus_parsing.md)."""
    from .parsing import parse_file

    columns = [c.strip().upper() for c in replace.split(",") if c.strip()]
    if gold_sents and resegment:
        _fail(ValueError("--gold-sents (the default: keep the input's sentences) contradicts --resegment"))
    _require(input_path)
    if same_file(input_path, output_path):
        _fail(ValueError(f"{output_path}: the output is the input file {input_path}; "
                         "write to another path"))
    nlp = _load(model)
    try:
        check_predicted_columns(nlp, columns)
        n = parse_file(nlp, input_path, output_path, replace=columns, input_format=input_format,
                       n_sents=n_sents, resegment=resegment, batch_size=batch_size, n_process=n_process,
                       lenient=lenient, progress=lambda docs: progress_bar(docs, "parsing", "doc"))
    except _DATA_ERRORS as e:
        _fail(e)
    msg.good(f"Wrote {n} sentence{'' if n == 1 else 's'} to {output_path}")


# --------------------------------------------------------------------------- stats


def stats_files(paths: Iterable[Path]) -> List[Path]:
    """Files for `stats`: each file given, and every ``*.conllu`` under a directory."""
    files: List[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.rglob("*.conllu"))
            if not found:
                raise FileNotFoundError(f"no *.conllu files under {path}")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            raise missing_path(path)
    return files


def _coverage_columns(systems: Sequence[str]) -> List[List[str]]:
    """Systems grouped by coverage check: identical checks share a column."""
    from .coverage import COVERAGE_CHECKS

    groups: Dict[int, List[str]] = {}
    for name in systems:
        groups.setdefault(id(COVERAGE_CHECKS[name]), []).append(name)
    return list(groups.values())


def stats_rows(results: Dict[str, dict], systems: Sequence[str]) -> List[tuple]:
    rows = []
    for name, s in results.items():
        row = [name, f"{s['sentences']:,}", f"{s['tokens']:,}", f"{s['words']:,}",
               _fmt(s["nonproj_sentences_pct"]), _fmt(s["nonproj_arcs_pct"], 3)]
        row += [_fmt(s["coverage"][group[0]]["pct"]) for group in _coverage_columns(systems)]
        rows.append(tuple(row))
    return rows


@app.command("stats")
def stats_command(
    paths: List[Path] = typer.Argument(..., help=".conllu files or directories (searched recursively)"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Also write the statistics as JSON here"),
    select: str = typer.Option("all", "--select", help=SELECT_HELP),
    systems: Optional[str] = typer.Option(None, "--systems", help="Comma-separated systems (default: all registered)"),
    lenient: bool = _LENIENT,
) -> None:
    """Sentences, tokens, words, % non-projective sentences/arcs, coverage per transition system."""
    from .corpus import read_sentences
    from .coverage import COVERAGE_CHECKS, treebank_stats

    names = [s.strip() for s in systems.split(",")] if systems else list(COVERAGE_CHECKS)
    results: Dict[str, dict] = {}
    try:
        files = stats_files(paths)
        for file in progress_bar(files, "stats", "file", show=len(files) > 1):
            label = f"{file.parent.name}/{file.name}" if len(files) > 1 else str(file)
            results[label] = treebank_stats(read_sentences(file, select=select, lenient=lenient), names)
    except _DATA_ERRORS as e:
        _fail(e)
    header = ["file", "sents", "tokens", "words", "%NP sents", "%NP arcs"]
    header += ["/".join(group) + " cov%" for group in _coverage_columns(names)]
    msg.table(stats_rows(results, names), header=header, divider=True,
              aligns=["l"] + ["r"] * (len(header) - 1), max_col=80)
    if json_path is not None:
        _write_json(json_path, results)
        msg.good(f"Wrote statistics to {json_path}")


# --------------------------------------------------------------------------- render


def parse_sentence_numbers(spec: str) -> Set[int]:
    """"1,4-6" -> {1, 4, 5, 6} (1-based sentence numbers)."""
    numbers: Set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            raise ValueError(f"invalid sentence numbers {spec!r}: use e.g. '1,4-6'") from None
        if low < 1 or high < low:
            raise ValueError(f"invalid sentence range {part!r} (numbers start at 1)")
        numbers.update(range(low, high + 1))
    return numbers


def choose_sentences(
    sentences: Iterable[Sentence],
    numbers: Optional[Set[int]] = None,
    sent_ids: Optional[Set[str]] = None,
    nonproj: bool = False,
    limit: int = 10,
) -> List[tuple]:
    """(1-based number, sentence) pairs passing every given filter, at most `limit`."""
    from .trees import is_projective

    chosen = []
    for number, sentence in enumerate(sentences, 1):
        if numbers is not None and number not in numbers:
            continue
        if sent_ids is not None and sentence.sent_id not in sent_ids:
            continue
        if nonproj and (not sentence.is_parsed or is_projective(sentence.heads)):
            continue
        chosen.append((number, sentence))
        if limit and len(chosen) >= limit:
            break
    return chosen


def _title(number: int, sentence: Sentence, what: str) -> str:
    name = f"sent_id {sentence.sent_id}" if sentence.sent_id else f"sentence {number}"
    return f"{name} ({what})"


@app.command("render")
def render_command(
    source: str = typer.Argument(..., help="A .conllu file (gold trees) or a pipeline name/path"),
    data: Optional[Path] = typer.Argument(None, help="The .conllu to parse when SOURCE is a pipeline"),
    out: Path = typer.Option(..., "--out", help="Output .html (one page) or .svg (one file per tree)"),
    sents: Optional[str] = typer.Option(None, "--sents", help="Sentence numbers, e.g. '1,4-6'"),
    sent_id: Optional[List[str]] = typer.Option(None, "--sent-id", help="A sent_id to render (repeatable)"),
    nonproj: bool = typer.Option(False, "--nonproj", help="Only sentences with non-projective gold arcs"),
    limit: int = typer.Option(10, "--limit", help="At most this many sentences (0 = no limit)"),
    with_gold: bool = typer.Option(False, "--gold", help="With a pipeline, also draw each gold tree"),
    compact: bool = typer.Option(False, "--compact", help="displaCy's compact style"),
    uncertain: Optional[float] = typer.Option(
        None, "--uncertain", metavar="THRESHOLD",
        help="With a window-model pipeline: write the probability on arcs below THRESHOLD "
             "and draw alternative heads (docs/tabulation.md)"),
    min_alt: float = typer.Option(0.1, "--min-alt", help="With --uncertain: draw alternative heads this probable"),
    lenient: bool = _LENIENT,
) -> None:
    """Draw chosen sentences with displaCy (crossing arcs included)."""
    from spacy.tokens import Doc

    from .render import render_svgs, render_trees, sentence_to_displacy, span_to_displacy

    if out.suffix.lower() not in (".html", ".svg"):
        _fail(ValueError(f"--out must end in .html or .svg, not {out.name!r}"))
    if source.endswith(".conllu"):
        _require(Path(source))
    gold_only = Path(source).is_file()
    conllu = Path(source) if gold_only else data
    if conllu is None:
        _fail(ValueError("give the .conllu to parse after the pipeline name"))
    _require(conllu)
    if uncertain is not None and gold_only:
        _fail(ValueError("--uncertain draws a pipeline's arc marginals: give a pipeline and a .conllu"))
    if uncertain is not None and not 0 <= uncertain <= 1:
        _fail(ValueError(f"--uncertain takes a probability in [0, 1], not {uncertain}"))
    try:
        numbers = parse_sentence_numbers(sents) if sents else None
        sentences = read_conllu(conllu, require_heads=gold_only, lenient=lenient)  # type: ignore[arg-type]
        chosen = choose_sentences(sentences, numbers, set(sent_id) if sent_id else None, nonproj, limit)
    except _DATA_ERRORS as e:
        _fail(e)
    if not chosen:
        _fail(ValueError("no sentence matches the selection"))
    parses = []
    if gold_only:
        parses = [sentence_to_displacy(s, _title(n, s, "gold")) for n, s in chosen]
    else:
        nlp = _load(source)
        if uncertain is not None:
            from .exact_decoding import uncertain_arcs_displacy
            from .parser import arc_marginals_parser

            try:
                arc_marginals_parser(nlp)     # switches the marginals on for this run
            except ValueError as e:
                _fail(e)
        for number, sentence in chosen:
            words = [w.form for w in sentence.words]
            title = _title(number, sentence, source)
            # One sentence per Doc, boundaries preset: the tree drawn is the one it gets
            # (and the marginals range over the same single-rooted analyses).
            doc = nlp(Doc(nlp.vocab, words=words, spaces=sentence.spaces(),
                          sent_starts=[True] + [False] * (len(words) - 1)))
            if uncertain is None:
                parses.append(span_to_displacy(doc[:], title))
            else:
                parses.append(uncertain_arcs_displacy(doc, threshold=uncertain, min_alt=min_alt,
                                                      title=title))
            if with_gold and sentence.is_parsed:
                parses.append(sentence_to_displacy(sentence, _title(number, sentence, "gold")))
    options = {"compact": compact}
    if out.suffix.lower() == ".html":
        out.write_text(render_trees(parses, page=True, options=options), encoding="utf-8")
        written = [out]
    else:
        svgs = render_svgs(parses, options=options)
        written = [out] if len(svgs) == 1 else [out.with_name(f"{out.stem}-{i}{out.suffix}")
                                                 for i in range(1, len(svgs) + 1)]
        for path, svg in zip(written, svgs):
            path.write_text(svg, encoding="utf-8")
    msg.good(f"Rendered {len(parses)} tree(s) to {', '.join(str(p) for p in written)}")


def main(argv: Optional[List[str]] = None) -> None:
    """Console-script entry point (``spacy-dynoracle``)."""
    app(args=argv, prog_name="spacy-dynoracle")
