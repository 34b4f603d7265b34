#!/usr/bin/env bash
# Install spacy-dynoracle and what its tests need into the current Python environment.
# The extensions are compiled against the exact spaCy pinned in pyproject.toml (ABI), so
# the build uses the installed spaCy (--no-build-isolation) after pinning it first.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
"$PY" -m pip install -q "setuptools>=77" wheel "cython>=3.0,<4" "numpy>=2.0" "spacy==3.8.18" \
    "conllu>=4.5" "pytest>=7" "hypothesis>=6" "dask[distributed]>=2023.1"
"$PY" -m pip install -q --no-build-isolation -e .
"$PY" -c "import spacy_dynoracle as d; d.check_spacy_version(); print('spacy-dynoracle', d.__version__, 'installed')"
