"""Training-step CPU time of the shared tok2vec with spacy_dynoracle.AffixMultiHashEmbed.v1
÷ the same tok2vec with spaCy's MultiHashEmbed.v2 (issue 18 item 3), on the same batches.

Both tok2vecs are configs/dynoracle_tagger.cfg's [components.tok2vec.model] (width 96, depth
4): the config's own affix embed (prefixes of 1-3, suffixes of 1-5 characters), and the same
block without the affix keys as MultiHashEmbed.v2. One step = begin_update on a batch of Docs, backprop of a
fixed random gradient, finish_update with Adam: what the tok2vec costs per update of the
pipeline (the listeners' gradients summed into one). Steps are timed interleaved between the
two models, several repetitions; the first pass over the Docs (the affix table filling) is
timed apart, as is the affix feature extraction alone.

    python benchmarks/tok2vec_step.py --treebank UD_Hungarian-Szeged --batches 20 --reps 5
"""
import argparse
import statistics
import time

import numpy

from common import CONFIGS, load_examples, treebank_files
from spacy_dynoracle.affix_embed import ARCHITECTURE as AFFIX, as_multi_hash_embed


def build_tok2vec(embed_architecture=None, width=None):
    """The tagger config's tok2vec model with its own embed (`embed_architecture` AFFIX) or
    the MultiHashEmbed.v2 that one extends (None)."""
    from spacy.util import load_config, registry

    import spacy_dynoracle.architectures  # noqa: F401  registers AFFIX (an entry point once installed)

    overrides = {"components.tok2vec.model.encode.width": width} if width else {}
    config = load_config(CONFIGS / "dynoracle_tagger.cfg", overrides=overrides, interpolate=True)
    model = config["components"]["tok2vec"]["model"]
    if embed_architecture != AFFIX:   # the config's embed is AFFIX; the baseline, the one it extends
        model["embed"] = as_multi_hash_embed(model["embed"])
    return registry.resolve({"model": model})["model"]


def train_steps(model, optimizer, batches, gradients):
    """CPU seconds of one training step per batch, in order."""
    times = []
    for batch, dY in zip(batches, gradients):
        cpu = time.process_time()
        _, backprop = model.begin_update(batch)
        backprop(dY)
        model.finish_update(optimizer)
        times.append(time.process_time() - cpu)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_Hungarian-Szeged")
    ap.add_argument("--batches", type=int, default=20, help="batches of --batch-docs Docs (10 sentences each)")
    ap.add_argument("--batch-docs", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    from spacy.util import fix_random_seed
    from thinc.api import Adam

    fix_random_seed(0)
    train, _ = treebank_files(args.treebank)
    docs = [eg.reference for eg in load_examples(train, limit=args.batches * args.batch_docs)]
    batches = [docs[i:i + args.batch_docs] for i in range(0, len(docs), args.batch_docs)]
    n_words = sum(len(doc) for doc in docs)
    models = {"MultiHashEmbed.v2": build_tok2vec(), "AffixMultiHashEmbed.v1": build_tok2vec(AFFIX)}
    rng = numpy.random.default_rng(0)
    gradients = [[rng.normal(size=(len(doc), 96)).astype("f") for doc in batch] for batch in batches]
    optimizers = {}
    first = {}
    for name, model in models.items():
        model.initialize(X=batches[0])
        optimizers[name] = Adam(0.001)
        first[name] = sum(train_steps(model, optimizers[name], batches, gradients))
    times = {name: [] for name in models}
    for _ in range(args.reps):
        for name, model in models.items():
            times[name].append(sum(train_steps(model, optimizers[name], batches, gradients)))
    extract = {}
    for name, model in models.items():
        extractor = model.get_ref("embed").layers[0]
        cpu = time.process_time()
        for _ in range(args.reps):
            for batch in batches:
                extractor.predict(batch)
        extract[name] = (time.process_time() - cpu) / args.reps
    base = statistics.median(times["MultiHashEmbed.v2"])
    print(f"{args.treebank}: {len(batches)} steps of {args.batch_docs} Docs ({n_words} words), "
          f"{args.reps} interleaved repetitions; CPU s per pass, median (min-max)")
    print(f"{'embed':26}{'s/pass':>9}{'min':>9}{'max':>9}{'words/s':>10}{'ratio':>7}{'1st pass':>10}"
          f"{'extract':>9}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:26}{med:>9.3f}{min(ts):>9.3f}{max(ts):>9.3f}{n_words / med:>10,.0f}"
              f"{med / base:>7.3f}{first[name]:>10.3f}{extract[name]:>9.4f}")


if __name__ == "__main__":
    main()
