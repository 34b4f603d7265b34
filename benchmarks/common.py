"""Helpers shared by the benchmarks: locate UD data, train a config quickly."""
import json
from pathlib import Path

from spacy_dynoracle.options import parser_option_key
from spacy_dynoracle.options import ud_root as find_ud_root

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"


def ud_root() -> Path:
    """UD_ROOT, else ../shared/ud beside the repo; stops the benchmark if it is missing."""
    root = find_ud_root()
    if not root.is_dir():
        raise SystemExit(f"UD treebanks not found at {root}: set UD_ROOT")
    return root


def treebank_files(name: str):
    """(train, dev) CoNLL-U paths of a treebank folder name such as UD_Hungarian-Szeged;
    without a dev file, dev is None (carve it with select='tail:0.1')."""
    folder = ud_root() / name
    train = sorted(folder.glob("*-ud-train.conllu"))
    dev = sorted(folder.glob("*-ud-dev.conllu"))
    if not train:
        raise SystemExit(f"no *-ud-train.conllu in {folder}")
    return train[0], (dev[0] if dev else None)


def train_pipeline(config_name: str, output: Path, train, dev, overrides=None, quiet=True):
    """Train configs/<config_name> with spaCy's own training loop; return model-last path."""
    from spacy.cli.train import train as spacy_train

    overrides = dict(overrides or {})
    overrides.setdefault("paths.train", str(train))
    if dev is None:
        overrides["paths.dev"] = str(train)
        overrides.setdefault("paths.train_select", "head:0.9")
        overrides["paths.dev_select"] = "tail:0.1"
    else:
        overrides.setdefault("paths.dev", str(dev))
    if quiet:
        import logging

        logging.getLogger("spacy").setLevel(logging.ERROR)
    spacy_train(CONFIGS / config_name, output, overrides=overrides)
    return output / "model-last"


# ---- shared by the benchmark suite (parse_speed, train_step, oracle_time, memory) ----------

def registered_systems(only=None, list_systems=False):
    """[(name, class)] of the transition systems in spacy_dynoracle.SYSTEMS (and
    LIST_SYSTEMS if list_systems: easy-first, which has no StateC), or the names in `only`,
    whose compiled module loads; the others are reported and skipped."""
    import sys

    from spacy_dynoracle import LIST_SYSTEMS, SYSTEMS, get_system_class

    out = []
    for name in (only or [*SYSTEMS, *(LIST_SYSTEMS if list_systems else ())]):
        try:
            out.append((name, get_system_class(name)))
        except (ImportError, AttributeError, ValueError) as err:
            print(f"# skipping transition system {name!r}: {err}", file=sys.stderr)
    return out


def csv_list(value):
    return [v for v in value.split(",") if v] if value else None


def load_examples(path, *, select="all", n_sents=10, limit=0, vocab=None, min_sent_len=0):
    """spaCy Examples (words-only predicted Doc, gold reference) from a CoNLL-U file;
    with `min_sent_len`, only the Docs holding a sentence of at least that many words
    (long-sentence benchmarks: the Docs are the same as without it, just fewer)."""
    from spacy.training import Example
    from spacy.vocab import Vocab

    from spacy_dynoracle.conllu_io import sentences_to_docs, words_only_copy
    from spacy_dynoracle.corpus import read_sentences

    vocab = vocab or Vocab()
    docs = sentences_to_docs(vocab, read_sentences(path, select=select), n_sents, keep_source=False)
    out = []
    for doc in docs:
        if min_sent_len and max(len(s) for s in doc.sents) < min_sent_len:
            continue
        out.append(Example(words_only_copy(doc), doc))
        if limit and len(out) >= limit:
            break
    return out


def build_nlp(config_name, train_path, overrides=None, seed=0, limit=200):
    """An initialized (untrained) pipeline from configs/<config_name> with `overrides`
    (dotted config keys), labels from the first `limit` Examples of `train_path` read
    into the pipeline's own vocab."""
    from spacy.util import fix_random_seed, load_config, load_model_from_config

    fix_random_seed(seed)
    config = load_config(CONFIGS / config_name, overrides=dict(overrides or {}), interpolate=False)
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    examples = load_examples(train_path, limit=limit, vocab=nlp.vocab)
    nlp.initialize(lambda: examples)
    return nlp


def system_overrides(name, oracle, **options):
    """Config overrides selecting system `name` with `oracle` and `options` (parsed values,
    e.g. from parse_options): the system's own options go to its system_options; a system
    that names its parser model (easy_first's pair scorer) gets it."""
    from spacy_dynoracle import get_system_class

    out = {"components.parser.transition_system": name, "components.parser.oracle": oracle}
    architecture = getattr(get_system_class(name), "model_architecture", None)
    if architecture:
        out["components.parser.model.@architectures"] = architecture
    for k, v in options.items():
        out[parser_option_key(name, k)] = v
    return out


