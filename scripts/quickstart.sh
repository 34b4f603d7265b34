#!/usr/bin/env bash
# Set everything up, then the main job on the embedded default: train arc-hybrid with its
# dynamic oracle (exploration after epoch 1) on a small UD treebank for a few epochs and
# score it on dev with the package's CoNLL-18 evaluation.
#   UD_ROOT     folder of UD treebanks (default: ../shared/ud beside the repo)
#   TREEBANK    default UD_Hungarian-Szeged;  EPOCHS default 3;  SYSTEM default arc_hybrid
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
bash scripts/install.sh
UD_ROOT=${UD_ROOT:-$(cd .. && pwd)/shared/ud}
TREEBANK=${TREEBANK:-UD_Hungarian-Szeged}
EPOCHS=${EPOCHS:-3}
SYSTEM=${SYSTEM:-arc_hybrid}
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
out=training/quickstart-$SYSTEM
"$PY" -m spacy train configs/dynoracle.cfg --output "$out" \
    --paths.train "$train" --paths.dev "$dev" "${sel[@]}" \
    --components.parser.transition_system "$SYSTEM" \
    --training.max_epochs "$EPOCHS" --training.eval_frequency 100
"$PY" -m spacy_dynoracle evaluate "$out/model-best" "$dev" --select "$dev_select" \
    --no-per-label --json "$out/dev-scores.json"
