"""Swaps per sentence of the swap system's static oracles on UD training sets (issue 6),
to compare with BN15 Table 1 (docs/specs/swap.md §9.1): % projective sentences, #SW of EAGER,
and the reductions of LAZY and MINIMAL.

    python benchmarks/swap_stats.py [--treebanks UD_Hungarian-Szeged,...] [--budget 200000]

One sentence at a time (gold heads as in the file); MINIMAL is the search of
docs/specs/swap.md §4.1 with a state budget per sentence (LAZY when exceeded; counted as
"fallback").
"""
import argparse
import time
from pathlib import Path

from spacy_dynoracle import load_compiled
from spacy_dynoracle.conllu_io import read_conllu

UD = Path(__file__).resolve().parents[2] / "shared" / "ud"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebanks", default="")
    ap.add_argument("--budget", type=int, default=200000)
    args = ap.parse_args()
    oracle = load_compiled("swap_oracle")
    names = args.treebanks.split(",") if args.treebanks else sorted(
        p.name for p in UD.iterdir() if p.is_dir() and p.name.startswith("UD_"))
    print(f"{'treebank':28}{'sents':>7}{'%proj':>7}{'EAGER':>8}{'LAZY':>7}{'MIN':>7}"
          f"{'red.LAZY':>9}{'red.MIN':>8}{'SW/sent E/L/M':>18}{'fallback':>9}{'sec':>6}")
    for name in names:
        files = list((UD / name).glob("*-ud-train.conllu"))
        if not files:
            continue
        t0 = time.time()
        n = proj = e = la = mi = fb = 0
        for sent in read_conllu(files[0], on_error="skip"):
            heads = [i if h == 0 else h - 1 for i, h in enumerate(sent.heads)]
            d = oracle.SwapOracleData(heads, budget=args.budget)
            ce, cl, cm, fallback = d.swap_counts
            n += 1
            proj += d.projective
            e += ce
            la += cl
            mi += cm
            fb += fallback
        red_l = f"{100 * (e - la) / e:.2f}" if e else "-"
        red_m = f"{100 * (e - mi) / e:.2f}" if e else "-"
        per = f"{e / n:.3f}/{la / n:.3f}/{mi / n:.3f}"
        print(f"{name:28}{n:>7}{100 * proj / n:>7.2f}{e:>8}{la:>7}{mi:>7}{red_l:>9}{red_m:>8}"
              f"{per:>18}{fb:>9}{time.time() - t0:>6.0f}", flush=True)


if __name__ == "__main__":
    main()
