"""The run matrix of the UD project, read from the package's registry.

Every transition system in `spacy_dynoracle.SYSTEMS` and `LIST_SYSTEMS` x every oracle its class declares
(`cls.oracles`), x the values in OPTION_GRID of the options the class declares (e.g.
attardi's `degree`), plus spaCy's stock `parser` as the baseline. Nothing here names a
system: a new system registered in the package joins the matrix by itself.

    python scripts/matrix.py            # list the runs (id, system, oracle, options)
    python scripts/matrix.py --json     # the same as JSON
"""
import argparse
import json
import sys
import warnings
from dataclasses import asdict, dataclass, field, replace
from typing import Dict, List, Optional

from spacy_dynoracle.options import option_text, parser_option_key

#: option values tried for every system that declares the option in `cls.options`
#: (other options keep the system's default)
OPTION_GRID = {"degree": (2, 3)}

#: run options that change the parser's model instead of the component (any system):
#: features=TEMPLATE (spine, attardi, swap, base, extra; spacy_dynoracle/state_features.pyx)
#: -> spacy_dynoracle.SpineParserModel.v1 with that feature template, in place of the
#: config's spacy.TransitionBasedParser.v2 (same widths, same tok2vec), its max_k (K) the
#: run's own K option if it sets one (lr_spine's max_k, attardi's degree; else both keep
#: their default)
K_OPTIONS = ("max_k", "degree")
MODEL_OPTIONS = {
    "features": lambda v, options: {
        "components.parser.model.@architectures": "spacy_dynoracle.SpineParserModel.v1",
        "components.parser.model.feature_template": v,
        **{"components.parser.model.max_k": f"${{components.parser.system_options.{k}}}"
           for k in K_OPTIONS if f"system_options.{k}" in options},
    },
}

STOCK = "spacy_parser"   # run id of spaCy's own parser (configs/spacy_parser*.cfg)
CONFIGS = {               # pipeline name -> (dynoracle config, stock config) in configs/
    "parser": ("dynoracle.cfg", "spacy_parser.cfg"),
    "tagger": ("dynoracle_tagger.cfg", "spacy_parser_tagger.cfg"),
}
#: run id and system of spaCy's biaffine parser (scripts/biaffine.py), pipeline -> config;
#: it has only the tagger pipeline, the one of the converged protocol
BIAFFINE = "biaffine"
BIAFFINE_CONFIGS = {"tagger": "biaffine_tagger.cfg"}


@dataclass
class Run:
    id: str
    system: str                  # a SYSTEMS name, "spacy" for the stock parser, or BIAFFINE
    oracle: Optional[str] = None
    dynamic: bool = False        # the oracle explores (cls.dynamic_oracles)
    options: Dict[str, object] = field(default_factory=dict)

    def config(self, pipeline: str = "parser") -> str:
        if self.system == BIAFFINE:
            if pipeline not in BIAFFINE_CONFIGS:
                raise SystemExit(f"the biaffine parser has no {pipeline!r} pipeline: use "
                                 f"{', '.join(BIAFFINE_CONFIGS)} (configs/{BIAFFINE_CONFIGS['tagger']})")
            return BIAFFINE_CONFIGS[pipeline]
        dyn, stock = CONFIGS[pipeline]
        return stock if self.system == "spacy" else dyn

    def overrides(self) -> Dict[str, object]:
        """spacy train overrides selecting this run's system and oracle (the system's own
        options, e.g. degree, in its system_options)."""
        if self.system in ("spacy", BIAFFINE):
            return {}
        from spacy_dynoracle import get_system_class

        out = {"components.parser.transition_system": self.system,
               "components.parser.oracle": self.oracle}
        architecture = getattr(get_system_class(self.system), "model_architecture", None)
        if architecture:      # a system with its own model (easy-first's pair scorer)
            out["components.parser.model.@architectures"] = architecture
        for key, value in self.options.items():
            if key in MODEL_OPTIONS:
                out.update(MODEL_OPTIONS[key](value, self.options))
            else:
                out[parser_option_key(self.system, key)] = value
        return out


def run_base(system: str, options: Dict[str, object]) -> str:
    """The run id without its oracle: runs that share it differ only in how they train."""
    return system + "".join(f"-{k}{option_text(v)}" for k, v in sorted(options.items()))


def run_id(system: str, oracle: str, options: Dict[str, object]) -> str:
    return f"{run_base(system, options)}-{oracle}"


