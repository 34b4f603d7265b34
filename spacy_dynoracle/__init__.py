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
    "arc_eager_nm": ("arc_eager_nm", "ArcEagerNM"),
    "swap": ("swap", "SwapSystem"),
}

#: systems with their own state instead of spaCy's StateC (a list of pending heads): the
#: ListSimulator drives them, and the dynoracle_parser factory makes them an
#: EasyFirstParser (easy_first_parser.py)
LIST_SYSTEMS = {
    "easy_first": ("easy_first", "EasyFirst"),
}


#: spaCy releases whose C headers (all 39 .pxd files) are byte-identical, so extensions
#: built against one of them run with any other (README, "spaCy versions"; keep in step
#: with the range in pyproject.toml).
SPACY_ABI_RANGE = ("3.8.10", "3.8.18")


class SpacyVersionMismatch(RuntimeError):
    """The compiled extensions were built against a spaCy whose C headers differ from the
    running one's."""


def _release(version: str):
    parts = version.split(".")
    return tuple(int(p) for p in parts) if len(parts) == 3 and all(p.isdigit() for p in parts) else None


def spacy_abi_compatible(built: str, running: str) -> bool:
    """Whether extensions built against spaCy `built` can run with spaCy `running`: the same
    release, or two releases within SPACY_ABI_RANGE."""
    low, high = (_release(v) for v in SPACY_ABI_RANGE)
    return built == running or all(
        _release(v) is not None and low <= _release(v) <= high for v in (built, running))


def check_spacy_version():
    import spacy

    try:
        from ._build_info import SPACY_VERSION
    except ImportError:  # pragma: no cover - source tree without a build
        raise ImportError(
            "spacy_dynoracle's extensions are not built: run `pip install -e .` in the repo"
        ) from None
    if not spacy_abi_compatible(SPACY_VERSION, spacy.__version__):
        low, high = SPACY_ABI_RANGE
        raise SpacyVersionMismatch(
            f"spacy-dynoracle was compiled against spaCy {SPACY_VERSION}, but spaCy "
            f"{spacy.__version__} is installed. The extensions compile spaCy's C structures in, "
            f"which are the same only in spaCy {low} to {high}, so they cannot run. Install a "
            f"spaCy from {low} to {high} (pip install 'spacy>={low},<={high}'), or rebuild "
            "spacy-dynoracle against this spaCy "
            "(pip install --no-binary spacy-dynoracle --force-reinstall spacy-dynoracle)."
        )


def load_compiled(module: str):
    """Import `spacy_dynoracle.<module>` (compiled) after checking the spaCy version."""
    check_spacy_version()
    return import_module(f"{__name__}.{module}")


def get_system_class(name: str, registry=None):
    """The system class registered under `name` (in SYSTEMS or LIST_SYSTEMS, or `registry`)."""
    registry = {**SYSTEMS, **LIST_SYSTEMS} if registry is None else registry
    if name not in registry:
        raise ValueError(
            f"unknown transition_system {name!r}; choose one of {sorted(registry)}"
        )
    module, cls = registry[name]
    return getattr(load_compiled(module), cls)
