"""UDPipe 1 as the external peer: train its tagger + one of its parsers on the same files as
the spaCy runs, parse dev and test from gold words, score with the package's evaluation.

    python scripts/udpipe_peer.py --treebank UD_Hungarian-Szeged --variant swap
    python scripts/udpipe_peer.py --treebanks UD_Latin-Perseus,UD_Hungarian-Szeged \
        --variants swap,link2,projective-dynamic --output training/matrix

UDPipe 1 (PyPI `ufal.udpipe`, `Trainer.train` with method "morphodita_parsito") is trained
with tokenizer "none" (gold tokenization), its own MorphoDiTa tagger (UPOS, XPOS, FEATS,
lemma) and a Parsito parser chosen by --variant (VARIANTS below: the parser option string,
UDPipe 1 manual, "Training UDPipe Models > Parser"). Everything else is UDPipe's default
unless --tagger-options / --parser-options say otherwise; by default (use_gold_tags=0) the
parser trains on tags its tagger predicts. Training data: train (all of it), with dev as
UDPipe's heldout (early stopping of tagger and parser, like spaCy's model-best); a
treebank with no dev trains on the first 90% of train and holds out the last 10% -- the
carve of train_one.py (`head:0.9` / `tail:0.1`, spacy_dynoracle.corpus.selected_range).

Dev and test are parsed from gold words with predicted tags: the gold CoNLL-U with LEMMA,
UPOS, XPOS, FEATS, HEAD, DEPREL and DEPS blanked ("_"; empty nodes dropped; FORM, MISC,
multiword tokens and comments kept) goes through UDPipe's tagger, then its parser, one gold
sentence at a time (UDPipe 1 parses sentences, so unlike the spaCy runs it gets the gold
sentence boundaries). UDPipe parses with its default beam search (beam_search=5,
--parse-options to change it); the spaCy parsers are greedy, so eval_*.json also holds
"greedy": the same model's scores with beam_search=1. The output (pred_{dev,test}.conllu)
is scored with spacy_dynoracle.evaluate like evaluate_run.py: eval_{dev,test}.json with
the same keys, "speed" = tagger + parser time (excluding reading and writing) over a
second pass.

--limit / --dev-limit take the same values as run_matrix.py's (training / dev Examples,
i.e. Docs of N_SENTS sentences; 0 = all) and train on the same first sentences, so a
protocol that trains spaCy on part of a treebank (English-EWT: --limit 200 --dev-limit 100)
gives UDPipe the same part; dev and test are still scored in full, as for the spaCy runs.

Output: <output>/<treebank>/<pipeline>/udpipe1-<variant>-s0/ with model.udpipe,
udpipe_train.log (UDPipe's progress, also echoed to stderr), run.json (system "udpipe1",
the exact UDPipe options, training time, versions), pred_*.conllu and eval_*.json.

Stages, for a treebank whose training outlasts a session (English-EWT in full): --stage
tagger trains the tagger alone (tagger.udpipe, stage_tagger.json, udpipe_train_tagger.log),
then --stage parser trains the parser on that tagger's tags (model.udpipe,
udpipe_train_parser.log, run.json with train time summed over both stages) and evaluates.
The model is byte for byte the one --stage all (the default, one Trainer.train call) makes;
tests/test_ud_project.py checks it. A stage that finished is skipped.
UDPipe's three parsers can share one tagger: --stage parser --tagger-from VARIANT trains
this variant's parser on the tagger that `--variant VARIANT --stage tagger` trained (same
treebank, data and tagger options, or it is refused). The tagger is the one a one-call
training of this variant would train (the same data and options give the same bytes), so the
model is the one --stage all would make; its run.json counts the tagger's CPU seconds in
train_cpu_seconds, as if it had trained it alone, and names the folder it came from.
A parser trained on the gold tags (--parser-options use_gold_tags=1, UDPipe's option; run id
udpipe1-<variant>+gold-tags, not UDPipe's default) needs no tagger to train, so on a
treebank whose tagger and parser do not fit one session one after the other (English-EWT:
about 70 + 100 CPU minutes here) the two train at once on two cores: --stage tagger (with
the default run's --variant) beside --stage parser --tagger-from VARIANT with use_gold_tags=1,
which trains the parser alone (parser.udpipe, stage_parser.json), then, once the tagger is
there (run it again if it was not), puts both in model.udpipe (Trainer.train with both from
file) and evaluates. The model is byte for byte the one-call --stage all with
use_gold_tags=1 (tests/test_ud_project.py checks it).
UDPipe 1 has no random seed (training is deterministic: the same data and options give the
same model bytes), so there is one run, "s0". Finished steps are skipped unless --force
(retrain and re-evaluate) or --reevaluate (re-parse and re-score with the trained model).
"""
import argparse
import json
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

