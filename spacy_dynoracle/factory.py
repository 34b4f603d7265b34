"""The `dynoracle_parser` factory and the epoch callback (spaCy entry points).

Imports nothing compiled at module level (see __init__.py): the transition system is
loaded when a component is created, after the spaCy version check.
"""
import warnings
from typing import Any, Callable, Dict, Optional

from spacy.language import Language
from spacy.pipeline.dep_parser import DEFAULT_PARSER_MODEL
from spacy.util import registry
from thinc.api import Model

from . import architectures  # noqa: F401  registers the models (also entry points, for configs read first)
from .exact_decoding import check_exact_config  # registers the Doc/Token extensions too
from .load_overrides import RECORD_KEY, config_record
from .easy_first_parser import make_easy_first_parser
from .parser import DynOracleParser, ExplorationSchedule, check_nonprojective_penalty


# System options that configs used to set as keys of the component, for every system, at
# these values (the default of the systems that have them). Such configs, and the pipelines
# saved with them, still load: the key moves into system_options, with a FutureWarning.
DEPRECATED_SYSTEM_KEYS = {"degree": 2, "max_k": 2}
#: the factory's arguments that its config record (load_overrides.config_record) leaves out:
#: spaCy's nlp and name, the model and scorer (not settings of the component), and the system
#: options (recorded one by one, the deprecated keys among them); every other argument is
#: recorded as given
NOT_RECORDED = frozenset({"nlp", "name", "model", "scorer", "system_options"}
                         | DEPRECATED_SYSTEM_KEYS.keys())


