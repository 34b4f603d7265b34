"""Where exploration takes a dynamic oracle's training: the share of each oracle path
(`moves.oracle_stats()`: exact fast/bound/table paths, `lower` = exact zero-cost set only,
`guard` = bounds only) among the states each stretch of training visits, next to the dev
score, for one system: a model warmed up on the oracle alone (k epochs) then continued from
that same model once per branch: an exploration probability p, with system options or the
parser's exploration rule (explore_rule, explore_margin). Each stretch also reports the share
of training states whose move was off the oracle's paths (cost > 0: exploration followed).

Training is spaCy's update on Docs of 10 gold sentences, one Doc per update (what spaCy's
compounding batcher gives on these treebanks for most of training), with configs/dynoracle.cfg
(tok2vec + parser); the schedule's epoch is set before each epoch as
spacy_dynoracle.set_epoch.v1 does. Written for issue 19 (the collapse of attardi and swap at
Goldberg & Nivre's (1, 0.9)).

    python benchmarks/explore_states.py --system attardi --option degree=2 \\
        --warmup 1 --branches 0 0.9 0.9:bounded_costs=skip 0.9:explore_rule=margin,explore_margin=1 \\
        --epochs 1 --every 20 --json out.json

UD_ROOT overrides the location of the treebanks (default ../shared/ud).
"""
import argparse
import random
from pathlib import Path

from common import build_nlp, load_examples, system_overrides, treebank_files, write_json
from spacy_dynoracle.options import parse_options


#: the parser settings (factory keys) a branch may set besides system options
PARSER_KEYS = ("explore_rule", "explore_margin")


def path_shares(before: dict, after: dict):
    """{path: share of the states between two oracle_stats() snapshots}, states."""
    counts = {k: after[k] - before.get(k, 0) for k in after
              if isinstance(after[k], int) and not k.startswith(("docs_", "searches", "combos",
                                                                  "max_", "cells", "missing",
                                                                  "lower_passes", "states"))}
    total = sum(counts.values())
    return {k: (v / total if total else 0.0) for k, v in counts.items()}, total


def snapshot(parser):
    """The oracle's path counts and the parser's counts of training states and of moves
    taken off the oracle's paths (cost > 0), to difference between two measurements."""
    return {"oracle": dict(parser.moves.oracle_stats()),
            "off_path": parser.n_off_path, "train_states": parser.n_train_states}


def measure(nlp, parser, dev, rows, before, **tags):
    after = snapshot(parser)
    shares, states = path_shares(before["oracle"], after["oracle"])
    stepped = after["train_states"] - before["train_states"]
    off_path = (after["off_path"] - before["off_path"]) / stepped if stepped else 0.0
    scores = nlp.evaluate(dev)
    rows.append({**tags, "states": states, "dev_uas": scores["dep_uas"], "dev_las": scores["dep_las"],
                 "off_path": off_path, **{f"share_{name}": v for name, v in shares.items()}})
    r = rows[-1]
    print(f"{tags['branch']:>28} epoch {tags['epoch']} step {tags['step']:4d}  states {states:6d}  "
          f"off-path moves {100 * off_path:5.1f}%  "
          f"guard {100 * r.get('share_guard', 0):5.1f}%  lower {100 * r.get('share_lower', 0):5.1f}%  "
          f"dev UAS {100 * r['dev_uas']:5.1f}  LAS {100 * r['dev_las']:5.1f}", flush=True)
    return after


def train_epochs(nlp, parser, optimizer, train, dev, rows, *, first_epoch, epochs, p, every, rng,
                 branch="warm-up"):
    """Train `epochs` epochs from `first_epoch`, following the model with probability p
    (k = first_epoch), measuring every `every` updates."""
    parser.cfg["explore_after_epochs"] = first_epoch
    parser.cfg["explore_prob"] = p
    before = snapshot(parser)
    step = 0
    for epoch in range(first_epoch, first_epoch + epochs):
        parser.epoch = epoch
        order = list(range(len(train)))
        rng.shuffle(order)
        for i in order:
            nlp.update([train[i]], sgd=optimizer, drop=0.1, losses={})
            step += 1
            if step % every == 0:
                before = measure(nlp, parser, dev, rows, before, branch=branch, p=p, epoch=epoch,
                                 step=step)


