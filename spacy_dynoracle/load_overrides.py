"""`spacy.load(path, config=...)` for the dynoracle_parser components: a config value that
differs from the one the saved pipeline was built with wins, where it can.

spaCy builds a component from the config (the user's overrides merged into the saved
config.cfg), then `from_disk` / `from_bytes` update the component's cfg, and the transition
system's cfg, with the saved ones, which would silently undo every override. The components
(parser.DynOracleParser, easy_first_parser.EasyFirstParser) therefore keep, in their cfg,
the config values they were built with (RECORD_KEY) and, when loading, settle every value:

- a value whose config value is the one the saved pipeline was built with (recorded then)
  keeps the saved value: the trained one, or one set on the component after it was built
  (`parser.nonprojective_penalty = x`, then saved), or the default at training time of an
  option the config leaves unset (a default changed since then is not a request);
- a value the config asks to change is parse-time (read only while parsing or training:
  penalties, training targets, exploration, the oracle) and takes the config's value, or
  it is structural (it shapes the move table or the label set, hence the model's output
  layer: the system's `structural_options`, e.g. attardi's degree, and STRUCTURAL_KEYS of
  the component) and loading stops with a ValueError naming it, the saved value and the
  requested one.

A pipeline saved before the record existed counts as requested every config value that is
set (not null) and differs from the saved one, except the values a user can set on the
component after it is built (SET_ON_COMPONENT: `parser.nonprojective_penalty = x` is saved
in the cfg and not in config.cfg, so there a differing config value need not be a
request): those keep the saved value, with a warning. Saving the pipeline again with this
version records its config.
"""
import warnings
from pathlib import Path
from typing import Any, Dict, Optional

import srsly

#: the component cfg key holding the config values the component was built with
RECORD_KEY = "configured"
#: flat names of the system options among a component's values ("system_options.degree")
OPTION_PREFIX = "system_options."
#: the component's own config keys that the trained move table or label set depends on (the
#: system's options declare theirs: `structural_options`): the system, and lifting, whose
#: labels (`obj||nsubj`) the table holds and the parse decodes. min_action_freq and
#: learn_tokens are not: they are read only by initialize(), which a loaded pipeline has
#: done, so their config value is kept for a later initialize() and changes nothing else.
STRUCTURAL_KEYS = frozenset({"transition_system", "projectivize"})
#: the component's config keys a user can also set on the built component (a property with
#: a setter, parser.DynOracleParser), which the saved cfg holds and config.cfg does not
SET_ON_COMPONENT = frozenset({"nonprojective_penalty"})


def config_record(settings: Dict[str, Any], system_options: Dict[str, Any]) -> Dict[str, Any]:
    """What the config asked of a component, flat: its keys as given (null = the system's
    default) and its system options as OPTION_PREFIX + name. JSON, saved in the cfg."""
    record = dict(settings)
    record.update((OPTION_PREFIX + key, value) for key, value in system_options.items())
    return record


def option_names(system) -> frozenset:
    """Every option the transition system (class or instance) takes: its own (`options`) and
    the common ones (`common_options`; a system without that attribute has none)."""
    return frozenset(system.options) | frozenset(getattr(system, "common_options", ()))


def flat_values(cfg: Dict[str, Any], moves_cfg: Dict[str, Any], system) -> Dict[str, Any]:
    """A component's values by the names of config_record: its cfg keys, and the options
    and `projectivize` the transition system keeps in its own cfg."""
    values = {key: value for key, value in cfg.items() if key != RECORD_KEY}
    names = option_names(system)
    values.update((OPTION_PREFIX + key, value) for key, value in moves_cfg.items() if key in names)
    if "projectivize" in moves_cfg:
        values["projectivize"] = moves_cfg["projectivize"]
    return values


def is_structural(key: str, system) -> bool:
    if key.startswith(OPTION_PREFIX):
        return key[len(OPTION_PREFIX):] in system.structural_options
    return key in STRUCTURAL_KEYS


