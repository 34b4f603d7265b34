"""Which spacy_dynoracle the suite tests. By default the checkout's (PYTHONPATH or an
editable install); scripts/test_wheel.sh runs the suite from a copy of the checkout that
leaves spacy_dynoracle/ out, against a wheel installed into a fresh venv, and names that
venv in DYNORACLE_TEST_INSTALLED and the spaCy it installed there in DYNORACLE_TEST_SPACY."""
import os
from pathlib import Path

import pytest

import spacy_dynoracle

INSTALLED_PREFIX = os.environ.get("DYNORACLE_TEST_INSTALLED")
EXPECTED_SPACY = os.environ.get("DYNORACLE_TEST_SPACY")
# the imported package's folder (site-packages/spacy_dynoracle for a wheel), never REPO/spacy_dynoracle
PACKAGE = Path(spacy_dynoracle.__file__).resolve().parent

checkout_only = pytest.mark.skipif(
    INSTALLED_PREFIX is not None,
    reason="needs the checkout (its own files, or the build tools to build from it), which the "
           "installed-wheel run (scripts/test_wheel.sh) leaves out; the checkout's own run covers it")


def env_with_repo():
    """The environment for a subprocess that must import the package under test."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(PACKAGE.parent), os.environ.get("PYTHONPATH")) if p))