from udproj import (PROJECT, dev_source, run_dir, split_sources, train_source, treebank_files, versions,
                    write_json)

SYSTEM = "udpipe1"
METHOD = "morphodita_parsito"
TOKENIZER = "none"          # gold tokenization: no tokenizer is trained or used
# --variant -> Parsito options (UDPipe 1 manual; these are its three transition systems,
# projective also with its static oracle so that UDPipe's own dynamic-vs-static shows).
VARIANTS = {
    "swap": "transition_system=swap;transition_oracle=static_lazy",
    "link2": "transition_system=link2;transition_oracle=static",
    "projective-dynamic": "transition_system=projective;transition_oracle=dynamic",
    "projective-static": "transition_system=projective;transition_oracle=static",
}
PARSE_DEFAULT = "beam_search=5"   # model_morphodita_parsito::parse when no option is given
GREEDY = "beam_search=1"
# --stage: "all" trains tagger and parser in one Trainer.train call; "tagger" then "parser"
# train the same model in two calls (train() says why it is the same)
STAGES = ("all", "tagger", "parser")
TAGGER_MODEL = "tagger.udpipe"          # the tagger stage's model (tagger only, no parser)
TAGGER_RECORD = "stage_tagger.json"     # its record; not run.json, which means a finished model
STAGE_LOGS = {"all": "udpipe_train.log", "tagger": "udpipe_train_tagger.log", "parser": "udpipe_train_parser.log",
              "combine": "udpipe_combine.log"}
GOLD_TAGS = "use_gold_tags"             # UDPipe's parser option: train on the gold tags, not the tagger's
PARSER_MODEL = "parser.udpipe"          # a parser trained on gold tags alone, before its tagger exists
PARSER_RECORD = "stage_parser.json"
STAGE_KEYS = ("model", "log", "seconds", "cpu_seconds", "command")   # a stage in run.json
N_SENTS = 10      # sentences per training Example in configs/*.cfg ([corpora] n_sents)
BLANKED = ("LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS")
_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


def run_id(variant: str, parser_extra: str = "") -> str:
    """udpipe1-<variant>, with "+gold-tags" for a parser trained on the gold tags (not
    UDPipe's default, so not the default's row)."""
    return f"{SYSTEM}-{variant}" + ("+gold-tags" if gold_tags(parser_options(variant, parser_extra)) else "")


def gold_tags(parser: str) -> bool:
    """Whether the parser options train on the gold tags (UDPipe reads use_gold_tags as a
    boolean: 1 or 0)."""
    value = option_map(parser).get(GOLD_TAGS, "0")
    if value not in ("0", "1"):
        raise SystemExit(f"parser option {GOLD_TAGS}={value!r}: use 1 or 0")
    return value == "1"


def parser_options(variant: str, extra: str = "") -> str:
    """The parser option string of a variant, with extra `name=value;...` appended
    (UDPipe reads the options into a map, so a repeated name takes the later value)."""
    if variant not in VARIANTS:
        raise SystemExit(f"unknown UDPipe variant {variant!r}: choose from {', '.join(VARIANTS)}")
    return ";".join(part for part in (VARIANTS[variant], extra.strip(";")) if part)


def option_map(options: str) -> dict:
    return dict(item.split("=", 1) for item in options.split(";") if item)


def udpipe_version() -> str:
    try:
        from importlib.metadata import version

        return version("ufal.udpipe")
    except Exception:  # pragma: no cover - metadata missing
        import ufal.udpipe

        v = ufal.udpipe.Version.current()
        return f"{v.major}.{v.minor}.{v.patch}"