def load_trained(model_dir, oracle=None, options=None, overrides=None):
    """A trained pipeline from `model_dir` with its parser's `oracle` (None = the saved one),
    system `options` (parsed values; those the model's system does not have are left out)
    and other config `overrides`, all given to spacy.load as config overrides: the loaded
    parser keeps them (a structural option that differs from the trained one, e.g.
    attardi's degree, is an error; README, "Loading with other options"). Returns (nlp,
    system name, oracle)."""
    import spacy
    from spacy.util import load_config

    from spacy_dynoracle import get_system_class

    cfg = load_config(Path(model_dir) / "config.cfg")["components"].get("parser", {})
    if cfg.get("factory") != "dynoracle_parser":
        raise SystemExit(f"{model_dir}: no dynoracle_parser named 'parser' in this pipeline")
    name = cfg["transition_system"]
    own = getattr(get_system_class(name), "options", {})
    options = {k: v for k, v in (options or {}).items() if k in own}
    config = dict(overrides or {})
    if oracle is not None:
        config.update(system_overrides(name, oracle))
    config.update({parser_option_key(name, k): v for k, v in options.items()})
    nlp = spacy.load(model_dir, config=config)
    # the parser's cfg holds the oracle it resolved (the config's may be null = the default)
    return nlp, name, nlp.get_pipe("parser").cfg["oracle"]


def write_json(path, data):
    """A benchmark's --json output: the folder made if missing, indented, with what JSON
    cannot hold (paths, argparse values) as strings."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, default=str) + "\n")


def summary(values):
    """median, min, max, p10, p90 of a list of numbers."""
    import statistics

    s = sorted(values)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))]
    return {"median": statistics.median(s), "min": s[0], "max": s[-1],
            "p10": pick(0.1), "p90": pick(0.9), "n": len(s)}


# ---- instruction counts under callgrind (train_step --instructions) -----------------------
# On a loaded machine CPU-time ratios of two pipelines scatter by ±20% between runs;
# callgrind's instruction count of the same code on the same inputs does not depend on load.

CALLGRIND_ENV = "DYNORACLE_CALLGRIND_OUT"


def callgrind_total(text, event="Ir"):
    """The total of `event` (default Ir, instructions executed) in the text of a callgrind
    out file: the `totals:` line's column of that event in the `events:` line. A ValueError
    names what is missing."""
    events = totals = None
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("totals:"):
            totals = [int(v) for v in line.split()[1:]]
    if events is None or totals is None:
        raise ValueError(f"not a callgrind out file (no events: or totals: line): {text[:80]!r}")
    if event not in events:
        raise ValueError(f"event {event!r} not counted in this file (events: {' '.join(events)})")
    i = events.index(event)
    return totals[i] if i < len(totals) else 0   # the format may leave trailing zeros out


def rerun_under_callgrind(out_dir):
    """Runs this script again with the same arguments under `valgrind --tool=callgrind
    --instr-atstart=no` (nothing counted until Callgrind.on), its files in `out_dir`
    (callgrind.out.N per dump, valgrind.log), PYTHONHASHSEED fixed so that set and dict
    orders repeat; returns its exit code."""
    import os
    import shutil
    import subprocess
    import sys

    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        raise SystemExit("valgrind and callgrind_control are needed for instruction counts")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("callgrind.out*"):   # part numbers restart at 1 in every run
        old.unlink()
    env = {**os.environ, CALLGRIND_ENV: str(out_dir / "callgrind.out"), "PYTHONHASHSEED": "0"}
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
           f"--callgrind-out-file={out_dir / 'callgrind.out'}", f"--log-file={out_dir / 'valgrind.log'}",
           sys.executable, *sys.argv]
    return subprocess.run(cmd, env=env).returncode


class Callgrind:
    """Instructions of chosen stretches of this process, run by rerun_under_callgrind:
    on()/off() switch callgrind's instrumentation (callgrind_control, through valgrind's
    gdbserver), dump(label) writes what was counted since the last dump to the next part
    file and returns its instruction count. Starting the callgrind_control process of
    on() and off() is counted too: 340,821 instructions for an empty pair on Bosque."""

    def __init__(self, out_file):
        import os

        self.out = Path(out_file)
        self.pid = str(os.getpid())
        self.parts = 0

    @classmethod
    def current(cls):
        """The Callgrind of this process if rerun_under_callgrind started it, else None."""
        import os

        out = os.environ.get(CALLGRIND_ENV)
        return cls(out) if out else None

    def _control(self, *args):
        import subprocess

        subprocess.run(["callgrind_control", *args, self.pid], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def on(self):
        self._control("--instr=on")

    def off(self):
        self._control("--instr=off")

    def dump(self, label):
        self._control(f"--dump={label.replace(' ', '_')}")
        self.parts += 1
        return callgrind_total(self.out.with_name(f"{self.out.name}.{self.parts}").read_text())
