"""Make the saved pipelines of tests/test_saved_pipelines.py: tiny dynoracle_parser
pipelines trained on synthetic data, saved with the parses they give a few fixed Docs.

They pin what a pipeline saved by an older version of the package must still do after a
refactoring: load (its config.cfg, registered architecture names, cfg and moves) and parse
identically. Each set goes into saved_pipelines/<the commit's short hash>/, with the commit
recorded in its made_by.json; add a set for a version to pin (before a refactoring), and
replace one only on purpose (a deliberate change of parses or of the saved format):

    PYTHONPATH=<checkout of the version to pin> python3 tests/data/make_saved_pipelines.py

Each pipeline is a few tens of KB: widths of 8, a hash embedding of 64 rows.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import spacy
from spacy.tokens import Doc

import spacy_dynoracle

HERE = Path(__file__).resolve().parent
SAVED = HERE / "saved_pipelines"
sys.path.insert(0, str(HERE.parent))            # tests/: synthetic.py
from synthetic import make_examples  # noqa: E402
from test_pipeline import train as train_pipeline  # noqa: E402

TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 8,
           "depth": 1, "embed_size": 64, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}
TINY = {"hidden_width": 8, "maxout_pieces": 2, "use_upper": True, "nO": None, "tok2vec": TOK2VEC}
TBP = {"@architectures": "spacy.TransitionBasedParser.v2", "state_type": "parser",
       "extra_state_tokens": False, **TINY}

#: name -> (component config, kind of synthetic trees). The old top-level `degree` /
#: `max_k` keys are written as the package's configs wrote them at the time.
PIPELINES = {
    "arc_eager": ({"transition_system": "arc_eager", "oracle": "dynamic", "model": TBP},
                  "projective"),
    "lr_spine_spine_model": ({"transition_system": "lr_spine", "oracle": "dynamic", "max_k": 3,
                              "model": {"@architectures": "spacy_dynoracle.SpineParserModel.v1",
                                        "feature_template": "spine", "max_k": 3, **TINY}},
                             "nonprojective"),
    "attardi_degree3": ({"transition_system": "attardi", "oracle": "dynamic", "degree": 3,
                         "model": TBP}, "nonprojective"),
    "swap": ({"transition_system": "swap", "oracle": "dynamic",
              "system_options": {"exact_live": 3}, "model": TBP}, "nonprojective"),
    "arc_hybrid_window_exact": ({"transition_system": "arc_hybrid", "oracle": "dynamic",
                                 "decode": "exact", "arc_marginals": True,
                                 "model": {"@architectures": "spacy_dynoracle.WindowParserModel.v1",
                                           **TINY}}, "projective"),
}

#: the fixed Docs every pipeline parses: (words, preset sentence starts or None)
DOCS = [
    (["w1", "root", "w-1"], None),
    (["w2", "w1", "root", "w-1", "w-3", "w1", "root"], None),
    (["root", "w-1", "w-2", "w1", "root", "w-1", "w1", "root", "w-2", "w-1"], None),
    (["w1", "root", "w-1", "w1", "root", "w-1", "w-2"], [True, False, False, True, False, False, False]),
    (["w3", "w2", "w1", "root", "w-1", "w-1", "w2", "w1", "root"], None),
]


def make_docs(vocab):
    return [Doc(vocab, words=words, sent_starts=starts) for words, starts in DOCS]


def parses(nlp):
    """Per fixed Doc: heads, deps, sentence starts (and the arc marginals, rounded, when the
    pipeline sets them)."""
    out = []
    for doc in nlp.pipe(make_docs(nlp.vocab)):
        row = {"heads": [t.head.i for t in doc], "deps": [t.dep_ for t in doc],
               "sent_starts": [bool(t.is_sent_start) for t in doc]}
        marginals = doc._.get("dynoracle_arc_marginals") if doc.has_extension("dynoracle_arc_marginals") else None
        if marginals is not None:
            row["arc_marginals"] = [[round(float(p), 6) for p in r] for r in marginals]
        out.append(row)
    return out


def train(config, kind, seed=0):
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config={"min_action_freq": 1, **config})
    examples = make_examples(nlp.vocab, 24, seed=seed, kind=kind, sents_per_doc=2)
    train_pipeline(nlp, examples, epochs=4, seed=seed, batch=8)
    return nlp


def main():
    # the commit of the code that trains and saves them (PYTHONPATH may name another checkout)
    commit = subprocess.run(["git", "-C", str(Path(spacy_dynoracle.__file__).parent), "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    out = SAVED / commit[:7]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    expected = {}
    for name, (config, kind) in PIPELINES.items():
        nlp = train(config, kind)
        nlp.to_disk(out / name)
        expected[name] = parses(spacy.load(out / name))
        assert expected[name] == parses(nlp), f"{name}: the loaded pipeline parses differently"
    (out / "expected_parses.json").write_text(json.dumps(expected, indent=1) + "\n", encoding="utf-8")
    (out / "made_by.json").write_text(json.dumps(
        {"commit": commit, "spacy": spacy.__version__, "docs": DOCS}, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"{len(PIPELINES)} pipelines in {out}: {size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