# ----------------------------------------------------------------------------- data

def carve(files):
    """(train select, heldout path, heldout select): the split train_one.py trains on."""
    heldout, select = dev_source(files)
    return train_source(files)[1], heldout, select


def conllu_text(sentences) -> str:
    return "".join(s.to_conllu() for s in sentences)


def blank_sentence(sentence) -> str:
    """CoNLL-U of a gold sentence with only what a parser from gold words may see: ID,
    FORM, MISC (SpaceAfter), multiword tokens and comments; the BLANKED columns are "_"
    and empty nodes (enhanced UD) are dropped."""
    from spacy_dynoracle.conllu_io import format_sentence

    blank = [_COLUMNS.index(c) for c in BLANKED]
    rows = []
    for word in sentence.words:
        cols = word.columns()
        for i in blank:
            cols[i] = "_"
        rows.append(cols)
    return format_sentence(sentence.comments, rows, [m.columns for m in sentence.multiword_tokens], [])


def read_udpipe(text: str):
    """ufal.udpipe.Sentences of a CoNLL-U string (UDPipe's own reader)."""
    import ufal.udpipe as udpipe

    reader = udpipe.InputFormat.newConlluInputFormat()
    reader.setText(text)
    sentences, error = udpipe.Sentences(), udpipe.ProcessingError()
    sentence = udpipe.Sentence()
    while reader.nextSentence(sentence, error):
        sentences.append(sentence)
        sentence = udpipe.Sentence()
    if error.occurred():
        raise RuntimeError(f"UDPipe cannot read the CoNLL-U: {error.message}")
    return sentences


# ----------------------------------------------------------------------------- training

def train_model(train_path, heldout_path, model_path, tagger, parser) -> None:
    """Child process (see run_trainer): UDPipe's Trainer.train; its progress goes to stderr.
    The model is written to a temporary name and renamed, so a killed training leaves no
    model file that could pass for a finished stage."""
    import ufal.udpipe as udpipe

    train = read_udpipe(Path(train_path).read_text(encoding="utf-8"))
    heldout = read_udpipe(Path(heldout_path).read_text(encoding="utf-8")) if heldout_path else udpipe.Sentences()
    error = udpipe.ProcessingError()
    model = udpipe.Trainer.train(METHOD, train, heldout, TOKENIZER, tagger, parser, error)
    if error.occurred():
        raise SystemExit(f"UDPipe training failed: {error.message}")
    partial = Path(model_path).with_name(Path(model_path).name + ".partial")
    partial.write_bytes(model)
    partial.replace(model_path)


def heldout_curve(log_lines):
    """[(component, iteration, {metric: value})] of the heldout scores UDPipe prints."""
    curve, component = [], "tagger"
    for line in log_lines:
        if line.startswith("Parser "):
            component = "parser"
        m = re.match(r"Iteration (\d+): (.*)", line)
        if m and "heldout" in m.group(2):
            scores = {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+)%", m.group(2).split("heldout", 1)[1])}
            curve.append({"component": component, "iteration": int(m.group(1)), **scores})
    return curve


def first_examples(sentences, limit):
    """The sentences of the first `limit` training Examples (Docs of N_SENTS sentences,
    as the corpus reader groups them; 0 = all)."""
    return sentences[:limit * N_SENTS] if limit else sentences


