"""Where the UD treebanks for the slow tests live: spacy_dynoracle.options.ud_root
(``UD_ROOT`` in the environment, else ``../shared/ud`` beside the repo).
"""
from pathlib import Path
from typing import List

import pytest

from spacy_dynoracle.options import ud_root


def require_ud_root() -> Path:
    """The UD folder, or skip the calling test with the reason."""
    root = ud_root()
    if not root.is_dir() or not any(root.glob("UD_*/*.conllu")):
        pytest.skip(f"UD treebanks not found at {root} (set UD_ROOT to the folder with UD_* treebanks)")
    return root


def ud_files() -> List[Path]:
    """Every ``UD_*/*.conllu`` under the UD folder (empty if absent), sorted."""
    return sorted(ud_root().glob("UD_*/*.conllu"))
