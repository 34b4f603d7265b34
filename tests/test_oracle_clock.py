"""The oracle clock (issue 23), every system's: `moves.timed` (off by default) adds the thread
CPU time of each call of the system's oracle, static or dynamic, to
`moves.oracle_stats()["oracle_cpu_s"]`, on the path training takes (moves.step_batch and
set_costs through DynOracleSystem.oracle_costs; easy_first's action_costs) and on the
Simulator's, which runs the same code. benchmarks/train_step.py compares a dynamic and a
static pipeline by their oracles' CPU, so both must be clocked alike, and an untimed
system must read no clock at all (its counter stays exactly 0)."""
import pytest
import spacy

from spacy_dynoracle import LIST_SYSTEMS, SYSTEMS, get_system_class
from spacy_dynoracle.testing import Simulator
from synthetic import component_config, make_examples

# two projective gold sentences ({0, 1, 2} and {3..7}): every oracle's gold, static ones too
HEADS = [1, 1, 1, 4, 4, 4, 5, 4]
LABELS = ["dep"] * len(HEADS)

EVERY_ORACLE = [(name, oracle) for name in [*SYSTEMS, *LIST_SYSTEMS]
                for oracle in get_system_class(name).oracles]


def reference_oracles(name):
    """The oracles of a system train_step.py divides: its default and its static reference
    (static-lazy for swap; arc_eager_nm has none)."""
    oracles = get_system_class(name).oracles
    static = next((o for o in ("static", "static-lazy") if o in oracles), None)
    return [get_system_class(name).default_oracle] + ([static] if static else [])


TRAINED = [(name, oracle) for name in [*SYSTEMS, *LIST_SYSTEMS] for oracle in reference_oracles(name)]


def simulator_cpu(system, oracle, timed, walks=5):
    """oracle_cpu_s after `walks` zero-cost walks over HEADS through the training costs."""
    sim = Simulator(system, len(HEADS), labels=["dep"], oracle=oracle)
    assert sim.moves.timed is False                     # off by default
    sim.moves.timed = timed
    start = sim.state
    for _ in range(walks):
        sim.state = start.copy()
        while not sim.is_final():
            costs = sim.training_costs(HEADS, LABELS)
            sim.apply(min(a for a in costs if costs[a] == 0))
    return sim.moves.oracle_stats()["oracle_cpu_s"]


@pytest.mark.parametrize("system,oracle", EVERY_ORACLE, ids=[f"{s}-{o}" for s, o in EVERY_ORACLE])
def test_simulator_path_is_clocked_only_when_timed(system, oracle):
    assert simulator_cpu(system, oracle, False) == 0
    assert simulator_cpu(system, oracle, True) > 0


def training_cpu(system, oracle, timed):
    """oracle_cpu_s after one epoch of nlp.update over a few synthetic Docs, exploring."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("dynoracle_parser", config=component_config(
        transition_system=system, oracle=oracle, explore_after_epochs=0, explore_prob=0.5))
    examples = make_examples(nlp.vocab, 6, seed=3, sents_per_doc=2, min_len=3, max_len=10)
    spacy.util.fix_random_seed(0)
    nlp.initialize(lambda: examples)
    moves = nlp.get_pipe("dynoracle_parser").moves
    moves.timed = timed
    before = moves.oracle_stats()["oracle_cpu_s"]
    nlp.update(examples, losses={})
    return moves.oracle_stats()["oracle_cpu_s"] - before


@pytest.mark.parametrize("system,oracle", TRAINED, ids=[f"{s}-{o}" for s, o in TRAINED])
def test_training_update_is_clocked_only_when_timed(system, oracle):
    assert training_cpu(system, oracle, False) == 0
    assert training_cpu(system, oracle, True) > 0