def run_trainer(out: Path, model_name: str, log_name: str, tagger: str, parser: str) -> dict:
    """One Trainer.train call in a child process (train_model) on out/train.conllu and
    out/heldout.conllu -> out/model_name; UDPipe's progress is echoed to stderr and kept in
    out/log_name, line by line (a killed training keeps its log). Returns the stage record:
    wall and CPU seconds, the command line, the heldout scores UDPipe printed."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--train-model",
           str(out / "train.conllu"), str(out / "heldout.conllu"), str(out / model_name), tagger, parser]
    start = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    log = []
    with subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, bufsize=1) as proc, \
            open(out / log_name, "w", encoding="utf-8", buffering=1) as log_file:
        for line in proc.stderr:          # UDPipe prints its progress on stderr: show and keep it
            sys.stderr.write(line)
            sys.stderr.flush()
            log_file.write(line)
            log.append(line.rstrip("\n"))
    if proc.returncode:
        raise SystemExit(f"UDPipe training failed ({proc.returncode}), see {out / log_name}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"model": model_name, "log": log_name, "seconds": round(time.time() - start, 1),
            "cpu_seconds": round(cpu, 1), "command": shlex.join([sys.executable] + sys.argv),
            "heldout_curve": heldout_curve(log)}


def check_settings(out: Path, record: Path, limit: int, dev_limit: int, tagger=None):
    """SystemExit unless the stage record at out/record was trained on the same data (and,
    for a tagger given, with the same tagger options)."""
    info = json.loads(record.read_text())
    trained = info.get("settings", {"limit": 0, "dev_limit": 0})
    if trained != {"limit": limit, "dev_limit": dev_limit}:
        raise SystemExit(f"{out} was trained with {trained}, not limit={limit}, "
                         f"dev_limit={dev_limit}: another --output, or --force to retrain")
    if tagger is not None and info["udpipe"]["tagger"] != tagger:
        raise SystemExit(f"{record} trained the tagger with {info['udpipe']['tagger']!r}, not {tagger!r}: "
                         f"the same --tagger-options, or --stage tagger --force to retrain it")
    return info


def tagger_trained(tagger_dir: Path) -> bool:
    """Whether tagger_dir holds a finished tagger stage (its model and its record)."""
    return (tagger_dir / TAGGER_RECORD).exists() and (tagger_dir / TAGGER_MODEL).exists()


def check_tagger(out: Path, tagger_dir: Path, tagger: str, limit: int, dev_limit: int, n_train: int,
                 n_heldout: int):
    """The record of tagger_dir's staged tagger, naming that folder when it is not out (a
    shared tagger); SystemExit unless it was trained with these tagger options on this data."""
    info = check_settings(tagger_dir, tagger_dir / TAGGER_RECORD, limit, dev_limit, tagger)
    if (info["udpipe"]["train_sentences"], info["udpipe"]["heldout_sentences"]) != (n_train, n_heldout):
        raise SystemExit(f"{tagger_dir / TAGGER_RECORD} was trained on other data: --stage tagger --force")
    return info if tagger_dir == out else {**info, "shared_from": str(tagger_dir)}


def train_gold_tag_parser(out: Path, tagger_dir: Path, tagger: str, parser: str, data: dict,
                          limit: int, dev_limit: int) -> dict:
    """--stage parser with use_gold_tags=1: the parser alone (tagger "none": UDPipe then
    trains and early-stops on the gold tags, as use_gold_tags=1 does in one call) ->
    out/parser.udpipe, kept across calls; then tagger_dir's tagger and that parser, both
    from file, -> out/model.udpipe. SystemExit after the parser if the tagger is not
    trained yet (it trains at the same time on the other core). Returns the stages."""
    record_path = out / PARSER_RECORD
    if record_path.exists() and (out / PARSER_MODEL).exists():
        parser_info = check_settings(out, record_path, limit, dev_limit)
        if parser_info["udpipe"]["parser"] != parser or \
                (parser_info["udpipe"]["train_sentences"], parser_info["udpipe"]["heldout_sentences"]) != \
                (data["train_sentences"], data["heldout_sentences"]):
            raise SystemExit(f"{record_path} was trained with {parser_info['udpipe']['parser']!r} "
                             f"on other data or options: --force to retrain")
        print(f"parser trained already on gold tags: {out / PARSER_MODEL}", flush=True)
    else:
        record = run_trainer(out, PARSER_MODEL, STAGE_LOGS["parser"], "none", parser)
        parser_info = {"stage": "parser", **record, "settings": {"limit": limit, "dev_limit": dev_limit},
                       "udpipe": {"method": METHOD, "tokenizer": TOKENIZER, "tagger": "none",
                                  "parser": parser, **data},
                       "versions": {**versions(), "ufal.udpipe": udpipe_version()}}
        write_json(record_path, parser_info)
    if not tagger_trained(tagger_dir):       # again: it may have finished meanwhile
        raise SystemExit(f"parser trained on gold tags: {out / PARSER_MODEL}; no trained tagger in "
                         f"{tagger_dir} yet: run --stage tagger there, then this command again "
                         f"to combine the two and evaluate")
    tagger_info = check_tagger(out, tagger_dir, tagger, limit, dev_limit, data["train_sentences"],
                               data["heldout_sentences"])
    combine = run_trainer(out, "model.udpipe", STAGE_LOGS["combine"],
                          f"from_model=file:{(tagger_dir / TAGGER_MODEL).resolve()}",
                          f"from_model=file:{(out / PARSER_MODEL).resolve()}")
    return {"tagger": tagger_info, "parser": parser_info, "combine": combine}


def train(treebank, variant, out: Path, *, ud_root=None, pipeline="parser", tagger="",
          parser_extra="", force=False, limit=0, dev_limit=0, stage="all", tagger_dir=None):
    """Train UDPipe into out. stage "all": one Trainer.train call (tagger, then the parser
    on the tags of that tagger) -> model.udpipe. The same model in two calls that each fit
    in a session: "tagger" trains the tagger alone (parser "none") -> tagger.udpipe and
    stage_tagger.json; "parser" gives Trainer.train that tagger (from_model) and the same
    parser options -> model.udpipe: UDPipe copies the tagger's bytes into the model and
    tags the training and heldout data with it before training the parser, as the one call
    does with the tagger it has just trained (trainer_morphodita_parsito.cpp, train_tagger
    and train_parser), so the model bytes are the same. run.json is written when
    model.udpipe is, so a folder with the tagger only is no finished run to report.py or
    keep_records.py. tagger_dir: the run folder whose tagger stage the parser stage uses
    (default out itself; another variant's folder shares its tagger)."""
    from spacy_dynoracle.corpus import read_sentences

    if stage not in STAGES:
        raise SystemExit(f"unknown --stage {stage!r}: choose from {', '.join(STAGES)}")
    if tagger_dir is not None and stage != "parser":
        raise SystemExit(f"--tagger-from is for --stage parser, not --stage {stage}")
    tagger_dir = out if tagger_dir is None else tagger_dir
    parser = parser_options(variant, parser_extra)
    gold = gold_tags(parser)
    # a parser on gold tags trains without the tagger, which it needs only to combine; the
    # tagger trains meanwhile in the default run's folder, never in this one (whose files a
    # tagger stage would rewrite under the parser's feet)
    if stage == "parser" and gold and tagger_dir == out:
        raise SystemExit(f"a parser on gold tags ({GOLD_TAGS}=1) takes the tagger of the default "
                         f"run's folder: add --tagger-from {variant}")
    files = treebank_files(treebank, ud_root)
    if limit < 0 or dev_limit < 0:
        raise SystemExit(f"--limit and --dev-limit must be >= 0 (got {limit}, {dev_limit})")
    tagger_record = tagger_dir / TAGGER_RECORD
    if (out / "run.json").exists() and (out / "model.udpipe").exists() and not force:
        info = check_settings(out, out / "run.json", limit, dev_limit)
        print(f"trained already: {out} (--force to retrain)", flush=True)
        return info
    if stage == "tagger" and tagger_trained(out) and not force:
        check_settings(out, tagger_record, limit, dev_limit, tagger)
        print(f"tagger trained already: {out / TAGGER_MODEL} (--force to retrain)", flush=True)
        return None
    if stage == "parser" and not gold and not tagger_trained(tagger_dir):
        raise SystemExit(f"no trained tagger in {tagger_dir}: run --stage tagger first"
                         + (" with that folder's --variant" if tagger_dir != out else ""))
    out.mkdir(parents=True, exist_ok=True)
    # what this stage makes stale: the finished model and its scores, and the logs of the
    # other way (e.g. the empty udpipe_train.log of a one-call training killed with its
    # session); a new tagger, or a one-call training, also drops the staged tagger
    stale = ["model.udpipe", "run.json"] + [p.name for p in out.glob("eval_*.json")]
    if stage == "parser":
        stale += [STAGE_LOGS["all"], STAGE_LOGS["combine"]]
        if force or not gold:
            stale += [PARSER_MODEL, PARSER_RECORD]
    else:
        stale += [TAGGER_MODEL, TAGGER_RECORD, PARSER_MODEL, PARSER_RECORD] + \
            [log for name, log in STAGE_LOGS.items() if name != stage]
    for name in stale:
        (out / name).unlink(missing_ok=True)
    train_select, heldout_path, heldout_select = carve(files)
    train_sents = first_examples(list(read_sentences(files["train"], select=train_select)), limit)
    heldout_sents = first_examples(list(read_sentences(heldout_path, select=heldout_select)), dev_limit)
    (out / "train.conllu").write_text(conllu_text(train_sents), encoding="utf-8")
    (out / "heldout.conllu").write_text(conllu_text(heldout_sents), encoding="utf-8")
    data = {"train": str(files["train"]), "train_select": train_select,
            "train_sentences": len(train_sents), "train_words": sum(len(s.words) for s in train_sents),
            "heldout": str(heldout_path), "heldout_select": heldout_select,
            "heldout_sentences": len(heldout_sents)}
    print(f"+ UDPipe 1 {udpipe_version()} Trainer.train({METHOD!r}, train={files['train'].name} "
          f"[{train_select}, {len(train_sents)} sentences], heldout={heldout_path.name} "
          f"[{heldout_select}, {len(heldout_sents)} sentences], tokenizer={TOKENIZER!r}, "
          f"tagger={tagger!r}, parser={'none' if stage == 'tagger' else parser!r}, stage {stage})", flush=True)
    if stage == "tagger":
        record = run_trainer(out, TAGGER_MODEL, STAGE_LOGS["tagger"], tagger, "none")
        write_json(tagger_record, {
            "stage": "tagger", **record, "settings": {"limit": limit, "dev_limit": dev_limit},
            "udpipe": {"method": METHOD, "tokenizer": TOKENIZER, "tagger": tagger, "parser": "none", **data},
            "versions": {**versions(), "ufal.udpipe": udpipe_version()}})
        return None
    if stage == "all":
        stages = {"all": run_trainer(out, "model.udpipe", STAGE_LOGS["all"], tagger, parser)}
    elif gold:
        stages = train_gold_tag_parser(out, tagger_dir, tagger, parser, data, limit, dev_limit)
    else:
        tagger_info = check_tagger(out, tagger_dir, tagger, limit, dev_limit, len(train_sents),
                                   len(heldout_sents))
        from_model = f"from_model=file:{(tagger_dir / TAGGER_MODEL).resolve()}"
        stages = {"tagger": tagger_info,
                  "parser": run_trainer(out, "model.udpipe", STAGE_LOGS["parser"], from_model, parser)}
    popts = option_map(parser)
    info = {
        "treebank": treebank, "pipeline": pipeline, "run": run_id(variant, parser_extra), "system": SYSTEM,
        "oracle": popts.get("transition_oracle", ""),
        "dynamic": popts.get("transition_oracle") == "dynamic",
        "options": {"variant": variant, **popts}, "seed": 0,
        "settings": {"limit": limit, "dev_limit": dev_limit},
        # a staged run's training time is the sum over its stages
        "train_seconds": round(sum(r["seconds"] for r in stages.values()), 1),
        "train_cpu_seconds": round(sum(r["cpu_seconds"] for r in stages.values()), 1),
        "command": shlex.join([sys.executable] + sys.argv),
        "stages": {name: {k: r[k] for k in STAGE_KEYS + ("shared_from",) if k in r} for name, r in stages.items()},
        "udpipe": {"method": METHOD, "tokenizer": TOKENIZER, "tagger": tagger, "parser": parser, **data,
                   "note": "UDPipe defaults except the options given; gold tokenization; "
                           "deterministic training (no seed)"},
        "heldout_curve": [point for r in stages.values() for point in r["heldout_curve"]],
        "versions": {**versions(), "ufal.udpipe": udpipe_version()},
    }
    write_json(out / "run.json", info)
    return info


# ----------------------------------------------------------------------------- parsing

def parse(model, sentences, options=""):
    """Tag and parse blanked gold sentences -> (CoNLL-U text, wall seconds, CPU seconds)
    of UDPipe's tagger + parser (reading and writing excluded); options: the parser's
    (e.g. "beam_search=1")."""
    import ufal.udpipe as udpipe

    inputs = read_udpipe("".join(blank_sentence(s) for s in sentences))
    if len(inputs) != len(sentences):
        raise RuntimeError(f"UDPipe read {len(inputs)} sentences, expected {len(sentences)}")
    error = udpipe.ProcessingError()
    seconds = cpu = 0.0
    writer = udpipe.OutputFormat.newConlluOutputFormat()
    chunks = []
    for sentence in inputs:
        t, c = time.perf_counter(), time.process_time()
        if not model.tag(sentence, udpipe.Model.DEFAULT, error) or \
                not model.parse(sentence, options, error):
            raise RuntimeError(f"UDPipe failed: {error.message}")
        seconds += time.perf_counter() - t
        cpu += time.process_time() - c
        chunks.append(writer.writeSentence(sentence))
    chunks.append(writer.finishDocument())
    return "".join(chunks), seconds, cpu


def score(gold_sents, pred_path: Path, n_sents=10):
    """spacy_dynoracle.evaluate of a UDPipe output file against the gold sentences."""
    from spacy.vocab import Vocab
    from spacy_dynoracle.conllu_io import read_conllu, sentences_to_docs
    from spacy_dynoracle.evaluate import evaluate_docs

    from evaluate_run import tagging_accuracy

    pred_sents = list(read_conllu(pred_path))
    vocab = Vocab()
    gold = list(sentences_to_docs(vocab, gold_sents, n_sents, keep_source=False))
    pred = list(sentences_to_docs(vocab, pred_sents, n_sents, keep_source=False))
    result = evaluate_docs(gold, pred)
    result.pop("PerLabel", None)
    result.update(tagging_accuracy(gold, pred))
    return result


def evaluate_split(model, path, select, pred_path: Path, n_sents=10, options=""):
    from spacy_dynoracle.corpus import read_sentences

    gold_sents = list(read_sentences(path, select=select))
    text, _, _ = parse(model, gold_sents, options)
    pred_path.write_text(text, encoding="utf-8")
    result = score(gold_sents, pred_path, n_sents)
    if option_map(options or PARSE_DEFAULT).get("beam_search") != "1":
        # the spaCy parsers decode greedily: the same model with beam_search=1 too
        greedy_path = pred_path.with_name(pred_path.stem + "_greedy.conllu")
        greedy_options = ";".join(f"{k}={v}" for k, v in {**option_map(options), **option_map(GREEDY)}.items())
        text, seconds, cpu = parse(model, gold_sents, greedy_options)
        greedy_path.write_text(text, encoding="utf-8")
        greedy = score(gold_sents, greedy_path, n_sents)
        n_words = sum(len(s.words) for s in gold_sents)
        result["greedy"] = {k: greedy[k] for k in ("UAS", "LAS", "CLAS", "NonProjArcs", "NonProjArcsLabelled")}
        result["greedy"]["parse_options"] = greedy_options
        result["greedy"]["words_per_cpu_s"] = round(n_words / cpu, 1)
    # timed second pass, as evaluate_run.py times nlp.pipe after the scored pass
    _, seconds, cpu = parse(model, gold_sents, options)
    n_words = sum(len(s.words) for s in gold_sents)
    result["speed"] = {"words": n_words, "seconds": round(seconds, 3),
                       "words_per_s": round(n_words / seconds, 1),
                       "cpu_seconds": round(cpu, 3), "words_per_cpu_s": round(n_words / cpu, 1)}
    result["settings"] = {"data": str(path), "select": select, "n_sents": n_sents,
                          "gold_sents": True, "input": "gold words, blanked " + ",".join(BLANKED),
                          "tagger": "udpipe", "parser": "udpipe",
                          "parse_options": options or f"(UDPipe default: {PARSE_DEFAULT})"}
    result["model"] = str(pred_path.parent / "model.udpipe")
    return result


def evaluate(out: Path, *, ud_root=None, force=False, options=""):
    import ufal.udpipe as udpipe

    info = json.loads((out / "run.json").read_text())
    files = treebank_files(info["treebank"], ud_root)
    model = None
    for split, (path, select) in split_sources(files).items():
        target = out / f"eval_{split}.json"
        if path is None or (target.exists() and not force):
            continue
        if model is None:
            model = udpipe.Model.load(str(out / "model.udpipe"))
            if model is None:
                raise SystemExit(f"cannot load {out / 'model.udpipe'}")
        result = evaluate_split(model, path, select, out / f"pred_{split}.conllu", options=options)
        write_json(target, result)
        for name, r in (("", result), (" greedy", result.get("greedy"))):
            if r is None:
                continue
            np_r = r["NonProjArcs"]["recall"]
            print(f"{out.name} {split}{name}: UAS {r['UAS']['f1']:.2f} LAS {r['LAS']['f1']:.2f} "
                  f"CLAS {r['CLAS']['f1']:.2f} NP-arc recall {'–' if np_r is None else f'{np_r:.1f}'}"
                  + (f" UPOS {r['UPOS']:.2f}" if "UPOS" in r else "")
                  + f" ({r.get('speed', r)['words_per_cpu_s']:,.0f} words per CPU second)", flush=True)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--train-model"]:      # the child process of train()
        train_model(*argv[1:6])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", "--treebanks", dest="treebanks", required=True,
                    help="treebank(s), comma-separated")
    ap.add_argument("--variant", "--variants", dest="variants", default="swap",
                    help=f"parser variant(s), comma-separated: {', '.join(VARIANTS)}")
    ap.add_argument("--pipeline", default="parser",
                    help="results group the run joins (folder <treebank>/<pipeline>/)")
    ap.add_argument("--tagger-options", default="", help="UDPipe tagger options (default: UDPipe's)")
    ap.add_argument("--parser-options", default="",
                    help="UDPipe parser options added to the variant's, e.g. 'iterations=5'; "
                         "use_gold_tags=1 (run id +gold-tags) trains the parser on gold tags, "
                         "with --stage parser beside the tagger (above)")
    ap.add_argument("--ud-root", default=None)
    ap.add_argument("--output", type=Path, default=PROJECT / "training")
    ap.add_argument("--parse-options", default="",
                    help=f"UDPipe parse options for dev/test (default: UDPipe's, {PARSE_DEFAULT})")
    ap.add_argument("--limit", type=int, default=0,
                    help="train on the first LIMIT training Examples of run_matrix.py "
                         f"(Docs of {N_SENTS} sentences; 0 = all)")
    ap.add_argument("--dev-limit", type=int, default=0,
                    help="hold out the first DEV_LIMIT dev Examples for early stopping (0 = all)")
    ap.add_argument("--stage", choices=STAGES, default="all",
                    help="all: tagger and parser in one UDPipe call, then evaluate; tagger: the "
                         "tagger alone (tagger.udpipe); parser: the parser on that tagger's tags "
                         "(model.udpipe, the same bytes as 'all'), then evaluate")
    ap.add_argument("--tagger-from", default=None, metavar="VARIANT",
                    help="with --stage parser: use the tagger that --variant VARIANT --stage tagger "
                         "trained (UDPipe's parsers sharing one tagger)")
    ap.add_argument("--force", action="store_true",
                    help="retrain (the given stage; 'tagger' also drops the parser) and re-evaluate")
    ap.add_argument("--reevaluate", action="store_true", help="re-parse and re-score, no retraining")
    args = ap.parse_args(argv)
    if args.tagger_from is not None:
        parser_options(args.tagger_from)     # fail early on a typo; train() checks the stage
    for treebank in args.treebanks.split(","):
        for variant in args.variants.split(","):
            parser_options(variant)     # fail early on a typo
            out = run_dir(args.output, treebank, args.pipeline, run_id(variant, args.parser_options), 0)
            tagger_dir = (run_dir(args.output, treebank, args.pipeline, run_id(args.tagger_from), 0)
                          if args.tagger_from else None)
            train(treebank, variant, out, ud_root=args.ud_root, pipeline=args.pipeline,
                  tagger=args.tagger_options, parser_extra=args.parser_options, force=args.force,
                  limit=args.limit, dev_limit=args.dev_limit, stage=args.stage, tagger_dir=tagger_dir)
            if args.stage == "tagger":
                continue
            evaluate(out, ud_root=args.ud_root, force=args.force or args.reevaluate,
                     options=args.parse_options)


if __name__ == "__main__":
    main()
