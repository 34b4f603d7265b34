"""spaCy's biaffine parser (spacy-experimental 0.6.4: `experimental_arc_predicter` +
`experimental_arc_labeler`) as a peer of the UD runs, trained and run in its own virtual
environment, since it needs spaCy < 3.8 and torch.

    python scripts/biaffine.py --make-venv .venv-biaffine      # once (spacy project run biaffine-venv)
    python scripts/run_matrix.py --treebanks UD_Latin-Perseus --run biaffine --pipelines tagger ...

The run itself goes through run_matrix.py / train_one.py like every other row: `spacy train`
on configs/biaffine_tagger.cfg with the same overrides, but with the venv's python and
`--code scripts/biaffine_code.py` (which registers the package's pure-Python CoNLL-U reader,
so the training Docs are the same). evaluate_run.py scores it with the package's evaluator in
this environment: the words-only input Docs it builds go to a child process in the venv
(`--parse`, below) as JSON, and the Docs that come back carry the pipeline's heads, labels,
tags, morphology and sentence boundaries. The sentence boundaries are the senter's (or the
preset gold ones): the arc predicter decodes a maximum spanning tree within each sentence and
may give it more than one root, so boundaries read off the tree would not be the pipeline's.

The tok2vec embeds affixes as in the other tagger configs (`spacy_dynoracle.AffixMultiHashEmbed.v1`,
affix_embed.py). Its one compiled module, affix_hashes.pyx, is built a second time in the venv,
against the venv's spaCy 3.7, by the repo's own setup.py run on a copy of the sources
(`DYNORACLE_MODULES=affix_hashes`), into AFFIX_BUILD inside the venv with its own
_build_info.py; biaffine_code.py puts that directory first on `spacy_dynoracle.__path__`, so
`load_compiled("affix_hashes")` finds the venv's build and checks it against the venv's spaCy.
`--affix-features` prints a digest of the embed's feature columns for the words of a CoNLL-U
file, in either environment, to check that both give the same hashes.

The part of this file that runs in the venv (`--parse`) imports only the standard library and
spaCy.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SYSTEM = "biaffine"                      # run.json "system" and the run id
CONFIG = "biaffine_tagger.cfg"           # in the repo's configs/
CODE = Path(__file__).resolve().with_name("biaffine_code.py")
DEFAULT_VENV = PROJECT / ".venv-biaffine"
#: the CPU build of torch (the default torch wheel of the registry pulls in CUDA); here it is
#: a local wheel that pip finds through its find-links
DEFAULT_TORCH = "torch==2.13.0+cpu"
#: spaCy 3.7's CLI imports click, which the typer releases it allows no longer pull in
REQUIREMENTS = ("spacy>=3.7.5,<3.8.0", "spacy-experimental==0.6.4", "click>=8.0,<9")
#: what building affix_hashes.pyx needs in the venv (pyproject.toml's build requirement)
BUILD_REQUIREMENTS = ("cython>=3.0,<4",)
REPO = PROJECT.parents[1]
#: the affix embed's compiled module, built against the venv's spaCy (relative to the venv):
#: AFFIX_BUILD/spacy_dynoracle/ holds affix_hashes.*.so and its _build_info.py
AFFIX_BUILD = Path("dynoracle-affix")
AFFIX_MODULE = "affix_hashes"
CHECK = ("import sys; sys.path.insert(0, %r); import biaffine_code, spacy, spacy_experimental, torch; "
         "from spacy_experimental.biaffine_parser.arc_predicter import ArcPredicter; "
         "import spacy_dynoracle; spacy_dynoracle.load_compiled(%r); "
         "assert spacy.__version__.startswith('3.7.'), spacy.__version__; print(spacy.__version__)"
         % (str(CODE.parent), AFFIX_MODULE))


# ----------------------------------------------------------------------------- the venv

def venv_python(venv=None) -> Path:
    """The venv's python; stops with how to make the venv when it is missing."""
    # absolute, not resolved: the venv's python is a symlink to the python it was made from
    python = Path(venv or DEFAULT_VENV).absolute() / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"no biaffine venv at {Path(venv or DEFAULT_VENV)}: make it with "
                         f"`python -m spacy project run biaffine-venv` (scripts/biaffine.py --make-venv)")
    return python


def venv_ready(venv) -> bool:
    python = Path(venv) / "bin" / "python"
    return python.exists() and subprocess.run([str(python), "-c", CHECK], capture_output=True).returncode == 0