def parse_branch(text):
    """'0.9' or '0.9:bounded_costs=skip,explore_rule=margin' -> (p, {option: value}): system
    options, or the parser's explore_rule / explore_margin."""
    p, _, opts = text.partition(":")
    return float(p), parse_options(item for item in opts.split(",") if item)


def run(args):
    """Warm up on the oracle alone, then continue from that same model once per branch."""
    import spacy_dynoracle  # noqa: F401  (registers the factory)
    from spacy.util import fix_random_seed

    overrides = system_overrides(args.system, args.oracle, **parse_options(args.option))
    train_path, dev_path = treebank_files(args.treebank)
    nlp = build_nlp("dynoracle.cfg", train_path, overrides, seed=args.seed, limit=0)
    train = load_examples(train_path, vocab=nlp.vocab)
    dev = load_examples(dev_path, vocab=nlp.vocab, limit=args.dev_docs) if dev_path else \
        load_examples(train_path, select="tail:0.1", vocab=nlp.vocab, limit=args.dev_docs)
    parser = nlp.get_pipe("parser")
    fix_random_seed(args.seed)
    rows = []
    if args.warm and args.warm.exists():
        nlp.from_bytes(args.warm.read_bytes())
        print(f"warm model read from {args.warm}", flush=True)
    else:
        train_epochs(nlp, parser, nlp.create_optimizer(), train, dev, rows, first_epoch=0,
                     epochs=args.warmup, p=0.0, every=len(train), rng=random.Random(args.seed))
        if args.warm:
            args.warm.write_bytes(nlp.to_bytes())
    warm = nlp.to_bytes()
    defaults = dict(parser.moves.cfg)
    rule_defaults = {key: parser.cfg[key] for key in PARSER_KEYS}
    for text in args.branches:
        p, options = parse_branch(text)
        nlp.from_bytes(warm)
        parser = nlp.get_pipe("parser")
        parser.moves.cfg.update(defaults)
        parser.cfg.update(rule_defaults)
        for key, value in options.items():   # step_batch reads these per call
            if key in PARSER_KEYS:
                parser.cfg[key] = value
            elif key in defaults:
                parser.moves.cfg[key] = value
            else:
                raise SystemExit(f"{args.system} has no system option {key!r} (nor is it one of "
                                 f"the parser's {list(PARSER_KEYS)})")
        fix_random_seed(args.seed + 1)
        train_epochs(nlp, parser, nlp.create_optimizer(), train, dev, rows, first_epoch=args.warmup,
                     epochs=args.epochs, p=p, every=args.every, rng=random.Random(args.seed + 1),
                     branch=text)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--system", default="attardi")
    ap.add_argument("--oracle", default="dynamic")
    ap.add_argument("--option", action="append", default=[], help="system option KEY=VALUE (repeatable)")
    ap.add_argument("--warmup", type=int, default=1, help="epochs on the oracle alone, shared by every p")
    ap.add_argument("--branches", nargs="+", default=["0", "0.9"],
                    help="continuations of the warm model: explore_prob p, optionally with system "
                         "options or the exploration rule, e.g. 0.9:bounded_costs=skip, "
                         "1:explore_rule=margin,explore_margin=1")
    ap.add_argument("--warm", type=Path, help="read the warm model from this file if it exists, "
                                              "else write it there")
    ap.add_argument("--epochs", type=int, default=1, help="epochs after the warm-up, per p")
    ap.add_argument("--every", type=int, default=30, help="updates per measured stretch")
    ap.add_argument("--dev-docs", type=int, default=15, help="dev Docs (of 10 sentences) scored per stretch")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows = run(args)
    if args.json:
        write_json(args.json, {"args": vars(args), "rows": rows})


if __name__ == "__main__":
    main()
