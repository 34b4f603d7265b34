#!/usr/bin/env bash
# Test the package as users install it (CI runs this after the checkout's suite):
#   1. build the sdist, and from it the wheel (compiles every extension);
#   2. install the wheel with its test extra into a fresh virtual environment (no system
#      site-packages; dependencies come from the package index, or pip's cache);
#   3. run the test suite with that environment's Python, from a copy of the checkout
#      without the package directory, so `import spacy_dynoracle` can only find the
#      installed wheel (tests/test_packaging.py asserts it through DYNORACLE_TEST_INSTALLED).
# The wheel is built with --no-build-isolation against the installed spaCy, the one
# [build-system] pins (scripts/install.sh installs it), as scripts/install.sh builds.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dynoracle-wheel.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
step() { echo "== test_wheel.sh: $1 ($((SECONDS - START)) s)"; }
START=$SECONDS

step "sdist"
"$PY" setup.py -q sdist --dist-dir "$WORK/dist" >/dev/null
step "wheel from the sdist"
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w "$WORK/dist" "$WORK"/dist/*.tar.gz
WHEEL=$(ls "$WORK"/dist/*.whl)
step "fresh venv with $(basename "$WHEEL")[test]"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --upgrade pip
"$WORK/venv/bin/python" -m pip install -q "$WHEEL[test]"

step "the test suite against the installed package"
# tracked and untracked (not ignored) files, less the package itself
git ls-files -z --cached --others --exclude-standard \
    | "$PY" -c '
import os, shutil, sys
dest = sys.argv[1]
for name in sys.stdin.read().split("\0"):
    if name and not name.startswith("spacy_dynoracle/") and os.path.isfile(name):
        os.makedirs(os.path.join(dest, os.path.dirname(name)), exist_ok=True)
        shutil.copy2(name, os.path.join(dest, name))
' "$WORK/suite"
(
    cd "$WORK/suite"
    unset PYTHONPATH
    DYNORACLE_TEST_INSTALLED="$WORK/venv" "$WORK/venv/bin/python" -m pytest -q "$@"
)
step "done"