def venv_versions(python) -> dict:
    """Versions of what the biaffine runs train with, from the venv (for run.json)."""
    code = ("import json, importlib.metadata as m; print(json.dumps({'venv_' + d: m.version(d) for d in "
            "('spacy', 'spacy-experimental', 'torch', 'thinc', 'numpy')}))")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def make_venv(venv, torch_requirement=DEFAULT_TORCH) -> Path:
    """Create the venv with spaCy 3.7, spacy-experimental 0.6.4 and torch, unless a working
    one is there already (then nothing is installed)."""
    venv = Path(venv)
    if venv_ready(venv):
        print(f"biaffine venv ready: {venv} (nothing to do)", flush=True)
        return venv
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", *REQUIREMENTS,
                    *BUILD_REQUIREMENTS, torch_requirement], check=True)
    build_affix_module(venv)
    if not venv_ready(venv):
        raise SystemExit(f"{venv}: spaCy 3.7, spacy_experimental, torch or the affix module does "
                         f"not import after the install; check `{venv / 'bin' / 'python'} -c \"{CHECK}\"`")
    print(f"biaffine venv made: {venv}", flush=True)
    return venv


def affix_build_dir(venv) -> Path:
    """The directory that biaffine_code.py puts first on spacy_dynoracle.__path__ in `venv`."""
    return Path(venv) / AFFIX_BUILD / "spacy_dynoracle"


def build_affix_module(venv) -> Path:
    """Build affix_hashes.pyx against the venv's spaCy with the repo's setup.py, on a copy of
    setup.py and cython_src (without generated .cpp or built .so, which belong to the build
    against spaCy 3.8 and would be taken as up to date), and put the module and the
    _build_info.py that setup.py writes into affix_build_dir(venv)."""
    python, target = Path(venv).absolute() / "bin" / "python", affix_build_dir(venv)
    with tempfile.TemporaryDirectory(prefix="biaffine-affix-") as tmp:
        tmp = Path(tmp)
        shutil.copy2(REPO / "setup.py", tmp)
        shutil.copytree(REPO / "cython_src", tmp / "cython_src",
                        ignore=shutil.ignore_patterns("*.cpp", "*.so", "__pycache__"))
        (tmp / "spacy_dynoracle").mkdir()
        subprocess.run([str(python), "setup.py", "build_ext", "--inplace"], cwd=tmp, check=True,
                       env={**os.environ, "DYNORACLE_MODULES": AFFIX_MODULE})
        built = [*(tmp / "spacy_dynoracle").glob(f"{AFFIX_MODULE}.*.so"), tmp / "spacy_dynoracle" / "_build_info.py"]
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for path in built:
            shutil.copy2(path, target)
    print(f"affix module built against the venv's spaCy: {target}", flush=True)
    return target


# ----------------------------------------------------------------------------- affix features

def affix_feature_digest(conllu: Path, config: Path = REPO / "configs" / CONFIG) -> dict:
    """The feature columns that the tok2vec embed of `config` reads for the training Docs of
    `conllu` (the package's CoNLL-U reader, 10 sentences per Doc, words only, in a blank `xx`
    pipeline): a sha256 over the uint64 arrays, with the counts. The same digest in this
    environment and in the venv means both embed the same hashes."""
    import numpy
    import spacy
    from spacy.util import load_config, registry

    from spacy_dynoracle.affix_embed import AFFIX_EXTRACTOR
    from spacy_dynoracle.corpus import create_conllu_reader

    embed_block = load_config(config, interpolate=True)["components"]["tok2vec"]["model"]["embed"]
    embed = registry.resolve({"embed": embed_block})["embed"]
    extractor = next(node for node in embed.walk() if node.name == AFFIX_EXTRACTOR)
    docs = [eg.predicted for eg in create_conllu_reader(conllu)(spacy.blank("xx"))]
    features = extractor.predict(docs)
    digest = hashlib.sha256()
    for array in features:
        digest.update(numpy.ascontiguousarray(array, dtype="uint64").tobytes())
    return {"sha256": digest.hexdigest(), "docs": len(docs), "tokens": sum(len(d) for d in docs),
            "columns": int(features[0].shape[1]), "spacy": spacy.__version__}