def with_variant(run: Run, variant: str) -> Run:
    """The run with '+variant' appended to its id: the same system and oracle trained with
    other config settings (run_matrix --set/--variant) gets its own folder and report row."""
    if not variant:
        return run
    if not variant.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"variant {variant!r}: use letters, digits, '-' and '_' only")
    return replace(run, id=f"{run.id}+{variant}")


def with_system_defaults(cls, options: Dict[str, object], oracle: str) -> Dict[str, object]:
    """options plus the system's own defaults of the shared options (common_option_defaults,
    e.g. arc_eager's close_sentences and keep_sentences), written out: a run id names the
    configuration it trains, so a changed default never puts a new configuration under an
    old run's name. Those that act only through a dynamic oracle (DYNAMIC_ONLY_OPTIONS: the
    training targets) are left out of a static oracle's runs, which they do not change.

    A system option is keyed `system_options.KEY` however it was given (`degree=3` or
    `system_options.degree=3`): one configuration has one run id, and an option given
    short is not overridden by the default written out for it (`target=zero_cost` once
    trained attardi's default `static` target under an id that named zero_cost)."""
    from spacy_dynoracle.options import option_names
    from spacy_dynoracle.system_base import DYNAMIC_ONLY_OPTIONS

    dynamic = oracle in getattr(cls, "dynamic_oracles", ())
    names = option_names(cls)
    out, given = {}, {}
    for key, value in options.items():
        full = f"system_options.{key}" if key in names else key
        if full in out:
            raise ValueError(f"option {full!r} given twice: as {given[full]!r} and as {key!r}")
        out[full], given[full] = value, key
    for key, value in getattr(cls, "common_option_defaults", {}).items():
        if dynamic or key not in DYNAMIC_ONLY_OPTIONS:
            out.setdefault(f"system_options.{key}", value)
    return out


def make_run(system: str, oracle: Optional[str] = None, options=None) -> Run:
    """The Run of one (system, oracle, options); system "spacy" = the stock parser,
    BIAFFINE = spaCy's biaffine parser (a peer trained in its own venv)."""
    if system == "spacy":
        return Run(STOCK, "spacy")
    if system == BIAFFINE:
        return Run(BIAFFINE, BIAFFINE)
    from spacy_dynoracle import get_system_class

    cls = get_system_class(system)
    options = with_system_defaults(cls, options or {}, oracle)
    return Run(run_id(system, oracle, options), system, oracle,
               oracle in getattr(cls, "dynamic_oracles", ()), options)


def system_runs(system: str) -> List[Run]:
    """The runs of one registered system (raises if its class cannot be loaded)."""
    from spacy_dynoracle import get_system_class

    cls = get_system_class(system)
    grids = [{}]
    for key, values in OPTION_GRID.items():
        if key in getattr(cls, "options", {}):
            grids = [dict(g, **{key: v}) for g in grids for v in values]
    dynamic = set(getattr(cls, "dynamic_oracles", ()))
    runs = []
    for grid in grids:
        for oracle in cls.oracles:
            opts = with_system_defaults(cls, grid, oracle)
            runs.append(Run(run_id(system, oracle, opts), system, oracle, oracle in dynamic, opts))
    return runs


def all_runs(systems: Optional[List[str]] = None, oracles: Optional[List[str]] = None,
             stock: bool = True, strict: bool = False) -> List[Run]:
    """Every (system, oracle, options) of the registry (or of `systems`), filtered to
    `oracles` if given, + the stock parser. A registered system whose compiled module is
    missing (not built yet) is skipped with a warning unless strict."""
    from spacy_dynoracle import LIST_SYSTEMS, SYSTEMS

    runs = []
    for name in (systems or [*SYSTEMS, *LIST_SYSTEMS]):
        if name == "spacy":
            continue
        try:
            sys_runs = system_runs(name)
        except (ImportError, AttributeError) as err:
            if strict:
                raise
            warnings.warn(f"transition system {name!r} is registered but cannot be loaded "
                          f"({err}); left out of the matrix")
            continue
        runs.extend(r for r in sys_runs if not oracles or r.oracle in oracles)
    if stock and (systems is None or "spacy" in systems or not systems):
        runs.append(Run(STOCK, "spacy"))
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", default="", help="comma-separated subset (default: all registered)")
    ap.add_argument("--oracles", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    runs = all_runs(args.systems.split(",") if args.systems else None,
                    args.oracles.split(",") if args.oracles else None)
    if args.json:
        json.dump([asdict(r) for r in runs], sys.stdout, indent=2)
        print()
    else:
        for r in runs:
            print(f"{r.id:32} {r.system:14} {r.oracle or '-':10} "
                  f"{'explores' if r.dynamic else '':9} {r.options or ''}")


if __name__ == "__main__":
    main()
