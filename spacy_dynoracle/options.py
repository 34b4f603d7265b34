"""Settings that scripts take from a command line, shared by benchmarks/,
projects/ud/scripts/ and tests/: KEY=VALUE options, the config key a parser option sets,
and where the UD treebanks are.

Imports nothing compiled at module level.
"""
import json
import os
from pathlib import Path
from typing import Any, Dict, Iterable, Optional

from .load_overrides import option_names

#: the source tree this package was imported from (the repository, when run from a checkout)
SOURCE_TREE = Path(__file__).resolve().parents[1]


def option_value(text: str) -> Any:
    """A value given as text on a command line, read the way spaCy reads `--key value`
    config overrides (spacy.cli._util._parse_override): as JSON (3, 0.5, true, null,
    ["a"]), else the text itself ("spine")."""
    from spacy.cli._util import _parse_override

    return _parse_override(text)


def option_text(value: Any) -> str:
    """The text `option_value` reads back as `value` (true, null, 3, spine): for command
    lines and for run ids."""
    return str(value) if isinstance(value, (str, Path)) else json.dumps(value)


def parse_options(items: Optional[Iterable[str]]) -> Dict[str, Any]:
    """{key: value} of KEY=VALUE strings (values read by `option_value`)."""
    out = {}
    for item in items or ():
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(f"option {item!r} is not KEY=VALUE (e.g. degree=3, projectivize=true)")
        out[key] = option_value(text)
    return out


def parser_option_key(system: str, key: str, component: str = "parser") -> str:
    """The config key that sets parser option `key` of `system`: one of the system's
    options (load_overrides.option_names: its own, e.g. attardi's degree, and the common
    ones, e.g. target) goes to `system_options`, anything else (projectivize, beam_width,
    system_options.x) is a key of the component itself."""
    from . import get_system_class

    if key in option_names(get_system_class(system)):
        return f"components.{component}.system_options.{key}"
    return f"components.{component}.{key}"


def ud_root(value=None) -> Path:
    """The folder with the UD_* treebank folders: `value` (e.g. --ud-root), else $UD_ROOT,
    else ../shared/ud beside the source tree; relative paths are taken from the current
    directory. Whether it exists is the caller's question (skip a test, stop a script)."""
    root = Path(value or os.environ.get("UD_ROOT") or SOURCE_TREE.parent / "shared" / "ud")
    return root if root.is_absolute() else (Path.cwd() / root).resolve()
