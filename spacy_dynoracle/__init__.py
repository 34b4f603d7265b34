"""spacy-dynoracle: non-projective transition systems with dynamic oracles for spaCy.

This module and the entry-point modules (factory, corpus) import nothing compiled: spaCy
imports every `spacy_factories` entry point inside `Language.__init__`, so an extension
built against another spaCy must not break `spacy.blank()` for the whole environment.
Compiled code is imported through `load_compiled()`, which checks the spaCy version first.
"""
from importlib import import_module

__version__ = "0.1.0"

#: transition system name -> (compiled module, class name)
SYSTEMS = {
    "arc_hybrid": ("arc_hybrid", "ArcHybrid"),
    "arc_standard": ("arc_standard", "ArcStandard"),
    "lr_spine": ("lr_spine", "LRSpine"),
    "attardi": ("attardi", "Attardi"),
    "arc_eager": ("arc_eager", "ArcEager"),
    "swap": ("swap", "SwapSystem"),
}


class SpacyVersionMismatch(RuntimeError):
    """The compiled extensions were built against a different spaCy than the one running."""


def check_spacy_version():
    import spacy

    try:
        from ._build_info import SPACY_VERSION
    except ImportError:  # pragma: no cover - source tree without a build
        raise ImportError(
            "spacy_dynoracle's extensions are not built: run `pip install -e .` in the repo"
        ) from None
    if spacy.__version__ != SPACY_VERSION:
        raise SpacyVersionMismatch(
            f"spacy-dynoracle was compiled against spaCy {SPACY_VERSION}, but spaCy "
            f"{spacy.__version__} is installed. The parser's C structures differ between "
            f"spaCy releases, so the extensions cannot run. Install spacy=={SPACY_VERSION}, "
            "or rebuild spacy-dynoracle against this spaCy "
            "(pip install --no-binary spacy-dynoracle --force-reinstall spacy-dynoracle)."
        )


def load_compiled(module: str):
    """Import `spacy_dynoracle.<module>` (compiled) after checking the spaCy version."""
    check_spacy_version()
    return import_module(f"{__name__}.{module}")


def get_system_class(name: str):
    """The TransitionSystem class registered under `name`."""
    if name not in SYSTEMS:
        raise ValueError(
            f"unknown transition_system {name!r}; choose one of {sorted(SYSTEMS)}"
        )
    module, cls = SYSTEMS[name]
    return getattr(load_compiled(module), cls)