def settle(component: str, system, built: Dict[str, Any], saved: Dict[str, Any],
           asked: Dict[str, Any], asked_then: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The values a loaded component keeps (module docstring): `built` its values from the
    config, `saved` those of the saved pipeline, `asked` the config's record now and
    `asked_then` the saved one (None: saved before records). ValueError for a structural
    value the config asks to change."""
    out = {}
    for key, value in built.items():
        if key not in saved or saved[key] == value:
            out[key] = value
            continue
        if asked_then is not None:
            requested = asked.get(key) != asked_then.get(key)
        else:
            requested = asked.get(key) is not None and key not in SET_ON_COMPONENT
            if asked.get(key) is not None and not requested:
                warnings.warn(
                    f"dynoracle_parser {component!r}: the pipeline was saved without the record "
                    f"of its config, so the config's {key} = {value!r} is not used and the saved "
                    f"value {saved[key]!r} is kept; save the pipeline again with this version of "
                    "spacy-dynoracle to give its options at load time", stacklevel=3)
        if not requested:
            out[key] = saved[key]
        elif is_structural(key, system):
            what = (f"system option {key[len(OPTION_PREFIX):]!r}" if key.startswith(OPTION_PREFIX)
                    else f"{key!r}")
            raise ValueError(
                f"dynoracle_parser {component!r}: the config sets {what} to {value!r}, but the "
                f"saved pipeline was trained with {saved[key]!r}. It shapes the move table or "
                "the label set (the model's output layer), so it cannot change when a trained "
                f"pipeline is loaded; load it with {saved[key]!r} (remove the override) or "
                "retrain")
        else:
            out[key] = value
    return out


def saved_cfgs_on_disk(path, exclude, has_moves: bool):
    """(component cfg, transition system cfg) saved in a component's folder; {} for what
    is excluded or absent."""
    path = Path(path)
    cfg = srsly.read_json(path / "cfg") if "cfg" not in exclude and (path / "cfg").exists() else {}
    moves = {}
    if has_moves and "moves" not in exclude and (path / "moves").exists():
        moves = srsly.msgpack_loads((path / "moves").read_bytes()).get("cfg", {})
    return cfg, moves


def saved_cfgs_in_bytes(bytes_data, exclude, has_moves: bool):
    """(component cfg, transition system cfg) in a component's to_bytes()."""
    msg = srsly.msgpack_loads(bytes_data)
    cfg = srsly.json_loads(msg["cfg"]) if "cfg" not in exclude and "cfg" in msg else {}
    moves = {}
    if has_moves and "moves" not in exclude and "moves" in msg:
        moves = srsly.msgpack_loads(msg["moves"]).get("cfg", {})
    return cfg, moves


class LoadsConfigOverrides:
    """from_disk / from_bytes for a component built by the dynoracle_parser factory, with the
    config's values settled against the saved ones (module docstring). The component has
    `cfg` (with RECORD_KEY from the factory), `vocab` and `moves`: a transition system with
    `cfg`, `oracle` and a constructor taking (vocab.strings, oracle=..., [projectivize=...,]
    **options). `saves_moves`: whether the component saves `moves` (its cfg) too."""
    saves_moves = True

    # The saved cfgs are read here, and read again by spaCy's from_disk / from_bytes, because
    # spaCy loads the saved moves into the component's transition system before its cfg and
    # then resizes the model to that system's move table: the system must be the settled one
    # before spaCy's load starts. Settled after it, a structural change (transition_system)
    # fails in the moves loader ("has no move LEFT_2") instead of raising the ValueError that
    # names the option, and a saved table that the system built from the config cannot hold
    # (lr_spine saved at max_k 3, default now 2) fails there too (tests/test_load_overrides.py,
    # test_a_structural_default_changed_since_saving_loads_the_saved_move_table).
    def from_disk(self, path, exclude=tuple()):
        final = self._settle_before_load(*saved_cfgs_on_disk(path, exclude, self.saves_moves))
        super().from_disk(path, exclude=exclude)
        self._set_values(final)
        return self

    def from_bytes(self, bytes_data, exclude=tuple()):
        final = self._settle_before_load(*saved_cfgs_in_bytes(bytes_data, exclude, self.saves_moves))
        super().from_bytes(bytes_data, exclude=exclude)
        self._set_values(final)
        return self

    def _settle_before_load(self, saved_cfg, saved_moves_cfg):
        """The settled values; the transition system is rebuilt first when one of its
        settings (the oracle, its options, projectivize) settles on the saved value and not
        on the one it was built with: several are read once, when it is built."""
        asked = dict(self.cfg.get(RECORD_KEY) or {})
        built = flat_values(self.cfg, self.moves.cfg, self.moves)
        saved = flat_values(saved_cfg, saved_moves_cfg, self.moves)
        final = settle(self.name, self.moves, built, saved, asked, saved_cfg.get(RECORD_KEY))
        if self._system_settings(final) != self._system_settings(built):
            self._replace_moves(type(self.moves)(self.vocab.strings, **self._system_settings(final)))
        final[RECORD_KEY] = asked
        return final

    def _replace_moves(self, moves):
        self.moves = moves

    def _system_settings(self, values):
        """The transition system's constructor arguments among `values`."""
        settings = {key[len(OPTION_PREFIX):]: value for key, value in values.items()
                    if key.startswith(OPTION_PREFIX)}
        settings["oracle"] = values.get("oracle", self.moves.oracle)
        if "projectivize" in self.moves.cfg:
            settings["projectivize"] = values["projectivize"]
        return settings

    def _set_values(self, values):
        for key, value in values.items():
            if key.startswith(OPTION_PREFIX):
                self.moves.cfg[key[len(OPTION_PREFIX):]] = value
            elif key == "projectivize" and key in self.moves.cfg:
                self.moves.cfg[key] = value
            else:
                self.cfg[key] = value