def affix_feature_digest_in_venv(conllu: Path, python: Path) -> dict:
    out = subprocess.run([str(python), str(Path(__file__).resolve()), "--affix-features", str(conllu)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


# ----------------------------------------------------------------------------- parsing

def doc_record(doc) -> dict:
    """The input a pipeline sees (words, spaces, preset sentence starts) as JSON."""
    starts = ([1 if t.is_sent_start else -1 for t in doc]
              if doc.has_annotation("SENT_START") else None)
    return {"words": [t.text for t in doc], "spaces": [bool(t.whitespace_) for t in doc],
            "sent_starts": starts}


def parsed_record(doc) -> dict:
    """What the pipeline predicted on a Doc, as JSON; heads are Doc indices and the sentence
    starts are the Doc's own (not re-derived from the heads)."""
    return {"heads": [t.head.i for t in doc], "deps": [t.dep_ for t in doc],
            "pos": [t.pos_ for t in doc], "tags": [t.tag_ for t in doc],
            "morphs": [str(t.morph) for t in doc],
            "sent_starts": [bool(t.is_sent_start) for t in doc]}


def parsed_doc(vocab, record: dict, parsed: dict):
    """A Doc in this environment with the words of `record` and the annotation of `parsed`,
    its sentences those of `parsed` (set after the heads, which would re-derive them)."""
    import numpy
    from spacy.attrs import SENT_START
    from spacy.tokens import Doc

    def given(values):
        return values if any(values) else None

    doc = Doc(vocab, words=record["words"], spaces=record["spaces"], heads=parsed["heads"],
              deps=parsed["deps"], pos=given(parsed["pos"]), tags=given(parsed["tags"]),
              morphs=given(parsed["morphs"]))
    starts = numpy.asarray([1 if s else -1 for s in parsed["sent_starts"]], dtype="int64")
    doc.from_array([SENT_START], starts.astype("uint64"))
    return doc


class VenvPipeline:
    """A trained pipeline that runs in another python (the biaffine venv), used where
    evaluate_run.py uses a loaded `nlp`: `vocab`, `pipe(docs)` and `timed_pipe(docs)`."""

    def __init__(self, model: Path, python: Path):
        from spacy.vocab import Vocab

        self.model, self.python, self.vocab = Path(model), Path(python), Vocab()

    def _run(self, docs, batch_size, timed):
        docs = list(docs)
        with tempfile.TemporaryDirectory(prefix="biaffine-") as tmp:
            inp, out = Path(tmp) / "input.jsonl", Path(tmp) / "output.jsonl"
            records = [doc_record(d) for d in docs]
            inp.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
            cmd = [str(self.python), str(Path(__file__).resolve()), "--parse", str(self.model),
                   str(inp), str(out), "--batch-size", str(batch_size)] + (["--timed"] if timed else [])
            subprocess.run(cmd, check=True)
            lines = out.read_text(encoding="utf-8").splitlines()
        timing = json.loads(lines[0])
        parsed = [json.loads(line) for line in lines[1:]]
        if len(parsed) != len(records):
            raise RuntimeError(f"{self.model}: {len(parsed)} parsed Docs for {len(records)} inputs")
        return [parsed_doc(self.vocab, r, p) for r, p in zip(records, parsed)], timing

    def pipe(self, docs, batch_size=64):
        return iter(self._run(docs, batch_size, timed=False)[0])

    def timed_pipe(self, docs, batch_size=64):
        """(wall seconds, CPU seconds) of the pipeline over the Docs in the venv, model loading
        and a first, untimed pass excluded (as evaluate_run.py times a second pass)."""
        timing = self._run(docs, batch_size, timed=True)[1]
        return timing["seconds"], timing["cpu_seconds"]


def parse_in_venv(model, inp, out, batch_size=64, timed=False):
    """Child process in the venv: parse the JSON input Docs with the trained pipeline and write
    one JSON line of timing, then one line per parsed Doc."""
    import spacy
    from spacy.tokens import Doc

    import biaffine_code  # noqa: F401  (one torch thread, as in training)

    nlp = spacy.load(model)
    records = [json.loads(line) for line in Path(inp).read_text(encoding="utf-8").splitlines()]

    def inputs():
        return [Doc(nlp.vocab, words=r["words"], spaces=r["spaces"], sent_starts=r["sent_starts"])
                for r in records]

    parsed = list(nlp.pipe(inputs(), batch_size=batch_size))
    timing = {}
    if timed:
        docs = inputs()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in nlp.pipe(docs, batch_size=batch_size):
            pass
        timing = {"seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu}
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps(timing) + "\n")
        for doc in parsed:
            f.write(json.dumps(parsed_record(doc)) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make-venv", type=Path, metavar="VENV",
                    help="create the venv there unless it works already")
    ap.add_argument("--torch", default=DEFAULT_TORCH, help=f"torch requirement (default {DEFAULT_TORCH})")
    ap.add_argument("--parse", nargs=3, type=Path, metavar=("MODEL", "INPUT", "OUTPUT"),
                    help="(in the venv) parse INPUT's Docs with MODEL into OUTPUT")
    ap.add_argument("--affix-features", type=Path, metavar="CONLLU",
                    help="print the digest of the embed's feature columns for CONLLU's words as JSON "
                         "(in the venv: the venv's build; here: the package's)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--timed", action="store_true", help="with --parse: time a second pass")
    args = ap.parse_args(argv)
    if args.make_venv:
        make_venv(args.make_venv, args.torch)
    elif args.parse:
        parse_in_venv(*args.parse, batch_size=args.batch_size, timed=args.timed)
    elif args.affix_features:
        if affix_build_dir(sys.prefix).exists():    # in the venv: its build of the module
            import biaffine_code  # noqa: F401
        else:
            import spacy_dynoracle.affix_embed  # noqa: F401
        print(json.dumps(affix_feature_digest(args.affix_features)))
    else:
        ap.error("give --make-venv VENV, --parse MODEL INPUT OUTPUT or --affix-features CONLLU")


if __name__ == "__main__":
    main()
