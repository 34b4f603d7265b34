#!/usr/bin/env bash
# Set everything up, then the main job on the package's default: train configs/dynoracle.cfg's
# parser (arc_eager_nm, spaCy's non-monotonic arc-eager with its costs, exploring from the
# start) on a small UD treebank for a few epochs and score it on dev with the package's
# CoNLL-18 evaluation.
#   UD_ROOT     folder of UD treebanks (default: ../shared/ud beside the repo)
#   TREEBANK    default UD_Hungarian-Szeged;  EPOCHS default 3;  SYSTEM default arc_eager_nm
#   REINSTALL=1 installs even when the install is up to date
#   OUT         where the pipeline goes (default training/quickstart-$SYSTEM)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# Install only when needed: the package imports from this checkout, its extensions were
# built against the installed spaCy, and no Cython source is newer than its module.
up_to_date() {
    "$PY" - <<'PYEOF' 2>/dev/null
import pathlib, re, sys
import spacy_dynoracle as d
root = pathlib.Path(".").resolve()
if pathlib.Path(d.__file__).resolve().parent != root / "spacy_dynoracle":
    sys.exit(1)
d.check_spacy_version()
src = root / "cython_src" / "spacy_dynoracle"

def cimported(path, seen):
    """The package .pxd files `path` cimports (`from .x cimport`), transitively: Cython
    recompiles a module when one of them changes, not when another module's .pyx does."""
    for dep in re.findall(r"^\s*from \.(\w+) cimport", path.read_text(encoding="utf-8"), re.M):
        pxd = src / f"{dep}.pxd"
        if pxd.exists() and pxd not in seen:
            seen.add(pxd)
            cimported(pxd, seen)
    return seen

def sources(name):
    """What setup.py's build recompiles the module for: its .pyx, its .pxd and the .pxd
    files they cimport."""
    own = [p for p in (src / f"{name}.pyx", src / f"{name}.pxd") if p.exists()]
    seen = set(own)
    for path in own:
        cimported(path, seen)
    return seen

for pyx in src.glob("*.pyx"):
    built = list((root / "spacy_dynoracle").glob(f"{pyx.stem}.*.so"))
    if not built or max(p.stat().st_mtime for p in sources(pyx.stem)) > built[0].stat().st_mtime:
        sys.exit(1)
PYEOF
}
if [ "${REINSTALL:-0}" != 1 ] && up_to_date; then
    echo "spacy-dynoracle is installed and up to date (REINSTALL=1 to rebuild)"
else
    echo "Installing spacy-dynoracle: compiling its Cython extensions takes a few minutes on 2 cores..."
    start=$(date +%s)
    bash scripts/install.sh
    echo "installed in $(( $(date +%s) - start )) s"
fi
UD_ROOT=${UD_ROOT:-$(cd .. && pwd)/shared/ud}
TREEBANK=${TREEBANK:-UD_Hungarian-Szeged}
EPOCHS=${EPOCHS:-3}
SYSTEM=${SYSTEM:-arc_eager_nm}
dir="$UD_ROOT/$TREEBANK"
train=$(ls "$dir"/*-ud-train.conllu 2>/dev/null | head -n1 || true)
dev=$(ls "$dir"/*-ud-dev.conllu 2>/dev/null | head -n1 || true)
if [ -z "$train" ]; then
    echo "No *-ud-train.conllu under $dir: set UD_ROOT (and TREEBANK) to a UD folder." >&2
    exit 1
fi
sel=(); dev_select=all
if [ -z "$dev" ]; then   # no dev split (e.g. Latin-Perseus): last 10% of train
    dev=$train; dev_select=tail:0.1
    sel=(--paths.train_select "head:0.9" --paths.dev_select "$dev_select")
fi
# the treebank's language (hu_szeged-ud-train.conllu -> hu) when spaCy has it, else "xx"
code=$(basename "$train"); code=${code%%_*}
lang=$("$PY" -c "import spacy.util, sys; spacy.util.get_lang_class(sys.argv[1]); print(sys.argv[1])" "$code" 2>/dev/null || echo xx)
out=${OUT:-training/quickstart-$SYSTEM}
echo "Training $SYSTEM (its default oracle and exploration) on $TREEBANK for $EPOCHS epochs, spaCy language '$lang'..."
"$PY" -m spacy train configs/dynoracle.cfg --output "$out" \
    --paths.train "$train" --paths.dev "$dev" "${sel[@]}" --nlp.lang "$lang" \
    --components.parser.transition_system "$SYSTEM" \
    --training.max_epochs "$EPOCHS" --training.eval_frequency 100
"$PY" -m spacy_dynoracle evaluate "$out/model-best" "$dev" --select "$dev_select" \
    --no-per-label --json "$out/dev-scores.json"
echo
echo "Smoke test only: $EPOCHS epochs are far from a trained parser (its dev LAS keeps rising for"
echo "20-40 epochs). Converged numbers and how to get them: projects/ud/README.md, workflow 'converged'."