@Language.factory(
    "dynoracle_parser",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={
        "model": DEFAULT_PARSER_MODEL,
        "transition_system": "arc_eager_nm",
        "oracle": None,
        "explore_after_epochs": None,
        "explore_prob": None,
        "explore_rule": "prob",
        "explore_margin": 1.0,
        "explore_ramp_epochs": 2,
        "projectivize": None,
        "system_options": {},
        "update_with_oracle_cut_size": 100,
        "min_action_freq": 30,
        "learn_tokens": False,
        "beam_width": 1,
        "beam_density": 0.0,
        "beam_update_prob": 0.0,
        "decode": "greedy",
        "arc_marginals": False,
        "nonprojective_penalty": 0.0,
        "scorer": {"@scorers": "spacy.parser_scorer.v1"},
    },
    default_score_weights={
        "dep_uas": 0.5,
        "dep_las": 0.5,
        "dep_las_per_type": None,
        "sents_p": None,
        "sents_r": None,
        "sents_f": 0.0,
    },
)
def make_dynoracle_parser(
    nlp: Language,
    name: str,
    model: Model,
    transition_system: str,
    oracle: Optional[str],
    explore_after_epochs: Optional[int],
    explore_prob: Optional[float],
    projectivize: Optional[bool],
    system_options: Dict[str, Any],
    update_with_oracle_cut_size: int,
    min_action_freq: int,
    learn_tokens: bool,
    beam_width: int,
    beam_density: float,
    beam_update_prob: float,
    scorer: Optional[Callable],
    decode: str = "greedy",
    arc_marginals: bool = False,
    explore_rule: str = "prob",
    explore_margin: float = 1.0,
    explore_ramp_epochs: int = 2,
    nonprojective_penalty: float = 0.0,
    degree: Optional[int] = None,
    max_k: Optional[int] = None,
):
    """A dependency parser with a selectable transition system and oracle.

    transition_system (str): one of spacy_dynoracle.SYSTEMS, or "easy_first"; the default
        is "arc_eager_nm", the best default measured at convergence (README, "Results on UD
        treebanks"). "easy_first" (LIST_SYSTEMS: its own component, easy_first_parser.EasyFirstParser, with the
        model spacy_dynoracle.EasyFirstModel.v1; beam, exact decoding and learn_tokens do
        not apply to it).
    oracle (Optional[str]): "dynamic" (exact costs, exploration allowed), "static" (one
        canonical move per state, always followed), or another oracle the system offers (an
        unknown name raises an error listing the system's oracles). None = the system's
        default (`default_oracle`, the README's systems table).
    explore_after_epochs (Optional[int]): k - follow the oracle for the first k epochs
        (0-based epochs < k), then follow the model's prediction with probability
        explore_prob. None = the system's default (`default_schedule`: k = 1 for most
        systems, 2 for swap and attardi).
    explore_prob (Optional[float]): p - probability of following the model once
        exploring. None = the system's default (0.9 for most systems, 0.5 for swap and
        attardi).
    explore_rule (str): how states explore once k epochs have passed (issue 19):
        "prob" (each state follows the model's prediction with probability p), "margin"
        (as "prob", but a wrong prediction is followed only when the best zero-cost move
        scores within explore_margin of it, else the oracle's move), "anneal" (p ramps
        linearly from 0 at epoch k to explore_prob at epoch k + explore_ramp_epochs).
    explore_margin (float): the score margin of explore_rule="margin" (>= 0).
    explore_ramp_epochs (int): the ramp length of explore_rule="anneal" (>= 1).
    projectivize (Optional[bool]): train on spaCy's pseudo-projective lifting and
        deprojectivize the output. None = the system's default: True for projective
        systems unless the oracle takes non-projective gold as it is (arc_hybrid and
        arc_eager "dynamic" / "goldberg-nivre"), False for non-projective systems.
    system_options (Dict[str, Any]): the system's options (its class attribute `options`,
        documented in docs/systems/<system>.md), e.g. attardi's `degree` (2 or 3) and
        `uncovered`, lr_spine's `max_k` (its cap on spine depth, 1..3), swap's
        `exact_live`, and `eager_root` / `close_sentences` / `keep_sentences` of every system
        (docs/conventions.md, "Training targets at sentence boundaries") and `target` /
        `defer` (docs/conventions.md, "Training target among the optimal moves"); an option the
        system does not have is an error naming the system's options. Stored in the
        pipeline's config, so a saved pipeline keeps them; spacy.load(path, config=...)
        can change those read only while parsing or training, not the structural ones
        (the system's `structural_options`, e.g. degree: an error; load_overrides.py).
    decode (str): "greedy" (spaCy's loop) or "exact": the best computation of the model by
        the tabulation (docs/tabulation.md); needs spacy_dynoracle.WindowParserModel.v1 and
        arc_hybrid, arc_eager or arc_standard.
    arc_marginals (bool): store arc marginals on the Doc (doc._.dynoracle_arc_marginals,
        token._.dynoracle_head_probs); same model requirements.
    nonprojective_penalty (float): at parse time only, subtracted from the model's score of
        every class of the moves that make non-projective structure (declared in the
        system's move table: swap's SWAP, attardi's LEFT_k / RIGHT_k for k >= 2) before
        the greedy argmax or the beam's ranking (issue 19: the precision of crossing arcs).
        0 = none (every system); another value is an error with a system that has no such
        move (the projective ones) and with decode = "exact". Saved in the component's cfg;
        on a loaded pipeline set `parser.nonprojective_penalty = x` (checked), or load with
        the config override, to change it without retraining.
    degree, max_k (Optional[int]): deprecated, null: set them in system_options. Configs
        written before had them here for every system (at 2 where the system has no such
        option); they still load, with a FutureWarning.
    The other settings are those of spaCy's `parser`.
    """
    # first, while the locals are the arguments: the config values as given (null = the
    # system's default), saved with the component; loading settles the saved pipeline's
    # values against them (load_overrides.py)
    recorded = {key: value for key, value in locals().items() if key not in NOT_RECORDED}
    from . import LIST_SYSTEMS, get_system_class  # version check, then the compiled module

    cls = get_system_class(transition_system)
    if decode not in ("greedy", "exact"):
        raise ValueError(f"decode must be 'greedy' or 'exact', not {decode!r}")
    options = dict(system_options or {})
    options.update(deprecated_system_keys(name, transition_system, cls, options, degree=degree,
                                          max_k=max_k))
    record = config_record(recorded, options)
    if oracle is None:
        oracle = cls.default_oracle
    default_k, default_p = cls.default_schedule   # DynOracleSystem: (1, 0.9) unless overridden
    if explore_after_epochs is None:
        explore_after_epochs = default_k
    if explore_prob is None:
        explore_prob = default_p
    check_settings(transition_system, cls, explore_after_epochs=explore_after_epochs,
                   explore_prob=explore_prob, explore_rule=explore_rule,
                   explore_margin=explore_margin, explore_ramp_epochs=explore_ramp_epochs,
                   beam_width=beam_width, beam_density=beam_density,
                   beam_update_prob=beam_update_prob)
    schedule = dict(transition_system=transition_system, oracle=oracle,
                    explore_after_epochs=explore_after_epochs, explore_prob=explore_prob,
                    explore_rule=explore_rule, explore_margin=float(explore_margin),
                    explore_ramp_epochs=explore_ramp_epochs)
    if transition_system in LIST_SYSTEMS:
        # a system with its own state (easy-first's pending list): its own component, the
        # same keys; those of spaCy's StateC loop must stay at their defaults
        component = make_easy_first_parser(
            nlp, name, model, cls(nlp.vocab.strings, oracle=oracle, **options),
            projectivize=projectivize, update_with_oracle_cut_size=update_with_oracle_cut_size,
            min_action_freq=min_action_freq, scorer=scorer,
            unsupported={"beam_width": (beam_width, 1), "decode": (decode, "greedy"),
                         "arc_marginals": (bool(arc_marginals), False),
                         "learn_tokens": (learn_tokens, False),
                         "nonprojective_penalty": (nonprojective_penalty, 0.0)},
            **schedule)
        component.cfg[RECORD_KEY] = record
        return component
    if decode == "exact" or arc_marginals:
        check_exact_config(model, transition_system)
    # Build the system here rather than through `moves`: it shares nlp.vocab.strings, and
    # Parser.cfg stays JSON-serialisable (docs/specs/spacy_integration.md §5).
    moves = cls(nlp.vocab.strings, projectivize=projectivize, oracle=oracle, **options)
    check_template_reach(model, transition_system, moves)
    nonprojective_penalty = check_nonprojective_penalty(nonprojective_penalty, moves, decode)
    parser = DynOracleParser(
        nlp.vocab,
        model,
        name=name,
        moves=moves,
        update_with_oracle_cut_size=update_with_oracle_cut_size,
        min_action_freq=min_action_freq,
        learn_tokens=learn_tokens,
        beam_width=beam_width,
        beam_density=beam_density,
        beam_update_prob=beam_update_prob,
        scorer=scorer,
    )
    parser.cfg["moves"] = None
    parser.cfg.update(schedule, decode=decode, arc_marginals=bool(arc_marginals),
                      nonprojective_penalty=nonprojective_penalty)
    parser.cfg[RECORD_KEY] = record
    return parser


def check_template_reach(model: Model, transition_system: str, moves) -> None:
    """The "attardi" feature template reads s_1 .. s_K and their dependents: K (the model's
    max_k) must be the system's degree, or the arcs of the highest degree go unseen."""
    if model.attrs.get("feature_template") == "attardi" and transition_system == "attardi" \
            and model.attrs["max_k"] != moves.degree:
        raise ValueError(
            f"dynoracle_parser: feature_template='attardi' with max_k={model.attrs['max_k']} "
            f"does not cover attardi's degree {moves.degree}; set the model's max_k to "
            f"{moves.degree} (e.g. max_k = ${{components.parser.system_options.degree}})")


def check_settings(transition_system: str, cls, *, explore_after_epochs: int, explore_prob: float,
                   explore_rule: str, explore_margin: float, explore_ramp_epochs: int,
                   beam_width: int, beam_density: float, beam_update_prob: float) -> None:
    """Refuse bad settings when the component is created, naming the value and the valid
    ones (the system checks the values of its own options, e.g. attardi's degree)."""
    def fail(name, value, valid):
        raise ValueError(f"dynoracle_parser: {name}={value!r} is invalid; {valid}")

    if isinstance(explore_after_epochs, bool) or not isinstance(explore_after_epochs, int) \
            or explore_after_epochs < 0:
        fail("explore_after_epochs", explore_after_epochs, "use an integer >= 0 (or null: the system's default)")
    for name, value in (("explore_prob", explore_prob), ("beam_density", beam_density),
                        ("beam_update_prob", beam_update_prob)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            fail(name, value, "use a number in [0, 1]" + (" (or null: the system's default)"
                                                          if name == "explore_prob" else ""))
    if isinstance(beam_width, bool) or not isinstance(beam_width, int) or beam_width < 1:
        fail("beam_width", beam_width, "use an integer >= 1 (1 = greedy; >= 2 = beam search)")
    if explore_rule not in cls.explore_rules:
        fail("explore_rule", explore_rule, f"use one of {list(cls.explore_rules)}")
    if isinstance(explore_margin, bool) or not isinstance(explore_margin, (int, float)) \
            or not explore_margin >= 0.0:
        fail("explore_margin", explore_margin, "use a number >= 0 (a score difference)")
    if isinstance(explore_ramp_epochs, bool) or not isinstance(explore_ramp_epochs, int) \
            or explore_ramp_epochs < 1:
        fail("explore_ramp_epochs", explore_ramp_epochs, "use an integer >= 1")


def deprecated_system_keys(component: str, transition_system: str, cls,
                           system_options: Dict[str, Any], **keys: Optional[int]) -> Dict[str, Any]:
    """The system options given as deprecated component keys (DEPRECATED_SYSTEM_KEYS; None
    = not given), warning that they belong in system_options. A key the system does not
    have is dropped at the value every system used to accept, and refused at any other."""
    from . import SYSTEMS, get_system_class

    moved = {}
    for key, value in keys.items():
        if value is None:
            continue
        if key in system_options:
            raise ValueError(f"dynoracle_parser: {key!r} is set twice, as a component key ({value!r}) "
                             f"and in system_options ({system_options[key]!r}); keep the one in "
                             "system_options")
        if key in cls.options:
            moved[key] = value
        elif value != DEPRECATED_SYSTEM_KEYS[key]:
            having = [name for name in SYSTEMS if key in get_system_class(name).options]
            raise ValueError(
                f"dynoracle_parser: {key}={value!r} is invalid; transition_system {transition_system!r} "
                f"has no {key!r} option (only {', '.join(having)}); remove it")
        # FutureWarning, not DeprecationWarning: Python hides the latter outside __main__,
        # and the reader is whoever wrote the config
        warnings.warn(
            f"dynoracle_parser: the component key {key} = {value} is deprecated: "
            + (f"set it in [components.{component}.system_options] instead"
               if key in moved else f"remove it (transition_system {transition_system!r} has no "
               f"{key!r} option)")
            + "; the config loads as before.", FutureWarning, stacklevel=2)
    return moved


@registry.callbacks("spacy_dynoracle.set_epoch.v1")
def make_epoch_callback() -> Callable:
    """`[training.before_update]` callback telling every dynoracle_parser the current
    epoch (spaCy's loop passes {"step", "epoch"}), for the exploration schedule."""

    def before_update(nlp, args):
        for _, pipe in nlp.pipeline:
            if isinstance(pipe, ExplorationSchedule):
                pipe.epoch = args["epoch"]

    return before_update
